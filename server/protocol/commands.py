"""Every ``workspace/executeCommand`` command of the server (§7): its name, the clients'
key for it, its params model, the words of docs/server.md's table, its result's TypeScript
type, and whether it only reads the store.

This is the one list. The server registers exactly these names (``server.lsp.commands.table``,
each implemented by a ``@handles(name)`` function beside its feature); ``make protocol``
writes them into the TypeScript and Lua declarations and docs/server.md's table. Adding a
command: an entry here, the function, its callers, its test.
"""

from __future__ import annotations

from server.protocol.model import Command

COMMANDS: tuple[Command, ...] = (
    Command(
        name="harness.run",
        key="run",
        params="RunParams",
        arguments=(
            '`goal` (string; may be left out only in a code-mode follow-up of a plan: see "Plan '
            'mode"), `mode`? (`"code"` default | `"plan"`), `workspaceFolder`?, `tokenBudget`?, '
            "`maxSteps`?, `contextBudget`? `{maxTokens?, share?}`, `verify`? (argv: non-empty "
            "array of non-empty strings)"
        ),
        result=(
            '`{"runId": 7}` at once; the run continues in the background. Arguments win over '
            "settings, settings over defaults."
        ),
    ),
    Command(
        name="harness.cancel",
        key="cancel",
        params="RunIdParams",
        arguments="`runId`",
        result='`{"cancelled": true}`, or `false` when that run is not in progress',
    ),
    Command(
        name="harness.run.steer",
        key="steer",
        params="SteerParams",
        arguments="`runId`, `text` (non-empty, ≤ 100,000 characters)",
        result=(
            '`{"runId", "queued": true}`; see "Steering". A run not in progress: Conflict '
            "(-32009); blank `text`: InvalidParams"
        ),
    ),
    Command(
        name="harness.codeAction",
        key="codeAction",
        params="CodeActionParams",
        arguments=(
            '`kind` (`"fix"` | `"ask"`), `uri`, `range`, `diagnostic`? (required for a fix), '
            "`goal`?, `workspaceFolder`?"
        ),
        result=(
            '`{"runId", "conversationId"}`, or `null` when the user dismissed the question; see '
            '"Code actions"'
        ),
    ),
    Command(
        name="harness.status",
        key="status",
        params="StatusParams",
        arguments="`workspaceFolder`? (whose memory to count)",
        result="see below",
        result_type="Status",
        reads_store=True,
    ),
    Command(
        name="harness.memory.list",
        key="memoryList",
        params="ScopeParams",
        arguments="`scope`?, `workspaceFolder`?",
        result="array of notes",
        result_type="Note[]",
        reads_store=True,
    ),
    Command(
        name="harness.memory.get",
        key="memoryGet",
        params="KeyParams",
        arguments="`key`, `scope`?, `workspaceFolder`?",
        result="a note",
        result_type="Note",
        reads_store=True,
    ),
    Command(
        name="harness.memory.delete",
        key="memoryDelete",
        params="KeyParams",
        arguments="`key`, `scope`?, `workspaceFolder`?",
        result='`{"deleted": 1, "note": <the note as it was>}`',
    ),
    Command(
        name="harness.memory.pin",
        key="memoryPin",
        params="PinParams",
        arguments="`key`, `pinned`? (default `true`; `false` unpins), `scope`?, `workspaceFolder`?",
        result="the note",
        result_type="Note",
    ),
    Command(
        name="harness.memory.write",
        key="memoryWrite",
        params="WriteParams",
        arguments=(
            '`key`, `value`, `kind`? (`"decision"` default | `"fact"`), `pinned`? (bool), '
            "`scope`?, `workspaceFolder`?"
        ),
        result=(
            '`{"note", "replaced", "truncated", "evicted": [notes], "similar": [{"key", "value", '
            '"jaccard"}]}`'
        ),
        result_type="MemoryWriteResult",
    ),
    Command(
        name="harness.memory.clear",
        key="memoryClear",
        params="ClearParams",
        arguments="`scope`?, `workspaceFolder`?",
        result='`{"deleted": n}` (pinned notes too)',
    ),
    Command(
        name="harness.conversations",
        key="conversations",
        params="ConversationsParams",
        arguments=(
            "`limit`? (1…10000, default 20), `before`? (a `lastRunId`: the next page), "
            '`workspaceFolder`? (as for `harness.trace.runs`; `"*"`: every conversation in the '
            "store)"
        ),
        result=(
            'array of `{"conversationId", "goal", "runs", "lastOutcome", "lastRunId", '
            '"spentTokens", "startedAt", "finishedAt"}`, newest first: `conversationId` its '
            "first run's id, `goal` its first goal, `lastOutcome` `null` while a run is in "
            "progress, `lastRunId` its newest run (pass the last row's as `before`)"
        ),
        result_type="ConversationRow[]",
        reads_store=True,
    ),
    Command(
        name="harness.conversation.restore",
        key="restore",
        params="RestoreParams",
        arguments=(
            "`conversationId`, `turn` (≥ 1), `force`?, `workspaceFolder`? (as for "
            "`harness.run.revert`)"
        ),
        result=(
            '`{"conversationId", "turn", "workspace", "restored": bool, "rewoundRuns": [runIds], '
            '"files": [{"path", "action", "reason"}], "diagnostics": null, '
            '"diagnosticsReason"}`; see "Checkpoints"'
        ),
    ),
    Command(
        name="harness.trace.runs",
        key="traceRuns",
        params="TraceRunsParams",
        arguments=(
            "`limit`? (1…10000, default 20), `workspaceFolder`? (default: the client's folders; "
            'a folder\'s absolute path or `file://` URI, open or not; `"*"`: every run in the '
            "store)"
        ),
        result=(
            'array of `{"runId", "goal", "workspace", "outcome", "steps", "spentTokens", '
            '"startedAt", "finishedAt"}`, newest first; `outcome` is `null` while running'
        ),
        result_type="RunSummary[]",
        reads_store=True,
    ),
    Command(
        name="harness.trace.run",
        key="traceRun",
        params="TraceRunParams",
        arguments=(
            "`runId`, `workspaceFolder`? (required for a run of a folder the client has not "
            "open, see **Scope**)"
        ),
        result=(
            '`{"run": {…as above…}, "steps": [{"step", "decision", "toolCalls": [{"name", '
            '"arguments"}], "estTokens", "reportedPromptTokens", "contextCeiling", "carried", '
            '"stubbed", "reread", "recalled", "resultChars"}]}`'
        ),
        result_type="TraceRun",
        reads_store=True,
    ),
    Command(
        name="harness.trace.step",
        key="traceStep",
        params="TraceStepParams",
        arguments="`runId`, `step`, `workspaceFolder`? (as for `harness.trace.run`)",
        result=(
            '`{"runId", "step", "prompt": [messages as sent], "result": "<full unelided tool '
            'results>", "toolCalls", "events": [{"kind", "detail"}]}`'
        ),
        result_type="StepDetail",
        reads_store=True,
    ),
    Command(
        name="harness.run.revert",
        key="revert",
        params="RevertParams",
        arguments=(
            "`runId`, `force`? (default `false`), `workspaceFolder`? (required for a run of a "
            "folder the client has not open: that run's folder)"
        ),
        result=(
            '`{"runId", "workspace", "files": [{"path", "action", "reason"}], "restored", '
            '"deleted", "refused", "failed"}`'
        ),
        result_type="RevertResult",
    ),
    Command(
        name="harness.run.changes",
        key="changes",
        params="ChangesParams",
        arguments="`runId` (or `conversationId`), `workspaceFolder`? (as for `harness.trace.run`)",
        result=(
            'array of `{"path", "uri", "status": "added"|"modified"|"deleted", "before", '
            '"after", "runIds"}`, in the order the run first wrote each file: `path` '
            "workspace-relative, `uri` the absolute `file://` URI, `before` the text before the "
            "run's first write (`null`: the run created it), `after` the text on disk now "
            "(`null`: gone). A file that is now as it was before the run is not listed. "
            "Undecodable bytes show as U+FFFD."
        ),
        result_type="FileChange[]",
        reads_store=True,
    ),
    Command(
        name="harness.run.revertFile",
        key="revertFile",
        params="RevertFileParams",
        arguments=(
            "`runId`, `path` (as `harness.run.changes` gives it, or its `file://` URI / absolute "
            "path), `force`?, `workspaceFolder`? (as for `harness.run.revert`)"
        ),
        result=(
            '`{"runId", "workspace", "path", "action", "reason"}` (`action` as for revert). A '
            "path the run did not write is InvalidParams."
        ),
    ),
    Command(
        name="harness.run.revertHunk",
        key="revertHunk",
        params="RevertHunkParams",
        arguments=(
            "`runId` or `conversationId`, `path` (as for `revertFile`), `hunkId` (as "
            "`harness.run.changes` gives it), `force`?, `workspaceFolder`?"
        ),
        result=(
            '`{"runId"|"conversationId", "workspace", "path", "hunkId", "action": "undone", '
            '"toReview", "diagnostics": null, "diagnosticsReason"}`; see "Review, hunk by hunk"'
        ),
    ),
    Command(
        name="harness.run.keep",
        key="keep",
        params="KeepParams",
        arguments=(
            "`runId` or `conversationId`, `path`? (none: every file), `hunkIds`? (array; none: "
            "every hunk of `path`; needs `path`)"
        ),
        result=(
            '`{"runId"|"conversationId", "kept": n, "toReview": n}`: the pending hunks named '
            "are marked `kept`"
        ),
    ),
    Command(
        name="harness.run.events",
        key="runEvents",
        params="RunEventsParams",
        arguments=(
            "`runId` or `conversationId`, `after`? (a `seq`; with `runId`), `limit`? (1…10000, "
            "default 1000; with `runId`), `workspaceFolder`? (as for `harness.trace.run`)"
        ),
        result=(
            "the run's (or the conversation's runs') `harness/runEvent`s as recorded, in `seq` "
            "order, a step's words merged into one `text`; with `runId` always one page of "
            '`limit` events: `{"events": [...], "next": seq | null}` — pass `next` as `after` '
            "for the next page, `null` at the end; with `conversationId` the whole list"
        ),
        result_type="RunEvent[] | { events: RunEvent[]; next: number | null }",
        reads_store=True,
    ),
    Command(
        name="harness.trust",
        key="trust",
        params="server.lsp.commands.trust:TrustParams",
        arguments="`trusted` (bool), `workspaceFolder`?",
        result=(
            '`{"workspaceFolder": "/abs/folder", "trusted": bool}`: records the folder in (or '
            "removes it from) the `trusted` list of the user config; `trusted` is whether the "
            "user config trusts it now (a revoked folder under a trusted parent stays trusted, "
            "and a warning says why). Takes effect at the next run."
        ),
    ),
    Command(
        name="harness.prompts",
        key="prompts",
        params="PromptsParams",
        arguments="`workspaceFolder`?",
        result=(
            'array of `{"name", "source": "builtin"|"user"|"repository", "description", '
            '"argumentHint", "path", "error"?}`; see "Prompts"'
        ),
    ),
)

__all__ = ["COMMANDS"]
