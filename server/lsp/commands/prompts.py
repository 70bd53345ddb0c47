"""``harness.prompts``: the prompts a user invokes by name in a folder — the built-ins, the
user's, the repository's, each with its source (``harness.prompt_files``; issue 33)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.prompt_files import list_prompts
from server.lsp.commands.table import handles
from server.lsp.params import PromptsParams

if TYPE_CHECKING:
    from server.lsp.host import CommandHost


@handles("harness.prompts")
def prompts(host: CommandHost, params: PromptsParams) -> list[dict[str, Any]]:
    root = host.folder(params.workspace_folder)
    return [p.to_json() for p in list_prompts(root)]


__all__: list[str] = []
