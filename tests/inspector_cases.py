"""A recording for every contract-error kind, for the framing-error inspector's tests.

The CTL kinds, ``bad_json`` and ``truncated`` are the recordings in ``tests/examples/``
(``make_examples.py`` writes them); ``bad_xml`` and ``late_arguments`` are written
here, into the test's own directory. ``EXPECT`` is what an explanation of each must
say: the part of the frame that tells a person what broke (declared vs arrived, the
TAG, the element, the JSON state).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from frontier.app.events import CONTRACT_ERROR_KINDS
from frontier.app.session.record import Recording, synthesize, write_recording

EXAMPLES = Path(__file__).parent / "examples"
CTL_KINDS = ("bad_call", "bad_arg", "unexpected_line", "body_eof", "heredoc_eof")
CTL_KINDS += ("line_too_long", "limit")

BAD_XML = (
    'I\'ll read the file.\n<minimax:tool_call>\n<invoke name="read">\n'
    '<parameter name="path">greet/cli.py</parameter>\n</invoke>\nstray words\n'
    "</minimax:tool_call>\n"
)

EXPECT: dict[str, tuple[str, ...]] = {
    "bad_call": ("state     in a call line", "pending   'call c1'", "call      none"),
    "bad_arg": ('arg "path" given twice', "args      path       inline   4 B 'a.py'"),
    "unexpected_line": (
        'length    arg "content": declared 5 bytes, 5 arrived; the model wrote ≈12',
        "hello«F»«E» world⏎",
    ),
    "body_eof": ("declared 400 bytes, 17 arrived (383 missing)", "«E: end of stream»"),
    "heredoc_eof": ("tag       EOF", 'arg "content": 18 body bytes arrived, no line EOF yet'),
    "line_too_long": ("at byte 4110", "L_LINE=4096", "pending   'arg path aaaa"),
    "limit": ("declares 2000000 bytes", "pending   'arg content 2000000'"),
    "bad_json": ("json      open: 1 bracket(s) unclosed, inside a string", "call_x write"),
    "bad_xml": ("element   minimax:tool_call", "stray 'stray words'"),
    "late_arguments": (
        "became executable when index 1's arguments began",
        "call      call_a read",
    ),
    "truncated": ("tag       PATCH", "error truncated: your response was cut off at byte 197"),
}
"""Lines (or parts of lines) ``check --explain`` prints for each kind."""
assert set(EXPECT) == set(CONTRACT_ERROR_KINDS)


def native_late_arguments() -> Recording:
    """native-inc: call 0's arguments parse, call 1's begin (call 0 is executable now),
    then more bytes for call 0 arrive."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return json.dumps({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    def piece(index: int, args: str, ident: str = "", name: str = "") -> str:
        fn: dict[str, Any] = {"arguments": args}
        call: dict[str, Any] = {"index": index, "function": fn}
        if ident:
            call.update(id=ident, type="function")
            fn["name"] = name
        return chunk({"tool_calls": [call]})

    data = [
        chunk({"content": "Reading two files."}),
        piece(0, '{"path": "a.py"}', "call_a", "read"),
        piece(1, '{"path"', "call_b", "read"),
        piece(0, ', "limit": 5}'),
        piece(1, ': "b.py"}'),
        chunk({}, "tool_calls"),
        "[DONE]",
    ]
    events = tuple((round(i * 0.01, 6), d) for i, d in enumerate(data))
    return Recording(
        mode="native-inc",
        model="example",
        created="2026-01-01T00:00:00+00:00",
        events=events,
        finish_reason="tool_calls",
        end_t=events[-1][0],
    )


def recordings(tmp: Path) -> dict[str, Path]:
    """A recording file per contract-error kind (the crafted ones written into ``tmp``)."""
    out = {kind: EXAMPLES / f"err-{kind}.jsonl" for kind in CTL_KINDS}
    out["bad_json"] = EXAMPLES / "err-bad_json-native-inc.jsonl"
    out["truncated"] = EXAMPLES / "truncated-ctl-heredoc.jsonl"
    out["bad_xml"] = tmp / "err-bad_xml.jsonl"
    write_recording(out["bad_xml"], synthesize(BAD_XML, "xml", sizes=(9,)))
    out["late_arguments"] = tmp / "err-late_arguments-native-inc.jsonl"
    write_recording(out["late_arguments"], native_late_arguments())
    return out
