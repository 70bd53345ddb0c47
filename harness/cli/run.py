"""``harness run GOAL``: one task from the terminal, with live progress and a JSON result."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import signal
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.status import Status

from harness.cli.approve import default_approver
from harness.cli.common import add_store_arg, open_store
from harness.contract import ContextBudgetOverrides, ContractOverrides, TaskContract, Verification
from harness.errors import ConfigError
from harness.escape import printable
from harness.provider import PROVIDER_NAMES, ProviderConfig, config_from_env
from harness.report import RunInfo, RunObserver, RunResult, StepSummary
from harness.session import Session, build_contract, open_session
from harness.store import Store
from harness.types import ToolCall
from harness.watch import Watcher


def register(sub: Any) -> None:
    p = sub.add_parser("run", help="run one task in a workspace")
    p.add_argument("goal", help="what the agent should do")
    p.add_argument("-w", "--workspace", default=".", help="workspace root (default: .)")
    p.add_argument("--provider", choices=PROVIDER_NAMES, default=None)
    p.add_argument("--model", default=None)
    p.add_argument("--base-url", default=None)
    p.add_argument("--script", default=None, help="turns file for --provider scripted")
    p.add_argument("--token-budget", type=_positive_int, default=None)
    p.add_argument("--max-steps", type=_positive_int, default=None)
    p.add_argument("--context-max-tokens", type=_positive_int, default=None)
    p.add_argument("--context-share", type=_share, default=None)
    p.add_argument("--verify", default=None, help='verification command, e.g. "make test"')
    p.add_argument("--no-memory", action="store_true", help="do not recall or write memory")
    p.add_argument("--yes", action="store_true", help="approve every 'ask' without prompting")
    p.add_argument("--json", action="store_true", help="print one JSON result object")
    add_store_arg(p)
    p.set_defaults(func=command)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], got {text!r}")
    return value


def contract_overrides(args: argparse.Namespace) -> ContractOverrides:
    """What the flags give; a flag not given is ``None`` (the default decides)."""
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
            max_tokens=args.context_max_tokens, share=args.context_share
        ),
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
    contract = build_contract(args.goal, args.workspace, contract_overrides(args))
    return asyncio.run(_execute(args, contract, provider_config(args)))


async def _execute(args: argparse.Namespace, contract: TaskContract, config: ProviderConfig) -> int:
    interactive = sys.stdin.isatty() and sys.stderr.isatty()
    opened: list[Store] = []

    def store() -> Store:  # opened once the configuration is known to be good
        opened.append(open_store(args))
        return opened[-1]

    try:
        session = await open_session(
            contract,
            store=store,
            provider=config,
            approver=default_approver(yes=args.yes, interactive=interactive),
            observer=TerminalObserver(Console(stderr=True), quiet=False),
            memory=not args.no_memory,
        )
        result = await _watched(session, ignore=[s.path for s in opened])
    finally:
        for s in opened:
            s.close()
    if args.json:
        print(json.dumps(result.to_json()))
    return 0 if result.outcome.ok else 1


async def _watched(session: Session, ignore: list[Path]) -> RunResult:
    """Execute with the workspace watched and Ctrl-C cancelling at the next safe point."""
    watcher = Watcher(session.root, session.run.notify_changed, ignore=ignore)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGINT, session.run.cancel)
    try:
        await watcher.start()
        return await session.execute()
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        await watcher.stop()
        await session.aclose()


class TerminalObserver(RunObserver):
    """Progress on stderr: rich on a terminal, plain lines otherwise."""

    def __init__(self, console: Console, *, quiet: bool) -> None:
        self.console = console
        self.quiet = quiet
        self._status: Status | None = None

    def _say(self, text: str) -> None:
        """One progress line. Much of it was chosen by the model (paths, commands): every
        control character is escaped so it cannot redraw the terminal (§6.7)."""
        self._stop_status()
        if not self.quiet:
            self.console.print(printable(text), highlight=False, markup=False)

    def _stop_status(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def run_started(self, run: RunInfo) -> None:
        self._say(
            f"run {run.run_id} · {run.root} · budget {run.token_budget:,} tokens, "
            f"{run.max_steps} steps"
        )

    def step_started(self, run: RunInfo, step: int) -> None:
        # A spinner only on a terminal, and never while a tool runs (approval prompts).
        if self.console.is_terminal and not self.quiet:
            self._stop_status()
            self._status = self.console.status(
                f"step {step}/{run.max_steps} · waiting for the model…"
            )
            self._status.start()

    def tool_started(self, run: RunInfo, step: int, call: ToolCall, label: str) -> None:
        self._say(f"  step {step}/{run.max_steps} · {label}")

    def step_finished(self, run: RunInfo, summary: StepSummary) -> None:
        reported = summary.reported_prompt_tokens
        self._say(
            f"  step {summary.step} · request ~{summary.request_tokens:,} tokens "
            f"(ceiling {summary.context_ceiling:,}"
            + (f", reported {reported:,}" if reported is not None else "")
            + f") · carried {summary.carried}, stubbed {summary.stubbed}, "
            f"re-read {summary.reread} · spent {summary.spent_tokens:,}/{summary.token_budget:,}"
        )

    def user_warning(self, run: RunInfo, message: str) -> None:
        self._say(f"warning: {message}")

    def run_finished(self, run: RunInfo, result: RunResult) -> None:
        why = f" ({result.error})" if result.error else ""
        self._say(
            f"run {result.run_id} {result.outcome.value}{why} · {result.steps} steps · "
            f"{result.spent_tokens:,} tokens"
        )
