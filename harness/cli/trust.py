"""``harness trust [DIR] [--revoke]``: record a folder as trusted (or not) in the user
config (§6.3), so its ``.harness/policy.toml`` may allow what it lists and set defaults.

``DIR`` defaults to the root of the git repository holding the current directory, else the
current directory — but never to the home folder or ``/`` (they must be named). A trusted
folder covers its subfolders. The user config keeps its comments and other settings.
Prints what it did; exit status 0, or 2 for a bad config.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.cli.args import choose_workspace
from harness.cli.output import say
from harness.errors import ConfigError
from harness.escape import printable

if TYPE_CHECKING:  # the policy loads when the command runs
    from harness.policy import TrustChange


def register(sub: Any) -> None:
    p = sub.add_parser(
        "trust", help="trust a folder: its .harness/policy.toml may then allow what it lists"
    )
    p.add_argument(
        "dir",
        nargs="?",
        default=None,
        metavar="DIR",
        help="the folder (default: the git root of the current directory, else the directory)",
    )
    p.add_argument("--revoke", action="store_true", help="stop trusting the folder (default: off)")
    p.set_defaults(func=command)


_HOME_REFUSED = (
    "`harness trust` with no folder would trust {root}, your home folder or /: a trusted "
    "folder covers every folder inside it, and their .harness/policy.toml could then allow "
    "what they list. Trust a project folder, or name it to really mean it: "
    "`harness trust {root}`"
)


def command(args: argparse.Namespace) -> int:
    folder = Path(args.dir).expanduser() if args.dir else _default_folder(revoke=args.revoke)
    if not folder.is_dir():
        raise ConfigError(f"{folder} is not a directory")
    from harness.policy import default_user_config, record_trust

    change = record_trust(folder, not args.revoke, config=default_user_config())
    say(describe(change, revoke=args.revoke))
    return 0


def _default_folder(*, revoke: bool) -> Path:
    """The git root or the current directory; never the home folder or ``/`` to trust
    (issue 30: only by name); revoking it by default is harmless."""
    from harness.policy.home import is_home_or_top

    root = choose_workspace(None, home_ok=True).root
    if not revoke and is_home_or_top(root):
        raise ConfigError(_HOME_REFUSED.format(root=printable(str(root))))
    return root


def describe(change: TrustChange, *, revoke: bool) -> str:
    folder, config = change.folder, change.config
    if not revoke:
        if not change.changed:
            return f"{folder} is already trusted ({config})"
        return (
            f"trusted {folder} (recorded in {config}): its .harness/policy.toml may now "
            "allow what it lists and set defaults, from the next run on"
        )
    if change.trusted:
        verb = "removed" if change.changed else "not listed"
        return (
            f"{folder} {verb}, but it is still trusted: {change.covered_by} is in {config}; "
            f"revoke that folder to stop trusting its subfolders"
        )
    if not change.changed:
        return f"{folder} was not trusted ({config}); nothing to do"
    return (
        f"no longer trusted: {folder} (removed from {config}); only the deny and ask rules "
        "of its .harness/policy.toml apply"
    )


__all__ = ["command", "describe", "register"]
