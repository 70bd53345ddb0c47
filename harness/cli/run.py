"""``harness run GOAL``: one task from the terminal — live progress on stderr, and at the end
the model's last words, the files changed and the outcome on stdout (or, with ``--json``,
exactly the run object: ``runId``, ``outcome``, ``steps``, ``spentTokens``, ``costUsd``,
``summary``, ``filesChanged``, ``refused``, ``denied``, ``failed``)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import signal
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.cli.args import (
    WorkspaceChoice,
    add_store_arg,
    add_workspace_arg,
    choose_workspace,
    open_store,
    positive_int,
    share_fraction,
)
from harness.cli.follow_up import continued, goal_and_run, plan_follow_up
from harness.defaults import (
    DEFAULT_CONTEXT_MAX_TOKENS,
    DEFAULT_CONTEXT_SHARE,
    DEFAULT_CONTEXT_WIRE,
    DEFAULT_LOW_WATER,
    DEFAULT_MAX_STEPS,
    DEFAULT_TOKEN_BUDGET,
)
from harness.errors import ConfigError, HarnessError
from harness.provider import PROVIDER_NAMES, ProviderConfig, config_from_env

if TYPE_CHECKING:  # a run's machinery loads when a run starts, not to parse the arguments
    from rich.console import Console

    from harness.cli.chat_input import ChatInput
    from harness.cli.progress import TerminalObserver
    from harness.contract import ContractOverrides, TaskContract
    from harness.report import RunResult
    from harness.revert.changes import RunChanges
    from harness.run.conversation import Attachment
    from harness.run.session import Session
    from harness.store import Store
    from harness.telemetry.export import Telemetry

WIRES = ("transcript", "flat")


def register(sub: Any) -> None:
    p = sub.add_parser("run", help="run one task in a workspace", description=_DESCRIPTION)
    p.add_argument("goal", nargs="?", help="what the agent should do")
    p.add_argument(
        "--continue",
        dest="continue_run",
        nargs="?",
        const="",
        metavar="RUN",
        help="GOAL is a follow-up in the conversation of RUN, the workspace's latest run when "
        "RUN is left out; resumes an interrupted, cancelled or exhausted run the same way "
        "(default: a new conversation)",
    )
    add_run_options(p)
    p.add_argument(
        "--plan",
        action="store_true",
        help="plan first: only the tools that read are offered, the run ends with the model's "
        "plan; follow up with --continue to carry it out (default: off)",
    )
    p.add_argument(
        "--json", action="store_true", help="print only the result object on stdout (default: off)"
    )
    p.set_defaults(func=command)


def add_run_options(p: argparse.ArgumentParser) -> None:
    """The options ``harness run`` and ``harness chat`` share."""
    add_workspace_arg(p)
    p.add_argument(
        "--provider",
        choices=PROVIDER_NAMES,
        default=None,
        metavar="NAME",
        help=f"{', '.join(PROVIDER_NAMES)} (default: $HARNESS_PROVIDER, else openai; "
        "--script alone means scripted)",
    )
    p.add_argument(
        "--model", metavar="M", help="the model (default: $HARNESS_MODEL, else the provider's)"
    )
    p.add_argument(
        "--base-url",
        metavar="URL",
        help="an OpenAI- or Anthropic-compatible server (default: $HARNESS_BASE_URL, else the "
        "provider's own)",
    )
    p.add_argument(
        "--script", metavar="FILE", help="turns for the scripted provider (default: none)"
    )
    _budget_args(p)
    p.add_argument(
        "--context",
        action="append",
        type=attachment,
        default=[],
        metavar="PATH[:L1-L2]",
        help="attach a file, or its lines L1 to L2, read before the first step; repeatable "
        "(default: none)",
    )
    p.add_argument(
        "--verify",
        metavar='"CMD ..."',
        help='success is this command exiting 0 once the model stops, e.g. "pytest -q"; '
        "without it the run finishes when the model stops (default: none)",
    )
    add_store_arg(p)
    p.add_argument(
        "--no-memory", action="store_true", help="neither recall nor write notes (default: off)"
    )
    p.add_argument(
        "--yes", action="store_true", help="allow every 'ask' without prompting (default: off)"
    )


_DESCRIPTION = (
    "Run one task: the model reads, greps, edits and runs commands in the workspace under "
    "your policy until it stops, the budget runs out or the step cap is reached. Commands "
    "(exec) ask first: on the terminal, or allowed with --yes; with neither they are refused. "
    "API key: $HARNESS_API_KEY, else the provider's usual variable (OPENAI_API_KEY, "
    "ANTHROPIC_API_KEY, OPENROUTER_API_KEY). The run is exported over OpenTelemetry (OTLP/HTTP) "
    "when $OTEL_EXPORTER_OTLP_ENDPOINT or the user config's [telemetry] names a collector "
    "(default: not exported). Exit status: 0 success or finished, 1 any other outcome, 2 a "
    "usage or configuration error."
)


def _budget_args(p: argparse.ArgumentParser) -> None:
    low_water, wire = DEFAULT_LOW_WATER, DEFAULT_CONTEXT_WIRE
    p.add_argument(
        "--token-budget",
        type=positive_int,
        metavar="N",
        help=f"tokens the run may spend, as the provider reports them (default: "
        f"{DEFAULT_TOKEN_BUDGET:,})",
    )
    p.add_argument(
        "--max-steps",
        type=positive_int,
        metavar="N",
        help=f"steps before step_cap_reached (default: {DEFAULT_MAX_STEPS})",
    )
    p.add_argument(
        "--context-max-tokens",
        type=positive_int,
        metavar="N",
        help=f"the ceiling of one request, in tokens (default: {DEFAULT_CONTEXT_MAX_TOKENS:,})",
    )
    p.add_argument(
        "--context-share",
        type=share_fraction,
        metavar="F",
        help=f"the share of the unspent budget one request may carry, in (0, 1] (default: "
        f"{DEFAULT_CONTEXT_SHARE})",
    )
    p.add_argument(
        "--context-low-water",
        type=share_fraction,
        metavar="F",
        help=f"when a request is full, the window slides back to this share of its ceiling, "
        f"in (0, 1] (default: {low_water})",
    )
    p.add_argument(
        "--context-wire",
        choices=WIRES,
        metavar="transcript|flat",
        help="how observations are sent: as the model's turns and tool answers (transcript) or "
        f"in one user message (flat) (default: {wire})",
    )


def attachment(text: str) -> Attachment:
    """``src/a.py`` or ``src/a.py:40-52``, relative to the current directory."""
    from harness.run.conversation import Attachment

    path, _, lines = text.rpartition(":")
    found = re.fullmatch(r"(\d+)-(\d+)", lines) if path else None
    if found is None:
        return Attachment(str(Path(text).absolute()))
    first, last = int(found[1]), int(found[2])
    if first < 1 or last < first:
        raise argparse.ArgumentTypeError(f"expected lines L1-L2 with 1 <= L1 <= L2, got {lines!r}")
    return Attachment(str(Path(path).absolute()), first, last - first + 1)


def contract_overrides(args: argparse.Namespace) -> ContractOverrides:
    """What the flags give; a flag not given is ``None`` (the default decides)."""
    from harness.contract import ContextBudgetOverrides, ContractOverrides, Verification

    verification = None
    if args.verify:
        try:
            argv = shlex.split(args.verify)
        except ValueError as exc:
            raise ConfigError(f"--verify: {exc}") from exc
        if not argv:
            raise ConfigError("--verify: the command is empty")
        verification = Verification.command(argv)
    return ContractOverrides(
        verification=verification,
        token_budget=args.token_budget,
        max_steps=args.max_steps,
        context_budget=ContextBudgetOverrides(
            max_tokens=args.context_max_tokens,
            share=args.context_share,
            low_water=args.context_low_water,
        ),
        context_wire=args.context_wire,
        mode="plan" if getattr(args, "plan", False) else None,
    )


def provider_config(args: argparse.Namespace) -> ProviderConfig:
    """Flags win over HARNESS_PROVIDER / HARNESS_MODEL / HARNESS_BASE_URL; ``--script`` alone
    implies the scripted provider."""
    name = args.provider or (
        "scripted" if args.script and not os.environ.get("HARNESS_PROVIDER") else None
    )
    return config_from_env(
        os.environ, name=name, model=args.model, base_url=args.base_url, script=args.script
    )


def command(args: argparse.Namespace) -> int:
    import asyncio

    from harness.run.session import build_contract
    from harness.telemetry import start_telemetry

    goal_and_run(args)
    where = choose_workspace(args.workspace)
    args.goal = args.goal or plan_follow_up(args, where.root)
    contract = build_contract(args.goal, where.root, contract_overrides(args))
    telemetry = start_telemetry(os.environ)
    try:
        result = asyncio.run(
            execute(args, contract, provider_config(args), where, telemetry=telemetry)
        )
        if args.json:
            print(json.dumps(result.to_json()))
    finally:
        if telemetry is not None:  # after the result is printed; bounded (§12)
            telemetry.shutdown()
    return 0 if result.end.outcome.ok else 1


async def execute(
    args: argparse.Namespace,
    contract: TaskContract,
    config: ProviderConfig,
    where: WorkspaceChoice,
    *,
    telemetry: Telemetry | None = None,
    conversation: int | None = None,
    lines: ChatInput | None = None,
) -> RunResult:
    """One run with its live view (its end printed unless ``--json``); ``conversation``:
    a follow-up in it (else ``--continue`` says); ``lines``: ``harness chat``'s terminal
    (approvals answered from it, lines typed meanwhile steer the run)."""
    from harness.cli.approve import default_approver
    from harness.cli.output import console
    from harness.cli.progress import TerminalObserver
    from harness.cli.semantic import headless
    from harness.run.session import Backend, RunRequest, open_session

    interactive = sys.stdin.isatty() and sys.stderr.isatty()
    opened: list[Store] = []

    def store() -> Store:  # opened once the configuration is known to be good
        opened.append(open_store(args))
        return opened[-1]

    observer = TerminalObserver(console(stderr=True), workspace=where.describe())
    semantic = headless(contract.root)
    try:
        if getattr(args, "continue_run", None) is not None:
            conversation = continued(args, store(), contract.root)
        backend = Backend(
            store=opened[0] if opened else store,
            provider=config,
            memory=not args.no_memory,
            telemetry=telemetry,
            semantic=lambda _root: semantic,  # the one run's, made for its root above
        )
        prompts = [lines.prompt] if lines else []
        asks = default_approver(args.yes, interactive, observer.pause, *prompts)
        front = RunRequest(
            asks, observer, observer.event, conversation_id=conversation, context=args.context or ()
        )
        session = await open_session(contract, backend, front)
        observer.model = _model_words(session)
        with lines.steering(session.run.steering.put) if lines else nullcontext():
            result = await _watched(
                session, ignore=[s.location for s in opened if isinstance(s.location, Path)]
            )
        changes = None if args.json else _changes(opened[0], result)
    finally:
        await semantic.close()
        for s in opened:
            s.close()
    if not args.json:
        _print_end(console(), result, observer, changes)
    return result


def _changes(store: Store, result: RunResult) -> RunChanges | None:
    """What the run changed that differs now (for the end's lines); None if unreadable."""
    from harness.revert.changes import run_changes

    if not result.files_changed:
        return None
    try:
        return run_changes(store, result.run_id)
    except HarnessError:  # the workspace is gone: the files line says enough
        return None


def _model_words(session: Session) -> str:
    name, model = session.provider.name, session.provider.model
    return name if model in ("", name) else f"{model} ({name})"


def _print_end(
    out: Console, result: RunResult, observer: TerminalObserver, changes: RunChanges | None
) -> None:
    from harness.cli.summary import end_lines

    for line in end_lines(result, observer.tally, changes):
        out.print(line, soft_wrap=not out.is_terminal)  # piped: one line stays one line


async def _watched(session: Session, ignore: list[Path]) -> RunResult:
    """Execute with the workspace watched and Ctrl-C cancelling at the next safe point."""
    from harness.workspace.watch import Watcher

    watcher = Watcher(session.root, session.run.notify_changed, ignore=ignore)
    import asyncio

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, session.run.cancel)
    try:
        await watcher.start()
        return await session.execute()
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await watcher.stop()
        await session.aclose()


__all__ = [
    "add_run_options",
    "command",
    "contract_overrides",
    "execute",
    "provider_config",
    "register",
]
