"""``ContextBudget.low_water`` (SPEC §2): default 0.3, in (0, 1], errors name the field."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from harness.contract import ContextBudget


def test_the_defaults_include_low_water() -> None:
    assert ContextBudget() == ContextBudget(max_tokens=24_000, share=0.5, low_water=0.25)
    assert ContextBudget(low_water=1.0).low_water == 1.0


@pytest.mark.parametrize("value", [0.0, -0.1, 1.01])
def test_low_water_out_of_range_is_an_error_naming_the_field(value: float) -> None:
    with pytest.raises(ValidationError) as caught:
        ContextBudget(low_water=value)
    assert caught.value.errors()[0]["loc"] == ("low_water",)
    assert "low_water" in str(caught.value)
