"""``frontier transduce``: stdin bytes -> confirmed events as JSON lines.

The model's reasoning is printed as ``{"type": "reasoning", "text": …}`` lines, a line at
a time like prose: the server's own, and a text protocol's leading ``<think>`` block
(``transduce_think.py``), as the live loop reads it.

For debugging a model's framing: feed a saved reply (assistant text, or the
SSE body for native modes — of the API ``--wire`` names, Chat Completions by default;
with ``--wire`` a text protocol also reads that wire's SSE body) in chunks of
``--chunk`` bytes and see exactly what the runtime would confirm, run, stop on or
reject. Confirmed prose is printed one line of text at a time (a line longer than
``TEXT_PIECE`` bytes in pieces cut at the same places), so the output is the same for any
``--chunk``. In the event stream framing errors are output (records), not failures;
see the exit status below.

Input is read and fed as it arrives and prose is held only up to a piece, so
time is linear and memory is the transducer's state plus a block, whatever
the input (a 100 MB line used to take 57 s: the held text was re-joined and
re-searched for every chunk).

Notes a transducer keeps about input it read but deliberately did not use
(native: a chunk for a choice other than 0) are printed as ``note`` lines
after the last event, before the summary (each names its offset), so they too
are the same for any ``--chunk``.

The summary counts ``confirmed`` (the final frontier), ``pending`` (bytes
still undecided when the input ended, before the end-of-stream rules),
``max_pending`` (the largest pending size after any chunk), ``calls`` and
``errors``.

The input is a model's reply, untrusted: each line is written with ``dumps``, which
escapes DEL, the C1 controls and the bidi overrides as JSON does C0 (``\\u009b``), so
the output parses to the same events and is harmless on a terminal.

Exit status: with ``--summary`` (the verdict a script asks for) 1 when the input has
contract errors, else 0; the event stream (the default) exits 0 whatever it found,
because its errors are records of the output that its consumer reads (the shared
conformance runner and every tool that pipes events depend on that); 2 for a usage
error — including a native-mode input without a single SSE ``data:`` line (likely
assistant text fed to ``native-*``, which read the raw SSE body), said on stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any

from frontier.app.cst.factory import make_transducer, pending_size
from frontier.app.frontends.terminal_text import dumps, safe_print
from frontier.app.stream_events import (
    ArgBytes,
    ArgStarted,
    CallReady,
    CallStarted,
    Confirmed,
    ContractError,
    Event,
    ReasoningText,
    StreamStopped,
    event_to_json,
)
from frontier.app.vocab import NATIVE_MODES

_ALWAYS = (CallReady, ContractError, StreamStopped)
_DETAIL = (CallStarted, ArgStarted, ArgBytes)
TEXT_PIECE = 64 << 10
"""The longest ``text`` line printed; a longer line of prose is split (at a UTF-8
character boundary), so the printer never holds more than about this much."""
READ_BLOCK = 64 << 10
NO_DATA_LINE = (
    "no SSE `data:` line in the input: {protocol} reads the raw SSE body of a response "
    "(lines like `data: {{...}}`); for an assistant's text use --protocol ctl-heredoc, "
    "ctl or xml without --wire"
)


class _DataLineSeen:
    """Whether the bytes fed so far hold a line starting ``data:`` (across chunk edges)."""

    def __init__(self) -> None:
        self.seen = False
        self._tail = b"\n"  # the input's start counts as a line start

    def feed(self, data: bytes) -> None:
        if self.seen or not data:
            return
        window = self._tail + data
        self.seen = window.startswith(b"data:") or b"\ndata:" in window
        self._tail = window[-5:]


def _char_start(data: bytes, cut: int) -> int:
    """``cut`` moved back (at most 3 bytes) to the start of a UTF-8 character."""
    k = cut
    while k > cut - 3 and data[k] & 0xC0 == 0x80:
        k -= 1
    return k if data[k] & 0xC0 != 0x80 else cut


class _Printer:
    """Writes JSON lines; merges confirmed prose into whole lines of text.

    The held text is a list of pieces (joined once per printed line) and only
    new bytes are searched for a newline: linear in the prose.
    """

    def __init__(self, out: IO[bytes], detail: bool, quiet: bool) -> None:
        self.out = out
        self.detail = detail
        self.quiet = quiet
        self._held: list[bytes] = []
        self._size = 0
        self._text_at = 0
        self._thought: list[str] = []

    def events(self, events: list[Event]) -> None:
        if self.quiet:
            return  # `--summary`: nothing but the summary is printed, so nothing is held
        for event in events:
            if isinstance(event, Confirmed):
                if event.kind == "text":
                    self.thought()
                    self._add_text(event)
                continue
            if isinstance(event, ReasoningText):
                self.flush_text()
                self.thought(event.text)
                continue
            self.thought()
            if isinstance(event, _ALWAYS) or (self.detail and isinstance(event, _DETAIL)):
                self.flush_text()
                self.record(event_to_json(event))

    def thought(self, text: str = "") -> None:
        """Hold reasoning and print it a line at a time (``{"type": "reasoning"}``), so
        the output is the same for any ``--chunk``; no ``text`` prints what is held (other
        output follows)."""
        if text:
            self._thought.append(text)
            if "\n" not in text:
                return
        held = "".join(self._thought)
        if not held:
            return
        cut = held.rfind("\n") + 1 if text else len(held)
        for line in held[:cut].splitlines(keepends=True):
            self.record({"type": "reasoning", "text": line})
        self._thought = [held[cut:]] if held[cut:] else []

    def _add_text(self, event: Confirmed) -> None:
        data = event.data
        if not self._held:
            self._text_at = event.offset
        start = 0
        while (nl := data.find(b"\n", start)) >= 0:
            self._hold(data[start : nl + 1])
            self.flush_text()
            start = nl + 1
        if start < len(data):
            self._hold(data[start:] if start else data)
            if self._size > TEXT_PIECE:
                self._emit_pieces(final=False)

    def _hold(self, data: bytes) -> None:
        self._held.append(data)
        self._size += len(data)

    def flush_text(self) -> None:
        """Print the held text (the end of a line, or text before another event)."""
        if self._held:
            self._emit_pieces(final=True)

    def _emit_pieces(self, final: bool) -> None:
        """Print held text in pieces of at most ``TEXT_PIECE`` bytes, cut while more than
        that remains; unless ``final``, keep the remainder for the rest of the line."""
        data = b"".join(self._held) if len(self._held) > 1 else self._held[0]
        i = 0
        while len(data) - i > TEXT_PIECE:
            cut = _char_start(data, i + TEXT_PIECE)
            self._emit_text(data[i:cut])
            i = cut
        if final:
            self._emit_text(data[i:] if i else data)
            self._held, self._size = [], 0
        else:
            rest = data[i:]
            self._held, self._size = [rest], len(rest)

    def _emit_text(self, data: bytes) -> None:
        value = data.decode("utf-8", "replace")
        self.record({"type": "text", "offset": self._text_at, "data": value})
        self._text_at += len(data)

    def record(self, obj: dict[str, Any], force: bool = False) -> None:
        """Write one JSON line (unless ``--summary`` keeps only the forced summary)."""
        if self.quiet and not force:
            return
        self.out.write(dumps(obj).encode("utf-8") + b"\n")


def main(args: argparse.Namespace) -> int:
    if args.chunk < 1:
        safe_print("frontier transduce: --chunk must be at least 1 byte", file=sys.stderr)
        return 2
    source = sys.stdin.buffer
    out = sys.stdout.buffer
    printer = _Printer(out, detail=args.events == "all", quiet=args.summary)
    wire = args.wire
    reads_sse = args.protocol in NATIVE_MODES or wire is not None
    adapter = None  # a text protocol's text needs no wire (nor its import)
    if reads_sse:
        from frontier.app.model.registry import codec

        adapter = codec(wire)
    t = make_transducer(args.protocol, wire=adapter, sse=wire is not None)
    if not reads_sse:  # a reply's text: its leading <think> is reasoning, as live
        from frontier.app.commands.transduce_think import ThoughtFirst

        t = ThoughtFirst(t)
    calls = errors = max_pending = 0
    chunk = args.chunk
    block = chunk * max(1, READ_BLOCK // chunk)
    rest = b""  # bytes short of a whole chunk (a short read): the chunks stay those of the input
    data_lines = _DataLineSeen() if args.protocol in NATIVE_MODES or wire else None

    size = getattr(t, "pending_size", None)
    pending_now = size if callable(size) else lambda: pending_size(t)

    def feed(piece: bytes) -> None:
        # Once per chunk (a thousand times for 64 MiB): one pass over the events.
        nonlocal calls, errors, max_pending
        events = t.feed(piece)
        pending = pending_now()
        if pending > max_pending:
            max_pending = pending
        for event in events:
            if isinstance(event, CallReady):
                calls += 1
            elif isinstance(event, ContractError):
                errors += 1
        printer.events(events)

    try:
        while data := source.read(block):
            if data_lines is not None:
                data_lines.feed(data)
            data = rest + data if rest else data
            whole = len(data) - len(data) % chunk
            for i in range(0, whole, chunk):
                feed(data[i : i + chunk])
            rest = data[whole:]
        if rest:
            feed(rest)
        pending = pending_size(t)
        events = t.finish(args.eof == "clean")
        calls += sum(isinstance(e, CallReady) for e in events)
        errors += sum(isinstance(e, ContractError) for e in events)
        printer.events(events)
        printer.flush_text()
        printer.thought()
        for message in getattr(t, "notes", ()):
            printer.record({"type": "note", "message": message})
        summary = {
            "type": "summary",
            "confirmed": t.frontier,
            "pending": pending,
            "max_pending": max_pending,
            "calls": calls,
            "errors": errors,
        }
        printer.record(summary, force=True)
        out.flush()
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. `| head`): not an error
        return 0
    if data_lines is not None and not data_lines.seen:
        safe_print(
            f"frontier transduce: {NO_DATA_LINE.format(protocol=args.protocol)}", file=sys.stderr
        )
        return 2
    return 1 if errors and args.summary else 0
