"""The CTL transducer (DESIGN §3): CTL frames in assistant text -> confirmed events.

Scanning is chunk-level: each piece of input is searched with ``bytes.find``
for ``\\n`` (header lines, prose) and for ``\\nTAG\\n`` (heredoc bodies, via a
``memchr`` for the TAG's rarest byte), so a 16 MiB argument costs a few C-level
scans per chunk, not a Python step per byte; a chunk that is all body takes a
short fast path in ``feed``. The only buffered input is the current undecided
line (at most ``l_line`` bytes, or ``len(TAG)`` inside a heredoc); while a
header line is still growing it is appended to in place and only the new
bytes are searched for its newline, so a line fed a byte at a time costs
O(line), not O(line × L_LINE) (``frontier check`` feeds every byte); argument
values of the call being read are the only other state, each capped by
``max_arg`` and kept as the confirmed pieces until the argument ends
(``value.ValueBuilder`` copies them into a scratch buffer reused from value
to value, so no input chunk is held and a value costs one allocation: its
``str``).
Measurements: docs/benchmarks/transducer.md.
"""

from __future__ import annotations

import re

from frontier.app.cst.base import decode_value, preview
from frontier.app.cst.fastevents import make_arg_bytes, make_confirmed
from frontier.app.cst.value import ValueBuilder
from frontier.app.stream_events import (
    ArgStarted,
    CallReady,
    CallStarted,
    Confirmed,
    ContractError,
    Event,
    StreamStopped,
    ToolCall,
)

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import NoReturn

    from frontier.app.cst.snapshot import FrameSnapshot
    from frontier.app.stream_events import ArgForm

L_LINE = 4096
CTL_MAX_ARG = 1 << 20

_CALL_RE = re.compile(rb"call ([A-Za-z0-9_.:-]{1,64}) ([A-Za-z_][A-Za-z0-9_.-]{0,63})")
_ARG_RE = re.compile(rb"arg ([A-Za-z_][A-Za-z0-9_]{0,63}) (.*)", re.DOTALL)
_ARG_NO_VALUE_RE = re.compile(rb"arg [A-Za-z_][A-Za-z0-9_]{0,63}")
_TAG_RE = re.compile(rb"[A-Za-z0-9_]{1,32}")

# Reader states.
_OUT = 0  # at a line start outside a frame
_PROSE = 1  # inside a prose line already known to be text
_FRAME = 2  # at a line start inside a call: `arg ...` or `end` expected
_LEN = 3  # inside a length-prefixed body
_HEREDOC = 4  # at a line start inside a heredoc body
_HLINE = 5  # inside a heredoc body line already known not to be TAG
_DONE = 6  # stopped (text after a call) or failed (contract error)

_CALL_PREFIX = b"call "
# TAG bytes, rarest first, by their frequency in ~40 MB of Python sources and
# docs (the stdlib and this repository): the heredoc scan memchr's for the
# rarest byte of TAG (see ``CtlTransducer._find_close``).
_RARITY = b"ZQJYXKWHVzqjBUMOFLGPDICR78N965TSE4Ak3xwv2by1hgmfup0_dcloinarste"
_ANCHOR_MISSES = 3
_WS = b" \t\r"
_WS_HEADS = (b" ", b"\t", b"\r")


class _Stop(Exception):
    """Unwinds the scanner after a stop or a contract error; ``pos`` is the new frontier."""

    def __init__(self, pos: int) -> None:
        self.pos = pos


class CtlTransducer:
    """Reads CTL (`call` / `arg` / `end` frames) from assistant text bytes.

    Both CTL protocol modes use this class: they accept the same three
    argument forms and differ only in what the system prompt teaches.
    """

    def __init__(self, l_line: int = L_LINE, max_arg: int = CTL_MAX_ARG) -> None:
        self.l_line = l_line
        self.max_arg = max_arg
        self.frontier = 0
        self.consumed = 0
        self.stopped = False
        self.unfinished: tuple[str, str] | None = None
        """(id, name) of the call a truncated end cut off: the loop's ``truncated`` result."""
        self._buf: bytes | bytearray = b""
        """The undecided line; a ``bytearray`` while a header line grows (see ``feed``)."""
        self._state = _OUT
        self._after_call = False
        self._call_id = ""
        self._call_name = ""
        self._args: dict[str, str | bytes] = {}
        self._forms: dict[str, ArgForm] = {}
        """Each argument's form, for ``snapshot`` (the inspector)."""
        self._key = ""
        self._form: ArgForm = "inline"
        self._value = ValueBuilder()
        """The value of the length-prefixed or heredoc argument being read."""
        self._vlen = 0
        self._declared = 0
        self._remaining = 0
        self._tag = b""
        self._tag_nl = b""
        self._nl_tag_nl = b""
        self._tag_heads: list[bytes] = []
        self._anchor = b""
        self._anchor_at = 0
        self._after_length_body = False

    # ------------------------------------------------------------------ protocol

    def pending(self) -> bytes:
        return bytes(self._buf) if isinstance(self._buf, bytearray) else self._buf

    def pending_size(self) -> int:
        """``len(self.pending())`` without copying a growing line (asked after every chunk)."""
        return len(self._buf)

    def pending_bound(self) -> int:
        if self._state in (_OUT, _FRAME):
            return self.l_line
        if self._state == _HEREDOC:
            return len(self._tag) + 1
        return 0

    def snapshot(self) -> FrameSnapshot:
        """The frame parsed so far, in words (the inspector's view; changes nothing)."""
        from frontier.app.cst.snapshot import ArgState, FrameSnapshot, head  # the inspector's

        st = self._state
        line = head(self._buf)
        if st == _DONE:
            return FrameSnapshot("stopped", self.frontier, self.consumed)
        if st in (_OUT, _PROSE):
            if self._buf[:5] == _CALL_PREFIX:
                where = "in a call line (not yet ended by its newline)"
            elif st == _PROSE:
                where = "in a line of prose"
            else:
                where = "between frames" if self._after_call else "in the prose before a call"
            return FrameSnapshot(where, self.frontier, self.consumed, len(self._buf), line=line)
        args = [
            ArgState(
                k,
                self._forms.get(k, "inline"),
                len(v.encode("utf-8")) if isinstance(v, str) else len(v),
                head(v),
                self._declared if k == self._key and self._form == "length" else None,
            )
            for k, v in self._args.items()
        ]
        tag = None
        if st == _FRAME:
            where = "expecting `arg …` or `end`"
            if self._after_length_body and self._form == "length":
                where = f'right after the {self._declared}-byte body of arg "{self._key}": ' + where
        elif st == _LEN:
            where = f'in the length-prefixed body of arg "{self._key}"'
            got = self._declared - self._remaining
            args.append(ArgState(self._key, "length", got, declared=self._declared, complete=False))
        else:
            tag = self._tag.decode("ascii")
            where = (
                f'in the heredoc body of arg "{self._key}", at a line start (it may still be {tag})'
                if st == _HEREDOC
                else f'in the heredoc body of arg "{self._key}", in a line that is not {tag}'
            )
            args.append(ArgState(self._key, "heredoc", self._vlen, complete=False))
        return FrameSnapshot(
            where,
            self.frontier,
            self.consumed,
            len(self._buf),
            call_id=self._call_id,
            tool=self._call_name,
            args=tuple(args),
            tag=tag,
            line=line,
        )

    def feed(self, data: bytes) -> list[Event]:
        n = len(data)
        self.consumed += n
        # Fast paths for the bulk of a long argument: the whole chunk is body.
        # They decide exactly what ``_scan`` would, in fewer Python steps.
        state = self._state
        if state == _LEN and 0 < n < self._remaining:
            self._remaining -= n
            return self._bulk(data, n)
        if state == _HLINE and n and data.find(self._anchor) < 0:
            # Mid-line (known not to be TAG), no TAG line in this chunk, and its
            # last line already too long to be TAG.
            last = data.rfind(b"\n")
            if (last < 0 or n - last > len(self._tag_nl)) and self._vlen + n <= self.max_arg:
                return self._bulk(data, n)
        if self.stopped or not n:
            return []
        buf = self._buf
        if (
            (state == _FRAME or (state == _OUT and buf and self._still_open(buf, data)))
            and len(buf) + n <= self.l_line
            and data.find(b"\n") < 0
        ):
            # A line still growing within L_LINE stays undecided until its newline
            # (exactly what ``_scan`` would decide). Grow it in place: no rescan, no copy.
            if type(buf) is bytes:
                self._buf = bytearray(buf)
            self._buf += data
            return []
        if isinstance(buf, bytearray):
            buf += data
            s = bytes(buf)
        else:
            s = buf + data if buf else data
        base = self.frontier
        events: list[Event] = []
        try:
            if self._state == _HLINE:  # the bulk of a long heredoc: skip the dispatch
                pos = self._heredoc(s, 0, base, events)
                if pos < len(s) and self._state != _HEREDOC:
                    pos = self._scan(s, base, events, pos)
            else:
                pos = self._scan(s, base, events)
        except _Stop as stop:
            self.frontier = base + stop.pos
            self._buf = b""
            return events
        self.frontier = base + pos
        self._buf = s[pos:]
        return events

    @staticmethod
    def _still_open(buf: bytes | bytearray, data: bytes) -> bool:
        """Outside a frame, ``buf + data`` (no newline) is as undecided as ``buf``: a call
        line, or a blank line after a call (a buffered line starting with a blank is one:
        anything else there stops the stream at once) that ``data`` keeps blank."""
        if buf[:5] == _CALL_PREFIX:
            return True
        return buf[:1] in _WS_HEADS and not data.translate(None, _WS)

    def _bulk(self, data: bytes, n: int) -> list[Event]:
        """All of ``data`` (``n`` bytes, nothing buffered) is confirmed value bytes."""
        base = self.frontier
        self.frontier = base + n
        self._vlen += n
        self._value.add(data)
        return [
            make_confirmed(base, "body", data),
            make_arg_bytes(self._call_id, self._key, data, base),
        ]

    def finish(self, clean: bool) -> list[Event]:
        if self.stopped:
            return []
        events: list[Event] = []
        try:
            self._finish(clean, events)
        except _Stop:
            pass  # the event explaining why is already in ``events``
        return events

    # ------------------------------------------------------------------ scanner

    def _scan(self, s: bytes, base: int, ev: list[Event], pos: int = 0) -> int:
        """Consume ``s[pos:]`` (byte 0 at offset ``base``); return the first unconfirmed index."""
        n = len(s)
        while pos < n:
            st = self._state
            if st == _LEN:
                take = min(self._remaining, n - pos)
                self._body(s, pos, pos + take, base, ev)
                pos += take
                self._remaining -= take
                if not self._remaining:
                    self._end_arg()
                    self._after_length_body = True
                    self._state = _FRAME
            elif st in (_HEREDOC, _HLINE):
                pos = self._heredoc(s, pos, base, ev)
                if self._state == _HEREDOC:
                    return pos
            elif st == _PROSE:
                nl = s.find(b"\n", pos)
                end = n if nl < 0 else nl + 1
                ev.append(make_confirmed(base + pos, "text", s[pos:end]))
                pos = end
                if nl >= 0:
                    self._state = _OUT
            elif st == _FRAME:
                new = self._frame_line(s, pos, base, ev)
                if new < 0:
                    return pos
                pos = new
            else:  # _OUT
                new = self._out_line(s, pos, base, ev)
                if new < 0:
                    return pos
                pos = new
        return pos

    def _out_line(self, s: bytes, pos: int, base: int, ev: list[Event]) -> int:
        """A line outside a frame; returns the next index, or -1 if it is still undecided."""
        nl = s.find(b"\n", pos)
        line = s[pos:nl] if nl >= 0 else s[pos:]
        if line.startswith(_CALL_PREFIX):
            if len(line) > self.l_line:
                self._check_length(line, pos, base, ev)
            if nl < 0:
                return -1
            self._call_line(s, pos, nl, line, base, ev)
            return nl + 1
        if not self._after_call:
            if nl < 0 and _CALL_PREFIX.startswith(line):
                return -1
            end = len(s) if nl < 0 else nl + 1
            ev.append(make_confirmed(base + pos, "text", s[pos:end]))
            if nl < 0:
                self._state = _PROSE
            return end
        stripped = line.lstrip(_WS)
        if not stripped:
            self._check_length(line, pos, base, ev)
            if nl < 0:
                return -1
            ev.append(make_confirmed(base + pos, "frame", s[pos : nl + 1]))
            return nl + 1
        if nl < 0 and _CALL_PREFIX.startswith(line):
            return -1
        at = base + pos + len(line) - len(stripped)
        ev.append(StreamStopped("text_after_call", at))
        self._halt(pos)

    def _frame_line(self, s: bytes, pos: int, base: int, ev: list[Event]) -> int:
        """A line inside a call: `arg ...` or `end`; -1 if still undecided.

        Decided at its newline (or when it passes ``l_line``), so an error
        message quotes the same bytes whatever the chunking.
        """
        nl = s.find(b"\n", pos)
        line = s[pos:nl] if nl >= 0 else s[pos:]
        is_arg = line.startswith(b"arg ") or line == b"arg"
        if len(line) > self.l_line:
            if is_arg:
                self._check_length(line, pos, base, ev)
            self._unexpected(line[: self.l_line + 1], pos, base, ev)
        if nl < 0:
            return -1
        if line == b"end":
            ev.append(make_confirmed(base + pos, "frame", s[pos : nl + 1]))
            self._ready(base + nl, ev)
            return nl + 1
        if is_arg:
            self._after_length_body = False
            self._arg_line(s, pos, nl, line, base, ev)
            return nl + 1
        self._unexpected(s[pos : nl + 1], pos, base, ev)

    def _check_length(self, line: bytes, pos: int, base: int, ev: list[Event]) -> None:
        if len(line) > self.l_line:
            what = "call" if self._state == _OUT and line.startswith(b"call ") else "header"
            self._fail(
                ev,
                "line_too_long",
                f"{what} line starting {preview(line, 30)} is longer than L_LINE={self.l_line} "
                f"bytes (no newline within the limit): put long values in a length-prefixed "
                f"or heredoc argument",
                base + pos + self.l_line,
                pos,
            )

    def _call_line(
        self, s: bytes, pos: int, nl: int, line: bytes, base: int, ev: list[Event]
    ) -> None:
        m = _CALL_RE.fullmatch(line)
        if m is None:
            self._fail(
                ev,
                "bad_call",
                f"malformed call line {preview(line)}: expected `call <id> <name>` with id "
                f"[A-Za-z0-9_.:-]{{1,64}} and name [A-Za-z_][A-Za-z0-9_.-]{{0,63}}, one space "
                f"between",
                base + pos,
                pos,
            )
        ev.append(make_confirmed(base + pos, "frame", s[pos : nl + 1]))
        self._call_id = m[1].decode("ascii")
        self._call_name = m[2].decode("ascii")
        self._args = {}
        self._forms = {}
        self._after_length_body = False
        ev.append(CallStarted(self._call_id, self._call_name, base + pos))
        self._state = _FRAME

    def _arg_line(
        self, s: bytes, pos: int, nl: int, line: bytes, base: int, ev: list[Event]
    ) -> None:
        m = _ARG_RE.fullmatch(line)
        if m is None:
            if _ARG_NO_VALUE_RE.fullmatch(line):
                why = (
                    "needs a space and a value after the key "
                    "(`arg key value`, `arg key NBYTES` or `arg key <<TAG`)"
                )
            else:
                why = "has no valid key: a key is [A-Za-z_][A-Za-z0-9_]{0,63}"
            self._fail(
                ev, "bad_arg", f"{self._where()}: arg line {preview(line)} {why}", base + pos, pos
            )
        key = m[1].decode("ascii")
        rest = m[2]
        if key in self._args:
            self._fail(
                ev,
                "bad_arg",
                f'{self._where()}: arg "{key}" given twice; send each key once',
                base + pos,
                pos,
            )
        offset = base + pos
        if rest.isdigit():
            declared = int(rest)
            if declared > self.max_arg:
                self._fail(
                    ev,
                    "limit",
                    f'{self._where()}: arg "{key}" declares {declared} bytes, over the limit of '
                    f"{self.max_arg} bytes (CTL_MAX_ARG); split the content into smaller calls",
                    offset,
                    pos,
                )
            ev.append(make_confirmed(offset, "frame", s[pos : nl + 1]))
            self._start_arg(key, "length", declared, offset, ev)
            if declared:
                self._remaining = declared
                self._state = _LEN
            else:
                self._end_arg()
                self._after_length_body = True
            return
        if rest.startswith(b"<<"):
            tag = rest[2:]
            if len(tag) >= 2 and tag[:1] in (b"'", b'"') and tag[-1:] == tag[:1]:
                tag = tag[1:-1]
            if _TAG_RE.fullmatch(tag) is None:
                self._fail(
                    ev,
                    "bad_arg",
                    f'{self._where()}: arg "{key}" heredoc tag {preview(rest[2:])} is invalid: '
                    f"a TAG is 1-32 of [A-Za-z0-9_], optionally in '…' or \"…\" quotes",
                    offset,
                    pos,
                )
            ev.append(make_confirmed(offset, "frame", s[pos : nl + 1]))
            self._start_arg(key, "heredoc", None, offset, ev)
            self._set_tag(tag)
            self._state = _HEREDOC
            return
        value_at = nl - len(rest)
        if len(rest) > self.max_arg:
            self._fail(
                ev,
                "limit",
                f'{self._where()}: inline arg "{key}" is {len(rest)} bytes, over the limit of '
                f"{self.max_arg} bytes (CTL_MAX_ARG)",
                base + value_at + self.max_arg,
                pos,
            )
        ev.append(make_confirmed(offset, "frame", s[pos : nl + 1]))
        ev.append(ArgStarted(self._call_id, key, "inline", None, offset))
        self._key, self._form = key, "inline"
        self._forms[key] = "inline"
        if rest:
            ev.append(make_arg_bytes(self._call_id, key, rest, base + value_at))
        self._args[key] = decode_value(rest)

    def _heredoc(self, s: bytes, pos: int, base: int, ev: list[Event]) -> int:
        """Inside a heredoc body: consume all that is decided; return the new index.

        The hot path of a long argument, so it takes few Python steps per
        chunk: one search for ``\\nTAG\\n`` (a ``memchr`` for the TAG's rarest
        byte, see ``_find_close``), one ``rfind`` for the last line start, and
        the body bytes before the close (or before a trailing partial line that
        may still become TAG) go out as one piece. A TAG line starts after a
        ``\\n`` at or past ``pos``, or at ``pos`` itself in state ``_HEREDOC``.
        """
        at_line = self._state == _HEREDOC
        if at_line and s.startswith(self._tag_nl, pos):
            self._close_heredoc(pos, base, ev)
            return pos + len(self._tag_nl)
        i = s.find(self._anchor, pos + self._anchor_at)
        if i >= 0:
            j = self._find_close(s, i)
            if j >= 0:
                if j >= pos:
                    self._heredoc_body(s, pos, j + 1, base, ev)
                self._close_heredoc(j + 1, base, ev)
                return j + 1 + len(self._tag_nl)
        end = len(s)
        state = _HLINE
        last = s.rfind(b"\n", pos)
        if last >= 0 or at_line:
            start = last + 1 if last >= 0 else pos
            tail = end - start
            if tail < len(self._tag_nl) and s.startswith(self._tag_heads[tail], start):
                # The last line may still become TAG: hold it (at most len(TAG) bytes).
                end = start
                state = _HEREDOC
        if end > pos:
            if self._vlen + (end - pos) > self.max_arg:
                self._over_limit(s, pos, base, ev)
            self._body(s, pos, end, base, ev)
        self._state = state
        return end

    def _find_close(self, s: bytes, i: int) -> int:
        """Index of the ``\\n`` opening the first ``\\nTAG\\n`` with its anchor at or past ``i``.

        ``bytes.find`` of a 5-byte needle steps through the text a few bytes at
        a time; ``memchr`` (what ``find`` does for one byte) is several times
        faster. So the caller looks for the TAG's rarest byte (``_RARITY``)
        first, and each hit ``i`` is tested here; a body dense in that byte
        costs at most ``_ANCHOR_MISSES`` wasted hits before the plain search
        takes over. -1 if there is none.
        """
        k = self._anchor_at
        needle = self._nl_tag_nl
        misses = 0
        while i >= 0:
            j = i - k
            if s.startswith(needle, j):
                return j
            misses += 1
            if misses == _ANCHOR_MISSES:
                return s.find(needle, j + 1)
            i = s.find(self._anchor, i + 1)
        return -1

    def _set_tag(self, tag: bytes) -> None:
        self._tag = tag
        self._tag_nl = tag + b"\n"
        self._nl_tag_nl = b"\n" + tag + b"\n"
        self._tag_heads = [tag[:i] for i in range(len(tag) + 1)]
        k = min(range(1, len(tag) + 1), key=lambda i: _RARITY.find(self._nl_tag_nl[i]))
        self._anchor_at = k
        self._anchor = self._nl_tag_nl[k : k + 1]

    def _close_heredoc(self, pos: int, base: int, ev: list[Event]) -> None:
        ev.append(make_confirmed(base + pos, "frame", self._tag_nl))
        self._end_arg()
        self._state = _FRAME

    def _heredoc_body(self, s: bytes, a: int, b: int, base: int, ev: list[Event]) -> None:
        if a < b:
            if self._vlen + (b - a) > self.max_arg:
                self._over_limit(s, a, base, ev)
            self._body(s, a, b, base, ev)

    def _over_limit(self, s: bytes, a: int, base: int, ev: list[Event]) -> NoReturn:
        """A heredoc value grows past ``max_arg`` at ``s[a:]``: confirm what fits, then fail."""
        keep = self.max_arg - self._vlen
        if keep:
            self._body(s, a, a + keep, base, ev)
        self._fail(
            ev,
            "limit",
            f'call {self._call_id} ({self._call_name}): heredoc arg "{self._key}" grew past '
            f"the limit of {self.max_arg} bytes (CTL_MAX_ARG); split the content into "
            f"smaller calls",
            base + a + keep,
            a + keep,
        )

    def _body(self, s: bytes, a: int, b: int, base: int, ev: list[Event]) -> None:
        """Confirm ``s[a:b]`` (non-empty) as value bytes, copied into the value being built."""
        piece = s[a:b]  # no copy when it is the whole chunk
        offset = base + a
        ev.append(make_confirmed(offset, "body", piece))
        ev.append(make_arg_bytes(self._call_id, self._key, piece, offset))
        self._vlen += b - a
        self._value.add(piece)

    def _start_arg(
        self, key: str, form: ArgForm, declared: int | None, offset: int, ev: list[Event]
    ) -> None:
        self._key = key
        self._form = form
        self._forms[key] = form
        self._declared = declared or 0
        self._vlen = 0
        ev.append(ArgStarted(self._call_id, key, form, declared, offset))

    def _end_arg(self) -> None:
        """Store the value: ``str`` when all of it was UTF-8, else its raw bytes."""
        self._args[self._key] = self._value.take()

    def _ready(self, offset: int, ev: list[Event]) -> None:
        call = ToolCall(self._call_id, self._call_name, self._args, offset)
        ev.append(CallReady(call))
        self._args = {}
        self._after_call = True
        self._state = _OUT

    def _where(self) -> str:
        return f"call {self._call_id} ({self._call_name})"

    def _unexpected(self, line: bytes, pos: int, base: int, ev: list[Event]) -> NoReturn:
        where = f"call {self._call_id} ({self._call_name})"
        if self._after_length_body and self._form == "length":
            message = (
                f'{where}: arg "{self._key}" declared {self._declared} bytes, but the body is '
                f"followed by {preview(line)} instead of `arg …` or `end`: the length was "
                f"declared too small (count bytes, not characters); resend the call"
            )
        elif line.startswith(b"call "):
            message = (
                f"{where}: a new call line {preview(line)} arrived before this call's `end`; "
                f"close every call with a line `end`"
            )
        else:
            message = f"{where}: expected `arg …` or `end`, got {preview(line)}"
        self._fail(ev, "unexpected_line", message, base + pos, pos)

    def _fail(self, ev: list[Event], kind: str, message: str, offset: int, pos: int) -> NoReturn:
        ev.append(ContractError(kind, message, offset))
        self._halt(pos)

    def _halt(self, pos: int) -> NoReturn:
        self.stopped = True
        self._state = _DONE
        raise _Stop(pos)

    # ------------------------------------------------------------------ end of stream

    def _finish(self, clean: bool, ev: list[Event]) -> None:
        s = self._buf = bytes(self._buf)
        base = self.frontier
        st = self._state
        end = self.consumed
        where = f"call {self._call_id} ({self._call_name})"
        if st == _OUT:
            if not s:
                return
            if s.startswith(_CALL_PREFIX):
                if clean:
                    self._fail(
                        ev,
                        "bad_call",
                        f"the stream ended inside the call line {preview(s)} (no newline)",
                        base,
                        0,
                    )
                self._truncated(ev, f"the call line {preview(s)} was cut off", end, None)
            elif not clean:
                return
            elif not self._after_call:
                ev.append(Confirmed(base, "text", s))
                self._buf = b""
                self.frontier += len(s)
            elif not s.lstrip(_WS):
                ev.append(Confirmed(base, "frame", s))
                self._buf = b""
                self.frontier += len(s)
            else:
                ev.append(StreamStopped("text_after_call", base + len(s) - len(s.lstrip(_WS))))
                self._halt(0)
            return
        if st == _FRAME:
            if clean and s == b"end":
                ev.append(Confirmed(base, "frame", s))
                self._buf = b""
                self.frontier += len(s)
                self._ready(end, ev)
                return
            if clean:
                self._fail(
                    ev,
                    "body_eof",
                    f"{where}: the stream ended before the call's `end` line",
                    end,
                    0,
                )
            self._truncated(ev, f"{where} was cut off before its `end` line", end, self._call_id)
        elif st == _LEN:
            got = self._declared - self._remaining
            detail = (
                f'{where}: arg "{self._key}": declared {self._declared} bytes '
                f"but only {got} arrived"
            )
            if clean:
                self._fail(
                    ev,
                    "body_eof",
                    f"{detail} before the stream ended (declared too large?); resend with the "
                    f"exact byte count",
                    end,
                    0,
                )
            self._truncated(ev, f"{detail}: the response was cut off", end, self._call_id)
        elif st in (_HEREDOC, _HLINE):
            tag = self._tag.decode("ascii")
            if clean and st == _HEREDOC and s == self._tag:
                ev.append(Confirmed(base, "frame", s))
                self._buf = b""
                self.frontier += len(s)
                self._end_arg()
                self._state = _FRAME
                self._fail(
                    ev,
                    "body_eof",
                    f'{where}: heredoc "{self._key}" closed by {tag} at the end of the stream, '
                    f"but the call has no `end` line",
                    end,
                    0,
                )
            detail = (
                f'{where}: heredoc arg "{self._key}" <<{tag} was never closed '
                f"({self._vlen} body bytes arrived, no line `{tag}`)"
            )
            if clean:
                self._fail(ev, "heredoc_eof", detail, end, 0)
            self._truncated(ev, f"{detail}: the response was cut off", end, self._call_id)

    def _truncated(
        self, ev: list[Event], message: str, offset: int, call_id: str | None
    ) -> NoReturn:
        if call_id is not None:
            self.unfinished = (self._call_id, self._call_name)
        ev.append(ContractError("truncated", message + "; it did not run: resend it", offset))
        self._state = _DONE
        self.stopped = True
        raise _Stop(0)
