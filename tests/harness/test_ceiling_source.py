"""``Ceiling`` is the only source of a run's caps (issue 31): the ceiling of a request, the
per-result cap, a read's body cap, the memory block's limit and the ceiling in chars are
derived in ``harness/context/ceiling.py`` (over the formulas of ``harness/contract.py``) and
nowhere else in ``harness`` or ``server`` — a check over the syntax tree — and
``Ceiling.of`` gives the figures §2 and §3 define."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harness.context.ceiling import Ceiling
from harness.contract import build_contract
from harness.tools.span import read_body_cap
from harness.types import PART_SEPARATOR

ROOT = Path(__file__).resolve().parents[2]
CEILING = "harness/context/ceiling.py"
# What derives a cap, and where it may be called: where it is defined, and the ceiling.
DERIVATIONS = {
    "effective_tokens": {"harness/contract.py", CEILING},
    "entry_cap_chars": {"harness/contract.py", CEILING},
    # read_file caps its own body from the limit its ToolContext was given (the entry cap)
    "read_body_cap": {"harness/tools/span.py", "harness/tools/files.py", CEILING},
}
TOKENS_TO_CHARS = {"harness/tokens.py", "harness/contract.py", CEILING}  # `x * CHARS_PER_TOKEN`


def _called(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)


def _is_chars_per_token(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "CHARS_PER_TOKEN") or (
        isinstance(node, ast.Attribute) and node.attr == "CHARS_PER_TOKEN"
    )


def derivations_elsewhere(root: Path) -> list[str]:
    """Every derivation of a cap outside the places allowed it, as ``path:line: what``."""
    found: list[str] = []
    for package in ("harness", "server"):
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and (name := _called(node)) in DERIVATIONS:
                    if rel not in DERIVATIONS[name]:
                        found.append(f"{rel}:{node.lineno}: {name}()")
                elif (
                    isinstance(node, ast.BinOp)
                    and isinstance(node.op, ast.Mult)
                    and (_is_chars_per_token(node.left) or _is_chars_per_token(node.right))
                    and rel not in TOKENS_TO_CHARS
                ):
                    found.append(f"{rel}:{node.lineno}: tokens * CHARS_PER_TOKEN")
    return found


def test_no_cap_is_derived_outside_the_ceiling() -> None:
    assert derivations_elsewhere(ROOT) == []


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            "from harness.contract import entry_cap_chars\ncap = entry_cap_chars(9)\n", id="entry"
        ),
        pytest.param(
            "import harness.contract as c\nx = c.effective_tokens(b, 1, 0)\n", id="effective"
        ),
        pytest.param(
            "from harness.tokens import CHARS_PER_TOKEN\nn = 5 * CHARS_PER_TOKEN\n", id="chars"
        ),
        pytest.param(
            "from harness.tools.span import read_body_cap\nread_body_cap(9, 'a')\n", id="read"
        ),
    ],
)
def test_the_check_finds_a_derivation_in_a_throwaway_module(tmp_path: Path, source: str) -> None:
    (tmp_path / "harness").mkdir()
    (tmp_path / "server").mkdir()
    (tmp_path / "harness" / "throwaway.py").write_text(source, encoding="utf-8")
    (tmp_path / "harness" / "context").mkdir()
    (tmp_path / "harness" / "context" / "ceiling.py").write_text(source, encoding="utf-8")
    found = derivations_elsewhere(tmp_path)
    assert len(found) == 1 and found[0].startswith("harness/throwaway.py:2: ")


@pytest.mark.parametrize(
    ("max_tokens", "share", "token_budget", "spent", "cap", "effective"),
    [
        pytest.param(20_000, 0.25, 200_000, 0, None, 20_000, id="max-tokens-binds"),
        pytest.param(50_000, 0.25, 100_000, 20_000, None, 20_000, id="a-share-of-the-unspent"),
        pytest.param(50_000, 0.25, 100_000, 99_000, None, 2_000, id="the-2000-floor"),
        pytest.param(1_500, 0.25, 100_000, 0, None, 1_500, id="a-max-below-the-floor-stays"),
        pytest.param(20_000, 0.25, 200_000, 0, 7_000, 7_000, id="an-overflow-cap-binds"),
        pytest.param(5_000, 0.25, 200_000, 0, 7_000, 5_000, id="a-cap-above-is-no-change"),
    ],
)
def test_ceiling_of_a_contract(
    tmp_path: Path,
    max_tokens: int,
    share: float,
    token_budget: int,
    spent: int,
    cap: int | None,
    effective: int,
) -> None:
    contract = build_contract("g", tmp_path)
    budget = contract.context_budget.model_copy(update={"max_tokens": max_tokens, "share": share})
    contract = contract.model_copy(update={"context_budget": budget, "token_budget": token_budget})
    assert Ceiling.of(contract, spent, cap=cap) == Ceiling(effective)


def test_the_caps_of_one_ceiling() -> None:
    ceiling = Ceiling(8_000)
    assert ceiling.chars == 32_000
    assert ceiling.entry_cap == 4_000  # an eighth of the ceiling
    assert ceiling.memory_chars == 8_000  # a quarter
    assert ceiling.memory_fits("m" * 8_000) and not ceiling.memory_fits("m" * 8_001)
    assert ceiling.read_cap("a.py") == read_body_cap(4_000, "a.py")  # read_file's own figure
    assert ceiling.read_cap("a.py", ("note",)) == ceiling.read_cap("a.py") - len("note") - 1
    assert ceiling.budget("m" * 10, "t" * 5) == 32_000 - 15 - 2 * len(PART_SEPARATOR)
    assert Ceiling(100).entry_cap > 100 * 4 // 8, "the per-result cap has a floor"
