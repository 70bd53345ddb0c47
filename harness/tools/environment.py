"""The environment a command runs with (§6.6): the harness's own, without anything that
looks like a secret.

Removed: every variable the harness reads a key from; every variable whose name contains
(case-insensitively) ``KEY``, ``TOKEN``, ``SECRET``, ``PASSWORD``, ``PASSWD``,
``CREDENTIAL`` or ``AUTH``, ends in ``_PAT`` or is ``DATABASE_URL`` or an OTLP exporter's
``…_HEADERS`` (a collector's credentials) or ``HARNESS_STORE`` (the store, maybe a
``?password=`` URL: a command has no business with it); every variable whose value holds a
URL with credentials (``scheme://user:pass@host``, or a query parameter whose name, decoded as
libpq and collectors decode it, holds a secret word: ``?%70assword=``, ``?token=``,
``?sig=``) or libpq's keyword ``password=``; and every variable whose value holds a key
registered with ``harness.redact`` (whatever its name). A few well-known names
that only look secret (``GIT_AUTHOR_NAME``…) are kept unless their value gives them away.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from collections.abc import Mapping

from harness import redact

KEY_VARIABLES = frozenset(
    {"HARNESS_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"}
)
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")
# OTLP export headers carry a collector's credentials (§12)
SECRET_NAMES = frozenset(
    {
        "DATABASE_URL",
        "HARNESS_STORE",
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        "OTEL_EXPORTER_OTLP_METRICS_HEADERS",
        "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
    }
)
SECRET_SUFFIXES = ("_PAT",)
# Names that contain a secret word but hold nothing secret; their values are still checked.
HARMLESS = frozenset(
    {"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "TOKENIZERS_PARALLELISM"}
)
_URL_WITH_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s@:]*:[^\s@]*@")
_URL_QUERY = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s?#]*\?(?P<query>[^\s#]*)")
_KEYWORD_PASSWORD = re.compile(r"\bpassword\s*=", re.IGNORECASE)
SECRET_PARAMETERS = ("SIG", "SIGNATURE", "PASS", "PWD", "CODE", "JWT", "SESSION")


def exec_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default ``os.environ``) without secret-looking variables."""
    source = os.environ if base is None else base
    keys = redact.registered()
    return {k: v for k, v in source.items() if not is_secret(k, v, keys)}


def is_secret(name: str, value: str, keys: frozenset[str] = frozenset()) -> bool:
    upper = name.upper()
    if upper in KEY_VARIABLES or upper in SECRET_NAMES or upper.endswith(SECRET_SUFFIXES):
        return True
    if upper not in HARMLESS and any(word in upper for word in SECRET_WORDS):
        return True
    if _URL_WITH_PASSWORD.search(value) or _KEYWORD_PASSWORD.search(value):
        return True
    if any(_secret_query(m.group("query")) for m in _URL_QUERY.finditer(value)):
        return True
    return any(key in value for key in keys)


def _secret_query(query: str) -> bool:
    """Whether a URL's query names a credential (names decoded: ``%70assword`` is one)."""
    for part in query.split("&"):
        name = urllib.parse.unquote_plus(part.partition("=")[0]).strip().upper()
        if any(word in name for word in SECRET_WORDS) or name in SECRET_PARAMETERS:
            return True
    return False


__all__ = ["KEY_VARIABLES", "SECRET_WORDS", "exec_environment", "is_secret"]
