"""Command arguments: one JSON object, strict types, unknown fields refused; errors name the
field and never echo the value."""

from __future__ import annotations

from typing import Any

import pytest

from server.lsp.errors import InvalidParams
from server.lsp.params import (
    KeyParams,
    RunIdParams,
    RunParams,
    ScopeParams,
    TraceRunsParams,
    WriteParams,
    parse_params,
)


def test_no_argument_and_null_are_an_empty_object() -> None:
    assert parse_params(ScopeParams, ()) == ScopeParams()
    assert parse_params(ScopeParams, (None,)).scope == "workspace"
    assert parse_params(TraceRunsParams, ()).limit == 20


def test_camel_case_fields_and_defaults() -> None:
    params = parse_params(
        RunParams,
        ({"goal": "g", "maxSteps": 3, "contextBudget": {"share": 1}, "verify": ["make", "test"]},),
    )
    assert params.max_steps == 3 and params.token_budget is None
    assert params.context_budget is not None and params.context_budget.share == 1.0
    assert params.verify == ["make", "test"]
    write = parse_params(WriteParams, ({"key": "k", "value": "v"},))
    assert write.kind == "decision" and write.pinned is None and write.scope == "workspace"


@pytest.mark.parametrize(
    ("model", "arguments", "message"),
    [
        pytest.param(RunIdParams, ({},), "`runId` is required", id="missing"),
        pytest.param(
            RunParams,
            ({"goal": "g", "max_steps": 3},),
            "`max_steps` is not a parameter",
            id="snake",
        ),
        pytest.param(
            RunIdParams, ({"runId": "3"},), "`runId`: Input should be a valid integer", id="str"
        ),
        pytest.param(
            RunIdParams,
            ({"runId": 0},),
            "`runId`: Input should be greater than or equal to 1",
            id="0",
        ),
        pytest.param(
            KeyParams,
            ({"key": "k", "scope": "all"},),
            "`scope`: Input should be 'workspace' or 'global'",
            id="scope",
        ),
        pytest.param(
            ScopeParams, ({}, {}), "expected one object argument, got 2 arguments", id="two"
        ),
        pytest.param(
            ScopeParams,
            ("global",),
            "the argument must be a JSON object, not a string",
            id="str-arg",
        ),
        pytest.param(ScopeParams, (True,), "not a boolean", id="bool-arg"),
    ],
)
def test_bad_arguments_name_the_field(model: Any, arguments: tuple[Any, ...], message: str) -> None:
    with pytest.raises(InvalidParams) as raised:
        parse_params(model, arguments)
    assert message in raised.value.message


def test_errors_never_echo_values_and_stay_short() -> None:
    hostile = "x" * 10_000
    with pytest.raises(InvalidParams) as raised:
        parse_params(
            RunIdParams, ({"runId": hostile, hostile: 1, **{f"k{i}": i for i in range(50)}},)
        )
    message = raised.value.message
    assert hostile not in message
    assert len(message) < 800
    assert "more" in message


def test_the_expected_fields_are_listed() -> None:
    with pytest.raises(InvalidParams) as raised:
        parse_params(WriteParams, ({"key": "k", "value": "v", "colour": "red"},))
    assert "(expected scope?, workspaceFolder?, key, value, kind?, pinned?)" in raised.value.message
