"""Recording trust in the user config: the folder added or removed by its canonical path,
comments and other settings kept, a new file created private, a bad file left untouched."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.policy import Policy, TrustChange, covering, record_trust

USER_CONFIG = """\
# my harness settings
trusted = [
  "/somewhere/else",  # the old project
]

[defaults]
exec = "ask"  # always ask
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "app"
    path.mkdir()
    return path


def test_trusting_creates_a_private_config(tmp_path: Path, folder: Path):
    config = tmp_path / "config" / "harness" / "policy.toml"
    change = record_trust(folder, True, config=config)
    assert change == TrustChange(folder, True, True, config, folder)
    assert tomllib.loads(config.read_text())["trusted"] == [str(folder)]
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert Policy.load(folder, user_config=config).warnings == ()


def test_comments_and_settings_are_kept(tmp_path: Path, folder: Path):
    config = tmp_path / "policy.toml"
    config.write_text(USER_CONFIG)
    config.chmod(0o640)
    record_trust(folder, True, config=config)
    text = config.read_text()
    assert text.startswith("# my harness settings\n")
    assert '"/somewhere/else",  # the old project' in text
    assert 'exec = "ask"  # always ask' in text
    assert tomllib.loads(text)["trusted"] == ["/somewhere/else", str(folder)]
    assert stat.S_IMODE(config.stat().st_mode) == 0o640, "the file's mode is kept"

    change = record_trust(folder, False, config=config)
    assert change.changed and not change.trusted
    assert config.read_text() == USER_CONFIG, "trust and revoke leave the file as it was"


def test_trusting_twice_changes_nothing(tmp_path: Path, folder: Path):
    config = tmp_path / "policy.toml"
    record_trust(folder, True, config=config)
    before = config.read_text()
    change = record_trust(folder / ".." / "app", True, config=config)
    assert not change.changed and change.trusted
    assert config.read_text() == before


def test_revoking_removes_every_spelling_of_the_folder(tmp_path: Path, folder: Path):
    config = tmp_path / "policy.toml"
    config.write_text(f'trusted = ["{folder}", "{folder}/", "{tmp_path}/link"]\n')
    (tmp_path / "link").symlink_to(folder)
    change = record_trust(folder, False, config=config)
    assert change.changed and not change.trusted
    assert tomllib.loads(config.read_text())["trusted"] == []


def test_a_trusted_parent_still_covers_a_revoked_folder(tmp_path: Path, folder: Path):
    config = tmp_path / "policy.toml"
    config.write_text(f'trusted = ["{tmp_path}"]\n')
    change = record_trust(folder, False, config=config)
    assert not change.changed
    assert change.trusted and change.covered_by == tmp_path.resolve()


def test_revoking_an_untrusted_folder_writes_nothing(tmp_path: Path, folder: Path):
    config = tmp_path / "policy.toml"
    change = record_trust(folder, False, config=config)
    assert not change.changed and not change.trusted
    assert not config.exists()


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        pytest.param("trusted = [\n", "not valid TOML", id="syntax"),
        pytest.param('trusted = "/a"\n', "must be a list", id="not-a-list"),
        pytest.param('trusted = ["relative"]\n', "must be an absolute path", id="relative"),
    ],
)
def test_a_bad_config_is_refused_and_left_alone(
    tmp_path: Path, folder: Path, text: str, fragment: str
):
    config = tmp_path / "policy.toml"
    config.write_text(text)
    with pytest.raises(ConfigError, match=fragment):
        record_trust(folder, True, config=config)
    assert config.read_text() == text


def test_covering_prefers_the_nearest_folder(tmp_path: Path, folder: Path):
    assert covering(folder, [tmp_path.resolve(), folder.resolve()]) == folder.resolve()
    assert covering(folder, [tmp_path.resolve()]) == tmp_path.resolve()
    assert covering(tmp_path, [folder.resolve()]) is None
