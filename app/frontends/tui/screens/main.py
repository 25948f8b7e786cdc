"""The main screen: Transcript, Raw stream, Confirmed, Pending, Errors, Tools, input.

It renders ``UiState`` on the App's flush and never reads events itself. Three
layouts share the same widgets (docs/tui-layouts.md): ``conversation`` (the
Transcript at full width over a one-line CST strip; the lab panes stay in the DOM,
hidden, and are not painted), ``split`` (the Transcript beside the lab panes) and
``lab`` (every pane). Below 110×32 cells the right column becomes tabs (``f2``–``f5``,
or ``1``–``4`` in replay) so every pane stays usable at 80×24.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static, TextArea

from frontier.app.record import replace
from frontier.app.vocab import LAYOUTS
from frontier.widgets.confirmed import ConfirmedView
from frontier.widgets.cst_strip import CstStrip, StripInfo, error_label, running_label
from frontier.widgets.errors_pane import ErrorsPane
from frontier.widgets.key_bar import KeyBar
from frontier.widgets.pending import SHOW_BYTES, PendingView
from frontier.widgets.prompt_input import PromptBox, PromptInput
from frontier.widgets.raw_stream import RawStreamView
from frontier.widgets.state import ResponseBuffer, UiState
from frontier.widgets.status_bar import StatusBar, StatusInfo
from frontier.widgets.tools_pane import ToolsPane, elapsed_of
from frontier.widgets.transcript import Transcript

COMPACT_WIDTH = 110
COMPACT_HEIGHT = 32
CSS_PATH = Path(__file__).with_name("main.tcss")
"""Layout CSS; loaded by the App (a default screen's own CSS_PATH is not applied)."""
TABS = (
    ("raw", "Raw stream"),
    ("confirmed", "Confirmed"),
    ("pending", "Pending"),
    ("errors", "Errors"),
)
LAYOUT_HELP = {
    "conversation": "the Transcript at full width, a one-line CST strip",
    "split": "the Transcript beside the CST panes",
    "lab": "every CST pane: Raw stream, Confirmed, Pending, Errors, Tools",
}
"""One line per layout, for the palette and the help."""
PANE_TITLES = {
    "transcript": "Transcript",
    "raw": "Raw stream",
    "confirmed": "Confirmed",
    "pending": "Pending",
    "errors": "Errors",
    "tools": "Tools",
}
"""The bordered panes (class ``pane``) and their titles."""
LAB_PANES = frozenset({*(ident for ident, _ in TABS), "tools"})
"""What the conversation layout hides (the Transcript and the prompt stay)."""


def compact_at(width: int, height: int) -> bool:
    """Whether a terminal of this size gets the compact layout (one right-hand pane)."""
    return width < COMPACT_WIDTH or height < COMPACT_HEIGHT


class MainScreen(Screen[None]):
    AUTO_FOCUS = "#prompt"
    """Typing goes to the message box from the first keystroke (not to a pane)."""
    ALLOW_IN_MAXIMIZED_VIEW = "#prompt-box, #status, KeyBar"
    """A maximised pane keeps the prompt, the status bar and the keys below it."""

    def __init__(
        self, clock: Callable[[], float], *, interactive: bool = True, layout: str = "lab"
    ) -> None:
        super().__init__()
        self.clock = clock
        self.interactive = interactive
        self.layout_name = layout if layout in LAYOUTS else "lab"
        """``conversation``, ``split`` or ``lab`` (``vocab.LAYOUTS``)."""
        self.active_tab = "raw"
        self.shown_response: int | None = None
        """Response shown in Raw stream when the user picked an older one (else latest)."""
        self.highlight: int | None = None
        self.responses_total: int | None = None
        """Set when replaying a session: Raw stream's title then names the response shown."""
        self._epoch = 0
        """``UiState.epoch`` last painted (a new session resets what Raw stream shows)."""

    def compose(self) -> ComposeResult:
        made = {
            "transcript": Transcript(self.clock, id="transcript"),
            "pane-tabs": Static(id="pane-tabs"),
            "raw-thinking": Static(id="raw-thinking"),
            "raw": RawStreamView(id="raw"),
            "lower": Horizontal(id="lower"),
            "confirmed": ConfirmedView(id="confirmed"),
            "pending": PendingView(id="pending"),
            "errors": ErrorsPane(id="errors"),
            "tools": ToolsPane(self.clock, id="tools"),
        }
        self._first_classes(made)
        with Horizontal(id="main"):
            yield made["transcript"]
            with Vertical(id="right"):
                yield made["pane-tabs"]
                yield made["raw-thinking"]
                yield made["raw"]
                with made["lower"]:
                    yield made["confirmed"]
                    yield made["pending"]
                yield made["errors"]
        yield CstStrip(id="cst-strip")
        yield made["tools"]
        if self.interactive:
            yield PromptBox(id="prompt-box")  # queued messages, @path list, the prompt
        yield StatusBar(id="status")
        yield KeyBar()

    def _first_classes(self, made: Mapping[str, DOMNode]) -> None:
        """Every class the layout wants at the terminal's size, set before anything is
        styled: the first styling is then the right one, and mounting needs no restyle of
        the whole screen (which was a tenth of the main screen's start-up CPU). The
        screen's own classes are styled by Textual's restyle when the screen is shown."""
        width, height = self.app.size
        compact = compact_at(width, height)
        for layout in LAYOUTS:
            self.set_class(layout == self.layout_name, f"-{layout}", update=False)
        self.set_class(compact, "-compact", update=False)
        for ident in PANE_TITLES:
            made[ident].add_class("pane", update=False)
        made["errors"].add_class("-empty", update=False)
        for ident, add, name in self._tab_classes(self.active_tab):
            made[ident].set_class(add, name, update=False)

    def on_mount(self) -> None:
        for ident, title in PANE_TITLES.items():
            self.query_one(f"#{ident}").border_title = title
        self.set_layout(self.layout_name)  # the size may have changed since compose

    def on_resize(self, event: events.Resize) -> None:
        self._layout(event.size.width, event.size.height)

    # ------------------------------------------------------------------ layout
    @property
    def compact(self) -> bool:
        return self.has_class("-compact")

    def set_layout(self, name: str) -> None:
        """Show the screen in layout ``name``; the App paints the panes it uncovers."""
        self.layout_name = name if name in LAYOUTS else "lab"
        changes = [(self, layout == self.layout_name, f"-{layout}") for layout in LAYOUTS]
        if self.layout_name == "conversation" and self.maximized is not None:
            self.minimize()  # a maximised lab pane would otherwise stay over the Transcript
        self._layout(self.size.width, self.size.height, changes)

    def _layout(
        self,
        width: int,
        height: int,
        changes: Sequence[tuple[DOMNode, bool, str]] = (),
    ) -> None:
        compact = compact_at(width, height)
        self._select_tab(self.active_tab, [*changes, (self, compact, "-compact")])

    def _set_classes(self, changes: Sequence[tuple[DOMNode, bool, str]]) -> None:
        """Add (True) or remove (False) each class, then restyle once: the whole screen
        when a class of its own changed, else only the nodes whose classes changed.
        Textual restyles a node and everything below it for each class set alone, and
        the layout classes are the screen's: one restyle of every pane per class made
        a third of the TUI's start-up (issue 24)."""
        changed: list[DOMNode] = []
        for node, add, name in changes:
            if node.has_class(name) != add:
                node.set_class(add, name, update=False)
                if not any(node is seen for seen in changed):
                    changed.append(node)
        for node in [self] if any(node is self for node in changed) else changed:
            node.update_node_styles()

    def show_tab(self, name: str) -> None:
        """Show pane ``name`` (a key, a jump to an error's byte). The conversation layout
        hides the lab panes, so it gives way to the split layout first (for this session:
        only the layout key changes what is remembered)."""
        if self.layout_name == "conversation":
            self.active_tab = name
            self.set_layout("split")
        else:
            self._select_tab(name)

    def _select_tab(
        self,
        name: str,
        changes: Sequence[tuple[DOMNode, bool, str]] = (),
    ) -> None:
        """Choose the pane shown in the right column in compact layout (with the screen's
        own class ``changes``, restyled together)."""
        self.active_tab = name
        tabs = [(self.query_one(f"#{i}"), add, c) for i, add, c in self._tab_classes(name)]
        self._set_classes([*changes, *tabs])
        self.query_one("#pane-tabs", Static).update(self._tab_bar(name))

    @staticmethod
    def _tab_classes(name: str) -> list[tuple[str, bool, str]]:
        """(widget id, wanted, class) that show pane ``name`` in the compact layout."""
        tabs = [(ident, ident == name, "-active") for ident, _ in TABS]
        tabs.append(("raw-thinking", name == "raw", "-raw-tab"))
        tabs.append(("lower", name in ("confirmed", "pending"), "-active"))
        return tabs

    def _tab_bar(self, name: str) -> Text:
        """The compact layout's tabs, each naming the key that shows it here: 1-4 would
        type into the message box, so a live session names f2-f5 (replay has no box, so
        1-4 work there). All four fit the right column at 80 columns: the gaps go first,
        then the long titles are cut."""
        width = self.size.width
        transcript = width // 2 if self.layout_name == "split" else width * 2 // 5
        room = width - max(28, transcript) - 2  # beside the Transcript
        for gap, cut in ((" ", False), ("", False), ("", True)):
            bar = Text(no_wrap=True)
            for i, (ident, title) in enumerate(TABS, start=1):
                title = title.removesuffix(" stream")
                if cut:
                    title = title[:4]
                style = "bold reverse" if ident == name else "dim"
                key = f"f{i + 1}" if self.interactive else str(i)
                bar.append(f" {key} {title} ", style=style)
                if i < len(TABS):
                    bar.append(gap)
            if bar.cell_len <= room:
                break
        return bar

    # ------------------------------------------------------------------ flush
    def hidden_panes(self) -> set[str]:
        """Panes the layout hides right now: every lab pane in the conversation layout,
        the other tabs in the compact one (they paint when they are shown)."""
        if self.layout_name == "conversation":
            return set(LAB_PANES)
        if not self.compact:
            return set()
        return {ident for ident, _ in TABS} - {self.active_tab}

    def flush(
        self, state: UiState, dirty: set[str], status: StatusInfo, *, hidden: bool = False
    ) -> set[str]:
        """Apply what changed since the last flush (called inside ``batch_update``).

        Panes hidden by the compact layout are painted only when ``hidden`` (a user
        action); returns the dirty panes it left unpainted.
        """
        if state.epoch != self._epoch:  # a new session: nothing of the earlier one stays
            self._epoch = state.epoch
            self.shown_response = self.highlight = None
        skipped = set() if hidden else dirty & self.hidden_panes()
        dirty = dirty - skipped
        if "transcript" in dirty:
            self.query_one(Transcript).show(
                state.transcript, state.tools, thinking_expanded=state.thinking_expanded
            )
        if "raw" in dirty:
            raw = self.query_one(RawStreamView)
            buffer = state.current
            if self.shown_response is not None:
                buffer = state.response(self.shown_response) or buffer
            if buffer is not raw.buffer:
                raw.show(buffer, highlight=self.highlight if self.shown_response else None)
                self._title_raw(raw)
            else:
                raw.sync()
            self._show_thinking(buffer)
            raw.border_subtitle = f"offset {state.consumed:,} · frontier {state.frontier:,}"
        if "confirmed" in dirty:
            self.query_one(ConfirmedView).set_rows(state.confirmed)
        if "pending" in dirty:
            size = state.pending_size
            pane = self.query_one(PendingView)
            mode = state.current.mode if state.current else None
            pane.show(state.pending_tail(SHOW_BYTES), state.pending_bound, mode, size=size)
            pane.border_subtitle = f"{size:,} / {state.pending_bound:,}"
        tools = self.query_one(ToolsPane)
        if "tools" in dirty:
            tools.show(state.tool_rows)
        elif "tools" not in skipped and "tools" not in self.hidden_panes():
            tools.tick()  # running rows' elapsed time
        if self.layout_name == "conversation":
            self.query_one(CstStrip).show(self.strip_info(state))
        if "errors" in dirty:
            errors = self.query_one(ErrorsPane)
            errors.show(state.errors)
            errors.set_class(not state.errors, "-empty")
            errors.border_subtitle = f"{len(state.errors)}" if state.errors else ""
        if self.interactive and not status.waiting:
            # A live session's silent server; a replay's pauses are the player's, not waits.
            status = replace(status, waiting=state.waiting_label())
        self.query_one(StatusBar).show(status)
        return skipped

    def strip_info(self, state: UiState) -> StripInfo:
        """The CST strip's line: the boundary, the newest running call, the last error."""
        running = state.running_tools()
        label, short = None, ""
        if running:
            row = running[-1]
            label, short = running_label(
                row.call.id, row.call.name, row.summary, elapsed_of(row, self.clock())
            )
        last = state.errors[-1] if state.errors else None
        return StripInfo(
            frontier=state.frontier,
            pending=state.pending_size,
            bound=state.pending_bound,
            running=label,
            running_short=short,
            running_more=max(0, len(running) - 1),
            error=error_label(last.kind, last.offset) if last is not None else None,
            errors=len(state.errors),
        )

    # ------------------------------------------------------------------ keys
    def take_typing(self, event: events.Key | events.Paste) -> None:
        """In a live session the keyboard belongs to the prompt: a printable key or a
        paste arriving while a pane has the focus is for the prompt, which takes the
        focus *before* the App hands the event on (``FrontierApp.on_event``), so no
        letter reaches a binding (replay's ``q``, ``n``, ``e``…) and none is lost.

        Deciding here, as each event leaves the App's queue, keeps a burst whole: the
        keys of one terminal read (``tmux send-keys``, a paste without bracketed paste)
        are all taken from the queue before a pane would handle the first, so a pane
        passing each on (or moving the focus when it gets one) saw only the first."""
        if not self.interactive:
            return
        if isinstance(event, events.Key) and (not event.is_printable or event.character is None):
            return
        focused = self.focused
        if isinstance(focused, TextArea | Input):
            return  # a text box types it (the prompt: `?` on an empty one is help)
        boxes = self.query("#prompt-box")
        if focused is not None and boxes and boxes.first() in focused.ancestors_with_self:
            return  # the prompt's own lists (@path completion, the / menu) keep their keys
        prompt = next(self.query("#prompt").results(PromptInput), None)
        if prompt is None or prompt.read_only or prompt.disabled:
            return
        if isinstance(event, events.Key):
            prompt.type_key(event)  # text, even `?` on an empty prompt
        self.set_focus(prompt)

    def action_maximize(self) -> None:
        """The palette's Maximize: the focused pane fills the screen above the prompt,
        the status bar and the keys (``ALLOW_IN_MAXIMIZED_VIEW``); from the prompt it is
        the Transcript that grows. Esc (or the palette's Minimize) restores."""
        target: Widget | None = self.focused
        boxes = self.query("#prompt-box")
        if target is None or (boxes and boxes.first() in target.ancestors_with_self):
            target = self.query_one(Transcript)
        for node in target.ancestors_with_self:
            if isinstance(node, Widget) and node.has_class("pane"):
                target = node
                break
        self.maximize(target, container=False)

    def highlight_error(self, state: UiState, response: int, offset: int) -> None:
        """Show ``response`` in Raw stream with byte ``offset`` highlighted."""
        self.highlight = offset
        latest = state.current.index if state.current else None
        self.shown_response = None if response == latest else response
        raw = self.query_one(RawStreamView)
        raw.show(state.response(response) or state.current, highlight=offset)
        self._title_raw(raw)

    def _show_thinking(self, buffer: ResponseBuffer | None) -> None:
        """The response's reasoning, in a region of its own above the stream: it is not
        transducer input, so it has no offsets and no frontier."""
        region = self.query_one("#raw-thinking", Static)
        if buffer is None or not buffer.reasoning_chars:
            region.remove_class("-shown")
            return
        region.add_class("-shown")
        tail = buffer.reasoning.rstrip("\n").rsplit("\n", 2)[-2:]
        text = Text.assemble(
            ("thinking", "reverse"),
            (f" {buffer.reasoning_chars:,} chars, not transducer input  ", "dim"),
        )
        text.append("\n" + "\n".join(line[-400:] for line in tail), style="italic")
        region.update(text)

    def _title_raw(self, raw: RawStreamView) -> None:
        if self.responses_total and raw.buffer is not None:
            raw.border_title = f"Raw stream · response {raw.buffer.index} of {self.responses_total}"
