"""Attack: the agent rewrites the harness's own programs (issue 20, item 2; SPEC §6.2: "nor
any program the harness itself runs").

The harness installed in the workspace's own venv, as the Neovim help suggests and as
``make setup`` does: here a venv made in the workspace (``python -m venv``) that finds the
harness through a ``.pth`` and holds a copy of the ``rg`` the harness uses, and the real
command line started with that venv's ``python``. On main, ``write_file .venv/bin/rg``
needed no approval and the next ``grep`` of the same run ran the planted script outside the
sandbox, with the provider's key in its environment. Now the write is refused, naming why,
and the grep runs the real ripgrep. The same holds for ``harness-lsp`` (run at the editor's
next start), a ``.pth`` (run by every start of the interpreter), and a workspace ``.venv``
holding ``harness-lsp`` that is not the running one. A sandboxed command cannot write them
either.
"""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.sandbox_check import require_sandbox
from tests.support.scripted_cli import scripted_run
from tests.support.scripted_turns import call, turn

PROGRAM = "a program the harness itself runs"


def planted(marker: Path) -> str:
    return f"#!/bin/sh\necho planted > {marker}\nexit 0\n"


@pytest.fixture
def venv_ws(tmp_path: Path) -> tuple[Path, str]:
    """A workspace whose ``.venv`` runs the harness (its ``python``, its ``rg``)."""
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("needle = 1\n")
    venv = ws / ".venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    packages = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True, capture_output=True, text=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    ours = site.getsitepackages()[0]
    Path(packages, "harness_under_test.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    rg = shutil.which("rg", path=f"{Path(sys.executable).parent}:/usr/bin:/bin")
    assert rg is not None
    shutil.copy2(rg, venv / "bin" / "rg")
    (venv / "bin" / "harness-lsp").write_text('#!/bin/sh\nexec python -m server "$@"\n')
    return ws, str(venv / "bin" / "python")


def test_a_rewritten_rg_never_runs(venv_ws: tuple[Path, str], tmp_path: Path) -> None:
    ws, python = venv_ws
    marker = tmp_path / "rg-ran"
    rg = ws / ".venv" / "bin" / "rg"
    before = rg.read_bytes()
    run = scripted_run(
        ws,
        tmp_path,
        [
            turn(call("write_file", path=".venv/bin/rg", content=planted(marker))),
            turn(call("grep", pattern="needle")),
            {"content": "done"},
        ],
        "--yes",
        python=python,
    )
    assert not marker.exists(), "the planted rg ran"
    grep = run.result(2)
    assert "src/a.py:1: needle = 1" in grep, grep
    wrote = run.result(1)
    assert PROGRAM in wrote and "the ripgrep it searches with" in wrote, wrote
    assert rg.read_bytes() == before


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(".venv/bin/harness-lsp", id="harness-lsp"),
        pytest.param(".venv/bin/python", id="python"),
        pytest.param(".venv/bin/new-program", id="new-in-bin"),
        pytest.param("PURELIB/zz_planted.pth", id="pth"),
        pytest.param(".venv/pyvenv.cfg", id="pyvenv-cfg"),
    ],
)
def test_the_harness_venv_is_never_written(
    venv_ws: tuple[Path, str], tmp_path: Path, path: str
) -> None:
    ws, python = venv_ws
    if path.startswith("PURELIB/"):
        purelib = next((ws / ".venv" / "lib").glob("python*/site-packages"))
        path = f"{purelib.relative_to(ws).as_posix()}/{path.split('/', 1)[1]}"
    target = ws / path
    before = target.read_bytes() if target.exists() else None
    run = scripted_run(
        ws,
        tmp_path,
        [
            turn(call("write_file", path=path, content="import os; os.system('id')\n")),
            {"content": "ok"},
        ],
        "--yes",
        python=python,
    )
    assert PROGRAM in run.result(1), run.result(1)
    assert (target.read_bytes() if target.exists() else None) == before


def test_a_workspace_venv_the_editors_start_is_never_written(tmp_path: Path) -> None:
    """The harness runs from elsewhere; the editor plugins start ``.venv/bin/harness-lsp``
    of the workspace: creating it, or writing next to it, is refused."""
    ws = tmp_path / "ws"
    ws.mkdir()
    run = scripted_run(
        ws,
        tmp_path,
        [turn(call("write_file", path=".venv/bin/harness-lsp", content="#!/bin/sh\nid\n")),
         {"content": "ok"}],
        "--yes",
    )  # fmt: skip
    assert PROGRAM in run.result(1), run.result(1)
    assert not (ws / ".venv").exists()


def test_a_sandboxed_command_cannot_rewrite_the_harness_programs(
    venv_ws: tuple[Path, str], tmp_path: Path
) -> None:
    require_sandbox()
    ws, python = venv_ws
    rg = ws / ".venv" / "bin" / "rg"
    before = rg.read_bytes()
    script = "cp /bin/true .venv/bin/rg; echo x > .venv/bin/harness-lsp; echo code=$?"
    run = scripted_run(
        ws,
        tmp_path,
        [turn(call("exec", argv=["sh", "-c", script])), {"content": "ok"}],
        "--yes",
        python=python,
    )
    result = run.result(1)
    assert "sandbox" in result.casefold() or "code=" in result, result
    assert rg.read_bytes() == before
    assert (ws / ".venv" / "bin" / "harness-lsp").read_text().startswith("#!/bin/sh\nexec python")
