"""The Textual App: an observer of core events plus an approver (DESIGN §8).

The App itself is what every mode shares: the panes and the ~30 Hz paint, the
keys, the palette, themes, help and the review modal. What differs per mode
lives in one controller the App holds:

- :class:`~frontier.app.frontends.tui.live.LiveController` — live, demo, resume
  and the welcome screen (whose "demo" starts a live session): the one
  ``AgentSession`` the TUI holds, and every operation on it;
- :class:`~frontier.app.frontends.tui.replay.ReplayController` — a recording or
  a stored session replayed through the same panes.

The session's events only update ``UiState`` (bounded buffers and dirty flags)
in :meth:`FrontierApp.observe`; a timer paints what changed inside
``batch_update()``, so a fast stream never stalls input. Approvals push the
review modal and await its ``Decision`` while the stream keeps being read.
"""

from __future__ import annotations

import gc
import io
import os
import shlex
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.console import RenderableType
from textual import events, on
from textual.app import App, CSSPathType, SystemCommand
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.driver import Driver
from textual.markup import escape as markup_escape
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme
from textual.timer import Timer
from textual.widgets import Input, TextArea

from frontier.app.config import Config, config_path, data_dir, save_setting
from frontier.app.events import Event, ToolCall, ToolFinished, TurnEnded
from frontier.app.files import write_atomic
from frontier.app.frontends.stop_signals import StopSignals
from frontier.app.frontends.tui.attention import Attention, resolved
from frontier.app.frontends.tui.host import (
    BindingsChanged,
    FocusPrompt,
    Inspect,
    Quit,
    Repaint,
    ShowErrors,
)
from frontier.app.frontends.tui.live import LiveController, SessionFactory
from frontier.app.frontends.tui.sandbox_text import ran_under
from frontier.app.frontends.tui.screens.main import CSS_PATH as MAIN_CSS
from frontier.app.frontends.tui.screens.main import LAYOUT_HELP, TABS, MainScreen
from frontier.app.record import record, replace
from frontier.app.secrets import Scrubber, url_secrets
from frontier.app.std_streams import is_utf8
from frontier.app.vocab import APPROVAL_MEANINGS, LAYOUTS
from frontier.themes.palette import DEFAULT_THEME, THEME_NAMES, THEMES, theme_variable
from frontier.tools.contract import ApprovalRequested, ApprovalResolved, Decision, Preview
from frontier.widgets.cst_strip import CstStrip
from frontier.widgets.display import display_preview, rule_text
from frontier.widgets.errors_pane import ErrorsPane
from frontier.widgets.pane_state.tools import summarize_call
from frontier.widgets.prompt_document import holds_text
from frontier.widgets.prompt_input import PromptBox, PromptInput
from frontier.widgets.state import ErrorRow, UiState
from frontier.widgets.status_bar import StatusBar, StatusInfo
from frontier.widgets.tools_pane import OpenToolOutput
from frontier.widgets.transcript import Transcript

if TYPE_CHECKING:  # the screens pushed later, and replay, are imported when first used:
    # the first paint needs only the main screen (issue 24, docs/startup.md); the agent
    # core loads with the session, on a thread, once the first frame is out (``on_mount``)
    from frontier.app.agent.explain import Explanation
    from frontier.app.agent.session import AgentSession
    from frontier.app.frontends.tui.replay import ReplayController, Step
    from frontier.app.frontends.tui.screens.copy import CopyItem
    from frontier.app.frontends.tui.screens.inspector import InspectorAction
    from frontier.app.frontends.tui.screens.review import ReviewScreen
    from frontier.app.replay_player import PlaylistPlayer, ReplayPlayer

FLUSH_HZ = 30.0
DRAIN_GAP = 0.002
"""Seconds between the flushes that paint what a max-speed replay left, one pane each."""
SLOW_PANES = frozenset({"transcript", "tools", "errors"})
SLOW_PERIOD = 0.1
"""The slow panes paint at most this often each (10 Hz), and one of them a flush."""
SLOW_SHARE = 0.25
"""The share of the event loop the slow panes may take: after a paint of them that took
``t``, the next waits ``t / SLOW_SHARE`` (a burst of Markdown never starves the keys)."""
GC_YOUNG = 10_000
"""Allocations between young collections while the TUI runs (Python's default: 700)."""
TYPING_HOLD = 0.5
"""Seconds after a key during which the slow panes wait, and the longest they wait: the
keys typed while a fast stream renders come before the Transcript's paints, which still
show at least twice a second (issue 23; ``docs/tui-speed.md``)."""
TYPED_THROUGH = 0.6
"""Seconds between keys that make them one run of typing. A review that opens while a run
is going on takes none of its keys as answers: "add a test", typed on as the review
appears, would approve with its first letter. Those keys go on into the message; the
first key after a pause this long answers the review (``FrontierApp.typed_through``)."""
IDLE_TICKS = 30
"""Quiet flushes (about a second) after which the timer slows to ``IDLE_HZ``."""
IDLE_HZ = 4.0
"""The flush timer's rate while nothing changes: a change made without an event (a
note, a tool's state after a review) still shows within a quarter of a second."""

_INSPECTOR = ("frontier.app.frontends.tui.screens.inspector", "InspectorScreen")
_WELCOME = ("frontier.app.frontends.tui.screens.welcome", "WelcomeScreen")
_REVIEW = ("frontier.app.frontends.tui.screens.review", "ReviewScreen")
_TRUST = ("frontier.app.frontends.tui.screens.trust", "TrustScreen")


def _showing(screen: object, cls: tuple[str, str]) -> bool:
    """``isinstance(screen, module.Class)`` for a screen imported only when first pushed:
    while its module is not loaded no such screen can exist, and asking (the footer asks
    at every paint) must not load it."""
    module = sys.modules.get(cls[0])
    return module is not None and isinstance(screen, getattr(module, cls[1]))


@record
class ReviewRecord:
    """One approval as it happened: what was shown and what the user decided."""

    call: ToolCall
    preview: Preview
    decision: Decision


class FrontierApp(App[int]):
    """Live agent (``session_factory``), demo, welcome screen, resume, or replay (``player``)."""

    TITLE = "Frontier"
    ENABLE_COMMAND_PALETTE = True
    CSS_PATH: ClassVar[CSSPathType | None] = [MAIN_CSS]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help"),
        # replay's footer is full of its own keys: f1 and ctrl+o work there unadvertised
        Binding("f1", "help(True)", "Help", show=False),
        # not a priority binding: checked when the key reaches the message box, in order
        # after the keys typed before it. The box lets `?` through only while it is empty
        # (PromptInput.check_consume_key), and check_action says the same for any text box
        Binding("question_mark", "help_key", "Help", show=False),
        Binding("escape", "cancel", "Interrupt"),
        Binding("escape", "escape_idle", "Rewind", show=False),  # idle: Esc Esc rewinds
        # from every screen, modals included; a text selection is copied instead (check_action)
        Binding("ctrl+c", "interrupt", "Interrupt", show=False, priority=True),
        Binding("shift+tab", "cycle_approval", "Approval", key_display="⇧tab", priority=True),
        Binding("ctrl+o", "copy", "Copy"),
        Binding("ctrl+o", "copy(True)", "Copy", show=False),
        Binding("ctrl+e", "focus_errors", "Errors", show=False),  # the box's own ctrl+e: line end
        Binding("ctrl+t", "toggle_thinking", "Thinking", show=False),
        Binding("ctrl+g", "edit_message", "Editor", show=False),
        Binding("f2", "pane('raw')", "Raw", show=False),
        Binding("f3", "pane('confirmed')", "Confirmed", show=False),
        Binding("f4", "pane('pending')", "Pending", show=False),
        Binding("f5", "pane('errors')", "Errors", show=False),
        # also from a review modal; not in the footer (ctrl+c twice quits too, and says so)
        Binding("ctrl+q", "quit", "Quit", priority=True, show=False),
        # ctrl+d on an empty prompt quits, as EOF does in a shell (check_action); with text
        # in the box it is the box's own ctrl+d (delete right)
        Binding("ctrl+d", "quit_empty", "Quit", priority=True, show=False),
        # conversation → split → lab (remembered); replay's footer has no room: quiet twin.
        # Priority: the message box (a TextArea) binds f6 to "select line"
        Binding("f6", "cycle_layout", "Layout", priority=True),
        Binding("f6", "cycle_layout(True)", "Layout", show=False, priority=True),
        Binding("ctrl+n", "demo_native", "Demo: native-inc"),
        # replay (and the tour): never in a live session, where the keyboard belongs to the
        # prompt (MainScreen.take_typing sends them there; check_action refuses them too)
        Binding("space", "toggle_pause", "Pause"),  # short: replay's keys fit 80 columns
        Binding("plus,equals_sign", "speed(1)", "Faster", key_display="+"),
        Binding("minus", "speed(-1)", "Slower", key_display="-"),
        Binding("full_stop", "step('byte')", "Byte", key_display="."),
        Binding("comma", "step('line')", "Line", key_display=","),
        Binding("n", "step('event')", "Event"),
        Binding("e", "step('error')", "Error"),
        Binding("1", "watch_pane('raw')", show=False),
        Binding("2", "watch_pane('confirmed')", show=False),
        Binding("3", "watch_pane('pending')", show=False),
        Binding("4", "watch_pane('errors')", show=False),
        Binding("q", "watch_quit", "Quit", show=False),
    ]
    REPLAY_ACTIONS = frozenset({"toggle_pause", "speed", "step"})
    WATCH_ACTIONS = frozenset({"watch_pane", "watch_quit"})
    """Bare keys of the modes without a prompt (replay, the tour): never in a live session."""
    EMPTY_PROMPT_ACTIONS = frozenset({"help_key"})
    """Keys that are also text: they act only when the message box is empty or unfocused."""
    QUIT_WINDOW = 2.0
    """Seconds within which a second ctrl+c quits."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        session_factory: SessionFactory | None = None,
        player: ReplayPlayer | PlaylistPlayer | None = None,
        demo: bool = False,
        demo_rate: float = 60.0,
        session_id: str | None = None,
        workspace: Path | None = None,
        welcome: bool | None = None,
        speed: float | None = 1.0,
        paused: bool = False,
        detected: Sequence[str] = (),
        clock: Callable[[], float] = time.monotonic,
        token_rate: float | None = None,
        remember_theme: bool = True,
        layout: str | None = None,
        flush_hz: float = FLUSH_HZ,
        autostart: bool = True,
        pick_session: bool = False,
    ) -> None:
        super().__init__()
        self.config = config or Config()
        self.clock = clock
        # the config's secrets until a session brings its own scrubber (live.py); replay's
        # recordings are masked already, so this is a second net there
        self.state = UiState(
            clock,
            scrubber=Scrubber.from_env(self.config.api_key, *url_secrets(self.config.base_url)),
        )
        self.attention = Attention(resolved(self.config.notify, os.environ))
        """When to call the person back from another window (``attention.py``)."""
        self.write_terminal: Callable[[str], None] = self._write_terminal
        """Writes a call-back's sequence to the terminal (a test reads it instead)."""
        self.open_editor: Callable[[Path], Awaitable[str | None]] = self._open_editor
        """Opens a file in the person's editor (ctrl+g); ``None`` when it ended well, else
        why not (a test edits the file itself instead)."""
        self.replay: ReplayController | None = None
        """Set when replaying; then ``live`` is None."""
        self.live: LiveController | None = None
        """Set in every other mode (live, demo, resume, welcome)."""
        if player is not None:
            from frontier.app.frontends.tui.replay import ReplayController

            self.replay = ReplayController(
                self, player, speed=speed, paused=paused, detected=detected
            )
        else:
            self.live = LiveController(
                self,
                factory=session_factory,
                demo=demo,
                demo_rate=demo_rate,
                session_id=session_id,
                workspace=workspace,
            )
        self.pick_session = pick_session and self.live is not None
        """``frontier resume`` with no id: the session picker first (:meth:`on_mount`)."""
        self.welcome = (
            welcome
            if welcome is not None
            else player is None
            and not self.pick_session
            and not demo
            and session_id is None  # a stored session knows its own endpoint
            and session_factory is None
            and not self.config.has_endpoint
        )
        self.token_rate_override = token_rate
        self.remember_theme = remember_theme
        self.panicked = False
        """Textual panicked (:meth:`panic`): the process exits 1."""
        """Also the layout: tests turn both off to leave the config dir alone."""
        self.layout_choice = layout or ("lab" if player is not None or demo else self.config.layout)
        """The main screen's first layout: given, else ``lab`` to watch the boundary (demo,
        replay, ``serve``; the tour's screen is always lab), else the remembered one."""
        self._layout_given = layout is not None
        self.flush_hz = flush_hz
        self.autostart = autostart
        self.reviews: list[ReviewRecord] = []
        self._reviews_open: dict[str, ReviewScreen] = {}
        """The review modals showing a session question, by ``request_id``."""
        self.sandboxes: dict[str, tuple[str, ...]] = {}
        """Per finished command: where it ran (``sandbox_text.ran_under``), by call id."""
        self.last_session_id: str | None = None
        """The session open when the app closed: ``run_tui`` prints how to resume it."""
        self.closing_line: str | None = None
        """What the session shown did in this run (``RunTally``), printed at exit."""
        self.quit_note = ""
        """Said after the terminal is restored: what became of a message typed and not sent."""
        self.stop_signals: StopSignals | None = None
        """SIGTERM and SIGHUP as ctrl+q (``stop_signals.py``): given by ``run_tui``, whose
        process is the app's; a test's app leaves the process's handlers alone."""
        self.split_diff = False
        self._ticks = 0
        self._held: set[str] = set()
        """Changed panes the layout hides: painted once shown, never a reason to paint."""
        self._quiet = 0
        """Flushes in a row with nothing to paint (the timer slows after ``IDLE_TICKS``)."""
        self._flush_timer: Timer | None = None
        self._gc_threshold: tuple[int, ...] | None = None
        """The collector's thresholds before this app raised them (restored on unmount)."""
        self.flush_rate = flush_hz
        """Flushes a second now: ``flush_hz`` while anything changes, ``IDLE_HZ`` idle."""
        self._slow_until = 0.0
        """``perf_counter`` before which the slow panes wait (``SLOW_SHARE``)."""
        self._slow_at = float("-inf")
        """``perf_counter`` of the last paint of the slow panes."""
        self._painted_at: dict[str, float] = {}
        """When each pane was last painted (``perf_counter``): a slow pane paints again
        ``SLOW_PERIOD`` after (``_slow_due``), and at "max" a flush paints the pane
        waiting longest (``_one_pane``)."""
        self._raced = False
        """A max-speed replay just ended and panes it changed are still to paint: they
        paint one a flush too, the flushes ``DRAIN_GAP`` apart (the last frame is not
        every pane at once, and it is on screen within a few milliseconds)."""
        self._key_at = float("-inf")
        """``perf_counter`` of the last key (``TYPING_HOLD``)."""
        self._run_from = float("-inf")
        """``perf_counter`` of the first key of the run of typing going on (``TYPED_THROUGH``)."""
        self._review_at = float("-inf")
        """``perf_counter`` when the last review opened."""
        self.typed_through = TYPED_THROUGH
        """``TYPED_THROUGH`` for this app (a test sets it: what counts as one run)."""
        self._display_failed = 0
        """Observer failures of the session already told (``_say_display_failures``)."""
        self._told_typed_at = float("-inf")
        """``_review_at`` of the review already told that typed keys went to the message."""
        self._ctrl_c_at: float | None = None
        """When ctrl+c was last pressed (a second one within ``QUIT_WINDOW`` quits)."""
        self._main: MainScreen | None = None
        for theme in THEMES:
            self.register_theme(theme)

    # ------------------------------------------------------------------ lifecycle
    @property
    def replaying(self) -> bool:
        return self.replay is not None

    @property
    def session(self) -> AgentSession | None:
        """The agent session the TUI holds now (None while replaying or not started)."""
        return self.live.session if self.live is not None else None

    @property
    def main(self) -> MainScreen:
        assert self._main is not None
        return self._main

    def get_driver_class(self) -> type[Driver]:
        """Textual's choice, with its Linux driver replaced by one whose input thread
        stops at once at exit (``quick_exit.py``: 0.2 s of every quit)."""
        from frontier.app.frontends.tui.quick_exit import quicker

        return quicker(super().get_driver_class())

    def on_load(self) -> None:
        name = self.config.theme if self.config.theme in self.available_themes else DEFAULT_THEME
        self.theme = name

    def get_default_screen(self) -> Screen[Any]:
        if self.is_web and not self._layout_given:
            self.layout_choice = "lab"  # `frontier serve`: a page projected to watch CST
        self._main = MainScreen(
            self.clock, interactive=not self.replaying, layout=self.layout_choice
        )
        if self.replay is not None and self.replay.responses > 1:
            self._main.responses_total = self.replay.responses
        return self._main

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        if self.stop_signals is not None:
            self.stop_signals.install(self._stop_signalled)
        self.call_after_refresh(self._freeze_startup_objects)
        self._flush_timer = self.set_interval(1 / self.flush_hz, self._tick, name="flush")
        if self.welcome:
            self._show_welcome()
        elif self.pick_session and self.live is not None:
            self.live.pick_then_start(self._none_picked)
        elif self.replay is not None:
            self.replay.start(self.autostart)
        elif self.live is not None and self.autostart:
            # the session (the agent core's imports, the store, git, instructions: ~0.1 s)
            # is built on a thread of its own once the first frame is out; until stop 41
            # it waited 0.15 s more, from when it was built on the loop (docs/startup.md)
            self.call_after_refresh(self.live.start)

    def _stop_signalled(self) -> None:
        """SIGTERM or SIGHUP: quit as ctrl+q does (the turn stopped, its results kept, a
        message typed and not sent kept, the terminal restored)."""
        self.call_later(self.action_quit)

    def _freeze_startup_objects(self) -> None:
        """Move everything alive after the first paint (Textual's DOM and CSS, a loaded
        recording) out of the collector's reach: a full collection then scans only what
        the stream allocated since, and no longer stalls a flush by tens of ms. The young
        generation's threshold is raised too (``GC_YOUNG``): a fast stream's short-lived
        objects die between collections, and a full collection, which holds the loop for
        up to ~100 ms at 1,000 tok/s, comes that many times less often."""
        gc.freeze()
        threshold = gc.get_threshold()
        if self._gc_threshold is None and threshold[0] < GC_YOUNG:
            self._gc_threshold = threshold
            gc.set_threshold(GC_YOUNG, *threshold[1:])

    async def on_unmount(self) -> None:
        try:
            await self._wind_down()
        finally:
            if self.stop_signals is not None:  # installed on mount: the app's, not the process's
                self.stop_signals.uninstall()

    async def _wind_down(self) -> None:
        """Give back what the app held: the collector's settings, the live session."""
        gc.unfreeze()  # this app's objects become collectable again (tests run many apps)
        if self._gc_threshold is not None:
            gc.set_threshold(*self._gc_threshold)
        if self.live is not None:
            if self.live.session is not None:
                self.last_session_id = self.live.session.session_id
                tally = self.live.tally
                if tally.requests:  # said after the terminal is given back
                    self.closing_line = tally.line(time.monotonic(), head="this run")
            try:
                await self.live.close()
            except Exception as exc:  # closing must not hide the reason the app exits
                self.log.error(f"closing the session failed: {exc!r}")

    def _show_welcome(self) -> None:
        from frontier.app.frontends.tui.screens.welcome import WelcomeScreen

        self.push_screen(WelcomeScreen(), callback=self._welcome_done)

    def _none_picked(self) -> None:
        """``frontier resume``'s picker closed with no session chosen: a new session here,
        as Codex's does (or, with no endpoint configured, the welcome's choice of one)."""
        if self.live is None:
            return
        if not self.config.has_endpoint:
            self._show_welcome()
            return
        self.state.note("no stored session chosen: a new session in this workspace")
        self.live.start()

    def _welcome_done(self, choice: str | None) -> None:
        if choice is not None and choice.startswith("use\t") and self.live is not None:
            _, base_url, model = choice.split("\t", 2)
            self.config = replace(self.config, base_url=base_url, model=model)
            command = f"frontier --base-url {shlex.quote(base_url)} --model {shlex.quote(model)}"
            self.state.note(
                f"using {model} at {base_url}; to start with it next time: {command} (or "
                f"base_url and model in {config_path()})"
            )
            self.live.start()
        elif choice == "demo" and self.live is not None:
            self.live.demo = True
            self.set_layout("lab", remember=False)  # the demo is for watching the boundary
            self.live.start()
        else:
            self.exit(0)

    def panic(self, *renderables: RenderableType) -> None:
        """Textual's panic, when its input thread dies (or a renderer raises): it ends the app
        and prints the error, but sets no return code, so ``frontier`` exited 0 as after a
        clean quit. It is 1 (``run_tui``)."""
        self.panicked = True
        super().panic(*renderables)

    def _theme_changed(self, theme: Theme) -> None:
        if self.remember_theme and theme.name in THEME_NAMES and theme.name != self.config.theme:
            try:
                save_setting("theme", theme.name)
            except OSError as exc:
                self.notify(f"could not remember the theme: {exc}", severity="warning")
            else:  # what is saved now, so switching back is saved too
                self.config = replace(self.config, theme=theme.name)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast, from every screen (``Widget.notify`` comes here): its text is
        display text (``display_preview``), never markup.

        Toasts carry file names (``exported to …``), rules made from the model's
        commands, error messages quoting a stored session or a server: one more sink
        for text a terminal must not obey. And no toast here is written as markup, so
        ``markup`` is ignored: a ``[`` in a file name is text, not a style (nor a
        markup error)."""
        super().notify(
            display_preview(message),
            title=display_preview(title, one_line=True),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def focus_prompt(self) -> None:
        prompts = self.main.query("#prompt")
        if prompts:
            prompts.first().focus()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        """Typing in the message box between two Escs: they are no Esc Esc."""
        if self.live is not None and isinstance(event.text_area, PromptInput):
            self.live.disarm_rewind()

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        """Enter in the message box: send, queue while the agent works, or save an edit
        of a queued message; the box is emptied only when the text was taken."""
        if self.live is not None and self.live.submit(event.text, editing=event.editing):
            event.prompt.clear_prompt()
            self.main.query_one(Transcript).to_end()  # their own action: show what follows

    # ------------------------------------------------------------------ events
    def observe(self, event: Event) -> None:
        """The core's observer: cheap; painting happens on the next flush."""
        self.state.apply(event)
        if self.flush_rate != self.flush_hz:
            self._wake()
        if isinstance(event, ToolFinished):
            self._ran_under(event)
        elif isinstance(event, ApprovalRequested):
            if self.live is not None:  # a replay shows recorded questions, never asks
                self.review(event)
        elif isinstance(event, ApprovalResolved):
            self._resolved(event)
        elif isinstance(event, TurnEnded) and self.live is not None:
            said = "done" if event.reason == "done" else f"stopped ({event.reason})"
            self.call_back(said)

    # ------------------------------------------------------------------ calling back
    def call_back(self, text: str) -> None:
        """Tell a person whose window is elsewhere that Frontier waits for them
        (``attention.py``: once per absence; nothing while the window has the focus)."""
        session = self.live.session if self.live is not None else None
        where = f"{session.workspace.name}: " if session is not None else ""
        sequence = self.attention.call(self.state.scrub(where + text), away=not self.app_focus)
        if sequence:
            self.write_terminal(sequence)

    def _write_terminal(self, sequence: str) -> None:
        if not self.is_headless and self._driver is not None:  # as App.bell writes
            self._driver.write(sequence)

    def on_app_focus(self, event: events.AppFocus) -> None:
        self.attention.focused()

    def observe_all(self, events: Iterable[Event]) -> None:
        for event in events:
            self.observe(event)

    def _ran_under(self, event: ToolFinished) -> None:
        """A finished command's sandbox (``sandbox: workspace-write · net off``, ``outside
        the sandbox (approved)``…) under its line in the Transcript, beside a mutation's
        files; kept for the inspector too (``sandbox_text.ran_under``)."""
        result = event.result
        lines = tuple(map(self.state.scrub, ran_under(result.meta)))
        row = self.state.tools.get(result.call_id)
        if not lines or row is None:
            return
        self.sandboxes[result.call_id] = lines  # the row shows them itself (ToolRow.ran)

    def review(self, request: ApprovalRequested) -> None:
        """Show the review modal for ``request`` (the session's ``ApprovalRequested``);
        the person's answer goes back through ``AgentSession.answer`` (issue 23). The
        stream keeps being read meanwhile: nothing here waits."""
        call = request.call
        self.state.set_tool_state(call, "review")
        theme = self.current_theme
        from frontier.app.frontends.tui.screens.review import ReviewScreen

        screen = ReviewScreen(
            call,
            request.spec,
            request.preview,
            syntax_style=theme_variable(theme, "syntax-style", "monokai"),
            added_bg=theme_variable(theme, "diff-added-bg", "#12361f"),
            removed_bg=theme_variable(theme, "diff-removed-bg", "#42171b"),
            split=self.split_diff,
            always_allow="always" in request.choices,
        )
        self._reviews_open[request.request_id] = screen
        self._review_at = time.perf_counter()
        self.push_screen(
            screen, callback=lambda decision: self._answered(request, screen, decision)
        )
        self.call_back(f"review {call.name} {summarize_call(call)}")

    def _answered(
        self, request: ApprovalRequested, screen: ReviewScreen, decision: Decision | None
    ) -> None:
        """The modal closed: answer the session (unless the question was withdrawn)."""
        self._reviews_open.pop(request.request_id, None)
        session = self.session
        if session is None:
            return
        decision = decision or Decision(False, "review closed without a decision")
        always = screen.always if decision.approved else None
        from frontier.app.agent.approvals import Answer

        outcome = session.answer(
            request.request_id,
            Answer(
                decision,
                always.rule if always is not None else None,
                always.remember if always is not None else False,
            ),
        )
        if not outcome.taken:
            return  # withdrawn meanwhile (the turn stopped): ApprovalResolved said so
        call = request.call
        self.reviews.append(ReviewRecord(call, request.preview, decision))
        if outcome.problem is not None:
            self.notify(outcome.problem, severity="warning", timeout=8)
        if outcome.allowed is not None:
            where = (
                "in this workspace (saved)" if outcome.allowed.remembered else "for this session"
            )
            rule_shown = rule_text(outcome.allowed.rule)
            self.state.note(f"always allowed {where}: {rule_shown}")
            self.notify(f"always allowed {where}: {rule_shown} — revoke from ^p", timeout=5)

    def _resolved(self, event: ApprovalResolved) -> None:
        """A question closed (answered here, or withdrawn because the turn stopped): the
        Tools row and the notes say how; a modal still showing it is closed."""
        row = self.state.tools.get(event.call_id)
        screen = self._reviews_open.pop(event.request_id, None)
        if screen is not None:
            # after the modal has finished mounting (answered elsewhere the moment it was
            # asked, it may not have); its own answer is then not taken
            self.call_after_refresh(screen.answer, Decision(False, event.reason))
        if row is None:
            return
        if event.withdrawn:
            self.state.set_tool_state(row.call, "cancelled")  # it never ran
        elif not event.approved:
            self.state.set_tool_state(row.call, "denied")
            self.state.note(f"denied {event.call_id}: {event.reason}")
        else:
            self.state.set_tool_state(row.call, "approved")
            if event.edited:
                self.state.note(
                    f"approved {event.call_id} with your version of {', '.join(event.edited)}"
                )
            if event.declined:
                hunks = ", ".join(f"{path} #{index}" for path, index in event.declined)
                self.state.note(f"approved {event.call_id} without {hunks}: {event.reason}")

    # ------------------------------------------------------------------ controllers
    # What a controller asks of the App's own widgets comes up as a message (host.py):
    # the controllers see a narrow ``Host``, never the App's screens.
    def prompt_box(self) -> PromptBox | None:
        """The message box of the main screen (``None`` before it is mounted)."""
        if self._main is None:
            return None
        boxes = self._main.query(PromptBox)
        return boxes.first() if boxes else None

    @on(FocusPrompt)
    def _focus_prompt_asked(self) -> None:
        self.focus_prompt()

    @on(BindingsChanged)
    def _bindings_changed(self) -> None:
        # posted from anywhere (a session adopted as the app quits): by the time it is
        # handled the screens may be gone, and Textual's refresh then raises
        # ``ScreenStackError`` ("No screens on stack"), failing the exit with a traceback
        if self.screen_stack:
            self.refresh_bindings()

    @on(Repaint)
    def _repaint_asked(self) -> None:
        self.flush(force=True)

    @on(ShowErrors)
    def _show_errors_asked(self) -> None:
        self.flush(force=True)
        errors = self.main.query_one(ErrorsPane)
        errors.select(len(self.state.errors) - 1)

    @on(Inspect)
    def _inspect_asked(self, message: Inspect) -> None:
        self.open_inspector(message.row)

    @on(Quit)
    def _quit_asked(self) -> None:
        self.exit()

    # ------------------------------------------------------------------ painting
    def status(self) -> StatusInfo:
        rate, estimated = self._rate()
        if self.replay is not None:
            info = self.replay.status(rate)
        else:
            assert self.live is not None
            info = self.live.status(rate)
        return replace(info, rate_estimated=True) if estimated else info

    def _rate(self) -> tuple[float | None, bool]:
        """Tokens/s to show and whether it is an estimate (chunks, no ``usage`` yet)."""
        if self.token_rate_override is not None:
            return self.token_rate_override, False
        progress = self.state.progress
        return progress.rate, progress.rate is not None and not progress.rate_exact

    def flush(self, force: bool = False) -> None:
        """Paint what changed since the last flush (the ~30 Hz timer calls this).

        ``force`` paints the slow panes and the hidden ones now too (after a user
        action, and in tests); otherwise a pane the layout hides waits until it is
        shown, and a changed hidden pane is no reason to paint: the screen is left
        alone, so an idle TUI costs nothing but the cursor's blink.
        """
        if self._main is None or not self._main.is_mounted:
            return
        self._probe()
        self._ticks += 1
        dirty = self.state.take_dirty() | self._held
        self._held = set()
        if not force:
            hidden = self._main.hidden_panes()
            self._held = dirty & hidden
            dirty -= hidden
            now = time.perf_counter()
            typing = now - self._key_at < TYPING_HOLD and now - self._slow_at < TYPING_HOLD
            if self.replay is not None and (self.replay.racing or self._raced):
                racing = self.replay.racing
                self._raced = racing or len(dirty - {"status"}) > 1
                dirty = self._one_pane(dirty)
                if self._raced and not racing:
                    # the replay ended: the rest paint one a timer apart, now (a timer,
                    # not ``call_later``: the keys and the screen update go between)
                    self.set_timer(DRAIN_GAP, self.flush, name="drain")
            else:
                dirty = self._slow_paced(dirty, now, typing)
            for pane in dirty:
                self._painted_at[pane] = now
            if not dirty:
                self._quiet += 1
                return
        if self.flush_rate != self.flush_hz:
            self._wake()  # a change no event announced (a playlist replay, a note)
        self._quiet = 0
        started = time.perf_counter()
        try:
            with self.batch_update():
                skipped = self.main.flush(self.state, dirty, self.status(), hidden=force)
                if force:  # the readouts' paced numbers too (``widgets/pacing.py``)
                    for readout in (*self.main.query(StatusBar), *self.main.query(CstStrip)):
                        readout.paint_now()
            self._held |= skipped
        except NoMatches:
            # the screen is being torn down (app exiting): nothing left to paint
            self.state.mark(*dirty)
            return
        if dirty & SLOW_PANES:
            spent = time.perf_counter() - started
            self._slow_until = started + spent / SLOW_SHARE
            self._slow_at = started

    @property
    def painting_behind(self) -> bool:
        """Panes changed that no flush has painted yet (a max-speed replay's last ones
        paint one a flush after it ends): what a benchmark waits for to see the end."""
        return self._raced or bool(self.state.dirty - {"status"} - self._main_hidden())

    def _main_hidden(self) -> set[str]:
        return self._main.hidden_panes() if self._main is not None else set()

    def _one_pane(self, dirty: set[str]) -> set[str]:
        """At "max" replay speed a flush paints one pane, the one whose last paint is
        oldest: each repaints a few times a second (nobody reads a frame of it), and no
        callback holds the keys for every pane's paint."""
        panes = dirty - {"status"}  # the status bar is drawn by every flush
        if len(panes) <= 1:
            return dirty
        first = min(sorted(panes), key=lambda pane: self._painted_at.get(pane, float("-inf")))
        wait = panes - {first}
        self.state.mark(*wait)
        return dirty - wait

    def _slow_paced(self, dirty: set[str], now: float, typing: bool) -> set[str]:
        """``dirty`` less the slow panes that must wait: the stream panes paint at 30 Hz;
        the layout-heavy ones at 10 Hz at most and one of them a flush (their paints
        never add up in one callback), less while painting them is costly
        (``SLOW_SHARE``), and at 2 Hz while keys arrive (``TYPING_HOLD``)."""
        slow = dirty & SLOW_PANES
        if not slow:
            return dirty
        due = [] if now < self._slow_until or typing else self._slow_due(slow, now)
        wait = slow - set(due[:1])
        if wait:
            self.state.mark(*wait)
        return dirty - wait

    def _slow_due(self, slow: set[str], now: float) -> list[str]:
        """The slow panes in ``slow`` last painted ``SLOW_PERIOD`` ago or more, the
        longest waiting first (the flush stamps the one it paints)."""
        painted = self._painted_at
        never = float("-inf")
        return sorted(
            (pane for pane in slow if now - painted.get(pane, never) >= SLOW_PERIOD),
            key=lambda pane: painted.get(pane, never),
        )

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            now = time.perf_counter()
            if now - self._key_at >= self.typed_through:
                self._run_from = now  # a pause: a new run of keys begins
            self._key_at = now  # the slow panes wait (``TYPING_HOLD``)
            if not event.is_forwarded and self._typed_through_review(event):
                return  # the message's key, not an answer to the review
        if (
            isinstance(event, events.Key | events.Paste)
            and not event.is_forwarded
            and self._main is not None
            and self.screen is self._main
        ):
            self._main.take_typing(event)  # typed on a pane: the prompt's, in order
        await super().on_event(event)

    def _tick(self) -> None:
        """The flush timer: a flush, and after ``IDLE_TICKS`` quiet ones a slower timer
        (``IDLE_HZ``) until the next event wakes it (:meth:`observe`)."""
        self.flush()
        self._say_display_failures()
        idle = self._quiet >= IDLE_TICKS and not self.state.turn_running
        if idle and self.flush_rate != IDLE_HZ:
            self._restart_timer(IDLE_HZ)

    def _say_display_failures(self) -> None:
        """The display raised on an event (a bug of ours): the session went on without it
        (``EventHub.emit``), and the person is told once, with where the whole record is."""
        session = self.session
        if session is None:
            return
        failed, words = session.observer_failures
        if failed <= self._display_failed:
            return
        if not self._display_failed:
            self.notify(
                f"The screen missed an event ({words[0]}); the session goes on and its "
                "record is whole (frontier export). Please report this.",
                severity="error",
                timeout=30,
            )
        self._display_failed = failed

    def _wake(self) -> None:
        """An event after a quiet spell: back to the full rate, painting on the next tick."""
        self._quiet = 0
        self._restart_timer(self.flush_hz)

    def _restart_timer(self, hz: float) -> None:
        if self._flush_timer is None:
            return
        self.flush_rate = hz
        self._flush_timer.stop()
        self._flush_timer = self.set_interval(1 / hz, self._tick, name="flush")

    def _probe(self) -> None:
        """Adopt the transducer's own frontier and bound (covers native/eos modes)."""
        source = self.replay or self.live
        probe = source.probe() if source is not None else None
        if probe is not None:
            self.state.set_probe(*probe)

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.REPLAY_ACTIONS:
            # not behind the inspector: its e is "next error", and a step would move on
            return self.replaying and not _showing(self.screen, _INSPECTOR)
        if action in self.WATCH_ACTIONS:
            return self.live is None  # a replay or the tour: no prompt owns the keyboard
        if action == "quit_empty":
            return self.live is not None and self.screen is self._main and self._prompt_empty()
        if action == "edit_message":
            return self.live is not None and self.screen is self._main
        if action == "cycle_layout":  # the footer's key live, its quiet twin in replay
            quiet = bool(parameters and parameters[0])
            return self.screen is self._main and quiet is self.replaying
        if action == "cancel":
            return not self.replaying and self.state.turn_running
        if action == "escape_idle":
            live = self.live is not None and not self.replaying
            return live and not self.state.turn_running and self.screen is self._main
        if action in self.EMPTY_PROMPT_ACTIONS:
            return self.screen is self._main and not self._typing()
        if action == "interrupt":
            return not self._selection()
        if action == "cycle_approval":
            # a modal's own shift+Tab (the review's previous file) comes first
            return self.screen is self._main and self.session is not None
        if action in ("help", "copy"):  # the shown binding live, its quiet twin in replay
            quiet = bool(parameters and parameters[0])
            here = action == "help" or self.screen is self._main
            return here and quiet is self.replaying
        if action == "demo_native":
            return self.live is not None and self.live.can_demo_native
        return True

    def ask(self, screen: Screen[Any], answered: Callable[[Any], None]) -> None:
        """Push a question the person answers with a key (``/checks trust``'s): keys of a
        run of typing that began before it opened go on into the message, as a review's
        do (``TYPED_THROUGH``): "yes, and…" typed on must not trust with its "y"."""
        self._review_at = time.perf_counter()
        self.push_screen(screen, callback=answered)

    def _typed_through_review(self, event: events.Key) -> bool:
        """``event`` belongs to a run of typing that began before the review on top
        opened (``TYPED_THROUGH``): it goes on into the message, never to the review's
        keys, and the review says once why its keys do nothing yet."""
        if not event.is_printable or event.character is None:
            return False  # esc, enter, arrows: never part of a word
        asking = _showing(self.screen, _REVIEW) or _showing(self.screen, _TRUST)
        if self._run_from >= self._review_at or not asking:
            return False  # the run began after the review opened: an answer
        if isinstance(self.focused, Input | TextArea):
            return False  # the review's own reason box types it
        prompt = next(self.main.query("#prompt").results(PromptInput), None)
        if prompt is not None and not prompt.read_only and not prompt.disabled:
            prompt.insert(event.character)
        if self._review_at != self._told_typed_at:
            self._told_typed_at = self._review_at
            keys = "y trust · n not now" if _showing(self.screen, _TRUST) else "a approve · d deny"
            self.notify(
                "a review opened while you were typing: those keys went to your message. "
                f"Pause, then answer it ({keys})",
                title="review",
                timeout=5,
            )
        event.stop()
        event.prevent_default()
        return True

    def _prompt_empty(self) -> bool:
        """The message box holds no text (whichever widget has the focus)."""
        prompt = next(self.main.query("#prompt").results(PromptInput), None)
        return prompt is not None and prompt.is_empty

    def _typing(self) -> bool:
        """The focus is in a text box that holds text (an ``Input`` or ``TextArea``,
        whichever the message box is): a key there is a character, not a command."""
        focused = self.focused
        if isinstance(focused, TextArea):
            return holds_text(focused)
        if isinstance(focused, Input):
            return bool(focused.value)
        return False

    def _selection(self) -> bool:
        """Text is selected (in a text box, or with the mouse on the screen): ctrl+c then
        copies it, as Textual does, instead of interrupting."""
        focused = self.focused
        if isinstance(focused, TextArea | Input) and focused.selected_text:
            return True
        try:
            return bool(self.screen.get_selected_text())
        except Exception:  # a screen being torn down has nothing selected
            return False

    def action_command_palette(self) -> None:
        # Textual asks only whether the top screen is the palette: with a review pushed
        # over an open palette (an approval arriving while a person searched commands),
        # ctrl+p pushed a second palette with the same id, and DuplicateIds closed the app
        from textual.command import CommandPalette

        if not any(isinstance(screen, CommandPalette) for screen in self.screen_stack):
            super().action_command_palette()

    def action_help(self, quiet: bool = False) -> None:
        from frontier.app.frontends.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_help_key(self) -> None:
        self.action_help()

    async def action_interrupt(self) -> None:
        """ctrl+c: stop the running turn; a second ctrl+c within 2 s quits (as in Claude
        Code). With no turn running the first press only says how to quit."""
        now = self.clock()
        last, self._ctrl_c_at = self._ctrl_c_at, now
        if last is not None and now - last <= self.QUIT_WINDOW:
            await self.action_quit()
            return
        if self.live is not None and self.live.interrupt():
            self.notify("interrupted · press ctrl+c again to quit", timeout=self.QUIT_WINDOW)
        else:
            self.notify("press ctrl+c again to quit", timeout=self.QUIT_WINDOW)

    def action_cycle_approval(self) -> None:
        if self.live is not None:
            self.live.cycle_approval()

    def action_copy(self, quiet: bool = False) -> None:
        """Open the copy picker: a transcript entry, a tool's output or a reviewed diff."""
        from frontier.app.frontends.tui.screens.copy import CopyScreen, copy_items

        items = copy_items(self.state, self.reviews)
        if not items:
            self.notify("nothing to copy yet", timeout=2)
            return
        self.push_screen(CopyScreen(items), callback=self._copy_chosen)

    def copy_to_clipboard(self, text: str) -> None:
        """Every copy (OSC 52: the terminal, or a browser under ``frontier serve``) is
        scrubbed once more here, whichever screen asked (diffs, commands, explanations)."""
        super().copy_to_clipboard(self.state.scrub(text))

    def _copy_chosen(self, item: CopyItem | None) -> None:
        if item is None:
            return
        self.copy_to_clipboard(item.text)
        self.notify(
            f"copied {item.kind} ({len(item.text):,} characters) via the terminal (OSC 52)",
            timeout=3,
        )

    def action_pane(self, name: str) -> None:
        if name in dict(TABS):
            self.main.show_tab(name)
            # paint it once the layout has given it a size (hidden panes skip flushes)
            self.call_after_refresh(self.flush, True)

    def action_watch_pane(self, name: str) -> None:
        """``1``–``4`` in a replay or the tour (a live session types them)."""
        self.action_pane(name)

    async def action_watch_quit(self) -> None:
        """``q`` in a replay or the tour; a live session quits only on purpose."""
        await self.action_quit()

    async def action_quit(self) -> None:
        """ctrl+q (and ctrl+c twice, ctrl+d on an empty box, ``q`` in a replay): quit. A
        message typed and not sent is kept first (``LiveController.keep_draft``), and
        what is still queued is said (``queued_note``)."""
        if self.live is not None:
            live = self.live
            notes = (live.keep_draft(), live.queued_note(), live.commands_note())
            self.quit_note = "\n".join(note for note in notes if note)
        await super().action_quit()

    async def action_quit_empty(self) -> None:
        """ctrl+d on an empty message box: quit, as EOF ends a shell (the session is
        kept; ``frontier resume`` continues it)."""
        await self.action_quit()

    def action_cycle_layout(self, quiet: bool = False) -> None:
        """f6: conversation → split → lab → conversation; remembered in a live session."""
        names = list(LAYOUTS)
        current = self.main.layout_name
        self.set_layout(names[(names.index(current) + 1) % len(names)])

    def set_layout(self, name: str, *, remember: bool = True) -> None:
        """Show the main screen in layout ``name``, paint the panes it uncovers now, and
        remember it (``save_setting``) when a live session chose it: the demo, the tour,
        a replay and ``serve`` open in ``lab`` whatever is remembered."""
        if name not in LAYOUTS or self._main is None:
            return
        self.layout_choice = name
        self.main.set_layout(name)
        self.call_after_refresh(self.flush, True)
        live = self.live
        if not (remember and self.remember_theme and live is not None and not live.demo):
            return
        if self.is_web:
            return  # a served page shares the config dir with the terminal: not its choice
        if name == self.config.layout:
            return
        try:
            save_setting("layout", name)
        except OSError as exc:
            self.notify(f"could not remember the layout: {exc}", severity="warning")
        else:
            self.config = replace(self.config, layout=name)

    def on_cst_strip_pressed(self, message: CstStrip.Pressed) -> None:
        """A click on the CST strip opens the lab panes (what f6 does from there)."""
        self.action_cycle_layout()

    def action_edit_message(self) -> None:
        """ctrl+g: the message box's text in the person's editor (``$VISUAL``, ``$EDITOR``),
        as Claude Code's ctrl+g: a long prompt is easier to write there; what is saved
        comes back into the box, not sent."""
        box = self.prompt_box()
        if box is not None:
            self.run_worker(
                self._edit_message(box.prompt), group="edit-message", exit_on_error=False
            )

    async def _edit_message(self, prompt: PromptInput) -> None:
        from frontier.app.frontends.editor_command import edited

        typed = prompt.text
        saved, refused = await edited(typed.encode(), "message.md", self.open_editor)
        if saved is None:
            self.notify(f"{refused}: the message box is as it was", severity="error")
            return
        text = saved.decode("utf-8", "replace")
        if text.endswith("\n") and not typed.endswith("\n"):
            text = text[:-1]  # the final newline editors add
        prompt.recall(text)  # in the box, the cursor at its end; not sent
        prompt.focus()

    async def _open_editor(self, path: Path) -> str | None:
        from frontier.app.frontends.tui.editor import edit_in_editor

        return await edit_in_editor(self, path, os.environ)

    def action_toggle_thinking(self) -> None:
        """Show the model's reasoning blocks whole, or folded to their last lines."""
        self.state.toggle_thinking()
        self.call_after_refresh(self.flush, True)

    def action_focus_errors(self) -> None:
        self.main.show_tab("errors")
        self.call_after_refresh(self.flush, True)
        self.main.query_one(ErrorsPane).option_list.focus()

    def on_open_tool_output(self, message: OpenToolOutput) -> None:
        """Enter or a click on a tool row (Transcript, Tools pane): its whole output in
        the pager; closing it gives the keyboard back to the prompt."""
        from frontier.app.frontends.tui.screens.pager import tool_pager

        self.push_screen(tool_pager(message.row), callback=lambda _: self.focus_prompt())

    def on_errors_pane_chosen(self, message: ErrorsPane.Chosen) -> None:
        self.main.highlight_error(self.state, message.row.response, message.row.offset)

    # ------------------------------------------------------------------ the inspector
    def on_errors_pane_inspect(self, message: ErrorsPane.Inspect) -> None:
        self.open_inspector(message.row)

    def open_inspector(self, row: ErrorRow) -> None:
        """Explain ``row`` (off the event loop: it re-reads the response) and show it."""
        self.run_worker(
            self._inspect(row), name="inspect", group="inspect", exclusive=True, exit_on_error=False
        )

    async def _inspect(self, row: ErrorRow) -> None:
        controller = self.replay or self.live
        explanation = await controller.explain(row) if controller is not None else None
        if explanation is None:
            self.notify(
                f"cannot inspect {row.kind} at byte {row.offset:,}: response {row.response} "
                "is no longer held here and was not stored",
                severity="warning",
                timeout=5,
            )
            return
        from frontier.app.frontends.tui.screens.inspector import InspectorScreen

        if isinstance(self.screen, InspectorScreen):
            self.screen.dismiss(None)
        attempt = explanation.attempt
        repaired = attempt.call[0] if attempt is not None and attempt.call else None
        sandbox = self.sandboxes.get(repaired, ()) if repaired else ()
        screen = InspectorScreen(explanation, replay=self.replaying, sandbox=sandbox)
        self.push_screen(screen, callback=lambda action: self._inspected(row, explanation, action))

    def _inspected(
        self, row: ErrorRow, explanation: Explanation, action: InspectorAction | None
    ) -> None:
        if action == "jump":
            self.jump_to_error(row, explanation.replay_command)
        elif action == "next" and self.replay is not None:
            self.replay.inspect_next()

    def jump_to_error(self, row: ErrorRow, replay_command: str) -> None:
        """``g`` in the inspector: the Raw stream, showing that response with the byte
        highlighted; live, a toast names the command that replays it (and says so when
        the byte has left the Raw stream's window)."""
        main = self.main
        main.show_tab("raw")
        main.highlight_error(self.state, row.response, row.offset)
        self.call_after_refresh(self.flush, True)
        buffer = self.state.response(row.response)
        if buffer is None or row.offset < buffer.base:
            self.notify(
                f"byte {row.offset:,} is no longer in the Raw stream window: "
                f"`{replay_command}` shows it",
                timeout=6,
            )
        elif self.live is not None:
            self.notify(
                f"byte {row.offset:,} highlighted · `{replay_command}` steps through that response",
                timeout=6,
            )

    def action_cancel(self) -> None:
        if self.live is not None:
            self.live.cancel()

    def action_escape_idle(self) -> None:
        if self.live is not None:
            self.live.escape_idle()

    def action_demo_native(self) -> None:
        if self.live is not None:
            self.live.demo_native()

    def action_open_session(self) -> None:
        if self.live is not None:
            self.live.open_picker()

    def action_toggle_pause(self) -> None:
        if self.replay is not None:
            self.replay.toggle_pause()

    def action_speed(self, direction: int) -> None:
        if self.replay is not None:
            self.replay.change_speed(direction)

    def action_step(self, unit: Step) -> None:
        if self.replay is not None:
            self.replay.step(unit)

    # ------------------------------------------------------------------ palette
    def get_system_commands(self, screen: Screen[Any]) -> Iterator[SystemCommand]:
        # Textual's own theme picker is left out: it offers themes that were never
        # contrast-checked for these panes and would not be remembered; "Theme: NAME"
        # below offers ours and saves the choice. Its Screenshot is replaced by ours.
        for command in super().get_system_commands(screen):
            if command.title not in ("Theme", "Screenshot"):
                yield command
        yield SystemCommand(
            "Screenshot",
            f"save an SVG of the screen in {markup_escape(str(screenshot_dir()))}",
            lambda: self.set_timer(0.1, self.deliver_screenshot),
        )
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
        if isinstance(screen, MainScreen):
            for name in LAYOUTS:
                if name != screen.layout_name:
                    yield SystemCommand(
                        f"Layout: {name}",
                        f"{LAYOUT_HELP[name]} (f6 cycles; remembered)",
                        lambda name=name: self.set_layout(name),
                    )
        live = self.live
        if live is None:
            return
        if not _showing(screen, _WELCOME):
            yield SystemCommand(
                "Open session…", "resume a stored session (newest first)", live.open_picker
            )
        session = live.session
        if session is not None:
            for mode in session.modes:
                yield SystemCommand(
                    f"Mode: {mode}",
                    "tool-call protocol for the next model request",
                    lambda mode=mode: live.set_mode(mode),
                )
            for policy in session.approvals:
                if policy != session.approval:
                    yield SystemCommand(
                        f"Approval: {policy}",
                        f"{APPROVAL_MEANINGS[policy]} (shift+Tab cycles)",
                        lambda policy=policy: live.set_approval(policy),
                    )
            for allowed in session.approval_rules:
                where = "saved for this workspace" if allowed.remembered else "this session"
                # the model's command: one bounded row, and never markup (the palette reads
                # a title as markup: `echo '[/]'` stopped the TUI when it was listed)
                rule = markup_escape(rule_text(allowed.rule))
                yield SystemCommand(
                    f"Revoke always-allow: {rule}",
                    f"approved without asking ({where}); revoke it",
                    lambda rule=allowed.rule: live.revoke(rule),
                )
            yield SystemCommand(
                "Export session (markdown)",
                "write the session to a .md file in the current directory",
                live.export,
            )
            yield SystemCommand(
                "Undo last file change",
                "put back the files of the newest change still in effect, reviewed first "
                "(/undo CALL undoes a named one)",
                live.undo,
            )
            yield SystemCommand(
                "Rewind to before one of your messages",
                "the files changed since, the conversation, or both; the message comes back "
                "to send again (/rewind, Esc Esc)",
                live.rewind,
            )

    def save_screenshot(
        self,
        filename: str | None = None,
        path: str | None = None,
        time_format: str | None = None,
    ) -> str:
        """Textual's screenshot, named as Textual names it, but written whole or not at all
        (``app/files.write_atomic``): a full disk leaves no half an SVG behind."""
        name = filename or _screenshot_name(self.title, time_format)
        target = os.path.expanduser(os.path.join(path or "./", name))
        write_atomic(target, self.export_screenshot())
        return target

    def deliver_screenshot(
        self,
        filename: str | None = None,
        path: str | None = None,
        time_format: str | None = None,
    ) -> str | None:
        """Save an SVG of the screen and say where: in ``<data dir>/screenshots`` unless a
        ``path`` is given. Textual's default is ``~/Downloads``, which many machines (a
        server, a container) do not have; the failure then went unexplained."""
        directory = Path(path) if path else screenshot_dir()
        try:
            directory.mkdir(parents=True, exist_ok=True)
            saved = self.save_screenshot(filename, str(directory), time_format)
        except OSError as exc:
            self.notify(
                f"could not save the screenshot in {directory}: {exc.strerror or exc}",
                title="Screenshot",
                severity="error",
                timeout=10,
            )
            return None
        self.notify(f"saved to {saved}", title="Screenshot", timeout=8)
        return saved

    def _toggle_split(self) -> None:
        self.split_diff = not self.split_diff
        self.notify(f"diffs open {'split' if self.split_diff else 'unified'}", timeout=2)


def run_tui(
    config: Config,
    *,
    demo: bool = False,
    demo_rate: float = 60.0,
    session_id: str | None = None,
    workspace: Path | None = None,
    pick_session: bool = False,
) -> int:
    """Entry point for ``frontier``, ``frontier demo`` and ``frontier resume`` (TUI;
    ``pick_session``: with no id, the session picker first)."""
    _draw_in_utf8()
    app = FrontierApp(
        config,
        demo=demo,
        demo_rate=demo_rate,
        session_id=session_id,
        workspace=workspace,
        pick_session=pick_session,
    )
    app.stop_signals = stop = StopSignals(terminal=True)  # before the terminal's modes change
    # What the imports made lives until exit: out of the collector's sight, the full
    # collection that came while the screen was built (~30 ms) walks only the new objects
    gc.freeze()
    try:
        result = app.run()
    finally:
        stop.uninstall()
    if app.quit_note:
        print(app.quit_note)
    _say_how_to_resume(app.last_session_id)
    if app.closing_line is not None:
        print(app.closing_line)  # the workspace's file names: made safe in RunTally.line
    if stop.exit_status is not None:
        print(f"frontier: {stop.why}", file=sys.stderr)
        return stop.exit_status
    if app.return_code:  # an exception the app did not handle: Textual printed it
        return app.return_code
    if app.panicked:  # its input thread died: Textual printed why, with no return code
        return 1
    return int(result or 0)


def _draw_in_utf8() -> None:
    """The screen is written in UTF-8 whatever the locale says. Textual draws on
    ``sys.__stderr__`` and needs box-drawing characters; a stream set to ASCII or an 8-bit
    code page (``PYTHONIOENCODING``, a legacy locale) turned every border into
    ``\\u2500`` escapes, on terminals that are UTF-8 all the same. A terminal that really
    is not UTF-8 shows the screen garbled either way."""
    stream = sys.__stderr__
    if isinstance(stream, io.TextIOWrapper) and not is_utf8(stream.encoding):
        stream.reconfigure(encoding="utf-8")


def screenshot_dir() -> Path:
    """Where the palette's Screenshot saves: beside the sessions, a folder that exists
    (or can be made) wherever Frontier runs."""
    return data_dir() / "screenshots"


def _say_how_to_resume(session_id: str | None) -> None:
    """After the terminal is restored: the command that continues the session, as
    Codex and Claude Code print on exit. Nothing when no session was open or closing
    deleted it (the model never answered: nothing to continue)."""
    if session_id is None:
        return
    from frontier.app.session.catalogue import find_session
    from frontier.app.session.db import StoreError

    try:
        find_session(session_id)
    except StoreError:
        return
    print(f"Session {session_id} saved. Continue it with: frontier resume {session_id}")


def _screenshot_name(title: str, time_format: str | None) -> str:
    """``TITLE 2025-01-31T12_00_00_000000.svg``: Textual's naming for a screenshot (its
    ``generate_datetime_filename``, private to it), characters no file name may hold
    replaced by ``_``."""
    stamp = datetime.now().strftime(time_format) if time_format else datetime.now().isoformat()
    stem = f"{title} {stamp}"
    for reserved in ' <>:"/\\|?*.':
        stem = stem.replace(reserved, "_")
    return f"{stem}.svg"
