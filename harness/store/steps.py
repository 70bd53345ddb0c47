"""The SQL of the trace's steps: committing a completed step in one transaction (the full
prompt, results, observations, events, policy decisions, writes and recall rows), provider
attempts and events as they happen, and reading steps back with the §8.1 counts.

Every text is redacted (``harness.redact``) before it is stored (§6.7): prompts, the model's
words, results, tool calls, observations, events, policy details and provider errors.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from harness.redact import redact
from harness.store.base import now_iso
from harness.store.connection import Connection
from harness.store.edits import confirm_edits
from harness.store.records import StepDetail, StepRecord, StepRow
from harness.store.runs import save_context
from harness.types import Attempt, ContextCounts, TraceEvent

UNSAVED_REFUSED = "unsaved_refused"  # the event a write refused for unsaved buffers leaves


def scrub(value: Any) -> Any:
    """``value`` (JSON-like) with every string in it redacted, keys included."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(str(k)): scrub(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(v) for v in value]
    return value


def dumps(value: Any) -> str:
    """Redacted JSON; what JSON cannot hold is written as its (redacted) ``str``."""
    return json.dumps(scrub(value), default=lambda o: redact(str(o)))


def insert_attempt(conn: Connection, run_id: int, step: int, attempt: Attempt) -> None:
    u = attempt.usage
    conn.execute(
        "INSERT INTO provider_calls (run_id, step, attempt, provider, model,"
        " prompt_tokens, completion_tokens, total_tokens, cache_read_tokens,"
        " cache_write_tokens, usage_estimated, latency_ms, ttft_ms, status,"
        " finish_reason, failure, error, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            run_id,
            step,
            attempt.attempt,
            attempt.provider,
            attempt.model,
            u.prompt_tokens if u else None,
            u.completion_tokens if u else None,
            u.total_tokens if u else None,
            u.cache_read_tokens if u else None,
            u.cache_write_tokens if u else None,
            int(bool(u and u.estimated)),
            attempt.latency_ms,
            attempt.ttft_ms,
            attempt.status,
            attempt.finish_reason,
            attempt.failure,
            redact(attempt.error) if attempt.error else attempt.error,
            now_iso(),
        ),
    )


def insert_events(
    conn: Connection, run_id: int | None, step: int | None, events: Sequence[TraceEvent]
) -> None:
    now = now_iso()
    conn.executemany(
        "INSERT INTO context_events (run_id, step, kind, detail, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        [(run_id, step, e.kind, dumps(dict(e.detail)), now) for e in events],
    )


def insert_step(conn: Connection, rec: StepRecord) -> None:
    """Everything but the recall rows (``harness.store.notes.insert_recalls`` writes those
    in the same transaction)."""
    conn.execute(
        "INSERT INTO steps (run_id, step, decision, content, prompt, tool_calls, result,"
        " effective_tokens, est_tokens, reported_prompt_tokens, completion_tokens,"
        " total_tokens, carried, stubbed, reread, recalled, started_at, finished_at,"
        " prefix_chars) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            rec.run_id,
            rec.step,
            redact(rec.decision),
            redact(rec.content),
            dumps(list(rec.prompt)),
            dumps(list(rec.tool_calls)),
            redact(rec.result),
            rec.effective_tokens,
            rec.est_tokens,
            rec.usage.prompt_tokens,
            rec.usage.completion_tokens,
            rec.usage.total_tokens,
            rec.counts.carried,
            rec.counts.stubbed,
            rec.counts.reread,
            rec.counts.recalled,
            rec.started_at,
            now_iso(),
            rec.prefix_chars,
        ),
    )
    _insert_observations(conn, rec)
    if rec.context is not None:
        save_context(conn, rec.run_id, rec.step, redact(rec.context))
    insert_events(conn, rec.run_id, rec.step, rec.events)
    now = now_iso()
    _insert_policy(conn, rec, now)
    confirm_edits(conn, rec.run_id, rec.step, rec.edits, now)
    conn.execute(
        "UPDATE runs SET steps = ?, spent_tokens = ? WHERE id = ?",
        (rec.step, rec.spent_tokens, rec.run_id),
    )


def _insert_observations(conn: Connection, rec: StepRecord) -> None:
    conn.executemany(
        "INSERT INTO observations (run_id, step, seq, kind, target, ok, text, content_hash)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                rec.run_id,
                rec.step,
                o.seq,
                o.kind,
                redact(o.target),
                int(o.ok),
                redact(o.text),
                o.content_hash,
            )
            for o in rec.observations
        ],
    )


def _insert_policy(conn: Connection, rec: StepRecord, now: str) -> None:
    conn.executemany(
        "INSERT INTO policy_events (run_id, step, act, target, effect, rule, layer,"
        " allowed, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                rec.run_id,
                rec.step,
                p.act.value,
                redact(p.target),
                p.effect.value,
                p.rule,
                p.layer,
                int(p.allowed),
                redact(p.detail),
                now,
            )
            for p in rec.policy
        ],
    )


# -- reading -------------------------------------------------------------------------------


def call_counts(failed: Sequence[str], refusals: Sequence[str]) -> tuple[int, int]:
    """``(refused, failed)`` for one step's calls.

    ``failed`` holds the targets of the step's calls whose result was an error;
    ``refusals`` the targets of what refused a call: policy events with ``allowed`` false
    (a deny rule, the secrets layer, containment, an approval refused or not available) and
    ``unsaved_refused`` events. An erroring call is *refused* when a refusal names its
    target; a refusal naming no erroring call's target (the real name behind a symlink, say)
    explains one erroring call left over. Every other erroring call *failed*."""
    pool = Counter(refusals)
    refused = 0
    unexplained = 0
    for target in failed:
        if pool[target] > 0:
            pool[target] -= 1
            refused += 1
        else:
            unexplained += 1
    refused += min(unexplained, sum(pool.values()))
    return refused, len(failed) - refused


def _step_counts(conn: Connection, run_id: int) -> dict[int, tuple[int, int]]:
    failed: dict[int, list[str]] = defaultdict(list)
    refusals: dict[int, list[str]] = defaultdict(list)
    for step, target in conn.execute(
        "SELECT step, target FROM observations WHERE run_id = ? AND ok = 0 ORDER BY id", (run_id,)
    ):
        failed[step].append(target)
    for step, target in conn.execute(
        "SELECT step, target FROM policy_events WHERE run_id = ? AND allowed = 0 ORDER BY id",
        (run_id,),
    ):
        refusals[step].append(target)
    for step, detail in conn.execute(
        "SELECT step, detail FROM context_events WHERE run_id = ? AND kind = ? ORDER BY id",
        (run_id, UNSAVED_REFUSED),
    ):
        refusals[step].append(str(json.loads(detail).get("path", "")))
    return {step: call_counts(targets, refusals.get(step, ())) for step, targets in failed.items()}


def select_steps(conn: Connection, run_id: int) -> list[StepRow]:
    counts = _step_counts(conn, run_id)
    rows = conn.execute(
        "SELECT s.step, s.decision, s.tool_calls, s.est_tokens, s.reported_prompt_tokens,"
        " s.effective_tokens, s.carried, s.stubbed, s.reread, s.recalled,"
        " length(s.result) AS result_chars, s.content, s.prefix_chars,"
        " (SELECT p.cache_read_tokens FROM provider_calls p WHERE p.run_id = s.run_id"
        "  AND p.step = s.step AND p.failure IS NULL ORDER BY p.id DESC LIMIT 1) AS cached"
        " FROM steps s WHERE s.run_id = ? ORDER BY s.step",
        (run_id,),
    ).fetchall()
    return [_step_row(r, counts.get(r["step"], (0, 0))) for r in rows]


def _step_row(r: Any, counts: tuple[int, int]) -> StepRow:
    return StepRow(
        step=r["step"],
        decision=r["decision"],
        tool_calls=json.loads(r["tool_calls"]),
        est_tokens=r["est_tokens"],
        reported_prompt_tokens=r["reported_prompt_tokens"],
        effective_tokens=r["effective_tokens"],
        counts=ContextCounts(r["carried"], r["stubbed"], r["reread"], r["recalled"]),
        result_chars=r["result_chars"],
        cached_prompt_tokens=r["cached"],
        prefix_chars=r["prefix_chars"],
        refused=counts[0],
        failed=counts[1],
        said=r["content"] if r["content"].strip() else None,
    )


def select_step(conn: Connection, run_id: int, step: int) -> StepDetail | None:
    row = conn.execute(
        "SELECT prompt, result, tool_calls FROM steps WHERE run_id = ? AND step = ?",
        (run_id, step),
    ).fetchone()
    if row is None:
        return None
    events: list[dict[str, Any]] = [
        {"kind": e["kind"], "detail": json.loads(e["detail"])}
        for e in conn.execute(
            "SELECT kind, detail FROM context_events WHERE run_id = ? AND step = ? ORDER BY id",
            (run_id, step),
        )
    ]
    events += [
        {
            "kind": "policy",
            "detail": {
                "act": p["act"],
                "target": p["target"],
                "effect": p["effect"],
                "rule": p["rule"],
                "layer": p["layer"],
                "allowed": bool(p["allowed"]),
                "detail": p["detail"],
            },
        }
        for p in conn.execute(
            "SELECT * FROM policy_events WHERE run_id = ? AND step = ? ORDER BY id",
            (run_id, step),
        )
    ]
    return StepDetail(
        run_id=run_id,
        step=step,
        prompt=json.loads(row["prompt"]),
        result=row["result"],
        tool_calls=json.loads(row["tool_calls"]),
        events=events,
    )


def select_attempts(conn: Connection, run_id: int) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT * FROM provider_calls WHERE run_id = ? ORDER BY id", (run_id,))
    return [dict(r) for r in rows]


def select_events(conn: Connection, run_id: int, kind: str | None = None) -> list[dict[str, Any]]:
    sql = "SELECT step, kind, detail FROM context_events WHERE run_id = ?"
    params: tuple[object, ...] = (run_id,)
    if kind is not None:
        sql += " AND kind = ?"
        params = (run_id, kind)
    return [
        {"step": r["step"], "kind": r["kind"], "detail": json.loads(r["detail"])}
        for r in conn.execute(sql + " ORDER BY id", params)
    ]


__all__ = [
    "UNSAVED_REFUSED",
    "call_counts",
    "dumps",
    "insert_attempt",
    "insert_events",
    "insert_step",
    "scrub",
    "select_attempts",
    "select_events",
    "select_step",
    "select_steps",
]
