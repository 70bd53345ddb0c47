"""The arguments of every command (§7), validated here and nowhere else.

Each command takes exactly one JSON object (an empty or absent argument list means ``{}``).
Fields are camelCase on the wire; types are strict (``"3"`` is not an integer, ``1`` is not
a boolean) and unknown fields are refused, so a typo is an error rather than a silent default.
pygls 2 ignores default values on command parameters (notes, gotcha 1), so the commands take
the raw argument and ``parse_params`` validates it with these models.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from harness.contract import ContextBudgetOverrides, ContractOverrides, Verification
from server.lsp.errors import InvalidParams

MAX_SQL_INT = 2**63 - 1
MAX_GOAL_CHARS = 100_000
MAX_FIELD_NAME_CHARS = 60
MAX_REPORTED_ERRORS = 5
MAX_CONTEXT_ITEMS = 32

RunId = Annotated[int, Field(ge=1, le=MAX_SQL_INT)]
Positive = Annotated[int, Field(ge=1, le=MAX_SQL_INT)]
Folder = Annotated[str, Field(min_length=1, max_length=4096)]
Key = Annotated[str, Field(max_length=1_000)]  # the store's own check gives the real rule
Scope = Literal["workspace", "global"]


class Params(BaseModel):
    model_config = ConfigDict(
        strict=True, extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=False
    )


class ContextBudgetParams(Params):
    max_tokens: Positive | None = None
    share: Annotated[float, Field(gt=0.0, le=1.0)] | None = None
    low_water: Annotated[float, Field(gt=0.0, le=1.0)] | None = None


class PositionParams(Params):
    line: Annotated[int, Field(ge=0, le=MAX_SQL_INT)]
    character: Annotated[int, Field(ge=0, le=MAX_SQL_INT)]


class RangeParams(Params):
    start: PositionParams
    end: PositionParams


class ContextParams(Params):
    """What the user attached (§11): a file, or a range of it (LSP positions, 0-based)."""

    uri: Annotated[str, Field(min_length=1, max_length=8192)]
    range: RangeParams | None = None

    def lines(self) -> tuple[int | None, int | None]:
        """``(offset, limit)``, 1-based, of the lines the range covers (a range ending at
        the start of a line leaves that line out); ``(None, None)`` for the whole file."""
        if self.range is None:
            return None, None
        start, end = self.range.start, self.range.end
        last = end.line - 1 if end.character == 0 and end.line > start.line else end.line
        if last < start.line:
            raise InvalidParams("`context`: a range ends before it starts")
        return start.line + 1, last - start.line + 1


PromptText = Annotated[str, Field(max_length=MAX_GOAL_CHARS)]


class RunParams(Params):
    # Absent only in a code-mode follow-up of a plan (``server.lsp.goal``).
    goal: Annotated[str, Field(min_length=1, max_length=MAX_GOAL_CHARS)] | None = None
    mode: Literal["code", "plan"] = "code"
    prompt: Annotated[str, Field(min_length=1, max_length=200)] | None = None  # its name
    arguments: PromptText | Annotated[dict[str, PromptText], Field(max_length=64)] | None = None
    workspace_folder: Folder | None = None
    token_budget: Positive | None = None
    max_steps: Positive | None = None
    context_budget: ContextBudgetParams | None = None
    verify: Annotated[list[Annotated[str, Field(min_length=1)]], Field(min_length=1)] | None = None
    conversation_id: RunId | None = None  # a follow-up in that conversation (§11)
    context: Annotated[list[ContextParams], Field(max_length=MAX_CONTEXT_ITEMS)] | None = None

    def overrides(self) -> ContractOverrides:
        """The contract values these arguments give (``None``: not given)."""
        budget = self.context_budget.model_dump() if self.context_budget else {}
        return ContractOverrides(
            verification=Verification.command(self.verify) if self.verify else None,
            token_budget=self.token_budget,
            max_steps=self.max_steps,
            context_budget=ContextBudgetOverrides(**budget),
            mode=self.mode,
        )


class RunIdParams(Params):
    run_id: RunId


class TraceRunParams(RunIdParams):
    workspace_folder: Folder | None = None  # needed for a run outside the client's folders


class SteerParams(RunIdParams):
    """``harness.run.steer``: the user's words for a run in progress."""

    text: Annotated[str, Field(min_length=1, max_length=MAX_GOAL_CHARS)]


class ChangesParams(Params):
    """``harness.run.changes``: ``runId`` or ``conversationId`` (the command checks that
    exactly one is given); ``workspaceFolder`` for a run outside the client's folders."""

    run_id: RunId | None = None
    conversation_id: RunId | None = None
    workspace_folder: Folder | None = None  # needed for a run outside the client's folders


class RevertParams(ChangesParams):
    """``harness.run.revert``: a run, or every run of a conversation (newest first)."""

    force: bool = False


class RevertFileParams(ChangesParams):
    force: bool = False
    path: Annotated[str, Field(min_length=1, max_length=4096)]


HunkId = Annotated[str, Field(min_length=1, max_length=64)]


class RevertHunkParams(RevertFileParams):
    """``harness.run.revertHunk``: one hunk of a file, by the id ``harness.run.changes``
    gave it."""

    hunk_id: HunkId


class KeepParams(ChangesParams):
    """``harness.run.keep``: hunks (``path`` and ``hunkIds``), a file (``path``) or every
    change (neither) marked reviewed."""

    path: Annotated[str, Field(min_length=1, max_length=4096)] | None = None
    hunk_ids: Annotated[list[HunkId], Field(min_length=1, max_length=10_000)] | None = None
    workspace_folder: Folder | None = None


class RestoreParams(Params):
    """``harness.conversation.restore``: back to before turn ``turn`` of the conversation."""

    conversation_id: RunId
    turn: Positive
    force: bool = False
    workspace_folder: Folder | None = None  # needed for a conversation outside the folders


class DiagnosticParams(Params):
    """A diagnostic a code action is about: what the model is told of it. The rest of an
    LSP ``Diagnostic`` (tags, related information, data) is accepted and ignored."""

    model_config = ConfigDict(**{**Params.model_config, "extra": "ignore"})

    message: Annotated[str, Field(min_length=1, max_length=MAX_GOAL_CHARS)]
    source: Annotated[str, Field(max_length=200)] | None = None
    code: Annotated[str, Field(max_length=200)] | Annotated[int, Field(ge=-MAX_SQL_INT)] | None = (
        None
    )
    severity: Annotated[int, Field(ge=1, le=4)] | None = None


class CodeActionParams(Params):
    """``harness.codeAction``: run the "fix this diagnostic" or "ask about the selection"
    code action (``server.lsp.commands.code_action``)."""

    kind: Literal["fix", "ask"]
    uri: Annotated[str, Field(min_length=1, max_length=8192)]
    range: RangeParams
    diagnostic: DiagnosticParams | None = None
    goal: Annotated[str, Field(min_length=1, max_length=MAX_GOAL_CHARS)] | None = None
    workspace_folder: Folder | None = None


class PromptsParams(Params):
    workspace_folder: Folder | None = None


class StatusParams(Params):
    workspace_folder: Folder | None = None


class ScopeParams(Params):
    scope: Scope = "workspace"
    workspace_folder: Folder | None = None


class ClearParams(ScopeParams):
    keep_pinned: bool = False


class KeyParams(ScopeParams):
    key: Key


class PinParams(KeyParams):
    pinned: bool = True


class WriteParams(KeyParams):
    value: Annotated[str, Field(max_length=1_000_000)]
    kind: Literal["fact", "decision"] = "decision"
    pinned: bool | None = None


class TraceRunsParams(Params):
    limit: Annotated[int, Field(ge=1, le=10_000)] = 20
    workspace_folder: Folder | None = None  # default: the client's folders; "*": all


class ConversationsParams(TraceRunsParams):
    # the next page: conversations whose newest run is older (the last row's lastRunId)
    before: Annotated[int, Field(ge=1, le=MAX_SQL_INT)] | None = None


class TraceStepParams(TraceRunParams):
    step: Positive


class RunEventsParams(Params):
    """``harness.run.events``: ``runId`` or ``conversationId`` (the command checks that
    exactly one is given); ``after``: a ``seq`` of that run."""

    run_id: RunId | None = None
    conversation_id: RunId | None = None
    after: Annotated[int, Field(ge=0, le=MAX_SQL_INT)] | None = None
    limit: Annotated[int, Field(ge=1, le=10_000)] | None = None  # paged: {events, next}
    workspace_folder: Folder | None = None  # needed for a run outside the client's folders


P = TypeVar("P", bound=Params)


def parse_params(model: type[P], arguments: Sequence[Any]) -> P:
    """The one object argument of a command, validated; ``InvalidParams`` names the field."""
    if len(arguments) > 1:
        raise InvalidParams(
            f"expected one object argument, got {len(arguments)} arguments; "
            f"pass {{{_field_list(model)}}}"
        )
    raw = arguments[0] if arguments else {}
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InvalidParams(
            f"the argument must be a JSON object, not {_json_type(raw)}; "
            f"pass {{{_field_list(model)}}}"
        )
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        loc = exc.errors(include_url=False, include_input=False)[0]["loc"]
        field = ".".join(_short(str(p)) for p in loc)
        raise InvalidParams(describe(exc, model), **({"field": field} if field else {})) from None


_PROBLEMS = {  # by pydantic error type; any other says pydantic's message
    "missing": "`{field}` is required",
    "extra_forbidden": "`{field}` is not a parameter (expected {expected})",
}


def describe(exc: ValidationError, model: type[Params]) -> str:
    """One line naming each bad field; never echoes the (possibly huge) values."""
    errors = exc.errors(include_url=False, include_input=False, include_context=False)
    parts = [
        _PROBLEMS.get(err["type"], "`{field}`: {msg}").format(
            field=".".join(_short(str(p)) for p in err["loc"]) or "(the argument)",
            msg=err["msg"],
            expected=_field_list(model),
        )
        for err in errors[:MAX_REPORTED_ERRORS]
    ]
    if len(errors) > MAX_REPORTED_ERRORS:
        parts.append(f"and {len(errors) - MAX_REPORTED_ERRORS} more")
    return "; ".join(parts)


def _field_list(model: type[Params]) -> str:
    names = []
    for name, info in model.model_fields.items():
        alias = info.alias or name
        names.append(alias if info.is_required() else f"{alias}?")
    return ", ".join(names)


def _short(text: str) -> str:
    if len(text) <= MAX_FIELD_NAME_CHARS:
        return text
    return text[: MAX_FIELD_NAME_CHARS - 1] + "…"


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


__all__ = [
    "ChangesParams",
    "ClearParams",
    "CodeActionParams",
    "ContextBudgetParams",
    "DiagnosticParams",
    "KeyParams",
    "Params",
    "PinParams",
    "RevertFileParams",
    "RevertParams",
    "RunEventsParams",
    "RunIdParams",
    "RunParams",
    "ScopeParams",
    "StatusParams",
    "TraceRunsParams",
    "TraceStepParams",
    "WriteParams",
    "describe",
    "parse_params",
]
