"""The names of the server's surface agree across the three languages. The TypeScript and
Lua declarations are generated from ``server.protocol`` (``make protocol``; the lint check
``python -m server.protocol.gen --check`` keeps them current), so these tests check what is
not generated: the generated TypeScript is what the declaration says, the harness's own
constants are the declaration's, and every command or method name the Neovim plugin writes
is one the server has (§7, §11)."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from harness.run.observers import VERIFY_CALL
from harness.types import Outcome
from server import protocol
from server.lsp.commands.table import COMMAND_MODULES
from server.lsp.inline_approval import APPROVE, DECISIONS
from server.lsp.observer import BUDGET, DID_WRITE, RUN_EVENT, RUN_FINISHED
from server.lsp.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
NOTIFICATIONS = {BUDGET, RUN_FINISHED, DID_WRITE, RUN_EVENT}
REQUESTS = {m.method for m in protocol.REQUESTS}  # server -> client: approve, semantic
PROTOCOL_TS = ROOT / "editors" / "vscode" / "src" / "protocolDecl.ts"
LUA = ROOT / "editors" / "nvim"
# Names the clients already use whose server side is on another branch -> that branch.
# Removed when it lands (the last test fails until it is).
PENDING: dict[str, str] = {}
SERVED = set(COMMAND_MODULES) | set(PENDING)


def _ts_block(text: str, name: str) -> str:
    start = text.index(f"export const {name} = {{")
    return text[start : text.index("}", start)]


def test_the_vscode_command_ids_are_exactly_the_servers() -> None:
    text = PROTOCOL_TS.read_text(encoding="utf-8")
    ids = re.findall(r':\s*"(harness\.[A-Za-z.]+)"', _ts_block(text, "Cmd"))
    assert len(ids) == len(set(ids))
    assert set(ids) | set(PENDING) == SERVED


def test_the_vscode_notification_names_are_ones_the_server_sends() -> None:
    text = PROTOCOL_TS.read_text(encoding="utf-8")
    declared = set(re.findall(r'export const [A-Z_]+ = "(harness/[A-Za-z]+)"', text))
    assert RUN_EVENT in declared
    assert APPROVE in declared  # the panel answers approvals inline (issue 23)
    assert declared <= NOTIFICATIONS | REQUESTS


def test_the_vscode_verification_call_id_is_the_servers() -> None:
    """The panel's end line finds a run's check by this ``callId`` (issue 23, verify per run)."""
    text = PROTOCOL_TS.read_text(encoding="utf-8")
    assert re.findall(r'export const VERIFY_CALL = "([^"]+)"', text) == [VERIFY_CALL]
    assert protocol.VERIFY_CALL == VERIFY_CALL


def test_the_declared_words_cover_the_harness_values() -> None:
    """Every outcome and approval the harness has is declared with its words, and nothing
    else is."""
    assert {w.value for w in protocol.OUTCOMES} == {o.value for o in Outcome}
    assert {w.value for w in protocol.DECISIONS} == set(DECISIONS)


def test_the_declared_settings_are_the_settings_model() -> None:
    def keys(model: type[BaseModel], prefix: str = "") -> set[str]:
        found: set[str] = set()
        for name, field in model.model_fields.items():
            key = prefix + to_camel(name)
            sub = field.annotation
            if isinstance(sub, type) and issubclass(sub, BaseModel):
                found |= keys(sub, key + ".")
            else:
                found.add(key)
        return found

    assert {s.key for s in protocol.SETTINGS} == keys(Settings)


def test_every_name_the_neovim_plugin_writes_is_the_servers() -> None:
    commands: set[str] = set()
    methods: set[str] = set()
    for path in LUA.rglob("*.lua"):
        text = path.read_text(encoding="utf-8")
        commands |= set(re.findall(r"rpc\.request\(\s*client,\s*'(harness\.[A-Za-z.]+)'", text))
        commands |= set(re.findall(r"^M\.[A-Z_]+ = '(harness\.[A-Za-z.]+)'", text, re.M))
        methods |= set(re.findall(r"'(harness/[A-Za-z]+)'", text))
    assert {"harness.run", "harness.run.events"} <= commands
    assert commands <= SERVED, commands - SERVED
    assert RUN_EVENT in methods
    assert methods <= NOTIFICATIONS | REQUESTS, methods - NOTIFICATIONS - REQUESTS


def test_a_pending_name_is_not_served_yet() -> None:
    """Once its branch lands, a name leaves ``PENDING``: the check is whole again."""
    assert not set(PENDING) & set(COMMAND_MODULES), "remove it from PENDING"


def test_every_outcome_has_its_words_in_vscode_and_neovim() -> None:
    """A run that ends ``store_error`` (a full disk, issue 30) is said in words like every
    other outcome, not as the fallback "ended: store error"."""
    from harness.types import Outcome

    ts = PROTOCOL_TS.read_text(encoding="utf-8")  # format.ts and notify.lua use these
    start = ts.index("export const OUTCOME_WORDS")
    ts_words = set(re.findall(r"^\s+([a-z_]+): \"", ts[start : ts.index("}", start)], re.M))
    lua = (LUA / "lua" / "harness" / "protocol.lua").read_text(encoding="utf-8")
    block = lua[lua.index("M.outcomes = {") : lua.index("}", lua.index("M.outcomes = {"))]
    lua_words = set(re.findall(r"^\s+([a-z_]+) = ", block, re.M))
    assert {o.value for o in Outcome} - ts_words == set()
    assert {o.value for o in Outcome} - lua_words == set()
    fmt = (ROOT / "editors" / "vscode" / "src" / "format.ts").read_text(encoding="utf-8")
    assert "OUTCOME_WORDS" in fmt, "VS Code words outcomes from the declaration"
    assert "protocol.outcomes" in (LUA / "lua" / "harness" / "notify.lua").read_text()
