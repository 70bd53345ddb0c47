"""``tools/check_startup.py``: a start path is checked by the modules a fresh interpreter
has loaded after it; the real start paths load none of the packages named for them (this
failed on f07002c: ``harness --version`` loaded the store, pydantic, rich, httpx and the
run machinery; the ACP agent the run machinery and the OpenTelemetry SDK)."""

from __future__ import annotations

import pytest

from tests.tools.test_check_imports import load

check = load("check_startup")


def test_a_package_counts_with_its_submodules_only() -> None:
    modules = {"rich.console", "richer", "harness.storehouse", "pydantic"}
    found = check.offenders(modules, ("rich", "harness.store", "pydantic", "acp"))
    assert found == ["pydantic", "rich"]


def test_a_path_that_imports_a_heavy_package_is_caught() -> None:
    modules = check.loaded("import rich.text")
    assert check.offenders(modules, check.HEAVY) == ["rich"]


@pytest.mark.parametrize("path", check.PATHS, ids=lambda p: p.name)
def test_each_start_path_loads_nothing_it_does_not_need(path: object) -> None:
    assert isinstance(path, check.StartPath)
    modules = check.loaded(path.code)
    assert check.offenders(modules, path.forbidden) == []
    assert "harness.cli" in modules or "server" in modules  # the path ran


def test_the_check_passes_on_this_tree() -> None:
    assert check.main([]) == 0
