"""Building the ``Policy`` (§6.3, §6.6): the user config, the workspace's
``.harness/policy.toml`` and the editor settings, each parsed by ``parse_layer``, combined
so that a repository can never loosen what the user set.

    source                      rules applied          [defaults]      [exec]
    user config                 all                    yes             yes (may loosen)
    editor settings             all                    yes, over user  yes, over user
    workspace, trusted folder   all                    may tighten*    may only tighten
    workspace, untrusted        deny and ask only      ignored         may only tighten

    * a workspace default replaces a built-in default, but never loosens a default the user
      set (user config or editor settings): it may only make it stricter.

What a workspace file asked for and did not get is in ``Policy.warnings``, one message per
file, for the host to tell the user once per run.
"""

from __future__ import annotations

import enum
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from harness.errors import ConfigError
from harness.escape import printable
from harness.policy.home import ALLOW_HOME_KEY, home_layers
from harness.policy.rules import (
    RUNS_LATER_LAYER,
    Layer,
    Rule,
    RuleSet,
    Verdict,
    stricter,
)
from harness.policy.source import read_policy_file
from harness.policy.trust import TRUSTED_KEY, covering, parse_trusted
from harness.policy.venvs import MARKER, virtualenv_of
from harness.types import Act, Effect, ExecConfig, SandboxMode

USER_LAYER = "user"
WORKSPACE_LAYER = "workspace"
EDITOR_LAYER = "editor"
EDITOR_SOURCE = "editor settings (policy)"
LANGUAGES_KEY = "languages"  # the user config's [languages.NAME] (harness.semantic.config)
SEMANTIC_KEY = "semantic"  # the user config's [semantic] settings (harness.semantic.config)
TELEMETRY_KEY = "telemetry"  # the user config's [telemetry] table (harness.telemetry reads it)
MCP_KEY = "mcp"  # the user config's [mcp] table: the user's MCP servers (harness.mcp reads it)

_SANDBOX_RANK = {SandboxMode.OFF: 0, SandboxMode.AUTO: 1, SandboxMode.REQUIRED: 2}


class _Sentinel(enum.Enum):
    DEFAULT = enum.auto()


def default_user_config() -> Path:
    """``<user config dir>/harness/policy.toml`` (platformdirs)."""
    return Path(platformdirs.user_config_dir("harness")) / "policy.toml"


def workspace_config(root: Path) -> Path:
    return root / ".harness" / "policy.toml"


@dataclass(frozen=True)
class LayerConfig:
    """One policy source, parsed and checked: its rules and the defaults and ``[exec]``
    values it sets (None: not set there)."""

    name: str
    source: str
    rules: tuple[Rule, ...] = ()
    defaults: Mapping[Act, Effect] = field(default_factory=dict)
    sandbox: SandboxMode | None = None
    network: bool | None = None

    def layer(self) -> Layer:
        return Layer(self.name, self.rules)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _DefaultsSpec(_Strict):
    read: Effect | None = None
    write: Effect | None = None
    exec: Effect | None = None
    mcp: Effect | None = None


class _RuleSpec(_Strict):
    act: Act
    effect: Effect
    glob: str = Field(min_length=1)


class _ExecSpec(_Strict):
    sandbox: SandboxMode | None = None
    network: StrictBool | None = None


class _LayerSpec(_Strict):
    defaults: _DefaultsSpec = Field(default_factory=_DefaultsSpec)
    rules: list[_RuleSpec] = Field(default_factory=list)
    exec: _ExecSpec = Field(default_factory=_ExecSpec)


def parse_layer(
    data: Mapping[str, Any], source: str, *, name: str = WORKSPACE_LAYER
) -> LayerConfig:
    """A policy table (``[defaults]``, ``[[rules]]``, ``[exec]``) from a file or the editor
    settings, checked; ``ConfigError`` names ``source`` and every bad field."""
    if TRUSTED_KEY in data:
        raise ConfigError(
            f"{source}: `{TRUSTED_KEY}` is read only from the user config "
            f"({default_user_config()}); a policy file cannot trust folders"
        )
    for key in (LANGUAGES_KEY, SEMANTIC_KEY):
        if key in data:
            raise ConfigError(
                f"{source}: `[{key}]` is read only from the user config "
                f"({default_user_config()}); a policy file cannot choose the language "
                "servers the harness starts"
            )
    if TELEMETRY_KEY in data:
        raise ConfigError(
            f"{source}: `[{TELEMETRY_KEY}]` is read only from the user config "
            f"({default_user_config()}); a policy file cannot send runs anywhere"
        )
    if MCP_KEY in data:
        raise ConfigError(
            f"{source}: `[{MCP_KEY}]` is read only from the user config "
            f"({default_user_config()}); a policy file cannot choose what runs"
        )
    try:
        spec = _LayerSpec.model_validate(dict(data))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '(top level)'}: {err['msg']}"
            for err in exc.errors()
        )
        raise ConfigError(f"{source}: {problems}") from exc
    given = {Act.READ: spec.defaults.read, Act.WRITE: spec.defaults.write}
    given[Act.EXEC] = spec.defaults.exec
    given[Act.MCP] = spec.defaults.mcp
    return LayerConfig(
        name,
        source,
        tuple(Rule(r.act, r.effect, r.glob) for r in spec.rules),
        {act: effect for act, effect in given.items() if effect is not None},
        spec.exec.sandbox,
        spec.exec.network,
    )


class Policy(RuleSet):
    """The rules in force for one workspace (``RuleSet``: layers, defaults, ``explain``),
    how commands run (``exec_config``), what the user must be told about the workspace's
    own policy file (``warnings``), and whether the user trusts the workspace (``trusted``:
    the trusted list or the client's verdict; a policy built without one is not)."""

    def __init__(
        self,
        layers: Iterable[Layer] = (),
        defaults: Mapping[Act, Effect] | None = None,
        *,
        exec_config: ExecConfig | None = None,
        warnings: tuple[str, ...] = (),
        trusted: bool = False,
        root: Path | None = None,
    ) -> None:
        super().__init__(layers, defaults)
        self.exec_config = exec_config if exec_config is not None else ExecConfig()
        self.warnings = warnings
        self.trusted = trusted
        self.root = root

    def explain(self, act: Act, target: str) -> Verdict:
        """``RuleSet.explain``, and a write inside a virtualenv of the workspace (a
        directory holding ``pyvenv.cfg``, whatever its name) asked as runs-later."""
        verdict = super().explain(act, target)
        if act is not Act.WRITE or verdict.effect is not Effect.ALLOW or self.root is None:
            return verdict
        venv = virtualenv_of(self.root, target)
        if venv is None:
            return verdict
        reason = (
            f"rule `{venv}/**` in layer {RUNS_LATER_LAYER}: a file of the virtualenv `{venv}` "
            f"(it holds {MARKER}), which Python runs by itself"
        )
        return Verdict(Effect.ASK, Rule(act, Effect.ASK, f"{venv}/**"), RUNS_LATER_LAYER, reason)
        self.user_config: Path | None = None  # where the user's [mcp] servers are (§15)

    @classmethod
    def load(
        cls,
        root: Path,
        *,
        user_config: Path | Literal[_Sentinel.DEFAULT] | None = _Sentinel.DEFAULT,
        editor: Mapping[str, Any] | None = None,
        client_trusted: bool | None = None,
    ) -> Policy:
        """The policy for the workspace ``root``: layers ``user`` (``user_config``, None for
        none), ``workspace`` (``<root>/.harness/policy.toml``) and ``editor``.

        ``client_trusted`` is the verdict of a client with its own trust model (VS Code's
        Workspace Trust); None lets the ``trusted`` list of the user config decide.
        """
        user_path = default_user_config() if user_config is _Sentinel.DEFAULT else user_config
        own: list[LayerConfig] = []
        trusted_folders: tuple[Path, ...] = ()
        if user_path is not None:
            user, trusted_folders = _read_user_config(user_path)
            own.append(user)
        if editor is not None:
            own.append(parse_layer(editor, EDITOR_SOURCE, name=EDITOR_LAYER))
        ws_path = workspace_config(root)
        workspace = parse_layer(_read_toml(ws_path), f"policy file {ws_path}")
        if client_trusted is not None:
            trust = _Trust(
                client_trusted, "the editor does not trust this folder", "trust it in the editor"
            )
        else:
            trust = _Trust(
                covering(root, trusted_folders) is not None,
                "this folder is not in your trusted folders",
                f"run `harness trust {printable(str(root))}` (or the editor's trust command)",
            )
        policy = _combine(own, workspace, trust, (root, ws_path), user_path)
        policy.user_config = user_path
        return policy


@dataclass(frozen=True)
class _Trust:
    """Whether the workspace is trusted; if not, why not and how to change that."""

    trusted: bool
    why_not: str
    remedy: str


@dataclass
class _Ignored:
    """What a workspace file asked for and did not get, in words."""

    untrusted: list[str] = field(default_factory=list)
    loosening: list[str] = field(default_factory=list)


def _combine(
    own: list[LayerConfig],
    workspace: LayerConfig,
    trust: _Trust,
    paths: tuple[Path, Path],
    user_path: Path | None,
) -> Policy:
    root, ws_path = paths
    ignored = _Ignored()
    ws_rules = workspace.rules
    if not trust.trusted:
        ws_rules = tuple(r for r in workspace.rules if r.effect is not Effect.ALLOW)
        ignored.untrusted += [
            f"allow {r.act.value} `{printable(r.glob)}`"
            for r in workspace.rules
            if r.effect is Effect.ALLOW
        ]
    defaults = _defaults(own, workspace, trust.trusted, ignored)
    exec_config = _exec_config(own, workspace, ignored)
    layers = [
        *home_layers(root),
        *(c.layer() for c in own if c.name == USER_LAYER),
        Layer(WORKSPACE_LAYER, ws_rules),
        *(c.layer() for c in own if c.name == EDITOR_LAYER),
    ]
    warnings = _warnings(ws_path, ignored, trust, user_path)
    return Policy(
        layers,
        defaults,
        exec_config=exec_config,
        warnings=warnings,
        trusted=trust.trusted,
        root=root,
    )


def _defaults(
    own: list[LayerConfig], workspace: LayerConfig, trusted: bool, ignored: _Ignored
) -> dict[Act, Effect]:
    """The user's own defaults (editor over user config), then the workspace's where it may."""
    mine: dict[Act, Effect] = {}
    for config in own:
        mine.update(config.defaults)
    result = dict(mine)
    for act, effect in workspace.defaults.items():
        if not trusted:
            ignored.untrusted.append(f'[defaults] {act.value} = "{effect.value}"')
        elif act not in mine or stricter(mine[act], effect) is effect:
            result[act] = effect
        else:
            ignored.loosening.append(
                f'[defaults] {act.value} = "{effect.value}" (yours is "{mine[act].value}")'
            )
    return result


def _exec_config(own: list[LayerConfig], workspace: LayerConfig, ignored: _Ignored) -> ExecConfig:
    """The user's ``[exec]`` (editor over user config); the workspace may only tighten it."""
    sandbox, network = SandboxMode.AUTO, True
    for config in own:
        sandbox = config.sandbox if config.sandbox is not None else sandbox
        network = config.network if config.network is not None else network
    if workspace.sandbox is not None:
        if _SANDBOX_RANK[workspace.sandbox] >= _SANDBOX_RANK[sandbox]:
            sandbox = workspace.sandbox
        else:
            ignored.loosening.append(f'[exec] sandbox = "{workspace.sandbox.value}"')
    if workspace.network is False:
        network = False
    elif workspace.network is True and not network:
        ignored.loosening.append("[exec] network = true")
    return ExecConfig(sandbox=sandbox, network=network)


def _warnings(
    path: Path, ignored: _Ignored, trust: _Trust, user_path: Path | None
) -> tuple[str, ...]:
    """What to tell the user about the workspace file: at most one line per reason."""
    out: list[str] = []
    if ignored.untrusted:
        out.append(
            f"only the deny and ask rules of {printable(str(path))} apply: {trust.why_not}. "
            f"Ignored: {', '.join(ignored.untrusted)}. If you trust this repository, "
            f"{trust.remedy}."
        )
    if ignored.loosening:
        where = f" ({printable(str(user_path))})" if user_path is not None else ""
        out.append(
            f"{printable(str(path))} may only tighten what you set; ignored: "
            f"{', '.join(ignored.loosening)}. Set these in your user config{where} or the "
            "editor settings."
        )
    return tuple(out)


def _read_user_config(path: Path) -> tuple[LayerConfig, tuple[Path, ...]]:
    """The ``user`` layer and the trusted folders; ``trusted`` is read from here only."""
    source = f"user config {path}"
    data = _read_toml(path)
    trusted = parse_trusted(data.pop(TRUSTED_KEY), source) if TRUSTED_KEY in data else ()
    data.pop(TELEMETRY_KEY, None)  # harness.telemetry's, not a policy table
    data.pop(ALLOW_HOME_KEY, None)  # harness.policy.home's (home_allowed)
    data.pop(LANGUAGES_KEY, None)  # harness.semantic.config's (§14)
    data.pop(SEMANTIC_KEY, None)
    data.pop(MCP_KEY, None)  # harness.mcp's, not a policy table
    return parse_layer(data, source, name=USER_LAYER), trusted


def _read_toml(path: Path) -> dict[str, Any]:
    """A policy file's table; {} when there is no file."""
    raw = read_policy_file(path)
    if raw is None:
        return {}
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"policy file {path} is not valid TOML: {exc}") from exc


__all__ = [
    "EDITOR_LAYER",
    "MCP_KEY",
    "TELEMETRY_KEY",
    "USER_LAYER",
    "WORKSPACE_LAYER",
    "LayerConfig",
    "Policy",
    "default_user_config",
    "parse_layer",
    "workspace_config",
]
