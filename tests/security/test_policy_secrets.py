"""Attack: the agent reads or writes a secrets file under a name the secrets layer missed
(issue 9, seen 2: `.ENV`, `ID_RSA`, `cert.PEM` were read; `.netrc`, `.npmrc`, `.pgpass`,
`id_ecdsa` were not covered). Real files, the real tools through ``dispatch`` as the loop
calls them, a real gate whose approver would allow anything asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.policy import Gate, Layer, Policy, Rule, YesApprover
from harness.tools import all_tools, dispatch
from harness.tools.base import ToolContext
from harness.types import Act, Effect, ToolCall, ToolResult
from harness.workspace import Workspace

PLANTED = "PLANTED-SECRET-7f3a9c1e"

SECRET_NAMES = [
    ".env",
    ".ENV",
    "config/.Env",
    ".env.production",
    ".ENV.LOCAL",
    "cert.pem",
    "cert.PEM",
    "tls/server.Key",
    "store.P12",
    "client.pfx",
    "ID_RSA",
    "keys/id_dsa",
    "id_ecdsa",
    ".ssh/Id_Ed25519",
    ".netrc",
    "sub/.Netrc",
    ".npmrc",
    ".PYPIRC",
    ".pgpass",
    ".git-credentials",
]


class Agent:
    """The tools a model can call, over a real workspace, with a permissive approver and a
    workspace policy that allows everything it can (the secrets layer must still win)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        allow_all = Layer(
            "workspace", tuple(Rule(act, Effect.ALLOW, "*") for act in (Act.READ, Act.WRITE))
        )
        gate = Gate(Policy([allow_all]), YesApprover(), run_id=1)
        self.ctx = ToolContext(Workspace(root), gate, run_id=1, step=1, read_limit_chars=100_000)
        self.tools = all_tools()

    async def call(self, name: str, **arguments: object) -> ToolResult:
        return await dispatch(ToolCall("c1", name, arguments), self.tools, self.ctx)


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = tmp_path / "ws"
    root.mkdir()
    return Agent(root)


def plant(root: Path, rel: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"TOKEN={PLANTED}\n")
    return path


@pytest.mark.parametrize("name", SECRET_NAMES)
async def test_a_secret_cannot_be_read(agent: Agent, name: str) -> None:
    plant(agent.root, name)
    result = await agent.call("read_file", path=name)
    assert not result.ok and PLANTED not in result.text
    assert "refused by policy" in result.text and "layer builtin" in result.text
    (event,) = result.policy
    assert (event.layer, event.allowed) == ("builtin", False)


@pytest.mark.parametrize("name", SECRET_NAMES)
async def test_a_secret_cannot_be_written_or_edited(agent: Agent, name: str) -> None:
    path = plant(agent.root, name)
    written = await agent.call("write_file", path=name, content="TOKEN=attacker\n")
    edited = await agent.call("edit_file", path=name, old=PLANTED, new="attacker")
    assert not written.ok and not edited.ok
    assert "layer builtin" in written.text and "layer builtin" in edited.text
    assert path.read_text() == f"TOKEN={PLANTED}\n"


@pytest.mark.parametrize("name", SECRET_NAMES)
async def test_a_new_secret_file_cannot_be_created(agent: Agent, name: str) -> None:
    result = await agent.call("write_file", path=name, content=f"{PLANTED}\n")
    assert not result.ok and "layer builtin" in result.text
    assert not (agent.root / name).exists()


async def test_grep_and_find_never_show_a_secret_in_any_case(agent: Agent) -> None:
    for name in SECRET_NAMES:
        plant(agent.root, name)
    (agent.root / "notes.txt").write_text(f"not a secret: {PLANTED[:7]}\n")
    grep = await agent.call("grep", pattern="PLANTED")
    assert grep.ok and PLANTED not in grep.text
    assert "notes.txt:1:" in grep.text, "ordinary files are still searched"
    assert f"skipped: {len(SECRET_NAMES)} files read_file may not open (policy)" in grep.text
    find = await agent.call("find", name_glob="*")
    listed = set(find.text.splitlines()[1:])
    assert "notes.txt" in listed and not listed & set(SECRET_NAMES)
    assert f"{len(SECRET_NAMES)} files not listed" in find.text
