"""The permission policy (§6.3): rules in layers, deny-first evaluation, loading the policy
files, and the ``Gate`` that asks an approver and remembers run-wide grants.

Evaluation order, across *all* layers: any matching ``deny`` wins, then any ``ask``, then
any ``allow``, then the per-act default. The ``builtin`` layer is always present and first;
it denies reading and writing secrets. Approvers answer the ``ask``s: a terminal prompt,
``--yes``, or nobody (refused, and the model is told approval was not available).
"""

from __future__ import annotations

import asyncio
import enum
import logging
import shlex
import sys
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.errors import ConfigError
from harness.types import Act, Approval, ApprovalRequest, Approver, Effect, PolicyEvent
from harness.workspace import GlobSet, PathGlob

log = logging.getLogger(__name__)

BUILTIN_LAYER = "builtin"
DEFAULT_LAYER = "default"

DEFAULTS: Mapping[Act, Effect] = {
    Act.READ: Effect.ALLOW,
    Act.WRITE: Effect.ALLOW,
    Act.EXEC: Effect.ASK,
}

# Secrets are never read or written. `.env.*` covers `.env.local`, `.env.production`…; it
# also covers `.env.example`, the price of a deny that no other layer can lift.
SECRET_GLOBS = (".env", ".env.*", "*.pem", "*.key", "id_rsa", "id_ed25519")


@dataclass(frozen=True)
class Rule:
    act: Act
    effect: Effect
    glob: str


@dataclass(frozen=True)
class Layer:
    name: str
    rules: tuple[Rule, ...] = ()


@dataclass(frozen=True)
class Verdict:
    """What the policy says about one act on one target, and who said it."""

    effect: Effect
    rule: Rule | None  # None: the per-act default decided
    layer: str
    reason: str


def builtin_layer() -> Layer:
    rules = tuple(Rule(act, Effect.DENY, g) for g in SECRET_GLOBS for act in (Act.READ, Act.WRITE))
    return Layer(BUILTIN_LAYER, rules)


class _Sentinel(enum.Enum):
    DEFAULT = enum.auto()


def default_user_config() -> Path:
    """``<user config dir>/harness/policy.toml`` (platformdirs)."""
    return Path(platformdirs.user_config_dir("harness")) / "policy.toml"


def workspace_config(root: Path) -> Path:
    return root / ".harness" / "policy.toml"


class Policy:
    """Layers of rules plus per-act defaults. Immutable once built."""

    def __init__(
        self, layers: Iterable[Layer] = (), defaults: Mapping[Act, Effect] | None = None
    ) -> None:
        given = [layer for layer in layers if layer.name != BUILTIN_LAYER]
        self.layers: tuple[Layer, ...] = (builtin_layer(), *given)
        self.defaults: Mapping[Act, Effect] = {**DEFAULTS, **(defaults or {})}
        self._globs = {r.glob: PathGlob(r.glob) for layer in self.layers for r in layer.rules}
        # One regex per (act, effect) answers "does any rule match?" cheaply; grep asks this
        # for every file with a hit, and almost always the answer is no.
        self._any = {
            (act, effect): GlobSet(
                [
                    r.glob
                    for layer in self.layers
                    for r in layer.rules
                    if (r.act, r.effect) == (act, effect)
                ]
            )
            for act in Act
            for effect in Effect
        }

    def explain(self, act: Act, target: str) -> Verdict:
        """The effect for ``act`` on ``target`` and the rule and layer that decided it."""
        subjects = _subjects(act, target)
        for effect in (Effect.DENY, Effect.ASK, Effect.ALLOW):
            if not any(self._any[act, effect].matches(s) for s in subjects):
                continue
            for layer in self.layers:
                for rule in layer.rules:
                    if rule.act == act and rule.effect == effect and self._hits(rule, subjects):
                        reason = f"rule `{rule.glob}` in layer {layer.name}"
                        return Verdict(effect, rule, layer.name, reason)
        effect = self.defaults[act]
        return Verdict(effect, None, DEFAULT_LAYER, f"the default for {act.value}")

    def _hits(self, rule: Rule, subjects: tuple[str, ...]) -> bool:
        glob = self._globs[rule.glob]
        return any(glob.matches(s) for s in subjects)

    @classmethod
    def load(
        cls,
        root: Path,
        *,
        user_config: Path | Literal[_Sentinel.DEFAULT] | None = _Sentinel.DEFAULT,
        editor: Mapping[str, Any] | None = None,
    ) -> Policy:
        """Layers ``user``, ``workspace`` (``<root>/.harness/policy.toml``) and ``editor``.

        Defaults are overridden in that order (the editor's settings win); rules are not
        ordered at all, since deny-first makes their order irrelevant.
        """
        user_path = default_user_config() if user_config is _Sentinel.DEFAULT else user_config
        sources: list[tuple[str, _PolicySpec]] = []
        if user_path is not None:
            sources.append(("user", _read_file(user_path)))
        sources.append(("workspace", _read_file(workspace_config(root))))
        if editor is not None:
            sources.append(("editor", _validate(dict(editor), "editor settings (policy)")))
        defaults: dict[Act, Effect] = {}
        layers = []
        for name, spec in sources:
            defaults.update(spec.defaults_map())
            layers.append(Layer(name, spec.rules_tuple()))
        return cls(layers, defaults)


def _subjects(act: Act, target: str) -> tuple[str, ...]:
    """What a rule's glob is matched against: the path, or the command line and program."""
    if act is not Act.EXEC:
        return (target,)
    try:
        words = shlex.split(target)
    except ValueError:
        words = target.split()
    program = words[0].rpartition("/")[2] if words else ""
    return (target, program) if program else (target,)


# -- policy files ----------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _DefaultsSpec(_Strict):
    read: Effect | None = None
    write: Effect | None = None
    exec: Effect | None = None


class _RuleSpec(_Strict):
    act: Act
    effect: Effect
    glob: str = Field(min_length=1)


class _PolicySpec(_Strict):
    defaults: _DefaultsSpec = Field(default_factory=_DefaultsSpec)
    rules: list[_RuleSpec] = Field(default_factory=list)

    def defaults_map(self) -> dict[Act, Effect]:
        given = {
            Act.READ: self.defaults.read,
            Act.WRITE: self.defaults.write,
            Act.EXEC: self.defaults.exec,
        }
        return {act: effect for act, effect in given.items() if effect is not None}

    def rules_tuple(self) -> tuple[Rule, ...]:
        return tuple(Rule(r.act, r.effect, r.glob) for r in self.rules)


def _read_file(path: Path) -> _PolicySpec:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return _PolicySpec()
    except OSError as exc:
        raise ConfigError(f"policy file {path} cannot be read: {exc}") from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"policy file {path} is not valid TOML: {exc}") from exc
    return _validate(data, f"policy file {path}")


def _validate(data: dict[str, Any], source: str) -> _PolicySpec:
    try:
        return _PolicySpec.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(top level)'}: {err['msg']}"
            for err in exc.errors()
        )
        raise ConfigError(f"{source}: {problems}") from exc


# -- the gate --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """Whether an act may go ahead; ``message`` is what the model is told on a refusal."""

    allowed: bool
    message: str
    event: PolicyEvent | None = None


NO_APPROVAL_REMEDY = (
    "no terminal or editor could be asked; run with --yes or allow it in .harness/policy.toml"
)


@dataclass
class Gate:
    """The policy plus an approver plus the grants given for the rest of one run."""

    policy: Policy
    approver: Approver
    run_id: int
    grants: set[tuple[Act, str]] = field(default_factory=set)

    async def check(self, act: Act, target: str) -> Decision:
        verdict = self.policy.explain(act, target)
        if verdict.effect is not Effect.ASK or (act, target) in self.grants:
            return _settled(act, target, verdict)
        request = ApprovalRequest(self.run_id, act, target, verdict.reason)
        try:
            answer = await self.approver(request)
        except asyncio.CancelledError:
            raise
        except Exception:
            # An approver that breaks must not let the act through, nor kill the run.
            log.exception("approver failed for %s %s", act.value, target)
            answer = Approval.UNAVAILABLE
        if answer is Approval.ALLOW_RUN:
            self.grants.add((act, target))
        return _answered(act, target, verdict, answer)

    def grant_run(self, act: Act, target: str) -> None:
        """Allow an ``ask`` for ``(act, target)`` for the rest of the run (a deny still holds)."""
        self.grants.add((act, target))

    def check_nowait(self, act: Act, target: str) -> Decision:
        """Like ``check`` but never asks: an ``ask`` without a run-wide grant is refused."""
        verdict = self.policy.explain(act, target)
        if verdict.effect is not Effect.ASK or (act, target) in self.grants:
            return _settled(act, target, verdict)
        message = (
            f"refused: {act.value} `{target}` needs approval ({verdict.reason}), which is "
            "only asked for when a tool is called"
        )
        return Decision(False, message, _event(act, target, verdict, False, "needs approval"))


def _settled(act: Act, target: str, verdict: Verdict) -> Decision:
    """An allow (or a granted ask) or a deny: no approver involved."""
    if verdict.effect is not Effect.DENY:
        return Decision(True, "")
    where = (
        f"rule `{verdict.rule.glob}`, layer {verdict.layer}"
        if verdict.rule is not None
        else f"the default for {act.value}"
    )
    message = f"refused by policy: deny {act.value} `{target}` ({where})"
    return Decision(False, message, _event(act, target, verdict, False, "denied"))


def _answered(act: Act, target: str, verdict: Verdict, answer: Approval) -> Decision:
    event = _event(act, target, verdict, answer in _ALLOWING, f"asked: {answer.value}")
    if answer in _ALLOWING:
        return Decision(True, "", event)
    if answer is Approval.UNAVAILABLE:
        message = (
            f"refused: {act.value} `{target}` needs approval ({verdict.reason}) and approval "
            f"was not available: {NO_APPROVAL_REMEDY}"
        )
    else:
        message = f"refused: the user denied {act.value} `{target}` ({verdict.reason})"
    return Decision(False, message, event)


_ALLOWING = frozenset({Approval.ALLOW_ONCE, Approval.ALLOW_RUN})


def _event(act: Act, target: str, verdict: Verdict, allowed: bool, detail: str) -> PolicyEvent:
    rule = verdict.rule.glob if verdict.rule is not None else None
    return PolicyEvent(act, target, verdict.effect, rule, verdict.layer, allowed, detail)


# -- approvers ------------------------------------------------------------------------------


PromptFn = Callable[[str], str]


def stderr_prompt(text: str) -> str:
    """Ask on the terminal; stdout is left alone (it may carry ``--json`` output)."""
    sys.stderr.write(text)
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError("stdin closed")
    return line


_ANSWERS: Mapping[str, Approval] = {
    "a": Approval.ALLOW_ONCE,
    "allow": Approval.ALLOW_ONCE,
    "y": Approval.ALLOW_ONCE,
    "yes": Approval.ALLOW_ONCE,
    "r": Approval.ALLOW_RUN,
    "run": Approval.ALLOW_RUN,
    "allow for this run": Approval.ALLOW_RUN,
}


class TerminalApprover:
    """Asks on the terminal: Allow / Allow for this run / Deny, Deny by default.

    ``prompt`` is called in a worker thread so the event loop keeps running; one question is
    asked at a time. A closed stdin means nobody can answer: ``UNAVAILABLE``.
    """

    def __init__(self, prompt: PromptFn = stderr_prompt) -> None:
        self._prompt = prompt
        self._lock = asyncio.Lock()

    async def __call__(self, request: ApprovalRequest) -> Approval:
        target = _printable(request.target)
        question = (
            f"\nharness wants to {request.act.value} `{target}` ({_printable(request.reason)}).\n"
            "[a]llow once, allow for this [r]un, [d]eny (default: deny)? "
        )
        async with self._lock:
            try:
                reply = await asyncio.to_thread(self._prompt, question)
            except EOFError:
                return Approval.UNAVAILABLE
        return _ANSWERS.get(reply.strip().casefold(), Approval.DENY)


def _printable(text: str) -> str:
    """Control characters escaped: the model chose this text, and an escape sequence could
    otherwise redraw the terminal and disguise what is being approved."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


class YesApprover:
    """``--yes``: every ask is allowed once (and recorded as asked)."""

    async def __call__(self, request: ApprovalRequest) -> Approval:
        return Approval.ALLOW_ONCE


class UnavailableApprover:
    """Nobody to ask: every ask is refused and the model is told why."""

    async def __call__(self, request: ApprovalRequest) -> Approval:
        return Approval.UNAVAILABLE


def default_approver(yes: bool, interactive: bool) -> Approver:
    """``--yes`` wins; else a terminal prompt when there is a terminal; else nobody."""
    if yes:
        return YesApprover()
    if interactive:
        return TerminalApprover()
    return UnavailableApprover()


__all__ = [
    "BUILTIN_LAYER",
    "DEFAULTS",
    "SECRET_GLOBS",
    "Decision",
    "Gate",
    "Layer",
    "Policy",
    "Rule",
    "TerminalApprover",
    "UnavailableApprover",
    "Verdict",
    "YesApprover",
    "builtin_layer",
    "default_approver",
    "default_user_config",
    "stderr_prompt",
    "workspace_config",
]
