"""Print the figures the standing reliability suite recorded (``tests/support/figures.py``)
as a markdown table, for ``docs/RELIABILITY.md``.

    .venv/bin/pytest tests/reliability -p no:randomly   # or: make soak
    .venv/bin/python tools/reliability_report.py [FIGURES.json]

The file is the argument, else ``$HARNESS_FIGURES``, else ``.pytest_cache/harness-figures.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.figures import figures_path, load  # noqa: E402


def _value(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:,.1f}"


def table(data: dict[str, Any]) -> str:
    areas: dict[str, Any] = data.get("areas", {})
    lines = ["| Area | Figures | Recorded (UTC) | Counts |", "|---|---|---|---|"]
    machines = set()
    for name in sorted(areas):
        entry = areas[name]
        figures = entry.get("figures", {})
        shown = "; ".join(f"{key.replace('_', ' ')}: {_value(figures[key])}" for key in figures)
        counts = "soak" if entry.get("soak") else "make test"
        lines.append(f"| {name} | {shown} | {entry.get('recorded_at', '?')} | {counts} |")
        machine = entry.get("machine", {})
        machines.add(
            f"{machine.get('host', '?')}: {machine.get('system', '?')}, "
            f"{machine.get('cpus', '?')} CPUs, Python {machine.get('python', '?')}"
        )
    lines += ["", *(f"Machine — {m}" for m in sorted(machines))]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else figures_path()
    data = load(path)
    if not data["areas"]:
        print(f"no figures in {path}: run `pytest tests/reliability` first", file=sys.stderr)
        return 1
    print(table(data))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
