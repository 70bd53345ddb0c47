"""``harness trust [DIR] [--revoke]`` through ``main(argv)``: the folder it means by default
(the git root, else the current directory), what it prints, and bad input."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from harness.cli import main
from tests.support.workspace import make_workspace


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config" / "harness" / "policy.toml"


def trusted(config: Path) -> list[str]:
    listed: list[str] = tomllib.loads(config.read_text())["trusted"]
    return listed


def trust(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["trust", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def revoke(capsys: pytest.CaptureFixture[str], folder: Path, *, after_trusting: Path) -> str:
    """Trust ``after_trusting``, then revoke ``folder``: what that printed (it succeeded)."""
    trust(capsys, str(after_trusting))
    code, out, _ = trust(capsys, str(folder), "--revoke")
    assert code == 0
    return out


@pytest.fixture
def app(tmp_path: Path) -> Path:
    return make_workspace(tmp_path, name="app")


def test_the_default_folder_is_the_git_root(
    tmp_path: Path,
    config: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "deep").mkdir(parents=True)
    monkeypatch.chdir(repo / "src" / "deep")
    code, out, _ = trust(capsys)
    assert code == 0
    assert out == (
        f"trusted {repo} (recorded in {config}): its .harness/policy.toml may now allow what "
        "it lists and set defaults, from the next run on\n"
    )
    assert trusted(config) == [str(repo)]
    assert trust(capsys)[1] == f"{repo} is already trusted ({config})\n"


def test_without_git_the_current_directory(
    tmp_path: Path,
    config: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = make_workspace(tmp_path, name="plain")
    monkeypatch.chdir(plain)
    assert trust(capsys)[0] == 0
    assert trusted(config) == [str(plain)]


def test_revoke(app: Path, config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert revoke(capsys, app, after_trusting=app) == (
        f"no longer trusted: {app} (removed from {config}); only the deny and ask rules of "
        "its .harness/policy.toml apply\n"
    )
    assert trusted(config) == []
    assert trust(capsys, str(app), "--revoke")[1] == (
        f"{app} was not trusted ({config}); nothing to do\n"
    )


def test_revoking_under_a_trusted_parent_says_why_it_stays_trusted(
    tmp_path: Path, app: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert revoke(capsys, app, after_trusting=tmp_path) == (
        f"{app} not listed, but it is still trusted: {tmp_path} is in {config}; revoke "
        "that folder to stop trusting its subfolders\n"
    )


def test_a_missing_folder_is_a_usage_error(
    tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = trust(capsys, str(tmp_path / "nope"))
    assert code == 2 and f"{tmp_path / 'nope'} is not a directory" in err
    assert not config.exists()


def test_a_broken_user_config_is_a_usage_error_and_kept(
    tmp_path: Path, config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config.parent.mkdir(parents=True)
    config.write_text("trusted = [\n")
    code, _, err = trust(capsys, str(tmp_path))
    assert code == 2 and "is not valid TOML" in err
    assert config.read_text() == "trusted = [\n"


def test_with_no_folder_named_the_home_folder_is_never_trusted(
    tmp_path: Path,
    config: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 30, item 1's spirit: `harness trust` typed in ~ would trust every folder under
    it (a trusted folder covers its subfolders) — only when named."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(home)
    code, out, err = trust(capsys)
    assert code == 2 and out == ""
    assert f"would trust {home}, your home folder or /" in err
    assert f"harness trust {home}" in err
    assert not config.exists()
    code, _, _ = trust(capsys, str(home))  # named, it is what the user asked for
    assert code == 0 and trusted(config) == [str(home)]
