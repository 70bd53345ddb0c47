"""Which language servers the harness may start, and the semantic settings (§14), read from
the user config only — ``[languages.NAME] server = [argv…]``, ``extensions = [".py"]`` and
``[semantic]`` (``semanticTimeoutMs``, ``diagnosticsWaitMs``, ``diagnosticsAfterEdit``,
``idleMinutes``: a server unused that long is stopped, and started again when next asked).
A repository's ``.harness/policy.toml`` cannot name a server: that file is refused by the
policy loader (``LANGUAGES_KEY``). Python works out of the box: ``jedi-language-server``,
a declared dependency, installed beside the harness's own interpreter."""

from __future__ import annotations

import shutil
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.errors import ConfigError
from harness.policy.loading import LANGUAGES_KEY, SEMANTIC_KEY, default_user_config
from harness.policy.source import read_policy_file
from harness.semantic.model import SemanticUnavailable

DEFAULT_TIMEOUT_MS = 30_000
DEFAULT_WAIT_MS = 1_500
DEFAULT_IDLE_MINUTES = 10.0
DOCS = "docs/semantic.md"


@dataclass(frozen=True)
class LanguageServer:
    """One server the user chose: its language name, its command line, the file
    extensions it answers for. ``text_only_diagnostics``: its diagnostics depend on the
    document's text and file name alone, not on its directory (the bundled jedi's are
    ``compile()``'s syntax errors), so two texts of one file may be asked at once."""

    name: str
    argv: tuple[str, ...]
    extensions: tuple[str, ...]
    text_only_diagnostics: bool = False

    @property
    def program(self) -> str:
        return Path(self.argv[0]).name


@dataclass(frozen=True)
class SemanticConfig:
    languages: tuple[LanguageServer, ...]
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    wait_ms: int = DEFAULT_WAIT_MS
    after_edit: Literal["turn", "off"] = "turn"
    idle_s: float = DEFAULT_IDLE_MINUTES * 60  # unused this long: the server is stopped

    def server_for(self, path: str) -> LanguageServer | None:
        suffix = Path(path).suffix.casefold()
        return next((s for s in self.languages if suffix in s.extensions), None)

    def server_of(self, path: str) -> LanguageServer:
        """The server for ``path``; ``SemanticUnavailable`` (words for the model) if none."""
        spec = self.server_for(path)
        if spec is None:
            suffix = Path(path).suffix or "(no extension)"
            raise SemanticUnavailable(
                f"no language server is configured for `{suffix}` files; the user can add one "
                f'to the user config: [languages.NAME] server = ["program", "--stdio"] '
                f'extensions = ["{suffix}"] (see {DOCS}); meanwhile use grep and read_file'
            )
        return spec


class _Language(BaseModel):
    model_config = ConfigDict(extra="forbid")
    server: list[str] = Field(min_length=1)
    extensions: list[str] = Field(min_length=1)


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    timeout_ms: int = Field(DEFAULT_TIMEOUT_MS, ge=100, le=600_000, alias="semanticTimeoutMs")
    wait_ms: int = Field(DEFAULT_WAIT_MS, ge=0, le=60_000, alias="diagnosticsWaitMs")
    after_edit: Literal["turn", "off"] = Field("turn", alias="diagnosticsAfterEdit")
    idle_minutes: float = Field(DEFAULT_IDLE_MINUTES, gt=0, le=24 * 60, alias="idleMinutes")


def jedi_server() -> LanguageServer | None:
    """The bundled Python server: next to this interpreter, else on ``PATH``."""
    beside = Path(sys.executable).parent / "jedi-language-server"
    found = str(beside) if beside.is_file() else shutil.which("jedi-language-server")
    if not found:
        return None
    return LanguageServer("python", (found,), (".py", ".pyi"), text_only_diagnostics=True)


def parse_semantic(data: Mapping[str, Any], source: str) -> SemanticConfig:
    """The ``[languages.*]`` and ``[semantic]`` tables of the user config, checked."""
    try:
        langs = {
            name: _Language.model_validate(spec)
            for name, spec in dict(data.get(LANGUAGES_KEY, {})).items()
        }
        settings = _Settings.model_validate(dict(data.get(SEMANTIC_KEY, {})))
    except (ValidationError, TypeError, ValueError) as exc:
        raise ConfigError(f"{source}: [{LANGUAGES_KEY}] / [{SEMANTIC_KEY}]: {exc}") from exc
    chosen = [
        LanguageServer(n, tuple(s.server), tuple(e.casefold() for e in s.extensions))
        for n, s in langs.items()
    ]
    bundled = jedi_server()
    if bundled is not None and "python" not in langs:
        chosen.append(bundled)
    return SemanticConfig(
        tuple(chosen),
        settings.timeout_ms,
        settings.wait_ms,
        settings.after_edit,
        settings.idle_minutes * 60,
    )


def load_semantic(user_config: Path | None = None) -> SemanticConfig:
    """The semantic configuration from the user config (default location when None)."""
    path = user_config or default_user_config()
    raw = read_policy_file(path, "user config")
    try:
        data = tomllib.loads(raw.decode("utf-8")) if raw else {}
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"user config {path} is not valid TOML: {exc}") from exc
    return parse_semantic(data, f"user config {path}")


__all__ = [
    "LANGUAGES_KEY",
    "SEMANTIC_KEY",
    "LanguageServer",
    "SemanticConfig",
    "jedi_server",
    "load_semantic",
    "parse_semantic",
]
