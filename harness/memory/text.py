"""The text rules of durable memory (§4): scope keys, key validation, value capping, word
normalisation, Jaccard overlap, and the escaping that keeps a note on one line.

Pure functions, no store: both the store and the recall block use them, so the same value is
capped, normalised and escaped the same way wherever it goes.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from harness.errors import MemoryInputError
from harness.workspace.identity import is_identity, workspace_key

GLOBAL = "global"
"""The scope key of notes every workspace recalls."""

SCOPES = ("workspace", "global")

TRUNCATION_MARK = "…[truncated]"
MAX_KEY_CHARS = 100
RESTATEMENT_THRESHOLD = 0.6
MIN_WORD_CHARS = 3

_WORD = re.compile(r"[^\W_]+")  # runs of letters and digits: split on everything else
_SURROGATE = re.compile("[\ud800-\udfff]")
# Characters that could start a new line or hide text in a rendered note.
_BREAKING_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def scope_key(workspace: Path | str, *, trusted: bool = True) -> str:
    """The store key of a scope: ``"global"``, or a workspace's portable identity — its
    repository's normalised ``origin`` and its path inside it, else its canonical absolute
    path (``harness.workspace.identity``).

    The string ``"global"`` is the global scope, and a string that is already an identity
    stays itself; a ``Path`` is always a workspace folder. A folder the user has not
    ``trusted`` has a key of its own even where its origin names a repository (issue 30).
    """
    if isinstance(workspace, str) and (workspace == GLOBAL or is_identity(workspace)):
        return workspace
    return workspace_key(Path(workspace), trusted=trusted)


def scope_name(key: str) -> str:
    """``"workspace"`` or ``"global"`` for a scope key."""
    return "global" if key == GLOBAL else "workspace"


def scope_for(workspace_key: str, scope: str) -> str:
    """The scope key a run's ``scope`` argument (``"workspace"`` or ``"global"``) names."""
    if scope == "global":
        return GLOBAL
    if scope == "workspace":
        return workspace_key
    raise MemoryInputError(f"scope must be 'workspace' or 'global', not {scope!r}")


def _breaks(ch: str) -> bool:
    return unicodedata.category(ch) in _BREAKING_CATEGORIES


def check_key(key: str) -> str:
    """The key as stored (surrounding whitespace removed), or ``MemoryInputError`` saying
    why not."""
    if not isinstance(key, str):
        raise MemoryInputError("a note key must be a string")
    cleaned = key.strip()
    if not cleaned:
        raise MemoryInputError("a note key must not be empty")
    if len(cleaned) > MAX_KEY_CHARS:
        raise MemoryInputError(
            f"a note key is at most {MAX_KEY_CHARS} characters (this one has {len(cleaned)});"
            " use a short name such as `build-command`"
        )
    if any(_breaks(ch) for ch in cleaned):
        raise MemoryInputError("a note key must not contain control or formatting characters")
    return cleaned


def clean_value(value: str) -> str:
    """Lone surrogates (possible from JSON ``\\ud800`` escapes) become U+FFFD so the value can
    be stored as UTF-8; everything else is kept as written and escaped only when shown."""
    return _SURROGATE.sub("\ufffd", value)


def cap_value(value: str, max_chars: int) -> tuple[str, bool]:
    """A value over ``max_chars`` becomes exactly ``max_chars`` characters ending in the
    truncation mark; returns the value and whether it was cut."""
    if len(value) <= max_chars:
        return value, False
    keep = max(0, max_chars - len(TRUNCATION_MARK))
    return value[:keep] + TRUNCATION_MARK, True


def words(text: str) -> frozenset[str]:
    """Normalised words: lowercase, split on non-alphanumerics, words under 3 chars dropped."""
    return frozenset(w for w in _WORD.findall(text.lower()) if len(w) >= MIN_WORD_CHARS)


# Function words carry no topic: a goal's "the" must not make every prose note relevant.
# Used for recall relevance only; the restatement check compares all normalised words.
_STOPWORD_LIST = """
    about above after again all also and any are because been before being both but can
    could did does doing down during each few for from further had has have having her here
    hers him his how into its itself just more most not now off once only other our ours out
    over own same she should some such than that the their theirs them then there these they
    this those through too under until very was were what when where which while who whom why
    will with would you your yours
"""
STOPWORDS = frozenset(_STOPWORD_LIST.split())


def topic_words(text: str) -> frozenset[str]:
    """Normalised words without function words: what relevance to a turn is scored on."""
    return words(text) - STOPWORDS


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """``|a ∩ b| / |a ∪ b|``; 0 when either side has no words (nothing to compare)."""
    if not a or not b:
        return 0.0
    shared = len(a & b)
    return shared / (len(a) + len(b) - shared)


def inline(text: str) -> str:
    """One line: newlines, tabs and other control or formatting characters become visible
    escapes (``\\n``, ``\\u202e``), so a note can never start a line of its own."""
    if text.isprintable():
        return text
    out: list[str] = []
    for ch in text:
        if ch in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[ch])
        elif _breaks(ch) or (not ch.isprintable() and ch != " "):
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def quote(text: str, limit: int = 300) -> str:
    """A one-line excerpt of a note for a tool result: escaped and cut at ``limit``."""
    flat = inline(text)
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1] + "…"
