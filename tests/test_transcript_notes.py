"""The Transcript says whose words a row holds (issue 23): ``you`` is only what the person
typed — an undo notice the session sent the model with the next message is a note when
the session is resumed — and a note from the session (the context window was only
assumed) keeps the note column (``·``) rather than a label of its own."""

from __future__ import annotations

from typing import Any

from frontier.app.agent.runtime import create_runtime
from frontier.app.config import Config
from frontier.app.events import ContextUsage, UserMessage
from frontier.app.notices import split_notices, with_notices
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.widgets.state import UiState
from frontier.widgets.transcript import entry_text, tool_of


class Approve:
    """The person at the review (the undo is always reviewed): yes."""

    async def approve(self, call: Any, spec: ToolSpec, preview: Preview) -> Decision:
        return Decision(True)


def rows(state: UiState, width: int = 100) -> list[str]:
    return [
        line
        for entry in state.transcript
        for line in entry_text(entry, tool_of(entry, state.tools), width)
    ]


async def undo_then_type(text: str) -> tuple[str, str]:
    """A demo session: its story, ``/undo``, then ``text``; closed. Its id and the notice."""
    session = create_runtime(
        Config(approval="auto", protocol="ctl-heredoc"), approver=Approve(), demo=True, demo_rate=0
    )
    try:
        await session.send(session.demo_prompts[0])
        outcome = await session.undo()
        assert outcome.undone and outcome.notice is not None
        await session.send(text)
        return session.session_id, outcome.notice
    finally:
        await session.close()


async def test_a_resumed_session_shows_what_the_person_typed_and_the_undo_notice_apart() -> None:
    sid, notice = await undo_then_type("what is left?")
    resumed = create_runtime(Config(approval="auto"), session_id=sid, demo_rate=0)
    try:
        history = resumed.history_events()
    finally:
        await resumed.close()
    typed = [e for e in history if isinstance(e, UserMessage)]
    assert typed[-1] == UserMessage("what is left?", (notice,))
    assert all("re-read them" not in e.text for e in typed)

    state = UiState()
    state.show_history(history)
    yours = [e.text for e in state.transcript if e.role == "you"]
    assert yours[-1] == "what is left?"
    assert not any("re-read them" in text for text in yours)
    shown = rows(state)
    told = next(i for i, row in enumerate(shown) if "The user undid call" in row)
    assert shown[told].startswith("·    the model was told with this message: (The user undid")
    assert shown[told + 1 :] and any(row.startswith("you  what is left?") for row in shown[told:])


def test_notices_come_apart_from_the_message_they_opened() -> None:
    first = "(The user undid call c4 apply_patch: restored a.py. Those files are as they were.)"
    second = "(An undo the user ran (u2) was interrupted by a crash: b.py\nchanged since)"
    assert split_notices(with_notices([first, second], "go on")) == ((first, second), "go on")
    assert split_notices(with_notices([first], "")) == ((first,), "")
    # a message the person typed that merely starts with a parenthesis is theirs, whole
    assert split_notices("(just asking)\n\nok") == ((), "(just asking)\n\nok")
    assert split_notices("plain") == ((), "plain")


def test_an_assumed_context_window_is_a_note_row() -> None:
    state = UiState()
    state.apply(UserMessage("hi"))
    state.apply(ContextUsage(1_000, 8_192, "assumed"))
    state.apply(ContextUsage(1_200, 8_192, "assumed"))  # said once
    shown = rows(state)
    assert shown == [
        "you  hi",
        "·    context window assumed: 8,192 — set --context-window",
    ]


def test_a_note_typed_while_the_reply_streams_stays_below_it_and_the_reply_stays_whole() -> None:
    from frontier.app.events import Confirmed, ResponseStarted, TurnEnded

    state = UiState()
    state.apply(UserMessage("explain the module"))
    state.apply(ResponseStarted("ctl-heredoc", 0))
    state.apply(Confirmed(0, "text", b"The module reads "))
    state.note("/status\nsession 1234")  # the person typed /status meanwhile
    state.apply(Confirmed(17, "text", b"its settings first."))
    roles = [e.role for e in state.transcript]
    assert roles == ["you", "ai", "note"]  # one reply, the note under it
    assert state.transcript[1].text == "The module reads its settings first."
    state.apply(TurnEnded("cancelled", ""))  # stopped: the reply is still the one cut
    assert state.transcript[1].interrupted
