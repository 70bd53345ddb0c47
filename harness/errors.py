"""The harness's exception tree, and which provider failures are retryable.

    HarnessError
    ├── ConfigError            bad settings, flags or policy files (CLI exit 2; server showMessage)
    │   └── MissingKeyError    no API key in the environment for a hosted API
    ├── ContainmentError       a path that leaves the workspace (refused whatever the policy says)
    ├── StoreError             the SQLite store cannot be opened or migrated
    ├── MemoryInputError       a note's key, value, kind or scope is not acceptable (§4)
    └── ProviderError          a model call failed; ``kind`` classifies it, ``retryable`` is data
        └── ContextOverflowError   the provider rejected the request for its length

``ProviderError`` is also a ``ClassifiedFailure`` (kind, status, retry-after), as is
``harness.provider``'s ``AttemptFailed``: one attempt that failed, which the retry loop
judges and which never leaves the provider.

What the *model* did wrong (a bad path, a refusal, a bad regex, an edit that is not unique) is
never an exception: tools turn it into an observation. These exceptions are for the operator.
"""

from __future__ import annotations

from enum import StrEnum


class HarnessError(Exception):
    """Base of every error the harness raises on purpose."""


class ConfigError(HarnessError):
    """A setting, flag or configuration file is invalid; the message names it."""


class MissingKeyError(ConfigError):
    """A run needs an API key and the environment has none (the message names the
    variables, never a value)."""


class ContainmentError(HarnessError):
    """A path resolves outside the workspace root."""


class StoreError(HarnessError):
    """The store cannot be opened, migrated or written."""


class MemoryInputError(HarnessError):
    """A note's key, value, kind or scope is not acceptable; the message says why and what
    to do. A run's ``remember``/``forget`` turns it into an observation for the model; the
    operator's commands into a usage error."""


class FailureKind(StrEnum):
    """How a provider call failed. ``RETRYABLE`` says which kinds are retried."""

    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    CONTEXT_OVERFLOW = "context_overflow"
    AUTH = "auth"
    BAD_REQUEST = "bad_request"
    MALFORMED = "malformed"
    CANCELLED = "cancelled"


# One table, kept complete by a test: every FailureKind has an entry.
RETRYABLE: dict[FailureKind, bool] = {
    FailureKind.RATE_LIMITED: True,
    FailureKind.SERVER_ERROR: True,
    FailureKind.TIMEOUT: True,
    FailureKind.CONNECTION: True,
    FailureKind.CONTEXT_OVERFLOW: False,
    FailureKind.AUTH: False,
    FailureKind.BAD_REQUEST: False,
    FailureKind.MALFORMED: False,
    FailureKind.CANCELLED: False,
}


class ClassifiedFailure(Exception):
    """A model call's failure as classified: its ``kind``, the HTTP ``status`` when there was
    an answer, and the wait the server asked for (``retry_after``, in seconds)."""

    def __init__(
        self,
        kind: FailureKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after


class ProviderError(HarnessError, ClassifiedFailure):
    """A model call failed after the provider's own retries."""

    @property
    def retryable(self) -> bool:
        return RETRYABLE[self.kind]


class ContextOverflowError(ProviderError):
    """The provider said the request is longer than the model's context window."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(FailureKind.CONTEXT_OVERFLOW, message, status=status)


__all__ = [
    "RETRYABLE",
    "ClassifiedFailure",
    "ConfigError",
    "ContainmentError",
    "ContextOverflowError",
    "FailureKind",
    "HarnessError",
    "MemoryInputError",
    "MissingKeyError",
    "ProviderError",
    "StoreError",
]
