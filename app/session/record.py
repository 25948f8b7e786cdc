"""Recordings: one model response as JSON lines (see ``docs/recording-format.md``).

```
{"format": "frontier-recording", "version": 1, "mode": "ctl-heredoc", "model": "m", "created": "…"}
{"t": 0.012, "data": "{\\"choices\\": [{\\"delta\\": {\\"content\\": \\"I'll\\"}}]}"}
…
{"t": 1.5, "end": true, "finish_reason": "stop", "usage": {…}}
```

A recording keeps the SSE ``data`` strings exactly as they arrived, with
their arrival times, so any transducer can be re-run over it: the text modes
read the assistant text of each event as the recording's wire decodes it (header
``"wire"``, absent = ``openai-chat``: ``choices[0].delta.content``), the native
modes the SSE body rebuilt from the data strings. A recording without an end line
(the writer crashed or the connection dropped) reads as ``finish_reason
"disconnect"``.

The API key is never part of a recording: the writer masks every known secret in
place across events (``app/secrets.SSEScrubber``: same-length ``*``, so offsets
and byte counts stay valid), and :func:`scrub_recording` does the same to a
recording read from elsewhere before it is replayed.
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from frontier.app import fastjson
from frontier.app.model import registry
from frontier.app.record import field, record, replace
from frontier.app.vocab import DEFAULT_MODE, DEFAULT_WIRE, NATIVE_MODES, WIRES, is_clean
from frontier.app.wire import safejson
from frontier.app.wire.continuation import Join, text_pieces
from frontier.app.wire.sse import encode_sse

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import IO, Any

    from frontier.app.secrets import Scrubber, SSEScrubber

FORMAT = "frontier-recording"
VERSION = 1


class RecordingError(ValueError):
    """A recording file is unreadable; the message names the file and line."""


MAX_EVENTS = 1_000_000
"""Events a capture or a recording may hold (a HAR: all its responses together). A real
stream's events are 100-300 bytes, an envelope around a token, so 64 MiB holds ~300,000;
64 MiB of ``data: 1`` events would be 7 million, which took 39 s and 2.5 GB to be read."""


@record
class Recording:
    mode: str
    model: str
    created: str
    events: tuple[tuple[float, str], ...]
    """(seconds since the request, SSE ``data`` string), in arrival order."""
    finish_reason: str = "disconnect"
    usage: dict[str, Any] = field(default_factory=dict)
    end_t: float | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    """Other header fields, kept as written."""
    wire: str = DEFAULT_WIRE
    """The API the response was spoken on (header ``"wire"``; absent = ``openai-chat``):
    whose decoder reads its events' text, whose ``streamed_text`` the scrubber follows."""

    @property
    def clean(self) -> bool:
        """True when the stream ended normally (``stop`` / ``tool_calls``): EOF rules apply."""
        return is_clean(self.finish_reason)

    def pieces(self, protocol: str | None = None) -> list[tuple[float, bytes]]:
        """The transducer input for ``protocol`` (default: the recorded mode), one piece per
        SSE event with its arrival time — what replay feeds, at what time.

        Native protocols read the SSE body rebuilt from the data strings; text protocols
        the assistant text of each event as the wire's decoder reads it, with the echo of
        a continuation dropped (:func:`~frontier.app.wire.continuation.text_pieces`)."""
        if (protocol or self.mode) in NATIVE_MODES:
            return self._sse_pieces()
        return text_pieces(self.events, text_reader(self.wire))[0]

    def joins(self) -> list[Join]:
        """Where a continued response was joined (text modes; docs/recording-format.md,
        "Continued responses"): the continuation's echo is already out of ``pieces``."""
        return text_pieces(self.events, text_reader(self.wire))[1]

    def decoded(self, protocol: str | None = None) -> tuple[list[tuple[float, bytes]], list[Join]]:
        """:meth:`pieces` and :meth:`joins` together, the events decoded once for a text
        mode (``frontier check`` wants both)."""
        if (protocol or self.mode) in NATIVE_MODES:
            return self._sse_pieces(), self.joins()
        return text_pieces(self.events, text_reader(self.wire))

    def _sse_pieces(self) -> list[tuple[float, bytes]]:
        return [(t, sse_event(data)) for t, data in self.events]

    def transducer_input(self, protocol: str | None = None) -> bytes:
        """All input bytes for ``protocol``: assistant text, or the SSE body for native modes."""
        return b"".join(p for _, p in self.pieces(protocol))


def sse_event(data: str) -> bytes:
    """One SSE event carrying ``data`` (multi-line data becomes several ``data:`` lines)."""
    return encode_sse([data])


def text_reader(wire: str | None = None) -> Callable[[str], str]:
    """``data -> assistant text`` for one response spoken on ``wire`` (default
    ``openai-chat``): a fresh decoder of that wire, fed each data string in order as an
    unnamed (``message``) event, as a text protocol's transducer is fed live."""
    from frontier.app.model.stream import text_of

    decoder = registry.codec(wire).decoder()
    return lambda data: text_of(decoder.feed("message", data))


def stream_scrubber(scrubber: Scrubber, wire: str | None = None) -> SSEScrubber:
    """The :class:`SSEScrubber` of one response spoken on ``wire`` (default
    ``openai-chat``): it follows the strings that wire's events carry the model's text in."""
    from frontier.app.secrets import SSEScrubber  # writing and replay only: not `check`

    return SSEScrubber(scrubber, fields=registry.codec(wire).streamed_text)


class RecordingWriter:
    """Appends one response to a recording file as it streams (each line flushed).

    ``event(data)`` stamps the arrival time relative to the writer's creation
    (or takes ``t``); ``end(finish_reason)`` writes the end line and closes.
    Usable as a context manager: leaving without ``end`` writes nothing more, so
    the file reads back as a ``disconnect``.

    ``secrets`` (default: the API-key environment variables) are masked in place
    across events; an event that may begin a secret is written once the next one
    decides it, at the latest by ``end``/``close``.

    ``wire``: the API the response is spoken on, written in the header (``None``
    writes none: the reader takes ``openai-chat``, as for every recording made before
    wires were named); it says where the model's text sits for the scrubber.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        mode: str,
        model: str,
        created: str | None = None,
        clock: Any = time.monotonic,
        secrets: Scrubber | None = None,
        *,
        wire: str | None = None,
        into: IO[str] | None = None,
        **meta: Any,
    ) -> None:
        from datetime import UTC, datetime

        from frontier.app.secrets import Scrubber

        self.path = Path(path)
        scrubber = secrets if secrets is not None else Scrubber.from_env()
        self._sse = stream_scrubber(scrubber, wire)  # an unknown wire fails before the file
        self._clock = clock
        self._t0 = clock()
        self._owns = into is None
        """``into``: lines go to that stream (left open) instead of a file at ``path``."""
        self._file: IO[str] | None = (
            open(self.path, "w", encoding="utf-8") if into is None else into  # noqa: SIM115
        )
        header = {
            "format": FORMAT,
            "version": VERSION,
            "mode": mode,
            "model": model,
            "created": created or datetime.now(UTC).isoformat(timespec="seconds"),
            **({"wire": wire} if wire is not None else {}),
            **meta,
        }
        self._write(header)

    def elapsed(self) -> float:
        return self._clock() - self._t0

    def event(self, data: str, t: float | None = None) -> None:
        stamp = round(self.elapsed() if t is None else t, 6)
        for at, masked in self._sse.feed(stamp, data):
            self._write({"t": at, "data": masked})

    def end(
        self, finish_reason: str, usage: dict[str, Any] | None = None, t: float | None = None
    ) -> None:
        line: dict[str, Any] = {
            "t": round(self.elapsed() if t is None else t, 6),
            "end": True,
            "finish_reason": finish_reason,
        }
        if usage:
            line["usage"] = usage
        self._flush_events()
        self._write(line)
        self.close()

    def close(self) -> None:
        if self._file is not None:
            self._flush_events()
            if self._owns:
                self._file.close()
            self._file = None

    def _flush_events(self) -> None:
        for at, masked in self._sse.flush():
            self._write({"t": at, "data": masked})

    def _write(self, obj: dict[str, Any]) -> None:
        if self._file is None:
            raise RecordingError(f"{self.path}: the recording is already closed")
        self._file.write(fastjson.dumps(obj, ensure_ascii=False) + "\n")
        self._file.flush()

    def __enter__(self) -> RecordingWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def parse_recording(lines: Iterable[str], source: str = "<recording>") -> Recording:
    header: dict[str, Any] | None = None
    events: list[tuple[float, str]] = []
    end: dict[str, Any] | None = None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = safejson.loads(line, max_depth=safejson.ENVELOPE_DEPTH)
        except ValueError as exc:
            if end is None and number > 1 and not line.endswith("\n"):
                break  # a torn last line from a crash: the stream ends before it
            raise RecordingError(f"{source}:{number}: not JSON ({exc})") from exc
        if not isinstance(obj, dict):
            raise RecordingError(f"{source}:{number}: expected a JSON object")
        if header is None:
            if obj.get("format") != FORMAT:
                raise RecordingError(
                    f"{source}:{number}: not a frontier recording (first line must have "
                    f'"format": "{FORMAT}")'
                )
            if obj.get("version") != VERSION:
                raise RecordingError(
                    f"{source}: recording version {obj.get('version')!r}, this frontier reads "
                    f"version {VERSION}"
                )
            header = obj
            continue
        if end is not None:
            raise RecordingError(f"{source}:{number}: content after the end line")
        if obj.get("end"):
            end = obj
            continue
        data, t = obj.get("data"), obj.get("t")
        if not isinstance(data, str) or not isinstance(t, int | float):
            raise RecordingError(f'{source}:{number}: an event needs "t" (seconds) and "data"')
        if len(events) == MAX_EVENTS:
            raise RecordingError(
                f"{source}:{number}: over {MAX_EVENTS:,} events, the cap for a recording; "
                "cut it to the part you want to check"
            )
        events.append((float(t), data))
    if header is None:
        raise RecordingError(f"{source}: empty file, not a recording")
    mode = header.get("mode")
    if not isinstance(mode, str):
        raise RecordingError(f'{source}: the header has no "mode"')
    wire = header.get("wire", DEFAULT_WIRE)
    if wire not in WIRES:
        raise RecordingError(
            f"{source}: the response was recorded on wire {wire!r}, which this frontier does "
            f"not read (it knows {', '.join(WIRES)})"
        )
    known = {"format", "version", "mode", "model", "created", "wire"}
    return Recording(
        mode=mode,
        model=str(header.get("model", "")),
        created=str(header.get("created", "")),
        events=tuple(events),
        finish_reason=str(end.get("finish_reason", "disconnect")) if end else "disconnect",
        usage=dict(end.get("usage") or {}) if end else {},
        end_t=float(end["t"]) if end and isinstance(end.get("t"), int | float) else None,
        meta={k: v for k, v in header.items() if k not in known},
        wire=str(wire),
    )


def read_recording(path: str | os.PathLike[str]) -> Recording:
    """Read a recording file; ``RecordingError`` says what is wrong and where."""
    p = Path(path)
    try:
        with open(p, encoding="utf-8") as f:
            return parse_recording(f, str(p))
    except UnicodeDecodeError as exc:
        raise RecordingError(f"{p}: not UTF-8 text at byte {exc.start}") from exc


def scrub_recording(rec: Recording, scrubber: Scrubber | None = None) -> Recording:
    """``rec`` with every known secret (default: the API-key environment variables')
    and every vendor's key (``ghp_…``: masked whatever the scrubber knows) masked in
    place: what replay plays, whoever wrote the file."""
    from frontier.app.secrets import Scrubber

    scrubber = scrubber if scrubber is not None else Scrubber.from_env()
    sse = stream_scrubber(scrubber, rec.wire)
    events = [e for t, data in rec.events for e in sse.feed(t, data)] + sse.flush()
    return replace(rec, events=tuple(events))


def write_recording(path: str | os.PathLike[str], rec: Recording) -> None:
    """Write a whole ``Recording`` (``frontier import -o``, synthesized or edited
    recordings); the header names its wire unless it is ``openai-chat`` (the reading of
    no name).

    Whole or not at all (``files.write_atomic``: a temp file beside it, fsynced, renamed
    over, the folder fsynced): the recording is built in memory first, so a crash, a full
    disk or a kill never leaves the old file truncated or a new one cut short."""
    from frontier.app.files import write_atomic

    reserved = {
        "path", "mode", "model", "created", "clock", "secrets", "format", "version", "wire",
        "into",
    }  # fmt: skip
    meta = {k: v for k, v in rec.meta.items() if k not in reserved}
    wire = None if rec.wire == DEFAULT_WIRE else rec.wire
    text = io.StringIO()
    with RecordingWriter(path, rec.mode, rec.model, rec.created, wire=wire, into=text, **meta) as w:
        for t, data in rec.events:
            w.event(data, t)
        if rec.finish_reason != "disconnect" or rec.end_t is not None:
            w.end(rec.finish_reason, rec.usage or None, rec.end_t)
    write_atomic(path, text.getvalue())


# ----------------------------------------------------------------- chat-wire helpers
# For examples, tests and benchmarks: recordings spoken on ``openai-chat`` (the wire of
# every recording made before wires were named), so their chunks are built here.


def content_chunk(text: str, finish_reason: str | None = None, model: str = "") -> str:
    """The data string of one ``chat.completion.chunk`` carrying assistant text (the
    ``openai-chat`` wire)."""
    delta = {"content": text} if text else {}
    return fastjson.dumps(
        {
            "object": "chat.completion.chunk",
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        },
        ensure_ascii=False,
    )


def synthesize(
    text: str,
    mode: str = DEFAULT_MODE,
    *,
    model: str = "synthetic",
    sizes: Sequence[int] = (7,),
    rate: float = 0.02,
    finish_reason: str = "stop",
) -> Recording:
    """A recording of a text-mode response streaming ``text`` in pieces (cycling ``sizes``
    characters, ``rate`` seconds apart) on the ``openai-chat`` wire — for examples, tests
    and benchmarks."""
    events: list[tuple[float, str]] = []
    i = k = 0
    while i < len(text):
        size = max(1, sizes[k % len(sizes)])
        events.append((round(k * rate, 6), content_chunk(text[i : i + size], model=model)))
        i += size
        k += 1
    t_end = round(k * rate, 6)
    if finish_reason != "disconnect":
        events.append((t_end, content_chunk("", finish_reason, model)))
        events.append((t_end, "[DONE]"))
    return Recording(
        mode=mode,
        model=model,
        created="2026-01-01T00:00:00+00:00",
        events=tuple(events),
        finish_reason=finish_reason,
        end_t=t_end if finish_reason != "disconnect" else None,
        wire="openai-chat",
    )
