"""The rules of the permission policy (§6.3): what a rule is, the built-in secrets layer, and
``RuleSet``, which evaluates layers of rules deny-first and names the rule that decided.

Evaluation order, across *all* layers: any matching ``deny`` wins, then any ``ask``, then
any ``allow``, then the per-act default. A glob's ``*`` crosses ``/`` and it matches the
full workspace-relative path or the basename; for ``exec`` it matches the command line or
the program's name. Rules are case-sensitive, except in the ``builtin`` layer: that one is
always present and first, and denies reading and writing secrets whatever their case.

The ``runs-later`` layer is always on too, and is not a layer of rules like the others: a
write to a file that an editor, git, a shell or CI runs by itself (``RUNS_LATER_GLOBS``) is
``ask`` whatever the layers say, unless they deny it. An ``allow`` rule of any layer, or the
default, cannot lift it; a ``deny`` still wins. Its globs match the path, or the path from
any of its directories down (``web/.vscode/tasks.json`` is a ``.vscode/**`` file: VS Code
runs it when ``web`` is the folder opened), whatever the case.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from harness.types import Act, Effect

BUILTIN_LAYER = "builtin"
DEFAULT_LAYER = "default"
RUNS_LATER_LAYER = "runs-later"

DEFAULTS: Mapping[Act, Effect] = {
    Act.READ: Effect.ALLOW,
    Act.WRITE: Effect.ALLOW,
    Act.EXEC: Effect.ASK,
    Act.MCP: Effect.ASK,
}

# Secrets are never read or written, in any case (`.ENV` is `.env` on macOS and Windows).
# `.env.*` covers `.env.local`, `.env.production`…; it also covers `.env.example`, the price
# of a deny that no other layer can lift.
SECRET_GLOBS = (
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".git-credentials",
)

# Files an editor, git, a shell or CI runs by themselves (§6.3): a write there is asked.
# SPEC's list first (checked against SPEC.md), then what issue 30 found the harness missed,
# by kind. This tuple is the one declaration: the tests write one file for each glob.
SPEC_RUNS_LATER_GLOBS = (
    ".vscode/**",
    ".idea/**",
    ".devcontainer/**",
    ".nvim.lua",
    ".nvimrc",
    ".exrc",
    ".envrc",
    ".gitattributes",
    ".gitmodules",
    ".pre-commit-config.yaml",
    ".husky/**",
    ".github/workflows/**",
    ".gitlab-ci.yml",
)
RUNS_LATER_GLOBS = (
    *SPEC_RUNS_LATER_GLOBS,
    # Python runs these at every interpreter start, or they are the interpreter's programs
    # (a virtualenv by any other name is found by its `pyvenv.cfg`: harness.policy.venvs).
    ".venv/**",
    "venv/**",
    "site-packages/**",
    "dist-packages/**",
    "*.pth",
    "sitecustomize.py",
    "usercustomize.py",
    "pyvenv.cfg",
    # npm, npx and every package script run what is in node_modules.
    "node_modules/**",
    # Agents and editors that start MCP servers, hooks or tasks from the repository.
    ".mcp.json",
    ".claude/**",
    ".cursor/**",
    ".zed/**",
    ".helix/**",
    ".lazy.lua",
    "*.code-workspace",
    # Shell environment managers that run or select programs on `cd`.
    "mise.toml",
    ".mise.toml",
    "mise.local.toml",
    ".mise.local.toml",
    ".mise/**",
    ".tool-versions",
    # Git hooks managers (hooks by another name).
    ".githooks/**",
    "lefthook.yml",
    ".lefthook.yml",
    "lefthook-local.yml",
    ".lefthook/**",
    # CI beyond GitHub and GitLab.
    ".circleci/**",
    "Jenkinsfile",
    "azure-pipelines.yml",
    ".azure-pipelines/**",
    ".travis.yml",
    "bitbucket-pipelines.yml",
    ".buildkite/**",
    ".drone.yml",
    ".woodpecker.yml",
    ".woodpecker/**",
    ".gitea/workflows/**",
    ".forgejo/workflows/**",
    "appveyor.yml",
    ".appveyor.yml",
    ".cirrus.yml",
    "cloudbuild.yaml",
)
RUNS_LATER_WHY = "a file that an editor, git, a shell or CI runs by itself"
_RUNS_LATER = {g: re.compile(fnmatch.translate(g.casefold())) for g in RUNS_LATER_GLOBS}

_EFFECT_ORDER = (Effect.DENY, Effect.ASK, Effect.ALLOW)


@dataclass(frozen=True)
class Rule:
    act: Act
    effect: Effect
    glob: str


@dataclass(frozen=True)
class Layer:
    """A named set of rules: ``builtin``, ``user``, ``workspace`` or ``editor``.
    ``ignore_case`` makes its globs match whatever the case of the path."""

    name: str
    rules: tuple[Rule, ...] = ()
    ignore_case: bool = False


@dataclass(frozen=True)
class Verdict:
    """What the policy says about one act on one target, and who said it."""

    effect: Effect
    rule: Rule | None  # None: the per-act default decided
    layer: str
    reason: str


def builtin_layer() -> Layer:
    rules = tuple(Rule(act, Effect.DENY, g) for g in SECRET_GLOBS for act in (Act.READ, Act.WRITE))
    return Layer(BUILTIN_LAYER, rules, ignore_case=True)


def runs_later(path: str) -> str | None:
    """The ``RUNS_LATER_GLOBS`` glob that ``path`` (workspace-relative) matches, from any of
    its directories down, whatever the case; None when it matches none."""
    parts = path.casefold().split("/")
    tails = ["/".join(parts[i:]) for i in range(len(parts))]
    for glob in RUNS_LATER_GLOBS:
        if any(_RUNS_LATER[glob].match(tail) for tail in tails):
            return glob
    return None


def stricter(a: Effect, b: Effect) -> Effect:
    """The stricter of two effects: deny over ask over allow."""
    return a if _EFFECT_ORDER.index(a) <= _EFFECT_ORDER.index(b) else b


@dataclass(frozen=True)
class _Compiled:
    layer: str
    rule: Rule
    regex: re.Pattern[str]


_GLOB_META = re.compile(r"[*?\[]")


def _fragment(glob: str, ignore_case: bool) -> str:
    # fnmatch.translate gives a full-match regex in which `*` crosses `/`.
    return f"(?{'i' if ignore_case else ''}:{fnmatch.translate(glob)})"


def _alternation(globs: Sequence[str], ignore_case: bool) -> str:
    """A full-match regex for "any of ``globs``" (``fnmatch`` semantics). Plain names, and
    ``*`` followed by a plain suffix, are merged into one branch each: ``re`` tries
    alternatives one by one, and most rules (all the secrets) are of these two kinds."""
    names: list[str] = []
    suffixes: list[str] = []
    branches: list[str] = []
    for glob in globs:
        if not _GLOB_META.search(glob):
            names.append(glob)
        elif glob.startswith("*") and not _GLOB_META.search(glob[1:]):
            suffixes.append(glob[1:])
        else:
            branches.append(fnmatch.translate(glob))
    if names:
        branches.append(f"(?:{'|'.join(re.escape(n) for n in names)})\\Z")
    if suffixes:
        branches.append(f"(?s:.*(?:{'|'.join(re.escape(x) for x in suffixes)}))\\Z")
    return f"(?{'i' if ignore_case else ''}:{'|'.join(branches)})"


def _matches(regex: re.Pattern[str], subject: str) -> bool:
    """The full path or its basename, as ``workspace.PathGlob`` matches."""
    if regex.match(subject):
        return True
    base = subject.rpartition("/")[2]
    return base != subject and regex.match(base) is not None


class RuleSet:
    """Layers of rules plus per-act defaults, evaluated deny-first. Immutable once built."""

    def __init__(
        self, layers: Iterable[Layer] = (), defaults: Mapping[Act, Effect] | None = None
    ) -> None:
        given = [layer for layer in layers if layer.name != BUILTIN_LAYER]
        self.layers: tuple[Layer, ...] = (builtin_layer(), *given)
        self.defaults: Mapping[Act, Effect] = {**DEFAULTS, **(defaults or {})}
        self._rules: dict[tuple[Act, Effect], list[_Compiled]] = {
            (act, effect): [] for act in Act for effect in Effect
        }
        for layer in self.layers:
            for rule in layer.rules:
                regex = re.compile(_fragment(rule.glob, layer.ignore_case))
                self._rules[rule.act, rule.effect].append(_Compiled(layer.name, rule, regex))
        # One regex per (act, effect) answers "does any rule match?" cheaply; grep asks this
        # for every file with a hit, and almost always the answer is no.
        self._any = {
            (act, effect): re.compile("|".join(branches))
            for act in Act
            for effect in Effect
            if (branches := self._branches(act, effect))
        }

    def _branches(self, act: Act, effect: Effect) -> list[str]:
        out = []
        for layer in self.layers:
            globs = [r.glob for r in layer.rules if (r.act, r.effect) == (act, effect)]
            if globs:
                out.append(_alternation(globs, layer.ignore_case))
        return out

    def explain(self, act: Act, target: str) -> Verdict:
        """The effect for ``act`` on ``target`` and the rule and layer that decided it."""
        verdict = self._layered(act, target)
        if act is Act.WRITE and verdict.effect is Effect.ALLOW:
            glob = runs_later(target)
            if glob is not None:
                reason = f"rule `{glob}` in layer {RUNS_LATER_LAYER}: {RUNS_LATER_WHY}"
                return Verdict(Effect.ASK, Rule(act, Effect.ASK, glob), RUNS_LATER_LAYER, reason)
        return verdict

    def _layered(self, act: Act, target: str) -> Verdict:
        subjects = _subjects(act, target)
        for effect in _EFFECT_ORDER:
            any_rule = self._any.get((act, effect))
            if any_rule is None or not any(_matches(any_rule, s) for s in subjects):
                continue
            for compiled in self._rules[act, effect]:
                if any(_matches(compiled.regex, s) for s in subjects):
                    reason = f"rule `{compiled.rule.glob}` in layer {compiled.layer}"
                    return Verdict(effect, compiled.rule, compiled.layer, reason)
        effect = self.defaults[act]
        return Verdict(effect, None, DEFAULT_LAYER, f"the default for {act.value}")


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


__all__ = [
    "BUILTIN_LAYER",
    "DEFAULTS",
    "DEFAULT_LAYER",
    "RUNS_LATER_GLOBS",
    "RUNS_LATER_LAYER",
    "RUNS_LATER_WHY",
    "SECRET_GLOBS",
    "SPEC_RUNS_LATER_GLOBS",
    "Layer",
    "Rule",
    "RuleSet",
    "Verdict",
    "builtin_layer",
    "runs_later",
    "stricter",
]
