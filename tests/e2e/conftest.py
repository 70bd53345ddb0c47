"""The end-to-end fixtures, once for every test module here: ``client`` (a server
initialized on ``ws`` with ``fake`` as the model and ``store``), ``bare`` (a started server
the test initializes itself), ``ws``, ``fake`` and ``store``. They are defined in
``tests/e2e/lsp.py`` beside the client they drive; the benchmarks import them the same way
(``tests/bench/conftest.py``). And ``no_after_edit_diagnostics``, for the CLI and server
test modules whose runs edit Python files but whose rules are not about diagnostics."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.cli import user_config
from tests.e2e.lsp import (  # noqa: F401 -- pytest fixtures, registered by name
    bare_fixture,
    client_fixture,
    fake_fixture,
    store_fixture,
    ws_fixture,
)


@pytest.fixture
def no_after_edit_diagnostics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``XDG_CONFIG_HOME`` for this test's processes: a user config of its own with the
    after-edit diagnostics off (``tests/e2e/cli.py`` ``NO_DIAGNOSTICS``), so a CLI run that
    edits a Python file starts no jedi-language-server (~0.6 s CPU and 1-3 s of its debounce
    per run). A module opts in with ``pytestmark = pytest.mark.usefixtures(...)``; a test that
    passes its own ``XDG_CONFIG_HOME`` keeps it. The ``client`` fixture's server gets this
    config too (``tests/e2e/lsp.py``): through the server's headless fallback, jedi's ~1 s
    after-edit wait was paid on every editing turn."""
    home = tmp_path / "no-diagnostics-config"
    user_config(home)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home
