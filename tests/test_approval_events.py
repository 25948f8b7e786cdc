"""Approvals are session events (issue 23): a question goes out as ``ApprovalRequested``
on the session's one event stream, the answer comes back through
``AgentSession.answer``; nothing of a front end is handed to the runtime."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tui_fakes import NEW, OLD, PATCH_SPEC, SHELL_SPEC, FakeLoop, make_preview

from frontier.app.agent.approvals import Answer, ApprovalDesk, answer_with, choices_for
from frontier.app.agent.modes import get_mode
from frontier.app.agent.session import AgentSession, EventHub
from frontier.app.events import Event, ToolCall
from frontier.tools.approval_rules import ApprovalRules, CommandRule
from frontier.tools.contract import ApprovalRequested, ApprovalResolved, Decision, Preview
from frontier.tools.policy import PolicyApprover

RUN = ToolCall("c1", "shell", {"command": "pytest -q"})
RUN_PREVIEW = Preview("command", command="pytest -q", summary="shell: pytest -q")


def session_with(
    tmp_path: Path, policy: str = "ask", *, interactive: bool = True
) -> tuple[AgentSession, PolicyApprover, list[Event]]:
    """A real session whose gate is a real ``PolicyApprover`` over the session's desk."""
    events = EventHub()
    seen: list[Event] = []
    events.subscribe(seen.append)
    desk = ApprovalDesk(events.emit, interactive=interactive, rules_possible=lambda: True)
    gate = PolicyApprover(policy, desk, ApprovalRules(tmp_path))
    loop = FakeLoop(tmp_path, events.emit, gate, mode=get_mode("ctl-heredoc"))
    session = AgentSession(
        loop, events, session_id="s", workspace=tmp_path, model="m", policy=gate, approvals=desk
    )
    return session, gate, seen


async def question(seen: list[Event]) -> ApprovalRequested:
    """The state the test needs: the question on the event stream."""
    while not any(isinstance(e, ApprovalRequested) for e in seen):
        await asyncio.sleep(0)
    return next(e for e in seen if isinstance(e, ApprovalRequested))


async def test_a_question_goes_out_as_an_event_and_the_answer_comes_back(tmp_path: Path) -> None:
    session, gate, seen = session_with(tmp_path)
    waiting = asyncio.create_task(gate.approve(RUN, SHELL_SPEC, RUN_PREVIEW))
    asked = await question(seen)
    assert asked.call == RUN and asked.preview == RUN_PREVIEW
    assert asked.choices == ("approve", "deny", "always")
    assert session.waiting_approvals == (asked.request_id,)
    assert not waiting.done(), "the call waits for the person"
    outcome = session.answer(asked.request_id, Decision(False, "not now"))
    assert outcome.taken
    decision = await waiting
    assert decision == Decision(False, "not now")
    resolved = [e for e in seen if isinstance(e, ApprovalResolved)]
    assert [(r.request_id, r.approved, r.reason, r.withdrawn) for r in resolved] == [
        (asked.request_id, False, "not now", False)
    ]
    assert session.answer(asked.request_id, Decision(True)).taken is False, "answered once"
    assert session.waiting_approvals == ()


async def test_always_allow_is_part_of_the_answer_and_the_next_call_is_not_asked(
    tmp_path: Path,
) -> None:
    session, gate, seen = session_with(tmp_path)
    waiting = asyncio.create_task(gate.approve(RUN, SHELL_SPEC, RUN_PREVIEW))
    asked = await question(seen)
    rule = CommandRule("shell", "pytest -q")
    outcome = session.answer(asked.request_id, Answer(Decision(True), always=rule))
    assert outcome.taken and outcome.allowed is not None and outcome.problem is None
    assert (await waiting).approved
    again = await gate.approve(
        ToolCall("c2", "shell", {"command": "pytest -q"}), SHELL_SPEC, RUN_PREVIEW
    )
    assert again.approved and again.by == "an always-allow rule"
    assert sum(isinstance(e, ApprovalRequested) for e in seen) == 1, "asked once"


async def test_a_stopped_turn_withdraws_its_question(tmp_path: Path) -> None:
    session, gate, seen = session_with(tmp_path)
    waiting = asyncio.create_task(gate.approve(RUN, SHELL_SPEC, RUN_PREVIEW))
    asked = await question(seen)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    resolved = [e for e in seen if isinstance(e, ApprovalResolved)]
    assert resolved and resolved[-1].withdrawn and not resolved[-1].approved
    assert session.answer(asked.request_id, Decision(True)).taken is False, "too late"


async def test_with_nobody_to_answer_nothing_is_asked_and_the_refusal_names_the_flag(
    tmp_path: Path,
) -> None:
    session, gate, seen = session_with(tmp_path, interactive=False)
    decision = await gate.approve(RUN, SHELL_SPEC, RUN_PREVIEW)
    assert not decision.approved and "--approval auto" in decision.reason
    assert not any(isinstance(e, ApprovalRequested) for e in seen), "nobody would answer"
    assert session.interactive is False


async def test_a_diff_question_offers_hunks_and_an_escalation_offers_no_rule() -> None:
    diff = make_preview("greet.py", OLD, NEW)
    assert "hunks" in choices_for(PATCH_SPEC, diff, rules=True)
    escalation = Preview("command", command="curl x", escalation="network is off")
    assert choices_for(SHELL_SPEC, escalation, rules=True) == ("approve", "deny", "outside-sandbox")


class Script:
    """A scripted person (what headless's terminal prompt is to the session)."""

    def __init__(self, decision: Decision) -> None:
        self.decision = decision

    async def approve(self, call: ToolCall, spec: object, preview: Preview) -> Decision:
        return self.decision


async def test_answer_with_answers_through_the_same_events(tmp_path: Path) -> None:
    session, gate, seen = session_with(tmp_path)
    answer_with(session, Script(Decision(False, "scripted no")))
    decision = await gate.approve(RUN, SHELL_SPEC, RUN_PREVIEW)
    assert decision.reason == "scripted no"
    kinds = [type(e).__name__ for e in seen if isinstance(e, ApprovalRequested | ApprovalResolved)]
    assert kinds == ["ApprovalRequested", "ApprovalResolved"]
