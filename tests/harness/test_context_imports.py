"""Importing ``harness.context`` loads no tool, no sandbox and no policy (issue 31): the
context reads the tools' declarations on first use (``harness.context.declared``), so a
fresh interpreter that imports it holds none of those modules."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ("harness.tools", "harness.sandbox", "harness.policy")
PROBE = "import sys, {module}; print('\\n'.join(sorted(sys.modules)))"


def loaded_by(module: str) -> list[str]:
    """The modules a fresh interpreter holds after importing ``module``."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return out.stdout.split()


def _forbidden(modules: list[str]) -> list[str]:
    return [m for m in modules if m in FORBIDDEN or m.startswith(tuple(f + "." for f in FORBIDDEN))]


def test_importing_the_context_loads_no_tool_sandbox_or_policy() -> None:
    loaded = loaded_by("harness.context")
    assert "harness.context.engine" in loaded, "the probe imported the context"
    assert _forbidden(loaded) == []


def test_the_probe_sees_what_a_module_loads() -> None:
    # The run's toolbox needs every tool: the probe must see them when they are loaded.
    assert "harness.tools.exec" in _forbidden(loaded_by("harness.run.toolbox"))


def test_the_context_still_labels_as_the_tools_declare() -> None:
    from harness.context.declared import declaration, empty_file, header, label_of
    from harness.tools import declaration as declared
    from harness.tools.span import EMPTY_FILE

    assert label_of("read_file") == "read" and header("read_file", "a.py") == "[read a.py]"
    assert declaration("edit_file") == declared("edit_file")
    assert empty_file() == EMPTY_FILE
