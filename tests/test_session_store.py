"""The session store: durability settings, records, responses, ids, migrations, errors."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from frontier.app.events import ToolCall, ToolResult
from frontier.app.model.conversation import (
    AssistantTurn,
    CallEntry,
    ResultEntry,
    ToolResults,
    UserText,
    frame,
)
from frontier.app.session import schema
from frontier.app.session.store import (
    SessionNotFound,
    SessionStore,
    StoreError,
    default_path,
    sanitize_url,
)
from frontier.tools.contract import FilePreview, Preview, ToolSpec

READ = ToolSpec("read", "read a file", {"type": "object"})
EDIT = ToolSpec("write", "write a file", {"type": "object"}, mutates=True, kind="edit")


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    s = SessionStore.open(tmp_path / "data" / "sessions.db")
    yield s
    s.close()


def _other_connection(path: Path) -> sqlite3.Connection:
    """What another process (or Frontier after a crash) would read: only committed rows."""
    return sqlite3.connect(path)


def test_default_location_honours_frontier_data_dir(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("FRONTIER_DATA_DIR", str(tmp_path / "dd"))
    assert default_path() == tmp_path / "dd" / "sessions.db"
    with SessionStore.open() as s:
        assert s.path == tmp_path / "dd" / "sessions.db"
    assert (tmp_path / "dd" / "sessions.db").is_file()


def test_database_is_private_wal_and_fully_synchronous(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "ctl")
    store.append_items(sid, [UserText("hi")])
    for suffix in ("", "-wal", "-shm"):
        mode = stat.S_IMODE(os.stat(str(store.path) + suffix).st_mode)
        assert mode == 0o600, (suffix, oct(mode))
    conn = store.db.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.current_version()


def test_existing_world_readable_database_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    path.touch()
    os.chmod(path, 0o644)
    SessionStore.open(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_every_write_is_committed_before_it_returns(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "ctl")
    other = _other_connection(store.path)
    store.append_items(sid, [UserText("add a flag")])
    store.add_assistant_text(sid, "I'll add it.")
    persistence = store.persistence(sid)
    persistence.persist_call(ToolCall("c1", "read", {"path": "a.py"}), READ, Preview("none"))
    types = [r[0] for r in other.execute("SELECT type FROM log ORDER BY seq")]
    assert types == ["user", "assistant", "call"]
    persistence.mark_started("c1")
    persistence.commit_result(ToolResult("c1", "read", "ok", "1 line"))
    types = [r[0] for r in other.execute("SELECT type FROM log ORDER BY seq")]
    assert types == ["user", "assistant", "call", "started", "result"]


def test_items_round_trip_exactly_and_in_order(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "native-inc")
    items = [
        UserText("résumé ✓ 日本"),
        AssistantTurn("", (CallEntry("call_1", "read", {"path": "a.py"}),)),
        ToolResults((ResultEntry("call_1", "read", "ok", 0, "1\tprint('hi')"),)),
        AssistantTurn("Done.", cut="[Reply interrupted by the user]"),
        UserText("result frames only", "feedback"),
    ]
    store.append_items(sid, items[:3])  # one round, one commit
    store.append_items(sid, items[3:])
    roles = store.db.read("SELECT role FROM messages WHERE session_id = ? ORDER BY seq", (sid,))
    assert [r for (r,) in roles] == ["user", "assistant", "results", "assistant", "user"]
    store.close()
    with SessionStore.open(store.path) as again:
        assert again.load_items(sid) == items
        assert again.timeline.load_items(sid) == items
        assert again.get_session(sid).turns == 1


def test_only_the_persons_text_is_a_turn(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "ctl")
    store.append_items(sid, [UserText("task")])
    framed = ToolResults((ResultEntry("c1", "read", "ok", 0, "ok"),), framed=True)
    store.append_items(
        sid,
        [
            AssistantTurn("call c1 read\nend\n"),
            framed,
            UserText("error contract (bad_arg) at byte 7", "feedback"),
            UserText("[Frontier compacted the conversation: ...]", "summary"),
            UserText("undo: a.py put back", "notice"),
            UserText("results that arrived late", "carried"),
        ],
    )
    assert store.get_session(sid).turns == 1
    assert [(r.type, r.data["text"]) for r in store.records(sid)] == [("user", "task")]
    assert store.load_items(sid)[2] == framed


def test_a_non_item_is_refused_before_anything_is_written(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "ctl")
    with pytest.raises(TypeError, match="not a conversation item"):
        store.append_items(sid, [UserText("ok"), {"role": "user", "content": "a dict"}])  # type: ignore[list-item]
    assert store.load_items(sid) == [] and store.records(sid) == []


def test_calls_pair_with_results_even_when_ids_repeat(store: SessionStore) -> None:
    """CTL ids are the model's choice: ``c1`` in two responses are two calls."""
    sid = store.create_session("/w", "m", None, "ctl")
    p = store.persistence(sid)
    for n in (1, 2):
        p.persist_call(ToolCall("c1", "read", {"path": f"f{n}"}), READ, Preview("none"))
        p.mark_started("c1")
        p.commit_result(ToolResult("c1", "read", "ok", f"out {n}"))
    calls = store.calls(sid)
    assert [(c.args["path"], c.result.output) for c in calls] == [("f1", "out 1"), ("f2", "out 2")]
    assert all(c.started is not None for c in calls)


def test_the_unresolved_calls_are_those_without_a_result_in_order(store: SessionStore) -> None:
    """Recovery's question, asked at every resume: read by the index, not by decoding every
    call; the same answer as every call filtered, ids repeating across responses."""
    sid = store.create_session("/w", "m", None, "ctl")
    seqs = [
        store.add_call(sid, ToolCall("c1", "read", {"path": f"f{n}"}), READ, Preview("none"))
        for n in range(5)
    ]
    for seq in (seqs[0], seqs[2], seqs[4]):
        store.add_result(sid, seq, ToolResult("c1", "read", "ok", f"out {seq}"))
    store.persistence(sid).commit_result(ToolResult("c9", "nope", "unknown_tool", "no tool"))
    unresolved = store.unresolved_calls(sid)
    assert [c.args["path"] for c in unresolved] == ["f1", "f3"]
    assert unresolved == [c for c in store.calls(sid) if c.result is None]


def test_a_call_gets_exactly_one_result(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "ctl")
    seq = store.add_call(sid, ToolCall("c1", "read", {}), READ, Preview("none"))
    store.add_result(sid, seq, ToolResult("c1", "read", "ok", ""))
    with pytest.raises(StoreError, match="already has a committed result"):
        store.add_result(sid, seq, ToolResult("c1", "read", "ok", ""))


def test_rejected_call_result_is_stored_without_a_call_row(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "ctl")
    store.persistence(sid).commit_result(ToolResult("c9", "nope", "unknown_tool", "no tool nope"))
    (rec,) = store.records(sid)
    assert rec.type == "result" and rec.ref is None and rec.data["kind"] == "unknown_tool"
    assert store.unresolved_calls(sid) == []


def test_mark_started_without_persisted_call_refuses(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "ctl")
    with pytest.raises(StoreError, match="persist_call must be committed before"):
        store.persistence(sid).mark_started("ghost")


def test_mutation_call_records_pre_and_post_hashes(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "ctl")
    preview = Preview(
        "diff",
        files=(
            FilePreview("a.py", "x", "y", "", "pre-a", "post-a"),
            FilePreview("new.py", None, "z", "", None, "post-new"),
        ),
    )
    store.persistence(sid).persist_call(ToolCall("c1", "write", {"path": "a.py"}), EDIT, preview)
    (call,) = store.calls(sid)
    assert call.mutates and call.kind == "edit"
    assert [(t.path, t.pre, t.post) for t in call.targets] == [
        ("a.py", "pre-a", "post-a"),
        ("new.py", None, "post-new"),
    ]


def test_bytes_arguments_survive_as_base64(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "ctl")
    store.add_call(sid, ToolCall("c1", "write", {"content": b"\xff\x00"}), EDIT, Preview("none"))
    assert store.calls(sid)[0].args == {"content": {"base64": "/wA="}}


# --------------------------------------------------------------------------- responses


def test_stream_events_are_durable_before_the_call_they_prove(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "ctl")
    rid = store.begin_response(sid, "ctl", "m", 0)
    other = _other_connection(store.path)
    for i in range(3):
        store.add_stream_event(rid, 0.1 * i, f'{{"n": {i}}}')
    assert other.execute("SELECT count(*) FROM stream_events").fetchone()[0] == 0
    store.persistence(sid).persist_call(ToolCall("c1", "read", {}), READ, Preview("none"))
    assert other.execute("SELECT count(*) FROM stream_events").fetchone()[0] == 3
    store.add_stream_event(rid, 0.5, "[DONE]")
    store.end_response(rid, "stop")
    assert other.execute("SELECT count(*) FROM stream_events").fetchone()[0] == 4


def test_recordings_rebuild_each_response(store: SessionStore) -> None:
    sid = store.create_session("/w", "qwen", None, "native-eos")
    r0 = store.begin_response(sid, "native-eos", "qwen", 0)
    store.add_stream_event(r0, 0.01, '{"choices":[{"delta":{"content":"hi"}}]}')
    store.add_stream_event(r0, 0.02, "[DONE]")
    store.end_response(r0, "stop")
    r1 = store.begin_response(sid, "native-eos", "qwen", 1)
    store.add_stream_event(r1, 0.5, '{"choices":[{"delta":{"content":"cut"}}]}')
    store.end_response(r1, "length")
    r2 = store.begin_response(sid, "native-eos", "qwen", 2)
    store.add_stream_event(r2, 0.7, "unflushed but visible")
    recs = store.recordings(sid)
    assert [(r.request_index, r.finish_reason, len(r.events)) for r in recs] == [
        (0, "stop", 2),
        (1, "length", 1),
        (2, None, 1),
    ]
    assert recs[0].events == (
        (0.01, '{"choices":[{"delta":{"content":"hi"}}]}'),
        (0.02, "[DONE]"),
    )
    assert recs[0].mode == "native-eos" and recs[0].model == "qwen"


def test_stream_event_for_unknown_response_is_a_clear_error(store: SessionStore) -> None:
    with pytest.raises(ValueError, match="begin_response first"):
        store.add_stream_event(42, 0.0, "x")


def test_large_streams_flush_in_bounded_batches(store: SessionStore, monkeypatch) -> None:
    import frontier.app.session.responses as responses_mod

    monkeypatch.setattr(responses_mod, "STREAM_FLUSH_EVENTS", 10)
    sid = store.create_session("/w", "m", None, "ctl")
    rid = store.begin_response(sid, "ctl", "m", 0)
    for i in range(25):
        store.add_stream_event(rid, i, str(i))
    assert len(store.responses.pending(rid)) == 5
    store.end_response(rid, "stop")
    assert [d for _, d in store.recordings(sid)[0].events] == [str(i) for i in range(25)]


# --------------------------------------------------------------------------- sessions


def test_list_newest_first_and_prefix_lookup(store: SessionStore, monkeypatch) -> None:
    import secrets  # the catalogue imports it where it makes an id

    ids = iter(["aa11aa11", "aa22aa22", "bb33bb33"])
    monkeypatch.setattr(secrets, "token_hex", lambda n: next(ids))
    for _ in range(3):
        store.create_session("/w", "m", None, "ctl")
    assert [s.id for s in store.list_sessions()] == ["bb33bb33", "aa22aa22", "aa11aa11"]
    assert store.get_session("bb").id == "bb33bb33"
    assert store.get_session("AA22").id == "aa22aa22"
    with pytest.raises(SessionNotFound, match="matches 2 sessions"):
        store.get_session("aa")
    with pytest.raises(SessionNotFound, match="frontier sessions"):
        store.get_session("zz")
    with pytest.raises(SessionNotFound):
        store.get_session("%")


def test_session_state(store: SessionStore) -> None:
    sid = store.create_session("/w", "m", None, "ctl")
    lock = store.lock_session(sid)  # a running Frontier has it open
    assert store.get_session(sid).state == "active"
    lock.release()
    assert store.get_session(sid).state == "interrupted"  # active, but nobody runs it
    store.set_state(sid, "done")
    assert store.get_session(sid).state == "done"
    with pytest.raises(ValueError, match="unknown session state"):
        store.set_state(sid, "weird")
    with pytest.raises(SessionNotFound):
        store.set_state("00000000", "done")


def test_writes_to_an_unknown_session_fail_loudly(store: SessionStore) -> None:
    with pytest.raises(StoreError, match="session id"):
        store.add_assistant_text("nope", "hello")


def test_base_url_credentials_are_not_stored() -> None:
    assert sanitize_url("https://user:sk-abc@host/v1") == "https://host/v1"
    assert sanitize_url("http://h/v1?api_key=sk1&deployment=x") == (
        "http://h/v1?api_key=[REDACTED]&deployment=x"
    )
    assert sanitize_url(None) is None


# --------------------------------------------------------------------------- failures


def test_disk_full_says_where_to_free_space(store: SessionStore) -> None:
    """A real SQLITE_FULL (the page budget exhausted) surfaces as an actionable StoreError."""
    sid = store.create_session("/w", "m", None, "ctl")
    pages = store.db.conn.execute("PRAGMA page_count").fetchone()[0]
    store.db.conn.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(StoreError, match=r"disk is full; free space in .*data"):
        store.add_assistant_text(sid, "x" * 200_000)
    store.db.conn.execute("PRAGMA max_page_count = 1073741823")
    store.add_assistant_text(sid, "after the disk was freed")
    assert [r.data["text"] for r in store.records(sid)] == ["after the disk was freed"]


def test_not_a_database_is_refused_with_advice(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="move it aside"):
        SessionStore.open(path)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    SessionStore.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {schema.current_version() + 5}")
    conn.close()
    with pytest.raises(StoreError, match="upgrade Frontier"):
        SessionStore.open(path)


def test_migrations_apply_in_order_once(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "sessions.db"
    with SessionStore.open(path) as s:
        sid = s.create_session("/w", "m", None, "ctl")
    newest = len(schema.MIGRATIONS) + 1
    extra = "ALTER TABLE sessions ADD COLUMN title TEXT;\nUPDATE sessions SET title = 'old';"
    monkeypatch.setattr(schema, "MIGRATIONS", (*schema.MIGRATIONS, extra))
    with SessionStore.open(path) as s:
        assert s.db.conn.execute("PRAGMA user_version").fetchone()[0] == newest
        assert s.db.conn.execute("SELECT title FROM sessions").fetchone()[0] == "old"
        assert s.get_session(sid).id == sid
    with SessionStore.open(path) as s:  # re-opening does not re-run the new step
        assert s.db.conn.execute("PRAGMA user_version").fetchone()[0] == newest


def test_failed_migration_leaves_previous_version(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "sessions.db"
    SessionStore.open(path).close()
    before = len(schema.MIGRATIONS)
    bad = "CREATE TABLE extra (x INTEGER);\nTHIS IS NOT SQL;"
    monkeypatch.setattr(schema, "MIGRATIONS", (*schema.MIGRATIONS, bad))
    with pytest.raises(StoreError):
        SessionStore.open(path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == before
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "extra" not in names


def test_stored_responses_become_recordings_for_check_and_replay(tmp_path: Path) -> None:
    from frontier.app.session.record import content_chunk, read_recording, write_recording
    from frontier.app.session.store import session_recordings

    text = "Reading it.\ncall c1 read\narg path a.py\nend\n"
    with SessionStore.open() as store:
        sid = store.create_session("/w", "qwen", None, "ctl")
        rid = store.begin_response(sid, "ctl", "qwen", 0)
        for i in range(0, len(text), 7):
            store.add_stream_event(rid, i / 100, content_chunk(text[i : i + 7]))
        store.add_stream_event(rid, 0.5, "[DONE]")
        store.end_response(rid, "stop")
        store.begin_response(sid, "ctl", "qwen", 1)  # the process dies mid-response
    ((name0, rec0), (name1, rec1)) = session_recordings(sid[:5])
    assert (name0, name1) == (f"{sid}#0", f"{sid}#1")
    assert rec0.transducer_input("ctl") == text.encode()
    assert rec0.clean and rec0.mode == "ctl" and rec0.model == "qwen"
    assert rec1.finish_reason == "disconnect" and rec1.events == ()
    write_recording(tmp_path / "r.jsonl", rec0)
    assert read_recording(tmp_path / "r.jsonl").events == rec0.events
    with pytest.raises(SessionNotFound, match="no session matches"):
        session_recordings("ffffffff")


def test_results_committed_after_the_last_round_are_undelivered(tmp_path: Path) -> None:
    """What resume must re-send: results the model never saw, and only those."""
    with SessionStore.open(tmp_path / "s.db") as s:
        sid = s.create_session("/w", "m", None, "ctl")
        s.append_items(sid, [UserText("go")])
        p = s.persistence(sid)
        spec = ToolSpec("read", "", {})
        p.persist_call(ToolCall("c1", "read", {}), spec, Preview("none"))
        p.commit_result(ToolResult("c1", "read", "ok", "one"))
        assert [r.call_id for r in s.undelivered_results(sid)] == ["c1"]
        one = ResultEntry("c1", "read", "ok", 0, "one")
        s.append_items(sid, [AssistantTurn(frame(one)), ToolResults((one,), framed=True)])
        assert s.undelivered_results(sid) == []
        p.persist_call(ToolCall("c2", "read", {}), spec, Preview("none"))
        p.commit_result(ToolResult("c2", "read", "ok", "two"))
        s.append_items(sid, [AssistantTurn("half a round")])
        assert [r.output for r in s.undelivered_results(sid)] == ["two"]


def test_undelivered_results_come_with_the_calls_they_answer(tmp_path: Path) -> None:
    """Resume keeps an interrupted native call's entry with its result attached: each
    undelivered result is paired with its own call row, even when ids repeat."""
    with SessionStore.open(tmp_path / "s.db") as s:
        sid = s.create_session("/w", "m", None, "native-inc", wire="openai-chat")
        p = s.persistence(sid)
        spec = ToolSpec("read", "", {})
        p.persist_call(ToolCall("c1", "read", {"path": "old.py"}, 11), spec, Preview("none"))
        p.commit_result(ToolResult("c1", "read", "ok", "old"))
        s.append_items(
            sid,
            [
                AssistantTurn("", (CallEntry("c1", "read", {"path": "old.py"}),)),
                ToolResults((ResultEntry("c1", "read", "ok", 0, "old"),)),
            ],
        )
        assert s.undelivered(sid) == []
        # the next response reuses the id c1; the process dies before the round is stored
        p.persist_and_start(
            ToolCall("c1", "write", {"path": "new.py", "content": b"\xff"}, 42),
            spec,
            Preview("none"),
        )
        p.commit_result(ToolResult("c1", "write", "interrupted", "outcome unknown"))
        denied = ToolCall("c2", "shell", {"command": "rm -rf /"})
        p.commit_rejected(denied, ToolResult("c2", "shell", "denied", "no"))
        p.commit_result(ToolResult("c3", "read", "truncated", "cut off"))  # never persisted
        pairs = s.undelivered(sid)
        assert [(c, r.call_id, r.kind) for c, r in pairs] == [
            (
                ToolCall("c1", "write", {"path": "new.py", "content": {"base64": "/w=="}}, 42),
                "c1",
                "interrupted",
            ),
            (ToolCall("c2", "shell", {"command": "rm -rf /"}), "c2", "denied"),
            (None, "c3", "truncated"),
        ]
        assert s.undelivered_results(sid) == [r for _, r in pairs]


def test_v1_database_upgrades_with_every_old_result_counted_as_delivered(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, schema.MIGRATIONS[:1])
    conn.execute("INSERT INTO sessions VALUES ('s1', 0, 0, '/w', 'm', NULL, 'ctl', 'done')")
    conn.execute(
        "INSERT INTO log (session_id, t, type, call_id, data) VALUES "
        "('s1', 0, 'result', 'c1', '{\"id\": \"c1\", \"kind\": \"ok\"}')"
    )
    conn.execute(
        "INSERT INTO messages (session_id, t, role, body) VALUES "
        '(\'s1\', 1, \'user\', \'{"role": "user", "content": "r"}\')'
    )
    conn.close()
    with SessionStore.open(path) as s:
        assert s.undelivered_results("s1") == []


def test_a_store_lists_the_same_with_its_counts_read_from_indexes_and_stays_v6(
    tmp_path: Path,
) -> None:
    # schema.INDEXES: listing sessions read every log row of every session before
    # (`frontier sessions` 0.29-0.37 s at 1,000 sessions of 40 calls; bench/session_list.py).
    # A store without them lists the same once they are made, and keeps its version, so an
    # older Frontier still opens it.
    path = tmp_path / "sessions.db"
    conn = sqlite3.connect(path, isolation_level=None)
    schema.migrate(conn, schema.MIGRATIONS)  # as Frontier made it before: no INDEXES
    for sid, created in (("s1", 1.0), ("s2", 2.0)):
        conn.execute(
            "INSERT INTO sessions VALUES (?, ?, ?, '/w', 'm', NULL, 'ctl', 'done', 'openai-chat')",
            (sid, created, created),
        )
    log = "INSERT INTO log (session_id, t, type, call_id, ref, data) VALUES ('s1', 0, ?, ?, ?, ?)"
    conn.execute(log, ("user", None, None, '{"text": "fix the bug"}'))
    for call_id, started, answered in (("a", True, True), ("b", True, False), ("c", False, True)):
        seq = conn.execute(log, ("call", call_id, None, '{"name": "read"}')).lastrowid
        if started:
            conn.execute(log, ("started", call_id, seq, "{}"))
        if answered:
            conn.execute(log, ("result", call_id, seq, '{"output": "ok"}'))
    conn.close()
    with SessionStore.open_readonly(path) as old:  # a read makes nothing
        before = old.list_sessions()
    with SessionStore.open(path) as new:
        db = new.db.conn
        assert db.execute("PRAGMA user_version").fetchone()[0] == 6
        indexes = {
            row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
        }
        after = new.list_sessions()
        query = new.catalogue.query()
        plan = [row[3] for row in db.execute(f"EXPLAIN QUERY PLAN {query}")]
    assert {"log_kind", "log_ref_type"} <= indexes and "log_ref" not in indexes
    assert after == before
    rows = [(i.id, i.turns, i.calls, i.interrupted_calls, i.first_prompt) for i in after]
    assert rows == [("s2", 0, 0, 0, ""), ("s1", 1, 3, 1, "fix the bug")]
    searches = [step for step in plan if step.startswith(("SEARCH", "SCAN"))]
    assert [s for s in searches if s.startswith("SCAN")] == ["SCAN s"], plan
    covering = [s for s in searches if "COVERING INDEX" in s]
    assert len(covering) == len(searches) - 2, plan  # all but the sessions and first prompt
