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

Where: ``-o OUT``, else ``CAPTURE.recording.jsonl``; ``-N`` (the response's number) before
the suffix when the capture holds several responses or ``CAPTURE#N`` picked one, so that
importing ``x.har#1`` then ``x.har#2`` keeps both; ``-o -`` is standard output (one
response). The capture itself, and any existing file that holds a capture, is never written
over (refused, exit 2); an earlier recording or any other file is replaced whole.

Exit status: 0 written; 2 unreadable capture, an output refused, or a usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import zlib
from datetime import UTC, datetime
from pathlib import Path

from frontier.app.commands.check import say_reading
from frontier.app.frontends.terminal_text import json_safe, safe_print
from frontier.app.record import replace
from frontier.app.secrets import Scrubber
from frontier.app.session.capture import (
    DEFAULT_RATE,
    CaptureError,
    as_read,
    capture_sources,
    detect_kind,
    detection_lines,
    read_capture_bytes,
    split_pick,
)
from frontier.app.session.capture_raw import MAX_CAPTURE, InflateError, inflate
from frontier.app.session.record import (
    Recording,
    RecordingError,
    scrub_recording,
    write_recording,
)


def output_paths(capture: str, output: str | None, names: list[str]) -> list[Path]:
    """Where each response (by its source name, ``FILE#N`` when the capture holds several)
    goes: ``OUT`` (or ``CAPTURE.recording.jsonl``) with ``-N`` before the suffix, N the
    response's own number, when there are several or one was picked: ``x.har#1`` and
    ``x.har#2`` imported in turn both wrote ``x.har.recording.jsonl``, the second over the
    first. ``-o -`` is standard output (:data:`STDOUT`), for one response."""
    if output == "-":
        if len(names) != 1:
            raise CaptureError(
                f"-o - writes one recording, and it holds {len(names)} responses: pick one "
                "with CAPTURE#N, or name a file"
            )
        return [STDOUT]
    path, pick = split_pick(capture)
    base = Path(output) if output else None
    if base is None:
        if path == "-":
            raise CaptureError("reading stdin: say where to write with -o OUT (or -o - for stdout)")
        base = Path(path).with_name(Path(path).name + ".recording.jsonl")
        if pick is not None:  # the name it gets among all of the capture's
            return [_numbered(base, names[0])]
    if len(names) == 1:
        return [base]
    return [_numbered(base, name) for name in names]


STDOUT = Path("-")
"""``-o -``: the recording is written to standard output (a file named ``-`` was made)."""


def _numbered(base: Path, name: str) -> Path:
    """``base`` with the response's number (``NAME#N``) before its suffix."""
    number = name.rpartition("#")[2]
    return base.with_name(f"{base.stem}-{number}{base.suffix}")


CAPTURE_HEAD = 64 << 10
"""Bytes of an existing output file looked at to tell whether it is a capture."""


def refuse_to_overwrite(capture: str, paths: list[Path]) -> None:
    """Refuse an output that is the capture itself (``import self.sse -o self.sse`` replaced
    the capture with its recording) or an existing file that holds a capture of any kind
    (a HAR, an SSE body, an HTTP dump, a chunk log): the one thing an import cannot make
    again. An earlier recording, or any other file, is replaced whole (atomically), as
    ``-o`` does in every tool; every path is checked before any is written."""
    source = split_pick(capture)[0]
    for path in paths:
        if path == STDOUT or not path.exists():
            continue
        if source != "-" and _same_file(path, Path(source)):
            raise CaptureError(f"{path} is the capture itself; write the recording elsewhere (-o)")
        if _holds_a_capture(path):
            raise CaptureError(
                f"{path} holds a capture, which the recording would replace: name another "
                "file with -o (or move it away first)"
            )


def _same_file(one: Path, other: Path) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def _holds_a_capture(path: Path) -> bool:
    """Whether ``path`` starts as a capture Frontier reads (not as a recording)."""
    try:
        with path.open("rb") as f:
            head = f.read(CAPTURE_HEAD)
    except OSError:
        return False  # writing it says why
    if head[:2] == b"\x1f\x8b":  # its first 64 KiB: a cut gzip, which as_read refuses
        try:
            head, _cut = inflate(head, 16 + zlib.MAX_WBITS, CAPTURE_HEAD)
        except InflateError:
            return True  # compressed, unreadable: not a recording, and not ours to replace
    try:
        return detect_kind(as_read(head, MAX_CAPTURE)) != "recording"
    except CaptureError:
        return False


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
        paths = output_paths(args.capture, args.output, [s.name for s in found])
        refuse_to_overwrite(args.capture, paths)
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
        # a capture's bytes may hold a key the environment knows or its own headers
        # carried (a model echoing it, a log that kept it): masked before the file
        # exists, as Frontier's own recordings are (``scrub_recording``)
        scrubbed = scrub_recording(replace(rec, created=created, meta=meta), secrets)
        if path == STDOUT:
            return _to_stdout(scrubbed)
        try:
            write_recording(path, scrubbed)
        except OSError as exc:
            safe_print(f"frontier import: {path}: cannot write ({exc.strerror})", file=sys.stderr)
            return 2
        safe_print(f"wrote {path}")
    return 0


def _to_stdout(rec: Recording) -> int:
    """``-o -``: the recording on standard output, as its file would hold it (written by
    ``write_recording``, the one writer of the format, to a private temporary file, then
    read back), made :func:`json_safe` (the same JSON, with no raw control character for a
    terminal to act on); nothing else is printed there."""
    with tempfile.TemporaryDirectory() as folder:
        made = Path(folder) / "recording.jsonl"
        write_recording(made, rec)
        text = made.read_text(encoding="utf-8")
    try:
        sys.stdout.write(json_safe(text))
        sys.stdout.flush()
    except BrokenPipeError:  # ``| head``: the reader left, as any filter's may
        return 0
    return 0
