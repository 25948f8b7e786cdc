"""Model responses and their raw stream: recorded for replay and ``frontier check``.

Stream events arrive per token, and an fsync per token would cost ~65–75× more
than the rest of the path (docs/benchmarks/session.md), so they are *buffered*
here and written inside the next transaction of any kind: :class:`Responses` is a
:class:`~frontier.app.session.db.Rider` of the database. A persisted call therefore
always lands together with the stream bytes that proved it (the call ledger calls
:meth:`Responses.release_held` first), and :meth:`Responses.end_response` flushes the
rest. :data:`STREAM_FLUSH_EVENTS` buffered events also flush on their own. A crash
can lose only stream events after the last commit — never a call, a result or text;
a failed transaction leaves the buffer intact.

Secrets are masked in place before buffering, across events, by one
:class:`~frontier.app.secrets.SSEScrubber` per open response, following the strings the
response's wire carries the model's text in (``responses.wire``, NULL = ``openai-chat``;
same-length masks, so every stored offset stays valid); before a call row is committed
every held event is released with its undecided tail masked in advance
(docs/decisions-session.md, "Durability kept").
"""

from __future__ import annotations

import time
from collections.abc import Callable

from frontier.app.model import registry
from frontier.app.record import field, record
from frontier.app.session.db import Database
from frontier.app.session.sqlite import sqlite3
from frontier.app.session.times import iso_time
from frontier.app.vocab import DEFAULT_WIRE

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any

    from frontier.app.secrets import SSEScrubber
    from frontier.app.session.record import Recording

STREAM_FLUSH_EVENTS = 4096
"""Buffered stream events are also flushed on their own once this many pile up."""
WAL_CAP_BYTES = 64 << 20
"""A WAL this large is checkpointed at the next stream flush even mid-response."""


@record
class RecordedResponse:
    """One model response's raw stream, enough to rebuild a recording file."""

    id: int
    session_id: str
    mode: str
    model: str
    request_index: int
    created: float
    finish_reason: str | None
    """``None`` when the process died before the response ended."""
    events: tuple[tuple[float, str], ...] = field(default=())
    """``(seconds since the request, SSE data string)`` in arrival order."""
    wire: str = DEFAULT_WIRE
    """The API the response was spoken on (a NULL column: ``openai-chat``)."""

    @property
    def name(self) -> str:
        """How ``check``/``replay`` name it: ``<session>#<request index>``."""
        return f"{self.session_id}#{self.request_index}"

    def to_recording(self, **meta: Any) -> Recording:
        """The same response as a ``session.record.Recording`` (a process that died
        mid-response reads back as ``disconnect``, as an unterminated file does);
        ``meta`` adds header fields."""
        from frontier.app.session.record import Recording

        return Recording(
            mode=self.mode,
            model=self.model,
            created=iso_time(self.created),
            events=self.events,
            finish_reason=self.finish_reason or "disconnect",
            meta={"session": self.session_id, "request_index": self.request_index, **meta},
            wire=self.wire,
        )


class Responses:
    """The ``responses`` and ``stream_events`` tables, and the events not yet written."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._sse: dict[int, SSEScrubber] = {}
        """Per open response: masks secrets across its stream events before buffering."""
        self._buf: dict[int, list[tuple[float, str]]] = {}
        self._written: dict[int, int] = {}
        self._latest: dict[str, int] = {}
        """Per session, the response most recently begun: the one whose calls run now."""
        db.riders.append(self)

    def begin_response(
        self,
        session_id: str,
        mode: str,
        model: str,
        request_index: int,
        *,
        wire: str | None = None,
    ) -> int:
        """Start recording one model response spoken on ``wire`` (``None``: ``openai-chat``,
        stored as NULL); returns its id. An unknown wire is a ``ValueError``."""
        from frontier.app.secrets import SSEScrubber  # a writer's: readers never scrub

        fields = registry.codec(wire).streamed_text
        now = time.time()

        def insert(c: sqlite3.Connection) -> int:
            cur = c.execute(
                "INSERT INTO responses (session_id, t, mode, model, request_index, wire)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, now, mode, self.db.scrub(model), request_index, wire),
            )
            return int(cur.lastrowid or 0)

        rid = self.db.write("response", insert)
        with self.db.lock:
            self._sse[rid] = SSEScrubber(self.db.scrubber, fields=fields)
            self._buf[rid] = []
            self._written[rid] = 0
            self._latest[session_id] = rid
        return rid

    def add_stream_event(self, response_id: int, t: float, data: str) -> None:
        """Buffer one SSE ``data`` string with its arrival time (seconds since the request).

        Secrets are masked in place first, across events: an event that ends in what
        may be the start of a secret is buffered once the next event decides it (at
        the latest at :meth:`end_response`), so no commit writes a secret in pieces.
        """
        with self.db.lock:
            buf = self._buf.get(response_id)
            sse = self._sse.get(response_id)
            if buf is None or sse is None:
                raise ValueError(
                    f"response {response_id} is not open in this store: call begin_response "
                    "first (and not after end_response)"
                )
            buf.extend(sse.feed(float(t), data))
            if len(buf) >= STREAM_FLUSH_EVENTS:
                self.db.write("stream", lambda c: None)
                if self.db.wal_bytes() > WAL_CAP_BYTES:
                    self.db.checkpoint()

    def end_response(self, response_id: int, finish_reason: str) -> None:
        """Flush the response's stream and record how it ended."""
        now = time.time()
        with self.db.lock:
            sse = self._sse.pop(response_id, None)
            if sse is not None:
                self._buf.setdefault(response_id, []).extend(sse.flush())
                self._written.setdefault(response_id, 0)
        self.db.write(
            "response_end",
            lambda c: c.execute(
                "UPDATE responses SET finish_reason = ?, ended = ? WHERE id = ?",
                (finish_reason, now, response_id),
            ),
        )
        with self.db.lock:
            self._buf.pop(response_id, None)
            self._written.pop(response_id, None)

    def latest(self, session_id: str) -> int | None:
        """The response that confirmed the calls being recorded (the latest one begun)."""
        with self.db.lock:
            return self._latest.get(session_id)

    def release_held(self) -> None:
        """Every held stream event goes into the next commit, even one whose end may
        start a secret (masked in advance): the bytes that prove a call are durable
        before the call runs (DESIGN §7)."""
        with self.db.lock:
            for rid, sse in self._sse.items():
                self._buf.setdefault(rid, []).extend(sse.release_all())

    def release_all(self) -> bool:
        """At close: every open response's events, held ones decided as the stream's end
        decides them; whether any are waiting to be written."""
        with self.db.lock:
            for rid, sse in self._sse.items():
                self._buf.setdefault(rid, []).extend(sse.flush())
            self._sse.clear()
            return any(self._buf.values())

    def pending(self, response_id: int) -> tuple[tuple[float, str], ...]:
        """Events of the response buffered in this process, not yet written."""
        with self.db.lock:
            return tuple(self._buf.get(response_id, ()))

    def write_pending(self, c: sqlite3.Connection) -> Callable[[], None] | None:
        """Rider: insert every buffered event; once committed, forget them."""
        flushed: dict[int, int] = {}
        for rid, buf in self._buf.items():
            if not buf:
                continue
            start = self._written[rid]
            c.executemany(
                "INSERT INTO stream_events (response_id, seq, t, data) VALUES (?, ?, ?, ?)",
                ((rid, start + i, t, d) for i, (t, d) in enumerate(buf)),
            )
            flushed[rid] = len(buf)
        if not flushed:
            return None

        def committed() -> None:
            for rid, n in flushed.items():
                self._written[rid] += n
                del self._buf[rid][:n]

        return committed

    def recordings(self, session_id: str) -> list[RecordedResponse]:
        """Every response of the session with its raw stream, oldest first."""
        wire_column = "wire" if self.db.has_column("responses", "wire") else "NULL"
        rows = self.db.read(
            f"SELECT id, session_id, mode, model, request_index, t, finish_reason, {wire_column}"
            " FROM responses WHERE session_id = ? ORDER BY id",
            (session_id,),
        )
        out: list[RecordedResponse] = []
        for rid, sid, mode, model, index, t, finish, wire in rows:
            events = self.db.read(
                "SELECT t, data FROM stream_events WHERE response_id = ? ORDER BY seq", (rid,)
            )
            out.append(
                RecordedResponse(
                    id=rid,
                    session_id=sid,
                    mode=mode,
                    model=model,
                    request_index=index,
                    created=t,
                    finish_reason=finish,
                    events=tuple((float(a), b) for a, b in events) + self.pending(rid),
                    wire=wire or DEFAULT_WIRE,
                )
            )
        return out

    def next_request_index(self, session_id: str) -> int:
        """The request index the session's next response gets (resume continues the
        numbering, so ``SESSION#N`` names one response)."""
        rows = self.db.read(
            "SELECT COALESCE(MAX(request_index) + 1, 0) FROM responses WHERE session_id = ?",
            (session_id,),
        )
        return int(rows[0][0])
