"""Approvals as session events: a question out, an answer in (issue 23).

A call that needs a person is not a callback into a front end. The session's
:class:`ApprovalDesk` (the ``ask`` half of ``tools/policy.py``'s gate) emits an
``ApprovalRequested`` event on the session's one event stream and waits; whoever
shows the session (the TUI's review modal, headless's terminal prompt, ``serve``'s
browser, a test) answers with ``AgentSession.answer(request_id, ...)``. Codex's core
protocol (``ExecApprovalRequest`` out, ``ExecApproval`` op in) and Toad's
``RequestPermission`` are the model: no front-end object is handed to the runtime,
and the front end reaches the core only through the session.

Nobody answering is declared when the session is made (``interactive=False``): the
gate then refuses what needs a person, saying how to allow it, instead of waiting for
an answer that never comes.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from frontier.app.events import Event, ToolCall
from frontier.app.record import record
from frontier.app.vocab import ApprovalChoice
from frontier.tools.contract import (
    ApprovalRequested,
    ApprovalResolved,
    Decision,
    Preview,
    ToolSpec,
)

if TYPE_CHECKING:
    from frontier.tools.approval_rules import AllowedRule, Rule


@record
class Answer:
    """A person's answer to one ``ApprovalRequested``: the decision (approve or deny with
    a reason, the hunks declined), and with an approval optionally an "always allow"
    rule (``remember``: saved for the workspace too)."""

    decision: Decision
    always: Rule | None = None
    remember: bool = False


@record
class AnswerOutcome:
    """What ``AgentSession.answer`` did: ``taken`` is False when the question was no
    longer open (answered elsewhere, or withdrawn when the turn stopped); ``allowed`` the
    rule now in force; ``problem`` why the rule could not be made or saved (the decision
    itself still stands)."""

    taken: bool
    allowed: AllowedRule | None = None
    problem: str | None = None


class Answerer(Protocol):
    """Something that can decide a call the way an ``Approver`` does (a terminal prompt,
    a scripted test answer); :func:`answer_with` turns it into an event subscriber."""

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision: ...


def choices_for(spec: ToolSpec, preview: Preview, *, rules: bool) -> tuple[ApprovalChoice, ...]:
    """The answers that apply to this question (``ApprovalRequested.choices``)."""
    out: list[ApprovalChoice] = ["approve", "deny"]
    if preview.kind == "diff" and preview.files:
        out.append("hunks")
    if preview.escalation is not None:
        out.append("outside-sandbox")
    elif rules and not spec.internal:
        out.append("always")
    return tuple(out)


class ApprovalDesk:
    """The session's approver (``tools.contract.Approver``): every question becomes an
    ``ApprovalRequested`` event and waits for ``answer``; a cancelled wait (the turn was
    stopped) withdraws the question with an ``ApprovalResolved``."""

    def __init__(
        self,
        emit: Callable[[Event], None],
        *,
        interactive: bool,
        rules_possible: Callable[[], bool] = lambda: False,
    ) -> None:
        self._emit = emit
        self.interactive = interactive
        """A person answers (``tools/policy.py`` reads it: ``False`` means nobody can)."""
        self._rules_possible = rules_possible
        self._open: dict[str, tuple[asyncio.Future[Answer], ToolCall]] = {}
        self._ids = itertools.count(1)

    @property
    def waiting(self) -> tuple[str, ...]:
        """The questions open now, oldest first."""
        return tuple(self._open)

    def call_of(self, request_id: str) -> ToolCall | None:
        entry = self._open.get(request_id)
        return entry[1] if entry is not None else None

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        request_id = f"q{next(self._ids)}"
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self._open[request_id] = (future, call)
        choices = choices_for(spec, preview, rules=self._rules_possible())
        try:
            self._emit(ApprovalRequested(request_id, call, spec, preview, choices))
            answer = await future
        except asyncio.CancelledError:
            self._open.pop(request_id, None)
            self._emit(
                ApprovalResolved(
                    request_id, call.id, False, "the turn was stopped", "frontier", withdrawn=True
                )
            )
            raise
        self._open.pop(request_id, None)
        decision = answer.decision
        self._emit(
            ApprovalResolved(
                request_id,
                call.id,
                decision.approved,
                decision.reason,
                decision.by,
                decision.declined if decision.approved else (),
                edited=tuple(path for path, _ in decision.edited) if decision.approved else (),
            )
        )
        return decision

    def answer(self, request_id: str, answer: Answer) -> bool:
        """Resolve ``request_id``; False when it is not open (already answered, withdrawn,
        or never asked)."""
        entry = self._open.get(request_id)
        if entry is None or entry[0].done():
            return False
        entry[0].set_result(answer)
        return True

    def withdraw_all(self, reason: str) -> int:
        """Deny every open question (ctrl+c stops the turn: nothing it asked may run)."""
        count = 0
        for future, _ in tuple(self._open.values()):
            if not future.done():
                future.set_result(Answer(Decision(False, reason)))
                count += 1
        return count


class _Session(Protocol):
    """What :func:`answer_with` needs of ``AgentSession`` (no import cycle)."""

    def subscribe(self, observer: Callable[[Event], None]) -> Callable[[], None]: ...
    def answer(self, request_id: str, answer: Answer | Decision) -> AnswerOutcome: ...


def answer_with(session: _Session, answerer: Answerer) -> Callable[[], None]:
    """Answer every ``ApprovalRequested`` of ``session`` with ``answerer`` (a terminal
    prompt, a test's script) — through the same event and ``answer`` path a screen uses.
    Returns the unsubscribe function."""
    tasks: dict[str, asyncio.Task[None]] = {}

    async def decide(event: ApprovalRequested) -> None:
        try:
            decision = await answerer.approve(event.call, event.spec, event.preview)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a question left open would hold the turn forever
            decision = Decision(False, f"the approver failed ({exc})", by="frontier")
        session.answer(event.request_id, decision)

    def forget(request_id: str, _task: asyncio.Task[None]) -> None:
        tasks.pop(request_id, None)

    def observe(event: Event) -> None:
        if isinstance(event, ApprovalRequested):
            task = asyncio.get_running_loop().create_task(
                decide(event), name=f"answer-{event.request_id}"
            )
            tasks[event.request_id] = task
            task.add_done_callback(functools.partial(forget, event.request_id))
        elif isinstance(event, ApprovalResolved) and event.withdrawn:
            asking = tasks.pop(event.request_id, None)
            if asking is not None:
                asking.cancel()  # the turn stopped: nobody waits for this answer any more

    return session.subscribe(observe)
