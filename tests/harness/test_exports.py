"""``harness.exports.lazy_exports``: a package's names load from their submodule on first
use, are kept on the package, and an unknown name is an ``AttributeError``."""

from __future__ import annotations

import subprocess
import sys

import pytest

import harness.memory
import harness.workspace


def test_a_name_is_loaded_from_its_submodule_and_kept() -> None:
    from harness.memory.run import RunMemory

    assert harness.memory.RunMemory is RunMemory
    assert "RunMemory" in vars(harness.memory)  # the next lookup is a plain attribute
    assert harness.workspace.Workspace.__module__ == "harness.workspace.root"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match=r"'harness\.memory' has no attribute 'nothing'"):
        _ = harness.memory.nothing  # type: ignore[attr-defined]
    assert not hasattr(harness.workspace, "nothing")


def test_one_submodule_does_not_import_its_siblings() -> None:
    code = (
        "import sys\nimport harness.memory.notes\n"
        "print(sorted(m for m in sys.modules if m.startswith(('harness.memory', 'pathspec'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['harness.memory', 'harness.memory.notes', 'harness.memory.text']"
