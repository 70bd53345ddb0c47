"""What a run is opened with (``harness.run.session.open_session``): the ``Backend`` a front
shares across its runs, and the ``RunRequest`` of one run — what only the front has.

    backend = Backend(store=opener, provider=config, telemetry=telemetry)
    front = RunRequest(approver=ask_the_user, on_event=show, guard=buffers)
    session = await open_session(contract, backend, front)

The split is by what varies: a backend is made once per front (the CLI's one run, the
language server's settings of the moment, the ACP agent's services) and never changes; a
request is made per run (its approver and observers, the editor's buffers and policy, the
conversation it continues, what the user attached). Both are values: frozen, typed, and
free of any protocol (a front translates its own into them). Importing this module loads
nothing of a run's machinery.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from harness.mcp.config import ServerConfig
    from harness.policy import Policy
    from harness.pricing import ModelPrices
    from harness.provider import ProviderConfig
    from harness.report import RunObserver
    from harness.run.conversation import Attachment
    from harness.run.events import EventSink
    from harness.semantic import SemanticPort
    from harness.store import Store
    from harness.telemetry.export import Telemetry
    from harness.tools.base import EditorWriter
    from harness.types import Approver, DocumentGuard, Provider

Assembly = Literal["bounded", "naive"]


@dataclass(frozen=True)
class Backend:
    """What every run of a front shares: the store (or what opens it, once the settings
    are known to be good), the model (a configuration, or a provider made already), memory
    on or off, the assembly, the environment (None: the process's), the prices over the
    table, the OpenTelemetry export (§12), and the language servers of a workspace (§14;
    None: no semantic tools)."""

    store: Store | Callable[[], Store]
    provider: ProviderConfig | Provider
    memory: bool = True
    assembly: Assembly = "bounded"
    environ: Mapping[str, str] | None = None
    prices: Mapping[str, ModelPrices] | None = None
    telemetry: Telemetry | None = None
    semantic: Callable[[Path], SemanticPort] | None = None

    def opened_store(self) -> Store:
        """The store, opened now if it was an opener (a front that opens once keeps it)."""
        from harness.store import Store

        return self.store if isinstance(self.store, Store) else self.store()


@dataclass(frozen=True)
class RunRequest:
    """One run a front starts, besides its contract: who answers approvals, who hears its
    progress and its §11 events, the editor's buffers and writes, the policy (None: the
    user's config, the workspace's and ``editor_policy``, §6.3), the conversation it
    follows up (§11), what the user attached, the client's MCP servers (§15)."""

    approver: Approver
    observer: RunObserver | None = None
    on_event: EventSink | None = None
    guard: DocumentGuard | None = None
    writer: EditorWriter | None = None  # the editor makes the writes (ACP fs/write_text_file)
    policy: Policy | None = None
    editor_policy: Mapping[str, Any] | None = None  # the editor's settings' policy (§6.3)
    client_trusted: bool | None = None  # the editor's workspace-trust verdict
    conversation_id: int | None = None
    context: Sequence[Attachment] = ()
    mcp_servers: Sequence[ServerConfig] = ()


__all__ = ["Assembly", "Backend", "RunRequest"]
