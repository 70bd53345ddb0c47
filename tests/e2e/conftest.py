"""The end-to-end fixtures, once for every test module here: ``client`` (a server
initialized on ``ws`` with ``fake`` as the model and ``store``), ``bare`` (a started server
the test initializes itself), ``ws``, ``fake`` and ``store``. They are defined in
``tests/e2e/lsp.py`` beside the client they drive; the benchmarks import them the same way
(``tests/bench/conftest.py``)."""

from __future__ import annotations

from tests.e2e.lsp import (  # noqa: F401 -- pytest fixtures, registered by name
    bare_fixture,
    client_fixture,
    fake_fixture,
    store_fixture,
    ws_fixture,
)
