"""The task contract: goal, workspace, verification and the budgets a run is held to (§2).

Hosts layer what they were given over the defaults with ``TaskContract.with_overrides``:
one merge rule for the CLI's flags, the editor's settings and a command's arguments — a
given value wins, ``None`` means "not given", and a partial ``ContextBudget`` changes only
the fields it gives.

The budget arithmetic lives here as pure functions so every caller (the loop, the context
assembler, the server's status bar, the benchmarks) computes the same ceiling.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from harness.defaults import (
    DEFAULT_CONTEXT_MAX_TOKENS,
    DEFAULT_CONTEXT_SHARE,
    DEFAULT_CONTEXT_WIRE,
    DEFAULT_LOW_WATER,
    DEFAULT_MAX_STEPS,
    DEFAULT_TOKEN_BUDGET,
)
from harness.tokens import CHARS_PER_TOKEN

MEMORY_MAX_ENTRIES = 64
MEMORY_MAX_CHARS = 16_000
MEMORY_MAX_ENTRY_CHARS = MEMORY_MAX_CHARS // 8

EFFECTIVE_FLOOR_TOKENS = 2_000
ENTRY_CAP_FLOOR_CHARS = 2_000


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ContextBudget(_Frozen):
    """Absolute ceiling per request, the share of the unspent token budget it may use, and
    how far the window slides when it must (``low_water`` of the observation budget, §3.5)."""

    max_tokens: int = Field(default=DEFAULT_CONTEXT_MAX_TOKENS, ge=1)
    share: float = Field(default=DEFAULT_CONTEXT_SHARE, gt=0.0, le=1.0)
    low_water: float = Field(default=DEFAULT_LOW_WATER, gt=0.0, le=1.0)
    # seconds idle after which the provider's prompt cache is taken as expired (a request
    # then slides for free, §3 rule 5); None: the provider's default (harness.run.assembly)
    cache_idle_seconds: float | None = Field(default=None, gt=0.0)


class MemoryLimits(_Frozen):
    """Per-scope caps on durable memory (§4)."""

    max_entries: int = Field(default=MEMORY_MAX_ENTRIES, ge=1)
    max_chars: int = Field(default=MEMORY_MAX_CHARS, ge=1)
    max_entry_chars: int = Field(default=MEMORY_MAX_ENTRY_CHARS, ge=16)

    @model_validator(mode="after")
    def _entry_fits(self) -> Self:
        if self.max_entry_chars > self.max_chars:
            raise ValueError("max_entry_chars must not exceed max_chars")
        return self


class Verification(_Frozen):
    """A command whose exit status decides success, or no verification at all."""

    argv: tuple[str, ...] | None = None
    expect_exit: int = 0

    @model_validator(mode="after")
    def _argv_not_empty(self) -> Self:
        if self.argv is not None and (not self.argv or not all(self.argv)):
            raise ValueError("argv must be a non-empty list of non-empty strings")
        return self

    @classmethod
    def command(cls, argv: list[str] | tuple[str, ...], expect_exit: int = 0) -> Verification:
        return cls(argv=tuple(argv), expect_exit=expect_exit)

    @classmethod
    def none(cls) -> Verification:
        return cls()

    @property
    def enabled(self) -> bool:
        return self.argv is not None


ContextWire = Literal["transcript", "flat"]
# ``plan``: the run only reads and ends with the model's plan; ``ask``: it only reads and
# answers (ACP's read-only mode, issue 38); ``code``: it may change things.
RunMode = Literal["code", "plan", "ask"]


class ContextBudgetOverrides(_Frozen):
    """A partial ``ContextBudget``: the fields a host was given (``None``: not given). It
    has exactly ``ContextBudget``'s fields (a test keeps them equal)."""

    max_tokens: int | None = None
    share: float | None = None
    low_water: float | None = None
    cache_idle_seconds: float | None = None


class ContractOverrides(_Frozen):
    """What a host was given for a run's contract; ``None`` everywhere means "not given"."""

    verification: Verification | None = None
    token_budget: int | None = None
    max_steps: int | None = None
    context_budget: ContextBudgetOverrides = Field(default_factory=ContextBudgetOverrides)
    memory_limits: MemoryLimits | None = None
    context_wire: ContextWire | None = None
    mode: RunMode | None = None


class TaskContract(_Frozen):
    """What a run is asked to do, where, how success is checked, and what it may spend."""

    goal: str = Field(min_length=1)
    root: Path
    verification: Verification = Field(default_factory=Verification.none)
    token_budget: int = Field(default=DEFAULT_TOKEN_BUDGET, ge=1)
    max_steps: int = Field(default=DEFAULT_MAX_STEPS, ge=1)
    context_budget: ContextBudget = Field(default_factory=ContextBudget)
    memory_limits: MemoryLimits = Field(default_factory=MemoryLimits)
    # How the observation section goes on the wire (§3 "Wire form"): the model's turns and
    # tool messages (``transcript``), or everything in one user message (``flat``).
    context_wire: ContextWire = DEFAULT_CONTEXT_WIRE
    mode: RunMode = "code"  # issue 33: a plan-mode run is offered the read tools only

    @classmethod
    def workspace(
        cls, goal: str, root: Path | str, verification: Verification | None = None
    ) -> TaskContract:
        return cls(goal=goal, root=Path(root), verification=verification or Verification.none())

    def rooted(self, root: Path) -> TaskContract:
        """The contract at ``root``; a plan-mode run verifies nothing (it changes nothing)."""
        plan = {"verification": Verification.none()} if self.mode != "code" else {}
        return self.model_copy(update={"root": root, **plan})

    def with_token_budget(self, n: int) -> TaskContract:
        return self._with(token_budget=n)

    def with_context_budget(self, b: ContextBudget) -> TaskContract:
        return self._with(context_budget=b)

    def with_max_steps(self, n: int) -> TaskContract:
        return self._with(max_steps=n)

    def with_memory_limits(self, limits: MemoryLimits) -> TaskContract:
        return self._with(memory_limits=limits)

    def with_overrides(self, overrides: ContractOverrides) -> TaskContract:
        """A new contract with every value ``overrides`` gives; the rest stay. Apply layers
        in order (settings, then a command's arguments): the last given value wins."""
        changes = {
            name: value
            for name, value in overrides
            if value is not None and name != "context_budget"
        }
        budget = overrides.context_budget.model_dump(exclude_none=True)
        if budget:
            changes["context_budget"] = {**self.context_budget.model_dump(), **budget}
        return self._with(**changes) if changes else self

    def _with(self, **changes: object) -> TaskContract:
        # model_validate re-runs validation, unlike model_copy(update=...).
        return TaskContract.model_validate({**self.model_dump(), **changes})


def unspent_tokens(token_budget: int, spent: int) -> int:
    return max(0, token_budget - spent)


def effective_tokens(budget: ContextBudget, token_budget: int, spent: int) -> int:
    """The per-request ceiling: ``min(max_tokens, max(floor(unspent * share), 2_000))``.

    An explicit ``max_tokens`` below the 2,000 floor is never raised: the ``min`` keeps it.
    """
    unspent = unspent_tokens(token_budget, spent)
    share_tokens = math.floor(unspent * budget.share)
    return min(budget.max_tokens, max(share_tokens, EFFECTIVE_FLOOR_TOKENS))


def entry_cap_chars(effective: int) -> int:
    """One observation may use an eighth of the effective budget, at 4 chars per token."""
    return max(ENTRY_CAP_FLOOR_CHARS, effective * CHARS_PER_TOKEN // 8)


def build_contract(goal: str, root: Path | str, *layers: ContractOverrides) -> TaskContract:
    """The contract for ``goal`` in the workspace ``root`` (resolved), with each layer of
    overrides applied in order (``None`` is "not given"; a later given value wins)."""
    from harness.errors import ConfigError
    from harness.workspace import Workspace

    if not goal.strip():
        raise ConfigError("the goal is empty")
    path = Path(root).expanduser()
    if not path.is_dir():
        raise ConfigError(f"workspace {path} is not a directory")
    contract = TaskContract.workspace(goal, Workspace(path).root)
    try:
        for layer in layers:
            contract = contract.with_overrides(layer)
    except ValidationError as exc:
        raise ConfigError(_first_problem(exc)) from None
    return contract


def _first_problem(exc: ValidationError) -> str:
    err = exc.errors(include_url=False, include_input=False)[0]
    field = ".".join(str(p) for p in err["loc"]) or "contract"
    return f"`{field}`: {err['msg']}"


__all__ = [
    "DEFAULT_CONTEXT_MAX_TOKENS",
    "DEFAULT_CONTEXT_SHARE",
    "DEFAULT_MAX_STEPS",
    "DEFAULT_TOKEN_BUDGET",
    "MEMORY_MAX_CHARS",
    "MEMORY_MAX_ENTRIES",
    "MEMORY_MAX_ENTRY_CHARS",
    "ContextBudget",
    "ContextBudgetOverrides",
    "ContextWire",
    "ContractOverrides",
    "MemoryLimits",
    "TaskContract",
    "Verification",
    "build_contract",
    "effective_tokens",
    "entry_cap_chars",
    "unspent_tokens",
]
