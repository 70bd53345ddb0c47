"""The trace: runs, steps (the full prompt as sent and the full unelided results),
observations, provider attempts, context and policy events, and edits. A completed step
commits in one transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.store.base import StoreBase, now_iso
from harness.types import Attempt, FileWrite, PolicyEvent, TraceEvent


@dataclass(frozen=True)
class ObservationRecord:
    seq: int
    kind: str
    target: str
    ok: bool
    text: str
    content_hash: str | None = None  # of the whole file, for reads


@dataclass(frozen=True)
class StepRecord:
    """Everything one completed step leaves behind; written in one transaction."""

    run_id: int
    step: int
    decision: str
    content: str
    prompt: Sequence[Mapping[str, Any]]
    tool_calls: Sequence[Mapping[str, Any]]
    result: str
    effective_tokens: int
    est_tokens: int
    reported_prompt_tokens: int | None
    completion_tokens: int | None
    total_tokens: int | None
    started_at: str
    spent_tokens: int
    carried: int = 0
    stubbed: int = 0
    reread: int = 0
    recalled: int = 0
    observations: Sequence[ObservationRecord] = ()
    events: Sequence[TraceEvent] = ()
    policy: Sequence[PolicyEvent] = ()
    edits: Sequence[FileWrite] = ()
    recalls: Sequence[tuple[str, str]] = field(default_factory=tuple)  # (scope, key)


@dataclass(frozen=True)
class RunRow:
    run_id: int
    goal: str
    workspace: str
    provider: str
    model: str
    outcome: str | None
    steps: int
    spent_tokens: int
    started_at: str
    finished_at: str | None
    error: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "goal": self.goal,
            "workspace": self.workspace,
            "outcome": self.outcome,
            "steps": self.steps,
            "spentTokens": self.spent_tokens,
            "startedAt": self.started_at,
            "finishedAt": self.finished_at,
        }


@dataclass(frozen=True)
class StepRow:
    step: int
    decision: str
    tool_calls: list[dict[str, Any]]
    est_tokens: int
    reported_prompt_tokens: int | None
    effective_tokens: int
    carried: int
    stubbed: int
    reread: int
    recalled: int
    result_chars: int

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "decision": self.decision,
            "toolCalls": self.tool_calls,
            "estTokens": self.est_tokens,
            "reportedPromptTokens": self.reported_prompt_tokens,
            "contextCeiling": self.effective_tokens,
            "carried": self.carried,
            "stubbed": self.stubbed,
            "reread": self.reread,
            "recalled": self.recalled,
            "resultChars": self.result_chars,
        }


@dataclass(frozen=True)
class StepDetail:
    run_id: int
    step: int
    prompt: list[dict[str, Any]]
    result: str
    tool_calls: list[dict[str, Any]]
    events: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {
            "runId": self.run_id,
            "step": self.step,
            "prompt": self.prompt,
            "result": self.result,
            "toolCalls": self.tool_calls,
            "events": self.events,
        }


@dataclass(frozen=True)
class EditRow:
    step: int
    path: str
    before: bytes | None
    after: bytes


class TraceStore(StoreBase):
    """Writing and reading the trace."""

    def create_run(
        self, *, goal: str, workspace: str, provider: str, model: str, contract: str
    ) -> int:
        with self._tx() as conn:
            cur = conn.execute(
                "INSERT INTO runs (goal, workspace, provider, model, contract, started_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (goal, workspace, provider, model, contract, now_iso()),
            )
            return int(cur.lastrowid or 0)

    def record_attempt(self, run_id: int, step: int, attempt: Attempt) -> None:
        u = attempt.usage
        with self._tx() as conn:
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
                    attempt.error,
                    now_iso(),
                ),
            )

    def add_events(
        self, run_id: int | None, step: int | None, events: Sequence[TraceEvent]
    ) -> None:
        """Events outside a step (operator memory actions, a run's end)."""
        if not events:
            return
        with self._tx() as conn:
            _insert_events(conn, run_id, step, events)

    def commit_step(self, rec: StepRecord) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO steps (run_id, step, decision, content, prompt, tool_calls, result,"
                " effective_tokens, est_tokens, reported_prompt_tokens, completion_tokens,"
                " total_tokens, carried, stubbed, reread, recalled, started_at, finished_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    rec.run_id,
                    rec.step,
                    rec.decision,
                    rec.content,
                    json.dumps(list(rec.prompt)),
                    json.dumps(list(rec.tool_calls)),
                    rec.result,
                    rec.effective_tokens,
                    rec.est_tokens,
                    rec.reported_prompt_tokens,
                    rec.completion_tokens,
                    rec.total_tokens,
                    rec.carried,
                    rec.stubbed,
                    rec.reread,
                    rec.recalled,
                    rec.started_at,
                    now_iso(),
                ),
            )
            conn.executemany(
                "INSERT INTO observations (run_id, step, seq, kind, target, ok, text, content_hash)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        rec.run_id,
                        rec.step,
                        o.seq,
                        o.kind,
                        o.target,
                        int(o.ok),
                        o.text,
                        o.content_hash,
                    )
                    for o in rec.observations
                ],
            )
            _insert_events(conn, rec.run_id, rec.step, rec.events)
            now = now_iso()
            conn.executemany(
                "INSERT INTO policy_events (run_id, step, act, target, effect, rule, layer,"
                " allowed, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        rec.run_id,
                        rec.step,
                        p.act.value,
                        p.target,
                        p.effect.value,
                        p.rule,
                        p.layer,
                        int(p.allowed),
                        p.detail,
                        now,
                    )
                    for p in rec.policy
                ],
            )
            conn.executemany(
                "INSERT INTO edits (run_id, step, path, before, after, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(rec.run_id, rec.step, e.path, e.before, e.after, now) for e in rec.edits],
            )
            self._insert_recalls(conn, rec.run_id, rec.step, rec.recalls)
            conn.execute(
                "UPDATE runs SET steps = ?, spent_tokens = ? WHERE id = ?",
                (rec.step, rec.spent_tokens, rec.run_id),
            )

    def _insert_recalls(
        self,
        conn: sqlite3.Connection,
        run_id: int,
        step: int,
        recalls: Sequence[tuple[str, str]],
    ) -> None:
        """Overridden by the memory part of the store; the trace alone records nothing."""

    def finish_run(
        self, run_id: int, *, outcome: str, steps: int, spent_tokens: int, error: str | None
    ) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE runs SET outcome = ?, steps = ?, spent_tokens = ?, error = ?,"
                " finished_at = ? WHERE id = ?",
                (outcome, steps, spent_tokens, error, now_iso(), run_id),
            )

    # -- reading ---------------------------------------------------------------------------

    def list_runs(self, limit: int = 20, workspace: str | None = None) -> list[RunRow]:
        if workspace is None:
            rows = self._query("SELECT * FROM runs ORDER BY id DESC LIMIT ?", (limit,))
        else:
            rows = self._query(
                "SELECT * FROM runs WHERE workspace = ? ORDER BY id DESC LIMIT ?",
                (workspace, limit),
            )
        return [_run_row(r) for r in rows]

    def get_run(self, run_id: int) -> RunRow | None:
        row = self._query_one("SELECT * FROM runs WHERE id = ?", (run_id,))
        return _run_row(row) if row else None

    def run_steps(self, run_id: int) -> list[StepRow]:
        rows = self._query(
            "SELECT step, decision, tool_calls, est_tokens, reported_prompt_tokens,"
            " effective_tokens, carried, stubbed, reread, recalled, length(result) AS result_chars"
            " FROM steps WHERE run_id = ? ORDER BY step",
            (run_id,),
        )
        return [
            StepRow(
                step=r["step"],
                decision=r["decision"],
                tool_calls=json.loads(r["tool_calls"]),
                est_tokens=r["est_tokens"],
                reported_prompt_tokens=r["reported_prompt_tokens"],
                effective_tokens=r["effective_tokens"],
                carried=r["carried"],
                stubbed=r["stubbed"],
                reread=r["reread"],
                recalled=r["recalled"],
                result_chars=r["result_chars"],
            )
            for r in rows
        ]

    def step_detail(self, run_id: int, step: int) -> StepDetail | None:
        row = self._query_one(
            "SELECT prompt, result, tool_calls FROM steps WHERE run_id = ? AND step = ?",
            (run_id, step),
        )
        if row is None:
            return None
        events = [
            {"kind": e["kind"], "detail": json.loads(e["detail"])}
            for e in self._query(
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
            for p in self._query(
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

    def run_edits(self, run_id: int) -> list[EditRow]:
        return [
            EditRow(step=r["step"], path=r["path"], before=r["before"], after=r["after"])
            for r in self._query(
                "SELECT step, path, before, after FROM edits WHERE run_id = ? ORDER BY id",
                (run_id,),
            )
        ]

    def provider_calls(self, run_id: int) -> list[dict[str, Any]]:
        return [
            dict(r)
            for r in self._query(
                "SELECT * FROM provider_calls WHERE run_id = ? ORDER BY id", (run_id,)
            )
        ]

    def context_events(self, run_id: int, kind: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT step, kind, detail FROM context_events WHERE run_id = ?"
        params: tuple[object, ...] = (run_id,)
        if kind is not None:
            sql += " AND kind = ?"
            params = (run_id, kind)
        return [
            {"step": r["step"], "kind": r["kind"], "detail": json.loads(r["detail"])}
            for r in self._query(sql + " ORDER BY id", params)
        ]


def _insert_events(
    conn: sqlite3.Connection, run_id: int | None, step: int | None, events: Sequence[TraceEvent]
) -> None:
    now = now_iso()
    conn.executemany(
        "INSERT INTO context_events (run_id, step, kind, detail, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        [(run_id, step, e.kind, json.dumps(dict(e.detail), default=str), now) for e in events],
    )


def _run_row(r: sqlite3.Row) -> RunRow:
    return RunRow(
        run_id=r["id"],
        goal=r["goal"],
        workspace=r["workspace"],
        provider=r["provider"],
        model=r["model"],
        outcome=r["outcome"],
        steps=r["steps"],
        spent_tokens=r["spent_tokens"],
        started_at=r["started_at"],
        finished_at=r["finished_at"],
        error=r["error"],
    )
