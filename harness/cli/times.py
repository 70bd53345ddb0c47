"""Store timestamps (UTC, ISO 8601 with ``Z``) as a terminal shows them: in local time, to
the minute or the day, so a table column stays short."""

from __future__ import annotations

from datetime import datetime


def _local(stamp: str) -> datetime | None:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone()
    except ValueError:
        return None


def local_minute(stamp: str | None) -> str:
    """``2026-12-01 12:31`` (local time); the stamp as it is when it cannot be read."""
    when = _local(stamp) if stamp else None
    return when.strftime("%Y-%m-%d %H:%M") if when else (stamp or "")


def local_date(stamp: str | None) -> str:
    """``2026-12-01`` (local time)."""
    when = _local(stamp) if stamp else None
    return when.strftime("%Y-%m-%d") if when else (stamp or "")


__all__ = ["local_date", "local_minute"]
