"""``frontier transduce`` of a text protocol loads only what transducing needs (issue 24).

Its whole-process time against ``json.loads`` is mostly start-up, and every module it
imports is paid on each run: the turn's events, the model layer and the inspector's
snapshot classes are for other commands. These tests hold that, and that the stream
half of the vocabulary (``stream_events``) is the very same vocabulary ``events`` is.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import subprocess
import sys
from collections.abc import Callable

import pytest

from frontier.app import events, stream_events
from frontier.app.events import ResponseEnded, TokenUsage, ToolResult, ToolStarted

NOT_FOR_TEXT = (
    "frontier.app.events",
    "frontier.app.cst.snapshot",
    "frontier.app.cst.native",
    "frontier.app.model.registry",
    "frontier.app.model.stream",
    "frontier.app.model.conversation",
    "frontier.app.model.request",
)

CTL = b"say\ncall c1 write\narg path a.py\narg content <<EOF\nx = 1\nEOF\nend\n"


def _modules_after_transduce(protocol: str, stdin: bytes, *flags: str) -> set[str]:
    """The Frontier modules loaded by the transduce command, run as ``frontier transduce``."""
    code = (
        "import argparse, sys\n"
        "from frontier.app.commands import transduce\n"
        f"ns = argparse.Namespace(chunk=7, protocol={protocol!r}, wire=None, summary=True,\n"
        "    events='confirmed', eof='clean')\n"
        "code = transduce.main(ns)\n"
        "print(code, sorted(m for m in sys.modules if m.startswith('frontier')), file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, check=True)
    code_text, _, loaded = out.stderr.decode().strip().partition(" ")
    assert code_text == "0", out.stderr
    assert b'"calls": 1' in out.stdout, out.stdout
    return set(ast.literal_eval(loaded))


@pytest.mark.parametrize("protocol", ["ctl-heredoc", "ctl"])
def test_transducing_ctl_text_loads_no_turn_events_model_or_inspector(protocol: str) -> None:
    loaded = _modules_after_transduce(protocol, CTL)
    assert "frontier.app.cst.ctl" in loaded
    assert not loaded & set(NOT_FOR_TEXT), sorted(loaded & set(NOT_FOR_TEXT))


def test_the_stream_events_are_the_vocabularys_own() -> None:
    """``events`` re-exports every stream name: the same objects, not copies."""
    for name in (
        "ToolCall",
        "Event",
        "StreamBytes",
        "Confirmed",
        "CallStarted",
        "ArgStarted",
        "ArgBytes",
        "CallReady",
        "ContractError",
        "StreamStopped",
        "json_value",
        "CONTRACT_ERROR_KINDS",
    ):
        assert getattr(events, name) is getattr(stream_events, name), name
    assert issubclass(ToolStarted, stream_events.Event)


@pytest.mark.parametrize(
    "event",
    [
        stream_events.Confirmed(3, "body", b"\xff\x00"),
        stream_events.StreamBytes(0, b"hi"),
        stream_events.CallReady(stream_events.ToolCall("c1", "write", {"p": b"\xfe"}, 9)),
        stream_events.ArgBytes("c1", "content", b"abc", 4),
        stream_events.ContractError("bad_arg", "no value", 12),
        stream_events.CallStarted("c1", "read", 0),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_stream_event_reads_the_same_in_transduce_and_in_recordings(event: object) -> None:
    """``frontier transduce`` prints with ``stream_events.event_to_json``; ``run --json`` and
    recordings with ``events.event_to_json``: one form for the same event."""
    assert isinstance(event, stream_events.Event)
    assert stream_events.event_to_json(event) == events.event_to_json(event)


def test_turn_events_keep_their_json_form() -> None:
    call = stream_events.ToolCall("c1", "read", {"path": "a"})
    assert events.event_to_json(ToolStarted(call)) == {
        "type": "tool_started",
        "id": "c1",
        "name": "read",
        "args": {"path": "a"},
    }
    result = ToolResult("c1", "read", "ok", "text", 0, 0.1234567)
    finished = events.event_to_json(events.ToolFinished(result))
    assert finished["elapsed"] == 0.123457 and finished["exit"] == 0
    ended = events.event_to_json(ResponseEnded("stop", TokenUsage(prompt=3, completion=4)))
    assert ended["usage"] == TokenUsage(prompt=3, completion=4).to_json()


STREAM_CLASSES = [
    stream_events.StreamBytes,
    stream_events.Confirmed,
    stream_events.CallStarted,
    stream_events.ArgStarted,
    stream_events.ArgBytes,
    stream_events.CallReady,
    stream_events.ContractError,
    stream_events.StreamStopped,
]


def _ordinary(cls: type) -> type:
    """The same fields as an ordinary ``@dataclass(frozen=True)``: the generated methods."""
    spec = [
        (f.name, f.type, dataclasses.field(default=f.default))
        if f.default is not dataclasses.MISSING
        else (f.name, f.type)
        for f in dataclasses.fields(cls)
    ]
    return dataclasses.make_dataclass(cls.__name__, spec, frozen=True)


def _samples(cls: type) -> list[tuple[object, ...]]:
    values = {
        int: [0, 7],
        str: ["", "c1"],
        bytes: [b"", b"\xff\nx"],
    }
    rows: list[tuple[object, ...]] = [(), ()]
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            break  # the defaults stay defaults
        kind = {"int": int, "bytes": bytes}.get(str(f.type), str)
        if f.name == "call":
            pair: list[object] = [
                stream_events.ToolCall("c1", "read", {}),
                stream_events.ToolCall("c2", "read", {"p": "a"}),
            ]
        else:
            pair = list(values[kind])
        rows = [(*rows[0], pair[0]), (*rows[1], pair[1])]
    return rows


def _outcome(fn: Callable[[object], object], value: object) -> object:
    """``fn(value)``, or the type of what it raised (a call's ``args`` dict is unhashable)."""
    try:
        return fn(value)
    except TypeError as exc:
        return type(exc)


@pytest.mark.parametrize("cls", STREAM_CLASSES, ids=lambda c: c.__name__)
def test_stream_events_behave_as_generated_dataclass_methods_would(cls: type) -> None:
    """``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, frozenness, ``replace`` and
    ``__match_args__`` match an ordinary frozen dataclass with the same fields."""
    ref = _ordinary(cls)
    assert [(f.name, f.default) for f in dataclasses.fields(cls)] == [
        (f.name, f.default) for f in dataclasses.fields(ref)
    ]
    assert cls.__match_args__ == ref.__match_args__
    assert inspect.signature(cls).parameters.keys() == inspect.signature(ref).parameters.keys()
    one, two = _samples(cls)
    a, b, a2 = cls(*one), cls(*two), cls(*one)
    ra, rb = ref(*one), ref(*two)
    assert repr(a) == repr(ra) and repr(b) == repr(rb)
    assert (a == a2, a == b, a != a2) == (ra == ref(*one), ra == rb, ra != ref(*one))
    assert _outcome(hash, a) == _outcome(hash, ra) == _outcome(hash, a2)
    assert a.__eq__(ra) is NotImplemented  # another class with the same fields is not equal
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(a, dataclasses.fields(cls)[0].name, one[0])
    assert dataclasses.replace(a, **{dataclasses.fields(cls)[0].name: two[0]}) == cls(
        two[0], *one[1:]
    )
    assert dataclasses.asdict(a) == dataclasses.asdict(ra)
