"""The conversation buffer's latency in real headless Neovim against the real server
(issue 37): from <CR> on the prompt line to the user's turn drawn, and from the model's
answer leaving the (fake, local) model server to its first word drawn. ``TURNS`` follow-ups
in one conversation; p50 and p95. Both clocks are CLOCK_MONOTONIC (libuv's hrtime in
Neovim, time.monotonic_ns here), so the two processes' times compare."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from tests.conftest import MakeFakeLLM
from tests.e2e.nvim.session import make_workspace, needs_nvim, session, settings

from .conftest import record

pytestmark = needs_nvim

TURNS = 20

HOOKS = """
_G.bench = { enter = {}, user = {}, word = {} }
local cb = require('harness.convbuf')
local send, render = cb.send, cb.render
cb.send = function() table.insert(_G.bench.enter, vim.uv.hrtime()) return send() end
cb.render = function()
  render()
  local lines = vim.api.nvim_buf_get_lines(cb.buffer(), 0, -1, false)
  local n = #_G.bench.enter
  local function seen(text)
    for _, l in ipairs(lines) do
      if l:find(text, 1, true) then return true end
    end
  end
  if n > #_G.bench.user and seen('▶ you: turn ' .. n) then
    table.insert(_G.bench.user, vim.uv.hrtime())
  end
  if n > #_G.bench.word and seen('Answer' .. n) then
    table.insert(_G.bench.word, vim.uv.hrtime())
  end
end
"""


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def test_enter_to_turn_and_first_byte_to_first_word(tmp_path: Path, fake_llm: MakeFakeLLM) -> None:
    ws = make_workspace(tmp_path)
    sent: list[int] = []

    def answer(n: int) -> Any:
        def reply(body: dict[str, Any]) -> dict[str, Any]:
            sent.append(time.monotonic_ns())
            return {"content": f"Answer{n} is short."}

        return reply

    fake = fake_llm([answer(n) for n in range(1, TURNS + 1)])
    with session(tmp_path, ws, {"settings": settings(fake, tmp_path / "store.db")}) as nvim:
        nvim.wait_attached(nvim.edit(ws / "calc.py"))
        nvim.cmd("Harness")
        nvim.lua(HOOKS)
        for n in range(1, TURNS + 1):
            nvim.type(f"iturn {n}<Esc><CR>")
            nvim.wait(f"#_G.bench.word == {n}", what=f"turn {n}'s answer drawn")
            nvim.wait_message(f"run {n} finished")
        bench = nvim.lua("return _G.bench")
    to_turn = [(u - e) / 1e6 for e, u in zip(bench["enter"], bench["user"], strict=True)]
    to_word = [(w - s) / 1e6 for s, w in zip(sent, bench["word"], strict=True)]
    for name, values in (("Enter → turn drawn", to_turn), ("first byte → word", to_word)):
        record(
            "nvim conversation",
            f"{name}: p50 {statistics.median(values):.1f} ms, p95 {p(values, 0.95):.1f} ms "
            f"({len(values)} turns)",
        )
    assert all(v >= 0 for v in to_turn + to_word)
    assert p(to_turn, 0.95) < 2000 and p(to_word, 0.95) < 2000
