"""``tools/check_size.py`` on synthetic trees: files over 400 lines and functions over 60
(decorators included) are errors; a pending entry is noted, and one that no longer applies
is an error."""

from __future__ import annotations

from pathlib import Path

from tests.tools.test_check_imports import load

check = load("check_size")


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def function(name: str, body_lines: int, decorated: bool = False) -> str:
    head = "@staticmethod\n" if decorated else ""
    return head + f"def {name}():\n" + "    x = 1\n" * body_lines


def test_long_files_and_functions_are_errors(tmp_path: Path) -> None:
    (tmp_path / "server").mkdir()
    write(tmp_path, "harness/ok.py", function("fits", 59))  # 60 lines with its def
    write(tmp_path, "harness/long.py", "x = 1\n" * 401)
    write(tmp_path, "harness/fn.py", function("too_long", 60))
    write(tmp_path, "harness/deco.py", function("decorated", 59, decorated=True))
    errors, notes = check.problems(tmp_path, pending={})
    assert sorted(e.split(":")[0] for e in errors) == [
        "harness/deco.py",
        "harness/fn.py",
        "harness/long.py",
    ]
    assert any("too_long" in e and "61 lines" in e for e in errors)
    assert notes == []


def test_pending_entries_are_noted_and_must_still_apply(tmp_path: Path) -> None:
    (tmp_path / "server").mkdir()
    write(tmp_path, "harness/long.py", "x = 1\n" * 401)
    pending = {"harness/long.py": "WP-x", "harness/gone.py": "WP-y"}
    errors, notes = check.problems(tmp_path, pending=pending)
    assert notes == ["pending (WP-x): harness/long.py: 401 lines (at most 400)"]
    assert errors == ["harness/gone.py: no longer too long; remove it from PENDING"]


def test_the_product_keeps_its_sizes() -> None:
    errors, _ = check.problems()
    assert errors == []


def test_the_run_class_must_stay_under_200_lines(tmp_path: Path) -> None:
    (tmp_path / "server").mkdir()
    methods = "".join(
        "    " + function(f"m{i}", 8).replace("\n    x", "\n        x") for i in range(22)
    )
    write(tmp_path, "harness/run/loop.py", "class Run:\n" + methods)  # 1 + 22 × 9 = 199 lines
    assert check.problems(tmp_path, pending={}) == ([], [])
    write(tmp_path, "harness/run/loop.py", "class Run:\n" + methods + "    x = 1\n")
    errors, _ = check.problems(tmp_path, pending={})
    assert errors == ["harness/run/loop.py::Run: 200 lines (under 200)"]
    write(tmp_path, "harness/other.py", "class Run:\n" + methods + "    x = 1\n")
    assert check.problems(tmp_path, pending={})[0] == errors, "only the loop's Run"
