"""Secrets, and the one scrubber every sink uses (store, recordings, replay, export,
headless text and JSON, logs, error messages).

A *secret* is a known value — the resolved API key whatever its source, the values
of the key variables (``SECRET_ENV``: ``FRONTIER_API_KEY``, ``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``, ``OPENROUTER_API_KEY``), credentials carried by the base URL,
whatever else a session learns (an MCP server's tokens; values shorter than
``MIN_SECRET_LEN`` are ignored: they would scrub common words) — a vendor's key by its
shape, anywhere (``ghp_…``, ``AKIA…``, ``sk-ant-…``: ``secret_shapes.KEY_SHAPES``), or, in
whole strings, something *shaped* like a credential Frontier was never told about
(``Authorization: Bearer <token>``, ``api_key=<token>``).

One scrubber per session holds them, and every sink uses it: the store, the export, the
terminal and every request the model is sent (``ModelClient(secrets=…)``), so a value it
learns late — a server that starts after the client was made — is hidden everywhere.

The model's output and the workspace are untrusted, and a model that ran ``env``
echoes a key in whatever pieces its tokenizer makes. So there are three ways in:

* :meth:`Scrubber.scrub` — a whole string whose length nobody refers to (a stored
  message, a tool result, an error message, a printed line): known values and
  credential shapes become ``[REDACTED]``; :meth:`Scrubber.redact`, for a request
  body, known values and vendors' keys only.
* :class:`StreamScrubber` — text that arrives in pieces (a tool's live output):
  it holds back at most ``len(longest secret) - 1`` characters across a piece
  boundary, then a last word that may be a vendor's key, so a secret split over *any*
  chunking is replaced whole.
* :class:`SSEScrubber` — the raw SSE ``data`` strings of one response, which the
  store and recordings keep for replay and ``frontier check``. Every string the
  model wrote (text, reasoning, each tool call's arguments: where they sit in an
  event is the wire's knowledge, passed in as its ``streamed_text``) is followed
  across events like a :class:`StreamScrubber`, and a secret is masked *in place*
  by characters of the same length (``*``): every event keeps its length in the
  decoded text and in the SSE body, so every stored byte offset (calls, contract
  errors, the S1–S3 checks) and byte count stays valid. An event whose text might
  still be the start of a secret waits for the event that decides it.

Nothing here imports beyond the standard library (the store stays light), and nothing
here knows any model API's JSON.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping

try:  # json.decoder's scanstring is this C function; importing json costs ~2 ms (issue 24)
    from _json import scanstring
except ImportError:  # a Python without the accelerator
    from json.decoder import scanstring  # type: ignore[attr-defined,no-redef]

from frontier.app import fastjson
from frontier.app.percent import percent_encode
from frontier.app.record import field, fields, is_record, record, replace
from frontier.app.secret_shapes import (  # noqa: F401 (re-exported; their home is secret_shapes)
    CREDENTIAL_PARAMS,
    KEY_CONTEXT,
    KEY_LONGEST,
    KEY_PREFIXES,
    KEY_SEGMENT_LEN,
    REDACTED,
    SECRET_ENV,
    URL_USERINFO_MASK,
    key_spans,
    key_undecided,
    redact_url,
    url_secrets,
)

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any

MIN_SECRET_LEN = 8
LOOKED_FOR = 32
"""Forms of the values up to which each is looked for with ``in`` before any regex runs."""
MASK = "*"

_TOKEN = r"(?P<tok>(?=[A-Za-z0-9._~+/-]*[0-9])[A-Za-z0-9._~+/-]{8,}=*)"
"""A credential-looking token: RFC 6750 token characters, 8 or more, with a digit
(so ``Bearer instrument`` or ``api_key=settings.KEY`` in code is left alone)."""
_NAMES = (
    r"(?:api[_-]?key|apikey|key|access[_-]?token|token|secret|password|passwd|sig|signature|auth)"
)
_NAME = r"(?:[A-Za-z0-9.]*+[_-])*+" + _NAMES
"""A credential's name: any words before it joined by ``_`` or ``-``, and leading dashes
(``--api-key=…`` on a command line, ``my_app_api_key=…``): one word only missed both.
Possessive (``*+``): each word is taken once, never tried again (credential-dense text
was ~16 % slower to scrub with a plain ``*``)."""
_BEARER = r"(?i)(?P<pre>\bbearer\s+)" + _TOKEN
_AUTHORIZATION = r"(?i)(?P<pre>\bauthorization[\"']?\s*[:=]\s*[\"']?\s*(?:basic|token)\s+)" + _TOKEN
_ASSIGNED = r"(?P<pre>=)" + _TOKEN
_ASSIGNED_NAME = r"(?i)" + _NAME
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_BEFORE_NAME = frozenset("?&;\"'(,{ \t\n\r+")
_JSON_FIELD = r"(?i)(?P<pre>\"" + _NAME + r"\"\s*:\s*\")" + _TOKEN
_compiled: dict[str, re.Pattern[str]] = {}


def _re(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled on first use: a command that scrubs nothing (``frontier
    check``, ``undo --list``) does not pay the ~2 ms of compiling these at import."""
    compiled = _compiled.get(pattern)
    if compiled is None:
        compiled = _compiled[pattern] = re.compile(pattern)
    return compiled


def _scrub_shapes(text: str) -> str:
    """Credentials by their shape, for whole strings: a vendor's key wherever it is
    (:func:`_redact_keys`), and a token after what names it, the name kept (``Bearer
    <token>``, ``Authorization: Basic <token>``, ``api_key=<token>``, ``"api_key":
    "<token>"``). Each pattern runs only if its anchor occurs at all."""
    text = _redact_keys(text)
    low = text.lower()
    if "bearer" in low:
        text = _re(_BEARER).sub(_redact_token, text)
    if "authorization" in low:
        text = _re(_AUTHORIZATION).sub(_redact_token, text)
    if "=" in text:
        source = text
        text = _re(_ASSIGNED).sub(lambda m: _redact_assigned(m, source), source)
    if '":' in text or '" :' in text:
        text = _re(_JSON_FIELD).sub(_redact_token, text)
    return text


def _redact_keys(text: str) -> str:
    """Vendors' keys (``secret_shapes.KEY_SHAPES``: ``ghp_…``, ``AKIA…``, ``sk-ant-…``)
    → ``[REDACTED]`` wherever they are: no name says what a bare key printed by ``cat
    .env`` or quoted by a tool is."""
    spans = key_spans(text)
    return _replaced(text, spans) if spans else text


def _replaced(text: str, spans: Iterable[tuple[int, int]], mask: str | None = None) -> str:
    """``text`` with each span (in order, none overlapping) ``[REDACTED]``, or ``mask`` per
    UTF-8 byte."""
    out, at = [], 0
    for start, end in spans:
        out.append(text[at:start])
        out.append(REDACTED if mask is None else mask * len(text[start:end].encode("utf-8")))
        at = end
    out.append(text[at:])
    return "".join(out)


def _starred(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each span's characters ``*``, one for one: what the keys' search reads
    of a stream's text whose known values are masked (a key's word ends at a mask, as at
    ``[REDACTED]`` in a whole string), at the same offsets."""
    if not spans:
        return text
    out, at = [], 0
    for start, end in spans:
        out.append(text[at:start])
        out.append(MASK * (end - start))
        at = end
    out.append(text[at:])
    return "".join(out)


def _redact_assigned(m: re.Match[str], text: str) -> str:
    """``name=<token>`` only when the name is a credential's (``api_key``, ``x-token``…)."""
    end = start = m.start()
    while start > 0 and end - start < 48 and text[start - 1] in _NAME_CHARS:
        start -= 1
    if start > 0 and text[start - 1] not in _BEFORE_NAME:
        return m.group()
    return m["pre"] + REDACTED if _re(_ASSIGNED_NAME).fullmatch(text, start, end) else m.group()


class Scrubber:
    """Knows the secret values; scrubs or masks them out of text.

    Matching is exact and case-sensitive on each value as written, inside a JSON
    string (escaped) and percent-encoded.
    """

    def __init__(self, values: Iterable[str | None] = ()) -> None:
        self._values: set[str] = set()
        self._forms: set[str] = set()
        self._text_re: re.Pattern[str] | None = None
        self._any_re: re.Pattern[str] | None = None
        self._looked_for: tuple[str, ...] = ()
        """The forms, when few enough that ``in`` over each beats the regex at telling
        text that holds none (the common case): ~10× on a 64 KiB piece of output."""
        self._bytes_re: re.Pattern[bytes] | None = None
        self._short_starts: frozenset[str] = frozenset()
        """Every start of a value shorter than ``MIN_SECRET_LEN`` (each value is longer)."""
        self._by_head: dict[str, tuple[str, ...]] = {}
        """The values by their first ``MIN_SECRET_LEN`` characters: a longer start is told
        by the few values sharing its head. Every start of every value kept in a set was
        quadratic in a value's length: a 60 KB key was a ``MemoryError`` at start-up."""
        self._borders: dict[str, list[int]] = {}
        self.longest = 0
        self.longest_bytes = 0
        """UTF-8 bytes of the longest form (escaped, percent-encoded) of any value."""
        self.add(*values)

    @classmethod
    def from_env(cls, *values: str | None, environ: Mapping[str, str] | None = None) -> Scrubber:
        """The API-key environment variables' values plus ``values``."""
        made = cls(values)
        made.add_env(environ)
        return made

    def add_env(self, environ: Mapping[str, str] | None = None) -> None:
        """Learn the API-key environment variables' values (``SECRET_ENV``)."""
        env = os.environ if environ is None else environ
        self.add(*(env.get(name) for name in SECRET_ENV))

    def add(self, *values: str | None) -> None:
        """Learn more secret values (``None`` and values under 8 characters are skipped)."""
        new = {v.strip() for v in values if isinstance(v, str)} - self._values
        new = {v for v in new if len(v) >= MIN_SECRET_LEN}
        if not new:
            return
        self._values |= new
        for v in new:
            self._forms |= {
                v,
                fastjson.dumps(v, ensure_ascii=False)[1:-1],
                fastjson.dumps(v)[1:-1],
                percent_encode(v.encode("utf-8", "surrogateescape")),
            }
        self._text_re = _alternation(self._values)
        self._any_re = _alternation(self._forms)
        self._looked_for = tuple(self._forms) if len(self._forms) <= LOOKED_FOR else ()
        encoded = {f.encode("utf-8", "surrogateescape") for f in self._forms}
        self._bytes_re = re.compile(
            b"|".join(re.escape(f) for f in sorted(encoded, key=len, reverse=True))
        )
        self.longest_bytes = max(len(f) for f in encoded)
        self._short_starts = frozenset(
            v[:k] for v in self._values for k in range(1, MIN_SECRET_LEN)
        )
        heads: dict[str, list[str]] = {}
        for v in self._values:
            heads.setdefault(v[:MIN_SECRET_LEN], []).append(v)
        self._by_head = {head: tuple(vs) for head, vs in heads.items()}
        self.longest = max(len(v) for v in self._values)

    @property
    def values(self) -> frozenset[str]:
        return frozenset(self._values)

    def __bool__(self) -> bool:
        return bool(self._values)

    def __repr__(self) -> str:  # never the values themselves
        return f"Scrubber({len(self._values)} secret(s))"

    # ------------------------------------------------------------------ whole strings

    def scrub(self, text: str) -> str:
        """Known values and credential shapes → ``[REDACTED]`` (the length may change)."""
        if not text:
            return text
        return _scrub_shapes(self._redact_values(text))

    def redact(self, text: str) -> str:
        """Known values and vendors' keys → ``[REDACTED]``, and no other shape: for what is
        sent to the model, where a file's ``Authorization: Bearer <token>`` a test fixture
        holds must stay as written for the model to edit around it. A key shaped as a
        vendor's (``ghp_…``) is one wherever it is, and would reach the vendor's model
        (the store, the export and the terminal hide it: so does the request)."""
        if not text:
            return text
        return _redact_keys(self._redact_values(text))

    def _redact_values(self, text: str) -> str:
        """Known values → ``[REDACTED]``."""
        if self._any_re is None or not self._may_hold(text):
            return text
        return self._any_re.sub(REDACTED, text)

    def mask(self, text: str) -> str:
        """Known values → ``*`` per UTF-8 byte: byte lengths and offsets stay valid."""
        if not text or self._any_re is None or not self._may_hold(text):
            return text
        return self._any_re.sub(lambda m: MASK * len(m.group().encode("utf-8")), text)

    def _may_hold(self, text: str) -> bool:
        """False only when ``text`` holds no form of any value."""
        looked_for = self._looked_for
        return not looked_for or any(form in text for form in looked_for)

    def mask_bytes(self, data: bytes) -> bytes:
        """:meth:`mask` for bytes (undecodable bytes pass through unchanged)."""
        if not data or self._any_re is None:
            return data
        text = data.decode("utf-8", "surrogateescape")
        return self.mask(text).encode("utf-8", "surrogateescape")

    def mask_buffer(self, buf: bytearray, start: int = 0, *, ended: bool = True) -> bool:
        """Mask known values (every form) and vendors' keys in ``buf[start:]`` *in place*,
        ``*`` per byte; ``True`` if anything was masked. ``ended``: nothing follows ``buf``;
        else a key in its last word, which the next bytes may still lengthen, waits for
        them (masked early, a key split there kept its last characters in sight).

        For byte buffers that grow in chunks and whose offsets are shown (the TUI's Raw
        stream and Pending panes): the length never changes, so every offset, frontier
        and count stays true, and a value split across chunks is masked once its last
        byte arrives if the caller re-scans from ``len(buf) - len(new) - mask_reach``
        after each append (linear in what arrives).
        """
        start = max(0, start)
        if start >= len(buf):
            return False
        spans = (
            []
            if self._bytes_re is None
            else [m.span() for m in self._bytes_re.finditer(buf, start)]
        )
        # vendors' keys too (ASCII: latin-1 keeps each byte's offset), the bytes before
        # ``start`` read only to tell where a word begins
        floor = max(0, start - KEY_CONTEXT - 1)
        text = bytes(buf[floor:]).decode("latin-1")
        last = len(text) if ended else key_undecided(text, start - floor)  # may grow on
        spans += [(floor + s, floor + e) for s, e in key_spans(text, start - floor) if e <= last]
        for s, e in spans:
            buf[s:e] = MASK.encode() * (e - s)
        return bool(spans)

    @property
    def mask_reach(self) -> int:
        """Bytes before a new piece that :meth:`mask_buffer` must see again with it: a
        secret's, or a vendor's key's, start may be that far back."""
        return max(self.longest_bytes, KEY_LONGEST)

    def scrub_obj(self, obj: Any) -> Any:
        """``scrub`` every string inside JSON-like data, events and results.

        ``bytes`` are masked (same length): they come with offsets.
        """
        if isinstance(obj, str):
            return self.scrub(obj)
        if isinstance(obj, bytes):
            return self.mask_bytes(obj)
        if isinstance(obj, Mapping):
            return {k: self.scrub_obj(v) for k, v in obj.items()}
        if isinstance(obj, list) or type(obj) is tuple:
            return type(obj)(self.scrub_obj(v) for v in obj)
        if isinstance(obj, tuple):  # a named tuple (a session row): built from its fields
            return type(obj)(*(self.scrub_obj(v) for v in obj))
        if isinstance(obj, type):
            return obj
        if is_record(obj):
            return self._scrub_fields(obj, fields(obj), replace)
        stdlib = sys.modules.get("dataclasses")  # no dataclass exists unless it was imported
        if stdlib is not None and stdlib.is_dataclass(obj):
            return self._scrub_fields(obj, stdlib.fields(obj), stdlib.replace)
        return obj

    def _scrub_fields(self, obj: Any, fields_: Iterable[Any], replace_: Callable[..., Any]) -> Any:
        """``obj`` (a record or a dataclass) rebuilt with its fields scrubbed, or itself
        when nothing in it held a secret."""
        changes = {}
        for f in fields_:
            if f.init:
                value = getattr(obj, f.name)
                scrubbed = self.scrub_obj(value)
                if scrubbed != value:
                    changes[f.name] = scrubbed
        return replace_(obj, **changes) if changes else obj

    # ------------------------------------------------------------------ streams

    def _split(self, text: str) -> tuple[list[tuple[int, int]], int]:
        """Secrets wholly inside ``text`` that can be masked now, and where the
        undecided tail (what may still become a secret) begins."""
        if self._text_re is None:
            return [], len(text)
        found = not self._looked_for or any(value in text for value in self._values)
        spans = [m.span() for m in self._text_re.finditer(text)] if found else []
        keep = len(text)
        # A match that runs to the end may be the start of a longer secret: undecided.
        while spans and self._starts_one(text[spans[-1][0] :]):
            keep = spans.pop()[0]
        # After the last match, the longest suffix that may still become a secret.
        floor = spans[-1][1] if spans else 0
        limit = min(self.longest - 1, len(text) - floor)
        if limit >= MIN_SECRET_LEN:
            undecided = self._longest_start(text, limit)
            if undecided:
                return spans, min(keep, len(text) - undecided)
        for k in range(min(MIN_SECRET_LEN - 1, limit), 0, -1):  # a short end: looked up
            if text[-k:] in self._short_starts:
                return spans, min(keep, len(text) - k)
        return spans, keep

    def _stream_split(self, text: str, before: str = "") -> tuple[list[tuple[int, int]], int, str]:
        """:meth:`_split` with vendors' keys: the spans to mask now (known values and keys,
        in order), where the undecided tail begins (a value's start, or a last word that may
        be or become a key), and the context the tail is read with next (``before`` is this
        text's: its last :data:`KEY_CONTEXT` characters as the keys' search saw them, known
        values starred)."""
        spans, keep = self._split(text)
        view = before + _starred(text[:keep], spans)
        start = len(before)
        cut = key_undecided(view, start)
        keys = [(s - start, e - start) for s, e in key_spans(view, start) if e <= cut]
        cut -= start
        decided = [span for span in spans if span[1] <= cut]
        return sorted([*decided, *keys]), cut, view[: start + cut][-KEY_CONTEXT:]

    def _final_spans(self, text: str, before: str = "") -> list[tuple[int, int]]:
        """The spans of known values and keys in the last of a stream's text, in order."""
        text_re = self._text_re
        spans = [m.span() for m in text_re.finditer(text)] if text_re is not None else []
        view = before + _starred(text, spans)
        start = len(before)
        keys = [(s - start, e - start) for s, e in key_spans(view, start)]
        return sorted([*spans, *keys])

    def _longest_start(self, text: str, limit: int) -> int:
        """The length of the longest end of ``text``, from ``MIN_SECRET_LEN`` to ``limit``
        characters, that is the start of a longer known value (0: none). Such an end begins
        with a value's head: only where a head occurs (``str.find``) is it tried, earliest
        (longest) first."""
        size = len(text)
        start, best = size - limit, 0
        for head, values in self._by_head.items():
            at = text.find(head, start)
            tries = 0
            while at != -1 and size - at > best:
                tries += 1
                if tries > HEAD_TRIES:  # the head repeats: one pass over the rest instead
                    found = max(_longest_end(text, at, v, self._border(v)) for v in values)
                    best = max(best, found if found >= MIN_SECRET_LEN else 0)
                    break
                end = text[at:]
                for value in values:
                    if len(value) > size - at and value.startswith(end):
                        best = size - at
                        break
                else:
                    at = text.find(head, at + 1)
                    continue
                break
        return best

    def _border(self, value: str) -> list[int]:
        """``value``'s prefix function (KMP), made the first time a head repeats."""
        table = self._borders.get(value)
        if table is None:
            table = self._borders[value] = _borders(value)
        return table

    def _starts_one(self, text: str) -> bool:
        """``text`` is the start of a longer known value (not a whole one)."""
        if len(text) < MIN_SECRET_LEN:
            return text in self._short_starts
        for value in self._by_head.get(text[:MIN_SECRET_LEN], ()):
            if len(value) > len(text) and value.startswith(text):
                return True
        return False


HEAD_TRIES = 8
"""Places a value's head is tried at, one end each, before the rest of the window is read
in one pass (:func:`_longest_end`): text repeating a long secret's first characters made
each try a copy of the window's end (quadratic in a multi-KB secret's length)."""


def _borders(value: str) -> list[int]:
    """KMP's prefix function: ``out[i]``, the longest proper prefix of ``value[: i + 1]``
    that is also its suffix."""
    out = [0] * len(value)
    k = 0
    for i in range(1, len(value)):
        while k and value[i] != value[k]:
            k = out[k - 1]
        if value[i] == value[k]:
            k += 1
        out[i] = k
    return out


def _longest_end(text: str, at: int, value: str, border: list[int]) -> int:
    """The length of the longest end of ``text[at:]`` that is a proper prefix of ``value``
    (a whole ``value`` falls back to its border): one pass, linear."""
    k = 0
    whole = len(value)
    for i in range(at, len(text)):
        char = text[i]
        while k and value[k] != char:
            k = border[k - 1]
        if value[k] == char:
            k += 1
            if k == whole:
                k = border[k - 1]
    return k


def _alternation(values: Iterable[str]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(v) for v in sorted(values, key=len, reverse=True)))


def _redact_token(m: re.Match[str]) -> str:
    return m["pre"] + REDACTED


class StreamScrubber:
    """Scrub text that arrives in pieces: ``feed`` returns what is safe to show now, ``flush``
    the rest. Known values: at most ``len(longest secret) - 1`` characters are held back
    (``_held``). Vendors' keys (``KEY_SHAPES``), then, in what that lets through: a last
    word that is or may become one is held until it ends (:class:`_KeyStream`, at most
    ``KEY_LONGEST`` characters), so a key in any chunking is masked whole, as in one piece.

    ``same_length`` masks with ``*`` (offsets stay valid); otherwise ``[REDACTED]``.
    Other credential *shapes* (``Bearer <token>``) are applied by the caller to whole lines
    if wanted: they have no bounded length to hold back for.
    """

    def __init__(self, scrubber: Scrubber, *, same_length: bool = False) -> None:
        self._scrubber = scrubber
        self._same = same_length
        self._held = ""
        self._keys = _KeyStream(MASK if same_length else None)

    def feed(self, text: str) -> str:
        return self._keys.feed(self._values_feed(text))

    def flush(self) -> str:
        return self._keys.feed(self._values_flush()) + self._keys.flush()

    def _values_feed(self, text: str) -> str:
        """Known values out of the next piece (what may start one held back)."""
        if not self._scrubber:
            return text
        buf = self._held + text
        spans, keep = self._scrubber._split(buf)
        self._held = buf[keep:]
        return self._masked(buf[:keep], spans)

    def _values_flush(self) -> str:
        buf, self._held = self._held, ""
        if not buf:
            return ""
        text_re = self._scrubber._text_re
        spans = [m.span() for m in text_re.finditer(buf)] if text_re is not None else []
        return self._masked(buf, spans)

    def _masked(self, text: str, spans: list[tuple[int, int]]) -> str:
        if not spans:
            return text
        return _replaced(text, spans, MASK if self._same else None)


class _KeyStream:
    """Vendors' keys out of text that arrives in pieces (known values already masked in
    it): the last word is held back while it is, or may grow into, a key; the last
    characters let through are kept as the context the next piece's words are read in
    (a word that began earlier is no key's start)."""

    def __init__(self, mask: str | None) -> None:
        self._mask = mask
        self._held = ""
        self._before = ""

    def feed(self, text: str) -> str:
        if not text:
            return ""
        buf = self._before + self._held + text
        start = len(self._before)
        cut = key_undecided(buf, start)
        spans = [span for span in key_spans(buf, start) if span[1] <= cut]
        self._before, self._held = buf[max(0, cut - KEY_CONTEXT) : cut], buf[cut:]
        if not spans:
            return buf[start:cut]
        return _replaced(buf[:cut], spans, self._mask)[start:]

    def flush(self) -> str:
        buf, start = self._before + self._held, len(self._before)
        self._before = self._held = ""
        if start == len(buf):
            return ""
        spans = key_spans(buf, start)
        return _replaced(buf, spans, self._mask)[start:] if spans else buf[start:]


# --------------------------------------------------------------------------- SSE data

Path = tuple[str | int, ...]
"""Where a string literal sits inside one event's JSON: keys and list indices from the root."""
if TYPE_CHECKING:  # a type only (it names ``Any``)
    StreamedText = Callable[[str], Iterable[tuple[tuple[Any, ...], Path, str]]]
"""A wire's ``streamed_text``: for one SSE ``data`` string, ``(stream key, path, text)`` for
each string the model wrote in it. ``text`` is the decoded value of the string literal at
``path``; the key names the stream it continues across events (the text, the reasoning,
one call's arguments). ``app/model/wires/base.WireCodec.streamed_text`` is the contract;
this module knows no API's JSON."""


@record(frozen=False)
class _Event:
    t: float
    data: str
    undecided: int = 0
    """Characters of this event still in some field's undecided tail."""
    masks: list[tuple[Path, int, int]] = field(default_factory=list)
    """(literal path, first, end) decoded character ranges to mask."""
    released: bool = False
    """Already handed out by ``release_all`` (its undecided characters masked in advance)."""


@record(frozen=False)
class _Field:
    """One streamed text field (e.g. tool call 1's arguments) across events."""

    text: str = ""
    """The undecided tail: characters that may still be part of a secret."""
    segments: list[tuple[int, _Event, Path, int]] = field(default_factory=list)
    """(start in ``text``, event, literal path in the event, start in that literal)."""
    before: str = ""
    """The decided text's last characters (known values starred): where a word of the
    undecided tail began, for the keys' search (``Scrubber._stream_split``)."""


class SSEScrubber:
    """Mask secrets in one response's raw SSE ``data`` strings, in place, across events.

    ``fields`` is the response's wire's ``streamed_text`` (:data:`StreamedText`): it says
    which strings of an event the model wrote and which stream each continues.

    ``feed(t, data)`` returns the ``(t, data)`` events now safe to keep, in arrival
    order (an event whose streamed text ends in what may be the start of a secret, or a
    word that may be a vendor's key, waits, and so does every later one); ``flush()``
    returns the rest at the end of the response. Each event comes out with the same length
    (in the decoded text and in the raw string's UTF-8 bytes) as it went in.
    """

    def __init__(self, scrubber: Scrubber, *, fields: StreamedText) -> None:
        self._scrubber = scrubber
        self._text = fields
        self._queue: list[_Event] = []
        self._fields: dict[tuple[Any, ...], _Field] = {}

    def feed(self, t: float, data: str) -> list[tuple[float, str]]:
        event = _Event(t, data)
        self._queue.append(event)
        for key, path, text in self._text(data):
            f = self._fields.setdefault(key, _Field())
            f.segments.append((len(f.text), event, path, 0))
            f.text += text
            event.undecided += len(text)
            self._decide(f, final=False)
        return self._release()

    def flush(self) -> list[tuple[float, str]]:
        for f in self._fields.values():
            self._decide(f, final=True)
        self._fields.clear()
        return self._release()

    def release_all(self) -> list[tuple[float, str]]:
        """Every waiting event, now, with each field's undecided tail masked as if it were a
        secret — for a commit that must hold the bytes proving a call (DESIGN §7) before the
        call runs. The tails stay tracked, so a secret that continues in later events is
        still masked there; a tail that turns out to be no secret stays masked (over-masking
        a few characters in the stored stream only, never in the conversation)."""
        for f in self._fields.values():
            for start, event, path, lit, end in _segment_ranges(f):
                if not event.released and end > start:
                    event.masks.append((path, lit, lit + end - start))
                    event.undecided -= end - start
        return self._release()

    def _decide(self, f: _Field, *, final: bool) -> None:
        if final:
            spans = self._scrubber._final_spans(f.text, f.before)
            keep = len(f.text)
        else:
            spans, keep, f.before = self._scrubber._stream_split(f.text, f.before)
        for s, e in spans:
            for start, event, path, lit, end in _segment_ranges(f):
                a, b = max(s, start), min(e, end)
                if a < b and not event.released:
                    event.masks.append((path, lit + a - start, lit + b - start))
        # Drop the decided prefix [0, keep).
        kept: list[tuple[int, _Event, Path, int]] = []
        for start, event, path, lit, end in _segment_ranges(f):
            decided = max(0, min(end, keep) - start)
            if not event.released:
                event.undecided -= decided
            if end > keep:
                kept.append((max(start, keep) - keep, event, path, lit + decided))
        f.segments = kept
        f.text = f.text[keep:]

    def _release(self) -> list[tuple[float, str]]:
        out = []
        while self._queue and self._queue[0].undecided <= 0:
            event = self._queue.pop(0)
            event.released = True
            data = _apply_masks(event.data, event.masks) if event.masks else event.data
            out.append((event.t, self._scrubber.mask(data)))
        return out


def _segment_ranges(f: _Field) -> Iterator[tuple[int, _Event, Path, int, int]]:
    """Each segment with its end in ``f.text``."""
    segs = f.segments
    for i, (start, event, path, lit) in enumerate(segs):
        end = segs[i + 1][0] if i + 1 < len(segs) else len(f.text)
        yield start, event, path, lit, end


def _apply_masks(raw: str, masks: list[tuple[Path, int, int]]) -> str:
    """Replace the masked characters of each string literal, keeping every length."""
    literals = _string_literals(raw)
    edits: dict[int, tuple[int, str]] = {}
    for path, first, end in masks:
        span = literals.get(path)
        if span is None:  # cannot happen for a path read from this same string
            continue
        units = _units(raw, *span)
        for start, stop, char in units[first:end]:
            edits[start] = (stop, _mask_unit(raw[start:stop], char))
    out, at = [], 0
    for start in sorted(edits):
        stop, text = edits[start]
        out.append(raw[at:start])
        out.append(text)
        at = stop
    out.append(raw[at:])
    return "".join(out)


_WS = " \t\n\r"


def _string_literals(raw: str) -> dict[Path, tuple[int, int]]:
    """Path → (start, end) of every string value's contents inside the raw JSON text."""
    out: dict[Path, tuple[int, int]] = {}
    _scan(raw, _skip(raw, 0), (), out)
    return out


def _skip(s: str, i: int) -> int:
    while i < len(s) and s[i] in _WS:
        i += 1
    return i


def _scan(s: str, i: int, path: Path, out: dict[Path, tuple[int, int]]) -> int:
    c = s[i]
    if c == '"':
        _, end = scanstring(s, i + 1)
        out[path] = (i + 1, end - 1)
        return end
    if c in "{[":
        close = "}" if c == "{" else "]"
        i = _skip(s, i + 1)
        n = 0
        while s[i] != close:
            if c == "{":
                key, i = scanstring(s, i + 1)
                i = _skip(s, _skip(s, i) + 1)  # past the ':'
                sub: Path = (*path, key)
            else:
                sub = (*path, n)
            i = _skip(s, _scan(s, i, sub, out))
            n += 1
            if s[i] == ",":
                i = _skip(s, i + 1)
        return i + 1
    j = i
    while j < len(s) and s[j] not in ",]} \t\n\r":
        j += 1
    return j


def _units(s: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """The decoded characters of a string literal's contents with their raw spans."""
    units = []
    j = start
    while j < end:
        if s[j] != "\\":
            units.append((j, j + 1, s[j]))
            j += 1
            continue
        if s[j + 1] != "u":
            units.append((j, j + 2, fastjson.loads(f'"{s[j : j + 2]}"')))
            j += 2
            continue
        cp = int(s[j + 2 : j + 6], 16)
        if 0xD800 <= cp < 0xDC00 and s[j + 6 : j + 8] == "\\u":
            low = int(s[j + 8 : j + 12], 16)
            if 0xDC00 <= low < 0xE000:
                units.append((j, j + 12, chr(0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00))))
                j += 12
                continue
        units.append((j, j + 6, chr(cp)))
        j += 6
    return units


_MASK_CHARS = {1: "*", 2: "\u00b7", 3: "\u2022", 4: "\U0001f512"}
_MASK_ESCAPES = {1: "\\u002a", 2: "\\u00b7", 3: "\\u2022"}


def _mask_unit(raw: str, char: str) -> str:
    """A mask with the same raw length and the same decoded UTF-8 length as ``raw``."""
    size = len(char.encode("utf-8", "surrogatepass"))
    if len(raw) == 1:
        return _MASK_CHARS[size]
    if len(raw) == 6:
        return _MASK_ESCAPES[size]
    if len(raw) == 12:
        return "\\ud83d\\udd12"
    return "\\/"  # a two-character escape decodes to one byte: so does this one


__all__ = [
    "MIN_SECRET_LEN",
    "REDACTED",
    "SECRET_ENV",
    "SSEScrubber",
    "Scrubber",
    "StreamScrubber",
    "redact_url",
    "url_secrets",
]
