"""``python -m server.protocol.gen [--check] [--root DIR]``: writes every generated file
from the declaration (``make protocol``), or, with ``--check`` (``make lint``), writes
nothing and fails naming each file that differs and each command without its function."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from server.protocol.gen.outputs import outputs

ROOT = Path(__file__).resolve().parents[3]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.protocol.gen")
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    parser.add_argument("--root", type=Path, default=ROOT, help="the tree (default: this one)")
    args = parser.parse_args(argv)
    files, problems = outputs(args.root)
    stale = [path for path, text in files.items() if _read(path) != text]
    for problem in problems:
        print(f"protocol: {problem}", file=sys.stderr)
    if args.check:
        for path in stale:
            rel = path.relative_to(args.root)
            print(
                f"protocol: {rel} differs from the declaration: run `make protocol`",
                file=sys.stderr,
            )
        return 1 if stale or problems else 0
    for path in stale:
        path.write_text(files[path], encoding="utf-8")
        print(f"protocol: wrote {path.relative_to(args.root)}", file=sys.stderr)
    return 1 if problems else 0


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


if __name__ == "__main__":
    sys.exit(main())
