"""Growing Markdown prose cut into top-level blocks, so a stream re-renders only its tail.

A reply streams in a piece at a time. Rendering all of it as Markdown on every
paint would cost O(n) per paint and O(n²) per reply (seconds for a 1 MB reply),
so :class:`ProseBlocks` cuts the text where a top-level Markdown block ends as
it grows — a blank line before an unindented line, a heading, a code fence
opening or closing — and every finished block is immutable: the Transcript
renders it once and keeps it by key. Only the growing last block is rendered
again, and no block grows past ``BLOCK_LIMIT`` characters: a longer code fence
continues in the next block (the renderer draws the pieces seamlessly), a
longer table repeats its header row in the next one. The kept text is bounded
by dropping whole finished blocks from the head, so the blocks still shown keep
their keys and nothing is re-rendered when the head goes.

Only what the transducer confirmed ever reaches here (``UiState`` feeds it from
``Confirmed`` text), so a fence or a table is only as complete as the frontier.
With a ``scrub`` function (``UiState`` passes its scrubber's), every finished block is
scrubbed once as it is cut and the growing tail each time it is read: a block ends at a
line end, and a forced cut of a very long line keeps its last ``CUT_GUARD`` characters
for the next block, so a secret (never a newline) lies whole in one block.

No Textual and no rich: ``widgets/state.py`` owns it, ``widgets/transcript.py``
renders it.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterator

from frontier.app.record import record, replace

BLOCK_LIMIT = 4096
"""Characters after which a growing block is cut at its next line (render cost bound)."""
LINE_LIMIT = 16_384
"""An unfinished line longer than this is treated as a line (a reply with no newlines)."""
KEPT_CHARS = 64_000
"""Characters of one reply kept (whole blocks; the oldest go first)."""
CUT_GUARD = 512
"""Characters of an over-long line kept back when it is cut (a secret is never split)."""

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^#{1,6}(?:[ \t]|$)")
_TABLE_DELIMITER = re.compile(r"^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


@record
class ProseBlock:
    """One top-level piece of a reply: Markdown source, or a piece of a fenced code block."""

    index: int
    """Position in the reply since it began (stable while the block is kept)."""
    kind: str
    """``md`` (rendered as Markdown) or ``code`` (a fence's body, highlighted as ``lang``)."""
    text: str
    lang: str = ""
    opens: bool = True
    """``code``: the fence starts in this piece (else it continues the previous one)."""
    closes: bool = True
    """``code``: the fence ends in this piece (an open fence is still streaming)."""
    fence: str = "```"
    """``code``: the fence as the model wrote it (for the Markdown source again)."""
    repeated: int = 0
    """``md``: leading characters repeated from the previous piece (a long table's header
    rows, so the piece still renders as a table); not part of the source."""


class ProseBlocks:
    """A reply as it grows: ``finished`` blocks (never change) and the ``tail`` block."""

    def __init__(
        self,
        *,
        block_limit: int = BLOCK_LIMIT,
        kept: int = KEPT_CHARS,
        scrub: Callable[[str], str] | None = None,
    ) -> None:
        self.block_limit = block_limit
        self.scrub = scrub
        """Applied to each block's text (secrets out of what is shown and copied)."""
        self.kept = kept
        self.finished: deque[ProseBlock] = deque()
        self.version = 0
        """Bumped on every change of the tail (a renderer's cache key)."""
        self.dropped = 0
        """Characters dropped from the head to keep ``kept``."""
        self._chars = 0  # characters in ``finished``
        self._next = 0
        self._lines: list[str] = []  # complete lines of the current block
        self._size = 0
        self._partial = ""  # the unfinished last line
        self._blank = False  # the previous line was blank
        self._fence: tuple[str, int] | None = None  # char and length of the open fence
        self._lang = ""
        self._fence_text = "```"
        self._opens = True
        self._table_head: list[str] = []
        self._repeated = 0
        self._text_cache: tuple[int, str] | None = None

    # ------------------------------------------------------------------ reading
    @property
    def tail(self) -> ProseBlock | None:
        """The block still growing (``None`` when nothing follows the last finished one)."""
        body = "".join(self._lines) + self._partial
        if self._fence is not None:
            return self._scrubbed(
                ProseBlock(
                    self._next, "code", body, self._lang, self._opens, False, self._fence_text
                )
            )
        if not self._has_content() and not self._partial.strip():
            return None
        return self._scrubbed(ProseBlock(self._next, "md", body, repeated=self._repeated))

    def _scrubbed(self, block: ProseBlock) -> ProseBlock:
        scrub = self.scrub
        if scrub is None:
            return block
        if block.repeated:  # the repeated header keeps its own (scrubbed) length
            head = scrub(block.text[: block.repeated])
            text = head + scrub(block.text[block.repeated :])
            return replace(block, text=text, repeated=len(head))
        text = scrub(block.text)
        return block if text == block.text else replace(block, text=text)

    def blocks(self) -> Iterator[ProseBlock]:
        yield from self.finished
        tail = self.tail
        if tail is not None:
            yield tail

    @property
    def text(self) -> str:
        """The kept reply as Markdown source (fences restored; for tests and copying)."""
        cached = self._text_cache
        if cached is not None and cached[0] == self.version:
            return cached[1]
        text = "".join(_source(block) for block in self.blocks())
        if self.dropped:
            text = "…" + text
        self._text_cache = (self.version, text)
        return text

    # ------------------------------------------------------------------ writing
    def append(self, text: str) -> None:
        """Add confirmed prose; finished blocks are cut off as their ends arrive."""
        if not text:
            return
        self.version += 1
        data = self._partial + text
        lines = data.split("\n")
        self._partial = lines.pop()
        for line in lines:
            self._line(line + "\n")
        if len(self._partial) > LINE_LIMIT:
            cut = len(self._partial) - CUT_GUARD
            line, self._partial = self._partial[:cut], self._partial[cut:]
            self._line(line)
        self._trim()

    def _line(self, line: str) -> None:
        if self._fence is not None:
            self._code_line(line)
            return
        if not line.strip():
            self._add(line)
            self._blank = True
            return
        lead = line[:4]  # a fence's first mark is within its first four characters
        fence = _FENCE.match(line.rstrip("\n")) if "`" in lead or "~" in lead else None
        if fence is not None and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            self._finish()
            self._fence = (fence.group(1)[0], len(fence.group(1)))
            self._fence_text = fence.group(1)
            info = fence.group(2).strip()
            self._lang = info.split()[0] if info else ""
            self._opens = True
        elif line[0] == "#" and _HEADING.match(line):
            self._finish()
            self._add(line)
            self._finish()
        elif self._blank and line[0] not in " \t":
            if self._has_content():
                self._finish()
            elif self._repeated:  # the table ended right after a cut: no header-only piece
                self._lines = self._lines[len(self._table_head) :]
                self._size = sum(map(len, self._lines))
                self._table_head, self._repeated = [], 0
            self._add(line)
        else:
            if self._starts_table(line):
                self._table_head = [self._lines[-1], line]
            self._add(line)
            if self._size > self.block_limit:
                head = self._table_head
                self._finish()
                if head:  # a long table goes on under its header again
                    for row in head:
                        self._add(row)
                    self._table_head = head
                    self._repeated = self._size
        self._blank = False

    def _code_line(self, line: str) -> None:
        char, length = self._fence or ("`", 3)
        if char * length not in line:  # no closing fence here: the common case, in C
            self._add(line)
            if self._size > self.block_limit:
                self._emit_code(closes=False)
                self._opens = False
            return
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        if (
            indent <= 3
            and stripped.startswith(char * length)
            and not stripped.strip(char)
            and len(stripped) >= length
        ):
            self._emit_code(closes=True)
            self._fence = None
            self._blank = False
            return
        self._add(line)
        if self._size > self.block_limit:
            self._emit_code(closes=False)
            self._opens = False

    def _emit_code(self, *, closes: bool) -> None:
        body = "".join(self._lines)
        if not body and not self._opens:  # the fence closed right after a cut: nothing left
            self._lines, self._size = [], 0
            return
        fence = self._fence_text
        self._push(ProseBlock(self._next, "code", body, self._lang, self._opens, closes, fence))

    def _finish(self) -> None:
        """Close the current Markdown block (when it holds more than blank lines)."""
        if self._has_content():
            text = "".join(self._lines)
            self._push(ProseBlock(self._next, "md", text, repeated=self._repeated))
        else:
            self._lines, self._size = [], 0
        self._table_head = []
        self._repeated = 0

    def _push(self, block: ProseBlock) -> None:
        block = self._scrubbed(block)
        self.finished.append(block)
        self._chars += len(block.text)
        self._next += 1
        self._lines, self._size = [], 0
        self._table_head = []
        self._repeated = 0

    def _add(self, line: str) -> None:
        self._lines.append(line)
        self._size += len(line)

    def _starts_table(self, line: str) -> bool:
        """``line`` is a table's delimiter row under a header that opens the block."""
        if not self._lines or "|" not in self._lines[-1] or not _TABLE_DELIMITER.match(line):
            return False
        return not any(earlier.strip() for earlier in self._lines[:-1])

    def _has_content(self) -> bool:
        """Something but blank lines (and a repeated table header) in the current block."""
        skip = len(self._table_head) if self._repeated else 0
        return any(line.strip() for line in self._lines[skip:])

    def _trim(self) -> None:
        """Drop the oldest finished blocks while the kept text is over ``kept``."""
        while self.finished and self._chars + self._size > self.kept:
            block = self.finished.popleft()
            self._chars -= len(block.text)
            self.dropped += len(_source(block))


def _source(block: ProseBlock) -> str:
    """A block's Markdown source again (a code piece with the fence lines it owns)."""
    if block.kind != "code":
        return block.text[block.repeated :]
    head = f"{block.fence}{block.lang}\n" if block.opens else ""
    foot = f"{block.fence}\n" if block.closes else ""
    return head + block.text + foot
