"""Test doubles for the TUI: a scripted agent loop that emits real core events.

``FakeLoop.send`` streams a CTL reply through the real ``CtlTransducer``, asks
the approver with a real ``Preview`` for ``apply_patch`` (and writes the file
only when approved, as the tool boundary would), and runs a "shell" call that
blocks until ``cancel_tool`` (Esc) cancels it with exit 130. The TUI gets it
inside a real ``AgentSession`` (``fake_session``), exactly as it gets the real loop.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from frontier.app.agent.approvals import ApprovalDesk, answer_with
from frontier.app.agent.modes import Mode, get_mode
from frontier.app.agent.session import AgentSession, EventHub
from frontier.app.cst.ctl import CtlTransducer
from frontier.app.events import (
    AssistantText,
    CallReady,
    Event,
    ResponseEnded,
    ResponseStarted,
    StreamBytes,
    ToolCall,
    ToolFinished,
    ToolOutput,
    ToolResult,
    ToolStarted,
    TurnEnded,
)
from frontier.app.model.conversation import Image
from frontier.tools.after_edit import AfterEditChecks
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.diffing import file_preview
from frontier.tools.formatting import Formatters
from frontier.tools.jobs import Jobs

OLD = 'def greet(name):\n    return f"hello {name}"\n'
NEW = (
    "def greet(name, shout=False):\n"
    '    text = f"hello {name}"\n'
    "    return text.upper() if shout else text\n"
)


def make_preview(
    path: str, old: str | None, new: str | None, summary: str = "add a shout flag"
) -> Preview:
    """The preview the core would show for ``old`` → ``new`` (``None``: absent)."""
    file = file_preview(path, _bytes(old), _bytes(new))
    return Preview(kind="diff", files=(file,), summary=summary)


def _bytes(text: str | None) -> bytes | None:
    return None if text is None else text.encode()


SHELL_SPEC = ToolSpec("shell", "run a command", {}, mutates=True, kind="exec")
PATCH_SPEC = ToolSpec("apply_patch", "apply a unified diff", {}, mutates=True, kind="edit")


def ctl_reply(patch: str) -> bytes:
    return (
        "I'll add the flag.\n"
        "call c1 apply_patch\n"
        "arg patch <<EOF\n" + patch + "EOF\n"
        "end\n"
        "call c2 shell\n"
        "arg command pytest -q\n"
        "end\n"
    ).encode()


@dataclass
class FakeLoop:
    root: Path
    emit: Any
    approver: Any
    chunk: int = 7
    results: list[ToolResult] = field(default_factory=list)
    cancelled_tools: int = 0
    shell_started: asyncio.Event = field(default_factory=asyncio.Event)
    _cancel: asyncio.Event = field(default_factory=asyncio.Event)
    transducer: CtlTransducer = field(default_factory=CtlTransducer)
    preview: Preview | None = None
    block_shell: bool = True
    carried: list[ToolResult] = field(default_factory=list)
    mode: Mode = field(default_factory=lambda: get_mode("ctl-heredoc"))
    """What the session reports as its mode (``AgentSession.mode`` reads the loop's)."""
    mode_pending: bool = False
    sent: list[str] = field(default_factory=list)
    """The user message of each turn (slash templates are checked here)."""
    history: list[Any] = field(default_factory=list)
    """What the model would be sent (``/clear`` empties it: ``session_ops.HistoryLoop``)."""
    compactions: int = 0
    effort: str | None = None
    default_effort: str | None = None
    script_tools: bool = True
    """False: every turn is a one-line reply with no call (nothing to review)."""

    def replace_history(self, items: Any) -> None:
        self.history[:] = list(items)

    async def compact_now(self) -> bool:
        """``/compact``: one compaction when there is history to shorten."""
        if len(self.history) < 2:
            return False
        self.compactions += 1
        self.history[:] = self.history[-1:]
        return True

    @property
    def frontier(self) -> int:
        return self.transducer.frontier

    def pending(self) -> bytes:
        return self.transducer.pending()

    def pending_bound(self) -> int:
        return self.transducer.pending_bound()

    def cancel_tool(self) -> bool:
        self.cancelled_tools += 1
        self._cancel.set()
        return True

    def cancel_turn(self) -> None:
        self._cancel.set()

    async def stop_turn(self) -> None:
        """Nothing to wait for: the scripted turn ends with the task that runs it."""

    def set_mode(self, mode: Mode) -> None:
        self.mode = mode

    async def send(self, text: str, images: tuple[Image, ...] = ()) -> TurnEnded:
        self.sent.append(text)
        self.history.append(text)
        if not self.script_tools:
            self.emit(ResponseStarted("ctl-heredoc", len(self.sent) - 1))
            self.emit(AssistantText(f"ok: {text[:20]}"))
            self.emit(ResponseEnded("stop"))
            quiet = TurnEnded("done")
            self.emit(quiet)
            return quiet
        target = self.root / "greet.py"
        self.preview = make_preview("greet.py", target.read_text(), NEW)
        data = ctl_reply(self.preview.files[0].diff)
        self.emit(ResponseStarted("ctl-heredoc", 0))
        calls: list[ToolCall] = []
        for start in range(0, len(data), self.chunk):
            piece = data[start : start + self.chunk]
            self.emit(StreamBytes(start, piece))
            for event in self.transducer.feed(piece):
                self._emit(event, calls)
            await asyncio.sleep(0)
        for event in self.transducer.finish(True):
            self._emit(event, calls)
        self.emit(ResponseEnded("stop"))
        for call in calls:
            result = await self._run(call)
            self.results.append(result)
            self.emit(ToolFinished(result))
        ended = TurnEnded("done")
        self.emit(ended)
        return ended

    def _emit(self, event: Event, calls: list[ToolCall]) -> None:
        self.emit(event)
        if isinstance(event, CallReady):
            calls.append(event.call)
        elif getattr(event, "type", "") == "confirmed" and event.kind == "text":  # type: ignore[attr-defined]
            self.emit(AssistantText(event.data.decode()))  # type: ignore[attr-defined]

    async def _run(self, call: ToolCall) -> ToolResult:
        if call.name == "apply_patch":
            assert self.preview is not None
            decision = await self.approver.approve(call, PATCH_SPEC, self.preview)
            if not decision.approved:
                return ToolResult(call.id, call.name, "denied", f"denied: {decision.reason}")
            self.emit(ToolStarted(call))
            (self.root / "greet.py").write_text(NEW)
            return ToolResult(call.id, call.name, "ok", "patched greet.py", 0, 0.01)
        command = Preview(kind="command", command=str(call.args.get("command")))
        decision = await self.approver.approve(call, SHELL_SPEC, command)
        if not decision.approved:
            return ToolResult(call.id, call.name, "denied", f"denied: {decision.reason}")
        self.emit(ToolStarted(call))
        self.emit(ToolOutput(call.id, "collecting tests\nrunning 3 tests\n"))
        self.shell_started.set()
        if not self.block_shell:
            return ToolResult(call.id, call.name, "ok", "3 passed", 0, 0.2)
        await self._cancel.wait()
        return ToolResult(call.id, call.name, "cancelled", "cancelled by the user", 130, 1.5)


@dataclass
class FakeRuntime:
    """What a test keeps of one session the TUI started: the scripted loop inside it."""

    loop: FakeLoop
    session: AgentSession

    @property
    def closed(self) -> bool:
        return self.session.closed


def fake_session(
    root: Path,
    approver: Any = None,
    *,
    prompts: list[str] | None = None,
    block_shell: bool = True,
    session_id: str = "7f3a2b9c-test",
    model: str = "smollm2",
    mode: str = "ctl-heredoc",
    jobs: Jobs | None = None,
    after_edit: AfterEditChecks | None = None,
    formatters: Formatters | None = None,
) -> FakeRuntime:
    """A real ``AgentSession`` around a ``FakeLoop`` that emits into the session's hub."""
    events = EventHub()
    # issue 23: the loop asks through the session's events; the TUI (or ``approver``,
    # through the same events) answers with ``AgentSession.answer``
    desk = ApprovalDesk(events.emit, interactive=True)
    loop = FakeLoop(root, events.emit, desk, block_shell=block_shell, mode=get_mode(mode))
    session = AgentSession(
        loop,
        events,
        session_id=session_id,
        workspace=root,
        model=model,
        demo_prompts=list(prompts or []),
        approvals=desk,
        jobs=jobs,
        after_edit=after_edit,
        formatters=formatters,
    )
    if approver is not None:
        answer_with(session, approver)
    return FakeRuntime(loop, session)


def fake_factory(
    root: Path,
    holder: list[FakeRuntime],
    prompts: list[str] | None = None,
    block_shell: bool = True,
):
    def factory() -> AgentSession:
        runtime = fake_session(root, prompts=prompts, block_shell=block_shell)
        holder.append(runtime)
        return runtime.session

    return factory


def asking_factory(root: Path) -> tuple[Any, list[FakeRuntime]]:
    """A session factory for review tests: the TUI starts a scripted session that sends
    nothing; :func:`ask` then puts a question to it through the session's own
    ``ApprovalRequested`` path (what a live call's gate does)."""
    holder: list[FakeRuntime] = []
    return fake_factory(root, holder), holder


async def ask(app: Any, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
    """Ask the App's person about ``call`` as a session's gate does (run it in a worker;
    it returns the answer the review gave). Waits for the session the App starts."""
    while app.session is None:  # the state this needs, not a time
        await asyncio.sleep(0)
    desk = app.session._approvals
    assert isinstance(desk, ApprovalDesk)
    decision: Decision = await desk.approve(call, spec, preview)
    return decision
