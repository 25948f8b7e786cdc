"""Captures as sources: what kind a file is, which wire and protocol it speaks, and the
``Recording`` each of its responses becomes (issue 25, ``docs/captures.md``).

``check``, ``replay``, ``eval`` and ``import`` read any capture through
:func:`capture_sources`, so a ``curl -N`` body, a HAR file or a chunk log is checked
and replayed exactly as a recording Frontier made itself. The kind is detected from
the bytes, never the file name; the wire from the events (or the endpoint path); the
protocol from what the request offered, else the stream's own look. Every guess is
said (:attr:`CaptureSource.summary`), and ``--wire`` / ``--protocol`` override it.

A capture is untrusted input: the file is capped (:data:`MAX_CAPTURE`, a HAR
:data:`MAX_HAR_BYTES`), lines and
events are capped, JSON depth is bounded, and no header of any kind reaches a
``Recording``: provenance is the capture's kind, entry, endpoint path and what was
detected how.
"""

from __future__ import annotations

import gc
import io
import re
import sys
import zlib
from collections.abc import Sequence

from frontier.app import fastjson
from frontier.app.listing import listing
from frontier.app.model import registry
from frontier.app.model.stream import CallStart, End, Finish, ServerError, text_of
from frontier.app.record import field, record, replace
from frontier.app.session.capture_arg import bad_pick, is_capture_arg, split_pick
from frontier.app.session.capture_raw import (
    HTTP_START,
    MAX_CAPTURE,
    MAX_HAR_BYTES,
    InflateError,
    RawResponse,
    inflate,
)
from frontier.app.session.capture_sse import CaptureError, EmptyCapture, sse_response
from frontier.app.session.record import FORMAT, Recording, RecordingError, parse_recording
from frontier.app.vocab import DEFAULT_MODE, PROTOCOLS, WIRES
from frontier.app.wire import safejson

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any

    from frontier.app.session.capture_raw import CaptureKind

DEFAULT_RATE = 50.0
"""Events per second a capture without timing is paced at (``import --rate``)."""
KIND_NAMES: dict[str, str] = {
    "sse": "raw SSE",
    "http": "HTTP capture",
    "har": "HAR",
    "jsonl": "JSON-lines chunk log",
    "recording": "Frontier recording",
    "session": "stored session",
}
_CTL_CALL = re.compile(rb"^call \S+ \S+", re.MULTILINE)
_XML_CALL = re.compile(rb"<minimax:tool_call>")
"""The xml mode's marker: the block it reads calls from (``app/cst/xml.py``)."""
_TIMED_LINE = re.compile(rb"\[?\d[\d.:T+\-Z ]*\]?:?[ \t]*\{")
"""A chunk log's line after a time prefix: ``[0.12] {``, ``0.12 {``, ``2026-01-01T10:00:00Z {``
(what ``capture_jsonl`` reads; an SSE body's lines start with a field name)."""
_HAR_START = re.compile(rb'\{\s*"log"\s*:\s*\{')
"""HAR 1.2's one top-level key, first as every browser and proxy writes it."""


@record
class CaptureSource:
    """One response of a capture, ready for ``check`` / ``replay``: its name (``FILE``,
    or ``FILE#N`` when the file holds several), its recording, and the line that says
    what was detected (printed first)."""

    name: str
    recording: Recording
    summary: str
    credentials: tuple[str, ...] = field(default=(), repr=False)
    """What the capture carried beside its responses: a HAR's or a raw HTTP capture's
    credential headers, cookies and URL credentials (``capture_har.har_secrets``,
    ``capture_http.http_secrets``; a raw SSE body or a chunk log holds no request). Never
    shown; what is kept of a capture holds no header, but a model may echo the Bearer token
    it was called with: ``check``, ``replay`` and ``import`` learn these to mask them, as a
    session masks its own key. The capture's, each value once, and one tuple shared by all
    its responses: a copy each (duplicates and all) grew with the square of the responses,
    780 MB for a 1.2 MB capture of 4,000 requests carrying a key and a cookie."""


def read_capture_bytes(arg: str) -> bytes:
    """The bytes of ``arg`` (a path, or ``-`` for stdin), read up to one byte past the larger
    of the caps: :func:`within_cap` holds them to their kind's once the kind is known."""
    most = max(MAX_CAPTURE, MAX_HAR_BYTES)
    if arg == "-" and sys.stdin.isatty():  # it would wait, silent, for ctrl+d
        raise CaptureError(
            "stdin is the terminal: pipe a capture in (e.g. curl -N … | frontier check -), or "
            "name its file"
        )
    try:
        if arg == "-":
            data = sys.stdin.buffer.read(most + 1)
        else:
            with open(arg, "rb") as f:
                data = f.read(most + 1)
    except OSError as exc:
        raise CaptureError(f"cannot read ({exc.strerror})") from exc
    except ValueError as exc:  # a NUL in the name
        raise CaptureError("cannot read (not a file name)") from exc
    return as_read(data, most)


def as_read(data: bytes, most: int) -> bytes:
    """A capture saved gzip-compressed (``curl`` without ``--compressed`` keeps the body
    as the server sent it, and ``.har.gz`` is how large ones travel) or as UTF-16
    (PowerShell 5's ``>`` writes it), made the UTF-8 bytes the readers take; at most
    ``most + 1`` bytes decompressed, so a small file cannot become gigabytes. Either was
    "not a capture Frontier reads". Every gzip member is read (``cat a.gz b.gz``), and a
    file cut off inside its compressed data is refused as damaged: read, it was the
    capture's first part, checked as if it were the whole."""
    if data[:2] == b"\x1f\x8b":
        try:
            data, cut = inflate(data, 16 + zlib.MAX_WBITS, most)
        except InflateError as exc:
            raise CaptureError(f"gzip-compressed, but damaged ({exc})") from None
        if cut:  # a download cut off: the text it held ends mid-stream, with no word of it
            raise CaptureError(
                "gzip-compressed, but damaged (it ends before its compressed data does: "
                "a cut-off download?)"
            )
    if len(data) > most:  # over every cap: within_cap says so
        return data
    if data[:2] in (
        b"\xff\xfe",
        b"\xfe\xff",
    ):  # UTF-16 marks: tools.utf16.MARKS, not importable here (layering)
        try:
            data = data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError as exc:
            raise CaptureError(
                f"UTF-16 text (its byte order mark says so), but byte {exc.start:,} is not "
                "UTF-16: save the capture again as UTF-8"
            ) from None
    return data


def within_cap(data: bytes, kind: CaptureKind) -> None:
    """Refuse ``data`` past its kind's cap: a HAR holds a page's every request and gets
    :data:`MAX_HAR_BYTES`; anything else holds one response and gets :data:`MAX_CAPTURE`."""
    if kind == "har":
        if len(data) > MAX_HAR_BYTES:
            raise CaptureError(
                f"over {_size(MAX_HAR_BYTES)}, the cap for a HAR file; save it again with only "
                "the model's requests (filter the network panel by the endpoint's path)"
            )
    elif len(data) > MAX_CAPTURE:
        raise CaptureError(
            f"over {_size(MAX_CAPTURE)}, the cap for a capture; cut it to the response you "
            "want to check"
        )


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n:,} bytes"


def detect_kind(data: bytes) -> CaptureKind:
    """What a capture is, from its content (never its name)."""
    text = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    text = text.lstrip()
    if HTTP_START.match(text):  # before the SSE check: a response's headers precede its body
        return "http"
    if text.startswith(b"{"):
        if _HAR_START.match(text):  # before the first line is parsed: a HAR saved on one
            return "har"  # line is all first line, and the HAR reader parses it anyway
        first = text.split(b"\n", 1)[0]
        obj = _json(first)
        if isinstance(obj, dict):
            if obj.get("format") == FORMAT:
                return "recording"
            if isinstance(obj.get("log"), dict):
                return "har"
            return "jsonl"
        return "jsonl"  # a torn or bad first line: the reader names it
    if _TIMED_LINE.match(text):  # a chunk log whose lines start with a time
        return "jsonl"
    if _sse_within(text, 64):
        return "sse"
    raise CaptureError(
        "not a capture Frontier reads: expected a raw SSE body (data: lines), a HAR file, "
        "a JSON-lines chunk log or a Frontier recording"
    )


_LINE_END = re.compile(rb"\r\n?|\n")
_SSE_FIELDS = (b"data:", b"event:", b":", b"id:", b"retry:")


def _sse_within(text: bytes, lines: int) -> bool:
    """Whether one of the first ``lines`` lines (ended as ``bytes.splitlines`` ends them)
    starts with an SSE field: found without splitting the rest, which for 64 MiB of short
    lines was 14 million objects made to look at 64."""
    at = 0
    for _ in range(lines):
        if text.startswith(_SSE_FIELDS, at):
            return True
        end = _LINE_END.search(text, at)
        if end is None:
            return False
        at = end.end()
    return False


def _json(data: bytes) -> Any:
    try:
        return safejson.loads(data.decode("utf-8", "replace"), max_depth=safejson.ENVELOPE_DEPTH)
    except ValueError:
        return None


ERROR_ANSWER_MAX = 64 << 10
"""Bytes from which a capture is not read as an API's error answer (one is a few hundred)."""


def error_answer(data: bytes) -> str | None:
    """The message of an API's error answer (``{"error": {"message": …}}``, as OpenAI's API
    and llama.cpp's server write one, Anthropic's with ``"type": "error"`` beside it, or
    ``{"error": "…"}``), cut to 200 characters and scrubbed; ``None`` for anything else.
    A person saving what ``curl`` printed for a failed request gets told so, not "not a
    chunk log" (nor, for Anthropic's, ``ok`` for a one-event stream that ended in an
    error: read as a chunk log it is the same failure, with nothing streamed)."""
    data = data.removeprefix(b"\xef\xbb\xbf")  # PowerShell's Out-File -Encoding utf8
    obj = _json(data) if len(data) <= ERROR_ANSWER_MAX else None
    error = obj.get("error") if isinstance(obj, dict) else None
    if isinstance(error, dict):
        message = error.get("message")
        text = message if isinstance(message, str) and message else fastjson.dumps(error)
    elif isinstance(error, str) and error:
        text = error
    else:
        return None
    from frontier.app.secrets import Scrubber

    return repr(Scrubber.from_env().scrub(" ".join(text.split()))[:200])


def raw_responses(
    data: bytes, kind: CaptureKind, pick: int | None = None, secrets: list[str] | None = None
) -> list[RawResponse]:
    """Every streamed response of a capture of ``kind`` (a HAR may hold several);
    ``secrets``: what credentials the capture carried are appended (a HAR, an HTTP dump)."""
    if kind == "sse":
        return [sse_response(data)]
    if kind == "jsonl":
        from frontier.app.session.capture_jsonl import jsonl_response

        return [jsonl_response(data)]
    if kind == "http":
        from frontier.app.session.capture_http import http_responses

        return http_responses(data.removeprefix(b"\xef\xbb\xbf"), pick, secrets)
    if kind == "har":
        try:
            from frontier.app.session.capture_har import har_responses
        except ImportError as exc:
            raise CaptureError("HAR support is not available in this Frontier") from exc
        return har_responses(data, pick, secrets)
    raise CaptureError(f"a {KIND_NAMES.get(kind, kind)} is not a capture")


def detect_wire(raw: RawResponse) -> tuple[str, str]:
    """(wire, how it was told): the first event a wire's adapter recognises as its own
    (only ``app.model.wires`` knows an API's JSON), else the endpoint path."""
    adapters = registry.codecs()
    for ev in raw.events[:256]:
        obj = _json(ev.data.encode()) if ev.data.lstrip().startswith("{") else None
        parsed = obj if isinstance(obj, dict) else None
        for adapter in adapters:
            how = adapter.recognises(ev.event, parsed)
            if how is not None:
                return adapter.name, how
    if raw.endpoint:
        for adapter in adapters:
            if raw.endpoint.rstrip("/").endswith(adapter.path):
                return adapter.name, f"endpoint {raw.endpoint}"
    raise CaptureError("cannot tell which wire it was spoken on; pass --wire")


@record
class _Read:
    """What one pass of the wire's decoder over the events found."""

    finish: str
    native: bool
    text: bytes
    called: tuple[str, ...] = ()
    """The names of the native calls the stream announced, in order."""


SHOWN_TOOLS = 12
"""Offered tools named in the detection line; more are counted."""


def offered_tools(request: Any) -> tuple[str, ...] | None:
    """The tool names a captured request body offered (``None``: no body, or it offered
    none): Chat's ``tools[].function.name``, Responses' and Anthropic's ``tools[].name``."""
    tools = request.get("tools") if isinstance(request, dict) else None
    if not isinstance(tools, list) or not tools:
        return None
    names: list[str] = []
    for tool in tools[:1024]:
        if not isinstance(tool, dict):
            continue
        fn = tool.get("function")
        name = fn.get("name") if isinstance(fn, dict) else tool.get("name")
        if isinstance(name, str) and name:
            names.append(name)
    return tuple(names) or None


def _stray_calls(offered: tuple[str, ...] | None, called: tuple[str, ...]) -> list[str]:
    """A note for calls to tools the request never offered (a model that invents a tool
    is a framing bug worth seeing); none when the capture has no request body."""
    strays = sorted({name for name in called if name not in offered}) if offered else []
    return [f"called a tool the request did not offer: {', '.join(strays)}"] if strays else []


def _offered_line(offered: tuple[str, ...]) -> str:
    shown = ", ".join(offered[:SHOWN_TOOLS])
    more = f" (+{len(offered) - SHOWN_TOOLS} more)" if len(offered) > SHOWN_TOOLS else ""
    return f"offered tools: {shown}{more}"


def _decode(raw: RawResponse, wire: str) -> _Read:
    decoder = registry.codec(wire).decoder()
    finish: str | None = None
    ended = native = False
    text: list[str] = []
    called: list[str] = []
    for ev in raw.events:
        deltas = decoder.feed(ev.event or "message", ev.data)
        text.append(text_of(deltas))
        for d in deltas:
            if isinstance(d, Finish):
                finish = d.reason
            elif isinstance(d, ServerError):
                finish = "error"
            elif isinstance(d, CallStart):
                native = True
                if d.name:
                    called.append(d.name)
            elif isinstance(d, End):
                ended = True
    if finish is None:
        finish = "stop" if ended and not raw.torn else "disconnect"
    return _Read(finish, native, "".join(text).encode("utf-8", "replace"), tuple(called))


def detect_protocol(raw: RawResponse, wire: str, read: _Read) -> tuple[str, str]:
    """(protocol, why): what the request offered, else a native stream's tool calls,
    else the text protocols' own markers, else the default text mode."""
    request = raw.request
    if isinstance(request, dict) and request.get("tools"):
        return "native-inc", "the request offered tools"
    if read.native:
        return "native-inc", registry.codec(wire).native_sign
    ctl, xml = _CTL_CALL.search(read.text), _XML_CALL.search(read.text)
    if ctl and (not xml or ctl.start() < xml.start()):
        return "ctl-heredoc", "a `call ID NAME` line"
    if xml:
        return "xml", "a <minimax:tool_call> block"
    why = "no call in the text" if request is None else "the request offered no tools"
    return DEFAULT_MODE, f"{why}: the default text mode"


def _refuse_a_wire_that_reads_nothing(raw: RawResponse, wire: str) -> None:
    """``--wire`` named a wire whose decoder finds neither text nor a call in events that
    look like another wire's: checking them would say "ok, 0 calls" about nothing."""
    try:
        seen, how = detect_wire(raw)
    except CaptureError:
        return  # nothing says otherwise: an empty response of that wire is possible
    if seen != wire:
        raise CaptureError(
            f"--wire {wire} reads nothing in its {len(raw.events)} events, which look like "
            f"{seen} ({how}): drop --wire, or pass --wire {seen}"
        )


def to_recording(
    raw: RawResponse,
    *,
    wire: str | None = None,
    protocol: str | None = None,
    rate: float = DEFAULT_RATE,
) -> tuple[Recording, str]:
    """One response as a ``Recording`` with provenance in ``meta``, and the line saying
    what was detected. Events without a time are paced ``1/rate`` seconds apart."""
    if wire is not None and wire not in WIRES:
        raise CaptureError(f"unknown wire {wire!r}; choose one of {', '.join(WIRES)}")
    if protocol is not None and protocol not in PROTOCOLS:
        raise CaptureError(f"unknown protocol {protocol!r}; choose one of {', '.join(PROTOCOLS)}")
    wire_how = "--wire"
    if wire is None:
        wire, wire_how = detect_wire(raw)
    read = _decode(raw, wire)
    if wire_how == "--wire" and not read.text and not read.native and raw.events:
        _refuse_a_wire_that_reads_nothing(raw, wire)
    proto_how = "--protocol"
    if protocol is None:
        protocol, proto_how = detect_protocol(raw, wire, read)
    timed = any(ev.t is not None for ev in raw.events)
    step = 1.0 / rate if rate > 0 else 0.0
    events: list[tuple[float, str]] = []
    last = 0.0
    for i, ev in enumerate(raw.events):
        t = (ev.t if ev.t is not None else last) if timed else round(i * step, 6)
        last = max(last, t)
        events.append((last, ev.data))
    meta: dict[str, Any] = {
        "source": raw.kind,
        "entry": raw.entry,
        "endpoint": raw.endpoint,
        "protocol": protocol,
        "detected": {"wire": wire_how, "protocol": proto_how},
        "timing": "capture" if timed else f"paced {rate:g} events/s",
    }
    offered = offered_tools(raw.request)
    if offered is not None:
        meta["offered_tools"] = list(offered)
    if raw.torn:
        meta["torn"] = True
    notes = [*raw.notes, *_stray_calls(offered, read.called)]
    if notes:
        meta["notes"] = notes
    rec = Recording(
        mode=protocol,
        model=raw.model,
        created="",
        events=tuple(events),
        finish_reason=read.finish,
        end_t=last if read.finish != "disconnect" else None,
        meta=meta,
        wire=wire,
    )
    entry = f" #{raw.entry}" if raw.entry is not None else ""
    how = (wire_how, proto_how)
    summary = _summary(raw.kind, entry, wire, protocol, how, str(len(events)), read.finish, offered)
    if notes:
        summary += " · " + "; ".join(notes)
    return rec, summary


def _summary(
    kind: str,
    entry: str,
    wire: str,
    protocol: str,
    how: tuple[object, object],
    events: str,
    finish: str,
    offered: tuple[str, ...] | None,
) -> str:
    """The detection line's words (one response's, or :func:`_run_line`'s for many)."""
    line = (
        f"capture: {KIND_NAMES.get(kind, kind)}{entry} · {wire} (from {how[0]}) · {protocol} "
        f"({how[1]}) · {events} events · finish {finish}"
    )
    return line + (" · " + _offered_line(offered) if offered else "")


def capture_sources(
    arg: str,
    *,
    wire: str | None = None,
    protocol: str | None = None,
    rate: float = DEFAULT_RATE,
    data: bytes | None = None,
) -> list[CaptureSource]:
    """Every response ``arg`` (a path, ``-``, or ``FILE#N``) holds, as check and replay
    read it. A Frontier recording reads as before (no summary line; ``--protocol``
    re-frames it only where the caller does so). ``data``: the bytes already read from
    it (stdin cannot be read twice)."""
    path, pick = split_pick(arg)
    wrong = bad_pick(arg)
    if wrong is not None:
        raise CaptureError(wrong)
    if data is None:
        data = read_capture_bytes(path)
    name = "<stdin>" if path == "-" else path
    kind = detect_kind(data)
    within_cap(data, kind)
    if kind == "recording":
        if pick is not None:
            raise CaptureError(f"a recording holds one response; drop #{pick}")
        try:  # read as a text file is read (``read_recording``): only line ends split
            rec = parse_recording(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"), name)
        except UnicodeDecodeError as exc:
            raise CaptureError(f"not UTF-8 text at byte {exc.start}") from exc
        return [CaptureSource(name, rec, "")]
    said = error_answer(data) if kind == "jsonl" else None
    if said is not None:
        raise CaptureError(
            f"an API's error answer, not a streamed response ({said}): the request "
            "failed before anything streamed, so there is nothing to check"
        )
    collecting = gc.isenabled()
    gc.disable()  # see _read_sources
    try:
        return _read_sources(data, kind, name, pick, wire, protocol, rate)
    finally:
        if collecting:
            gc.enable()


def _read_sources(
    data: bytes,
    kind: CaptureKind,
    name: str,
    pick: int | None,
    wire: str | None,
    protocol: str | None,
    rate: float,
) -> list[CaptureSource]:
    """:func:`capture_sources` of a capture (not a recording), run with the cyclic garbage
    collector paused: a read builds millions of objects (a HAR's parse, every event) and no
    cycle, and each full collection walked all of them so far, the parsed HAR included, so
    a HAR's every entry cost more than the one before (10,000 short responses: 2.4 s, 1.0 s
    of it in seven full collections; a quarter of them, 0.4 s)."""
    credentials: list[str] = []
    try:
        found = raw_responses(data, kind, pick, credentials)
    except EmptyCapture as exc:
        if kind != "jsonl":
            raise
        raise RecordingError(
            f'{name}:1: not a frontier recording (first line must have "format": "{FORMAT}") '
            f"nor a chunk log ({exc})"
        ) from exc
    if pick is not None and kind not in ("har", "http") and pick != 1:
        raise CaptureError(f"it holds one response; #{pick} does not exist")
    if not found:
        raise CaptureError(f"no streamed response in this {KIND_NAMES[kind]}")
    shared = tuple(dict.fromkeys(credentials))  # once: each source holds the same tuple
    out: list[CaptureSource] = []
    empty: dict[str, list[str]] = {}  # why → the responses holding no event for that reason
    for i, raw in enumerate(found, 1):
        label = name if len(found) == 1 and pick is None else f"{name}#{raw.entry or i}"
        if not raw.events:  # nothing to check: "ok" would be said of nothing
            empty.setdefault(raw.empty or "its body holds no event", []).append(
                f"#{raw.entry or i}"
            )
            continue
        try:
            rec, summary = to_recording(raw, wire=wire, protocol=protocol, rate=rate)
        except CaptureError as exc:
            if len(found) == 1:
                raise
            raise CaptureError(
                f"response #{raw.entry or i}: {exc} (or pick one: {name}#N)"
            ) from None
        out.append(CaptureSource(label, rec, summary, shared))
    if not out:
        raise CaptureError(_nothing_to_check(empty, len(found) == 1))
    if empty:
        out[0] = _with_note(out[0], f"left out, holding no events: {_by_reason(empty)}")
    return out


def _nothing_to_check(empty: dict[str, list[str]], one: bool) -> str:
    """The error of a capture none of whose responses holds an event, saying why (an empty
    body, an encoding not read, an API's error served as a stream): as an empty raw SSE
    body is refused, and not "ok" about zero events."""
    if one:
        return f"it holds no events: {next(iter(empty))}"
    return f"none of its responses holds an event: {_by_reason(empty)}"


def _by_reason(empty: dict[str, list[str]], shown: int = 4) -> str:
    """``#2, #5: why; #3: why``: the responses holding no event, by why (a HAR of a long
    session may hold many without a body, for one reason)."""
    parts = [f"{listing(numbers, 6)}: {why}" for why, numbers in empty.items()]
    return listing(parts, shown, sep="; ")


def _with_note(source: CaptureSource, note: str) -> CaptureSource:
    """``source`` with ``note`` added to its recording's notes and its detection line:
    the capture's responses that were not checked are said with the first that was."""
    rec = source.recording
    meta = {**rec.meta, "notes": [*rec.meta.get("notes", []), note]}
    return replace(source, recording=replace(rec, meta=meta), summary=f"{source.summary} · {note}")


def detection_lines(sources: Sequence[CaptureSource]) -> list[str]:
    """What was detected in ``sources``, each line named, said first by every command that
    reads captures. Consecutive responses of one file detected alike (the same kind, wire,
    protocol and offered tools, each with its reason, and the same notes) are one line
    naming them all, with their events and finishes summed and the notes said once: a HAR
    of a long session is hundreds of responses detected alike, and their lines filled the
    replay's Transcript before anything played (a note the capture puts on every response,
    a HAR's entries past the cap or ``curl -i``'s joined chunks, kept each on a line of its
    own: 10,000 of them)."""
    out: list[str] = []
    run: list[CaptureSource] = []
    for source in [*sources, None]:
        if source is not None and source.summary and run and _alike(run[-1], source):
            run.append(source)
            continue
        if len(run) == 1:
            out.append(f"{run[0].name}: {run[0].summary}")
        elif run:
            out.append(_run_line(run))
        run = [source] if source is not None and source.summary else []
    return out


def _alike(one: CaptureSource, other: CaptureSource) -> bool:
    a, b = one.recording, other.recording
    keys = ("source", "detected", "offered_tools", "notes")
    return (
        one.name.rpartition("#")[0] == other.name.rpartition("#")[0] != ""
        and (a.wire, a.mode) == (b.wire, b.mode)
        and all(a.meta.get(k) == b.meta.get(k) for k in keys)
    )


def _run_line(run: Sequence[CaptureSource]) -> str:
    """One line for responses :func:`_alike` (their summary's shared parts, counted)."""
    first = run[0].recording
    how = first.meta.get("detected") or {}
    finishes: dict[str, int] = {}
    for source in run:
        reason = source.recording.finish_reason or "?"
        finishes[reason] = finishes.get(reason, 0) + 1
    finished = ", ".join(f"{reason} ×{n}" for reason, n in finishes.items())
    events = sum(len(source.recording.events) for source in run)
    offered = first.meta.get("offered_tools")
    file = run[0].name.rpartition("#")[0]
    numbers = _ranges([s.name.rpartition("#")[2] for s in run])
    line = f"{file}#{numbers} ({len(run)} responses): " + _summary(
        str(first.meta.get("source")),
        "",
        first.wire,
        first.mode,
        (how.get("wire"), how.get("protocol")),
        f"{events:,}",
        finished,
        tuple(offered) if isinstance(offered, list) else None,
    )
    notes = first.meta.get("notes")  # each response's, the same (``_alike``)
    return line + (" · " + "; ".join(notes) if notes else "")


def _ranges(numbers: Sequence[str], shown: int = 6) -> str:
    """``1–3, #5, #7–#9``: runs of consecutive numbers as ranges (the first ``shown``)."""
    spans: list[list[int]] = []
    for text in numbers:
        n = int(text) if text.isdigit() else -1
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    parts = [f"{a}" if a == b else f"{a}–#{b}" for a, b in spans[:shown]]
    return listing(parts, shown, sep=", #", total=len(spans))


__all__ = [
    "CaptureError",
    "CaptureSource",
    "RecordingError",
    "capture_sources",
    "detect_kind",
    "detect_protocol",
    "detect_wire",
    "detection_lines",
    "is_capture_arg",
    "read_capture_bytes",
    "split_pick",
    "to_recording",
]
