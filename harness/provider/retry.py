"""When to try a model call again: ``Retry-After`` parsing and exponential backoff with jitter.

Whether a failure is retried at all is ``harness.errors.RETRYABLE`` — data, not code here.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime

from harness.provider.config import RetryPolicy


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


__all__ = ["backoff_delay", "parse_retry_after"]
