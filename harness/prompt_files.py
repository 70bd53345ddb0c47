"""The prompts a user invokes by name (issue 33, "prompt files and slash commands"): the
built-ins, the user's own (``<user config>/harness/prompts/*.md``) and the repository's
(``.github/prompts/*.prompt.md``, ``.claude/commands/*.md``), each with its source; and
expanding one (``$ARGUMENTS``, ``${input:name}``, ``${input:name:placeholder}``).

A repository's prompt is text the user chose to send: expanding it gives it no authority
(the run's policy, trust and approvals are the same as for typed text). Front matter is the
simple ``key: value`` lines between ``---`` fences (``description``, ``argument-hint``); a
file over ``MAX_PROMPT_BYTES`` or not UTF-8 is listed with its ``error`` and cannot be run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import platformdirs

from harness.errors import HarnessError

MAX_PROMPT_BYTES = 64 * 1024
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")
INPUT = re.compile(r"\$\{input:([A-Za-z0-9_-]+)(?::([^}]*))?\}")
BUILTINS = {
    "new": "start a new conversation",
    "plan": "plan first: only the tools that read (the arguments are the goal)",
    "undo": "restore the conversation to before its last turn",
    "cost": "what the conversation has spent",
    "memory": "the notes the agent keeps",
    "help": "the prompts and what they do",
}
REPO_DIRS = ((".github/prompts", ".prompt.md"), (".claude/commands", ".md"))


class PromptError(HarnessError):
    """A prompt that cannot be listed or expanded (the message says why)."""


@dataclass(frozen=True)
class Prompt:
    name: str
    source: str  # "builtin" | "user" | "repository"
    description: str = ""
    argument_hint: str = ""
    path: Path | None = None
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"name": self.name, "source": self.source}
        shown["description"], shown["argumentHint"] = self.description, self.argument_hint
        shown["path"] = str(self.path) if self.path else None
        return {**shown, **({"error": self.error} if self.error else {})}


def user_prompts_dir() -> Path:
    return Path(platformdirs.user_config_dir("harness")) / "prompts"


def list_prompts(workspace: Path | None, user_dir: Path | None = None) -> list[Prompt]:
    """Built-ins, then the user's, then the repository's (``workspace`` None: none)."""
    found = [Prompt(n, "builtin", d) for n, d in BUILTINS.items()]
    found += _dir(user_dir or user_prompts_dir(), ".md", "user")
    if workspace is not None:
        for sub, suffix in REPO_DIRS:
            found += _dir(workspace / sub, suffix, "repository")
    return found


def find_prompt(name: str, workspace: Path | None, user_dir: Path | None = None) -> Prompt:
    if not NAME.fullmatch(name):
        raise PromptError(f"`prompt`: {name!r} is not a prompt name (letters, digits, _ . -)")
    for p in list_prompts(workspace, user_dir):
        if p.name == name:
            if p.error:
                raise PromptError(f"prompt {name!r} ({p.path}): {p.error}")
            return p
    raise PromptError(f"no prompt {name!r}; harness.prompts lists them")


def expand(prompt: Prompt, arguments: str | Mapping[str, str]) -> str:
    """The prompt's text with its arguments in place."""
    assert prompt.path is not None
    body = _split(prompt.path.read_text(encoding="utf-8"))[1]
    inputs = {"ARGUMENTS": arguments} if isinstance(arguments, str) else dict(arguments)
    text = body.replace("$ARGUMENTS", inputs.get("ARGUMENTS", ""))
    missing = [m.group(1) for m in INPUT.finditer(text) if m.group(1) not in inputs]
    if missing:
        raise PromptError(f"prompt {prompt.name!r} needs `arguments.{missing[0]}`")
    return INPUT.sub(lambda m: inputs[m.group(1)], text).strip()


def _dir(folder: Path, suffix: str, source: str) -> list[Prompt]:
    try:
        files = sorted(p for p in folder.iterdir() if p.name.endswith(suffix) and p.is_file())
    except OSError:
        return []
    found = []
    for path in files:
        name = path.name[: -len(suffix)]
        if NAME.fullmatch(name):
            found.append(_read(name, path, source))
    return found


def _read(name: str, path: Path, source: str) -> Prompt:
    try:
        if path.stat().st_size > MAX_PROMPT_BYTES:
            return Prompt(name, source, path=path, error=f"over {MAX_PROMPT_BYTES:,} bytes")
        meta = _split(path.read_text(encoding="utf-8"))[0]
    except (OSError, UnicodeDecodeError) as exc:
        return Prompt(name, source, path=path, error=f"cannot be read: {exc}")
    hint = meta.get("argument-hint", "")
    return Prompt(name, source, meta.get("description", ""), hint, path)


def _split(text: str) -> tuple[dict[str, str], str]:
    """Front matter (``key: value`` lines) and the body."""
    if not text.startswith("---\n") or "\n---" not in text[3:]:
        return {}, text
    head, _, body = text[4:].partition("\n---")
    meta = {}
    for line in head.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            meta[key.strip()] = value.strip().strip("'\"")
    return meta, body.partition("\n")[2]


__all__ = ["Prompt", "PromptError", "expand", "find_prompt", "list_prompts", "user_prompts_dir"]
