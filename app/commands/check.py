"""``frontier check SOURCE...``: verify S1–S3 over every byte prefix.

A source is a recording, a capture (raw SSE, raw HTTP, HAR, a chunk log; ``-`` for stdin;
``FILE#N``: ``app/session/capture.py``, what was detected printed first on stderr,
``--wire``/``--protocol`` override it) or a stored session.

S1: no incomplete call is ever executable; S2: a call executable on a prefix is
byte-identical to the same call on the whole stream; S3: the number of executable
calls never decreases as the prefix grows (``app/cst/props.py``; ``--help`` prints
them too).

Prints one line per source and exits 1 if any property fails (naming the
first violating offset), 2 when a source cannot be read; then (more than one response,
or framing broken) a closing line counting them (:class:`Tally`). Framing errors in a
recording are not violations: a model may break the contract; the transducer
must still never run an incomplete or changing call. The exception is
``late_arguments``: bytes for a call that had already become executable, so
the call would have changed — reported as S2 (``props.CHANGED_AFTER_READY``).

A response continued after a ``length`` cut (docs/protocol.md, "Continuation") is
checked as the one stream its transducer was fed: the recording's join markers drop
the server's echo (``Recording.pieces``) and the line names the joins
(``continued_at=OFFSET,…``).

``--explain`` follows each line with one block per contract error (the framing-error
inspector in text: ``app/agent/explain.py``): the bytes around the offset in text and
hex, the frame as parsed so far, the feedback sent to the model and, for a stored
session, the model's next attempt.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from frontier.app.cst.factory import PROTOCOLS
from frontier.app.cst.props import check_stream
from frontier.app.frontends.terminal_text import safe_print
from frontier.app.model.registry import codec
from frontier.app.session.record import Recording, RecordingError
from frontier.app.vocab import NATIVE_MODES

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from frontier.app.agent.explain import Explanation
    from frontier.app.cst.props import CheckReport
    from frontier.app.model.wires.rules import Violation
    from frontier.app.secrets import Scrubber

PROPERTIES = {
    "S1": "an incomplete call was executable",
    "S2": "a call changed after it became executable",
    "S3": "the executable calls decreased as the stream grew",
    "bound": "the pending bytes passed their bound",
    "chunking": "the calls depend on how the bytes were chunked",
}
"""What each property's violation means, printed with it (``frontier check --help``
defines them; so does the README)."""


class SourceError(Exception):
    """A source argument is not a readable recording; the message says what to pass instead."""


def load_sources(
    arg: str,
    *,
    wire: str | None = None,
    protocol: str | None = None,
    detected: list[str] | None = None,
    learned: list[str] | None = None,
) -> list[tuple[str, Recording]]:
    """Resolve one command-line source to (name, recording) pairs.

    A file (or ``-``, stdin) is a Frontier recording or a capture (raw SSE, HAR, a
    chunk log: ``app/session/capture.py``), one pair per response (``FILE#N`` picks
    one); anything else is looked up as a stored session id (or unique prefix), which
    gives one recording per model response. ``wire``/``protocol`` override what is
    detected in a capture; the line saying what was detected is appended to
    ``detected``, and the credentials the capture itself carried (a HAR's headers:
    ``capture.CaptureSource.credentials``) to ``learned``, for whatever shows its bytes to mask.
    """
    from frontier.app.session.capture_arg import is_capture_arg

    if Path(arg).is_dir():
        raise SourceError(f"{arg}: is a directory; pass recording files (e.g. {arg}/*.jsonl)")
    if not is_capture_arg(arg):
        return _session_sources(arg)
    from frontier.app.session.capture import CaptureError, capture_sources, detection_lines

    say_reading(arg)
    try:
        found = capture_sources(arg, wire=wire, protocol=protocol)
    except RecordingError as exc:
        raise SourceError(str(exc)) from exc
    except CaptureError as exc:
        raise SourceError(f"{arg}: {exc}") from exc
    if detected is not None:
        detected += detection_lines(found)
    if learned is not None and found:
        learned += found[0].credentials  # the capture's: the same on each of its responses
    return [(s.name, s.recording) for s in found]


SAY_READING = 16 << 20
"""Bytes of a capture from which reading it is said first, on stderr: a HAR of a long
session (100 MiB) takes seconds to read before anything else shows (``replay``'s screen
included), and a silent terminal reads as a hang."""


def say_reading(arg: str) -> None:
    from frontier.app.session.capture_arg import split_pick

    path = split_pick(arg)[0]
    try:
        size = os.stat(path).st_size if path != "-" else 0
    except (OSError, ValueError):  # a NUL in the name is a ValueError
        return  # reading it says why
    if size >= SAY_READING:
        safe_print(f"reading {path} ({size / (1 << 20):.0f} MiB)…", file=sys.stderr)
        sys.stderr.flush()


def _session_sources(arg: str) -> list[tuple[str, Recording]]:
    """``SESSION`` gives every response; ``SESSION#N`` only response N (0-based). A call
    that was running when the session's process died is named (``interrupted=ID``)."""
    from frontier.app.session.catalogue import session_recordings  # not the store's writer
    from frontier.app.session.db import StoreError

    session, _, index = arg.partition("#")
    try:
        found = session_recordings(session)
    except StoreError as exc:
        raise SourceError(f"{arg}: no such recording file or session ({exc})") from exc
    if not found:
        raise SourceError(f"session {session} has no recorded responses")
    if index:
        picked = [(name, rec) for name, rec in found if name.rpartition("#")[2] == index]
        if not picked:
            names = ", ".join(name for name, _ in found)
            raise SourceError(f"{arg}: no response #{index} in that session (it has {names})")
        return picked
    return found


def main(args: argparse.Namespace) -> int:
    explain = bool(getattr(args, "explain", False))
    if getattr(args, "last", False):  # this directory's session used last, after the rest
        from frontier.app.commands.session_pick import last_session_id

        last = last_session_id(Path("."), "check")
        if last is None:
            return 2
        args.sources = [*args.sources, last]
    if not args.sources:
        safe_print(
            "frontier check: what to check? give recordings, captures or session ids "
            "(`frontier sessions` lists them), or --last for this directory's session used "
            "last",
            file=sys.stderr,
        )
        return 2
    detected: list[str] = []
    learned: list[str] = []
    wire, protocol = getattr(args, "wire", None), getattr(args, "protocol", None)
    try:
        if sum(arg.partition("#")[0] == "-" for arg in args.sources) > 1:
            raise SourceError("stdin (-) can be given once")
        given = [
            (
                arg,
                load_sources(arg, wire=wire, protocol=protocol, detected=detected, learned=learned),
            )
            for arg in args.sources
        ]
        sources = [item for _, found in given for item in found]
        explained = _explanations(given) if explain else {}
    except SourceError as exc:
        safe_print(f"frontier check: {exc}", file=sys.stderr)
        return 2
    say_detected(detected)
    scrubbed = Scrubbed(learned)
    for name, rec in sources:
        if rec.mode not in PROTOCOLS:
            safe_print(f"frontier check: {name}: unknown mode {rec.mode!r}", file=sys.stderr)
            return 2
    failed = False
    jobs = getattr(args, "jobs", None)
    verdicts_ = verdicts(sources, jobs)
    tally = Tally()
    for (name, rec), (report, joins, server, native) in zip(sources, verdicts_, strict=True):
        tally.add(report, server, native)
        errors = f" errors={','.join(report.errors)}" if report.errors else ""
        running = rec.meta.get("interrupted")
        ids = [str(i) for i in running] if isinstance(running, list) else []
        interrupted = f" interrupted={','.join(ids)}" if ids else ""
        continued = f" continued_at={','.join(str(j) for j in joins)}" if joins else ""
        head = (
            f"{name}: mode={rec.mode} finish={rec.finish_reason} bytes={report.size} "
            f"calls={report.calls}{errors}{interrupted}{continued} "
            f"max_pending={report.max_pending}"
        )
        first = report.first
        if first is None:
            safe_print(f"ok    {head} prefixes={report.prefixes}")
        else:
            failed = True
            more = f" (+{len(report.violations) - 1} more)" if len(report.violations) > 1 else ""
            meaning = PROPERTIES.get(first.prop)
            what = f" ({meaning})" if meaning else ""
            said = scrubbed(first.message)  # it may quote the call's bytes
            safe_print(f"FAIL  {head}: {first.prop} at offset {first.offset}{what}: {said}{more}")
        if server:  # told apart from the model's errors
            first_server, others = server[0], len(server) - 1
            more = f" (+{others} more)" if others else ""
            safe_print(
                f"      server framing error at event {first_server.event} (the server's, not "
                f"the model's): {scrubbed(first_server.message)}{more}"
            )
        if native:  # the live session said so as a bad_call contract error
            safe_print(
                f"      native tool call {native[0]} in a response whose protocol ({rec.mode}) "
                "calls tools in the text: it did not run"
                + (f" (+{len(native) - 1} more)" if len(native) > 1 else "")
            )
        if explain:
            _print_explanations(explained.get(name, []), scrubbed)
    closing = tally.line(explain)
    if closing:
        safe_print(closing)
    sys.stdout.flush()
    return 1 if failed else 0


class Tally:
    """The closing line: how many responses held, and how many broke their framing (the
    model's contract errors, the server's framing errors, native calls a text protocol
    never reads). A response's line says ``ok`` when S1–S3 hold, which they do however
    broken the framing is; a person debugging framing must not read that as "fine"."""

    def __init__(self) -> None:
        self.responses = self.failed = self.model = self.server = self.native = 0

    def add(self, report: CheckReport, server: Sequence[object], native: Sequence[str]) -> None:
        self.responses += 1
        self.failed += report.first is not None
        self.model += bool(report.errors)
        self.server += bool(server)
        self.native += bool(native)

    def line(self, explained: bool) -> str:
        """``""`` for one response whose line says all there is."""
        broke = [
            (self.model, "the model's contract errors"),
            (self.server, "the server's framing errors"),
            (self.native, "native calls that did not run"),
        ]
        framing = [f"{n} with {what}" for n, what in broke if n]
        if self.responses == 1 and not framing:
            return ""
        held = self.responses - self.failed
        if self.failed:
            verdict = f"{self.failed} FAIL S1–S3, {held} hold"
        else:
            verdict = "S1–S3 hold in " + ("it" if self.responses == 1 else "every one")
        unit = "response" if self.responses == 1 else "responses"
        line = f"{self.responses} {unit}: {verdict}"
        if framing:
            line += "; framing broken: " + ", ".join(framing)
            if self.model and not explained:
                line += " (--explain shows each contract error)"
        return line


Verdict = tuple["CheckReport", tuple[int, ...], "list[Violation]", tuple[str, ...]]
"""One response checked: the S1–S3 report, the offsets where it was continued after a
cut, where the recorded events break their wire's own rules, and (a text protocol) the
native tool calls it holds, which that protocol never reads."""

PARALLEL_BYTES = 256 * 1024
"""Bytes to check from which ``check`` uses a process per CPU (the every-prefix loop costs
~0.5–1 µs a byte of a native SSE body or of text: a session of a thousand native responses,
3.8 MB, took about 4 s in one process). Below it, a process pool's start costs more than
it saves. (Until stop 74 a small native response cost ~20 µs a byte, a fresh transducer
fed at each of its prefixes, and was counted four times its size; fresh ones are now fed
only where its state changes, at each event: ~0.05 µs a byte.)"""

_SOURCES: list[tuple[str, Recording]] = []
"""The sources a forked worker checks, by index (inherited, never pickled)."""


def verdicts(sources: list[tuple[str, Recording]], jobs: int | None) -> Iterator[Verdict]:
    """Each source's :data:`Verdict`, in order: in this process, or (``jobs`` > 1, or
    ``None`` and more than :data:`PARALLEL_BYTES` to check) in a pool of forked processes
    that each check whole responses; the lines print as the results come, in order."""
    workers = _workers(sources, jobs)
    if workers <= 1:
        yield from map(_verdict, sources)
        return
    import multiprocessing

    for kind in {(rec.mode, rec.wire) for _, rec in sources}:
        _warm(*kind)  # a child must never import: another thread may hold the import lock
    global _SOURCES
    _SOURCES = sources
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            chunk = max(1, len(sources) // (workers * 8))
            yield from pool.imap(_verdict_at, range(len(sources)), chunksize=chunk)
    finally:
        _SOURCES = []


def _workers(sources: list[tuple[str, Recording]], jobs: int | None) -> int:
    if len(sources) < 2 or not sys.platform.startswith("linux"):
        return 1  # one response is one loop; elsewhere a fork is not safe to assume
    threading = sys.modules.get("threading")  # not imported: no thread was started by it
    if threading is not None and threading.active_count() > 1:
        return 1  # called in a process with other threads (a test, a host): never fork it
    if jobs is not None:
        return max(1, min(jobs, len(sources)))
    size = sum(len(data) for _, rec in sources for _, data in rec.events)
    if size < PARALLEL_BYTES:
        return 1
    return max(1, min(os.cpu_count() or 1, len(sources)))


def _warm(mode: str, wire: str) -> None:
    """Import everything checking ``mode`` on ``wire`` needs, here, before the fork."""
    check_stream(b"", mode, True, wire=codec(wire))
    _server_framing_of(wire, ())


def _verdict_at(index: int) -> Verdict:
    return _verdict(_SOURCES[index])


def _verdict(source: tuple[str, Recording]) -> Verdict:
    _, rec = source
    pieces, joins = rec.decoded()  # a continued response is checked as the one stream it fed
    data = b"".join(piece for _, piece in pieces)
    report = check_stream(data, rec.mode, rec.clean, wire=codec(rec.wire))
    server, native = server_framing(rec)
    return report, tuple(j.offset for j in joins), server, native


def say_detected(lines: list[str]) -> None:
    """What was detected in each capture (``load_sources``'s ``detected``), said first and
    on stderr by every command that reads captures: stdout stays the report or the
    events (``--json``)."""
    for line in lines:
        safe_print(line, file=sys.stderr)
    sys.stderr.flush()


def server_framing(rec: Recording) -> tuple[list[Violation], tuple[str, ...]]:
    """Where the recorded events break their wire's own rules (a ``.done`` whose arguments
    disagree with the deltas, an event after the end, an id that changes, data that is not
    JSON): a check line's S2 failure or contract error may be the server's doing, and the
    reader should know. And, in a text protocol, the native calls the events hold (``id
    name``), which the protocol never reads (``app/agent/modes.py``)."""
    violations, calls = _server_framing_of(rec.wire, rec.events)
    return violations, (() if rec.mode in NATIVE_MODES else calls)


def _server_framing_of(
    wire: str, events: Sequence[tuple[float, str]]
) -> tuple[list[Violation], tuple[str, ...]]:
    """The wire's rules over each request's stream of a response: a continued response
    (docs/recording-format.md, "Continued responses") holds the first stream, Frontier's
    join marker, then the continuation's own stream, which starts over (its first content
    after the first stream's ``finish_reason: length`` was blamed on the server)."""
    from frontier.app.model.wires.rules import checked
    from frontier.app.record import replace
    from frontier.app.wire.continuation import read_join

    segments: list[tuple[int, list[str]]] = [(0, [])]
    for number, (_, data) in enumerate(events, 1):
        if read_join(data) is not None:
            segments.append((number, []))  # events numbered from 1 across the whole body
        else:
            segments[-1][1].append(data)
    violations: list[Violation] = []
    calls: list[str] = []
    for before, datas in segments:
        rules = checked(wire, (("message", data) for data in datas))
        if rules is None:
            return [], ()
        violations += [replace(v, event=v.event + before) for v in rules.violations]
        calls += (f"{c.id or '?'} {c.name or '?'}"[:80] for c in rules.calls.values() if c.started)
    return violations, tuple(calls)


def _explanations(
    given: list[tuple[str, list[tuple[str, Recording]]]],
) -> dict[str, list[Explanation]]:
    """``--explain``: each source's contract errors, by the name its check line prints
    (a stored session's with the feedback it got and its next attempt; a file's — a
    recording or a capture, already read — from its recording alone)."""
    from frontier.app.agent.explain import explain_recording, explain_session
    from frontier.app.session.capture_arg import is_capture_arg
    from frontier.app.session.db import StoreError

    out: dict[str, list[Explanation]] = {}
    for arg, recordings in given:
        if is_capture_arg(arg):
            found = [e for name, rec in recordings for e in explain_recording(name, rec)]
        else:
            try:
                found = explain_session(arg)
            except (StoreError, LookupError) as exc:
                raise SourceError(f"{arg}: {exc}") from exc
        for item in found:
            out.setdefault(item.source, []).append(item)
    return out


def _print_explanations(found: list[Explanation], scrubbed: Scrubbed) -> None:
    """The ``--explain`` blocks, plain text (no colour: CI logs and bug reports), with
    known secrets masked as ``replay`` masks them; ``safe_print`` shows what the model,
    the recording's file name or the store put in them as escapes."""
    from frontier.app.agent.explain import format_explanation

    for item in found:
        safe_print(scrubbed(format_explanation(item)), end="")


class Scrubbed:
    """Text with the environment's keys, the credentials the captures carried
    (``learned``) and credential shapes hidden: what a failure quotes of a capture's bytes
    (a call's arguments may hold the key the model was given) is pasted into bug reports.
    The scrubber is made when a line first needs it (``frontier check`` of a session that
    passes imports none: issue 24), once a run: a module-wide one kept the environment
    of the first run in a process (a test's)."""

    def __init__(self, learned: Sequence[str] = ()) -> None:
        self.learned = tuple(learned)
        self.scrubber: Scrubber | None = None

    def __call__(self, text: str) -> str:
        if self.scrubber is None:
            from frontier.app.secrets import Scrubber

            self.scrubber = Scrubber.from_env(*self.learned)
        return self.scrubber.scrub(text)
