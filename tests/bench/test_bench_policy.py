"""Benchmark: ``Policy.explain`` (grep asks it for every file with a hit) against the
implementation it replaced, in the same process on the same targets.

The baseline is the old evaluator: one ``workspace.GlobSet`` per (act, effect) over every
layer's globs (case-sensitive, the six old secret globs), then ``PathGlob`` per rule. The
new one adds the case-insensitive secrets layer of fifteen globs into the same one-regex
fast path. Workload: a policy with a user and a workspace layer of typical rules, 20,000
workspace paths (a few secrets among them) read, and 2,000 command lines. Asserted: both
give the same verdict on every target the old list already covered; durations are printed.
"""

from __future__ import annotations

import random
import shlex
import statistics
import time
from collections.abc import Callable, Sequence

from harness.policy import Layer, Policy, Rule, Verdict
from harness.types import Act, Effect
from harness.workspace import GlobSet, PathGlob

from .conftest import record

OLD_SECRETS = (".env", ".env.*", "*.pem", "*.key", "id_rsa", "id_ed25519")
REPEATS = 21
PATHS = 20_000
COMMANDS = 2_000

LAYERS = [
    Layer(
        "user",
        (
            Rule(Act.READ, Effect.DENY, "private/*"),
            Rule(Act.EXEC, Effect.DENY, "rm"),
            Rule(Act.EXEC, Effect.ALLOW, "git status*"),
        ),
    ),
    Layer(
        "workspace",
        (
            Rule(Act.WRITE, Effect.ASK, "*.lock"),
            Rule(Act.EXEC, Effect.ALLOW, "pytest*"),
            Rule(Act.EXEC, Effect.ASK, "git push*"),
            Rule(Act.READ, Effect.DENY, "vendor/secrets/*"),
        ),
    ),
]


class OldPolicy:
    """The evaluator before the change (harness/policy.py at 42b63f3), as it was."""

    def __init__(self, layers: Sequence[Layer]) -> None:
        builtin = Layer(
            "builtin",
            tuple(Rule(a, Effect.DENY, g) for g in OLD_SECRETS for a in (Act.READ, Act.WRITE)),
        )
        self.layers = (builtin, *layers)
        self.defaults = {Act.READ: Effect.ALLOW, Act.WRITE: Effect.ALLOW, Act.EXEC: Effect.ASK}
        self._globs = {r.glob: PathGlob(r.glob) for layer in self.layers for r in layer.rules}
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
        return Verdict(effect, None, "default", f"the default for {act.value}")

    def _hits(self, rule: Rule, subjects: tuple[str, ...]) -> bool:
        glob = self._globs[rule.glob]
        return any(glob.matches(s) for s in subjects)


def _subjects(act: Act, target: str) -> tuple[str, ...]:
    if act is not Act.EXEC:
        return (target,)
    words = shlex.split(target)
    program = words[0].rpartition("/")[2] if words else ""
    return (target, program) if program else (target,)


def _paths(rng: random.Random) -> list[str]:
    names = ["main", "utils", "parser", "client", "models", "views", "test_api", "conf"]
    exts = ["py", "ts", "md", "json", "lock", "txt"]
    out = []
    for _ in range(PATHS):
        depth = rng.randint(1, 4)
        dirs = "/".join(f"pkg{rng.randint(0, 40)}" for _ in range(depth))
        out.append(f"{dirs}/{rng.choice(names)}{rng.randint(0, 99)}.{rng.choice(exts)}")
    secrets = [".env", "deploy/id_rsa", "certs/server.pem"]
    for i in range(0, PATHS, 997):
        out[i] = secrets[i % 3]
    return out


def _commands(rng: random.Random) -> list[str]:
    programs = ["pytest -q tests", "git status", "git push origin main", "make test", "ls -la"]
    return [f"{rng.choice(programs)} {rng.randint(0, 9)}" for _ in range(COMMANDS)]


def _timed_ms(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return (time.perf_counter() - started) * 1000


def _interleaved(ours: Callable[[], object], base: Callable[[], object]) -> tuple[float, ...]:
    """Medians of ours and of the baseline, and the median of their per-round ratios: the
    two run alternately, so a busy machine slows both alike."""
    pairs = [(_timed_ms(ours), _timed_ms(base)) for _ in range(REPEATS)]
    return (
        statistics.median(a for a, _ in pairs),
        statistics.median(b for _, b in pairs),
        statistics.median(a / b for a, b in pairs),
    )


def test_explain_against_the_old_evaluator() -> None:
    rng = random.Random(20_250_101)
    paths, commands = _paths(rng), _commands(rng)
    new, old = Policy(LAYERS), OldPolicy(LAYERS)
    for act, targets in ((Act.READ, paths), (Act.WRITE, paths), (Act.EXEC, commands)):
        for target in targets:
            verdict = new.explain(act, target)
            assert verdict == old.explain(act, target), target

    for act, targets in ((Act.READ, paths), (Act.EXEC, commands)):
        ours, base, ratio = _interleaved(
            lambda: [new.explain(act, t) for t in targets],  # noqa: B023
            lambda: [old.explain(act, t) for t in targets],  # noqa: B023
        )
        per = len(targets)
        record(
            "policy",
            f"explain {act.value} × {per:,}: ours {ours / per * 1000:.2f} µs/target, old "
            f"{base / per * 1000:.2f} µs/target, median ratio {ratio:.2f}",
        )
