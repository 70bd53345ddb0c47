"""The layers for a workspace that holds the home folder or ``/`` (§6.3; issue 30, item 1):
``home-secrets`` denies reading and writing the home's credentials, ``home-runs-later``
asks before any write to what a shell, a desktop session or a tool starts by itself. Both
are on only when the workspace root *is* the home folder or ``/`` — which the CLI, ACP and
the language server accept only when asked for (``harness.policy.roots``).

Globs match the path relative to the root, or its basename (``RuleSet``); each is given
twice, as is and under any directory, so that the same list serves ``~`` and ``/`` (where
the home is ``home/NAME/``).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from harness.errors import ConfigError
from harness.escape import printable
from harness.policy.rules import Layer, Rule
from harness.policy.source import read_policy_file
from harness.types import Act, Effect

# The user config's key that lets ACP and the language server work in the home folder or /.
ALLOW_HOME_KEY = "allow_home_workspace"

HOME_SECRETS_LAYER = "home-secrets"
HOME_RUNS_LATER_LAYER = "home-runs-later"

# Credentials and keys kept in a home folder: never read, never written.
HOME_SECRET_GLOBS = (
    ".ssh/**",
    ".gnupg/**",
    ".aws/**",
    ".azure/**",
    ".config/gcloud/**",
    ".config/gh/**",
    ".config/hub",
    ".docker/config.json",
    ".kube/**",
    ".password-store/**",
    ".local/share/keyrings/**",
    ".config/harness/**",
    ".git-credentials",
    ".terraform.d/credentials.tfrc.json",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".config/pip/pip.conf",
    ".m2/settings.xml",
    ".vault-token",
)

# What a login, a shell, a desktop session, git or a tool runs by itself from the home.
HOME_RUNS_LATER_GLOBS = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
    ".inputrc",
    ".xprofile",
    ".xinitrc",
    ".xsession",
    ".xsessionrc",
    ".pam_environment",
    ".gitconfig",
    ".config/git/**",
    ".hgrc",
    ".vimrc",
    ".config/nvim/**",
    ".emacs",
    ".emacs.d/**",
    ".config/fish/**",
    ".config/autostart/**",
    ".config/systemd/**",
    ".config/environment.d/**",
    ".config/Code/User/**",
    ".local/bin/**",
    ".local/share/applications/**",
    "bin/**",
    ".config/mise/**",
    ".config/direnv/**",
    ".ipython/**",
    ".pythonrc",
    ".pythonstartup",
    ".npmrc",
    ".yarnrc",
    ".cargo/config.toml",
    ".cargo/bin/**",
    ".crontab",
    ".config/zed/**",
    ".claude/**",
    ".claude.json",
    ".cursor/**",
)


def is_home_or_top(root: Path) -> bool:
    """Whether ``root`` (after resolving symlinks) is the home folder or ``/``."""
    try:
        real = root.resolve()
        home = Path.home().resolve()
    except (OSError, RuntimeError):
        return False
    return real == home or real == Path(real.anchor)


def home_allowed(user_config: Path | None) -> bool:
    """Whether the user config says ``allow_home_workspace = true``."""
    raw = None if user_config is None else read_policy_file(user_config, "user config")
    if raw is None:
        return False
    try:
        value = tomllib.loads(raw.decode("utf-8")).get(ALLOW_HOME_KEY, False)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"user config {user_config} is not valid TOML: {exc}") from exc
    if not isinstance(value, bool):
        raise ConfigError(f"user config {user_config}: `{ALLOW_HOME_KEY}` must be true or false")
    return value


def root_refusal(root: Path, user_config: Path | None) -> str | None:
    """Why ``root`` may not be a workspace root of ACP or the language server (it is the
    home folder or ``/`` and the user config does not allow it); None when it may."""
    if not is_home_or_top(root) or home_allowed(user_config):
        return None
    return (
        f"{printable(str(root))} is your home folder or /, which holds your start-up files "
        "and credentials: the agent does not work there unless your user config "
        f"{printable(str(user_config))} says `{ALLOW_HOME_KEY} = true` (its start-up, "
        "credential and autostart files are then asked about or refused); open a project "
        "folder instead"
    )


def _anywhere(globs: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(g for glob in globs for g in (glob, f"*/{glob}"))


def home_layers(root: Path) -> tuple[Layer, ...]:
    """The two home layers when ``root`` is the home folder or ``/``; none otherwise."""
    if not is_home_or_top(root):
        return ()
    secrets = tuple(
        Rule(act, Effect.DENY, g)
        for g in _anywhere(HOME_SECRET_GLOBS)
        for act in (Act.READ, Act.WRITE)
    )
    later = tuple(Rule(Act.WRITE, Effect.ASK, g) for g in _anywhere(HOME_RUNS_LATER_GLOBS))
    return (
        Layer(HOME_SECRETS_LAYER, secrets, ignore_case=True),
        Layer(HOME_RUNS_LATER_LAYER, later, ignore_case=True),
    )


__all__ = [
    "ALLOW_HOME_KEY",
    "HOME_RUNS_LATER_GLOBS",
    "HOME_RUNS_LATER_LAYER",
    "HOME_SECRETS_LAYER",
    "HOME_SECRET_GLOBS",
    "home_allowed",
    "home_layers",
    "is_home_or_top",
    "root_refusal",
]
