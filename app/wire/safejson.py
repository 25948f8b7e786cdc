"""The one way to parse JSON a model (or a server) sent: bounded depth, bounded size.

``json.loads`` recurses once per nesting level, so ~1,000 levels (2 KB of
``[``) raise ``RecursionError`` — not a ``ValueError`` — and crash whatever
called it. ``loads`` here first runs a linear scan that respects strings and
escapes and measures the nesting; only text within ``max_depth`` reaches
``json.loads``, so it never recurses deep. Too deep or too large is a
``JsonLimitError`` (a ``ValueError``), so callers that already handle bad JSON
as a ``ValueError`` stay correct.

It lives in ``app/wire`` (stdlib only, below every layer) because its users
sit in several: the transducers, the provider, the recorder, the secret scrubber
and the tools' argument coercion. In ``app/cst`` it made each of them import the
transducer package sideways.
"""

from __future__ import annotations

import re

from frontier.app import fastjson

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 64
"""Nesting levels a tool call's arguments may have (``{"a": [1]}`` is 2)."""
ENVELOPE_DEPTH = 80
"""Nesting an SSE chunk or a server's JSON body may have: a chunk is ~6 levels around a
tool call's arguments, which may themselves arrive as an object (``MAX_DEPTH``)."""
MAX_CHARS = 64 << 20
"""Characters one document may have (the transducers' 64 MiB message cap)."""
MAX_CONTAINERS = 1_000_000
"""Lists and objects one document may hold outside its strings: what parsing it builds is
bounded by this, not only by its size (``{}`` is two characters and a 64-byte ``dict``:
64 MiB of ``{},`` would be 22 million of them, ~1.5 GB). A tool call's arguments hold a few
(``multi``'s thousand edits, a thousand), a chunk of a stream a dozen."""

_STEP = re.compile(r'(?:[^"\[\]{}]++|"(?:[^"\\]++|\\.)*+")*+(.)', re.DOTALL)
"""Everything up to the next bracket — complete strings, escapes and all — in one C-level
match; the group is that bracket, or the ``"`` of a string that never ends."""


class JsonLimitError(ValueError):
    """The document is nested deeper, is larger or holds more lists and objects than
    allowed; ``json.loads`` was not run (or its value was dropped).

    The message reads after "the arguments are …": ``nested 1000 levels deep;
    at most 64 allowed``, ``70000000 characters long; at most 67108864 allowed`` or
    ``made of over 1000000 lists and objects; at most 1000000 allowed``.

    ``pos`` is the index (in the text as given) of the first character past the
    limit: the bracket that opened level ``max_depth + 1``, ``max_chars``, or the
    bracket that opened list or object ``max_containers + 1``.
    """

    def __init__(self, message: str, kind: str, pos: int, depth: int = 0) -> None:
        super().__init__(message)
        self.kind = kind
        """``depth``, ``size`` or ``containers``."""
        self.pos = pos
        self.depth = depth
        """The deepest nesting found (``depth`` errors)."""


def nesting(text: str, limit: int) -> tuple[int, int]:
    """(deepest nesting, index of the bracket that first went past ``limit``, or -1).

    Linear: one regex match per bracket (possessive, so nothing backtracks),
    strings skipped whole. An unterminated string ends the scan: what follows
    it is inside the string, and ``json.loads`` reports it.
    """
    deepest, over, _, _ = _scan(text, limit, len(text))
    return deepest, over


def _scan(text: str, limit: int, most: int) -> tuple[int, int, int, int]:
    """:func:`nesting` and :func:`containers` in one pass: (deepest nesting, index of the
    bracket that first went past ``limit`` or -1, lists and objects opened outside strings
    counted up to ``most + 1``, index of the one past ``most`` or -1). The scan stops at
    that one (what is past it is never read) or at an unterminated string."""
    depth = deepest = count = 0
    over = -1
    step = _STEP.match
    i = 0
    while (m := step(text, i)) is not None:
        c = m[1]
        i = m.end()
        if c == "[" or c == "{":
            count += 1
            if count > most:
                return deepest, over, count, i - 1
            depth += 1
            if depth > deepest:
                deepest = depth
                if depth > limit and over < 0:
                    over = i - 1
        elif c == '"':
            break
        else:
            depth -= 1
    return deepest, over, count, -1


def check_limits(
    text: str,
    max_depth: int = MAX_DEPTH,
    max_chars: int = MAX_CHARS,
    max_containers: int = MAX_CONTAINERS,
) -> None:
    """Raise ``JsonLimitError`` if ``text`` is larger, holds more lists and objects, or is
    nested deeper than allowed (checked in that order)."""
    if len(text) > max_chars:
        raise JsonLimitError(
            f"{len(text)} characters long; at most {max_chars} allowed",
            "size",
            max_chars,
        )
    # C-level counts, brackets in strings included: an over-count of both bounds' measure,
    # so at or under both no scan is needed, and one scan decides both when it is
    brackets = text.count("[") + text.count("{")
    if brackets <= max_depth and brackets <= max_containers:
        return
    most = max_containers if brackets > max_containers else len(text)
    deepest, over, _, past = _scan(text, max_depth, most)
    if past >= 0:
        raise JsonLimitError(
            f"made of over {max_containers} lists and objects; at most {max_containers} allowed",
            "containers",
            past,
        )
    if over >= 0:
        raise JsonLimitError(
            f"nested {deepest} levels deep; at most {max_depth} allowed",
            "depth",
            over,
            deepest,
        )


def loads(
    text: str,
    max_depth: int = MAX_DEPTH,
    max_chars: int = MAX_CHARS,
    max_containers: int = MAX_CONTAINERS,
    *,
    standard: bool = False,
) -> Any:
    """``json.loads`` for untrusted text: ``JsonLimitError`` before any deep recursion, and
    before a parse that would build more than ``max_containers`` lists and objects.

    Invalid JSON raises ``json.JSONDecodeError`` as usual; both are ``ValueError``.
    ``standard``: as RFC 8259 reads it, ``NaN`` and ``Infinity`` an error at their place:
    for what runs (a call's arguments: ``{"n": NaN}`` was a runnable call); an envelope
    keeps Python's reading (a chunk's ``"logprob": -Infinity`` must not lose its text).

    A text past :data:`PARSE_FIRST` characters is parsed first and its value's depth counted
    (:func:`deeper`): the scan reads every character of every string in the interpreter's
    regex engine (~5 ns a character: 0.6 s of a 111 MB HAR, whose bulk is base64 strings),
    the count visits only values. The parser cannot recurse deep meanwhile: the C scanner
    counts its recursion as Python code does and raises ``RecursionError`` near the
    interpreter's limit. Every failure, that one included, is decided by the scan as a
    smaller text's is, so the error is the same either way.
    """
    limits = (max_depth, max_chars, max_containers)
    try:
        if len(text) <= PARSE_FIRST:
            check_limits(text, *limits)
            value = fastjson.loads(text, standard=standard)
        else:
            if len(text) > max_chars or text.count("[") + text.count("{") > max_containers:
                check_limits(text, *limits)  # raises the size or containers error, if it is one
            try:
                value = fastjson.loads(text, standard=standard)
            except (ValueError, RecursionError):
                check_limits(text, *limits)  # too deep is said first, as for the scan
                raise
            if deeper(value, max_depth):
                check_limits(text, *limits)  # raises the depth error, with its place
    except fastjson.NotJson as exc:
        raise fastjson.JSONDecodeError(str(exc), text, _constant_at(text, exc.name)) from None
    return _characters(value) if _lone_escape(text) else value


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')
"""A string (skipped whole) or a constant JSON does not have."""


def _constant_at(text: str, name: str) -> int:
    """Where ``name`` (``NaN``, ``Infinity``, ``-Infinity``) stands outside every string of
    ``text``: the error's position, found only when there is one (one linear pass)."""
    for found in _TOKEN.finditer(text):
        if found.group(1) == name:
            return found.start(1)
    return 0


def without_lone_surrogates(text: str) -> str:
    """JSON ``text`` with each lone surrogate escape made U+FFFD (as :func:`loads` makes
    them), for a reader that refuses them: the MCP SDK's (pydantic's) could not read a tool
    result holding ``"\\udcff"``, dropped it, and the call waited out its time limit.
    Text without one, or that is not JSON within the limits, is returned as it is (its
    reader says what is wrong with it)."""
    if not _lone_escape(text):
        return text
    try:
        value = loads(text)
    except (ValueError, RecursionError):
        return text
    return fastjson.dumps(value)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
"""A surrogate's escape (``\\uD800``–``\\uDFFF``): one C-speed search finds them (31 ms
over a 111 MB HAR, where a pattern that pairs them took 1.9 s)."""


def _lone_escape(text: str) -> bool:
    """Whether ``text`` escapes a lone surrogate (a high one not followed by a low one, or
    a low one not after a high one): the only way parsed JSON holds one, and it is not a
    character at all. A pair (an emoji written ``\\ud83d\\ude00``, as ASCII-only encoders
    write it) becomes one character and does not count."""
    if len(text) <= PARSE_FIRST and "\\u" not in text:  # a stream's event: 50 ns, not 350
        return False
    low_at = -1  # where the low half of the last high escape must start (-1: none awaited)
    for found in _SURROGATE_ESCAPE.finditer(text):
        start = found.start()
        high = text[start + 3] in "89abAB"
        if low_at >= 0:
            if start != low_at or high:
                return True
            low_at = -1
        elif high:
            low_at = found.end()
        else:
            return True
    return low_at >= 0


_SURROGATE = re.compile("[\ud800-\udfff]")


def _characters(value: Any) -> Any:
    """``value`` with each lone surrogate in a string (keys too) made U+FFFD, as a UTF-8
    decoder makes a byte that is not a character.

    JSON allows ``"\\udcff"``, and a model (or a server) sent it: in a call's arguments
    the session store could not record the call (``'utf-8' codec can't encode character
    '\\udcff'``) and the turn ended with ``session_persistence_failed``; in its text the
    same when the reply was stored. Only a text holding such an escape is walked; the walk
    is as deep as the parse was allowed to be."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_characters(item) for item in value]
    if isinstance(value, dict):
        return {_characters(key): _characters(item) for key, item in value.items()}
    return value


PARSE_FIRST = 64 << 10
"""Characters past which :func:`loads` parses before it measures the nesting (the count of
a parsed value and the scan cost about the same below this; above, a text's strings make
the scan the larger part, 5.8x for a HAR-like text)."""


def deeper(value: Any, limit: int) -> bool:
    """Whether ``value`` (parsed JSON) nests deeper than ``limit`` levels, as :func:`nesting`
    counts them (``{"a": [1]}`` is 2): each list and object visited once, without recursion,
    holding one iterator a level (a list of millions of ``{}`` holds none of them)."""
    if type(value) is not dict and type(value) is not list:
        return False
    if limit < 1:
        return True
    stack = [iter(value.values() if type(value) is dict else value)]
    push, pop = stack.append, stack.pop
    while stack:
        for item in stack[-1]:
            kind = type(item)
            if kind is dict or kind is list:
                if len(stack) >= limit:
                    return True
                push(iter(item.values() if kind is dict else item))
                break
        else:
            pop()
    return False


def containers(text: str, most: int) -> tuple[int, int]:
    """(lists and objects ``text`` opens outside its strings, counted up to ``most + 1``;
    the index of the one past ``most``, or -1). One regex step a bracket, as
    :func:`nesting`; an unterminated string ends the count."""
    _, _, count, past = _scan(text, len(text), most)
    return count, past
