"""The Textual App: an observer of core events plus an approver (DESIGN §8).

The agent loop runs as an async worker in the App's event loop. Its observer
(``FrontierApp.observe``) only updates ``UiState`` — bounded buffers and dirty
flags — and a ~30 Hz timer paints what changed inside ``batch_update()``, so a
fast stream never stalls input. Approvals push the review modal and await its
``Decision`` while the stream keeps being read and shown. Replay drives the
same panes from a ``ReplayPlayer`` instead of a loop.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Input

from frontier.app.config import Config, save_setting
from frontier.app.events import Event, ResponseStarted, ToolCall
from frontier.app.replay_player import (
    MAX_CHUNK,
    PlaylistPlayer,
    ReplayPlayer,
    faster,
    next_chunk,
    slower,
)
from frontier.app.screens.help import HelpScreen
from frontier.app.screens.main import CSS_PATH as MAIN_CSS
from frontier.app.screens.main import TABS, MainScreen
from frontier.app.screens.review import ReviewScreen
from frontier.app.screens.sessions import SessionPicker
from frontier.app.screens.welcome import WelcomeScreen
from frontier.themes.palette import DEFAULT_THEME, THEME_NAMES, THEMES, theme_variable
from frontier.tools.contract import Approver, Decision, Preview, ToolSpec
from frontier.widgets.errors_pane import ErrorsPane
from frontier.widgets.state import UiState
from frontier.widgets.status_bar import StatusInfo

Observer = Callable[[Event], None]
RuntimeFactory = Callable[[Approver, Observer], Any]
"""``factory(approver, observer) -> Runtime`` (``frontier.app.agent.runtime.Runtime``)."""

FLUSH_HZ = 30.0
SLOW_PANES = frozenset({"transcript", "tools", "errors"})


@dataclass(frozen=True)
class ReviewRecord:
    """One approval as it happened: what was shown and what the user decided."""

    call: ToolCall
    preview: Preview
    decision: Decision


class TuiApprover:
    """``tools.contract.Approver`` that asks the user in the review modal."""

    def __init__(self, app: FrontierApp) -> None:
        self.app = app

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        return await self.app.review(call, spec, preview)


class FrontierApp(App[int]):
    """Live agent (``runtime_factory``), demo, welcome screen, or replay (``player``)."""

    TITLE = "Frontier"
    ENABLE_COMMAND_PALETTE = True
    CSS_PATH: ClassVar[list[str | Path]] = [MAIN_CSS]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1,question_mark", "help", "Help"),
        Binding("escape", "cancel", "Cancel tool"),
        Binding("ctrl+e", "focus_errors", "Errors", show=False),
        Binding("ctrl+t", "toggle_thinking", "Thinking", show=False),
        Binding("f2", "pane('raw')", "Raw", show=False),
        Binding("f3", "pane('confirmed')", "Confirmed", show=False),
        Binding("f4", "pane('pending')", "Pending", show=False),
        Binding("f5", "pane('errors')", "Errors", show=False),
        Binding("ctrl+q", "quit", "Quit", priority=True),  # also from a review modal
        Binding("ctrl+n", "demo_native", "Demo: native-inc"),
        # replay
        Binding("space", "toggle_pause", "Pause/play"),
        Binding("plus,equals_sign", "speed(1)", "Faster", key_display="+"),
        Binding("minus", "speed(-1)", "Slower", key_display="-"),
        Binding("full_stop", "step('byte')", "Byte", key_display="."),
        Binding("comma", "step('line')", "Line", key_display=","),
        Binding("n", "step('event')", "Event"),
        Binding("e", "step('error')", "Next error"),
        Binding("1", "pane('raw')", show=False),
        Binding("2", "pane('confirmed')", show=False),
        Binding("3", "pane('pending')", show=False),
        Binding("4", "pane('errors')", show=False),
        Binding("q", "quit", "Quit", show=False),
    ]
    REPLAY_ACTIONS = frozenset({"toggle_pause", "speed", "step"})

    def __init__(
        self,
        config: Config | None = None,
        *,
        runtime_factory: RuntimeFactory | None = None,
        player: ReplayPlayer | PlaylistPlayer | None = None,
        demo: bool = False,
        demo_rate: float = 60.0,
        session_id: str | None = None,
        workspace: Path | None = None,
        welcome: bool | None = None,
        speed: float | None = 1.0,
        paused: bool = False,
        clock: Callable[[], float] = time.monotonic,
        token_rate: float | None = None,
        remember_theme: bool = True,
        flush_hz: float = FLUSH_HZ,
        autostart: bool = True,
    ) -> None:
        super().__init__()
        self.config = config or Config()
        self.clock = clock
        self.state = UiState(clock)
        self.player = player
        self.demo = demo
        self.demo_rate = demo_rate
        self.session_id = session_id
        self.workspace = workspace
        """Named on the command line: the resumed session's project now lives here."""
        self.runtime: Any = None
        self.runtime_factory = runtime_factory
        self.welcome = (
            welcome
            if welcome is not None
            else player is None
            and not demo
            and session_id is None  # a stored session knows its own endpoint
            and runtime_factory is None
            and not self.config.has_endpoint
        )
        self.speed = speed
        self.paused = paused
        self.token_rate_override = token_rate
        self.remember_theme = remember_theme
        self.flush_hz = flush_hz
        self.autostart = autostart
        self.approver = TuiApprover(self)
        self.reviews: list[ReviewRecord] = []
        self.turn_task: asyncio.Task[Any] | None = None
        self.split_diff = False
        self._resume = asyncio.Event()
        self.replay_slices: deque[float] = deque(maxlen=4096)
        """Seconds each replay step held the event loop (the newest 4,096; for the bench)."""
        self._ticks = 0
        self._responses_replayed = 0
        self._main: MainScreen | None = None
        for theme in THEMES:
            self.register_theme(theme)

    # ------------------------------------------------------------------ lifecycle
    @property
    def replaying(self) -> bool:
        return self.player is not None

    @property
    def main(self) -> MainScreen:
        assert self._main is not None
        return self._main

    def on_load(self) -> None:
        name = self.config.theme if self.config.theme in self.available_themes else DEFAULT_THEME
        self.theme = name

    def get_default_screen(self) -> Screen[Any]:
        self._main = MainScreen(self.clock, interactive=not self.replaying)
        if self.player is not None and self.player.count > 1:
            self._main.responses_total = self.player.count
        return self._main

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self.call_after_refresh(self._freeze_startup_objects)
        self.set_interval(1 / self.flush_hz, self.flush, name="flush")
        if self.welcome:
            self.push_screen(WelcomeScreen(), callback=self._welcome_done)
        elif self.replaying:
            self.state.note(self.player.summary())
            if self.autostart:
                self.run_worker(self._play(), name="replay", group="replay", exit_on_error=False)
        elif self.autostart:
            self.start_runtime()

    def _freeze_startup_objects(self) -> None:
        """Move everything alive after the first paint (Textual's DOM and CSS, a loaded
        recording) out of the collector's reach: a full collection then scans only what
        the stream allocated since, and no longer stalls a flush by tens of ms."""
        gc.freeze()

    async def on_unmount(self) -> None:
        gc.unfreeze()  # this app's objects become collectable again (tests run many apps)
        if self.runtime is not None:
            runtime, self.runtime = self.runtime, None
            try:
                await runtime.aclose()
            except Exception as exc:  # closing must not hide the reason the app exits
                self.log.error(f"closing the runtime failed: {exc!r}")

    def _welcome_done(self, choice: str | None) -> None:
        if choice == "demo":
            self.demo = True
            self.start_runtime()
        else:
            self.exit(0)

    def _theme_changed(self, theme: Any) -> None:
        if self.remember_theme and theme.name in THEME_NAMES and theme.name != self.config.theme:
            try:
                save_setting("theme", theme.name)
            except OSError as exc:
                self.notify(f"could not remember the theme: {exc}", severity="warning")
            else:  # what is saved now, so switching back is saved too
                self.config = replace(self.config, theme=theme.name)

    # ------------------------------------------------------------------ runtime
    def start_runtime(self) -> None:
        """Create the agent runtime; the demo then sends its scripted prompts."""
        runtime = self._build_runtime()
        if runtime is not None:
            self._adopt_runtime(runtime)

    def _build_runtime(self) -> Any:
        """The factory's runtime, or ``None`` after telling the user why it could not start."""
        try:
            factory = self.runtime_factory or self._default_factory
            return factory(self.approver, self.observe)
        except Exception as exc:
            self.state.note(f"could not start the agent: {exc}", "error")
            self.notify(str(exc), title="could not start the agent", severity="error", timeout=10)
            return None

    def _adopt_runtime(self, runtime: Any) -> None:
        self.runtime = runtime
        if getattr(runtime, "resumed", False):
            self._announce_resume(runtime)
        else:
            for note in getattr(runtime, "notes", ()) or ():
                self.state.note(note)
        self.state.mark("status")
        prompts = list(getattr(self.runtime, "demo_prompts", []) or [])
        if prompts:
            self.run_worker(self._demo(prompts), name="demo", group="agent", exit_on_error=False)
        else:
            self._focus_prompt()

    def _announce_resume(self, runtime: Any) -> None:
        """The stored conversation, then what resuming changed (reconciled calls...)."""
        read = getattr(runtime, "history", None)
        history = read() if callable(read) else []
        if history:
            self.state.note(f"── earlier in session {runtime.session_id} ──")
            self.state.add_history(history)
        self.state.note(f"── resumed session {runtime.session_id} ──")
        self.state.note(f"{runtime.workspace} · {runtime.model or '—'} · {runtime.mode}")
        for note in getattr(runtime, "notes", ()) or ():
            self.state.note(note)
        for result in runtime.recovered:
            self.state.note(f"reconciled {result.call_id} {result.name}: {result.kind}")
        carried = len(getattr(runtime.loop, "carried", ()) or ())
        if carried:
            self.state.note(
                f"{carried} result{'s' if carried != 1 else ''} the model has not seen "
                "will go with your next message"
            )

    def _default_factory(self, approver: Approver, observer: Observer) -> Any:
        from frontier.app.agent.runtime import create_runtime

        return create_runtime(
            self.config,
            approver=approver,
            observer=observer,
            demo=self.demo,
            demo_rate=self.demo_rate,
            session_id=self.session_id,
            workspace=self.workspace,
        )

    async def _demo(self, prompts: list[str]) -> None:
        for prompt in prompts:
            await self.send(prompt)
        if self.demo and self.config.protocol != "native-inc":
            self.state.note(
                "Next: press ctrl+n to watch the same task with native tool calls "
                "(native-inc: delta.tool_calls, each call runs when its index is complete), "
                "in a fresh scratch copy."
            )

    def action_demo_native(self) -> None:
        """Demo only: the same task again in native-inc mode, in a new scratch workspace."""
        if self.state.turn_running:
            self.notify("wait for the demo turn to end", severity="warning")
            return
        old = self.runtime
        self.config = replace(self.config, protocol="native-inc")
        self.state.note("── the same task with native tool calls (native-inc) ──")

        async def restart() -> None:
            if old is not None:
                await old.aclose()
            self.start_runtime()
            self.refresh_bindings()  # ctrl+n is done: drop it from the footer

        self.run_worker(restart(), name="demo-native", group="agent", exit_on_error=False)

    async def send(self, text: str) -> Any:
        """Run one user turn (the worker awaits it; the UI stays live)."""
        if self.runtime is None:
            return None
        self.state.add_user(text)
        self.state.turn_running = True
        self.state.mark("status")
        self.turn_task = asyncio.current_task()
        try:
            return await self.runtime.loop.send(text)
        except Exception as exc:
            self.state.note(f"the turn failed: {exc!r}", "error")
            self.notify(f"the turn failed: {exc}", severity="error", timeout=10)
            return None
        finally:
            self.state.turn_running = False
            self.turn_task = None
            self.state.mark("status")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "prompt":
            return
        text = event.value.strip()
        if not text:
            return
        if self.runtime is None:
            self.notify(
                "no agent is running: configure an endpoint (see `frontier --help`) "
                "or run `frontier demo`",
                severity="warning",
            )
            return
        if self.state.turn_running:
            self.notify(
                "the agent is still working — wait, or press Esc to stop it", severity="warning"
            )
            return
        event.input.value = ""
        self.run_worker(self.send(text), name="turn", group="agent", exit_on_error=False)

    def _focus_prompt(self) -> None:
        prompts = self.main.query("#prompt")
        if prompts:
            prompts.first().focus()

    # ------------------------------------------------------------------ events
    def observe(self, event: Event) -> None:
        """The core's observer: cheap; painting happens on the next flush."""
        self.state.apply(event)

    def observe_all(self, events: Iterable[Event]) -> None:
        self.state.apply_all(events)

    async def review(self, call: ToolCall, spec: ToolSpec | None, preview: Preview) -> Decision:
        """Show the review modal for ``call`` and wait for the user's decision."""
        self.state.set_tool_state(call, "review")
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()

        def done(decision: Decision | None) -> None:
            if not future.done():
                future.set_result(decision or Decision(False, "review closed without a decision"))

        theme = self.current_theme
        screen = ReviewScreen(
            call,
            spec,
            preview,
            syntax_style=theme_variable(theme, "syntax-style", "monokai"),
            added_bg=theme_variable(theme, "diff-added-bg", "#12361f"),
            removed_bg=theme_variable(theme, "diff-removed-bg", "#42171b"),
            split=self.split_diff,
        )
        self.push_screen(screen, callback=done)
        decision = await future
        self.reviews.append(ReviewRecord(call, preview, decision))
        self.state.set_tool_state(call, "approved" if decision.approved else "denied")
        if not decision.approved:
            self.state.note(f"denied {call.id}: {decision.reason}")
        elif decision.declined:
            hunks = ", ".join(f"{path} #{index}" for path, index in decision.declined)
            self.state.note(f"approved {call.id} without {hunks}: {decision.reason}")
        return decision

    # ------------------------------------------------------------------ painting
    def status(self) -> StatusInfo:
        state = self.state
        if self.player is not None:
            source = self.player.source
            speed = "max" if self.speed is None else f"{self.speed:g}×"
            where = "ended" if self.player.finished else "paused" if self.paused else "playing"
            which = ""
            if self.player.count > 1:
                which = f"response {self.player.index + 1} of {self.player.count} · "
            return StatusInfo(
                model=source.model or "recording",
                mode=source.protocol,
                token_rate=self._rate(),
                frontier=state.frontier,
                pending=state.pending_size,
                session="",
                activity=f"{which}replay {source.name} {where} {speed} · "
                f"byte {self.player.position:,}/{self.player.size:,}",
            )
        runtime = self.runtime
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
            model=getattr(runtime, "model", "") or self.config.model or "",
            mode=getattr(runtime, "mode", "") or self.config.protocol,
            token_rate=self._rate(),
            frontier=state.frontier,
            pending=state.pending_size,
            session=getattr(runtime, "session_id", "") or "",
            activity=activity,
        )

    def _rate(self) -> float:
        if self.token_rate_override is not None:
            return self.token_rate_override
        return self.state.token_rate()

    def flush(self, force: bool = False) -> None:
        """Paint what changed since the last flush (the ~30 Hz timer calls this).

        ``force`` paints the slow panes and the hidden tabs now too (after a user
        action, and in tests); otherwise hidden tabs wait until they are chosen.
        """
        if self._main is None or not self._main.is_mounted:
            return
        self._probe()
        self._ticks += 1
        dirty = self.state.take_dirty()
        if self._ticks % 3 and not force:
            # the stream panes paint at 30 Hz; the layout-heavy ones at 10 Hz
            slow = dirty & SLOW_PANES
            if slow:
                self.state.mark(*slow)
                dirty -= slow
            if not dirty:
                return
        try:
            with self.batch_update():
                skipped = self.main.flush(self.state, dirty, self.status(), hidden=force)
            self.state.mark(*skipped)
        except NoMatches:
            # the screen is being torn down (app exiting): nothing left to paint
            self.state.mark(*dirty)

    def _probe(self) -> None:
        """Adopt the transducer's own frontier and bound (covers native/eos modes)."""
        source: Any = self.player
        if source is None and self.runtime is not None:
            source = self.runtime.loop
        if source is None:
            return
        try:
            self.state.set_probe(int(source.frontier), int(source.pending_bound()))
        except (AttributeError, TypeError, ValueError):
            return

    # ------------------------------------------------------------------ replay
    async def _play(self) -> None:
        """Feed the recording by its arrival times × speed, or at "max" as fast as the
        loop allows in slices of about ``SLICE_BUDGET`` (the chunk adapts to the cost
        per byte), yielding between slices so input and painting never wait long."""
        player = self.player
        assert player is not None
        last = time.monotonic()
        chunk = MAX_CHUNK
        self._observe_replay(player.start())
        while not player.finished:
            if self.paused:
                self._resume.clear()
                await self._resume.wait()
                last = time.monotonic()
                continue
            now = time.monotonic()
            started = time.perf_counter()
            self._observe_replay(player.advance(now - last, self.speed, chunk))
            took = time.perf_counter() - started
            self.replay_slices.append(took)
            if self.speed is None:
                chunk = next_chunk(chunk, took)
            last = now
            await asyncio.sleep(0 if self.speed is None else 1 / 120)
        self.state.mark("status")

    def _observe_replay(self, events: list[Event]) -> None:
        """Apply replayed events; a session's responses each open with a transcript note."""
        player = self.player
        if not isinstance(player, PlaylistPlayer):
            self.observe_all(events)
            return
        for event in events:
            if isinstance(event, ResponseStarted):
                self._responses_replayed += 1
                name = player.sources[min(self._responses_replayed, player.count) - 1].name
                self.state.note(f"response {self._responses_replayed} of {player.count} · {name}")
            self.state.apply(event)

    def action_toggle_pause(self) -> None:
        self.paused = not self.paused
        if not self.paused:
            self._resume.set()
        self.state.mark("status")

    def action_speed(self, direction: int) -> None:
        self.speed = faster(self.speed) if direction > 0 else slower(self.speed)
        self.state.mark("status")
        label = "max" if self.speed is None else f"{self.speed:g}×"
        self.notify(f"speed {label}", timeout=1.5)

    def action_step(self, unit: str) -> None:
        """Pause and step one byte / line / event, or jump to the next contract error."""
        player = self.player
        if player is None:
            return
        self.paused = True
        step = {
            "byte": player.step_bytes,
            "line": player.step_line,
            "event": player.step_event,
            "error": player.next_error,
        }[unit]
        events = step()
        self._observe_replay(events)
        if unit == "error" and self.state.errors:
            self.state.mark("errors")
            self.flush(force=True)
            errors = self.main.query_one(ErrorsPane)
            errors.select(len(self.state.errors) - 1)
        self.state.mark("status")
        self.flush(force=True)

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.REPLAY_ACTIONS:
            return self.replaying
        if action == "cancel":
            return not self.replaying
        if action == "demo_native":
            return self.demo and not self.replaying and self.config.protocol != "native-inc"
        return True

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_pane(self, name: str) -> None:
        if name in dict(TABS):
            self.main.show_tab(name)
            # paint it once the layout has given it a size (hidden panes skip flushes)
            self.call_after_refresh(self.flush, True)

    def action_toggle_thinking(self) -> None:
        """Show the model's reasoning blocks whole, or folded to their last lines."""
        self.state.toggle_thinking()
        self.call_after_refresh(self.flush, True)

    def action_focus_errors(self) -> None:
        self.main.show_tab("errors")
        self.call_after_refresh(self.flush, True)
        self.main.query_one(ErrorsPane).option_list.focus()

    def action_cancel(self) -> None:
        """Esc: cancel the running tool (exit 130); with none running, stop the turn."""
        if self.runtime is None:
            return
        loop = self.runtime.loop
        running = self.state.running_tools()
        if running and loop.cancel_tool():
            self.notify(f"cancelling {running[-1].call.id} {running[-1].call.name}…", timeout=2)
        elif self.state.turn_running:
            loop.cancel_turn()
            self.notify("stopping the turn…", timeout=2)

    def on_errors_pane_chosen(self, message: ErrorsPane.Chosen) -> None:
        self.main.highlight_error(self.state, message.row.response, message.row.offset)

    # ------------------------------------------------------------------ palette
    def get_system_commands(self, screen: Screen[Any]) -> Iterator[SystemCommand]:
        yield from super().get_system_commands(screen)
        for name in THEME_NAMES:
            yield SystemCommand(
                f"Theme: {name}",
                f"switch to the {name} theme (remembered)",
                lambda name=name: setattr(self, "theme", name),
            )
        yield SystemCommand(
            "Diff: toggle split view by default",
            "review modals open split (side by side) or unified",
            self._toggle_split,
        )
        yield SystemCommand("Help", "panes and keys", self.action_help)
        if not self.replaying and not isinstance(screen, WelcomeScreen):
            yield SystemCommand(
                "Open session…",
                "resume a stored session (newest first)",
                self.action_open_session,
            )
        if self.runtime is not None:
            for mode in ("ctl-heredoc", "ctl", "native-inc", "native-eos", "xml"):
                yield SystemCommand(
                    f"Mode: {mode}",
                    "tool-call protocol for the next model request",
                    lambda mode=mode: self._set_mode(mode),
                )
            yield SystemCommand(
                "Export session (markdown)",
                "write the session to a .md file in the current directory",
                self._export,
            )

    def _toggle_split(self) -> None:
        self.split_diff = not self.split_diff
        self.notify(f"diffs open {'split' if self.split_diff else 'unified'}", timeout=2)

    def _set_mode(self, name: str) -> None:
        from frontier.app.agent.modes import get_mode

        if self.state.turn_running:
            self.notify("wait for the turn to end before switching mode", severity="warning")
            return
        self.runtime.loop.set_mode(get_mode(name))
        self.runtime.mode = name
        self.state.mark("status")
        self.notify(f"mode {name}: applies from the next message", timeout=3)

    def action_open_session(self) -> None:
        """Show the session picker (the list is read off the event loop)."""

        def listing() -> list[Any]:
            from frontier.app.session.store import SessionStore

            with SessionStore.open() as store:
                return store.list_sessions()

        async def run() -> None:
            try:
                sessions = await asyncio.to_thread(listing)
            except Exception as exc:
                self.notify(f"cannot list sessions: {exc}", severity="error", timeout=10)
                return
            current = getattr(self.runtime, "session_id", None)
            self.push_screen(SessionPicker(sessions, current), callback=self._open_chosen)

        self.run_worker(run(), name="sessions", exit_on_error=False)

    def _open_chosen(self, session_id: str | None) -> None:
        if session_id is None:
            return
        if self.runtime is not None and session_id == self.runtime.session_id:
            self.notify(f"session {session_id} is already open", timeout=3)
            return
        if self.state.turn_running:
            self.notify(
                "wait for the turn to end (or press Esc to stop it) before opening another session",
                severity="warning",
            )
            return
        self.run_worker(
            self._resume_session(session_id), name="resume", group="agent", exit_on_error=False
        )

    async def _resume_session(self, session_id: str) -> None:
        """Resume ``session_id`` in place of the current runtime (kept if resuming fails)."""
        previous = (self.session_id, self.demo)
        self.session_id = session_id
        self.demo = False  # a stored session says itself whether it ran on the demo model
        self.workspace = None  # the command line's --workspace was for the first session
        runtime = self._build_runtime()
        if runtime is None:
            self.session_id, self.demo = previous
            return
        old, self.runtime = self.runtime, None
        self._adopt_runtime(runtime)
        self.refresh_bindings()
        if old is not None:
            try:
                await old.aclose()
            except Exception as exc:  # the new session is open; say why the old one was not
                self.notify(f"closing the previous session failed: {exc}", severity="warning")

    def _export(self) -> None:
        runtime = self.runtime
        stem = f"frontier-session-{runtime.session_id[:8]}"

        def write() -> Path:
            from frontier.app.session.export import export_records, to_markdown
            from frontier.app.session.store import SessionStore

            with SessionStore.open() as store:
                info = store.get_session(runtime.session_id)
                records = list(export_records(store.records(info.id)))
            # the process's directory, not the workspace: the agent reads the workspace
            return write_unique(Path.cwd(), stem, to_markdown(info, records))

        async def run() -> None:
            try:
                target = await asyncio.to_thread(write)
            except Exception as exc:
                self.notify(f"export failed: {exc}", severity="error")
            else:
                self.notify(f"exported to {target}", timeout=5)

        self.run_worker(run(), name="export", exit_on_error=False)


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


def run_tui(
    config: Config,
    *,
    demo: bool = False,
    demo_rate: float = 60.0,
    session_id: str | None = None,
    workspace: Path | None = None,
) -> int:
    """Entry point for ``frontier``, ``frontier demo`` and ``frontier resume`` (TUI)."""
    app = FrontierApp(
        config, demo=demo, demo_rate=demo_rate, session_id=session_id, workspace=workspace
    )
    result = app.run()
    return int(result or 0)
