"""Raw HTTP/1.1 as a capture: ``curl -i`` or ``curl -i --raw`` saved to a file, Wireshark's
"Follow → HTTP/TCP Stream" saved as raw, ``nc`` or ``socat`` logs (issue 25's captures).

Why: a local model server (llama.cpp, vLLM, Ollama's OpenAI endpoint) speaks plain HTTP on
loopback, so the person debugging its stream often has the bytes as they crossed the
socket: a status line and headers, then a body sent in ``Transfer-Encoding: chunked``
pieces whose size lines fall inside the SSE lines. Read as a raw SSE body, the size lines
broke the JSON and nothing was told (``cannot tell which wire``).

What is read: each message in turn (a request, when the capture holds one, then its
response; a kept-alive connection holds several), its body by ``Content-Length``,
``chunked`` pieces (joined) or, for the last response, to the end; ``gzip`` and ``deflate``
bodies decoded (``br`` and ``zstd`` said, not read). A response that is an SSE stream is
one :class:`RawResponse`; its request's path and body (which tools were offered) go with
it. Headers are never kept: only ``Content-Type``, ``Content-Length``,
``Transfer-Encoding`` and ``Content-Encoding`` are read.

Untrusted input: every step is linear in the capture's size (already capped), a header
block is at most :data:`MAX_HEADERS` bytes, the decoded bodies all together at most the
capture cap (``BodyBudget.decoded``: past it the capture is refused), and the messages
counted; nothing of a header reaches a message.
"""

from __future__ import annotations

import re
from typing import Any

from frontier.app.record import record, replace
from frontier.app.secret_shapes import header_secrets, learnable, url_secrets
from frontier.app.session.capture_har import (
    ENCODING_FIX,
    MAX_PATH,
    BodyBudget,
    answer_events,
    body_events,
    endpoint_path,
    model_named,
    no_events_why,
    request_fields,
)
from frontier.app.session.capture_raw import HTTP_START as START
from frontier.app.session.capture_raw import RawResponse
from frontier.app.session.capture_sse import CaptureError

MAX_HEADERS = 64 << 10
"""Bytes a message's start line and headers may take (a server sends well under 1 KiB)."""
MAX_MESSAGES = 10_000
"""Messages read from one capture; the rest are left out, said."""

_NEXT_START = re.compile(rb"(?m)^(?:" + START.pattern + rb")")
"""A message's first line at the start of a line (a body may quote one inside a line)."""
_END_OF_HEADERS = re.compile(rb"\r?\n\r?\n")
_CHUNK_SIZE = re.compile(rb"[ \t]*([0-9A-Fa-f]{1,16})[ \t]*(?:;[^\r\n]*)?\r?\n")
_LINE_END = re.compile(rb"\r?\n")
_BLANK_TO_END = re.compile(rb"\s*\Z")
"""Only white space from here to the end (matched where it starts: the rest is not copied,
as ``data[at:].strip()`` copied it at every message, the square of the capture's size)."""
_STREAM = b"text/event-stream"
_READ = (b"content-type", b"content-length", b"transfer-encoding", b"content-encoding")


@record
class _Message:
    request: bool
    """A request (else a response)."""
    target: str
    """A request's target (its path); a response's status code."""
    headers: dict[bytes, bytes]
    """Only the headers in :data:`_READ`, names lowercased."""
    body: bytes
    tunnel: bool = False
    """A proxy's ``200 Connection established``: what ``curl -i`` prints before the
    server's own answer when it goes through a proxy; not one of the capture's responses."""
    credentials: tuple[str, ...] = ()
    """What its credential headers (and a request's target) carried: never kept, only
    learned so that what is made of the capture masks them (:func:`http_secrets`)."""


def http_secrets(data: bytes) -> list[str]:
    """The credentials the capture's own messages carried — a request's ``Authorization``,
    ``x-api-key`` and cookies, a response's ``Set-Cookie``, a request target's credentials
    (``secret_shapes.header_secrets``, as a HAR's) — so that a recording made of it masks
    them where the model's text repeats them. ``[]`` for a capture that does not read."""
    try:
        messages = _messages(data, len(data) - len(data.lstrip()), [])
    except CaptureError:
        return []
    return _messages_secrets(messages)


def _messages_secrets(messages: list[_Message]) -> list[str]:
    """Each credential once: a session's every request carries the same key and cookie."""
    found = (value for message in messages for value in message.credentials)
    return list(dict.fromkeys(value for value in found if learnable(value)))


def http_responses(
    data: bytes, pick: int | None = None, secrets: list[str] | None = None
) -> list[RawResponse]:
    """Each SSE response of the HTTP capture in ``data``, in order, numbered among the
    capture's responses; ``pick``: only that one. ``secrets``: the capture's credentials
    (:func:`http_secrets`) are appended, read from the same parse."""
    said_of_messages: list[str] = []
    messages = _messages(data, len(data) - len(data.lstrip()), said_of_messages)
    # each once: every response carries them, and ``curl -i`` says "chunked" of each of
    # its thousands (4,000 responses carried 4,000 notes each: 2.5 GB, 1.2 GB of stderr)
    notes = list(dict.fromkeys(said_of_messages))
    if secrets is not None:
        secrets += _messages_secrets(messages)
    budget = BodyBudget("capture")
    bodies = _bodies(messages, budget)
    out: list[RawResponse] = []
    request: int | None = None
    number = 0
    streams: list[int] = []
    for at, message in enumerate(messages):
        if message.request:
            request = at
            continue
        if _not_counted(message):
            continue
        number += 1
        asked, request = request, None
        body, unread, said = bodies[at]
        said = [*notes, *said]
        if _is_stream(message, body):
            streams.append(number)
            if pick is not None and number != pick:
                continue
            events, torn, skipped = body_events(body, said, budget)
            unread = unread or skipped
        else:  # a request made without ``stream``: its body may be a whole answer
            if not _may_be_answer(message, body):
                continue
            answer = answer_events(body, said, budget)
            if answer is None:
                continue
            streams.append(number)
            if pick is not None and number != pick:
                continue
            events, torn = answer, False
        fields = _request_of(bodies[asked] if asked is not None else None, said, budget)
        raw = RawResponse(
            kind="http",
            events=tuple(events),
            entry=number,
            endpoint=_endpoint(messages[asked] if asked is not None else None),
            request=fields,
            model=model_named(fields),
            torn=torn,
            notes=tuple(said),
            empty="" if events else no_events_why(body, message.target, unread, torn),
        )
        out.append(raw)
    if not out:
        raise CaptureError(_none_read(number, streams, pick))
    return [replace(r, entry=None) for r in out] if number == 1 else out


def _not_counted(message: _Message) -> bool:
    """A response that is no answer to a request: ``100 Continue`` (the real one follows)
    and a proxy's ``200 Connection established`` (``curl -i`` through a proxy prints it
    before the server's own)."""
    return message.target.startswith("1") or message.tunnel


def _bodies(messages: list[_Message], budget: BodyBudget) -> list[tuple[bytes, str, list[str]]]:
    """Every message's body as it was before its ``Content-Encoding``, why it was not read
    (``""``: it was) and the notes of decoding it, all decoded before any is read as SSE:
    the capture's compressed bodies share one budget (``BodyBudget.decoded``), and a
    capture past it is refused before the work of reading what fit (a gzip bomb's first
    64 MiB of newlines took seconds to read as events)."""
    out: list[tuple[bytes, str, list[str]]] = []
    number = 0
    for message in messages:
        counted = not message.request and not _not_counted(message)
        number += counted
        where = f"response #{number}" if counted else f"the request before response #{number + 1}"
        said: list[str] = []
        coding = message.headers.get(b"content-encoding", b"").decode("latin-1")
        body, unread = budget.decoded(message.body, coding, where, said, kept_decoded=False)
        if unread and not message.request:
            said.append(unread := f"{unread}: {ENCODING_FIX}")
        out.append((body, unread, said))
    return out


def _none_read(responses: int, streams: list[int], pick: int | None) -> str:
    """Why no response of the capture was read (``pick``: the one asked for)."""
    if pick is None or not streams:
        return (
            f"an HTTP capture of {responses} response(s), none of them an event stream "
            "(text/event-stream) or a model's whole JSON answer: nothing to read"
        )
    shown = ", ".join(f"#{n}" for n in streams[:20])
    if pick > responses:
        return f"it holds {responses} response(s); #{pick} does not exist (the model's: {shown})"
    return (
        f"response #{pick} is not an event stream or a whole answer; the model's responses "
        f"are {shown}"
    )


def _messages(data: bytes, at: int, notes: list[str]) -> list[_Message]:
    """The messages of ``data`` from ``at``, in order, each body whole."""
    out: list[_Message] = []
    while at < len(data) and len(out) < MAX_MESSAGES:
        start = START.match(data, at)
        if start is None:
            if data[at:].strip():
                notes.append(f"{len(data) - at:,} bytes after the last message were not read")
            break
        end = _END_OF_HEADERS.search(data, start.start(), start.start() + MAX_HEADERS)
        if end is None:
            raise CaptureError(
                f"an HTTP message's headers do not end within {MAX_HEADERS >> 10} KiB "
                f"(at byte {start.start():,})"
            )
        first = start.group().split()
        request = not first[0].startswith(b"HTTP/")
        block = data[start.end() : end.start()]
        headers = _headers(block)
        body, at = _body(data, end.end(), headers, request, notes)
        target = first[1].decode("latin-1")
        credentials = _credentials(block, request, target)
        tunnel = not request and b" ".join(first[2:]).lower() == b"connection established"
        out.append(_Message(request, target, headers, body, tunnel, credentials))
    if len(out) >= MAX_MESSAGES and at < len(data):
        notes.append(f"only the first {MAX_MESSAGES:,} messages of the capture were read")
    return out


def _headers(block: bytes) -> dict[bytes, bytes]:
    """The headers of :data:`_READ` in ``block``; no other is looked at or kept."""
    found: dict[bytes, bytes] = {}
    for line in _LINE_END.split(block):
        name, colon, value = line.partition(b":")
        key = name.strip().lower()
        if colon and key in _READ:
            found[key] = value.strip().lower()
    return found


def _credentials(block: bytes, request: bool, target: str) -> tuple[str, ...]:
    """What one message's headers (a response's: only ``Set-Cookie``) and a request's
    target carry of credentials."""
    found = url_secrets(target) if request else []
    for line in _LINE_END.split(block):
        name, colon, value = line.decode("latin-1").partition(":")
        if colon and (request or name.strip().lower() == "set-cookie"):
            found += header_secrets(name.strip(), value.strip())
    return tuple(found)


def _body(
    data: bytes, at: int, headers: dict[bytes, bytes], request: bool, notes: list[str]
) -> tuple[bytes, int]:
    """The message body starting at ``at``, and where the next message starts."""
    if b"chunked" in headers.get(b"transfer-encoding", b""):
        if _CHUNK_SIZE.match(data, at) is not None or _BLANK_TO_END.match(data, at):
            return _unchunked(data, at, notes)
        # ``curl -i`` without ``--raw`` joins the chunks yet keeps the header: no size
        # line leads the body, which is read as it is (it was read as empty: nothing to
        # check in the commonest way a stream is saved with its headers)
        notes.append("the body says it is chunked but holds no chunk sizes (curl -i joins them)")
        return _to_next_message(data, at)
    length = headers.get(b"content-length", b"")
    if length.isdigit():
        size = int(length)
        if at + size > len(data):
            notes.append("the capture ends inside a body (fewer bytes than Content-Length)")
        return data[at : at + size], min(at + size, len(data))
    if request:
        return b"", at  # a request without a length has no body
    return _to_next_message(data, at)


def _to_next_message(data: bytes, at: int) -> tuple[bytes, int]:
    """A response without a length runs to the connection's end, unless another message
    follows (a capture of several exchanges whose server left the length out)."""
    following = _NEXT_START.search(data, at)
    end = following.start() if following is not None else len(data)
    return data[at:end], end


def _unchunked(data: bytes, at: int, notes: list[str]) -> tuple[bytes, int]:
    """A ``chunked`` body joined, and where the next message starts."""
    pieces: list[bytes] = []
    while True:
        size_line = _CHUNK_SIZE.match(data, at)
        if size_line is None:
            if at < len(data):
                notes.append(f"a chunk size line was expected at byte {at:,}; the body ends there")
            else:
                notes.append("the capture ends inside a chunked body")
            return b"".join(pieces), len(data)
        size = int(size_line.group(1), 16)
        at = size_line.end()
        if size == 0:  # the last chunk: then trailer lines, if any, and a blank line
            blank = _LINE_END.match(data, at)
            trailers = blank or _END_OF_HEADERS.search(data, at, at + MAX_HEADERS)
            return b"".join(pieces), trailers.end() if trailers is not None else len(data)
        if at + size > len(data):
            notes.append("the capture ends inside a chunk")
            pieces.append(data[at:])
            return b"".join(pieces), len(data)
        pieces.append(data[at : at + size])
        at += size
        ended = _LINE_END.match(data, at)
        at = ended.end() if ended is not None else at


def _may_be_answer(message: _Message, body: bytes) -> bool:
    """A response whose (decoded) body may be a whole JSON answer (a 2xx, JSON or untyped)."""
    if not message.target.startswith("2"):
        return False
    kind = message.headers.get(b"content-type")
    return b"json" in kind if kind is not None else body.lstrip().startswith(b"{")


def _is_stream(message: _Message, body: bytes) -> bool:
    """An event stream, by its ``Content-Type``, else by how its (decoded) body starts."""
    kind = message.headers.get(b"content-type")
    if kind is not None:
        return _STREAM in kind
    return body.lstrip().startswith((b"data:", b"event:", b":"))


def _request_of(
    asked: tuple[bytes, str, list[str]] | None, notes: list[str], budget: BodyBudget
) -> dict[str, Any] | None:
    """What is kept of the request's (decoded) body (``capture_har.request_fields``)."""
    if asked is None:
        return None
    body, unread, said = asked
    notes += said
    if unread:
        notes.append(f"the request was not read: {unread}")
    if not body:
        return None
    return request_fields(body.decode("utf-8", "replace"), notes, budget)


def _endpoint(asked: _Message | None) -> str | None:
    if asked is None or len(asked.target) > MAX_PATH:
        return None
    path = asked.target.split("?", 1)[0]
    if "://" in path:  # a request to a proxy names the whole URL
        path = "/" + path.split("://", 1)[1].partition("/")[2]
    return endpoint_path(path)
