"""The message box: a multi-line prompt, its history, ``@path`` completion and the queue.

:class:`PromptInput` is a ``TextArea`` (DESIGN §8; issue 14):

* **Enter** sends; **shift+Enter** and **ctrl+j** insert a newline. Many terminals
  send the same byte for shift+Enter as for Enter (tmux, most without the kitty
  keyboard protocol), so ctrl+j is the newline that works everywhere.
* A **bracketed paste** arrives as one ``Paste`` event and is inserted whole,
  every line of it (the old one-line ``Input`` kept the first line, silently); a paste
  that is the path of an image (a screenshot dropped on the terminal) goes in as its
  ``@`` mention (:attr:`PromptInput.dropped`).
* **↑ / ↓** on the first / last (visual) line recall earlier prompts, as a shell
  does: the text typed before the first ↑ is kept and comes back after the newest.
  With messages queued and the prompt empty, ↑ first edits the queue (below).
* **ctrl+r** opens :class:`HistorySearch`, a small modal that filters the history
  as you type (newest first).
* **@** starts completion of a workspace path: the list above the prompt narrows as
  you type; ↑↓ choose, Tab or Enter accept, Esc closes.
* **Queued messages** (typed while the agent works) are listed above the prompt. ↑
  on an empty prompt loads the newest into the prompt to edit it in place (↑↓ step
  to the others while it is unchanged); Enter saves it, Enter on an emptied prompt
  removes it, Esc leaves it as it was.
* **/** at the start of an empty prompt opens the slash-command menu
  (:class:`~frontier.widgets.slash_menu.SlashMenu`): it narrows as the name is typed
  (a command named exactly what is typed is the one highlighted: ``/mode`` is not
  ``/model``); ↑↓ choose, Tab completes ``/name ``, Enter runs the command — a built-in
  on the first Enter, its arguments being optional; a custom template using
  ``$ARGUMENTS`` is completed instead — Esc closes the menu only. The commands come from
  :attr:`PromptInput.command_source` (read off the event loop, like the files).
* ``?`` on an empty prompt is not typed: it goes to the app's bindings (help), and
  :attr:`PromptInput.is_empty` says when that is.

The widget knows nothing of sessions: the screen gives it the history, a function
listing the queue and one listing the workspace files, and it posts
:class:`PromptInput.Submitted`.
"""

from __future__ import annotations

import heapq
import re
import threading
import time
from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from frontier.app.agent.path_query import in_order
from frontier.app.agent.slash import BUILTINS, Commands, SlashCommand, matching
from frontier.widgets import prompt_document
from frontier.widgets.display import display_preview
from frontier.widgets.slash_menu import SlashMenu

PLACEHOLDER = "message the agent… (Enter sends · ctrl+j newline · @ attach a file · ↑ history)"
COMPLETIONS_SHOWN = 8
"""Rows of the ``@path`` list."""
SEARCH_FROM = 3
"""Characters of a query (without a folder) from which a cut listing's ``@`` completion
also searches the whole tree (``file_search``): fewer match too much to be worth a walk."""
SEARCHES_KEPT = 8
"""Searches' answers kept for the queries typed since (a longer query reuses a shorter
one's answer when that held every match)."""
RANK_INLINE = 20_000
"""Paths ``@`` completion ranks on the screen's loop at each key (under ~10 ms); a longer
listing (up to 100,000 paths: 20-50 ms a key) is ranked on a worker thread, and only the
answer to the query still typed is shown."""
FILES_STALE = 10.0
"""Seconds after which the next ``@`` lists the workspace files again."""
QUEUE_SHOWN = 4
"""Queued messages listed above the prompt (then "and N more")."""
SCROLLING_PASTE = 64
"""Lines (or widths of text) past which a paste surely overflows the box (8 rows at most:
``PromptBox``'s CSS), so its scrollbar is shown before the paste goes in."""
BLINK_REST = 10.0
"""Seconds without input after which the cursor stops blinking and stays shown (GTK's
``gtk-cursor-blink-timeout`` is the same 10 s). Each blink repaints the prompt's line,
and Textual then asks every top-level widget of the screen for its (cached) lines and
the text area re-applies its theme: 2-3 ms twice a second, most of an idle TUI's CPU
(issue 23). A key, a paste, a click or focus starts the blinking again."""

_AT_QUOTED = re.compile(r'(?:^|(?<=\s))@"([^"\n]*)$')
_AT_BARE = re.compile(r'(?:^|(?<=\s))@([^\s"]*)$')
_SLASH = re.compile(r"/([A-Za-z0-9_-]*)")
"""The whole prompt while the slash menu is open: ``/`` and the name typed so far."""

QueuedSource = Callable[[], Sequence[tuple[int, str]]]
"""``() -> [(id, text), ...]``: the messages queued now, oldest first."""
FileSource = Callable[[str], tuple[list[str], bool]]
"""``(folder) -> ([path, ...], complete)``: workspace paths for completion under ``folder``
(``"."``: all), and whether that is every one (else the listing was cut); blocking: run in
a thread."""
FileSearch = Callable[[str, threading.Event], tuple[list[str], bool]]
"""``(query, stop) -> ([path, ...], complete)``: every workspace path holding the query's
characters in order, whole tree (past a cut listing), and whether that is all of them;
blocking: run in a thread, and ``stop`` set when the answer is no longer wanted."""
CommandSource = Callable[[], Commands]
"""The session's slash commands (blocking: run in a thread)."""


def one_row(text: str, width: int = 80) -> str:
    """A prompt as one row of a list: its lines joined by ``⏎``, cut at ``width`` (two
    prompts that share a first line still look different). A pasted prompt can hold a
    file's escapes, and history is stored: display text (``display_preview``)."""
    row = " ⏎ ".join(line.strip() for line in text.strip("\n").split("\n"))
    return display_preview(row, one_line=True, limit=width)


def rank_paths(files: Sequence[str], query: str, limit: int = COMPLETIONS_SHOWN) -> list[str]:
    """The best ``limit`` paths for ``query`` (:meth:`PathRanker.rank`, once)."""
    return PathRanker(files).rank(query, limit)


class PathRanker:
    """``@`` completion's ranking over one listing of the workspace, made for a query
    typed a key at a time: the file name starting with it first, then the path starting
    with it, then containing it (name, then path), then its characters in order; shorter
    paths first within each (then by the path).

    Each path is lower-cased, and the listing put in (length, path) order, once; a key
    then makes one integer per match (its rank, then its place in that order) and keeps
    the smallest ``limit``, never sorting every match. A query that extends the one before
    looks only at the paths that one matched (a path holding the longer query's characters
    in order holds the shorter's). The in-order test is a regular expression, run in C, in
    linear time.
    Ranking 20,000 paths took 30-50 ms of the screen's loop at every key before.
    """

    def __init__(self, files: Sequence[str]) -> None:
        self.files = list(files)
        self._low = [path.casefold() for path in self.files]
        self._name_at = [low.rfind("/") + 1 for low in self._low]
        self._order = sorted(range(len(self.files)), key=lambda i: (len(files[i]), files[i]))
        self._place = [0] * len(self.files)
        for place, i in enumerate(self._order):
            self._place[i] = place
        self._last: tuple[str, list[int]] | None = None
        """The last query and the indexes of every path it matched."""

    def rank(self, query: str, limit: int = COMPLETIONS_SHOWN) -> list[str]:
        q = query.casefold()
        n = len(self.files)
        order = self._order
        if not q:  # every path, rank 0: the first of the order
            self._last = (q, order)
            return [self.files[i] for i in order[:limit]]
        last = self._last
        pool: Sequence[int] = last[1] if last is not None and q.startswith(last[0]) else order
        matches_in_order = in_order(q)  # linear, never backtracking
        lows, name_at, place = self._low, self._name_at, self._place
        matched: list[int] = []
        keys: list[int] = []
        for i in pool:
            low = lows[i]
            at = low.find(q)
            if at < 0:
                if matches_in_order(low) is None:
                    continue
                rank = 4
            elif low.startswith(q, name_at[i]):
                rank = 0
            elif at == 0:
                rank = 1
            elif low.find(q, name_at[i]) >= 0:
                rank = 2
            else:
                rank = 3
            matched.append(i)
            keys.append(rank * n + place[i])
        self._last = (q, matched)
        return [self.files[order[key % n]] for key in heapq.nsmallest(limit, keys)]


def _room(note: str) -> int:
    """Matches shown: one row fewer when a note takes it."""
    return COMPLETIONS_SHOWN - 1 if note else COMPLETIONS_SHOWN


def mention_text(path: str) -> str:
    """How an accepted completion is written: ``@path``, quoted when it has a space."""
    return f'@"{path}"' if any(ch.isspace() for ch in path) else f"@{path}"


class PromptInput(TextArea):
    """The multi-line prompt (see the module docstring for every key)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+r", "search_history", "Search history", show=False),
    ]

    class Submitted(Message):
        """Enter: send (or queue) ``text``; ``editing`` names the queued message it edits."""

        def __init__(self, prompt: PromptInput, text: str, editing: int | None) -> None:
            super().__init__()
            self.prompt = prompt
            self.text = text
            self.editing = editing

        @property
        def control(self) -> PromptInput:
            return self.prompt

    def __init__(self, *, id: str | None = None, placeholder: str = PLACEHOLDER) -> None:
        super().__init__(
            id=id,
            placeholder=placeholder,
            soft_wrap=True,
            tab_behavior="focus",
            highlight_cursor_line=False,
            show_line_numbers=False,
        )
        self.prompts: list[str] = []
        """Earlier prompts, oldest first (the screen keeps it current)."""
        self.queued_source: QueuedSource = lambda: ()
        self.file_source: FileSource | None = None
        self.file_search: FileSearch | None = None
        self.editing: int | None = None
        """The queued message being edited in the prompt, if any."""
        self._editing_text = ""
        self._history_index: int | None = None
        self._draft = ""
        self._files: list[str] = []
        self._ranker = PathRanker(())
        self._files_at = -FILES_STALE
        self._files_loading = False
        self._completion: tuple[int, int, str] | None = None
        """The ``@`` token being completed: (row, column of the ``@``, query)."""
        self._complete = True
        """The listing holds every path of the workspace (else a folder typed is listed
        on its own when the listing has nothing under it: ``_ranker_for``)."""
        self._folders: dict[str, PathRanker | None] = {}
        """Folders typed after a cut listing: their own listing (``None`` while it loads),
        or the listing's ranker when it has paths under them."""
        self._searches: dict[str, tuple[PathRanker, bool]] = {}
        """After a cut listing, the whole tree searched for a query without a folder
        (casefolded): a ranker over the paths found, and whether they are all that match."""
        self._searching: tuple[str, threading.Event] | None = None
        """The query being searched for, and how to stop that search."""
        self._generation = 0
        """Counts listings: an answer for an older one is dropped."""
        self._asked = 0
        """Counts the rankings asked for (a key, a listing, a folder's listing or a search
        answered): only the newest is shown, so a long listing's ranking that lags on its
        worker never replaces what a newer state showed (a folder's listing, a search's
        answer, for the same query)."""
        self._shown: int | None = None
        """Which ranking the list shows (``_asked`` of it)."""
        self._rank_lock = threading.Lock()
        """One ranking at a time: ``PathRanker`` keeps the last query's matches."""
        self._typed = False
        """The last key typed text (only typing opens the ``@path`` list)."""
        self.command_source: CommandSource | None = None
        self.dropped: Callable[[str], str | None] | None = None
        """The ``@`` mention a pasted text stands for, if any: a file dropped on the
        terminal pastes its path, and a screenshot's is attached (the front end's
        ``attachments.dropped_image``)."""
        self.commands: tuple[SlashCommand, ...] = BUILTINS
        """What the slash menu offers (the built-ins until the session's are read)."""
        self._commands_at = -FILES_STALE
        """``monotonic`` time the session's commands were last read."""
        self._as_text: events.Key | None = None
        """A key typed while a pane had the focus, on its way here (:meth:`type_key`)."""

    def _set_document(self, text: str, language: str | None) -> None:
        # every document the box gets (its first, each load_text) keeps its joined text
        # and answers its height in O(1): a long paste must not slow every key
        super()._set_document(text, language)
        prompt_document.adopt(self)

    def _rewrap_and_refresh_virtual_size(self) -> None:
        # Textual rewraps every line on each resize and each scrollbar change, though the
        # box only grew taller (a paste takes it from 3 lines to 8) and edits keep the
        # wrapping current: at the same width and tab width the rewrap makes the lines it
        # replaces, and after a 20,000-line paste it cost ~0.1 s a time
        wrapped = self.wrapped_document
        if prompt_document.wraps_at(wrapped, self.wrap_width, self.indent_width):
            self._line_cache.clear()
            self._refresh_size()
            return
        super()._rewrap_and_refresh_virtual_size()

    def _watch_show_vertical_scrollbar(self) -> None:
        # Textual's own, but it scrolls to the cursor only where the cursor is: its undo
        # refreshes the size (the scrollbar hides) before it puts the cursor back, so the
        # cursor still lay past the text an undone paste had held, and Textual 8.2 raised
        # ValueError there, which closed the app (a paste, then ctrl+z). The undo's own
        # cursor move scrolls right after.
        if self.wrap_width:
            self._rewrap_and_refresh_virtual_size()
        if self.cursor_location[0] < self.document.line_count:
            self.scroll_cursor_visible()

    async def _on_paste(self, event: events.Paste) -> None:
        mention = self.dropped(event.text) if self.dropped is not None else None
        if mention is not None:  # a dropped screenshot: its mention, attached on send
            event.prevent_default()
            self.insert(mention + " ")
            return
        self._scrollbar_before(event.text)
        # (Textual then calls TextArea's own ``_on_paste``, which inserts the text)

    def _scrollbar_before(self, text: str) -> None:
        """Show the scrollbar before ``text`` goes in when it surely overflows the box.
        The scrollbar takes columns: shown because of a long paste, it rewrapped every
        pasted line at the narrower width (~0.2 s for a 20,000-line log); shown first,
        only the lines already here are rewrapped, and the text is wrapped once, as it
        goes in."""
        width = max(self.wrap_width, 1)
        if self.show_vertical_scrollbar or (
            text.count("\n") < SCROLLING_PASTE and len(text) < SCROLLING_PASTE * width
        ):
            return
        # set without its watcher, whose size refresh would hide the scrollbar again
        # (the text is still short); the edit's refresh then finds it shown already
        self.set_reactive(TextArea.show_vertical_scrollbar, True)
        self.wrapped_document.wrap(self.wrap_width, tab_width=self.indent_width)
        self._line_cache.clear()

    # ------------------------------------------------------------------ cursor blink
    _blink_since = 0.0
    """``monotonic`` time of the last input (the blink rests ``BLINK_REST`` after it)."""

    def _restart_blink(self) -> None:
        # Textual calls this on every key, paste, mouse up and focus
        self._blink_since = time.monotonic()
        super()._restart_blink()

    def _toggle_cursor_blink_visible(self) -> None:
        if time.monotonic() - self._blink_since >= BLINK_REST:
            self._pause_blink(visible=True)  # solid until the next input restarts it
            return
        super()._toggle_cursor_blink_visible()

    # ------------------------------------------------------------------ facts
    @property
    def is_empty(self) -> bool:
        """Nothing typed: ``?`` then opens help instead of being typed (O(1): asked on
        every key)."""
        return not prompt_document.holds_text(self)

    @property
    def completing(self) -> bool:
        """The ``@path`` list is open with something to choose (or to wait for): its keys
        (Enter, Tab, ↑/↓) act on it, not on the message."""
        return self._completion is not None and self._completion_list().offering

    def _completion_list(self) -> CompletionList:
        assert isinstance(self.parent, PromptBox)
        return self.parent.query_one(CompletionList)

    @property
    def slash_open(self) -> bool:
        """The slash-command menu is open."""
        menu = self._slash_menu()
        return menu is not None and menu.is_open

    def _slash_menu(self) -> SlashMenu | None:
        if not isinstance(self.parent, PromptBox):
            return None
        return self.parent.query_one(SlashMenu)

    # ------------------------------------------------------------------ keys
    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        """``?`` on an empty prompt is not text: Textual then keeps the app's ``?``
        binding (help) in the chain instead of hiding it behind the text box."""
        if key == "question_mark" and self.is_empty:
            return False
        return super().check_consume_key(key, character)

    def type_key(self, event: events.Key) -> None:
        """``event`` was typed while a pane had the focus and comes here next (the screen
        gives this box the focus before the App hands it on): it is text, even ``?`` on
        an empty prompt — a pane's ``?`` is not the help key."""
        self._as_text = event

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        as_text = event is self._as_text
        if as_text:
            self._as_text = None
        handled = True
        self._typed = event.is_printable or key in ("backspace", "delete")
        if key == "enter" and self.completing and self._completion_typed_out():
            self._close_completion()  # the path is typed out already: Enter sends
        if self.slash_open and key in ("up", "down", "tab", "enter", "escape"):
            self._slash_key(key)
        elif self.completing and key in ("up", "down", "tab", "enter", "escape"):
            self._completion_key(key)
        elif key == "enter":
            self.post_message(self.Submitted(self, self.text, self.editing))
        elif key in ("shift+enter", "ctrl+j"):
            self._newline()
        elif key == "question_mark" and self.is_empty and not as_text:
            handled = False  # not typed: the app's `?` binding (help) gets it
            event.prevent_default()
        elif key == "escape" and self.editing is not None:
            self.stop_editing()
        elif key == "up" and self._on_first_row():
            handled = self._up()
        elif key == "down" and self._on_last_row():
            handled = self._down()
        else:
            handled = await self._run_own_binding(key)
        if handled:
            event.stop()
            event.prevent_default()

    async def _run_own_binding(self, key: str) -> bool:
        """Run this box's own binding for ``key`` (an arrow, backspace, home…) here, in
        the order the keys came. Textual types a printable key in the box's ``_on_key``
        but runs a bound key's action only when the key has bubbled up to the App, so in
        a burst of keys (the screen's loop busy with a stream, a paste without bracketed
        paste, ``tmux send-keys``) a later letter was typed before an earlier arrow
        moved the cursor: "abc" ← ← "X" gave "abcX" (Textual issue 6605). The App would
        run the same action for the same key in this same namespace first (the focused
        widget leads its binding chain); a binding whose action is not allowed now runs
        nothing here, and the key bubbles on as before."""
        for binding in self._bindings.key_to_bindings.get(key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    def _newline(self) -> None:
        start, end = self.selection
        self.replace("\n", start, end, maintain_selection_offset=False)

    def _on_first_row(self) -> bool:
        return self.selection.is_empty and self.navigator.is_first_wrapped_line(
            self.cursor_location
        )

    def _on_last_row(self) -> bool:
        return self.selection.is_empty and self.navigator.is_last_wrapped_line(self.cursor_location)

    def _up(self) -> bool:
        """↑ on the first row: the queued message before this one, or the newest when the
        prompt is empty; else the previous prompt. False: an ordinary cursor move."""
        queued = list(self.queued_source())
        if self.editing is not None:
            ids = [qid for qid, _ in queued]
            if self.text == self._editing_text and self.editing in ids:
                at = ids.index(self.editing)
                if at > 0:
                    self.edit_queued(*queued[at - 1])
            return True
        if queued and self.is_empty and self._history_index is None:
            self.edit_queued(*queued[-1])
            return True
        if not self.prompts:
            return False
        if self._history_index is None:
            self._draft = self.text
            index = len(self.prompts) - 1
        elif self._history_index > 0:
            index = self._history_index - 1
        else:
            return True  # the oldest: stay
        self._history_index = index
        self._show(self.prompts[index], at_end=False)
        return True

    def _down(self) -> bool:
        """↓ on the last row: the next queued message or prompt; past the newest, back to
        what was typed before (or an empty prompt after editing the queue)."""
        if self.editing is not None:
            queued = list(self.queued_source())
            ids = [qid for qid, _ in queued]
            if self.text == self._editing_text:
                at = ids.index(self.editing) if self.editing in ids else len(ids)
                if at + 1 < len(ids):
                    self.edit_queued(*queued[at + 1])
                else:
                    self.stop_editing()
            return True
        if self._history_index is None:
            return False
        if self._history_index + 1 < len(self.prompts):
            self._history_index += 1
            self._show(self.prompts[self._history_index], at_end=True)
        else:
            self._history_index = None
            self._show(self._draft, at_end=True)
        return True

    def _show(self, text: str, *, at_end: bool) -> None:
        """Put ``text`` in the prompt: the cursor at its end, or at the end of its first
        line (so the next ↑ goes on back at once)."""
        self._close_completion()
        self._close_slash()
        self.load_text(text)
        if at_end:
            self.move_cursor(self.document.end)
        else:
            self.move_cursor((0, len(self.document[0])))

    # ------------------------------------------------------------------ the queue
    def edit_queued(self, message_id: int, text: str) -> None:
        """Load queued message ``message_id`` into the prompt to edit it in place."""
        self.editing = message_id
        self._editing_text = text
        self._history_index = None
        self._show(text, at_end=True)
        self.border_title = (
            f"editing queued #{message_id} · Enter saves · empty Enter removes · Esc keeps it"
        )

    def stop_editing(self) -> None:
        """Leave the queued message as it is; the prompt is empty again."""
        self.editing = None
        self._editing_text = ""
        self.border_title = None
        self._close_completion()
        self.load_text("")

    def clear_prompt(self) -> None:
        """After a send: empty, out of history browsing and queue editing."""
        self.editing = None
        self._editing_text = ""
        self.border_title = None
        self._history_index = None
        self._draft = ""
        self._close_completion()
        self._close_slash()
        self.load_text("")

    def forget_files(self) -> None:
        """Another workspace: the next ``@`` lists its files afresh."""
        self._files = []
        self._ranker = PathRanker(())
        self._files_at = -FILES_STALE
        self._complete, self._folders = True, {}
        self._forget_searches()
        self._generation += 1
        self._asked += 1  # a ranking of the old workspace is never shown

    def give_back(self, text: str) -> None:
        """A message that never reached the model, back in the box to shorten: inserted
        as a paste is (its lines wrapped once), not loaded as a new document (wrapped,
        then rewrapped when the scrollbar shows: 1.6 s of a frozen screen for a 1.4 MB
        log)."""
        self.clear_prompt()
        self._scrollbar_before(text)
        self.insert(text)
        self.move_cursor(self.document.end)  # where a paste leaves it

    def recall(self, text: str) -> None:
        """Put an earlier prompt in the box (ctrl+r's choice), cursor at the end."""
        self._history_index = None
        self._show(text, at_end=True)

    # ------------------------------------------------------------------ ctrl+r
    def action_search_history(self) -> None:
        if not self.prompts:
            self.notify("no earlier prompts in this workspace yet", timeout=3)
            return

        def chosen(text: str | None) -> None:
            if text is not None:
                self.recall(text)
            self.focus()

        self.app.push_screen(HistorySearch(self.prompts, self.text), callback=chosen)

    # ------------------------------------------------------------------ @path completion
    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        # only typing opens the list: a recalled prompt ending in `@path` does not
        typed, self._typed = self._typed, False
        if typed or self._completion is not None:
            self._update_completion()
        if typed or self.slash_open:
            self._update_slash()

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        if self._completion is not None:  # the cursor left the token: close the list
            self._update_completion()
        if self.slash_open:
            self._update_slash()

    def _token(self) -> tuple[int, int, str] | None:
        """The ``@`` token the cursor is at the end of: (row, column of ``@``, query)."""
        if not self.selection.is_empty:
            return None
        row, col = self.cursor_location
        before = self.document[row][:col]
        match = _AT_QUOTED.search(before) or _AT_BARE.search(before)
        if match is None:
            return None
        return row, match.start(), match.group(1)

    def _update_completion(self) -> None:
        token = self._token()
        if token is None:
            self._close_completion()
            return
        fresh = self._completion is None or self._completion[:2] != token[:2]
        self._completion = token
        if fresh and time.monotonic() - self._files_at > FILES_STALE:
            self._load_files()
        self._show_matches()

    def _show_matches(self) -> None:
        if self._completion is None:
            return
        query = self._completion[2]
        ranker = self._ranker_for(query)
        note = self._cut_note(ranker, query)
        if len(ranker.files) > RANK_INLINE:
            self._asked += 1
            self._rank_off_loop(ranker, query, self._asked, note)
        else:
            self._rank_here(ranker, query, note)

    def _rank_here(self, ranker: PathRanker, query: str, note: str) -> None:
        self._asked += 1
        with self._rank_lock:
            matches = ranker.rank(query, _room(note))
        self._show_ranked(self._asked, query, matches, note)

    def _cut_note(self, ranker: PathRanker, query: str) -> str:
        """Said under the matches of a cut listing (a workspace of more paths than
        ``COMPLETION_MAX``) where a path it left out could match: that the tree is being
        searched, or how to reach such a path."""
        if self._complete:
            return ""
        if ranker is self._ranker:
            searching = self._searching
            listed = f"{len(ranker.files):,}"
            if searching is not None and query.casefold().startswith(searching[0]):
                return f"searching past the first {listed} paths…"
            return (
                f"only the first {listed} paths are searched: type {SEARCH_FROM} letters of "
                "the name, or its folder (src/…)"
            )
        capped = any(r is ranker and not complete for r, complete in self._searches.values())
        return f"over {len(ranker.files):,} paths match: type more of the name" if capped else ""

    def _ranker_for(self, query: str) -> PathRanker:
        """The listing's ranker; after a cut listing with nothing under the folder typed
        (``src/deep/`` of ``src/deep/fi``), that folder's own listing, asked for once, and
        when that is empty (no such folder from the root), the whole tree's search for
        what is typed (:meth:`_searched`)."""
        folder = query.rpartition("/")[0].removeprefix("./").strip("/")
        if self._complete:
            return self._ranker
        if not folder:
            return self._searched(query)
        if folder not in self._folders:
            prefix = folder + "/"
            if any(path.startswith(prefix) for path in self._files):
                self._folders[folder] = self._ranker
            else:
                self._folders[folder] = None
                self._load_folder(folder, self._generation)
        listed = self._folders[folder]
        if listed is None:
            return self._ranker  # the folder's own listing is on its way
        if not listed.files:  # no such folder from the root (`d39/f2` of `src/d39/f249`)
            return self._searched(query)  # the whole tree, for what is typed
        return listed

    def _searched(self, query: str) -> PathRanker:
        """After a cut listing, for a query without a folder (or one whose folder is not
        there from the root): the answer of the whole tree's search for it (or for a
        shorter query whose answer held every match); else the listing's ranker, and a
        search begins once ``SEARCH_FROM`` letters are typed (one still running for a
        shorter query is waited for: typing on does not restart the walk at every key)."""
        q = query.casefold()
        for searched in sorted(self._searches, key=len, reverse=True):
            ranker, complete = self._searches[searched]
            if q == searched or (complete and q.startswith(searched)):
                return ranker
        if len(q) >= SEARCH_FROM and self.file_search is not None:
            searching = self._searching
            # a search for what this query extends goes on: its answer likely holds this one's
            if searching is None or not q.startswith(searching[0]):
                if searching is not None:
                    searching[1].set()  # its answer is no longer wanted
                stop = threading.Event()
                self._searching = (q, stop)
                self._search(q, stop, self._generation)
        return self._ranker

    @work(thread=True, group="prompt-search", exit_on_error=False)
    def _search(self, query: str, stop: threading.Event, generation: int) -> None:
        """Search the whole tree for ``query`` off the event loop."""
        search = self.file_search
        if search is None:
            return
        try:
            found, complete = search(query, stop)
        except Exception as exc:  # the listing's ranker stays for this query, and is said to
            self.app.call_from_thread(self.notify, f"cannot search the workspace: {exc}")
            self.app.call_from_thread(self._search_done, generation, query, None, True)
            return
        if not stop.is_set():
            ranker = PathRanker(found)  # here, off the loop
            self.app.call_from_thread(self._search_done, generation, query, ranker, complete)

    def _search_done(
        self, generation: int, query: str, ranker: PathRanker | None, complete: bool
    ) -> None:
        if generation != self._generation:
            return  # another listing since: its own searches
        if self._searching is not None and self._searching[0] == query:
            self._searching = None
        self._searches[query] = (self._ranker if ranker is None else ranker, complete)
        while len(self._searches) > SEARCHES_KEPT:
            del self._searches[next(iter(self._searches))]  # the oldest
        self._show_matches()

    def _forget_searches(self) -> None:
        if self._searching is not None:
            self._searching[1].set()
        self._searching, self._searches = None, {}

    @work(thread=True, group="prompt-rank", exit_on_error=False)
    def _rank_off_loop(self, ranker: PathRanker, query: str, asked: int, note: str) -> None:
        """Rank a long listing off the screen's loop; a ranking already replaced (by the
        next key, or a newer answer for this one) is skipped."""
        with self._rank_lock:
            if asked != self._asked or not self._still(query):
                return
            matches = ranker.rank(query, _room(note))
        self.app.call_from_thread(self._show_ranked, asked, query, matches, note)

    def _still(self, query: str) -> bool:
        completion = self._completion  # replaced whole on the loop: read once
        return completion is not None and completion[2] == query

    def _show_ranked(self, asked: int, query: str, matches: list[str], note: str = "") -> None:
        if asked != self._asked or not self._still(query):
            return  # a newer ranking was asked for since (a key, a listing, an answer)
        self._shown = asked
        listing = self._completion_list()
        listing.show_paths(matches, loading=self._files_loading and not self._files, note=note)

    def _catch_up(self) -> None:
        """Before a key acts on the list (Tab, Enter): the list shows the query typed, ranked
        here if a worker has not shown it yet."""
        if self._completion is not None and self._shown != self._asked:
            query = self._completion[2]
            ranker = self._ranker_for(query)
            self._rank_here(ranker, query, self._cut_note(ranker, query))

    def _close_completion(self) -> None:
        self._completion = None
        self._shown = None
        if isinstance(self.parent, PromptBox):
            self._completion_list().show_paths([])

    @work(thread=True, exclusive=True, group="prompt-files", exit_on_error=False)
    def _load_files(self) -> None:
        """List the workspace off the event loop; the list is refreshed when it is back."""
        source = self.file_source
        if source is None:
            return
        self._files_loading = True
        try:
            files, complete = source(".")
        except Exception as exc:  # the tree moved, permissions: complete from what we had
            self.app.call_from_thread(self.notify, f"cannot list the workspace: {exc}")
            files, complete = self._files, self._complete
        finally:
            self._files_loading = False
        ranker = PathRanker(files)  # here, off the loop: ~80 ms for 100,000 paths
        self.app.call_from_thread(self._files_loaded, files, complete, ranker)

    def _files_loaded(self, files: list[str], complete: bool, ranker: PathRanker) -> None:
        self._files = files
        self._ranker = ranker
        self._complete, self._folders = complete, {}
        self._forget_searches()
        self._generation += 1
        self._files_at = time.monotonic()
        self._show_matches()

    @work(thread=True, group="prompt-folders", exit_on_error=False)
    def _load_folder(self, folder: str, generation: int) -> None:
        """List one folder typed after a cut listing, off the event loop."""
        source = self.file_source
        if source is None:
            return
        try:
            files, _ = source(folder)
        except Exception as exc:  # the tree moved, permissions: the listing's ranker stays
            self.app.call_from_thread(self.notify, f"cannot list {folder}: {exc}")
            return
        ranker = PathRanker(files)
        self.app.call_from_thread(self._folder_loaded, generation, folder, ranker)

    def _folder_loaded(self, generation: int, folder: str, ranker: PathRanker) -> None:
        if generation == self._generation:
            self._folders[folder] = ranker
            self._show_matches()

    def _completion_key(self, key: str) -> None:
        if key in ("tab", "enter"):
            self._catch_up()
        listing = self._completion_list()
        if key == "escape":
            self._close_completion()
        elif key == "up":
            listing.action_cursor_up()
        elif key == "down":
            listing.action_cursor_down()
        else:
            path = listing.chosen()
            if path is not None:
                self.accept_completion(path)

    def _completion_typed_out(self) -> bool:
        self._catch_up()
        return self._completion is not None and (
            self._completion_list().chosen() == self._completion[2]
        )

    def accept_completion(self, path: str) -> None:
        """Replace the ``@`` token at the cursor with ``@path `` and close the list."""
        token = self._completion or self._token()
        if token is None:
            return
        row, start, _ = token
        line = self.document[row]
        end = self.cursor_location[1]
        while end < len(line) and not line[end].isspace():
            end += 1  # the rest of the token after the cursor goes too
        self._completion = None
        self.replace(mention_text(path) + " ", (row, start), (row, end))
        self._close_completion()

    # ------------------------------------------------------------------ the slash menu
    def _slash_query(self) -> str | None:
        """The name typed after a leading ``/`` while the prompt holds nothing else and
        the cursor is at its end; ``None`` when the menu should be closed."""
        if self.editing is not None or not self.selection.is_empty:
            return None
        if self.document.line_count != 1:
            return None  # a command is one line: no join of a long paste at each key
        match = _SLASH.fullmatch(self.text)
        if match is None or self.cursor_location != self.document.end:
            return None
        return match.group(1)

    def _update_slash(self) -> None:
        menu = self._slash_menu()
        if menu is None:
            return
        query = self._slash_query()
        if query is None:
            menu.close()
            return
        stale = time.monotonic() - self._commands_at > FILES_STALE
        if stale and self.command_source is not None:
            self._commands_at = time.monotonic()
            self._load_commands()
        self._show_slash(menu, query)

    def _show_slash(self, menu: SlashMenu, query: str) -> None:
        """The commands matching ``query``; a command named exactly ``query`` is the one
        highlighted (``/mode`` also begins ``/model``, listed first), so Enter and Tab
        take the name typed unless the arrows chose another row."""
        menu.show_commands(matching(self.commands, query))
        exact = next((i for i, c in enumerate(menu.commands) if c.name == query), None)
        if exact is not None:
            menu.highlighted = exact

    def _close_slash(self) -> None:
        menu = self._slash_menu()
        if menu is not None:
            menu.close()

    @work(thread=True, exclusive=True, group="prompt-commands", exit_on_error=False)
    def _load_commands(self) -> None:
        """Read the session's commands (custom ones are files) off the event loop."""
        source = self.command_source
        if source is None:
            return
        try:
            found = source()
        except Exception as exc:  # an unreadable folder: the built-ins still work
            self.app.call_from_thread(self.notify, f"cannot read the slash commands: {exc}")
            return
        self.app.call_from_thread(self._commands_loaded, tuple(found.commands))

    def _commands_loaded(self, commands: tuple[SlashCommand, ...]) -> None:
        self.commands = commands
        if self._slash_query() is not None:  # a custom name may match what is typed now
            self._update_slash()

    def _slash_key(self, key: str) -> None:
        menu = self._slash_menu()
        if menu is None:
            return
        if key == "escape":
            menu.close()
        elif key == "up":
            menu.action_cursor_up()
        elif key == "down":
            menu.action_cursor_down()
        else:
            # what is typed now, not what the menu last showed: keys typed fast (a paste,
            # tmux) can reach Enter before the menu has narrowed to them
            query = self._slash_query()
            if query is None:  # no bare name any more (`/checks trust`): the line as typed
                menu.close()
                if key == "enter":
                    self.post_message(self.Submitted(self, self.text, self.editing))
                return
            if tuple(matching(self.commands, query)) != menu.commands:
                self._show_slash(menu, query)  # stale: the arrows chose among other rows
            command = menu.chosen()
            if command is not None:
                self.pick_command(command, run=key == "enter")

    def pick_command(self, command: SlashCommand, *, run: bool) -> None:
        """Tab (``run`` false): complete ``/name ``. Enter: run ``/name`` — unless it
        needs an argument, which is completed instead so it can be typed."""
        self._close_slash()
        if run and not command.needs_argument:
            self.load_text(f"/{command.name}")
            self.move_cursor(self.document.end)
            self.post_message(self.Submitted(self, self.text, self.editing))
            return
        self.load_text(f"/{command.name} ")
        self.move_cursor(self.document.end)


class CompletionList(OptionList):
    """The ``@path`` choices above the prompt; the focus stays in the prompt."""

    can_focus = False
    offering = False
    """Paths are listed, or their listing is awaited (not merely a note)."""

    def show_paths(self, paths: Sequence[str], *, loading: bool = False, note: str = "") -> None:
        """``paths`` to choose from (the first highlighted), or that the listing is still
        loading; ``note``: a dim row under them that cannot be chosen (shown alone, it
        leaves the keys to the message: Enter sends)."""
        self.offering = bool(paths) or loading
        self.clear_options()
        if loading:
            self.add_option(
                Option(Text("listing the workspace files…", style="dim"), disabled=True)
            )
        else:
            # a file name is text from the workspace: shown, never obeyed (nor markup)
            self.add_options(
                Option(Text(display_preview(path, one_line=True)), id=path) for path in paths
            )
            if paths:
                self.highlighted = 0
            if note:
                self.add_option(Option(Text(note, style="dim"), disabled=True))
        self.set_class(bool(paths) or loading or bool(note), "-open")

    def chosen(self) -> str | None:
        if self.highlighted is None or not self.option_count:
            return None
        option = self.get_option_at_index(self.highlighted)
        return option.id if not option.disabled else None

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A click on a path accepts it."""
        event.stop()
        if event.option.id is not None and isinstance(self.parent, PromptBox):
            prompt = self.parent.query_one(PromptInput)
            prompt.accept_completion(event.option.id)
            prompt.focus()


class PromptBox(Vertical):
    """The queued messages, the ``@path`` list and the prompt, stacked at the bottom."""

    DEFAULT_CSS = """
    PromptBox { height: auto; }
    PromptBox #prompt-queue {
        display: none; height: auto; max-height: 6; padding: 0 1;
        color: $text-muted; background: $panel;
    }
    PromptBox #prompt-queue.-shown { display: block; }
    PromptBox CompletionList {
        display: none; height: auto; max-height: 10;
        border: round $border-blurred; background: $surface;
    }
    PromptBox CompletionList.-open { display: block; }
    PromptBox PromptInput {
        height: auto; min-height: 3; max-height: 8; border: tall $border-blurred;
    }
    PromptBox PromptInput:focus { border: tall $border; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)

    def compose(self) -> ComposeResult:
        yield Static(id="prompt-queue")
        yield CompletionList(id="prompt-complete")
        yield SlashMenu(id="prompt-slash")
        yield PromptInput(id="prompt")

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    def on_slash_menu_picked(self, event: SlashMenu.Picked) -> None:
        """A click on a command: as Enter on it."""
        event.stop()
        prompt = self.prompt
        prompt.pick_command(event.command, run=True)
        prompt.focus()

    def show_queue(self, queued: Sequence[tuple[int, str]]) -> None:
        """List what waits for the next request (or hide the list when nothing does)."""
        strip = self.query_one("#prompt-queue", Static)
        strip.set_class(bool(queued), "-shown")
        if not queued:
            strip.update("")
            return
        text = Text(no_wrap=True, overflow="ellipsis")
        shown = list(queued)[-QUEUE_SHOWN:]
        hidden = len(queued) - len(shown)
        if hidden:
            text.append(f"… {hidden} earlier queued\n", style="dim")
        for message_id, body in shown:
            text.append("⧗ queued ", style="bold")
            text.append(f"#{message_id} ", style="dim")
            text.append(one_row(body, 200) + "\n")
        text.append(
            "they go with the next request · ↑ on an empty prompt edits them", style="dim italic"
        )
        strip.update(text)


class HistorySearch(ModalScreen[str | None]):
    """ctrl+r: type to filter earlier prompts (newest first); Enter takes one, Esc none."""

    DEFAULT_CSS = """
    HistorySearch { align: center bottom; }
    HistorySearch > Vertical {
        width: 90%; max-width: 110; height: auto; max-height: 70%;
        border: round $primary; background: $surface; margin-bottom: 4;
    }
    HistorySearch #history-query, HistorySearch #history-query:focus {
        border: none; height: 1; padding: 0 1; background: $surface;
    }
    HistorySearch OptionList { height: auto; max-height: 16; border: none; }
    HistorySearch #history-empty { color: $text-muted; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Close", show=False),
        Binding("down,ctrl+r", "move(1)", "Older", show=False),
        Binding("up,ctrl+s", "move(-1)", "Newer", show=False),
    ]

    def __init__(self, history: Sequence[str], query: str = "") -> None:
        super().__init__()
        self.prompts = list(history)
        self.query_text = query if "\n" not in query else ""
        self.matches: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Search earlier prompts"
            box.border_subtitle = "↑↓ choose · Enter puts it in the prompt · Esc closes"
            yield Input(value=self.query_text, placeholder="type to filter…", id="history-query")
            yield OptionList(id="history-matches")
            yield Static("", id="history-empty")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._filter(self.query_text)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._filter(event.value)

    def _filter(self, query: str) -> None:
        needle = query.casefold()
        seen: set[str] = set()
        self.matches = []
        for text in reversed(self.prompts):
            if text not in seen and needle in text.casefold():
                seen.add(text)
                self.matches.append(text)
        listing = self.query_one(OptionList)
        listing.clear_options()
        for text in self.matches[:200]:
            row = Text(one_row(text, 100))
            if query:
                row.highlight_regex(re.compile(re.escape(query), re.IGNORECASE), "bold reverse")
            listing.add_option(Option(row))
        if self.matches:
            listing.highlighted = 0
        self.query_one("#history-empty", Static).update(
            "" if self.matches else f"no earlier prompt contains {query!r}"
        )

    def action_move(self, step: int) -> None:
        listing = self.query_one(OptionList)
        if not listing.option_count:
            return
        current = listing.highlighted or 0
        listing.highlighted = max(0, min(listing.option_count - 1, current + step))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._take(self.query_one(OptionList).highlighted)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._take(event.option_index)

    def _take(self, index: int | None) -> None:
        if index is None or not 0 <= index < len(self.matches):
            return
        self.dismiss(self.matches[index])

    def action_cancel(self) -> None:
        self.dismiss(None)
