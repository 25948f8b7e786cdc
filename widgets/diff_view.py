"""Our own diff widget (textual-diff-view is AGPL): unified or split, line numbers,
syntax colours from pygments (via rich), one child per hunk so ``j``/``k`` can
jump between hunks and ``tab`` between files.

It renders a ``FilePreview`` the core computed; it never parses files on disk.
Syntax colours come from highlighting the whole old/new file once (so a hunk
that starts inside a docstring is still coloured right) and picking its lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from frontier.tools.contract import FilePreview

HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
HIGHLIGHT_LIMIT = 256_000
"""Files larger than this (characters) are shown without syntax colours."""
MAX_HUNKS = 300


@dataclass(frozen=True)
class DiffLine:
    sign: str
    """`` `` context, ``-`` removed, ``+`` added, ``\\`` no-newline marker."""
    text: str
    old_no: int | None
    new_no: int | None


@dataclass(frozen=True)
class Hunk:
    header: str
    lines: tuple[DiffLine, ...]

    @property
    def added(self) -> int:
        return sum(1 for line in self.lines if line.sign == "+")

    @property
    def removed(self) -> int:
        return sum(1 for line in self.lines if line.sign == "-")


def parse_hunks(texts: Sequence[str]) -> list[Hunk]:
    """Hunks from unified-diff text (hunk texts or a whole diff; file headers skipped)."""
    hunks: list[Hunk] = []
    header: str | None = None
    lines: list[DiffLine] = []
    old_no = new_no = 0
    for text in texts:
        for raw in text.splitlines():
            match = HUNK_HEADER.match(raw)
            if match:
                if header is not None:
                    hunks.append(Hunk(header, tuple(lines)))
                header, lines = raw, []
                old_no, new_no = int(match.group(1)), int(match.group(3))
                continue
            if header is None or raw.startswith(("--- ", "+++ ", "diff ", "index ")):
                continue
            sign, body = (raw[:1] or " "), raw[1:]
            if sign == "-":
                lines.append(DiffLine("-", body, old_no, None))
                old_no += 1
            elif sign == "+":
                lines.append(DiffLine("+", body, None, new_no))
                new_no += 1
            elif sign == "\\":
                lines.append(DiffLine("\\", raw, None, None))
            else:
                lines.append(DiffLine(" ", body, old_no, new_no))
                old_no += 1
                new_no += 1
    if header is not None:
        hunks.append(Hunk(header, tuple(lines)))
    return hunks


def file_hunks(preview: FilePreview) -> list[Hunk]:
    return parse_hunks(preview.hunks if preview.hunks else (preview.diff,))


class Highlighter:
    """Per-line highlighted ``Text`` of a file's old and new version."""

    def __init__(self, preview: FilePreview, syntax_style: str) -> None:
        self.path = preview.path
        self.style = syntax_style
        self.old = self._lines(preview.old_text)
        self.new = self._lines(preview.new_text)

    def _lines(self, code: str | None) -> list[Text] | None:
        if code is None or len(code) > HIGHLIGHT_LIMIT:
            return None
        lexer = Syntax.guess_lexer(self.path, code)
        if lexer in ("default", "text"):
            return None
        syntax = Syntax(code, lexer, theme=self.style, background_color="default")
        return syntax.highlight(code).split("\n", allow_blank=True)

    def line(self, line: DiffLine) -> Text:
        source, number = (self.new, line.new_no) if line.sign == "+" else (self.old, line.old_no)
        if source is not None and number is not None and 0 < number <= len(source):
            candidate = source[number - 1]
            if candidate.plain.rstrip("\r") == line.text.rstrip("\r"):
                text = candidate.copy()
                text.rstrip()
                return text
        return Text(line.text.rstrip("\r\n"))


def _num(n: int | None) -> Text:
    return Text("" if n is None else str(n), style="dim")


def render_unified(hunk: Hunk, hl: Highlighter, added_bg: str, removed_bg: str) -> Table:
    table = Table.grid(expand=True)
    table.add_column(justify="right", width=5, no_wrap=True)
    table.add_column(justify="right", width=5, no_wrap=True)
    table.add_column(width=2, no_wrap=True)
    table.add_column(ratio=1, no_wrap=True, overflow="fold")
    for line in hunk.lines:
        if line.sign == "\\":
            table.add_row("", "", "", Text(line.text, style="dim italic"))
            continue
        code = hl.line(line)
        sign = Text(line.sign, style="bold")
        if line.sign == "+":
            code.stylize_before(f"on {added_bg}")
            sign.stylize(f"bold on {added_bg}")
        elif line.sign == "-":
            code.stylize_before(f"on {removed_bg}")
            sign.stylize(f"bold on {removed_bg}")
        table.add_row(_num(line.old_no), _num(line.new_no), sign, code)
    return table


def split_rows(hunk: Hunk) -> list[tuple[DiffLine | None, DiffLine | None]]:
    """Pair each run of removed lines with the added lines that follow it."""
    rows: list[tuple[DiffLine | None, DiffLine | None]] = []
    removed: list[DiffLine] = []
    added: list[DiffLine] = []

    def flush() -> None:
        for i in range(max(len(removed), len(added))):
            rows.append(
                (removed[i] if i < len(removed) else None, added[i] if i < len(added) else None)
            )
        removed.clear()
        added.clear()

    for line in hunk.lines:
        if line.sign == "-":
            if added:
                flush()
            removed.append(line)
        elif line.sign == "+":
            added.append(line)
        elif line.sign == " ":
            flush()
            rows.append((line, line))
    flush()
    return rows


def render_split(hunk: Hunk, hl: Highlighter, added_bg: str, removed_bg: str) -> Table:
    table = Table.grid(expand=True, padding=(0, 0))
    table.add_column(justify="right", width=5, no_wrap=True)
    table.add_column(width=2, no_wrap=True)
    table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    table.add_column(justify="right", width=6, no_wrap=True)
    table.add_column(width=2, no_wrap=True)
    table.add_column(ratio=1, no_wrap=True, overflow="ellipsis")
    for old, new in split_rows(hunk):
        cells: list[RenderableType] = []
        for line, sign, bg in ((old, "-", removed_bg), (new, "+", added_bg)):
            if line is None:
                cells += [Text(""), Text(""), Text("")]
                continue
            code = hl.line(line)
            mark = Text(line.sign if line.sign != " " else " ", style="bold")
            if line.sign == sign:
                code.stylize_before(f"on {bg}")
                mark.stylize(f"on {bg}")
            number = line.old_no if sign == "-" else line.new_no
            cells += [_num(number), mark, code]
        table.add_row(*cells)
    return table


def file_title(preview: FilePreview) -> Text:
    if preview.old_text is None:
        state = "new file"
    elif preview.new_text is None:
        state = "deleted"
    else:
        state = "modified"
    return Text.assemble(
        (preview.path, "bold"),
        f"  {state}  ",
        (f"+{preview.added}", "bold"),
        " ",
        (f"−{preview.removed}", "bold"),
    )


class DiffView(VerticalScroll, can_focus=True):
    """All files of a preview; ``current`` is the hunk ``j``/``k`` moved to."""

    DEFAULT_CSS = """
    DiffView { background: $surface; }
    DiffView > .file-title { background: $panel; padding: 0 1; margin-top: 1; }
    DiffView > .hunk-header { color: $secondary; padding: 0 1; }
    DiffView > .hunk-header.-current { text-style: bold reverse; }
    DiffView > .hunk { width: 1fr; }
    DiffView > .more { color: $text-muted; padding: 0 1; }
    """

    split: reactive[bool] = reactive(False)

    def __init__(
        self,
        files: Sequence[FilePreview],
        *,
        syntax_style: str = "monokai",
        added_bg: str = "#12361f",
        removed_bg: str = "#42171b",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.files = tuple(files)
        self.syntax_style = syntax_style
        self.added_bg = added_bg
        self.removed_bg = removed_bg
        self._hunks: list[tuple[int, Hunk, Highlighter]] = []
        self.current = 0

    @property
    def hunk_count(self) -> int:
        return len(self._hunks)

    def compose(self) -> ComposeResult:
        self._hunks = []
        for index, preview in enumerate(self.files):
            yield Static(file_title(preview), classes="file-title", id=f"file-{index}")
            hunks = file_hunks(preview)
            if not hunks:
                yield Static("(no changes to show: empty file or mode change)", classes="more")
            hl = Highlighter(preview, self.syntax_style)
            for hunk in hunks:
                if len(self._hunks) >= MAX_HUNKS:
                    yield Static(f"… {len(hunks)} hunks in this file; first shown", classes="more")
                    break
                n = len(self._hunks)
                self._hunks.append((index, hunk, hl))
                classes = "hunk-header -current" if n == 0 else "hunk-header"
                yield Static(Text(hunk.header), classes=classes, id=f"hunk-header-{n}")
                yield Static(self._render_hunk(hunk, hl), classes="hunk", id=f"hunk-{n}")

    def _render_hunk(self, hunk: Hunk, hl: Highlighter) -> RenderableType:
        render = render_split if self.split else render_unified
        return Group(render(hunk, hl, self.added_bg, self.removed_bg))

    def watch_split(self, split: bool) -> None:
        if not self.is_mounted:
            return
        for n, (_, hunk, hl) in enumerate(self._hunks):
            self.query_one(f"#hunk-{n}", Static).update(self._render_hunk(hunk, hl))

    def goto_hunk(self, n: int) -> None:
        if not self._hunks:
            return
        n = max(0, min(n, len(self._hunks) - 1))
        self.query_one(f"#hunk-header-{self.current}", Static).remove_class("-current")
        self.current = n
        header = self.query_one(f"#hunk-header-{n}", Static)
        header.add_class("-current")
        self.scroll_to_widget(header, animate=False, top=True)

    def goto_file(self, index: int) -> None:
        if not self.files:
            return
        index %= len(self.files)
        for n, (file_index, _, _) in enumerate(self._hunks):
            if file_index == index:
                self.goto_hunk(n)
                return
        self.scroll_to_widget(self.query_one(f"#file-{index}"), animate=False, top=True)

    @property
    def current_file(self) -> int:
        return self._hunks[self.current][0] if self._hunks else 0
