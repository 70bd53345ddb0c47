"""The fronts' per-workspace back ends (server/semantic.py): one per folder, its servers
listed for ``harness.status`` once started, all shut down by ``close``."""

from __future__ import annotations

from pathlib import Path

from harness.semantic import Query
from server.semantic import SemanticPorts


async def test_ports_list_and_close_their_servers(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    ports = SemanticPorts(user_config=tmp_path / "absent.toml")
    port = ports.port(tmp_path)
    assert ports.port(tmp_path) is port  # reused per workspace
    assert ports.servers() == ()  # nothing started before a query
    answer = await port.answer(Query("symbols", "a.py", (tmp_path / "a.py").read_text()))
    assert [s.name for s in answer.symbols] == ["f"]
    (listed,) = ports.servers()
    assert listed.startswith("python: jedi-language-server (")
    await ports.close()
    assert ports.servers() == ()
