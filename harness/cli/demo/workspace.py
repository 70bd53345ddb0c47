"""A small generated Python project for the demo: four modules of about 7 KB each plus
tests, all valid Python so the scripted session can run the tests for real."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

MODULES = ("lexer", "parser", "ast", "evaluator")
SECTIONS = 22  # "# section N" markers per module: unique anchors for scripted edits


def _module(name: str) -> str:
    lines = [
        f'"""calc.{name}: part of a tiny arithmetic interpreter (generated for the demo)."""',
        "",
        "from __future__ import annotations",
        "",
    ]
    if name == "parser":
        lines += [
            "",
            "def parse_expr(text: str) -> list[str]:",
            '    """Split an expression into tokens; the entry point the others call."""',
            "    return [t for t in text.replace('(', ' ( ').replace(')', ' ) ').split() if t]",
            "",
        ]
    for i in range(SECTIONS):
        lines += [
            "",
            f"# section {i}",
            f"def {name}_helper_{i}(values: list[int]) -> int:",
            f'    """Combine values the {name} way, variant {i}.',
            "",
            "    The arithmetic is deliberately plain: the demo measures context, not code.",
            '    """',
            "    total = 0",
            "    for index, value in enumerate(values):",
            f"        total += (value * {i + 1}) - index",
            "    return total",
            "",
        ]
    return "\n".join(lines) + "\n"


def unittest_head(doc: str, package: str, modules: Iterable[str], case: str) -> list[str]:
    """The first lines of a generated project's ``tests/test_<package>.py``: a docstring,
    ``src/`` on the path, the modules imported, and ``class <case>(unittest.TestCase):``.
    Shared with the benchmarks' generated projects."""
    return [
        f'"""{doc}"""',
        "",
        "import sys",
        "import unittest",
        "from pathlib import Path",
        "",
        "sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'src'))",
        "",
        f"from {package} import {', '.join(modules)}  # noqa: E402",
        "",
        "",
        f"class {case}(unittest.TestCase):",
    ]


def _tests() -> str:
    doc = "Tests for calc (run with python -m unittest -v)."
    body = [
        *unittest_head(doc, "calc", ("ast", "evaluator", "lexer", "parser"), "CalcTest"),
        "    def test_parse_expr(self) -> None:",
        "        self.assertEqual(parser.parse_expr('(1 + 2)'), ['(', '1', '+', '2', ')'])",
        "",
    ]
    for name in MODULES:
        for i in range(0, SECTIONS, 2):
            body += [
                f"    def test_{name}_{i}(self) -> None:",
                f"        self.assertEqual({name}.{name}_helper_{i}([1, 2]), "
                f"{(1 * (i + 1)) + (2 * (i + 1) - 1)})",
                "",
            ]
    return "\n".join(body) + "\n"


def create(root: Path) -> Path:
    """Write the project under ``root`` (created if missing); returns ``root``."""
    pkg = root / "src" / "calc"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text('"""calc: a tiny arithmetic interpreter."""\n')
    for name in MODULES:
        (pkg / f"{name}.py").write_text(_module(name))
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "test_calc.py").write_text(_tests())
    (root / "README.md").write_text(
        "# calc\n\nA tiny arithmetic interpreter. `parse_expr` is the entry point.\n\n"
        "Run the tests with `python3 -m unittest discover -s tests -v` from the project root.\n"
    )
    (root / ".gitignore").write_text("__pycache__/\n*.pyc\n")
    return root
