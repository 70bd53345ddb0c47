"""The ACP front's pure parts: how an outcome ends a turn, what a prompt's blocks make of a
goal and its attachments, and text from the model shown as plain text whatever backticks it holds."""

from __future__ import annotations

import pytest
from acp import resource_link_block, text_block

from harness.run.conversation import Attachment
from harness.types import Outcome
from server.acp.agent import prompt_of, stop_reason
from server.acp.updates import fenced


@pytest.mark.parametrize(
    ("outcome", "reason"),
    [
        (Outcome.SUCCESS, "end_turn"),
        (Outcome.FINISHED, "end_turn"),
        (Outcome.CANCELLED, "cancelled"),
        (Outcome.BUDGET_EXHAUSTED, "max_tokens"),
        (Outcome.STEP_CAP_REACHED, "max_turn_requests"),
        (Outcome.PROVIDER_ERROR, "end_turn"),
        (Outcome.VERIFICATION_FAILED, "end_turn"),
    ],
)
def test_each_outcome_ends_the_turn_with_its_stop_reason(outcome: Outcome, reason: str) -> None:
    assert stop_reason(outcome) == reason


def test_a_prompt_is_its_words_and_the_files_it_attached() -> None:
    blocks = [
        text_block("Fix it"),
        resource_link_block("a.py", "file:///w/a%20b.py"),
        resource_link_block("b.py", "file:///w/b.py#L10:20"),
        resource_link_block("c.py", "file:///w/c.py#L7"),
        resource_link_block("page", "https://example.org/doc"),
    ]
    goal, context = prompt_of(blocks)
    assert goal == "Fix it\n(attached: https://example.org/doc)"
    assert context == [
        Attachment("/w/a b.py"),
        Attachment("/w/b.py", offset=10, limit=11),
        Attachment("/w/c.py", offset=7, limit=1),
    ]
    assert prompt_of([text_block("  ")]) == ("", [])


def test_a_fence_is_longer_than_any_backtick_run_inside() -> None:
    text = "rm -rf /\n```\n[click](command:harness.run)\n````"
    block = fenced(text)
    fence = block.split("\n", 1)[0]
    assert fence == "`" * 5 and block.endswith("\n" + fence)
    assert block[len(fence) + 1 : -len(fence) - 1] == text
