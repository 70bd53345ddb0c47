"""Public SWE-agent trajectories (``trajectories/*.json``, sources in the README there) as
scripted sessions: the workspace rebuilt from what the trajectory's observations show, each
action converted by one fixed rule (nothing tuned per trajectory or toward a figure):

- ``open F [L]``, ``goto``/``scroll_*`` → ``read_file`` of the window the observation shows
  (its first and last numbered lines);
- ``edit N:M`` + text → ``edit_file`` of lines N–M (as rebuilt) with the text; ``edit 'a' 'b'``
  → ``edit_file(old=a, new=b)``; an edit the trajectory's linter **rejected** (the file
  unchanged) → ``read_file`` of the window the rejection showed, since that is what the
  model got back;
- ``create F`` → ``write_file(F, "")``; ``insert 'text'`` → ``write_file`` of the open file
  with the text appended; ``rm F`` → ``exec rm F``; ``find_file N`` → ``find``; ``ls`` →
  ``list_dir``; ``search_dir``/``grep`` → ``grep``;
- any other command (``python reproduce.py``, which needs the real project installed) →
  ``exec cat`` of its recorded output, kept in the workspace under ``.replay/``, so the
  model sees what it saw;
- ``submit`` → the last turn, saying the step's thought.

The workspace: every file an observation showed, with the numbered lines it showed in
place and each line never shown as ``# (line N not shown in the trajectory)``, at the line
count the observation states; files the agent created start as it created them.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.scripted_turns import call

HERE = Path(__file__).parent / "trajectories"
WINDOW = re.compile(r"^\[File: (?P<path>.+?) \((?P<total>\d+) lines total\)\]", re.M)
NUMBERED = re.compile(r"^(\d+):(.*)$")
REJECTED = "Your proposed edit has introduced new syntax error"


def unknown(n: int) -> str:
    return f"# (line {n} not shown in the trajectory)"


@dataclass
class _Files:
    """The workspace being rebuilt: each file as it was before the agent first changed it
    (its lines from the observations, None where never shown), and each file's text as the
    converted run will have it, step by step (the start, plus the converted edits)."""

    root: str  # the trajectory's working directory, stripped from paths
    initial: dict[str, list[str | None]] = field(default_factory=dict)
    current: dict[str, str] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)  # edited or created by the agent
    created_first: set[str] = field(default_factory=set)  # created by the agent

    def rel(self, path: str) -> str:
        return path.strip().strip('"').removeprefix(self.root.rstrip("/") + "/").lstrip("/")

    def learn(self, observation: str) -> list[tuple[str, int, int]]:
        """Learn the lines of every file window in ``observation`` (of files not yet
        changed); the windows' (path, first line, last line)."""
        out = []
        text = observation.replace("\r\n", "\n")
        matches = list(WINDOW.finditer(text))
        if REJECTED in text:  # only the last window is the file; the others, what it is not
            matches = matches[-1:]
        for n, m in enumerate(matches):
            end = matches[n + 1].start() if n + 1 < len(matches) else len(text)
            path, total = self.rel(m["path"]), int(m["total"])
            seen = [NUMBERED.match(line) for line in text[m.end() : end].split("\n")]
            numbered = [(int(s[1]), s[2]) for s in seen if s]
            out.append((path, numbered[0][0], numbered[-1][0]) if numbered else (path, 1, 1))
            if path in self.changed:
                continue
            known = self.initial.setdefault(path, [None] * total)
            known.extend([None] * (total - len(known)))
            for number, line in numbered:
                if known[number - 1] is None:
                    known[number - 1] = line
        return out

    def text(self, path: str) -> str:
        """The file as the converted run has it now."""
        return self.current[path] if path in self.current else self.start(path)

    def start(self, path: str) -> str:
        """The file before the agent changed it, as rebuilt."""
        return "".join(
            (line if line is not None else unknown(n)) + "\n"
            for n, line in enumerate(self.initial.get(path, []), 1)
        )

    def change(self, path: str, text: str) -> None:
        self.current[path] = text
        self.changed.add(path)


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((HERE / f"{name}.json").read_text())
    return data


def _window_read(files: _Files, observation: str) -> dict[str, Any] | None:
    windows = files.learn(observation)
    if not windows:
        return None
    path, first, last = windows[-1]
    return call("read_file", path=path, offset=first, limit=last - first + 1)


def _edit(files: _Files, path: str, action: str) -> dict[str, Any]:
    before = files.text(path)
    if re.match(r"edit \d+:\d+", action):
        head, _, rest = action.partition("\n")
        first, last = (int(x) for x in head.split()[1].split(":"))
        new = rest.rsplit("end_of_edit", 1)[0].rstrip("\n")
        if not before.strip():  # a file the agent just created: nothing to replace yet
            files.change(path, new + "\n")
            return call("write_file", path=path, content=new + "\n")
        lines = before.split("\n")
        old = "\n".join(lines[first - 1 : last])
        lines[first - 1 : last] = new.split("\n")
        files.change(path, "\n".join(lines))
    else:
        _, old, new = shlex.split(action)
        files.change(path, before.replace(old, new, 1))
    return call("edit_file", path=path, old=old, new=new)


def convert(name: str) -> tuple[list[dict[str, Any]], dict[str, str], list[str]]:
    """The scripted turns, the workspace files (path → text) and what could not be rebuilt."""
    steps = load(name)["steps"]
    files = _Files(steps[0]["working_dir"] or "/")
    turns: list[dict[str, Any]] = []
    replayed: dict[str, str] = {}
    for n, step in enumerate(steps):
        action = step["action"].strip()
        opened = step["open_file"] if step["open_file"] not in (None, "n/a") else ""
        tool = _convert_step(files, action, step["observation"], files.rel(opened), n, replayed)
        if tool is None:  # submit
            turns.append({"content": step["thought"]})
            break
        turns.append({"content": step["thought"], "tool_calls": [tool]})
        files.learn(step["observation"])
    workspace = {p: files.start(p) for p in files.initial if p not in files.created_first}
    workspace.update({f".replay/{k}.out": v for k, v in replayed.items()})
    missing = [
        f"{path}: {sum(line is None for line in lines)} of {len(lines)} lines never shown"
        for path, lines in files.initial.items()
        if path not in files.created_first
    ]
    return turns, workspace, missing


def _convert_step(
    files: _Files, action: str, observation: str, open_file: str, n: int, replayed: dict[str, str]
) -> dict[str, Any] | None:
    word = action.split(maxsplit=1)[0] if action.split() else ""
    if word == "submit":
        return None
    if word == "edit":
        if REJECTED in observation:  # the file did not change; the model saw the window
            return _window_read(files, observation)
        return _edit(files, open_file, action)
    if word in ("open", "goto", "scroll_down", "scroll_up"):
        return _window_read(files, observation) or call("read_file", path=open_file)
    if word == "create":
        path = files.rel(shlex.split(action)[1])
        files.created_first.add(path)
        files.change(path, "")
        return call("write_file", path=path, content="")
    if word == "insert":
        text = files.text(open_file).rstrip("\n") + "\n" + shlex.split(action)[1] + "\n"
        files.change(open_file, text)
        return call("write_file", path=open_file, content=text)
    if word == "rm":
        return call("exec", argv=["rm", *shlex.split(action)[1:]])
    if word == "find_file":
        return call("find", name_glob=shlex.split(action)[1])
    if word == "ls":
        return call("list_dir", path=".")
    key = f"{n:03d}"
    replayed[key] = observation.replace("\r\n", "\n")
    return call("exec", argv=["cat", f".replay/{key}.out"])


TRAJECTORIES = ("pydicom__pydicom-1458", "marshmallow-code__marshmallow-1867")
