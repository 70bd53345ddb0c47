"""``tools/check_ts_cycles.py`` on synthetic trees: a circle of relative imports (``import
type`` and re-exports included, across lines) is reported in order; packages, tests and a
tree without a circle pass (editors/vscode/src had client.ts ⇄ trust.ts on f07002c)."""

from __future__ import annotations

from pathlib import Path

from tests.tools.test_check_imports import load

check = load("check_ts_cycles")


def tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_type_only_circle_is_a_cycle(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "client.ts": 'import * as vscode from "vscode";\nimport { guard } from "./trust";\n',
            "trust.ts": 'import type {\n  Client,\n} from "./client";\n',
        },
    )
    assert list(check.cycles(check.graph(root))) == [["client.ts", "trust.ts", "client.ts"]]
    assert check.main(root) == 1


def test_re_exports_and_folders_count_and_tests_do_not(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            "a.ts": 'export { b } from "./lib";\n',
            "lib/index.ts": 'import "../c";\n',
            "c.ts": "export const c = 1;\n",
            "test/a.test.ts": 'import { a } from "../a";\n',
        },
    )
    assert check.graph(root) == {"a.ts": ["lib/index.ts"], "c.ts": [], "lib/index.ts": ["c.ts"]}
    assert check.main(root) == 0


def test_the_extension_has_no_cycle() -> None:
    assert check.main() == 0
