"""The ``policy`` setting (§6.3: the ``editor`` layer), checked entry by entry: a bad rule,
default or ``exec`` value is reported and dropped, and every good entry still applies.

Dropping only the bad entry is also the safe choice: throwing the whole layer away for one
typo would silently drop the user's other ``deny`` rules. Each entry is checked with the
harness's own ``parse_layer`` (the same rules as ``.harness/policy.toml``); messages name
the entry, never its value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.errors import ConfigError
from harness.policy import parse_layer

_SOURCE = "editor settings (policy)"
_TABLES = ("defaults", "exec")  # tables whose entries are checked one by one

# (the setting's path, e.g. ``policy.rules.2``, the problem without the value)
Problem = tuple[str, str]


def clean_policy(policy: Mapping[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """The good entries of ``policy`` and one problem per entry dropped."""
    kept: dict[str, Any] = {}
    problems: list[Problem] = []
    for key, value in policy.items():
        where = f"policy.{key}"
        if key == "rules" and isinstance(value, list):
            kept["rules"] = _good_rules(value, problems)
        elif key in _TABLES and isinstance(value, Mapping):
            kept[key] = _good_entries(key, value, problems)
        elif (message := _problem({key: value})) is not None:
            problems.append((where, _without_loc(message, key)))
        else:
            kept[key] = value
    if (message := _problem(kept)) is not None:  # cannot happen: each part passed alone
        return {}, [*problems, ("policy", message)]
    return kept, problems


def _good_rules(rules: list[Any], problems: list[Problem]) -> list[Any]:
    good = []
    for i, rule in enumerate(rules):
        message = _problem({"rules": [rule]})
        if message is None:
            good.append(rule)
        else:
            problems.append((f"policy.rules.{i}", message.replace("rules.0.", "")))
    return good


def _good_entries(
    table: str, entries: Mapping[str, Any], problems: list[Problem]
) -> dict[str, Any]:
    good = {}
    for name, value in entries.items():
        message = _problem({table: {name: value}})
        if message is None:
            good[name] = value
        else:
            problems.append((f"policy.{table}.{name}", _without_loc(message, f"{table}.{name}")))
    return good


def _problem(data: Mapping[str, Any]) -> str | None:
    try:
        parse_layer(data, _SOURCE, name="editor")
    except ConfigError as exc:
        return str(exc).removeprefix(f"{_SOURCE}: ")
    return None


def _without_loc(message: str, loc: str) -> str:
    """``defaults.fly: Extra inputs …`` reported under ``policy.defaults.fly``: the text."""
    return message.removeprefix(f"{loc}: ")


__all__ = ["Problem", "clean_policy"]
