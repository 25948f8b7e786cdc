"""Recordings: write while streaming, read back, rebuild transducer input per protocol."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from frontier.app.cst.base import calls_of, run_chunks
from frontier.app.cst.factory import make_transducer
from frontier.app.session.record import (
    RecordingError,
    RecordingWriter,
    content_chunk,
    read_recording,
    synthesize,
    write_recording,
)


def test_writer_round_trip_with_times_and_finish(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    ticks = iter([10.0, 10.25, 10.5, 11.0])
    with RecordingWriter(path, "ctl", "qwen", clock=lambda: next(ticks), request_index=2) as w:
        w.event(content_chunk("call c1 read\narg path a"))
        w.event(content_chunk("\nend\n"))
        w.end("stop", usage={"completion_tokens": 9})
    rec = read_recording(path)
    assert (rec.mode, rec.model, rec.finish_reason, rec.clean) == ("ctl", "qwen", "stop", True)
    assert [t for t, _ in rec.events] == [0.25, 0.5] and rec.end_t == 1.0
    assert rec.usage == {"completion_tokens": 9} and rec.meta == {"request_index": 2}
    assert rec.transducer_input() == b"call c1 read\narg path a\nend\n"
    [call] = calls_of(run_chunks(make_transducer("ctl"), [rec.transducer_input()]))
    assert call.args == {"path": "a"}


def test_a_recording_cut_by_a_crash_reads_as_disconnect(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    w = RecordingWriter(path, "ctl-heredoc", "m")
    w.event(content_chunk("call c1 write\narg a <<E\nx"))
    w.close()  # no end line
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"t": 0.3, "da')  # torn last line
    rec = read_recording(path)
    assert rec.finish_reason == "disconnect" and not rec.clean and len(rec.events) == 1


def test_native_modes_rebuild_the_sse_body(tmp_path: Path) -> None:
    rec = synthesize("hello", "native-inc", sizes=(2,))
    body = rec.transducer_input()
    assert body.startswith(b"data: {") and body.endswith(b"data: [DONE]\n\n")
    assert rec.transducer_input("ctl") == b"hello"
    pieces = rec.pieces("ctl")
    assert [p for _, p in pieces] == [b"he", b"ll", b"o"]
    assert [t for t, _ in pieces] == sorted(t for t, _ in pieces)


def test_write_recording_round_trips(tmp_path: Path) -> None:
    rec = synthesize("some text\n", "xml", finish_reason="length")
    write_recording(tmp_path / "a.jsonl", rec)
    back = read_recording(tmp_path / "a.jsonl")
    assert back.events == rec.events and back.finish_reason == "length"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty file"),
        ('{"format": "other"}\n', "not a frontier recording"),
        ('{"format": "frontier-recording", "version": 9, "mode": "ctl"}\n', "version 9"),
        ('{"format": "frontier-recording", "version": 1}\n', 'no "mode"'),
        (
            '{"format": "frontier-recording", "version": 1, "mode": "ctl"}\n{"t": "x"}\n',
            ':2: an event needs "t"',
        ),
        (
            '{"format": "frontier-recording", "version": 1, "mode": "ctl"}\nnot json\n{}\n',
            ":2: not JSON",
        ),
    ],
)
def test_bad_recordings_say_what_and_where(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(RecordingError, match=message):
        read_recording(path)


def test_recording_lines_are_plain_json(tmp_path: Path) -> None:
    write_recording(tmp_path / "r.jsonl", synthesize("héllo", "ctl"))
    lines = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text("utf-8").splitlines()]
    assert lines[0]["format"] == "frontier-recording" and lines[-1]["end"] is True
    assert all(set(x) == {"t", "data"} for x in lines[1:-1])
