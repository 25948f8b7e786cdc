"""``frontier transduce``: stdin bytes -> confirmed events as JSON lines.

For debugging a model's framing: feed a saved reply (assistant text, or the
SSE body for native modes) in chunks of ``--chunk`` bytes and see exactly
what the runtime would confirm, run, stop on or reject. Confirmed prose is
printed one line of text at a time, so the output is the same for any
``--chunk``. Framing errors are output, not failures: exit 0; 2 = usage error.

The summary counts ``confirmed`` (the final frontier), ``pending`` (bytes
still undecided when the input ended, before the end-of-stream rules),
``max_pending`` (the largest pending size after any chunk), ``calls`` and
``errors``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any

from frontier.app.cst.factory import make_transducer, pending_size
from frontier.app.events import (
    ArgBytes,
    ArgStarted,
    CallReady,
    CallStarted,
    Confirmed,
    ContractError,
    Event,
    StreamStopped,
    event_to_json,
)

_ALWAYS = (CallReady, ContractError, StreamStopped)
_DETAIL = (CallStarted, ArgStarted, ArgBytes)


class _Printer:
    """Writes JSON lines; merges confirmed prose into whole lines of text."""

    def __init__(self, out: IO[bytes], detail: bool, quiet: bool) -> None:
        self.out = out
        self.detail = detail
        self.quiet = quiet
        self._text = b""
        self._text_at = 0

    def events(self, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, Confirmed):
                if event.kind == "text":
                    self._add_text(event)
                continue
            if isinstance(event, _ALWAYS) or (self.detail and isinstance(event, _DETAIL)):
                self.flush_text()
                self.write(event_to_json(event))

    def _add_text(self, event: Confirmed) -> None:
        if not self._text:
            self._text_at = event.offset
        self._text += event.data
        cut = self._text.rfind(b"\n") + 1
        if cut:
            self._emit_text(self._text[:cut])
            self._text_at += cut
            self._text = self._text[cut:]

    def flush_text(self) -> None:
        if self._text:
            self._emit_text(self._text)
            self._text = b""

    def _emit_text(self, data: bytes) -> None:
        value = data.decode("utf-8", "replace")
        self.write({"type": "text", "offset": self._text_at, "data": value})

    def write(self, obj: dict[str, Any], force: bool = False) -> None:
        if self.quiet and not force:
            return
        self.out.write(json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n")


def main(args: argparse.Namespace) -> int:
    if args.chunk < 1:
        print("frontier transduce: --chunk must be at least 1 byte", file=sys.stderr)
        return 2
    data = sys.stdin.buffer.read()
    out = sys.stdout.buffer
    printer = _Printer(out, detail=args.events == "all", quiet=args.summary)
    t = make_transducer(args.protocol)
    calls = errors = max_pending = 0
    try:
        for i in range(0, len(data), args.chunk):
            events = t.feed(data[i : i + args.chunk])
            max_pending = max(max_pending, pending_size(t))
            calls += sum(isinstance(e, CallReady) for e in events)
            errors += sum(isinstance(e, ContractError) for e in events)
            printer.events(events)
        pending = pending_size(t)
        events = t.finish(args.eof == "clean")
        calls += sum(isinstance(e, CallReady) for e in events)
        errors += sum(isinstance(e, ContractError) for e in events)
        printer.events(events)
        printer.flush_text()
        summary = {
            "type": "summary",
            "confirmed": t.frontier,
            "pending": pending,
            "max_pending": max_pending,
            "calls": calls,
            "errors": errors,
        }
        printer.write(summary, force=True)
        out.flush()
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. `| head`): not an error
    return 0
