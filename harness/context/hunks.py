"""What a refresh entry shows (§3 rule 3): the changed lines of a read as they are now, in
hunks with their line numbers and two lines of context, or the whole current text when the
hunks would be longer.

    @@ lines 44–48 now @@
    <the current lines 44 to 48>
    (deleted lines 51–53)

Line numbers are the file's (a ranged read's first line is its offset). A hunk that only
deletes lines is the one line ``(deleted lines 51–53)``, numbered as the model's copy
had them.
"""

from __future__ import annotations

from difflib import SequenceMatcher

CONTEXT_LINES = 2


def lines_named(first: int, last: int) -> str:
    """``lines 44–47``, or ``line 44``."""
    return f"line {first:,}" if first == last else f"lines {first:,}–{last:,}"


def changed_lines(held: str, now: str, first: int) -> str:
    """The hunks turning ``held`` (what the model holds) into ``now``, both the text of the
    lines from line ``first`` on; or ``now`` whole when that is shorter."""
    old, new = held.split("\n"), now.split("\n")
    matcher = SequenceMatcher(None, old, new, autojunk=False)
    hunks = []
    for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
        changes = [op for op in group if op[0] != "equal"]
        if all(op[0] == "delete" for op in changes):
            hunks += [f"({_deleted(i1, i2, first)})" for _, i1, i2, _, _ in changes]
            continue
        j1, j2 = group[0][3], group[-1][4]
        head = f"@@ {lines_named(first + j1, first + j2 - 1)} now @@"
        hunks.append("\n".join([head, *new[j1:j2]]))
    shown = "\n".join(hunks)
    return now if len(shown) >= len(now) else shown


def _deleted(i1: int, i2: int, first: int) -> str:
    return f"deleted {lines_named(first + i1, first + i2 - 1)}"
