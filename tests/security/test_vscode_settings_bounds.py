"""Issue 20 item 7, the server's half: a repository's cost caps of 9×10^18 (passed on by an
editor in a trusted workspace, or by one that does not tell workspace values from the
user's) are bad settings — reported, naming the field, and replaced by the default — not
budgets (server/lsp/settings.py)."""

from __future__ import annotations

import pytest

from server.lsp.settings import MAX_CONTEXT_TOKENS, MAX_STEPS, MAX_TOKEN_BUDGET, parse_settings

HUGE = 9 * 10**18


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        pytest.param({"tokenBudget": HUGE}, "tokenBudget", id="tokenBudget"),
        pytest.param({"maxSteps": HUGE}, "maxSteps", id="maxSteps"),
        pytest.param({"contextBudget": {"maxTokens": HUGE}}, "contextBudget.maxTokens", id="ctx"),
        pytest.param({"tokenBudget": MAX_TOKEN_BUDGET + 1}, "tokenBudget", id="just-past"),
    ],
)
def test_an_absurd_cost_cap_is_a_bad_setting_and_the_default_applies(
    raw: dict[str, object], field: str
) -> None:
    settings, problems = parse_settings({"harness": {"contextWire": "flat", **raw}})
    assert [p.field for p in problems] == [field]
    assert str(HUGE) not in str(problems[0]), "the value is never echoed"
    assert not problems[0].refuses_runs
    overrides = settings.contract_overrides()
    given = {
        "tokenBudget": overrides.token_budget,
        "maxSteps": overrides.max_steps,
        "contextBudget.maxTokens": overrides.context_budget.max_tokens,
    }
    assert given == dict.fromkeys(given), "unset: the contract's default applies"
    assert overrides.context_wire == "flat", "the rest of the settings still apply"


def test_the_bounds_themselves_are_accepted() -> None:
    raw = {
        "tokenBudget": MAX_TOKEN_BUDGET,
        "maxSteps": MAX_STEPS,
        "contextBudget": {"maxTokens": MAX_CONTEXT_TOKENS},
    }
    settings, problems = parse_settings(raw)
    assert problems == []
    assert (settings.token_budget, settings.max_steps) == (MAX_TOKEN_BUDGET, MAX_STEPS)
