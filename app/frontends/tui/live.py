"""A live agent in the TUI: the one ``AgentSession`` it holds and what is done with it.

Live, demo, resume and the welcome screen's demo are one mode here. The App holds
one :class:`LiveController` (in every mode but replay), which starts or swaps the
session, sends what the user types and the demo's scripted prompts, cancels,
switches mode, opens another stored session and exports. It knows nothing of the
core but :class:`~frontier.app.agent.session.AgentSession` and
:func:`~frontier.app.agent.session.stored_sessions`: no loop, no store, no
command module, so a change inside the core cannot break the TUI at run time.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from frontier.app.agent.session import AgentSession, SessionBusy, stored_sessions
from frontier.app.events import ToolCall, TurnEnded
from frontier.app.frontends.tui.screens.sessions import SessionPicker
from frontier.tools.contract import Approver, Decision, Preview, ToolSpec
from frontier.widgets.status_bar import StatusInfo

if TYPE_CHECKING:
    from frontier.app.frontends.tui.app import FrontierApp

SessionFactory = Callable[[Approver], AgentSession]
"""``factory(approver) -> AgentSession``; ``create_runtime`` by default, a fake in tests."""


class TuiApprover:
    """``tools.contract.Approver`` that asks the user in the review modal."""

    def __init__(self, app: FrontierApp) -> None:
        self.app = app

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        return await self.app.review(call, spec, preview)


class LiveController:
    """The live modes' half of the App: one session at a time, and the user's ops on it."""

    def __init__(
        self,
        app: FrontierApp,
        *,
        factory: SessionFactory | None = None,
        demo: bool = False,
        demo_rate: float = 60.0,
        session_id: str | None = None,
        workspace: Path | None = None,
    ) -> None:
        self.app = app
        self.factory = factory
        self.demo = demo
        self.demo_rate = demo_rate
        self.session_id = session_id
        """The stored session to resume on start (``frontier resume``, the picker)."""
        self.workspace = workspace
        """Named on the command line: the resumed session's project now lives here."""
        self.approver = TuiApprover(app)
        self.session: AgentSession | None = None
        self._unsubscribe: Callable[[], None] | None = None

    # ------------------------------------------------------------------ starting
    def start(self) -> None:
        """Create the agent session; the demo then sends its scripted prompts."""
        session = self._build()
        if session is not None:
            self._adopt(session)

    def _build(self) -> AgentSession | None:
        """The factory's session, or ``None`` after telling the user why it could not start."""
        try:
            factory = self.factory or self._default_factory
            return factory(self.approver)
        except Exception as exc:
            self.app.state.note(f"could not start the agent: {exc}", "error")
            self.app.notify(
                str(exc), title="could not start the agent", severity="error", timeout=10
            )
            return None

    def _default_factory(self, approver: Approver) -> AgentSession:
        from frontier.app.agent.runtime import create_runtime

        return create_runtime(
            self.app.config,
            approver=approver,
            demo=self.demo,
            demo_rate=self.demo_rate,
            session_id=self.session_id,
            workspace=self.workspace,
        )

    def _adopt(self, session: AgentSession) -> None:
        """Make ``session`` the one the UI shows: its events, its notes, its demo prompts."""
        if self._unsubscribe is not None:
            self._unsubscribe()  # the previous session's events no longer reach the panes
        self.session = session
        self._unsubscribe = session.subscribe(self.app.observe)
        state = self.app.state
        if session.resumed:
            self._announce_resume(session)
        else:
            for note in session.notes:
                state.note(note)
        state.mark("status")
        if session.demo_prompts:
            prompts = list(session.demo_prompts)
            self.app.run_worker(
                self._demo(prompts), name="demo", group="agent", exit_on_error=False
            )
        else:
            self.app.focus_prompt()

    def _announce_resume(self, session: AgentSession) -> None:
        """The stored conversation, then what resuming changed (reconciled calls...)."""
        state = self.app.state
        history = session.history()
        if history:
            state.note(f"── earlier in session {session.session_id} ──")
            state.add_history(history)
        state.note(f"── resumed session {session.session_id} ──")
        state.note(f"{session.workspace} · {session.model or '—'} · {session.mode}")
        for note in session.notes:
            state.note(note)
        for result in session.recovered:
            state.note(f"reconciled {result.call_id} {result.name}: {result.kind}")
        carried = session.carried
        if carried:
            state.note(
                f"{carried} result{'s' if carried != 1 else ''} the model has not seen "
                "will go with your next message"
            )

    # ------------------------------------------------------------------ the demo
    async def _demo(self, prompts: list[str]) -> None:
        for prompt in prompts:
            await self.send(prompt)
        if self.demo and self.app.config.protocol != "native-inc":
            self.app.state.note(
                "Next: press ctrl+n to watch the same task with native tool calls "
                "(native-inc: delta.tool_calls, each call runs when its index is complete), "
                "in a fresh scratch copy."
            )

    @property
    def can_demo_native(self) -> bool:
        """ctrl+n is offered: a demo that has not yet been retold with native calls."""
        return self.demo and self.app.config.protocol != "native-inc"

    def demo_native(self) -> None:
        """Demo only: the same task again in native-inc mode, in a new scratch workspace."""
        app = self.app
        if app.state.turn_running:
            app.notify("wait for the demo turn to end", severity="warning")
            return
        old = self.session
        app.config = replace(app.config, protocol="native-inc")
        app.state.note("── the same task with native tool calls (native-inc) ──")

        async def restart() -> None:
            if old is not None:
                await old.close()
            self.start()
            app.refresh_bindings()  # ctrl+n is done: drop it from the footer

        app.run_worker(restart(), name="demo-native", group="agent", exit_on_error=False)

    # ------------------------------------------------------------------ turns
    async def send(self, text: str) -> TurnEnded | None:
        """Run one user turn (the worker awaits it; the UI stays live)."""
        session = self.session
        if session is None:
            return None
        state = self.app.state
        state.add_user(text)
        state.turn_running = True
        state.mark("status")
        try:
            return await session.send(text)
        except Exception as exc:
            state.note(f"the turn failed: {exc!r}", "error")
            self.app.notify(f"the turn failed: {exc}", severity="error", timeout=10)
            return None
        finally:
            state.turn_running = False
            state.mark("status")

    def submit(self, text: str) -> bool:
        """The message box's Enter: start a turn, or say why not. True when it started."""
        app = self.app
        if self.session is None:
            app.notify(
                "no agent is running: configure an endpoint (see `frontier --help`) "
                "or run `frontier demo`",
                severity="warning",
            )
            return False
        if app.state.turn_running:
            app.notify(
                "the agent is still working — wait, or press Esc to stop it", severity="warning"
            )
            return False
        app.run_worker(self.send(text), name="turn", group="agent", exit_on_error=False)
        return True

    def cancel(self) -> None:
        """Esc: cancel the running tool (exit 130); with none running, stop the turn."""
        session = self.session
        if session is None:
            return
        state = self.app.state
        running = state.running_tools()
        if running and session.cancel_tool():
            call = running[-1].call
            self.app.notify(f"cancelling {call.id} {call.name}…", timeout=2)
        elif state.turn_running:
            session.cancel_turn()
            self.app.notify("stopping the turn…", timeout=2)

    def set_mode(self, name: str) -> None:
        """The palette's "Mode: NAME": applies from the next model request."""
        session = self.session
        if session is None:
            return
        if self.app.state.turn_running:
            self.app.notify("wait for the turn to end before switching mode", severity="warning")
            return
        try:
            session.set_mode(name)
        except (SessionBusy, ValueError) as exc:
            self.app.notify(str(exc), severity="warning")
            return
        self.app.state.mark("status")
        self.app.notify(f"mode {name}: applies from the next message", timeout=3)

    # ------------------------------------------------------------------ other sessions
    def open_picker(self) -> None:
        """Show the session picker (the list is read off the event loop)."""

        async def run() -> None:
            try:
                sessions = await asyncio.to_thread(stored_sessions)
            except Exception as exc:
                self.app.notify(f"cannot list sessions: {exc}", severity="error", timeout=10)
                return
            current = self.session.session_id if self.session is not None else None
            self.app.push_screen(SessionPicker(sessions, current), callback=self.open_chosen)

        self.app.run_worker(run(), name="sessions", exit_on_error=False)

    def open_chosen(self, session_id: str | None) -> None:
        """The picker's choice: resume it, unless it is open already or a turn runs."""
        if session_id is None:
            return
        app = self.app
        if self.session is not None and session_id == self.session.session_id:
            app.notify(f"session {session_id} is already open", timeout=3)
            return
        if app.state.turn_running:
            app.notify(
                "wait for the turn to end (or press Esc to stop it) before opening another session",
                severity="warning",
            )
            return
        app.run_worker(self._resume(session_id), name="resume", group="agent", exit_on_error=False)

    async def _resume(self, session_id: str) -> None:
        """Resume ``session_id`` in place of the current session (kept if resuming fails)."""
        previous = (self.session_id, self.demo)
        self.session_id = session_id
        self.demo = False  # a stored session says itself whether it ran on the demo model
        self.workspace = None  # the command line's --workspace was for the first session
        session = self._build()
        if session is None:
            self.session_id, self.demo = previous
            return
        old = self.session
        self._adopt(session)
        self.app.refresh_bindings()
        if old is not None:
            try:
                await old.close()
            except Exception as exc:  # the new session is open; say why the old one was not
                self.app.notify(f"closing the previous session failed: {exc}", severity="warning")

    def export(self) -> None:
        """The palette's "Export session": Markdown into the current directory."""
        session = self.session
        if session is None:
            return
        stem = f"frontier-session-{session.session_id[:8]}"

        async def run() -> None:
            try:
                text = await session.export("markdown")
                # the process's directory, not the workspace: the agent reads the workspace
                target = await asyncio.to_thread(write_unique, Path.cwd(), stem, text)
            except Exception as exc:
                self.app.notify(f"export failed: {exc}", severity="error")
            else:
                self.app.notify(f"exported to {target}", timeout=5)

        self.app.run_worker(run(), name="export", exit_on_error=False)

    # ------------------------------------------------------------------ the status bar
    def status(self, token_rate: float) -> StatusInfo:
        app, session = self.app, self.session
        state = app.state
        running = state.running_tools()
        if any(row.state == "review" for row in state.tools.values()):
            activity = "review"
        elif running:
            activity = f"running {running[-1].call.id}"
        elif state.turn_running:
            activity = "streaming"
        else:
            activity = "idle"
        return StatusInfo(
            model=(session.model if session else "") or app.config.model or "",
            mode=(session.mode if session else "") or app.config.protocol,
            token_rate=token_rate,
            frontier=state.frontier,
            pending=state.pending_size,
            session=session.session_id if session else "",
            activity=activity,
        )

    def probe(self) -> tuple[int, int] | None:
        """The transducer's own frontier and bound (covers native/eos modes)."""
        if self.session is None:
            return None
        return self.session.frontier, self.session.pending_bound()

    async def close(self) -> None:
        """The App is going away: close the session (provider, store, lock)."""
        session, self.session = self.session, None
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if session is not None:
            await session.close()


def write_unique(directory: Path, stem: str, text: str, suffix: str = ".md") -> Path:
    """Create ``stem.md`` in ``directory``, else ``stem-2.md``, ``stem-3.md``…: an export
    never overwrites a file (exclusive create, so two exports cannot race either)."""
    for n in itertools.count(1):
        path = directory / (f"{stem}{suffix}" if n == 1 else f"{stem}-{n}{suffix}")
        try:
            handle = path.open("x", encoding="utf-8")
        except FileExistsError:
            if n >= 10_000:
                raise FileExistsError(
                    f"{directory}: {stem}{suffix} through {path.name} all exist; "
                    "move old exports away"
                ) from None
            continue
        try:
            with handle:
                handle.write(text)
        except BaseException:
            path.unlink(missing_ok=True)  # no half-written export left behind
            raise
        return path
    raise AssertionError("unreachable")
