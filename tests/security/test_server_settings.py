"""A key pasted into the ``provider.apiKeyEnv`` setting never leaves the server (§6.7, issue
9 seen 8: "a key pasted into `apiKeyEnv` is echoed in the error and logs"). Attacked the way
it happens: the key goes in through every way settings arrive (initializationOptions, a
didChangeConfiguration push, a workspace/configuration pull), with the most verbose logging
on; then every byte the server wrote to the client, its stderr and the store's files are
searched for the key and for a prefix of it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.e2e.lsp import server_env
from tests.support.fake_llm import FakeLLM
from tests.support.lsp_wire import WireServer

KEY = "sk-proj-Pasted4IntoTheWrongBox-5e9d1c77ab30"


def options(fake: FakeLLM, store: Path) -> dict[str, object]:
    return {
        "provider": {"name": "openai", "baseUrl": fake.url, "model": "m", "apiKeyEnv": KEY},
        "storePath": str(store),
    }


async def test_a_key_pasted_into_api_key_env_is_never_echoed(
    tmp_path: Path, fake_llm: Callable[..., FakeLLM]
) -> None:
    fake = fake_llm([])
    store = tmp_path / "store" / "harness.db"
    async with WireServer(server_env(HARNESS_LOG_LEVEL="DEBUG")) as server:
        server.configuration = {"harness": options(fake, store)}
        await server.initialize([tmp_path], options(fake, store), pull_settings=True)
        await server.wait_for(server.shown)
        server.notify("workspace/didChangeConfiguration", {"settings": options(fake, store)})
        server.notify("workspace/didChangeConfiguration", {"settings": None})  # a pull
        await server.wait_for(lambda: len(server.shown()) >= 3)
        run_id = (await server.command("harness.run", {"goal": "say done"}))["runId"]
        finished = await server.wait_finished(run_id)
        assert finished["outcome"] == "finished", "the rest of the settings still apply"
        status = await server.command("harness.status")
        assert status["settings"]["provider"]["apiKeyEnv"] is None
        shown = server.shown()

    assert all("invalid setting `provider.apiKeyEnv`" in m for m in shown), shown
    assert "not the key itself" in shown[0]
    leaks = {
        "the client": bytes(server.raw),
        "stderr": bytes(server.stderr),
        **{p.name: p.read_bytes() for p in store.parent.iterdir() if p.is_file()},
    }
    assert b"Language server initialized" in leaks["stderr"] or b"DEBUG" in leaks["stderr"]
    for where, data in leaks.items():
        for needle in (KEY, KEY[:16], KEY[-16:]):
            assert needle.encode() not in data, f"{needle!r} reached {where}"
