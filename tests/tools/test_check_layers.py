"""The layering rule of ``tools/check_imports.py`` (issue 31): every module of ``harness`` is
on a floor of ``LAYERS`` and imports only its own floor or the ones below — on synthetic
trees with a throwaway module that imports upwards (at the top, lazily, for typing only),
and on the real tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tools.test_check_imports import ROOT, check


def tree(root: Path, files: dict[str, str]) -> Path:
    base = {
        "harness/__init__.py": "",
        "server/__init__.py": "",
        "harness/types.py": "X = 1\n",
        "harness/context/__init__.py": "",
        "harness/run/__init__.py": "",
        "harness/run/loop.py": "from harness.context import engine\n",
        "harness/context/engine.py": "from harness.types import X\n",
        "harness/cli/__init__.py": "from harness.run import loop\n",
    }
    for rel, text in {**base, **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def problems(root: Path) -> list[str]:
    return check.layering(check.import_graph(root))


def test_imports_down_the_floors_are_no_problem(tmp_path: Path) -> None:
    assert problems(tree(tmp_path, {})) == []


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("from harness.run.loop import Run\n", id="top-level"),
        pytest.param("def f():\n    from harness.run import loop\n", id="lazy"),
        pytest.param(
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from harness.cli import x\n",
            id="type-checking",
        ),
    ],
)
def test_a_throwaway_module_importing_upwards_fails(tmp_path: Path, source: str) -> None:
    found = problems(tree(tmp_path, {"harness/context/throwaway.py": source}))
    assert len(found) == 1
    assert found[0].startswith("harness.context.throwaway (line ")
    assert ", layer rooms) imports harness." in found[0] and found[0].endswith("an arrow back up")


def test_a_module_in_no_layer_is_reported(tmp_path: Path) -> None:
    found = problems(tree(tmp_path, {"harness/newroom/__init__.py": "X = 1\n"}))
    assert found == ["harness.newroom: in no layer of LAYERS (tools/check_imports.py)"]


def test_a_module_is_on_the_floor_of_its_longest_prefix() -> None:
    names = [name for name, _ in check.LAYERS]
    assert names[check.layer_of("harness.run.loop")] == "run"
    assert names[check.layer_of("harness.types")] == "leaf"
    assert names[check.layer_of("harness")] == "leaf"
    assert check.layer_of("harness.typesetting") is None, "a prefix is a whole room"


def test_the_product_keeps_its_floors() -> None:
    assert problems(ROOT) == []
