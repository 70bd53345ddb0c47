"""The task contract and the budget arithmetic of §2."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from harness.contract import (
    MEMORY_MAX_CHARS,
    MEMORY_MAX_ENTRIES,
    MEMORY_MAX_ENTRY_CHARS,
    ContextBudget,
    ContextBudgetOverrides,
    ContractOverrides,
    MemoryLimits,
    TaskContract,
    Verification,
    effective_tokens,
    entry_cap_chars,
)
from harness.tokens import estimate_tokens


def test_defaults_are_exactly_the_spec() -> None:
    assert ContextBudget() == ContextBudget(max_tokens=24_000, share=0.5, low_water=0.25)
    assert MemoryLimits() == MemoryLimits(max_entries=64, max_chars=16_000, max_entry_chars=2_000)
    assert (MEMORY_MAX_ENTRIES, MEMORY_MAX_CHARS, MEMORY_MAX_ENTRY_CHARS) == (64, 16_000, 2_000)
    c = TaskContract.workspace("Refactor the parser.", "/tmp")
    assert (c.token_budget, c.max_steps) == (2_000_000, 100)
    assert c.verification == Verification.none() and not c.verification.enabled


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        pytest.param({"max_tokens": 0}, "max_tokens", id="max_tokens-zero"),
        pytest.param({"max_tokens": -5}, "max_tokens", id="max_tokens-negative"),
        pytest.param({"share": 0.0}, "share", id="share-zero"),
        pytest.param({"share": 1.5}, "share", id="share-over-one"),
        pytest.param({"share": -0.1}, "share", id="share-negative"),
    ],
)
def test_invalid_budget_names_the_field(kwargs: dict[str, float], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        ContextBudget(**kwargs)  # type: ignore[arg-type]
    assert field in str(info.value)


def test_contract_is_immutable_and_builders_return_new_contracts() -> None:
    c = TaskContract.workspace("goal", "/tmp")
    d = c.with_token_budget(10).with_max_steps(3).with_context_budget(ContextBudget(max_tokens=500))
    assert (c.token_budget, c.max_steps) == (2_000_000, 100)
    assert (d.token_budget, d.max_steps, d.context_budget.max_tokens) == (10, 3, 500)
    with pytest.raises(ValidationError):
        c.goal = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        c.with_max_steps(0)


def test_verification_command() -> None:
    v = Verification.command(["make", "test"], expect_exit=0)
    assert v.enabled and v.argv == ("make", "test")
    with pytest.raises(ValidationError):
        Verification.command([])


@pytest.mark.parametrize(
    ("max_tokens", "share", "budget", "spent", "expected"),
    [
        pytest.param(24_000, 0.5, 400_000, 0, 24_000, id="capped-by-max"),
        pytest.param(24_000, 0.5, 400_000, 370_000, 15_000, id="share-of-unspent"),
        pytest.param(24_000, 0.5, 400_000, 399_000, 2_000, id="floor-2000"),
        pytest.param(24_000, 0.5, 400_000, 500_000, 2_000, id="overspent-floor"),
        pytest.param(1_000, 0.5, 400_000, 0, 1_000, id="explicit-below-floor-not-raised"),
        pytest.param(24_000, 1.0, 10_001, 0, 10_001, id="share-one"),
        pytest.param(24_000, 0.3, 100_001, 0, 24_000, id="floor-of-share"),
        pytest.param(50_000, 0.3, 100_001, 0, 30_000, id="floor-rounds-down"),
    ],
)
def test_effective(max_tokens: int, share: float, budget: int, spent: int, expected: int) -> None:
    b = ContextBudget(max_tokens=max_tokens, share=share)
    assert effective_tokens(b, budget, spent) == expected


@pytest.mark.parametrize(
    ("effective", "cap"),
    [(24_000, 12_000), (4_000, 2_000), (2_000, 2_000), (100, 2_000), (10_000, 5_000)],
)
def test_entry_cap(effective: int, cap: int) -> None:
    assert entry_cap_chars(effective) == cap


@pytest.mark.parametrize(("chars", "tokens"), [(0, 0), (1, 1), (4, 1), (5, 2), (53_220, 13_305)])
def test_token_estimate_is_ceil_of_a_quarter(chars: int, tokens: int) -> None:
    assert estimate_tokens(chars) == tokens


def test_overrides_apply_what_is_given_and_none_is_not_given() -> None:
    base = TaskContract.workspace("x", "/tmp")
    assert base.with_overrides(ContractOverrides()) == base
    settings = ContractOverrides(
        token_budget=9_000,
        max_steps=9,
        context_budget=ContextBudgetOverrides(max_tokens=5_000, share=0.2),
    )
    arguments = ContractOverrides(
        max_steps=2,
        context_budget=ContextBudgetOverrides(share=0.9),
        verification=Verification.command(["make", "test"]),
    )
    c = base.with_overrides(settings).with_overrides(arguments)
    assert (c.token_budget, c.max_steps) == (9_000, 2), "the last given value wins"
    assert c.context_budget == ContextBudget(max_tokens=5_000, share=0.9), "a partial budget"
    assert c.verification.argv == ("make", "test")
    assert base.with_overrides(ContractOverrides(max_steps=3)).context_budget == ContextBudget()


def test_overrides_are_validated_like_the_contract() -> None:
    base = TaskContract.workspace("x", "/tmp")
    with pytest.raises(ValidationError, match="share"):
        base.with_overrides(ContractOverrides(context_budget=ContextBudgetOverrides(share=2.0)))
    with pytest.raises(ValidationError, match="max_steps"):
        base.with_overrides(ContractOverrides(max_steps=0))


def test_a_partial_budget_has_exactly_the_fields_of_the_budget() -> None:
    # When ContextBudget gains a field (low_water), the overrides must gain it too.
    assert set(ContextBudgetOverrides.model_fields) == set(ContextBudget.model_fields)
    assert set(ContractOverrides.model_fields) == set(TaskContract.model_fields) - {"goal", "root"}
