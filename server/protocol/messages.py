"""What the server says besides command results (§7, §11): its notifications, its requests
to the client, the §11 event kinds, the tool-call statuses, the run outcomes and approval
decisions with the words a client shows for them, and its JSON-RPC errors with the
structured ``data`` a client words them from."""

from __future__ import annotations

from server.protocol.model import ErrorCode, ErrorData, Message, Word

RUN_EVENT = "harness/runEvent"
BUDGET = "harness/budget"
RUN_FINISHED = "harness/runFinished"
DID_WRITE = "harness/didWrite"
APPROVE = "harness/approve"
SEMANTIC = "harness/semantic"  # the editor answers a semantic query (§14)
VERIFY_CALL = "verify"  # the verification's callId in toolCall/toolResult events

NOTIFICATIONS: tuple[Message, ...] = (
    Message(
        RUN_EVENT,
        "RUN_EVENT",
        "`{runId, conversationId, seq, step, kind, …}`: one §11 event (kinds below)",
        "each event of a run as it happens; the same objects `harness.run.events` returns",
    ),
    Message(
        BUDGET,
        "BUDGET",
        '`{"runId", "step", "maxSteps", "spentTokens", "tokenBudget", "requestTokens", '
        '"contextCeiling", "reportedPromptTokens", "cachedPromptTokens", "prefixChars", '
        '"costUsd", "cachedCostUsd", "contextVsAppend"}`: the fields of the `budget` event',
        "after every step, each right after its §11 `budget` event (that event's fields, "
        "without `conversationId`, `seq`, `kind`; kept for clients that do not read the event "
        "stream); `contextVsAppend` the run's requests so far, priced on a "
        "prefix cache (shared prefix 0.1, the rest 1.25), over what appending every result "
        "whole would have cost with the same frame, memory and trailers (`null` for the "
        "baseline assembly; below 1 the bounded context saves; also in `harness.status` as "
        "`lastBudget.contextVsAppend`); `requestTokens`/`contextCeiling` are the step's "
        "trace `estTokens`/`contextCeiling`; `reportedPromptTokens` is the provider's count "
        "or `null`; `cachedPromptTokens` the provider's reported cache reads or `null`; "
        "`prefixChars` the characters this step's request shares from its start with the "
        "previous request of the run (0 for the first); `costUsd` the run's dollars so far "
        "and `cachedCostUsd` the part of them paid for cache reads, both `null` when the "
        "model has no price or a call reported no usage",
    ),
    Message(
        RUN_FINISHED,
        "RUN_FINISHED",
        '`{"runId", "outcome", "steps", "spentTokens", "costUsd", "summary", '
        '"filesChanged", "refused", "denied", "failed", "error"?}`: the fields of the `end` '
        "event",
        "when a run ends, however it ends (the §11 `end` event's fields; kept for clients "
        "that do not read the stream); the folder is free for the next run by then. "
        "`summary` is the model's last words (`null` when its last reply said nothing); "
        "`filesChanged` the workspace-relative paths the run wrote, in first-write order; "
        "`costUsd` the run's dollars or `null`; `refused`/`denied`/`failed` the model's "
        "calls refused (policy, containment, unsaved buffer, no approver), denied at an "
        "approval, failed as tools; `error`, only when it stopped on one, says why",
    ),
    Message(
        DID_WRITE,
        "DID_WRITE",
        '`{"uri"}`',
        "after each file the agent writes (and each file an undo changes): reload the buffer",
    ),
)

# The LSP's own methods the server uses, as docs/server.md's table shows them (no constant:
# the clients' LSP libraries name them).
LSP_NOTIFICATIONS: tuple[Message, ...] = (
    Message(
        "$/progress",
        "",
        "work-done progress, token `harness-run-<uuid>`",
        'begin when a run starts (`title: "Harness"`, `cancellable: true`), a report when '
        "each step starts (`step 3/50 · 12,345 tokens`: the run's tokens so far, from step 2 "
        "on) and when each tool starts (`step 3/50 · 12,345 tokens · read src/a.py`), end with "
        "`finished · 4 steps · 9,120 tokens`",
    ),
    Message(
        "window/showMessage",
        "",
        'Warning, with `data` `{kind: "invalidSetting", setting, problem, source, '
        'refusesRuns}` or `{kind: "runWarning", runId}`',
        "a bad setting (`setting` the key, `problem` what is wrong); the agent was kept from "
        "a file with unsaved changes",
    ),
    Message(
        "window/showMessage",
        "",
        'Error, with `data` `{kind: "runEnded", runId, outcome, error, failure?, detail?, '
        "setting?}`",
        "a run ended in `provider_error` or `context_overflow` (the message says why) or "
        "stopped on an internal error; the same `error` is in `harness/runFinished`",
    ),
)

REQUESTS: tuple[Message, ...] = (
    Message(
        APPROVE,
        "APPROVE",
        "`{runId, step, callId, act, target, reason, command?, diff?, call?, filesWritten, "
        "options}`",
        "a policy `ask`, to a client declaring `experimental.harness.approvals` (VS Code, "
        "Neovim): `step` and `callId` the tool call it approves, `reason` why it asks; the "
        "body is the §11 `approval` event's",
        answer='`{"decision": "allow" | "allowRun" | "deny"}`',
    ),
    Message(
        SEMANTIC,
        "SEMANTIC",
        "`{method, textDocument: {uri}, position?, newName?, waitMs?}`",
        "a semantic tool's query (§14), to a client declaring `experimental.harness.semantic`",
        answer=(
            "`{server, positionEncoding?, locations? | edit? | symbols? | diagnostics?}` or "
            "`{unavailable: REASON}` (then the headless back end answers)"
        ),
    ),
)

EVENT_KINDS: tuple[Word, ...] = (
    Word(
        "user",
        "you",
        "step 0: `text` the goal, `mode` (`code`, `plan`, `ask`), `context`? (what was attached); "
        "a steer: `text`, `steer: true`",
    ),
    Word("text", "the model", "`delta`: the model's words as they arrive"),
    Word("toolCall", "call", "`callId`, `name`, `arguments`, `target`"),
    Word(
        "approval",
        "approval",
        "`callId`, `act`, `target`, `reason` (why it asks), `filesWritten`, `command`?, `diff`?, "
        "`call`? (an MCP call's arguments): the body `harness/approve` carries — then again "
        "with `decision`",
    ),
    Word(
        "toolResult",
        "result",
        "`callId`, `status` (below), `why`?, `summary` (one line), `detail`? (the head of the "
        "result a client folds under the call's row: a write's unified diff, else the output's "
        "first 8 and last 4 lines after its header, at most 2,000 characters), `output`? (exec, "
        "verify, `mcp__*`: head and tail), `locations`? (references, diagnostics: `{path, line}`), "
        "`reason`? (a failed call's whole error), `wrote`? (the paths written)",
    ),
    Word("budget", "budget", "the `harness/budget` fields"),
    Word("end", "end", "the `harness/runFinished` fields and `contextVsAppend`"),
)

CALL_STATUSES: tuple[Word, ...] = (
    Word("ok", "done"),
    Word("refused", "refused", "by the policy, containment, plan mode or an unsaved buffer"),
    Word("denied", "denied", "at an approval"),
    Word("failed", "failed", "the tool failed"),
)

OUTCOMES: tuple[Word, ...] = (
    Word("success", "succeeded", "the model finished and the verification passed"),
    Word("finished", "finished", "the model finished (no verification)"),
    Word("step_cap_reached", "stopped at the step cap", "`maxSteps` reached"),
    Word("budget_exhausted", "ran out of token budget", "`tokenBudget` spent"),
    Word("cancelled", "was cancelled", "`harness.cancel`, Stop, or the client went away"),
    Word("context_overflow", "overflowed the model's context", "the provider refused its length"),
    Word(
        "provider_error",
        "failed: the model provider returned an error",
        "the model API failed (the error says why)",
    ),
    Word("verification_failed", "failed verification", "the verification command failed"),
    Word("interrupted", "was interrupted", "the process running it died"),
    Word(
        "store_error",
        "stopped: the store could not be written",
        "a full disk: the error names the store and the reason",
    ),
)

DECISIONS: tuple[Word, ...] = (
    Word("allow", "Allow", "this once"),
    Word("allowRun", "Allow for this run", "the same act on the same target, for this run"),
    Word("deny", "Deny", "refused; the model is told the user denied it"),
)

ERRORS: tuple[ErrorCode, ...] = (
    ErrorCode(
        -32602,
        "invalidParams",
        "a missing, unknown or ill-typed argument, or not exactly one object",
        "``harness.run: `maxSteps`: Input should be greater than or equal to 1``; "
        "``harness.status: `verbose` is not a parameter (expected workspaceFolder?)``; an "
        "unknown command (no `data`): `Invalid Params: Command name 'harness.nope' is not "
        "defined`",
    ),
    ErrorCode(
        -32001,
        "harness",
        "a harness error: configuration (no API key, a bad `.harness/policy.toml`), the "
        "store, no workspace folder",
        "`harness.run: no API key for openai: set HARNESS_API_KEY or OPENAI_API_KEY (or set "
        "the setting provider.baseUrl to a server that needs none)`",
    ),
    ErrorCode(
        -32004,
        "notFound",
        "not found",
        "``harness.memory.get: no note `deploy` in workspace /abs/folder``; "
        "`harness.trace.run: no run 99 in the store /…/harness.db`",
    ),
    ErrorCode(
        -32009,
        "conflict",
        "conflict",
        "`harness.run: run 7 is already in progress in /abs/folder; wait for it to finish or "
        "cancel it (harness.cancel)`",
    ),
    ErrorCode(
        -32603,
        "internal",
        "an unexpected internal error (logged with its traceback)",
        "`harness.x failed unexpectedly: …`",
    ),
)

ERROR_DATA: tuple[ErrorData, ...] = (
    ErrorData(
        "kind",
        "string",
        "the error's kind (`invalidParams`, `notFound`, `conflict`, `harness`, `internal`), or "
        "a message's: "
        "`invalidSetting`, `runEnded`, `runWarning`",
    ),
    ErrorData("command", "string", "the command that failed"),
    ErrorData("setting", "string", "the setting the failure is about (`provider.baseUrl`)"),
    ErrorData("runId", "number", "the run it is about"),
    ErrorData("outcome", "string", "how that run ended (`runEnded`)"),
    ErrorData("error", "string", "the run's error (`runEnded`)"),
    ErrorData("failure", "string", "a provider failure's kind (`connection`, …; `runEnded`)"),
    ErrorData("detail", "string", "a provider failure's error without its kind (`runEnded`)"),
    ErrorData("missing", "string", "what a run needs and does not have: `apiKey`"),
    ErrorData("field", "string", "the argument or the setting's field that is wrong"),
    ErrorData("problem", "string", "what is wrong with it, without its value"),
    ErrorData("source", "string", "where a setting came from (`initializationOptions`, …)"),
    ErrorData("refusesRuns", "boolean", "a bad setting refuses runs until it is fixed"),
)

__all__ = [
    "APPROVE",
    "BUDGET",
    "CALL_STATUSES",
    "DECISIONS",
    "DID_WRITE",
    "ERRORS",
    "ERROR_DATA",
    "EVENT_KINDS",
    "LSP_NOTIFICATIONS",
    "NOTIFICATIONS",
    "OUTCOMES",
    "REQUESTS",
    "RUN_EVENT",
    "RUN_FINISHED",
    "VERIFY_CALL",
]
