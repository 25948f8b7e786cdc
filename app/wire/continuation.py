"""The join of a continued response, as its recording marks it.

A response cut by ``finish_reason: "length"`` in a CTL mode may go on in a second
request that ends with the bytes so far as an assistant message (docs/protocol.md,
"Continuation"). Both streams are recorded as one response: the first stream's SSE
``data`` strings, then one *join marker* written by Frontier, then the continuation's
strings exactly as the server sent them — including the prefix a server such as
llama.cpp echoes back first. The marker says how many bytes of that echo were
skipped, so a reader rebuilds the transducer input the live loop fed, byte for byte::

    {"object":"frontier.continuation","offset":1234,"echo_skipped":1234,"attempt":1}

``offset`` is the transducer input so far (where the continuation's bytes go on);
``echo_skipped`` the bytes at the start of the continuation's assistant text that
were the server's echo and are not input; ``attempt`` counts the continuations of the
response (1, 2, ...). A marker whose ``offset`` is not the input so far is ignored
(an edited recording, or a server sending such an object itself cannot shift bytes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from frontier.app import fastjson
from frontier.app.record import record
from frontier.app.wire import safejson

JOIN_OBJECT = "frontier.continuation"


@record
class Join:
    """Where a continued response was joined."""

    offset: int
    """Transducer input bytes before the continuation's first byte."""
    echo_skipped: int = 0
    """Bytes of the continuation's content dropped as the server's echo of the prefix."""
    attempt: int = 1


def join_data(join: Join) -> str:
    """The marker's SSE ``data`` string, as the recording stores it."""
    body = {
        "object": JOIN_OBJECT,
        "offset": join.offset,
        "echo_skipped": join.echo_skipped,
        "attempt": join.attempt,
    }
    return fastjson.dumps(body, separators=(",", ":"))


def read_join(data: str) -> Join | None:
    """The join a ``data`` string marks, or ``None`` for any other string."""
    if JOIN_OBJECT not in data:
        return None
    try:
        obj = safejson.loads(data, max_depth=safejson.ENVELOPE_DEPTH)
    except ValueError:
        return None
    if not isinstance(obj, dict) or obj.get("object") != JOIN_OBJECT:
        return None
    values = [obj.get("offset"), obj.get("echo_skipped", 0), obj.get("attempt", 1)]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
        return None
    return Join(*values)


def text_pieces(
    events: Iterable[tuple[float, str]],
    text_of: Callable[[str], str],
) -> tuple[list[tuple[float, bytes]], list[Join]]:
    """A text mode's transducer input, one piece per event with text, and the joins.

    ``text_of`` reads the assistant text of one SSE ``data`` string as the response's
    wire decodes it (``app/model``: this layer knows no API); it is given every string
    in order but the join markers. The text after a join loses its first
    ``echo_skipped`` bytes (the echo may span several events)."""
    pieces: list[tuple[float, bytes]] = []
    joins: list[Join] = []
    size = skip = 0
    for t, data in events:
        join = read_join(data)
        if join is not None:
            if join.offset == size:
                joins.append(join)
                skip = join.echo_skipped
            continue
        text = text_of(data)
        if not text:
            continue
        piece = text.encode("utf-8")
        if skip:
            cut = min(skip, len(piece))
            piece, skip = piece[cut:], skip - cut
        if piece:
            pieces.append((t, piece))
            size += len(piece)
    return pieces, joins


__all__ = ["JOIN_OBJECT", "Join", "join_data", "read_join", "text_pieces"]
