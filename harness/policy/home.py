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

from pathlib import Path

from harness.policy.rules import Layer, Rule
from harness.types import Act, Effect

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
    "HOME_RUNS_LATER_GLOBS",
    "HOME_RUNS_LATER_LAYER",
    "HOME_SECRETS_LAYER",
    "HOME_SECRET_GLOBS",
    "home_layers",
    "is_home_or_top",
]
