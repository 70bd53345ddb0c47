"""One provider call recorded the way the loop records it: every attempt written to
``provider_calls`` of a real ``Store`` on a file, for tests that check the rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.errors import ProviderError
from harness.provider import ProviderConfig, make_provider
from harness.store import Store
from harness.types import Attempt, Reply, Request


async def complete_recorded(
    config: ProviderConfig, request: Request, store_path: Path, *, key: str | None = None
) -> tuple[Reply | ProviderError, list[Attempt], list[dict[str, Any]]]:
    """The reply (or the error it gave up with), the attempts as reported, and the
    ``provider_calls`` rows the store holds for them."""
    attempts: list[Attempt] = []
    with Store(store_path) as store:
        run_id = store.create_run(
            goal="provider call", workspace="/ws", provider=config.name, model="m", contract="{}"
        )

        def sink(attempt: Attempt) -> None:
            attempts.append(attempt)
            store.record_attempt(run_id, 1, attempt)

        provider = make_provider(config, key)
        outcome: Reply | ProviderError
        try:
            outcome = await provider.complete(request, sink)
        except ProviderError as exc:
            outcome = exc
        finally:
            await provider.aclose()
        return outcome, attempts, store.provider_calls(run_id)


__all__ = ["complete_recorded"]
