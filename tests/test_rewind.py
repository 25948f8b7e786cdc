"""``/rewind``: back to before one of the person's messages — the files the calls since
changed put back (one reviewed, recorded, undoable undo call), the conversation the model
gets taken back to there (a compaction), or both — with the message's text to send again.

Through the real runtime (tools, store, each wire's encoder) against a strict loopback
server: the request after a rewind must be one the API accepts, and carry nothing of
what was rewound.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_undo import Reviews
from wire_scripts import (
    WIRES,
    Call,
    Text,
    WireServer,
    args,
    loopback_config,
    script,
    serve_wire,
    stream,
)

from frontier.app.agent.compaction_event import compaction_event
from frontier.app.agent.rewind import NAMES_KEPT, _net_changes, _Since
from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.agent.undo import UNDO_TOOL
from frontier.app.events import Compacted, Event, ToolResult, TurnEnded, UserMessage
from frontier.app.model.conversation import UserText
from frontier.app.session.calls import CallRecord, Target
from frontier.tools.contract import Decision
from frontier.widgets.pane_state.notes import compaction_line
from frontier.widgets.state import UiState

WAIT = 30.0

FIRST = (
    "*** Begin Patch\n*** Update File: a.py\n@@\n-one\n+ONE\n"
    "*** Add File: new.py\n+fresh\n*** End Patch"
)
SECOND = "*** Begin Patch\n*** Update File: a.py\n@@\n-ONE\n+ONE!\n*** End Patch"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Rig:
    """A stored session in ``ws`` against a strict server of one wire."""

    def __init__(self, server: WireServer, ws: Path, reviews: Reviews) -> None:
        self.server, self.ws, self.reviews = server, ws, reviews
        self.events: list[Event] = []
        self.session = self.open()

    def open(self, session_id: str | None = None) -> AgentSession:
        config = loopback_config(self.server.url, self.server.wire)
        session = create_runtime(
            config, approver=self.reviews, workspace=self.ws, session_id=session_id
        )
        session.subscribe(self.events.append)
        return session

    async def say(self, text: str, *replies: list[object]) -> None:
        self.server.answer(*(stream(script(self.server.wire, r)) for r in replies))
        ended = await asyncio.wait_for(self.session.send(text), WAIT)
        assert isinstance(ended, TurnEnded) and ended.reason == "done", ended
        assert self.server.refused == []

    async def two_messages(self) -> None:
        """Message 1 patches a.py and adds new.py; message 2 patches a.py again."""
        await self.say(
            "alpha-msg",
            [Call("call_1", "apply_patch", args(patch=FIRST))],
            [Text("did alpha")],
        )
        await self.say(
            "beta-msg",
            [Call("call_2", "apply_patch", args(patch=SECOND))],
            [Text("did beta")],
        )
        assert (self.ws / "a.py").read_text() == "ONE!\n"

    def last_request(self) -> str:
        return self.server.requests[-1].text


@asynccontextmanager
async def rig_of(wire: str, tmp_path: Path) -> AsyncIterator[Rig]:
    server = WireServer(wire, strict=True)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("one\n")
    async with serve_wire(server):
        r = Rig(server, ws, Reviews())
        try:
            yield r
        finally:
            await r.session.close()


@pytest.fixture(params=WIRES)
async def rig(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Rig]:
    async with rig_of(request.param, tmp_path) as r:
        yield r


async def test_rewinding_to_the_first_message_puts_back_files_and_conversation(rig: Rig) -> None:
    await rig.two_messages()
    points = await rig.session.rewind_points()
    assert [(p.number, p.text, p.files) for p in points] == [
        (1, "alpha-msg", ("a.py", "new.py")),
        (2, "beta-msg", ("a.py",)),
    ]

    outcome = await rig.session.rewind(1)

    assert outcome.kind == "rewound" and outcome.text == "alpha-msg"
    assert (rig.ws / "a.py").read_text() == "one\n" and not (rig.ws / "new.py").exists()
    # reviewed by the person as one diff from the files now to the files then
    call, spec, preview = rig.reviews.shown[-1]
    assert (call.name, spec.internal) == (UNDO_TOOL, True)
    assert {f.path: f.action for f in preview.files} == {"a.py": "modify", "new.py": "delete"}
    assert outcome.message == (
        "rewound to before your message 1: the conversation and the files (restored a.py; "
        "deleted new.py)"
    )
    assert outcome.notice is None  # its history and the files agree: nothing to tell it
    # the next request starts from nothing, and the API takes it
    await rig.say("again, differently", [Text("ok")])
    sent = rig.last_request()
    assert "again, differently" in sent
    assert "alpha-msg" not in sent and "beta-msg" not in sent and "call_1" not in sent


async def test_a_rewind_removes_the_folders_the_calls_since_made(tmp_path: Path) -> None:
    """The files a rewind deletes were made with their folders (`pkg/sub/new.py`): the
    rewind leaves no empty folder behind (the calls' ``meta["made"]``)."""
    patch = "*** Begin Patch\n*** Add File: pkg/sub/new.py\n+fresh\n*** End Patch"
    async with rig_of("openai-chat", tmp_path) as r:
        await r.say("make-it", [Call("call_1", "apply_patch", args(patch=patch))], [Text("made")])
        assert (r.ws / "pkg" / "sub" / "new.py").is_file()
        outcome = await r.session.rewind(1)
        assert outcome.kind == "rewound", outcome.message
        assert sorted(p.name for p in r.ws.iterdir()) == ["a.py"]


async def test_rewinding_to_the_second_message_keeps_the_first(rig: Rig) -> None:
    await rig.two_messages()

    outcome = await rig.session.rewind(2)

    assert outcome.kind == "rewound" and outcome.text == "beta-msg"
    assert (rig.ws / "a.py").read_text() == "ONE\n" and (rig.ws / "new.py").exists()
    await rig.say("beta, better", [Text("ok")])
    sent = rig.last_request()
    assert "alpha-msg" in sent and "did alpha" in sent and "call_1" in sent
    assert "did beta" not in sent and "call_2" not in sent
    # /undo now walks back from before message 2: message 1's change
    undone = await rig.session.undo()
    assert undone.undone and undone.call == "call_1"


async def test_undoing_the_rewinds_undo_brings_every_change_back(rig: Rig) -> None:
    await rig.two_messages()
    outcome = await rig.session.rewind(1)
    assert outcome.undo_id is not None

    redo = await rig.session.undo(outcome.undo_id)

    assert redo.undone, redo.message
    assert (rig.ws / "a.py").read_text() == "ONE!\n"
    assert (rig.ws / "new.py").read_text() == "fresh\n"
    # and the changes count as in effect again: a plain undo takes the newest of them
    again = await rig.session.undo()
    assert again.undone and again.call == "call_2"
    assert (rig.ws / "a.py").read_text() == "ONE\n"


async def test_the_conversation_alone_leaves_the_files_and_tells_the_model(rig: Rig) -> None:
    await rig.two_messages()

    outcome = await rig.session.rewind(2, files=False)

    assert outcome.kind == "rewound" and not rig.reviews.shown  # nothing to review
    assert (rig.ws / "a.py").read_text() == "ONE!\n"
    assert outcome.message == (
        "rewound to before your message 2: the conversation; the files stay as they are (a.py)"
    )
    await rig.say("beta, better", [Text("ok")])
    sent = rig.last_request()
    assert "call_2" not in sent
    assert "files changed after it were kept as they are now: a.py" in sent


async def test_the_conversation_alones_note_survives_a_resume(rig: Rig) -> None:
    """Closed before the next message, the session still tells the model once resumed."""
    await rig.two_messages()
    await rig.session.rewind(2, files=False)
    sid = rig.session.session_id
    await rig.session.close()
    rig.session = rig.open(sid)

    await rig.say("beta, better", [Text("ok")])
    assert "files changed after it were kept as they are now: a.py" in rig.last_request()
    await rig.say("and now", [Text("ok")])
    assert "kept as they are now" not in rig.last_request().split("beta, better")[-1]


async def test_the_files_alone_keep_the_conversation_and_tell_the_model(rig: Rig) -> None:
    await rig.two_messages()

    outcome = await rig.session.rewind(2, conversation=False)

    assert outcome.kind == "rewound" and outcome.forgotten == 0
    assert outcome.message == (
        "rewound the files to before your message 2 (restored a.py); the model keeps the "
        "conversation"
    )
    assert (rig.ws / "a.py").read_text() == "ONE\n"
    await rig.say("look again", [Text("ok")])
    sent = rig.last_request()
    assert "call_2" in sent  # the model still has what happened
    assert "put back the files changed since their message 'beta-msg'" in sent


async def test_a_file_changed_since_refuses_and_nothing_changes(rig: Rig) -> None:
    await rig.two_messages()
    (rig.ws / "a.py").write_text("edited by hand\n")
    requests = len(rig.server.requests)

    outcome = await rig.session.rewind(1)

    assert outcome.kind == "refused" and "a.py changed since call_2" in outcome.message
    assert outcome.message.endswith(
        "nothing written (the conversation alone can still be taken back: the files stay as "
        "they are)"
    )
    assert (rig.ws / "a.py").read_text() == "edited by hand\n"
    assert (rig.ws / "new.py").exists() and not rig.reviews.shown
    await rig.say("go on", [Text("ok")])
    assert len(rig.server.requests) == requests + 1
    assert "did beta" in rig.last_request()  # the conversation is whole


async def test_files_put_back_without_the_conversation_step_are_told_to_the_model(
    chat: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files go first; when the step cannot be stored after them (a full disk, or a
    crash — then told on resume) the model's conversation is whole and it hears which
    files were put back."""
    await chat.two_messages()
    store = chat.session._store  # type: ignore[attr-defined]

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(store.compactions, "add", full)
        outcome = await chat.session.rewind(2)

    assert outcome.kind == "failed"
    assert outcome.message == (
        "the files were put back (restored a.py) but the conversation could not be rewound: "
        "[Errno 28] No space left on device"
    )
    assert (chat.ws / "a.py").read_text() == "ONE\n"
    told = "(The user put back the files changed since their message 'beta-msg' as they were"
    assert outcome.notice is not None and outcome.notice.startswith(told)
    # the process dies before the next message: a resume tells the model all the same
    sid = chat.session.session_id
    await chat.session.close()
    chat.session = chat.open(sid)
    await chat.say("go on", [Text("ok")])
    assert told in chat.last_request() and "did beta" in chat.last_request()


async def test_a_declined_review_changes_nothing(rig: Rig) -> None:
    await rig.two_messages()
    rig.reviews.answer = Decision(False, "not now")

    outcome = await rig.session.rewind(1)

    assert outcome.kind == "denied"
    assert (rig.ws / "a.py").read_text() == "ONE!\n"
    rig.reviews.answer = Decision(True)
    await rig.say("go on", [Text("ok")])
    assert "did beta" in rig.last_request()


async def test_a_resumed_session_keeps_the_rewind_and_shows_it(rig: Rig) -> None:
    await rig.two_messages()
    await rig.session.rewind(2)
    sid = rig.session.session_id
    await rig.session.close()

    rig.session = rig.open(sid)
    shown = rig.session.history_events()
    lines = [compaction_line(e) for e in shown if isinstance(e, Compacted)]
    assert lines == [
        "⇤ rewound (/rewind) to before your message 2: it and what followed (4 items) "
        "taken out of what the model is sent (the originals stay in the session)"
    ]
    # the record keeps every message: both are in the resumed Transcript
    assert [e.text for e in shown if isinstance(e, UserMessage)] == ["alpha-msg", "beta-msg"]
    await rig.say("beta, after the resume", [Text("ok")])
    sent = rig.last_request()
    assert "did alpha" in sent and "did beta" not in sent
    # a second rewind counts the messages the model still has: only "alpha-msg" and the new one
    assert [p.text for p in await rig.session.rewind_points()] == [
        "alpha-msg",
        "beta, after the resume",
    ]


async def test_no_such_message_is_refused(rig: Rig) -> None:
    await rig.two_messages()
    outcome = await rig.session.rewind(3)
    assert outcome.kind == "not_found" and outcome.message == (
        "no message 3 to rewind to (messages: 1–2)"
    )


# --------------------------------------------------------------------------- one wire


@pytest.fixture
async def chat(tmp_path: Path) -> AsyncIterator[Rig]:
    async with rig_of("openai-chat", tmp_path) as r:
        yield r


async def test_commands_run_since_are_put_back_only_in_the_files_they_name(chat: Rig) -> None:
    await chat.say(
        "alpha-msg",
        [
            Call("call_1", "apply_patch", args(patch=FIRST)),
            Call("call_2", "shell", args(command="date > made.txt")),
        ],
        [Text("done")],
    )
    points = await chat.session.rewind_points()
    assert points[0].commands == ("call_2 shell",)

    outcome = await chat.session.rewind(1)

    assert outcome.kind == "rewound"
    assert outcome.message.endswith(
        "; not put back: what the command run since wrote beyond the files it names (call_2 shell)"
    )
    # the file the command's line names (its redirection) was found made, and is taken back
    assert not (chat.ws / "made.txt").exists()
    assert (chat.ws / "a.py").read_text() == "one\n"


async def test_jobs_started_since_are_named_to_the_model(chat: Rig) -> None:
    """A dev server a call after the message started still runs, and the rewound
    conversation has no trace of it: the model is told its id (started again, it would
    meet its own port in use)."""
    await chat.say("alpha-msg", [Text("hi")])
    await chat.say(
        "beta-msg",
        [Call("call_7", "shell", args(command="sleep 60", background=True))],
        [Text("started")],
    )
    assert [j.id for j in chat.session.running_jobs()] == ["call_7"]

    outcome = await chat.session.rewind(2)

    assert outcome.jobs_notice is not None and "call_7 (sleep 60)" in outcome.jobs_notice
    await chat.say("beta, better", [Text("ok")])
    sent = chat.last_request()
    assert "started after the point the conversation went back to still run: call_7" in sent
    # a job started before the message gone back to is in the conversation still: not named
    assert (await chat.session.rewind(2)).jobs_notice is None


async def test_a_message_with_no_change_after_it_rewinds_the_conversation_only(
    chat: Rig,
) -> None:
    await chat.say("hello", [Text("hi")])
    outcome = await chat.session.rewind(1)
    assert outcome.kind == "rewound" and outcome.undo_id is None and not chat.reviews.shown
    assert chat.session._loop.history == []  # type: ignore[attr-defined]


async def test_a_rewind_is_refused_during_a_turn(chat: Rig) -> None:
    gate = asyncio.Event()
    chat.server.answer(stream(script("openai-chat", [Text("thinking"), gate, Text("…")])))
    turn = asyncio.create_task(chat.session.send("slow"))
    await asyncio.wait_for(chat.server.held.wait(), WAIT)
    from frontier.app.agent.session import SessionBusy

    with pytest.raises(SessionBusy):
        await chat.session.rewind(1)
    gate.set()
    await asyncio.wait_for(turn, WAIT)


async def test_a_message_with_an_attached_file_comes_back_as_typed(chat: Rig) -> None:
    """Its ``@a.py`` attached the file's content under it; the box got all of that back,
    and sending it attached the file a second time beside the stale copy."""
    prepared = chat.session.attach("look at @a.py please")  # as the TUI sends a message
    await chat.say(prepared.text, [Text("ok")])
    assert "Attached file a.py" in chat.last_request()
    outcome = await chat.session.rewind(1)
    assert outcome.text == "look at @a.py please"
    assert [p.text for p in await chat.session.rewind_points()] == []


async def test_hunks_kept_in_the_review_are_told_to_the_model(chat: Rig) -> None:
    (chat.ws / "m.py").write_text("".join(f"line{i}\n" for i in range(1, 21)))
    two_hunks = (
        "*** Begin Patch\n*** Update File: m.py\n@@\n line1\n-line2\n+LINE2\n line3\n"
        "@@\n line17\n-line18\n+LINE18\n line19\n*** End Patch"
    )
    await chat.say(
        "alpha-msg", [Call("call_1", "apply_patch", args(patch=two_hunks))], [Text("ok")]
    )
    chat.reviews.answer = Decision(True, "keep the second", declined=(("m.py", 2),))

    outcome = await chat.session.rewind(1)

    assert outcome.kind == "rewound"
    lines = (chat.ws / "m.py").read_text().splitlines()
    assert (lines[1], lines[17]) == ("line2", "LINE18")  # the second hunk kept
    assert outcome.notice == (
        "(The user took the conversation back to before one of their messages and put back "
        "the files changed since, except the hunks they kept (m.py #2). Re-read m.py before "
        "editing it.)"
    )
    await chat.say("alpha, again", [Text("ok")])
    assert outcome.notice in chat.last_request()


async def test_the_export_and_undo_list_say_rewind(
    chat: Rig, capsys: pytest.CaptureFixture[str]
) -> None:
    await chat.two_messages()
    await chat.session.rewind(2)
    markdown = await chat.session.export()
    assert (
        "> ⇤ **rewound** (/rewind) to before message 2: from here on the model was sent only "
        "the 4 items before it; the records above are the originals"
    ) in markdown
    sid = chat.session.session_id
    await chat.session.close()
    from frontier.app.cli import main as cli

    capsys.readouterr()
    assert cli(["undo", sid, "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert any(line.split()[:4] == ["u1", "rewind", "(msg", "2)"] for line in listed), listed
    assert any("call_2" in line and "undone by u1" in line for line in listed), listed
    chat.session = chat.open(sid)  # closed again by the fixture


# --------------------------------------------------------------------------- the words


def test_a_cleared_context_reads_as_cleared_not_as_a_summary() -> None:
    """A resumed /clear read "0 rounds (0 messages) summarised by the model; 0 → 0 of 0
    tokens" (stop 62 found it while adding the rewind's line)."""
    event = compaction_event("summary", {"reason": "clear", "items": 6, "after": 0})
    assert compaction_line(event) == (
        "⇤ context cleared (/clear): the model forgets the 6 earlier items "
        "(the originals stay in the session)"
    )


def test_points_are_the_persons_messages_only() -> None:
    """A summary's or a repair's user-side text is no place to rewind to."""
    assert UserText("x", origin="summary").origin != "person"


# --------------------------------------------------------------------------- one sweep

versions = st.sampled_from([None, "h1", "h2", "h3"])
targets = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c", "d"]), versions, versions),
    min_size=1,
    max_size=3,
    unique_by=lambda t: t[0],
)
steps = st.lists(st.one_of(targets, st.just("command")), max_size=25)


def call_record(seq: int, step: object) -> CallRecord:
    if step == "command":
        return CallRecord(seq, f"c{seq}", "shell", {}, 0.0, "exec", False, (), "x", 1.0, None)
    files = tuple(Target(path, pre, post) for path, pre, post in step)  # type: ignore[union-attr]
    result = ToolResult(f"c{seq}", "write", "ok", "", None, 0.0, {"files": {"x": 1}})
    return CallRecord(seq, f"c{seq}", "write", {}, 0.0, "edit", True, files, None, 1.0, result)


@settings(max_examples=300, deadline=None)
@given(steps)
def test_the_sweep_says_what_each_suffix_changed(drawn: list[object]) -> None:
    """``rewind_points`` adds the calls from the newest back, once; what it says after each
    is what the calls after that point did, read forward (``_net_changes``, what the
    rewind's undo is made of)."""
    calls = [call_record(seq, step) for seq, step in enumerate(drawn, 1)]
    since = _Since()
    for at in range(len(calls), -1, -1):
        later = calls[at:]
        forward = list(_net_changes(later))
        files, count = since.files()
        assert (list(files), count) == (forward[:NAMES_KEPT], len(forward))
        commands, ran = since.commands()
        expect = [f"{c.call_id} shell" for c in later if c.name == "shell"]
        assert (list(commands), ran) == (expect[:NAMES_KEPT], len(expect))
        if at:
            since.add_earlier(calls[at - 1])


async def test_the_transcript_dims_what_the_model_no_longer_gets(rig: Rig) -> None:
    """After a rewind the Transcript still shows the messages it took out (the record
    keeps them), dimmed, so the person sees where the model's conversation ends; the
    rewind's own undo stays as it is (the files it put back stay put back)."""
    await rig.two_messages()
    await rig.session.rewind(2)
    sid = rig.session.session_id
    await rig.session.close()
    rig.session = rig.open(sid)
    state = UiState(clock=lambda: 0.0)
    for event in rig.session.history_events():
        state.apply(event)
    rows = [e for e in state.transcript if e.role in ("you", "ai", "call")]
    shown = {(e.call_id or e.text): e.forgotten for e in rows}
    assert shown == {
        "alpha-msg": False,
        "call_1": False,
        "did alpha": False,
        "beta-msg": True,
        "call_2": True,
        "did beta": True,
        "u1": False,
    }


def test_a_rewind_dims_from_the_message_it_went_back_to_and_clear_dims_all() -> None:
    """Live, the TUI adds the person's rows itself: a ``!command`` is no message and
    queued messages sent as one are one, so the count of messages taken out lands on
    the right row."""
    state = UiState(clock=lambda: 0.0)
    state.add_user("one")
    state.add_user("!ls", message=False)
    state.add_user("two")
    state.add_user("two, queued", message=False)
    state.add_user("three")
    state.apply(Compacted("summary", 0, 0, 0, 0, "rewind", "rewound", messages=2))
    dim = {e.text: e.forgotten for e in state.transcript if e.role == "you"}
    assert dim == {"one": False, "!ls": False, "two": True, "two, queued": True, "three": True}
    assert not state.transcript[-1].forgotten  # the rewind's own line
    state.apply(Compacted("summary", 0, 0, 0, 0, "rewind", "rewound", messages=5))
    assert not state.transcript[0].forgotten  # more than it shows: nothing guessed
    state.add_user("four, too long")  # withdrawn: the model never had it
    state.apply(Compacted("summary", 0, 0, 0, 0, "too_long", "withdrawn"))
    assert [e.forgotten for e in state.transcript if e.role == "you"][-1]
    state.apply(Compacted("summary", 0, 0, 0, 0, "rewind", "rewound", messages=1))
    assert state.transcript[0].forgotten  # "one": the withdrawn message was not counted
    state.add_user("four")
    state.apply(Compacted("summary", 0, 0, 0, 0, "clear", "cleared"))
    assert all(e.forgotten for e in list(state.transcript)[:-1])
