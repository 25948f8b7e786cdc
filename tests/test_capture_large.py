"""Large captures cost what their size does (``docs/captures.md``, "Bounds"): a capture of
thousands of responses, a HAR of ten thousand entries, is read in work (and memory)
linear in it; what each response repeats is said once. Bounds on work done are counted
here (bytes copied, objects made, garbage collections), never timed."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

from frontier.app.session import capture_har, capture_raw
from frontier.app.session.capture import capture_sources, detection_lines
from frontier.app.session.capture_http import http_responses

CHAT = (
    'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\n'
    'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n'
    "data: [DONE]\n\n"
)
JOINED = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    + CHAT.encode()
)
"""What ``curl -i`` (without ``--raw``) prints of a chunked stream: the chunks joined, the
header kept."""


class _Counted(bytes):
    """Bytes that count what slicing them copies."""

    copied = 0

    def __getitem__(self, key: Any) -> Any:
        got = super().__getitem__(key)
        if isinstance(key, slice):
            _Counted.copied += len(got)
        return got


def test_many_joined_curl_responses_are_read_in_one_pass_and_say_their_note_once() -> None:
    """``curl -i`` of many streams (a loop appending to one file): each joined body was
    found by copying the whole rest of the capture (``data[at:]``), and the capture's note
    about joined chunks, one per response, went on every response: 4,000 responses (7 MB)
    took 17 s and 2.5 GB and printed 1.2 GB of detection lines."""
    data = _Counted(JOINED * 300)
    _Counted.copied = 0
    found = http_responses(data)
    assert len(found) == 300 and all(len(r.events) == 3 for r in found)
    assert _Counted.copied <= 2 * len(data)  # each body once; it was 300 times the rest
    assert {r.notes for r in found} == {
        ("the body says it is chunked but holds no chunk sizes (curl -i joins them)",)
    }


def test_responses_sharing_their_notes_are_said_in_one_line(tmp_path: Path) -> None:
    """A note on every response (a HAR past its entry cap, ``curl -i``'s joined chunks)
    kept each response on a line of its own: a run of them is one line, the note said once."""
    path = tmp_path / "many.http"
    path.write_bytes(JOINED * 50)
    lines = detection_lines(capture_sources(str(path)))
    assert lines == [
        f"{path}#1–#50 (50 responses): capture: HTTP capture · openai-chat (from choices "
        "chunks) · ctl-heredoc (no call in the text: the default text mode) · 150 events · "
        "finish stop ×50 · the body says it is chunked but holds no chunk sizes (curl -i "
        "joins them)"
    ]


def _har(entries: int) -> bytes:
    one = {
        "request": {"method": "POST", "url": "https://h/v1/chat/completions"},
        "response": {
            "status": 200,
            "headers": [{"name": "content-type", "value": "text/event-stream"}],
            "content": {"mimeType": "text/event-stream", "text": CHAT},
        },
        "timings": {"send": 1, "wait": 8, "receive": 90},
    }
    return json.dumps({"log": {"version": "1.2", "entries": [one] * entries}}).encode()


def test_a_har_past_its_entry_cap_is_one_line_with_its_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(capture_har, "MAX_ENTRIES", 4)
    path = tmp_path / "s.har"
    path.write_bytes(_har(6))
    (line,) = detection_lines(capture_sources(str(path)))
    assert line.startswith(f"{path}#1–#4 (4 responses): capture: HAR · openai-chat")
    assert line.endswith(" · the HAR has 6 entries; only the first 4 were read")


def test_reading_a_capture_walks_no_garbage_collection() -> None:
    """A read builds an object per event (and a HAR's parse, millions) and no cycle: each
    full collection walked every object so far, the parsed HAR included, so each entry of
    a long HAR cost more than the one before (10,000: 1.0 s of 2.4 in seven full
    collections). None runs while a capture is read; the collector is as it was after."""
    data = _har(300)
    collections: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.collect()
    gc.callbacks.append(seen)
    try:
        found = capture_sources("s.har", data=data)
    finally:
        gc.callbacks.remove(seen)
    assert len(found) == 300
    assert collections == []
    assert gc.isenabled()


def test_a_har_response_makes_each_event_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A HAR's events were made, then made again with their times (``_time``)."""
    made: list[capture_raw.RawEvent] = []

    def counted(**fields: Any) -> capture_raw.RawEvent:
        made.append(capture_raw.RawEvent(**fields))
        return made[-1]

    monkeypatch.setattr(capture_har, "RawEvent", counted)
    found = capture_har.har_responses(_har(5))
    assert [len(r.events) for r in found] == [3] * 5
    assert len(made) == 15
    assert [e.t for e in found[0].events] == [0.009, 0.054, 0.099]  # spread over receive
