"""Arguments and helpers every subcommand shares (the store path, JSON output)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from harness.store import Store, default_store_path


def add_store_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store", default=None, help="SQLite store (default: $HARNESS_STORE or the data dir)"
    )


def store_path(args: argparse.Namespace) -> Path:
    return Path(args.store).expanduser() if getattr(args, "store", None) else default_store_path()


def open_store(args: argparse.Namespace) -> Store:
    return Store(store_path(args))


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=None) + "\n")


def console() -> Console:
    """A console for tables: the terminal's width, or 120 columns when piped."""
    out = Console(highlight=False)
    return out if out.is_terminal else Console(highlight=False, width=120)
