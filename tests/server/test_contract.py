"""A run's contract: the command's arguments win over the settings, the settings over the
harness defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.errors import InvalidParams
from server.params import RunParams
from server.run_manager import contract_for
from server.settings import parse_settings


def params(**fields: object) -> RunParams:
    return RunParams.model_validate({"goal": "do it", **fields})


def test_defaults(tmp_path: Path) -> None:
    settings, _ = parse_settings(None)
    contract = contract_for(params(), settings, tmp_path)
    assert contract.token_budget == 2_000_000 and contract.max_steps == 100
    assert contract.context_budget.max_tokens == 24_000 and contract.context_budget.share == 0.5
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


def test_a_blank_goal_is_refused(tmp_path: Path) -> None:
    settings, _ = parse_settings(None)
    with pytest.raises(InvalidParams, match="`goal` is empty"):
        contract_for(params(goal=" \n "), settings, tmp_path)
