"""A workspace's portable identity (§4, §12): every spelling of one ``origin`` remote gives
one key, the folder's place in the repository is part of it, and a folder outside a
repository (or without an origin) is keyed by its canonical path."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.memory.text import scope_key
from harness.workspace.identity import normalised_remote, workspace_key

SAME_REPO = "github.com/team/app"


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("https://github.com/team/app.git", id="https"),
        pytest.param("https://github.com/team/app", id="https-no-dot-git"),
        pytest.param("https://alice:s3cret@github.com/team/app.git", id="credentials"),
        pytest.param("https://token@GitHub.COM/team/app/", id="host-case-trailing-slash"),
        pytest.param("HTTPS://github.com:443/team/app.git", id="scheme-case-default-port"),
        pytest.param("git@github.com:team/app.git", id="scp"),
        pytest.param("ssh://git@github.com/team/app.git", id="ssh"),
        pytest.param("ssh://git@github.com:22/team/app", id="ssh-default-port"),
        pytest.param("git://github.com/team/app.git", id="git-protocol"),
    ],
)
def test_every_spelling_of_one_remote_is_one_key(url: str) -> None:
    assert normalised_remote(url) == SAME_REPO


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param(
            "ssh://git@git.example.com:2222/x/y.git", "git.example.com:2222/x/y", id="port"
        ),
        pytest.param(
            "https://gitlab.com/Group/Sub/Repo.git", "gitlab.com/Group/Sub/Repo", id="case"
        ),
        pytest.param("/srv/git/app.git", "file:///srv/git/app", id="local-path"),
        pytest.param("file:///srv/git/app.git/", "file:///srv/git/app", id="file-url"),
        pytest.param("   ", None, id="blank"),
    ],
)
def test_other_remotes(url: str, expected: str | None) -> None:
    assert normalised_remote(url) == expected


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True)


def checkout(root: Path, origin: str | None) -> Path:
    (root / "pkg" / "sub").mkdir(parents=True)
    git(root, "init", "-q")
    if origin is not None:
        git(root, "remote", "add", "origin", origin)
    return root


def test_two_checkouts_of_one_repository_share_a_key(tmp_path: Path) -> None:
    one = checkout(tmp_path / "one", "git@github.com:team/app.git")
    two = checkout(tmp_path / "elsewhere" / "two", "https://bob:pw@github.com/team/app")
    assert workspace_key(one) == workspace_key(two) == f"git:{SAME_REPO}"
    assert workspace_key(one / "pkg") == workspace_key(two / "pkg") == f"git:{SAME_REPO}//pkg"
    assert workspace_key(one / "pkg" / "sub") == f"git:{SAME_REPO}//pkg/sub"
    assert "pw" not in workspace_key(two)
    # the key is what the store's scopes are, and a key given back stays itself
    assert scope_key(one) == scope_key(str(two) + "/./") == scope_key(workspace_key(one))


def test_a_worktree_shares_its_repositorys_key(tmp_path: Path) -> None:
    main = checkout(tmp_path / "main", "https://github.com/team/app.git")
    git(
        main,
        "-c",
        "user.email=a@b",
        "-c",
        "user.name=a",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"))
    assert workspace_key(tmp_path / "wt") == f"git:{SAME_REPO}"


def test_without_an_origin_or_a_repository_the_key_is_the_canonical_path(tmp_path: Path) -> None:
    bare = checkout(tmp_path / "no-origin", None)
    assert workspace_key(bare) == str(bare.resolve())
    plain = tmp_path / "plain"
    plain.mkdir()
    link = tmp_path / "link"
    link.symlink_to(plain, target_is_directory=True)
    assert workspace_key(link) == str(plain.resolve())
