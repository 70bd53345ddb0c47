"""When to try a model call again: how many attempts each kind of failure may take,
``Retry-After`` parsing, and exponential backoff with jitter.

Whether a failure is retried at all is ``harness.errors.RETRYABLE``; how many attempts it may
take is ``ATTEMPT_CAPS`` — both data, kept complete by tests.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Mapping
from email.utils import parsedate_to_datetime

from harness.errors import RETRYABLE, FailureKind
from harness.provider.config import RetryPolicy

# A connection failure before any byte was exchanged: the name did not resolve, or nothing
# listens there. One retry rules out a blip; five only make the user wait (issue 13).
UNREACHABLE = "unreachable"

# The most attempts that may end in each failure, whatever ``RetryPolicy.max_attempts``
# allows (None: the policy alone decides; 1: never retried, as RETRYABLE says). Keyed by
# failure kind, and by UNREACHABLE for the connections that were never made.
ATTEMPT_CAPS: Mapping[str, int | None] = {
    FailureKind.RATE_LIMITED: None,
    FailureKind.SERVER_ERROR: None,
    FailureKind.TIMEOUT: 3,  # a timed-out attempt is retried at most twice (SPEC §9)
    FailureKind.CONNECTION: None,  # dropped mid-answer, truncated: the policy's retries
    UNREACHABLE: 2,
    FailureKind.CONTEXT_OVERFLOW: 1,
    FailureKind.AUTH: 1,
    FailureKind.BAD_REQUEST: 1,
    FailureKind.MALFORMED: 1,
    FailureKind.CANCELLED: 1,
}


class AttemptBudget:
    """Counts one call's failures by cause and says how many attempts the call may make."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy
        self._failures: Counter[str] = Counter()

    def after_failure(self, number: int, kind: FailureKind, cause: str | None = None) -> int:
        """The most attempts the call may make now that attempt ``number`` failed as ``kind``
        (``cause``: a finer key of ``ATTEMPT_CAPS``, e.g. UNREACHABLE). More than ``number``
        means it is retried."""
        key = cause or kind.value
        self._failures[key] += 1
        if not RETRYABLE[kind]:
            return number
        limit = self.policy.max_attempts
        cap = ATTEMPT_CAPS[key]
        if cap is not None:
            limit = min(limit, number + cap - self._failures[key])
        return max(number, limit)


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` (OpenAI), or ``Retry-After`` as seconds or an
    HTTP date; ``None`` when absent or unreadable. Never negative."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


def backoff_delay(
    policy: RetryPolicy,
    failures: int,
    retry_after: float | None = None,
    *,
    rng: random.Random | None = None,
) -> float:
    """Seconds to wait after the ``failures``-th failed attempt (1-based)."""
    if retry_after is not None:
        return min(retry_after, policy.retry_after_cap_s)
    ceiling = min(policy.backoff_cap_s, policy.backoff_base_s * 2 ** max(0, failures - 1))
    return (rng or random).uniform(ceiling / 2, ceiling)


__all__ = [
    "ATTEMPT_CAPS",
    "UNREACHABLE",
    "AttemptBudget",
    "backoff_delay",
    "parse_retry_after",
]
