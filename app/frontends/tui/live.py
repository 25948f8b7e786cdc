"""A live agent in the TUI: the one ``AgentSession`` it holds and what is done with it.

Live, demo, resume and the welcome screen's demo are one mode here. The App holds
one :class:`LiveController` (in every mode but replay), which starts or swaps the
session, sends what the user types and the demo's scripted prompts, cancels,
switches mode, opens another stored session and exports. It knows nothing of the
core but :class:`~frontier.app.agent.session.AgentSession`,
:func:`~frontier.app.agent.session.stored_sessions` and the pure explanation of a
response's bytes (``app/agent/explain.py``, the inspector's): no loop, no store, no
command module, so a change inside the core cannot break the TUI at run time.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from frontier.app.agent.person_command import command_of
from frontier.app.events import Event, QueuedDelivered, ResponseStarted, TurnEnded
from frontier.app.files import write_atomic
from frontier.app.frontends.run_tally import RunTally
from frontier.app.frontends.tui.host import BindingsChanged, FocusPrompt
from frontier.app.loop_hop import to_loop
from frontier.app.record import replace
from frontier.app.vocab import APPROVAL_MEANINGS, NATIVE_MODES
from frontier.tools.approval_rules import Rule
from frontier.tools.patch_summary import interrupted_changes
from frontier.widgets.display import rule_text
from frontier.widgets.prompt_input import PromptBox
from frontier.widgets.state import ErrorRow
from frontier.widgets.status_bar import StatusInfo
from frontier.widgets.transcript import code_theme_of, warm_renderers

if TYPE_CHECKING:  # the inspector's explanations: imported when first asked (issue 24)
    from frontier.app.agent.attachments import Prepared
    from frontier.app.agent.explain import Explanation
    from frontier.app.agent.history_events import HistoryRead
    from frontier.app.agent.session import AgentSession
    from frontier.app.frontends.tui.host import Host

SessionFactory = Callable[[], "AgentSession"]
"""``factory() -> AgentSession`` (interactive: the App answers its ``ApprovalRequested``
events); ``create_runtime`` by default, a fake in tests."""


class LiveController:
    """The live modes' half of the App: one session at a time, and the user's ops on it."""

    def __init__(
        self,
        app: Host,
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
        self.session: AgentSession | None = None
        self.tally = RunTally(time.monotonic())
        """What the session shown did in this run (its closing line, printed at exit)."""
        self._unsubscribe: Callable[[], None] | None = None
        self._after_queued: Prepared | None = None
        """A message sent while earlier ones were still queued: shown once they are."""
        self._asked = 0
        """Requests this turn has made, and whether queued messages joined it (a message
        too long for the model goes back to the box only if the model never answered it)."""
        self._joined = False
        self._delivered: tuple[tuple[str, ...], int] = ((), 0)
        """The queued messages that joined this turn last, as typed, and ``_asked`` then."""
        self._history_warned = False
        self._undoing = False
        """An undo is under review or being written: no turn starts meanwhile."""
        self._rewind_armed = False
        """Esc was pressed once at an idle, empty box: a second opens the rewind picker."""
        self.starting = True
        """The session is still to be built (just after the first paint): a message sent
        meanwhile waits in the box, and is sent once it is (``_send_when_ready``)."""
        self._send_when_ready = False
        self._building = False
        """A session is being built (its thread runs): the status bar says so."""
        self._history_shown: str | None = None
        """The session whose history was shown before it was built (``_read_ahead``)."""
        self._history_ahead: tuple[AgentSession, list[Event] | Exception] | None = None
        """A resumed session's earlier conversation (or why it could not be read), read on
        its build's thread (:meth:`_read_ahead`) and taken by the next :meth:`_adopt`."""

    # ------------------------------------------------------------------ starting
    def start(self) -> None:
        """Create the agent session (in a thread: see :meth:`_built`); the demo then
        sends its scripted prompts."""
        self.app.run_worker(self._start(), name="start", group="agent", exit_on_error=False)

    async def _start(self) -> None:
        session = await self._built()
        if session is not None:
            self._adopt(session)
        self._send_held(session)

    def _send_held(self, session: AgentSession | None) -> None:
        """Send the message the user pressed Enter on while the session was being built
        (as the box then reads), now that it is."""
        if self._send_when_ready:
            self._send_when_ready = False
            box = self._prompt_box()
            if session is not None and box is not None and box.prompt.text.strip():
                prompt = box.prompt
                prompt.post_message(prompt.Submitted(prompt, prompt.text, prompt.editing))

    async def _built(self) -> AgentSession | None:
        """The factory's session, or ``None`` after telling the user why it could not start.

        Built in a thread, never on the event loop: building opens the store, asks
        ``git``, reads the instructions, may run ``api_key_command``, and (until stop 38)
        waited for the MCP servers up to each one's ``startup_timeout``; on the loop that
        froze the screen (no key, no paint, not even ctrl+c). The servers now start in
        the background (``mcp_in_background``). While it builds the status bar says
        "starting the agent", and a message sent meanwhile waits in the box
        (``starting``: ``submit``)."""
        factory = self.factory or self._default_factory
        self.starting = self._building = True
        self.app.state.mark("status")
        warm = functools.partial(warm_renderers, code_theme_of(self.app.current_theme))
        keep = self.app.state.transcript.maxlen
        # the first session of a `frontier resume`: its stored talk is shown before the
        # session is built (a person's own store; a test's factory builds its own)
        early = self.factory is None and self.session is None and self.session_id is not None
        show = to_loop(self._show_early)
        try:
            return await _in_a_thread(
                lambda: self._read_ahead(
                    factory, warm, keep, show if early else None, self.session_id
                )
            )
        except Exception as exc:
            if self._history_shown is not None:  # shown before the build: end that part
                self._history_shown = None
                self.app.state.show_history(())
            self.app.state.note(f"could not start the agent: {exc}", "error")
            self.app.notify(
                str(exc), title="could not start the agent", severity="error", timeout=10
            )
            return None
        finally:
            self.starting = self._building = False
            self.app.state.mark("status")

    def _read_ahead(
        self,
        factory: Callable[[], AgentSession],
        warm: Callable[[], None],
        keep: int | None,
        show: Callable[[tuple[str, HistoryRead]], None] | None,
        session_id: str | None,
    ) -> AgentSession:
        """On the build's thread: build the session and read a resumed one's history,
        made into events there, not on the screen's loop, which it held 0.04 s at 1,000
        calls and 0.15 s at 4,000 (keys and paints waited). A failure is raised where the
        history is shown, as it was when it was read there: the session itself was made,
        and it is adopted (and closed) as any other. Only the tail that makes the ``keep``
        entries the Transcript keeps is read. ``warm`` first loads the replies' renderer,
        which the Transcript's first paint of the history would otherwise load on the
        loop (35-45 ms held).

        ``show`` (the first session of ``frontier resume``): the history is read from the
        store and shown before the session is built, which imports the model's client
        and opens, locks and reconciles the session (~0.12 s after the first paint for a
        session of 10 calls); the rows the build then writes (reconciled results) are
        shown after it (``AgentSession.history_since``)."""
        early: HistoryRead | None = None
        if show is not None and session_id is not None:
            # any failure here (no such session, a store that cannot be read) is met again,
            # and said, by the read once the session is built, as without this step
            with contextlib.suppress(Exception):
                from frontier.app.agent import session as stored

                warm()
                early = stored.stored_history(session_id, keep)
            if early is not None and early.events:
                show((session_id, early))
            else:
                early = None
        session = factory()
        if session.resumed:
            try:
                if early is not None and session.session_id == session_id:
                    self._history_ahead = (session, session.history_since(early))
                else:
                    warm()
                    self._history_ahead = (session, session.history_events(keep))
            except Exception as exc:  # raised by ``_announce_resume``, on the loop
                self._history_ahead = (session, exc)
        return session

    def _show_early(self, read: tuple[str, HistoryRead]) -> None:
        """A stored session's talk, read before it was built (see ``_read_ahead``)."""
        session_id, history = read
        state = self.app.state
        state.note(f"── earlier in session {session_id} ──")
        state.show_history(history.events, more=True)  # the rest when built: _announce_resume
        self._history_shown = session_id

    def _default_factory(self) -> AgentSession:
        """``create_runtime`` as a person's session is built: interactive, the MCP servers
        started in the background."""
        from frontier.app.agent.runtime import create_runtime

        return create_runtime(
            self.app.config,
            interactive=True,  # the App answers the session's ApprovalRequested events
            demo=self.demo,
            demo_rate=self.demo_rate,
            session_id=self.session_id,
            workspace=self.workspace,
            # the app's scrubber (the config's key, URL credentials and secret-looking
            # environment values, as headless uses): the store and the panes mask the same
            scrubber=self.app.state.scrubber,
            # the screen and the first message never wait for a slow MCP server: the first
            # request waits a short grace, then goes without the tools of those still starting
            mcp_in_background=True,
        )

    def _adopt(self, session: AgentSession) -> None:
        """Make ``session`` the one the UI shows: its events, its notes, its demo prompts."""
        if self._unsubscribe is not None:
            self._unsubscribe()  # the previous session's events no longer reach the panes
        left = len(self.session.queued()) if self.session is not None else 0
        if left:
            self.app.state.note(
                f"{left} queued message{'s' if left != 1 else ''} of session "
                f"{self.session.session_id if self.session else ''} not sent: the session changed"
            )
        previous, self.session = self.session, session
        ahead, self._history_ahead = self._history_ahead, None
        if previous is not session:
            self.tally = RunTally(time.monotonic())
        self._unsubscribe = session.subscribe(self._observe)
        self._wire_prompt()
        state = self.app.state
        state.scrubber = session.scrubber  # secrets never reach a pane (or the clipboard)
        if previous is not None and previous is not session:
            # every pane starts over; the Transcript keeps the earlier talk above a rule
            state.new_session(f"new session {session.session_id} · {session.mode}")
        if session.resumed:
            read = ahead[1] if ahead is not None and ahead[0] is session else None
            self._announce_resume(session, read)
        else:
            for note in session.notes:
                state.note(note)
        state.mark("status")
        self.app.post_message(BindingsChanged())  # the session's keys (shift+tab) are live
        if session.demo_prompts:
            prompts = list(session.demo_prompts)
            self.app.run_worker(
                self._demo(prompts), name="demo", group="agent", exit_on_error=False
            )
        else:
            self.app.post_message(FocusPrompt())

    def _announce_resume(
        self, session: AgentSession, read: list[Event] | Exception | None = None
    ) -> None:
        """The stored conversation (``read`` ahead on the build's thread, else read
        here), then what resuming changed (reconciled calls...)."""
        state = self.app.state
        shown, self._history_shown = self._history_shown, None
        if isinstance(read, Exception):
            if shown is not None:
                state.show_history(())  # the part shown before the build ends here
            raise read
        if shown == session.session_id:  # shown before the build: what it wrote follows
            state.show_history(read or ())
            history: list[Event] = []
        else:
            history = session.history_events(state.transcript.maxlen) if read is None else read
        if history:
            state.note(f"── earlier in session {session.session_id} ──")
            state.show_history(history)
        state.note(f"── resumed session {session.session_id} ──")
        state.note(f"{session.workspace} · {session.model or '—'} · {session.mode}")
        for note in session.notes:
            state.note(note)
        for result in session.recovered:
            said = interrupted_changes(result.meta)
            state.note(f"reconciled {result.call_id} {result.name}: {result.kind}{said}")
        for notice in session.notices:
            state.note(f"the model is told with your next message: {notice}")
        carried = session.carried
        if carried:
            state.note(
                f"{carried} result{'s' if carried != 1 else ''} the model has not seen "
                "will go with your next message"
            )

    # ------------------------------------------------------------------ the demo
    async def _demo(self, prompts: list[str]) -> None:
        from frontier.app.frontends.demo_ending import DemoOutcome, demo_ending

        outcome = DemoOutcome()  # the ending says what happened, a denial included
        stop = self.session.subscribe(outcome.observe) if self.session is not None else None
        try:
            for prompt in prompts:
                await self.send(prompt)
        finally:
            if stop is not None:
                stop()
        note = demo_ending(outcome, offer_native=self.can_demo_native) if self.demo else None
        if note is not None:
            self.app.state.note(note)

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

        async def restart() -> None:
            if old is not None:
                await old.close()
            await self._start()
            if self.session is not old:  # below the new session's rule
                app.state.note("── the same task with native tool calls (native-inc) ──")
            app.post_message(BindingsChanged())  # ctrl+n is done: drop it from the footer

        app.run_worker(restart(), name="demo-native", group="agent", exit_on_error=False)

    # ------------------------------------------------------------------ turns
    async def send(self, text: str) -> TurnEnded | None:
        """Run one user turn (the worker awaits it; the UI stays live)."""
        session = self.session
        if session is None:
            return None
        with self._working():
            return await self._turn(session, text)

    async def _turn(self, session: AgentSession, text: str) -> TurnEnded | None:
        state = self.app.state
        try:
            # @path files are read off the event loop; what goes to the model is shown
            prepared = await asyncio.to_thread(session.attach, text) if text else None
            if session.queued():  # typed earlier, so they come first (QueuedDelivered)
                self._after_queued = prepared
            elif prepared is not None:
                self._show_sent(prepared)
            self._asked, self._joined, self._delivered = 0, False, ((), 0)
            if prepared is not None:
                ended = await session.send(prepared.text, prepared.images)
            else:
                ended = await session.send("")
            refused = self._refused(text) if ended.reason == "too_long" else ""
            if refused:
                self._give_back(refused)
            return ended
        except Exception as exc:
            state.note(f"the turn failed: {exc!r}", "error")
            self.app.notify(f"the turn failed: {exc}", severity="error", timeout=10)
            return None

    @contextlib.contextmanager
    def _working(self) -> Iterator[None]:
        """The screen while a turn (or the person's ``!`` command) runs: the status bar
        works, Esc interrupts (the footer says so), a message typed is queued; an Esc
        before it is not half of an Esc Esc."""
        state = self.app.state
        state.turn_running = True
        self._rewind_armed = False
        state.progress.start_turn(state.clock())
        state.mark("status")
        self.app.post_message(BindingsChanged())
        try:
            yield
        finally:
            state.turn_running = False
            state.progress.end_turn()
            state.mark("status")
            self.app.post_message(BindingsChanged())

    async def run_command(self, command: str) -> None:
        """``!COMMAND``: the person's command runs as a turn does for the screen (the
        status bar works, Esc stops it, a message typed meanwhile is queued and goes once
        it ends, with its output); the model is told at the next message."""
        session = self.session
        if session is None:
            return
        state = self.app.state
        state.add_user(f"!{command}", message=False)  # the next message carries it
        with self._working():
            try:
                result = await session.run_command(command)
            except Exception as exc:
                state.note(f"the command could not run: {exc}", "error")
                return
        ended = f"exit {result.exit_code}" if result.kind in ("ok", "error") else result.kind
        self.app.call_back(f"your command ended ({ended})")  # a long one, run while away
        if session.queued():  # typed while it ran: they go now, with its output
            self.app.run_worker(self.send(""), name="turn", group="agent", exit_on_error=False)
        else:
            state.note("the model sees this command and its output with your next message")

    def submit(self, text: str, *, editing: int | None = None) -> bool:
        """The message box's Enter: start a turn; while the agent works, queue the message
        for its next request; ``editing`` saves (or, emptied, removes) a queued message.
        True when the text was taken (the box is then emptied)."""
        app = self.app
        session = self.session
        if self._building or (session is None and self.starting):
            # the text stays in the box, and is sent (as it then reads) once the session
            # exists: a message typed as the screen appears (or while /new or a resume
            # builds the next session) is neither refused nor sent to the old session
            self._send_when_ready = True
            app.notify("the agent is starting: the message goes the moment it is ready")
            return False
        if session is None:
            app.notify(
                "no agent is running: configure an endpoint (see `frontier --help`) "
                "or run `frontier demo`",
                severity="warning",
            )
            return False
        text = text.rstrip().lstrip("\n")
        if editing is not None:
            return self._save_queued(session, editing, text)
        if text.startswith("/"):  # slash commands: app/frontends/tui/slash_actions.py
            from frontier.app.frontends.tui.slash_actions import run_slash

            taken = run_slash(self, session, text)
            if taken is not None:
                return taken
        if self._undoing:
            app.notify("wait for the undo to finish", severity="warning", timeout=3)
            return False
        command = command_of(text)
        if command is not None:  # `!COMMAND`: the person's own (app/agent/person_command.py)
            if app.state.turn_running:
                app.notify(
                    "wait for the turn to end (or press Esc to stop it) before running a "
                    "command; a message that starts with a blank is sent as it reads",
                    severity="warning",
                    timeout=6,
                )
                return False
            self._remember(session, text)
            app.run_worker(
                self.run_command(command), name="command", group="agent", exit_on_error=False
            )
            return True
        if not text:
            if session.queued() and not app.state.turn_running:
                # Enter on an empty prompt sends what a stopped turn left queued
                app.run_worker(self.send(""), name="turn", group="agent", exit_on_error=False)
                return True
            return False
        self._remember(session, text)
        if app.state.turn_running:
            session.queue(text)
            self._show_queue()
            return True
        app.run_worker(self.send(text), name="turn", group="agent", exit_on_error=False)
        return True

    # ------------------------------------------------------------------ undo
    def _undo_typed(self, session: AgentSession, text: str) -> bool:
        """``/undo [CALL]`` typed in the message box (kept in ↑ history)."""
        if self.app.state.turn_running or self._undoing:
            self.app.notify(
                "wait for the turn to end (or press Esc to stop it) before undoing",
                severity="warning",
            )
            return False
        self._remember(session, text)
        self.undo(text[len("/undo") :].strip() or None)
        return True

    def undo(self, call: str | None = None) -> None:
        """``/undo [CALL]`` and the palette's "Undo": put back the files of the newest change
        still in effect (or of ``CALL``), reviewed first; a refusal says which file changed."""
        session = self.session
        app = self.app
        if session is None:
            return
        if app.state.turn_running or self._undoing:
            app.notify("wait for the turn to end before undoing", severity="warning")
            return
        self._undoing = True

        async def run() -> None:
            from frontier.app.agent.session import SessionBusy

            state = app.state
            try:
                outcome = await session.undo(call)
            except (SessionBusy, ValueError) as exc:
                app.notify(str(exc), severity="warning")
                return
            except Exception as exc:
                state.note(f"the undo failed: {exc!r}", "error")
                app.notify(f"the undo failed: {exc}", severity="error", timeout=10)
                return
            finally:
                self._undoing = False
                app.post_message(FocusPrompt())
            if outcome.undone:
                head = outcome.message.splitlines()[0]
                state.note(f"{head} — the model is told with your next message")
                app.notify(f"{head} (/undo {outcome.undo_id} puts it back)", timeout=5)
            elif outcome.kind == "denied":
                app.notify("undo denied: nothing written", timeout=3)
            else:
                state.note(f"undo: {outcome.message}")
                app.notify(outcome.message, title="undo", severity="warning", timeout=10)

        app.run_worker(run(), name="undo", exit_on_error=False)

    # ------------------------------------------------------------------ the message box
    def _observe(self, event: Event) -> None:
        """The session's events: the panes' state first, then what the box shows."""
        self.app.observe(event)
        self.tally(event)
        if isinstance(event, ResponseStarted):
            self._asked += 1
        elif isinstance(event, QueuedDelivered):
            self._joined, self._delivered = True, (event.texts, self._asked)
            state = self.app.state
            for n, text in enumerate(event.texts):  # one message to the model
                state.add_user(text, message=n == 0)
            for note in event.notes:
                state.note(note)
            if self._after_queued is not None:
                self._show_sent(self._after_queued)
                self._after_queued = None
            self._show_queue()
        elif isinstance(event, TurnEnded) and self.session is not None:
            left = len(self.session.queued())
            if left:
                self.app.state.note(
                    f"{left} queued message{'s' if left != 1 else ''} not delivered "
                    f"(the turn ended: {event.reason}): they go with your next message — "
                    "Enter on an empty prompt sends them now, ↑ edits them"
                )

    def _refused(self, text: str) -> str:
        """What the model refused as too long without ever answering it, as the person
        typed it: ``text`` when it was refused before, or at, its first request; when
        queued messages joined the turn, the last of them to join (with ``text`` when they
        went in one message with it, at the turn's start), refused at the request that
        carried them. ``""`` when the model had answered it."""
        if not self._joined:
            return text if self._asked <= 1 else ""
        texts, asked = self._delivered
        if self._asked - asked > 1:
            return ""
        return "\n\n".join([*texts, text] if text and asked == 0 else texts)

    def _give_back(self, text: str) -> None:
        """A message too long for the model never reached it: back in the box to shorten,
        unless the person has started another (then ↑ still finds it)."""
        box = self._prompt_box()
        if box is None or not box.prompt.is_empty or box.prompt.editing is not None:
            self.app.state.note("the model did not take your message: ↑ brings it back")
            return
        box.prompt.give_back(text)
        self.app.state.note(
            "the model did not take your message: it is back in the box (ctrl+z empties it)"
        )

    def _show_sent(self, prepared: Prepared) -> None:
        """The transcript's "you" entry, and a line per attached file (or why not)."""
        state = self.app.state
        state.add_user(prepared.typed)
        for note in prepared.notes():
            state.note(note)

    def keep_draft(self) -> str:
        """At quit: a message typed in the box and never sent goes into the prompt
        history, so ↑ brings it back next time (quitting lost it). What to say once the
        terminal is restored, or ``""`` when nothing was typed (a queued message being
        edited is the queue's: it was remembered when it was sent)."""
        session, box = self.session, self._prompt_box()
        if session is None or box is None or box.prompt.editing is not None:
            return ""
        text = box.prompt.text
        if not text.strip():
            return ""
        from frontier.app.session.prompt_history import ENTRY_MAX

        if len(text) > ENTRY_MAX:
            return (
                f"Your unsent message ({len(text):,} characters) was too long to keep in the "
                "prompt history."
            )
        history = session.prompt_history
        history.add(text)  # kept, or the newest entry already
        if history.problem:
            return f"Your unsent message could not be kept: {history.problem}."
        return "Your unsent message is kept: ↑ in the message box brings it back."

    def queued_note(self) -> str:
        """At quit: messages typed during the turn and still queued never reached the
        model, and nothing said so (the row above the box went with the screen). They
        were remembered when queued, so ↑ brings them back; ``""`` when none wait."""
        session = self.session
        waiting = len(session.queued()) if session is not None else 0
        if not waiting:
            return ""
        if waiting == 1:
            return "Your queued message was not sent: ↑ in the message box brings it back."
        return (
            f"Your {waiting} queued messages were not sent: ↑ in the message box brings them back."
        )

    def commands_note(self) -> str:
        """At quit: a ``!`` command's output still waiting for the next message is not
        kept (``person_command.py``): say so, and that ↑ brings the command back."""
        from frontier.app.notices import PERSON_RAN_OPENING

        session = self.session
        notices = session.notices if session is not None else ()
        waiting = [n for n in notices if n.startswith(PERSON_RAN_OPENING)]
        if not waiting:
            return ""
        what = "Your ! command's output was" if len(waiting) == 1 else "Your ! commands' output was"
        return f"{what} not given to the model (it goes with a message): ↑ brings the command back."

    def _remember(self, session: AgentSession, text: str) -> None:
        """Keep ``text`` for ↑/ctrl+r (scrubbed, per workspace); say once if it cannot be."""
        history = session.prompt_history
        history.add(text)
        box = self._prompt_box()
        if box is not None:
            box.prompt.prompts = history.entries()
        if history.problem and not self._history_warned:
            self._history_warned = True
            self.app.notify(
                f"{history.problem}; earlier prompts are kept for this run only",
                severity="warning",
                timeout=8,
            )

    def _save_queued(self, session: AgentSession, message_id: int, text: str) -> bool:
        """Enter while editing queued message ``message_id``: save it in place, or remove
        it when emptied. Delivered meanwhile: the edit becomes a new message."""
        from frontier.app.agent.session import NotQueued

        try:
            if not text:
                session.remove_queued(message_id)
                self.app.notify(f"removed queued message #{message_id}", timeout=3)
            else:
                session.edit_queued(message_id, text)
        except NotQueued:
            if not text:
                self.app.notify(f"queued message #{message_id} had already gone to the model")
            else:
                self.app.notify(
                    f"queued message #{message_id} had already gone to the model; "
                    "your edit is sent as a new message",
                    timeout=5,
                )
                return self.submit(text)
        self._show_queue()
        return True

    def _prompt_box(self) -> PromptBox | None:
        return self.app.prompt_box()

    def _wire_prompt(self, tries: int = 50) -> None:
        """Give the message box this session's history, queue and workspace files (once
        the main screen is mounted: at start-up the session can come first)."""
        box = self._prompt_box()
        if box is None or not box.is_mounted:
            if tries > 0:
                self.app.call_after_refresh(self._wire_prompt, tries - 1)
            return
        prompt = box.prompt
        session = self.session
        prompt.prompts = session.prompt_history.entries() if session is not None else []
        prompt.queued_source = self._queued_pairs
        prompt.file_source = session.workspace_files if session is not None else None
        prompt.file_search = session.search_files if session is not None else None
        prompt.command_source = session.slash_commands if session is not None else None
        from frontier.app.agent.attachments import dropped_image  # with the session: loaded

        prompt.dropped = dropped_image
        prompt.forget_files()
        self._show_queue()

    def _queued_pairs(self) -> list[tuple[int, str]]:
        session = self.session
        return [(m.id, m.text) for m in session.queued()] if session is not None else []

    def _show_queue(self) -> None:
        box = self._prompt_box()
        if box is not None and box.is_mounted:
            box.show_queue(self._queued_pairs())

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
            state.stopping("Esc")
            session.cancel_turn()
            self.app.notify("stopping the turn…", timeout=2)

    def disarm_rewind(self) -> None:
        """Something was typed: the next Esc is a first one again."""
        self._rewind_armed = False

    def escape_idle(self) -> None:
        """Esc at an idle, empty message box: the first says what a second does, the
        second opens the rewind picker (Claude Code's and Codex CLI's Esc Esc). Anything
        typed or sent in between disarms it (no clock: a loaded machine's slow keys
        still count)."""
        session = self.session
        box = self._prompt_box()
        if session is None or self._undoing or box is None or not box.prompt.is_empty:
            self._rewind_armed = False
            return
        if not self._rewind_armed:
            self._rewind_armed = True
            self.app.notify("Esc again: rewind to before one of your messages", timeout=3)
            return
        self._rewind_armed = False
        self.rewind()

    def rewind(self) -> None:
        """The rewind picker (Esc Esc, the palette; ``/rewind`` runs the same), when no turn
        or undo is running."""
        session = self.session
        if session is None:
            return
        from frontier.app.frontends.tui.slash_actions import SlashContext, open_rewind

        ctx = SlashContext(self, session, "/rewind")
        if ctx.idle("rewinding"):  # the same refusal as the typed command's
            open_rewind(ctx)

    def interrupt(self) -> bool:
        """ctrl+c: stop the running turn — a question waiting for an answer is withdrawn
        with it (``ApprovalResolved(withdrawn)``: the modal closes, the call never runs).
        False when no turn was running."""
        session = self.session
        if session is None or not self.app.state.turn_running:
            return False
        self.app.state.stopping("ctrl+c")
        session.cancel_turn()
        return True

    # ------------------------------------------------------------------ approvals
    def cycle_approval(self) -> None:
        """shift+Tab: the next approval policy (``app/vocab.py`` order), from the next call."""
        session = self.session
        if session is None:
            if self.starting:
                self.app.notify("the agent is starting: shift+tab again in a moment", timeout=3)
            return
        policies = list(session.approvals)
        current = session.approval
        following = policies[(policies.index(current) + 1) % len(policies)]
        self.set_approval(following)

    def set_approval(self, policy: str) -> None:
        """Gate the next calls with ``policy``; a review already open keeps its question."""
        session = self.session
        if session is None:
            return
        try:
            session.set_approval(policy)
        except ValueError as exc:
            self.app.notify(str(exc), severity="warning")
            return
        self.app.state.mark("status")
        self.app.notify(f"approval {policy}: {APPROVAL_MEANINGS[policy]}", timeout=3)

    def revoke(self, rule: Rule) -> None:
        """The palette's "Revoke": the rule no longer approves anything (nor is remembered)."""
        session = self.session
        if session is None:
            return
        try:
            removed = session.revoke_rule(rule)
        except (OSError, ValueError) as exc:
            self.app.notify(f"revoked for this session; saving failed: {exc}", severity="warning")
            return
        if removed:
            self.app.state.note(f"no longer always allowed: {rule_text(rule)}")
            self.app.notify(f"revoked: {rule_text(rule)}", timeout=3)

    def set_mode(self, name: str) -> None:
        """The palette's "Mode: NAME": applies from the next model request."""
        session = self.session
        if session is None:
            return
        if self.app.state.turn_running:
            self.app.notify("wait for the turn to end before switching mode", severity="warning")
            return
        from frontier.app.agent.session import SessionBusy

        try:
            session.set_mode(name)
        except (SessionBusy, ValueError) as exc:
            self.app.notify(str(exc), severity="warning")
            return
        self.app.state.mark("status")
        self.app.notify(
            f"mode {name} from the next message (recorded: a resume keeps it)", timeout=3
        )

    # ------------------------------------------------------------------ other sessions
    def open_picker(
        self, then: Callable[[str | None], None] | None = None, here: Path | None = None
    ) -> None:
        """Show the session picker (the list is read off the event loop); the choice goes
        to ``then`` (by default :meth:`open_chosen`: resume it in place of this one).
        ``here``: a workspace whose sessions the list starts filtered to."""

        async def run() -> None:
            from frontier.app.agent.session import stored_sessions

            try:
                sessions = await asyncio.to_thread(stored_sessions)
            except Exception as exc:
                self.app.notify(f"cannot list sessions: {exc}", severity="error", timeout=10)
                if then is not None:
                    then(None)
                return
            current = self.session.session_id if self.session is not None else None
            from frontier.app.frontends.tui.screens.sessions import SessionPicker

            where = str(here.expanduser().resolve()) if here is not None else None
            self.app.push_screen(
                SessionPicker(sessions, current, where), callback=then or self.open_chosen
            )

        self.app.run_worker(run(), name="sessions", exit_on_error=False)

    def pick_then_start(self, none_chosen: Callable[[], None]) -> None:
        """``frontier resume`` with no id: the picker comes before any session is built
        (as Codex's ``codex resume``); the one chosen is resumed, and with none (Esc)
        ``none_chosen`` says what happens instead (a new session here)."""

        def chosen(session_id: str | None) -> None:
            if session_id is None:
                none_chosen()
                return
            self.session_id = session_id
            self.workspace = None  # --workspace said where to start; the session knows its own
            self.start()

        here = self.workspace or Path(self.app.config.workspace or ".")
        self.open_picker(chosen, here)

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
        session = await self._built()
        if session is None:
            self.session_id, self.demo = previous
            self._send_held(None)
            return
        old = self.session
        self._adopt(session)
        self.app.post_message(BindingsChanged())
        self._send_held(session)
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
    def status(self, token_rate: float | None) -> StatusInfo:
        app, session = self.app, self.session
        state = app.state
        progress = state.progress
        now = state.clock()
        working = progress.elapsed(now) if state.turn_running else None
        window = session.context_window if session is not None else None
        used = progress.context_used
        context = min(1.0, used / window) if window and used is not None else None
        running = state.running_tools()
        if any(row.state == "review" for row in state.tools.values()):
            activity = "review"
        elif running:
            activity = f"running {running[-1].call.id}"
        elif state.summarising:  # a compaction's request: its text is not the reply
            activity = "summarising earlier rounds"
        elif state.turn_running:
            activity = "streaming"
        elif self._building:
            activity = "starting the agent"
        elif state.mcp_starting:
            from frontier.app.mcp_status import servers_named

            activity = f"idle · {servers_named(state.mcp_starting)} starting"
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
            approval=session.approval if session else "",
            # ``AgentSession.sandbox_label`` (issue 22): ``workspace-write · net off``,
            # ``off``, ``unavailable: <reason>``
            sandbox=session.sandbox_label if session else "",
            effort=session.effort if session else "",
            jobs=len(session.running_jobs()) if session else 0,
            working=working,
            spinner=progress.spinner(now),
            tokens_in=progress.tokens_in if progress.usage_seen else None,
            tokens_out=progress.tokens_out,
            tokens_cached=progress.tokens_cached,
            context=context,
            context_assumed=session.context_assumed if session is not None else False,
            # a review modal answers esc itself (deny): ctrl+c is what stops the turn there
            interrupt_key="ctrl+c" if activity == "review" else "esc",
        )

    async def explain(self, row: ErrorRow) -> Explanation | None:
        """The inspector's explanation of ``row``: from the session's store (with the
        feedback and the next attempt), else from the bytes still in the Raw stream."""
        from frontier.app.agent.explain import explain_stream, pick

        buffer = self.app.state.response(row.response)
        if buffer is None:
            return None
        found: list[Explanation] = []
        if self.session is not None:
            try:
                found = await self.session.explain(buffer.request_index)
            except (ValueError, LookupError, RuntimeError, OSError):
                found = []  # not stored (or the store is unreadable): the bytes still say a lot
        chosen = pick(found, row.kind, row.offset, row.message)
        if chosen is None and buffer.base == 0 and buffer.mode not in NATIVE_MODES:
            name = f"response {row.response}"
            if self.session is not None:
                name = f"{self.session.session_id}#{buffer.request_index}"
            pieces = [bytes(buffer.data)]
            found = explain_stream(name, buffer.mode, pieces, buffer.finish_reason or "stop")
            chosen = pick(found, row.kind, row.offset, row.message)
        return chosen

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
    never overwrites a file (exclusive create, so two exports cannot race either), and
    is on disk whole when this returns (``app/files.write_atomic``)."""
    for n in itertools.count(1):
        path = directory / (f"{stem}{suffix}" if n == 1 else f"{stem}-{n}{suffix}")
        try:
            return write_atomic(path, text, exclusive=True)
        except FileExistsError:
            if n >= 10_000:
                raise FileExistsError(
                    f"{directory}: {stem}{suffix} through {path.name} all exist; "
                    "move old exports away"
                ) from None
    raise AssertionError("unreachable")


_CLOSING: set[asyncio.Task[None]] = set()
"""Sessions being closed because nobody waited for them any more (:func:`_in_a_thread`)."""


def _in_a_thread(factory: SessionFactory) -> asyncio.Future[AgentSession]:
    """``factory()`` on a daemon thread of its own, awaited on the loop.

    Not ``asyncio.to_thread``: the default executor's threads are joined when the
    interpreter exits, so quitting while a build hangs (an ``api_key_command`` that does
    not answer, a store on a stalled disk) would wait for it. A session that arrives after
    the wait was given up (the worker cancelled while the app goes on) is closed, not
    leaked."""
    import threading

    loop = asyncio.get_running_loop()
    future: asyncio.Future[AgentSession] = loop.create_future()

    def settle(outcome: tuple[AgentSession | None, BaseException | None]) -> None:
        result, error = outcome
        if future.cancelled():
            if result is not None:
                closing = loop.create_task(result.close(), name="close-unwanted-session")
                _CLOSING.add(closing)  # held until done: the loop keeps only a weak reference
                closing.add_done_callback(_CLOSING.discard)
        elif error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def build() -> None:
        try:
            made = factory()
        except BaseException as exc:  # handed to the awaiting task, which says why
            outcome: tuple[AgentSession | None, BaseException | None] = (None, exc)
        else:
            outcome = (made, None)
        handed(outcome)  # a no-op once the loop is closed (the app has exited meanwhile)

    handed = to_loop(settle)  # in this task's context: closing a session emits to the TUI
    threading.Thread(target=build, name="agent-start", daemon=True).start()
    return future
