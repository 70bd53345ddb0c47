"""A run's contract: the command's arguments win over the settings, the settings over the
harness defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.contract import ContextBudget, TaskContract
from server.lsp.errors import InvalidParams
from server.lsp.params import RunParams
from server.lsp.run_manager import contract_for
from server.lsp.settings import parse_settings


def params(**fields: object) -> RunParams:
    return RunParams.model_validate({"goal": "do it", **fields})


def test_defaults(tmp_path: Path) -> None:
    settings, _ = parse_settings(None)
    contract = contract_for(params(), settings, tmp_path)
    defaults = TaskContract.workspace("x", tmp_path)
    assert contract.token_budget == defaults.token_budget == 2_000_000
    assert contract.max_steps == defaults.max_steps == 100
    assert contract.context_budget == ContextBudget()
    assert contract.context_wire == "transcript"
    assert not contract.verification.enabled
    assert contract.goal == "do it"


def test_settings_then_arguments(tmp_path: Path) -> None:
    settings, _ = parse_settings(
        {"tokenBudget": 9000, "maxSteps": 9, "contextBudget": {"maxTokens": 5000, "share": 0.2}}
    )
    contract = contract_for(params(), settings, tmp_path)
    assert (contract.token_budget, contract.max_steps) == (9000, 9)
    assert contract.context_budget.max_tokens == 5000 and contract.context_budget.share == 0.2
    contract = contract_for(
        params(tokenBudget=100, maxSteps=2, contextBudget={"share": 0.9}, verify=["make", "test"]),
        settings,
        tmp_path,
    )
    assert (contract.token_budget, contract.max_steps) == (100, 2)
    assert contract.context_budget.max_tokens == 5000 and contract.context_budget.share == 0.9
    assert contract.verification.argv == ("make", "test")


def test_low_water_and_the_wire_form_come_from_the_settings(tmp_path: Path) -> None:
    settings, problems = parse_settings({"contextBudget": {"lowWater": 0.3}, "contextWire": "flat"})
    assert problems == []
    contract = contract_for(params(), settings, tmp_path)
    assert contract.context_budget.low_water == 0.3
    assert contract.context_budget.share == ContextBudget().share
    assert contract.context_wire == "flat"
    contract = contract_for(params(contextBudget={"lowWater": 0.9}), settings, tmp_path)
    assert contract.context_budget.low_water == 0.9


def test_a_bad_destination_refuses_the_run_naming_the_setting(tmp_path: Path) -> None:
    settings, _ = parse_settings({"provider": {"name": "ollama", "baseUrl": "htp:/127.0.0.1"}})
    with pytest.raises(InvalidParams) as raised:
        contract_for(params(), settings, tmp_path)
    message = raised.value.message
    assert "`provider.baseUrl`" in message and "http:// or https://" in message
    assert "htp:/127.0.0.1" not in message, "the value is never echoed"


def test_a_blank_goal_is_refused(tmp_path: Path) -> None:
    settings, _ = parse_settings(None)
    with pytest.raises(InvalidParams, match="`goal` is empty"):
        contract_for(params(goal=" \n "), settings, tmp_path)
