"""A HAR file (HAR 1.2, as Chromium, Firefox, mitmproxy and Charles save it) as capture
responses (issue 25).

Every entry whose response is ``text/event-stream`` to a known endpoint path (one ending in
``/chat/completions``, ``/responses`` or ``/messages``, whatever the prefix) is one
:class:`RawResponse`. What is kept of an entry: the URL's *path*, the request body (it says
which tools and which protocol were offered) and the response body's SSE events. Headers,
cookies, the host and the query string are never kept: the only header read for a response
is ``Content-Type``, and only to decide whether the entry is a stream (a HAR's headers hold
``Authorization`` and ``x-api-key``, and its query strings ``?key=``). Those credentials are
read by :func:`har_secrets` alone, to be masked where the model's text repeats them.

A HAR is untrusted input: its size, its JSON nesting and its entry count are bounded, every
step is linear in its size, and a file that is not a HAR gives one :class:`HarError`
(``not a HAR file: ...``) whose text never quotes the file. See ``docs/captures-har.md``.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from frontier.app.listing import listing
from frontier.app.model import registry
from frontier.app.secret_shapes import REDACTED, header_secrets, learnable, url_secrets
from frontier.app.session.capture_jsonl import whole_answer
from frontier.app.session.capture_raw import (
    MAX_CAPTURE,
    MAX_HAR_BYTES,
    InflateError,
    RawEvent,
    RawResponse,
    inflate,
)
from frontier.app.session.capture_sse import MAX_EVENT, CaptureError, read_events
from frontier.app.session.record import MAX_EVENTS
from frontier.app.wire import safejson
from frontier.app.wire.sse import SSEDecoder

MAX_ENTRIES = 10_000
"""Entries read; the rest are left out (with a note on each response)."""
HAR_DEPTH = 200
"""JSON nesting a HAR may have: a HAR is ~6 levels deep, but Chromium's ``_initiator``
keeps async stacks as a chain of ``parent`` objects (two levels each). Far below the
~1,000 levels where ``json.loads`` would exhaust the stack."""
MAX_CONTAINERS = 4_000_000
"""Lists and objects a HAR may hold outside its strings: what parsing it builds is bounded by
this, not only by its size (128 MiB of ``{},`` would be 45 million dicts, ~5 GB). A browser
writes ~50-100 an entry (headers, cookies, timings, initiator stacks), so 10,000 entries
hold ~1 million; bodies are strings and do not count."""
MAX_REQUEST_CHARS = 16 << 20
"""A request body larger than this is not parsed (the stream is still read)."""
KEPT_REQUEST_KEYS = ("model", "stream", "tools")
"""What is kept of a request body once read: what detection and the notes use (the model,
the tools offered). The rest — a long session's whole conversation, in every request —
was kept parsed for every entry and never read: 200 requests of one session (32 MB) held
~100 MB of dicts and strings."""
MAX_PATH = 4096
"""A URL longer than this is no model endpoint; the entry is skipped."""
MAX_MODEL = 200
ENDPOINTS = tuple(f"/{adapter.path}" for adapter in registry.codecs())
"""The paths (suffixes) of the wires' endpoints (each adapter's ``path``); ``/v1``,
``/openai/v1``... may precede them."""
_STREAM = "text/event-stream"
_WBITS = {"gzip": 16 + 15, "x-gzip": 16 + 15, "deflate": 32 + 15}
"""``zlib``'s window bits for the encodings decoded: gzip's framing; ``deflate`` is zlib's
(told from its header by ``32 +``, which also takes a gzip body a server mislabelled)."""
ENCODING_FIX = "capture again with the request header Accept-Encoding: identity"
"""What to do about a response body Frontier could not decode."""
_UNSHOWN = re.compile(r"[^a-z0-9.,;= _-]")
"""What of an encoding's name is not shown (it is the capture's bytes: a terminal escape)."""


class HarError(CaptureError):
    """The file is not a HAR, is too large, or ``#N`` names no streamed entry (a
    :class:`CaptureError`, so every command reports it as it reports any capture's). The
    message never quotes the file (it could hold a key)."""


def har_responses(
    data: bytes, entry: int | None = None, secrets: list[str] | None = None
) -> list[RawResponse]:
    """Each model response of the HAR in ``data`` (streamed, or a whole JSON answer to a
    request made without ``stream``), in file order; ``entry`` (1-based, among all the
    HAR's entries): only that one. ``secrets``: the credentials of every entry
    (:func:`har_secrets`) are appended, read from the same parse.

    Raises :class:`HarError` when ``data`` is not a HAR, when no entry is a stream to a
    known endpoint, or when ``entry`` is not one of those that are.
    """
    entries = _entries(data)
    if secrets is not None:
        secrets += _entries_secrets(entries)
    notes: tuple[str, ...] = ()
    if len(entries) > MAX_ENTRIES:
        notes = (f"the HAR has {len(entries)} entries; only the first {MAX_ENTRIES} were read",)
        entries = entries[:MAX_ENTRIES]
    budget = BodyBudget()
    answers: dict[int, RawResponse] = {}
    found: dict[int, str] = {}  # entry → its endpoint, told once (its path's secrets masked)
    for i, e in enumerate(entries, 1):
        endpoint = _endpoint(e)
        if endpoint is None:
            continue
        if not _is_stream(e):  # JSON: read now, since only its body says if it is an answer
            answer = _response(e, i, endpoint, notes, budget)
            if answer is None:
                continue
            answers[i] = answer
        found[i] = endpoint
    if not found:
        raise HarError(
            f"no entry of this HAR ({len(entries)} read) is a model's response ({_STREAM}, "
            "or a whole JSON answer) to " + ", ".join(ENDPOINTS)
        )
    if entry is not None:
        if entry not in found:
            raise HarError(
                f"entry #{entry} is not a model's response; the HAR's are " + _numbers([*found])
            )
        found = {entry: found[entry]}
    out: list[RawResponse] = []
    for i, endpoint in found.items():
        raw = answers.get(i) or _response(entries[i - 1], i, endpoint, notes, budget)
        assert raw is not None  # a stream always makes one
        out.append(raw)
    return out


def har_secrets(data: bytes) -> list[str]:
    """The credentials the HAR's own requests carried, from every entry: the values of
    ``Authorization`` (and the token after its scheme), of ``Cookie`` (and a response's
    ``Set-Cookie``) and of any header whose last word names a secret (``x-api-key``,
    ``api-key``; not ``anthropic-ratelimit-tokens-reset``), and the request URLs'
    credentials. Never kept, never shown: learned so that a recording made of
    the capture masks them where the model's text repeats them (a model echoing its own
    Bearer token), as a session masks its own key. ``[]`` for a file that is not a HAR."""
    try:
        return _entries_secrets(_entries(data))
    except HarError:
        return []


def _entries_secrets(entries: list[Any]) -> list[str]:
    found: list[str] = []
    for entry in entries[:MAX_ENTRIES]:
        url = _get(entry, "request", "url")
        found += url_secrets(url) if isinstance(url, str) and len(url) <= MAX_PATH else []
        for side in ("request", "response"):
            headers = _get(entry, side, "headers")
            for header in headers if isinstance(headers, list) else ():
                name = _get(header, "name")
                if side == "request" or (isinstance(name, str) and name.lower() == "set-cookie"):
                    found += header_secrets(name, _get(header, "value"))
    return list(dict.fromkeys(value for value in found if learnable(value)))  # once each


class BodyBudget:
    """What the bodies of one capture's responses may still build once read: they are
    strings in a HAR, so its own bound does not count them (``capture_http`` uses it too,
    ``name`` saying which capture the notes speak of). The request bodies' lists and objects
    (each is parsed, then its :data:`KEPT_REQUEST_KEYS` kept with its response) share
    ``MAX_CONTAINERS``: the parses' work stays bounded as the HAR's own is; the responses'
    events share ``MAX_EVENTS``."""

    def __init__(self, name: str = "HAR") -> None:
        self.name = name
        self.containers = MAX_CONTAINERS
        self.events = MAX_EVENTS
        self.inflated = self.inflate_cap = MAX_CAPTURE
        """Bytes the capture's compressed bodies may still unpack to, all of them together
        (:meth:`decoded`): a cap per body let four 64 KB gzip bodies become 256 MiB of work."""
        self._estimated: list[tuple[str, int]] = []
        """Bodies charged their ``str.count`` of brackets (strings' included), and that."""

    def decoded(
        self, body: bytes, coding: str, where: str, notes: list[str], *, kept_decoded: bool
    ) -> tuple[bytes, str]:
        """``body`` as it was before its ``Content-Encoding`` (gzip, deflate), and why it was
        not read when it was not (``""`` when it was): an encoding Frontier has no decoder
        for (``br``, ``zstd``: the standard library has none, and no dependency brings
        one), or bytes that do not decode. A gzip or deflate body that already reads as a
        stream or JSON (:func:`_plain`) was decoded by the tool that saved it (``curl
        --compressed`` prints the server's headers as they came), and is read as it is; so is
        any such body when ``kept_decoded`` (a HAR: browsers keep the decoded text beside
        the server's ``Content-Encoding``, ``br`` as often as not). What every body unpacks
        to is taken from :attr:`inflated`; past it the capture is refused (:class:`CaptureError`,
        naming the cap and ``where``), since a few KB of compressed zeros unpack to gigabytes
        and each byte is then read as SSE."""
        coding = coding.strip().lower()
        wbits = _WBITS.get(coding)
        if coding in ("", "identity") or not body:
            return body, ""
        if (wbits is not None or kept_decoded) and _plain(body):
            return body, ""
        if wbits is None:
            shown = _UNSHOWN.sub("?", coding)[:40]
            return b"", f"its body is {shown}-encoded, which Frontier does not decode"
        try:
            out, cut = inflate(body, wbits, self.inflated)
        except InflateError as exc:
            return b"", f"its body's {coding} encoding does not decode ({exc})"
        if len(out) > self.inflated:
            raise CaptureError(
                f"this {self.name}'s compressed bodies unpack to over {_size(self.inflate_cap)}, "
                f"the cap for a capture's bodies all together ({where} passed it): cut the "
                f"capture to the responses you want to check, or {ENCODING_FIX}"
            )
        self.inflated -= len(out)
        if cut:
            notes.append(f"{where}: its {coding} data is cut off; what of it decoded was read")
        return out, ""

    def take_containers(self, text: str) -> bool:
        """Whether ``text`` fits what is left (then it is taken from it), counting what it
        holds outside its strings: a request body repeats the conversation, whose code is
        full of brackets, and charging those would use up the budget of a long session's
        HAR. Exact counting is one regex step a bracket (~0.7 s of the 3.8 s a 117 MiB
        session HAR took to import), so a body is charged the C-level count of its
        brackets while that fits, an over-count; once one does not, every body so far is
        charged its exact count instead, and so is this one. A body is refused exactly
        when exact counts throughout would refuse it."""
        quick = text.count("[") + text.count("{")
        if quick <= self.containers:
            self.containers -= quick
            self._estimated.append((text, quick))
            return True
        for earlier, charged in self._estimated:
            self.containers += charged - safejson.containers(earlier, charged)[0]
        self._estimated.clear()
        n, over = safejson.containers(text, self.containers)
        if over >= 0:
            return False
        self.containers -= n
        return True


_READABLE = (b"data:", b"event:", b"id:", b"retry:", b":", b"{", b"[")
"""How a body Frontier reads starts (an SSE field, JSON): no gzip, zlib or zstd data does."""


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 and n % (1 << 20) == 0 else f"{n:,} bytes"


def _plain(body: bytes) -> bool:
    """Whether ``body`` already reads as an event stream or JSON though its header names an
    encoding: the tool that saved it decoded it (``curl --compressed`` prints the server's
    headers as sent, and a browser's HAR keeps the decoded text)."""
    return body[:256].lstrip().startswith(_READABLE)


def _numbers(entries: list[int]) -> str:
    return listing([f"#{i}" for i in entries[:20]], 20, total=len(entries))


def _entries(data: bytes) -> list[Any]:
    if len(data) > MAX_HAR_BYTES:
        raise HarError(
            f"not a HAR file: {len(data)} bytes; at most {MAX_HAR_BYTES >> 20} MiB are read"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise HarError(f"not a HAR file: not UTF-8 text (byte {exc.start})") from None
    try:
        doc = safejson.loads(
            text, max_depth=HAR_DEPTH, max_chars=MAX_HAR_BYTES, max_containers=MAX_CONTAINERS
        )
    except safejson.JsonLimitError as exc:
        if exc.kind == "containers":
            raise HarError(
                f"not a HAR file Frontier reads: over {MAX_CONTAINERS:,} lists and objects; "
                "save it again with only the model's requests (filter the network panel by "
                "the endpoint's path)"
            ) from None
        raise HarError(f"not a HAR file: {exc}") from None
    except json.JSONDecodeError as exc:
        # The message names a position, never the text there.
        raise HarError(f"not a HAR file: not JSON ({exc.msg} at line {exc.lineno})") from None
    log = doc.get("log") if isinstance(doc, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        raise HarError("not a HAR file: it has no log.entries list")
    return entries


def _get(obj: Any, *keys: str) -> Any:
    """``obj[k1][k2]...`` through dicts only, else ``None`` (a HAR's fields are all
    optional in practice)."""
    for key in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _endpoint(entry: Any) -> str | None:
    """The URL path of an entry to a known endpoint whose body is an event stream or JSON
    (a request made without ``stream``), else ``None``."""
    url = _get(entry, "request", "url")
    if not isinstance(url, str) or len(url) > MAX_PATH or _content_type(entry) is None:
        return None
    try:
        path = urlsplit(url).path
    except ValueError:
        return None
    return endpoint_path(path)


def endpoint_path(path: str) -> str | None:
    """``path`` when it is a model endpoint's (any prefix, then one of :data:`ENDPOINTS`),
    each credential in it masked: a gateway may take its key as a path segment
    (``/key/sk-proj-…/v1/chat/completions``), and the path is printed in the detection
    line and kept in the recording's header."""
    if not path.rstrip("/").endswith(ENDPOINTS):
        return None
    for secret in sorted(set(url_secrets(path)), key=len, reverse=True):  # longest first
        path = path.replace(secret, REDACTED)
    return path


def model_named(request: Mapping[str, Any] | None) -> str:
    """The model a request body names (cut to :data:`MAX_MODEL`), ``""`` when none."""
    model = request.get("model") if request else None
    return model[:MAX_MODEL] if isinstance(model, str) else ""


def _content_type(entry: Any) -> str | None:
    """``stream`` or ``json``, by ``response.content.mimeType``, else by the
    ``Content-Type`` header's value (no other header is looked at, and nothing of it is
    kept); ``None`` for any other body."""
    values = [_get(entry, "response", "content", "mimeType")]
    headers = _get(entry, "response", "headers")
    for header in headers if isinstance(headers, list) else ():
        name = _get(header, "name")
        if isinstance(name, str) and name.lower() == "content-type":
            values.append(_get(header, "value"))
    for value in values:
        if isinstance(value, str) and _STREAM in value.lower():
            return "stream"
    for value in values:
        if isinstance(value, str) and "json" in value.lower():
            return "json"
    return None


def _is_stream(entry: Any) -> bool:
    return _content_type(entry) == "stream"


def _response(
    entry: Mapping[str, Any],
    index: int,
    endpoint: str,
    notes: tuple[str, ...],
    budget: BodyBudget,
) -> RawResponse | None:
    """The entry's response (to ``endpoint``, its :func:`_endpoint`), ``None`` for a JSON
    body that is no model's answer (an error's, another API's)."""
    said = list(notes)
    body, unread = _body(entry, said, budget, f"entry #{index}")
    spread = _spread(entry)
    if _is_stream(entry):
        events, torn, skipped = body_events(body, said, budget, spread)
        unread = unread or skipped
    else:
        answer = answer_events(body, said, budget, spread)
        if answer is None:
            return None
        events, torn = answer, False
    request = _request(entry, said, budget)
    return RawResponse(
        kind="har",
        events=tuple(events),
        entry=index,
        endpoint=endpoint,
        request=request,
        model=model_named(request),
        torn=torn,
        notes=tuple(said),
        empty=no_events_why(body, _get(entry, "response", "status"), unread, torn)
        if not events
        else "",
    )


def _body(
    entry: Mapping[str, Any], notes: list[str], budget: BodyBudget, where: str
) -> tuple[bytes, str]:
    """The response body as the server meant it (base64 undone, then its
    ``Content-Encoding``), and why it was not read when it was not."""
    content = _get(entry, "response", "content")
    text = _get(content, "text")
    if not isinstance(text, str) or not text:
        why = "(Chromium may not keep an event stream's body; save the HAR after it ended)"
        notes.append(f"the HAR holds no body for this response {why}")
        return b"", f"the HAR holds no body {why}"
    encoding = _get(content, "encoding")
    if isinstance(encoding, str) and encoding.lower() == "base64":
        try:
            body = base64.b64decode(text, validate=False)
        except (binascii.Error, ValueError):
            notes.append("the response body's base64 does not decode; it was not read")
            return b"", "its body's base64 does not decode"
    else:
        body = text.encode("utf-8", "surrogatepass")
    size = _get(content, "size")
    if isinstance(size, int) and not isinstance(size, bool) and size > len(body):
        notes.append(
            f"the HAR holds {len(body)} of the body's {size} bytes (truncated by the tool "
            "that saved it)"
        )
    coding = _header(entry, "content-encoding") or ""
    body, unread = budget.decoded(body, coding, where, notes, kept_decoded=True)
    if unread:
        notes.append(unread := f"{unread}: {ENCODING_FIX}")
    return body, unread


def _header(entry: Any, name: str) -> str | None:
    """The value of the response's header ``name`` (the first; ``None`` if none)."""
    headers = _get(entry, "response", "headers")
    for header in headers if isinstance(headers, list) else ():
        said = _get(header, "name")
        value = _get(header, "value")
        if isinstance(said, str) and said.lower() == name and isinstance(value, str):
            return value
    return None


def no_events_why(body: bytes, status: object, unread: str, torn: bool) -> str:
    """Why a response holds no event, said instead of checking it (checking nothing
    passed: "ok … 0 events"): ``unread``, the reader's own reason (no body kept, an
    encoding not decoded), else what the body and the status say: empty, cut inside its
    one event, an API's error answer served as an event stream (a 429's JSON, with its
    message), a failed status."""
    if unread:
        return unread
    if not body.strip():
        return "its body is empty"
    if torn:
        return "its body ends inside its first event (no blank line after it): dropped"
    from frontier.app.session.capture import error_answer  # capture imports this module

    said = error_answer(body)
    code = str(status) if isinstance(status, int | str) and not isinstance(status, bool) else ""
    failed = f"the server answered {code[:3]}: " if code and not code.startswith("2") else ""
    if code == "0":  # what a browser's HAR says of a request cancelled or blocked
        failed = "no answer came (status 0: cancelled or blocked): "
    if said is not None:
        return f"{failed}its body is an API's error answer ({said})"
    return f"{failed}its body holds no SSE event (no data: line)"


def answer_events(
    body: bytes, notes: list[str], budget: BodyBudget, spread: Spread = None
) -> list[RawEvent] | None:
    """A whole (non-streamed) JSON answer's body as the events its stream would have
    carried (each wire's ``whole_stream``), ``None`` when it is not one; bounded as one
    event of a stream is (:data:`MAX_EVENT`, the envelope's depth, the budget's lists).
    ``spread``: their times (:func:`timed_events`)."""
    if not body.strip() or len(body) > MAX_EVENT:
        return None
    text = body.decode("utf-8", "replace")
    if not budget.take_containers(text):
        notes.append(f"the body was not read: this {budget.name} holds too many lists and objects")
        return None
    try:
        obj = safejson.loads(text, max_depth=safejson.ENVELOPE_DEPTH)
    except ValueError:
        return None
    whole = whole_answer(obj) if isinstance(obj, dict) else None
    if whole is None or len(whole) > budget.events:
        return None
    budget.events -= len(whole)
    notes.append("a whole (non-streamed) answer, read as the events its stream would have carried")
    return timed_events(whole, spread)


def body_events(
    body: bytes, notes: list[str], budget: BodyBudget, spread: Spread = None
) -> tuple[list[RawEvent], bool, str]:
    """The body's events, whether it ended inside one (that event is dropped), and why it
    was not read when it was not (``""``: it was); ``spread``: their times
    (:func:`timed_events`)."""
    decoder = SSEDecoder()
    pairs = read_events(decoder, body, budget.events)
    if pairs is None:
        unread = f"the body was not read: this {budget.name}'s responses hold over "
        notes.append(unread := unread + f"{MAX_EVENTS:,} events")
        return [], False, unread
    budget.events -= len(pairs)
    if decoder.too_long:
        notes.append("an event of the body is over the size limit; reading stopped there")
        torn = False
    else:
        # Ending the body with a blank line dispatches an event left open: it was torn.
        torn = bool(decoder.feed_events(b"\n\n"))
        if torn:
            notes.append("the body ends inside an event; that event was dropped")
    # The decoder names an unnamed event ``message``, as the spec does; Chat Completions
    # sends no names, so ``message`` is read as none.
    named = [(None if e == "message" else e, d) for e, d in pairs]
    return timed_events(named, spread), torn, ""


def _request(
    entry: Mapping[str, Any], notes: list[str], budget: BodyBudget
) -> dict[str, Any] | None:
    return request_fields(_get(entry, "request", "postData", "text"), notes, budget)


def request_fields(text: object, notes: list[str], budget: BodyBudget) -> dict[str, Any] | None:
    """What is kept of a request body (:data:`KEPT_REQUEST_KEYS`), ``None`` when there is
    none or it cannot be read (said in ``notes``)."""
    if not isinstance(text, str) or not text:
        return None
    if len(text) <= MAX_REQUEST_CHARS and not budget.take_containers(text):
        notes.append(
            f"the request body was not read: this {budget.name}'s request bodies hold over "
            f"{MAX_CONTAINERS:,} lists and objects"
        )
        return None
    try:
        obj = safejson.loads(text, max_depth=safejson.ENVELOPE_DEPTH, max_chars=MAX_REQUEST_CHARS)
    except safejson.JsonLimitError as exc:
        notes.append(f"the request body was not read: {exc}")
        return None
    except json.JSONDecodeError:
        notes.append("the request body is not JSON; it was not read")
        return None
    if not isinstance(obj, dict):
        notes.append("the request body is not a JSON object; it was not read")
        return None
    return {key: obj[key] for key in KEPT_REQUEST_KEYS if key in obj}


def _ms(value: Any) -> float | None:
    """A HAR time in ms as a number, ``None`` when absent or -1 ("does not apply")."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    value = float(value)
    return value if math.isfinite(value) and value >= 0 else None


Spread = tuple[float, float] | None
"""When a response's first byte came and how long its body took (ms), ``None`` when the
capture does not say (:func:`_spread`)."""


def _spread(entry: Mapping[str, Any]) -> Spread:
    """A HAR has no per-event times, only when the first byte came (``blocked + dns +
    connect + send + wait``) and how long the body took (``receive``); ``None`` without
    usable timings."""
    timings = _get(entry, "timings")
    wait = _ms(_get(timings, "wait"))
    receive = _ms(_get(timings, "receive"))
    if wait is None or receive is None:
        return None
    # ``ssl`` is part of ``connect`` (HAR 1.2), so it is not added again.
    start = sum(_ms(_get(timings, k)) or 0.0 for k in ("blocked", "dns", "connect", "send"))
    return start + wait, receive


def timed_events(pairs: Sequence[tuple[str | None, str]], spread: Spread) -> list[RawEvent]:
    """``(name, data)`` pairs as events, each made once, with ``t`` (seconds since the
    request was sent) spread evenly over ``receive``: the first at the first byte, the last
    at the end; ``t`` stays ``None`` without a ``spread``. (They were made, then made again
    with their times: 130,000 objects twice for a HAR of 10,000 short responses.)"""
    if spread is None:
        return [RawEvent(data=data, event=name) for name, data in pairs]
    first, receive = spread
    last = len(pairs) - 1
    return [
        RawEvent(
            data=data,
            event=name,
            t=round((first + (receive * i / last if last else 0.0)) / 1000, 6),
        )
        for i, (name, data) in enumerate(pairs)
    ]
