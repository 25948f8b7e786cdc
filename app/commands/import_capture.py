"""``frontier import CAPTURE [-o OUT]``: a capture as a documented Frontier recording.

A teacher keeps a real model's broken stream as a lesson: the capture's responses (one,
or one per HAR entry; ``FILE#N`` picks one) are written in the recording format
(``docs/recording-format.md``) with their provenance in the header — ``source`` (the
capture's kind), ``entry``, ``endpoint`` (the URL path only), ``wire``, ``protocol``,
``detected`` (how each was told) and ``timing`` — never a header value, a host or a
key. Times come from the capture where it has any; otherwise events are paced
``--rate`` per second (``docs/captures.md``). Known secrets in the model's text are
masked as every recording is (``scrub_recording``): the environment's keys, and a HAR's
own credentials (its ``Authorization`` / ``x-api-key`` values, cookies, URL credentials:
``capture.CaptureSource.credentials``).

Exit status: 0 written; 2 unreadable capture or usage error.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from frontier.app.commands.check import say_reading
from frontier.app.frontends.terminal_text import safe_print
from frontier.app.record import replace
from frontier.app.secrets import Scrubber
from frontier.app.session.capture import (
    DEFAULT_RATE,
    CaptureError,
    capture_sources,
    detection_lines,
    read_capture_bytes,
    split_pick,
)
from frontier.app.session.record import RecordingError, scrub_recording, write_recording


def output_paths(capture: str, output: str | None, count: int) -> list[Path]:
    """Where each of ``count`` responses goes: ``OUT`` (or ``CAPTURE.recording.jsonl``),
    with ``-N`` before the suffix when there are several."""
    base = Path(output) if output else None
    if base is None:
        path, _ = split_pick(capture)
        if path == "-":
            raise CaptureError("reading stdin: say where to write with -o OUT")
        base = Path(path).with_name(Path(path).name + ".recording.jsonl")
    if count == 1:
        return [base]
    return [base.with_name(f"{base.stem}-{i}{base.suffix}") for i in range(1, count + 1)]


def main(args: argparse.Namespace) -> int:
    rate = DEFAULT_RATE if args.rate is None else args.rate
    if rate <= 0:
        safe_print("frontier import: --rate must be above 0", file=sys.stderr)
        return 2
    say_reading(args.capture)
    try:
        data = read_capture_bytes(split_pick(args.capture)[0])  # once: stdin too
        found = capture_sources(
            args.capture, wire=args.wire, protocol=args.protocol, rate=rate, data=data
        )
        if any(not s.summary for s in found):
            raise CaptureError("it is already a Frontier recording; nothing to import")
        paths = output_paths(args.capture, args.output, len(found))
    except (CaptureError, RecordingError) as exc:
        safe_print(f"frontier import: {args.capture}: {exc}", file=sys.stderr)
        return 2
    secrets = Scrubber.from_env(*found[0].credentials)  # the capture's, the same in each
    created = datetime.now(UTC).isoformat(timespec="seconds")
    for line in detection_lines(found):
        safe_print(line, file=sys.stderr)
    for source, path in zip(found, paths, strict=True):
        rec = source.recording
        meta = {k: v for k, v in rec.meta.items() if v is not None}
        try:
            # a capture's bytes may hold a key the environment knows or its own headers
            # carried (a model echoing it, a log that kept it): masked before the file
            # exists, as Frontier's own recordings are (``scrub_recording``)
            write_recording(
                path, scrub_recording(replace(rec, created=created, meta=meta), secrets)
            )
        except OSError as exc:
            safe_print(f"frontier import: {path}: cannot write ({exc.strerror})", file=sys.stderr)
            return 2
        safe_print(f"wrote {path}")
    return 0
