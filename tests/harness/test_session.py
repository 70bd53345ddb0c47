"""Starting a run (harness.run.session): the contract from layers of overrides, configuration
errors before anything exists, the key registered for redaction, the provider closed
whatever happens, and both assemblies behind one protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness import redact
from harness.contract import ContextBudgetOverrides, ContractOverrides, Verification
from harness.errors import ConfigError
from harness.policy import Policy, YesApprover
from harness.provider import ProviderConfig
from harness.provider.scripted import ScriptedProvider
from harness.run.session import Backend, RunRequest, Session, build_contract, open_session
from harness.store import Store
from harness.types import AttemptSink, Outcome, Reply, Request
from tests.support.workspace import make_workspace


class Closing(ScriptedProvider):
    """The scripted model, counting how often it was closed."""

    def __init__(self, turns: list[dict[str, Any]]) -> None:
        super().__init__(turns)
        self.closed = 0

    async def aclose(self) -> None:
        self.closed += 1


class Exploding(Closing):
    async def complete(self, request: Request, on_attempt: AttemptSink) -> Reply:
        raise RuntimeError("a bug in the provider")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path, {"a.py": "x = 1\n"})


def test_the_contract_is_built_from_layers_the_last_given_value_winning(ws: Path) -> None:
    settings = ContractOverrides(
        token_budget=9_000, context_budget=ContextBudgetOverrides(max_tokens=5_000)
    )
    arguments = ContractOverrides(
        max_steps=3,
        context_budget=ContextBudgetOverrides(share=0.25),
        verification=Verification.command(["make", "test"]),
    )
    contract = build_contract("  do it  ", ws / ".", settings, arguments)
    assert contract.root == ws.resolve()
    assert (contract.token_budget, contract.max_steps) == (9_000, 3)
    assert (contract.context_budget.max_tokens, contract.context_budget.share) == (5_000, 0.25)
    assert contract.verification.argv == ("make", "test")


@pytest.mark.parametrize(
    ("goal", "where", "layer", "message"),
    [
        pytest.param(" \n", ".", ContractOverrides(), "the goal is empty", id="blank-goal"),
        pytest.param("x", "missing", ContractOverrides(), "is not a directory", id="no-dir"),
        pytest.param(
            "x",
            ".",
            ContractOverrides(context_budget=ContextBudgetOverrides(share=3.0)),
            "`context_budget.share`",
            id="bad-share",
        ),
    ],
)
def test_a_bad_contract_is_a_config_error(
    ws: Path, goal: str, where: str, layer: ContractOverrides, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        build_contract(goal, ws / where, layer)


async def test_a_configuration_error_leaves_no_run_and_opens_no_store(
    ws: Path, tmp_path: Path
) -> None:
    opened: list[Store] = []

    def store() -> Store:
        opened.append(Store(tmp_path / "s.db"))
        return opened[-1]

    (ws / ".harness").mkdir()
    (ws / ".harness" / "policy.toml").write_text("[defaults]\nexec = 'sometimes'\n")
    with pytest.raises(ConfigError, match=r"policy\.toml"):
        await open_session(
            build_contract("x", ws),
            Backend(store=store, provider=ScriptedProvider([])),
            RunRequest(approver=YesApprover(), editor_policy=None),
        )
    (ws / ".harness" / "policy.toml").unlink()
    no_key = ProviderConfig(name="openai")  # the hosted default needs a key
    with pytest.raises(ConfigError, match="no API key"):
        await open_session(
            build_contract("x", ws),
            Backend(store=store, provider=no_key, environ={}),
            RunRequest(approver=YesApprover(), policy=Policy.load(ws, user_config=None)),
        )
    assert opened == [], "the store is opened only once the configuration is good"


async def test_the_resolved_key_is_registered_for_redaction(ws: Path, tmp_path: Path) -> None:
    key = "sk-session-registered-7d1e0c"
    config = ProviderConfig(name="openai", base_url="http://127.0.0.1:9/v1")
    session = await open_session(
        build_contract("x", ws),
        Backend(store=Store(tmp_path / "s.db"), provider=config, environ={"HARNESS_API_KEY": key}),
        RunRequest(approver=YesApprover(), policy=Policy.load(ws, user_config=None)),
    )
    await session.aclose()
    assert key in redact.registered()
    assert redact.redact(f"the key is {key}") == "the key is [redacted]"


async def test_the_provider_is_closed_once_whatever_happens(ws: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    policy = Policy.load(ws, user_config=None)
    for provider, outcome in (
        (Closing([{"content": "done"}]), Outcome.FINISHED),
        (Exploding([]), Outcome.CANCELLED),  # an internal error, recorded
    ):
        session = await open_session(
            build_contract("x", ws),
            Backend(store=store, provider=provider),
            RunRequest(approver=YesApprover(), policy=policy),
        )
        result = await session.execute()
        await session.aclose()
        assert result.end.outcome is outcome
        assert provider.closed == 1
        row = store.get_run(session.run_id)
        assert row is not None and row.outcome == outcome.value


async def test_both_assemblies_run_the_same_loop(ws: Path, tmp_path: Path) -> None:
    (ws / "a.py").write_text("x = 1\n" * 300)
    read = {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.py"}}]}
    turns: list[dict[str, Any]] = [read, read, {"content": "done"}]
    sizes = {}
    for assembly in ("bounded", "naive"):
        provider = ScriptedProvider(turns)
        session = await open_session(
            build_contract("x", ws),
            Backend(store=Store(tmp_path / f"{assembly}.db"), provider=provider, assembly=assembly),
            RunRequest(approver=YesApprover(), policy=Policy.load(ws, user_config=None)),
        )
        assert (await session.execute()).end.outcome is Outcome.FINISHED
        sizes[assembly] = provider.requests[-1].chars
        assembled = session.run.store.context_events(session.run_id, "assembled")
        assert [e["detail"]["naive"] for e in assembled] == [assembly == "naive"] * 3
    assert sizes["naive"] - sizes["bounded"] > 1_500, "only the bounded one stubs the re-read"


async def yes_session(
    goal: str,
    ws: Path,
    store: Store,
    turns: list[dict[str, Any]],
    user_config: Path,
    **options: Any,
) -> Session:
    """A session on the scripted model, every ask approved, under the policy of ``ws`` and of
    the user's ``user_config``."""
    return await open_session(
        build_contract(goal, ws),
        Backend(store, ScriptedProvider(turns)),
        RunRequest(YesApprover(), policy=Policy.load(ws, user_config=user_config), **options),
    )


class Warnings:
    """An observer that keeps what the user was told."""

    def __init__(self) -> None:
        from harness.report import RunObserver

        self.told: list[str] = []
        self.observer = RunObserver()
        self.observer.user_warning = lambda info, message: self.told.append(message)  # type: ignore[method-assign]


async def test_an_untrusted_folders_ignored_rules_are_told_once_and_writes_are_announced(
    ws: Path, tmp_path: Path
) -> None:
    (ws / ".harness").mkdir()
    (ws / ".harness" / "policy.toml").write_text(
        '[defaults]\nexec = "allow"\n\n[[rules]]\nact = "exec"\neffect = "allow"\nglob = "*"\n'
    )
    store = Store(tmp_path / "h.db")
    seen = Warnings()
    turns = [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "b.py", "content": "y"}}]},
        {
            "tool_calls": [
                {"name": "edit_file", "arguments": {"path": "a.py", "old": "1", "new": "2"}}
            ]
        },
    ]
    session = await yes_session(
        "edit", ws, store, turns, tmp_path / "none.toml", observer=seen.observer
    )
    result = await session.execute()
    assert result.end.outcome is Outcome.FINISHED
    ignored = [m for m in seen.told if "policy.toml" in m]
    assert len(ignored) == 1, seen.told  # once per run, not per call
    assert "not trusted" in ignored[0] or "untrusted" in ignored[0]
    # Every write was announced (an intent) before it was made, and confirmed by its step.
    edits = store.run_edits(result.run_id)
    assert [(e.path, e.committed) for e in edits] == [("b.py", True), ("a.py", True)]


async def test_the_policys_exec_table_reaches_the_commands(ws: Path, tmp_path: Path) -> None:
    from harness.sandbox import sandbox_available

    if not sandbox_available(network=False):
        pytest.skip("bubblewrap cannot run here (tools/system-deps.sh installs it on CI)")
    (tmp_path / "user.toml").write_text("[exec]\nnetwork = false\n")
    store = Store(tmp_path / "h.db")
    argv = ["sh", "-c", "cat /proc/net/dev"]
    turns = [{"tool_calls": [{"name": "exec", "arguments": {"argv": argv}}]}]
    session = await yes_session("look", ws, store, turns, tmp_path / "user.toml")
    result = await session.execute()
    detail = store.step_detail(result.run_id, 1)
    assert detail is not None
    assert "lo:" in detail.result
    interfaces = [ln.split(":")[0].strip() for ln in detail.result.splitlines() if ":" in ln]
    assert not [i for i in interfaces if i.startswith(("eth", "en", "veth", "wl"))], detail.result
