"""Arguments and helpers every subcommand shares (the store path, JSON output)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

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
