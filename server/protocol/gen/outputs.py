"""Every generated file of a tree and its text: the manifest, the TypeScript and Lua
declarations, and each Markdown file with generated regions (README.md, docs/*.md, the
editors' READMEs) with its regions filled."""

from __future__ import annotations

import importlib
from pathlib import Path

from pydantic import BaseModel

from server.protocol import COMMANDS
from server.protocol.gen.docs import regions
from server.protocol.gen.lua import lua
from server.protocol.gen.manifest import manifest
from server.protocol.gen.regions import RegionError, fill, names
from server.protocol.gen.typescript import typescript

MANIFEST = Path("server/protocol/manifest.py")
TYPESCRIPT = Path("editors/vscode/src/protocolDecl.ts")
LUA = Path("editors/nvim/lua/harness/protocol.lua")
MARKDOWN = ("README.md", "docs/*.md", "editors/*/README.md")


def params_models() -> list[type[BaseModel]]:
    models: list[type[BaseModel]] = []
    for c in COMMANDS:
        module, _, name = c.params.rpartition(":")
        model = getattr(importlib.import_module(module or "server.lsp.params"), name)
        if model not in models:
            models.append(model)
    return models


def outputs(root: Path) -> tuple[dict[Path, str], list[str]]:
    """``{path: text}`` of every generated file under ``root``, and the problems found."""
    manifest_text, problems = manifest(root, COMMANDS)
    files = {
        root / MANIFEST: manifest_text,
        root / TYPESCRIPT: typescript(COMMANDS, params_models()),
        root / LUA: lua(COMMANDS),
    }
    contents = regions()
    for pattern in MARKDOWN:
        for path in sorted(root.glob(pattern)):
            text = path.read_text(encoding="utf-8")
            if not names(text):
                continue
            try:
                files[path] = fill(text, contents, str(path.relative_to(root)))
            except RegionError as exc:
                problems.append(str(exc))
    return files, problems


__all__ = ["LUA", "MANIFEST", "TYPESCRIPT", "outputs"]
