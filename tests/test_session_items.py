"""The history as typed items: what the store keeps, how sessions stored as chat messages
(before typed items) read back, and the wire each session and response names."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from frontier.app.events import ToolCall, ToolResult
from frontier.app.model.conversation import (
    SUMMARY_MARK,
    AssistantTurn,
    CallEntry,
    Item,
    ResultEntry,
    ToolResults,
    UserText,
    frame,
)
from frontier.app.session import schema
from frontier.app.session.explain import feedback_text, load_session
from frontier.app.session.record import (
    RecordingError,
    RecordingWriter,
    parse_recording,
    read_recording,
    synthesize,
    write_recording,
)
from frontier.app.session.store import SessionStore, session_recordings
from frontier.app.vocab import WIRES
from frontier.tools.contract import Preview, ToolSpec

READ = ToolSpec("read", "read a file", {"type": "object"})
NATIVE_ROUND: list[dict[str, Any]] = [
    {"role": "user", "content": "read a.py"},
    {
        "role": "assistant",
        "content": "Reading both.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "read", "arguments": '{"path": "a.py"}'},
            },
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "read", "arguments": '{"path": "b.py"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "1\tprint('a')"},
    {"role": "tool", "tool_call_id": "call_2", "content": "[not_found] no b.py"},
    {"role": "assistant", "content": "a.py prints a."},
]
NATIVE_ITEMS: list[Item] = [
    UserText("read a.py"),
    AssistantTurn(
        "Reading both.",
        (
            CallEntry("call_1", "read", {"path": "a.py"}),
            CallEntry("call_2", "read", {"path": "b.py"}),
        ),
    ),
    ToolResults(
        (
            ResultEntry("call_1", "read", "ok", 0, "1\tprint('a')"),
            ResultEntry("call_2", "read", "not_found", 1, "[not_found] no b.py"),
        )
    ),
    AssistantTurn("a.py prints a."),
]
REPAIR = "error contract (bad_arg) at byte 7: arg key. Resend the failed call."


def legacy_rows(store: SessionStore, sid: str, messages: list[dict[str, Any]]) -> list[int]:
    """Rows as a Frontier before typed items wrote them (one ``log`` row before each, so
    every message has its own timeline position); their ``log_seq`` values."""
    seqs = []
    with store.db.lock:
        conn = store.db.conn
        for message in messages:
            cur = conn.execute(
                "INSERT INTO log (session_id, t, type, data) VALUES (?, ?, 'assistant', '{}')",
                (sid, time.time()),
            )
            seqs.append(int(cur.lastrowid or 0))
            conn.execute(
                "INSERT INTO messages (session_id, t, role, body, log_seq) VALUES (?, ?, ?, ?, ?)",
                (sid, time.time(), message["role"], json.dumps(message), seqs[-1]),
            )
    return seqs


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    s = SessionStore.open(tmp_path / "sessions.db")
    yield s
    s.close()


# --------------------------------------------------------------------------- legacy sessions


def test_a_native_round_stored_as_chat_messages_loads_as_items(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "native-inc")
    seqs = legacy_rows(store, sid, NATIVE_ROUND)
    assert store.load_items(sid) == NATIVE_ITEMS
    assert store.timeline.load_items(sid) == NATIVE_ITEMS
    # each item keeps its timeline position; the results sit where their last message was
    positions = [seq for _, seq in store.compactions.positioned(sid)]
    assert positions == [seqs[0], seqs[1], seqs[3], seqs[4]]


def test_text_mode_frames_repairs_and_summaries_load_as_what_they_were(
    store: SessionStore,
) -> None:
    one = ResultEntry("c1", "", "ok", 0, "one\n")
    bad = ResultEntry("c2", "", "runtime", 1, "[runtime] boom")
    summary = f"{SUMMARY_MARK} 3 rounds (6 messages) replaced by this summary]\nWe read a.py."
    sid = store.create_session("/w", "m", None, "ctl")
    legacy_rows(
        store,
        sid,
        [
            {"role": "user", "content": summary},
            {"role": "user", "content": "fix the bug"},
            {"role": "assistant", "content": "call c1 read\nend\ncall c2 shell\nend\n"},
            {"role": "user", "content": frame(one) + frame(bad) + REPAIR},
            {"role": "assistant", "content": "call c3 x"},
            {"role": "user", "content": "error truncated: cut off at byte 9"},
        ],
    )
    assert store.load_items(sid) == [
        UserText(summary, "summary"),
        UserText("fix the bug"),
        AssistantTurn("call c1 read\nend\ncall c2 shell\nend\n"),
        ToolResults((one, bad), REPAIR, framed=True),
        AssistantTurn("call c3 x"),
        UserText("error truncated: cut off at byte 9", "feedback"),
    ]


def test_a_session_resumed_after_the_upgrade_reads_old_rows_then_new_items(
    store: SessionStore,
) -> None:
    sid = store.create_session("/w", "m", None, "native-inc")
    legacy_rows(store, sid, NATIVE_ROUND)
    later: list[Item] = [UserText("now b.py"), AssistantTurn("b.py does not exist.")]
    store.append_items(sid, later)
    assert store.load_items(sid) == [*NATIVE_ITEMS, *later]
    assert store.get_session(sid).turns == 1  # the new typed message (legacy rows had no log)


def test_legacy_tool_messages_still_deliver_results(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "native-inc")
    p = store.persistence(sid)
    p.persist_call(ToolCall("call_1", "read", {"path": "a.py"}), READ, Preview("none"))
    p.commit_result(ToolResult("call_1", "read", "ok", "1\tprint('a')"))
    assert [r.call_id for r in store.undelivered_results(sid)] == ["call_1"]
    legacy_rows(store, sid, NATIVE_ROUND[1:4])  # the round: assistant, tool, tool
    assert store.undelivered(sid) == []


def test_a_compaction_stored_as_chat_messages_reads_as_items(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "native-inc")
    seqs = legacy_rows(store, sid, NATIVE_ROUND)
    summary = {"role": "user", "content": f"{SUMMARY_MARK} 1 round replaced]\nread a.py"}
    detail = {"reason": "threshold", "log_seq": seqs[-1], "log_seqs": [None, *seqs[1:]]}
    compacted = [summary, *NATIVE_ROUND[1:]]
    with store.db.lock:
        store.db.conn.execute(
            "INSERT INTO compactions (session_id, t, step, upto, messages, detail)"
            " VALUES (?, 0, 'summary', (SELECT MAX(seq) FROM messages), ?, ?)",
            (sid, json.dumps(compacted), json.dumps(detail)),
        )
    store.append_items(sid, [UserText("and now?")])
    expected = [UserText(summary["content"], "summary"), *NATIVE_ITEMS[1:], UserText("and now?")]
    assert store.load_items(sid) == expected
    (record,) = store.compactions.all(sid)
    assert record.items == expected[:-1]
    positioned = store.compactions.positioned(sid)
    assert [seq for _, seq in positioned[:4]] == [None, seqs[1], seqs[3], seqs[4]]


def test_compactions_store_items_with_their_positions(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "native-inc")
    store.append_items(sid, NATIVE_ITEMS)
    stubbed = ToolResults((ResultEntry("call_1", "read", "ok", 0, "[stubbed: 12 bytes]"),))
    kept: list[Item] = [NATIVE_ITEMS[0], NATIVE_ITEMS[1], stubbed, NATIVE_ITEMS[3]]
    record = store.compactions.add(sid, "stub", kept, {"before": 10}, log_seqs=[1, 1, 1, 1])
    assert record.items == kept and record.positions == (1, 1, 1, 1)
    assert store.compactions.latest(sid) == record
    assert store.load_items(sid) == kept
    assert store.timeline.load_items(sid) == NATIVE_ITEMS  # the originals stay


# --------------------------------------------------------------------------- the inspector


def test_the_feedback_of_a_response_is_what_the_model_read() -> None:
    framed = ToolResults((ResultEntry("c1", "read", "ok", 0, "x"),), REPAIR, framed=True)
    assert feedback_text(framed) == "result c1 exit=0 1\nx\nend\n" + REPAIR
    native = ToolResults((ResultEntry("call_1", "read", "ok", 0, "x"),))
    assert feedback_text(native) is None
    assert feedback_text(ToolResults(native.results, REPAIR)) == REPAIR
    assert feedback_text(UserText(REPAIR, "feedback")) == REPAIR
    assert feedback_text(UserText("fix it")) is None
    assert feedback_text(AssistantTurn("call c1")) is None


def test_stored_feedback_is_found_in_legacy_and_new_sessions(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    with SessionStore.open(path) as store:
        sid = store.create_session("/w", "m", None, "ctl")
        for index in range(2):
            rid = store.begin_response(sid, "ctl", "m", index)
            store.add_stream_event(rid, 0.0, synthesize("call c1 x").events[0][1])
            store.end_response(rid, "stop")
            if index == 0:  # a round stored after the response ended, before the next began
                legacy_rows(store, sid, [{"role": "user", "content": REPAIR}])
            else:
                store.append_items(sid, [AssistantTurn("call c1 x"), UserText("again", "feedback")])
    first, second = load_session(sid, path).responses
    assert first.feedback == REPAIR
    assert second.feedback == "again"


# --------------------------------------------------------------------------- wires


def test_a_v5_database_migrates_with_every_wire_reading_openai_chat(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, schema.MIGRATIONS[:5])
    conn.execute("INSERT INTO sessions VALUES ('s1', 0, 0, '/w', 'm', NULL, 'ctl', 'done')")
    conn.execute(
        "INSERT INTO responses (session_id, t, mode, model, request_index, finish_reason)"
        " VALUES ('s1', 0, 'ctl', 'm', 0, 'stop')"
    )
    conn.execute(
        "INSERT INTO stream_events VALUES (1, 0, 0.1, ?)",
        (synthesize("hello").events[0][1],),
    )
    conn.close()
    with SessionStore.open_readonly(path) as old:  # read, never migrated
        assert old.db.conn.execute("PRAGMA user_version").fetchone()[0] == 5
        assert old.get_session("s1").wire == "openai-chat"
        assert [r.wire for r in old.recordings("s1")] == ["openai-chat"]
    with SessionStore.open(path) as s:
        assert s.db.conn.execute("PRAGMA user_version").fetchone()[0] == 6
        assert schema.current_version() == 6
        info = s.get_session("s1")
        assert info.wire == "openai-chat" and info.to_json()["wire"] == "openai-chat"
        (response,) = s.recordings("s1")
        assert response.wire == "openai-chat"
        assert response.to_recording().transducer_input("ctl") == b"hello"
        sid = s.create_session("/w", "claude", None, "native-inc", wire="anthropic-messages")
        assert s.get_session(sid).wire == "anthropic-messages"
        assert s.db.read("SELECT wire FROM sessions WHERE id = 's1'") == [(None,)]


def test_a_session_and_its_responses_name_their_wire(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "ctl")
    assert store.get_session(sid).wire == "openai-chat"
    with pytest.raises(ValueError, match="unknown wire"):
        store.create_session("/w", "m", None, "ctl", wire="smoke-signals")
    with pytest.raises(ValueError, match="unknown wire"):
        store.begin_response(sid, "ctl", "m", 0, wire="smoke-signals")
    rid = store.begin_response(sid, "ctl", "m", 0, wire="openai-chat")
    store.end_response(rid, "stop")
    rid = store.begin_response(sid, "ctl", "m", 1)
    store.end_response(rid, "stop")
    assert store.db.read("SELECT wire FROM responses ORDER BY id") == [("openai-chat",), (None,)]
    assert [r.wire for r in store.recordings(sid)] == ["openai-chat", "openai-chat"]


def wire_adapter(wire: str) -> bool:
    name = wire.replace("-", "_")
    return importlib.util.find_spec(f"frontier.app.model.wires.{name}") is not None


def text_events(wire: str, pieces: list[str]) -> list[str]:
    """A text reply streamed in ``pieces`` as ``wire``'s server sends it (data strings)."""
    if wire == "openai-chat":
        return [synthesize(p, sizes=(len(p) or 1,)).events[0][1] for p in pieces] + ["[DONE]"]
    if wire == "anthropic-messages":
        start = {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "claude",
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        }
        block = {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "text", "text": ""},
        }
        deltas = [
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
            for p in pieces
        ]
        end = [
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 9},
            },
            {"type": "message_stop"},
        ]
        return [json.dumps(e) for e in [start, block, *deltas, *end]]
    assert wire == "openai-responses"
    item = {
        "id": "msg_1",
        "type": "message",
        "status": "in_progress",
        "role": "assistant",
        "content": [],
    }
    head = [
        {
            "type": "response.created",
            "response": {"id": "resp_1", "status": "in_progress", "output": []},
        },
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {
            "type": "response.content_part.added",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
    ]
    deltas = [
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": p,
        }
        for p in pieces
    ]
    done = {
        "type": "response.completed",
        "response": {"id": "resp_1", "status": "completed", "output": []},
    }
    return [json.dumps(e) for e in [*head, *deltas, done]]


@pytest.mark.parametrize("wire", WIRES)
def test_a_response_on_each_wire_keeps_its_wire_and_replays_its_text(
    tmp_path: Path, wire: str
) -> None:
    if not wire_adapter(wire):
        pytest.skip(f"no {wire} adapter yet")
    text = "Reading it.\ncall c1 read\narg path a.py\nend\n"
    pieces = [text[i : i + 5] for i in range(0, len(text), 5)]
    events = text_events(wire, pieces)
    path = tmp_path / "sessions.db"
    with SessionStore.open(path) as store:
        sid = store.create_session("/w", "m", None, "ctl", wire=wire)
        rid = store.begin_response(sid, "ctl", "m", 0, wire=wire)
        for i, data in enumerate(events):
            store.add_stream_event(rid, i / 100, data)
        store.end_response(rid, "stop")
        (response,) = store.recordings(sid)
    assert response.wire == wire
    ((_, rec),) = session_recordings(sid, path)
    assert rec.wire == wire and [d for _, d in rec.events] == events
    assert rec.transducer_input("ctl") == text.encode()
    assert [p for _, p in rec.pieces("ctl")] == [p.encode() for p in pieces]
    write_recording(tmp_path / "r.jsonl", rec)
    header = json.loads((tmp_path / "r.jsonl").read_text().splitlines()[0])
    assert header.get("wire") == (None if wire == "openai-chat" else wire)
    again = read_recording(tmp_path / "r.jsonl")
    assert again.wire == wire and again.transducer_input("ctl") == text.encode()


def test_a_recording_header_names_its_wire_and_absent_means_openai_chat(tmp_path: Path) -> None:
    with RecordingWriter(tmp_path / "a.jsonl", "ctl", "m", wire="openai-chat") as w:
        w.event(synthesize("hi").events[0][1], 0.1)
        w.end("stop", t=0.2)
    lines = (tmp_path / "a.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["wire"] == "openai-chat"
    rec = read_recording(tmp_path / "a.jsonl")
    assert rec.wire == "openai-chat" and "wire" not in rec.meta
    assert rec.transducer_input() == b"hi"
    old = [json.dumps({k: v for k, v in json.loads(lines[0]).items() if k != "wire"}), *lines[1:]]
    assert parse_recording(old).wire == "openai-chat"
    future = [json.dumps({**json.loads(lines[0]), "wire": "carrier-pigeon"}), *lines[1:]]
    with pytest.raises(RecordingError, match="carrier-pigeon"):
        parse_recording(future, "f.jsonl")
    with pytest.raises(ValueError, match="unknown wire"):
        RecordingWriter(tmp_path / "b.jsonl", "ctl", "m", wire="carrier-pigeon")
    assert not (tmp_path / "b.jsonl").exists()


def test_every_example_recording_still_reads_as_openai_chat() -> None:
    examples = sorted((Path(__file__).parent / "examples").glob("*.jsonl"))
    assert examples
    for path in examples:
        rec = read_recording(path)
        assert rec.wire == "openai-chat", path
        assert "wire" not in json.loads(path.read_text().splitlines()[0]), path
