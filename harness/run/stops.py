"""What an exception that stopped a run means for its outcome: a provider's failure, an
overflow the retry could not fix, a store that cannot record (a full disk), or a fault in the
harness itself — recorded as the run's end, never raised out of the loop."""

from __future__ import annotations

import logging

from harness.errors import ContextOverflowError, ProviderError, StoreError
from harness.types import Outcome

log = logging.getLogger("harness.run.loop")


def stopped_by(run_id: int, exc: Exception) -> tuple[Outcome, str]:
    """The outcome and the error text of run ``run_id``, which ``exc`` stopped."""
    if isinstance(exc, ContextOverflowError):
        return Outcome.CONTEXT_OVERFLOW, str(exc)
    if isinstance(exc, ProviderError):
        return Outcome.PROVIDER_ERROR, f"{exc.kind.value}: {exc}"
    if isinstance(exc, StoreError):  # a full disk: the run cannot be recorded, so it stops
        log.error("run %d stopped: %s", run_id, exc)
        return Outcome.STORE_ERROR, str(exc)
    log.exception("run %d stopped by an internal error", run_id, exc_info=exc)
    return Outcome.CANCELLED, f"internal error: {type(exc).__name__}: {exc}"


__all__ = ["stopped_by"]
