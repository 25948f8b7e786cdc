"""The conversation in the TUI, end to end: a real runtime against a loopback server.

The server streams a Markdown reply in parts the test releases, so a test can look
at the Transcript while the response is still open: prose is there as Markdown
(heading, emphasis, list, table, highlighted code) before any call or the end of
the response, and only what the transducer confirmed. Esc mid-reply keeps that
prose — in the Transcript, the store and the export — marked as interrupted.
Every wait is for a state (``pilot_wait``), never for a fixed time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from aiohttp import web
from pilot_wait import eventually, until, workers_done
from sse_server import Dispatch, serve, sse, start_sse
from textual.widgets import Static

from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.config import Config
from frontier.app.events import (
    CallReady,
    Event,
    QueuedDelivered,
    ResponseEnded,
    ResponseStarted,
    TurnEnded,
)
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.model.catalogue import assumed_window_text
from frontier.widgets.confirmed import ConfirmedView
from frontier.widgets.errors_pane import ErrorsPane
from frontier.widgets.prompt_input import PromptBox
from frontier.widgets.raw_stream import RawStreamView
from frontier.widgets.transcript import Transcript

HEAD = (
    "# Plan\n\n"
    "I'll do **three** things, with *care*:\n\n"
    "- read the parser\n"
    "- add a `--shout` flag\n"
    "- run the tests\n\n"
    "| file | change |\n"
    "|------|--------|\n"
    "| cli.py | the flag |\n\n"
    "```python\n"
    "def greet(name: str) -> str:\n"
    '    return f"hello {name}"\n'
)
REST = "```\n\nDone: nothing else changes.\n"


def chunk(text: str) -> bytes:
    return sse({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


def finish() -> bytes:
    stop = sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return stop + b"data: [DONE]\n\n"


@dataclass
class Reply:
    """A model that streams ``head`` in small pieces, then waits for ``more`` before
    streaming ``rest`` and finishing (``rest=None``: it never finishes)."""

    head: str
    rest: str | None = REST
    more: asyncio.Event = field(default_factory=asyncio.Event)
    url: str = ""

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        await request.json()
        resp = await start_sse(request)
        for start in range(0, len(self.head), 9):
            await resp.write(chunk(self.head[start : start + 9]))
            await asyncio.sleep(0)
        await self.more.wait()
        with contextlib.suppress(ConnectionError):  # Esc closed the connection meanwhile
            if self.rest is not None:
                await resp.write(chunk(self.rest))
                await resp.write(finish())
            await resp.write_eof()
        return resp


@pytest.fixture
async def reply() -> AsyncIterator[Reply]:
    model = Reply(HEAD)
    async with serve(model.dispatch) as url:
        model.url = url
        yield model
        model.more.set()  # let a handler still waiting end before the server stops


def live_app(reply: Reply, workspace: Path, events: list[Event]) -> FrontierApp:
    return app_for(reply.url, workspace, events)


def app_for(url: str, workspace: Path, events: list[Event], **settings: object) -> FrontierApp:
    """The TUI on a real runtime against ``url`` (ctl-heredoc, auto approval), its
    session's events kept in ``events``."""
    config = Config(base_url=url, model="m", protocol="ctl-heredoc", approval="auto", **settings)  # type: ignore[arg-type]

    def factory() -> AgentSession:
        session = create_runtime(config, interactive=True, workspace=workspace)
        session.subscribe(events.append)
        return session

    return FrontierApp(config, session_factory=factory, remember_theme=False)


def transcript_lines(app: FrontierApp) -> list[str]:
    return [line.rstrip() for line in app.screen.query_one(Transcript).plain_lines]


def ended(events: list[Event]) -> bool:
    return any(isinstance(e, ResponseEnded) for e in events)


async def start(pilot, app: FrontierApp, text: str) -> None:  # type: ignore[no-untyped-def]
    await until(pilot, lambda: app.session is not None, "the session")
    assert app.live is not None
    assert app.live.submit(text)


async def test_prose_streams_into_the_transcript_as_markdown(reply: Reply, tmp_path: Path) -> None:
    events: list[Event] = []
    app = live_app(reply, tmp_path, events)
    async with app.run_test(size=(140, 45)) as pilot:
        await start(pilot, app, "make a plan")

        def shows_the_open_reply() -> None:
            lines = transcript_lines(app)
            text = "\n".join(lines)
            assert "ai   Plan" in lines  # a heading, without its #
            assert "three things, with care:" in text  # emphasis without its stars
            assert any(line.strip() == "• add a --shout flag" for line in lines)
            assert any("cli.py" in line and "the flag" in line for line in lines)  # a table
            assert any("def greet(name: str) -> str:" in line for line in lines)
            assert "**" not in text and "```" not in text and "# Plan" not in text

        await eventually(pilot, shows_the_open_reply, "the reply while it streams")
        assert not ended(events), "the response is still open: this is streaming"
        assert app.state.turn_running

        # the code is highlighted: the line of code carries more than one colour
        view = app.screen.query_one(Transcript)
        strip = next(
            view.render_line(y)
            for y in range(view.size.height)
            if "def greet" in view.render_line(y).text
        )
        colours = {seg.style.color for seg in strip if seg.style and seg.text.strip()}
        assert len(colours) >= 2, colours

        reply.more.set()
        await until(pilot, lambda: not app.state.turn_running, "the end of the turn")
        await eventually(
            pilot,
            lambda: assert_in("Done: nothing else changes.", transcript_lines(app)),
            "the rest of the reply",
        )
        lines = transcript_lines(app)
        assert sum(line.startswith("ai ") for line in lines) == 1  # one reply, nothing twice
        assert sum("add a --shout flag" in line for line in lines) == 1
        # the server reports no context window: the Transcript says, once, that it is
        # only assumed (issue 20), before the reply
        assert [e.role for e in app.state.transcript] == [
            "you",
            "note",
            "ai",
        ]  # the assumed window: a note row
        assert app.state.transcript[1].text == assumed_window_text()
        assert app.state.transcript[-1].text == HEAD + REST
        await workers_done(app)


def assert_in(needle: str, lines: list[str]) -> None:
    assert any(needle in line for line in lines), f"{needle!r} not in {lines}"


async def test_only_confirmed_prose_is_shown(reply: Reply, tmp_path: Path) -> None:
    """A line that may still become a call (``call c9 rea``) is pending, not prose."""
    reply.head = "Reading it now.\ncall c9 rea"
    reply.rest = "d\narg path cli.py\nend\n"
    events: list[Event] = []
    app = live_app(reply, tmp_path, events)
    (tmp_path / "cli.py").write_text("print('hi')\n")
    async with app.run_test(size=(140, 45)) as pilot:
        await start(pilot, app, "read cli.py")
        await until(pilot, lambda: app.state.pending_size > 0, "the pending call header")
        await eventually(
            pilot, lambda: assert_in("ai   Reading it now.", transcript_lines(app)), "the prose"
        )
        assert not any("call c9" in line for line in transcript_lines(app))
        reply.more.set()
        await until(pilot, lambda: not app.state.turn_running, "the end of the turn")
        await workers_done(app)


async def test_escape_mid_reply_keeps_the_confirmed_prose_marked(
    reply: Reply, tmp_path: Path
) -> None:
    reply.head = "Here is the plan:\n\n- step one\n- step two\n\nca"
    reply.rest = None  # the model never finishes: only Esc ends this turn
    events: list[Event] = []
    app = live_app(reply, tmp_path, events)
    async with app.run_test(size=(140, 45)) as pilot:
        await start(pilot, app, "plan it")
        await eventually(
            pilot, lambda: assert_in("• step two", transcript_lines(app)), "the streamed list"
        )
        await pilot.press("escape")
        await until(
            pilot,
            lambda: any(isinstance(e, TurnEnded) and e.reason == "cancelled" for e in events),
            "the cancelled turn",
        )

        def marked() -> None:
            lines = transcript_lines(app)
            assert_in("• step two", lines)
            assert_in("⏹ interrupted", lines)

        await eventually(pilot, marked, "the kept prose, marked interrupted")
        reply_entry = next(e for e in app.state.transcript if e.role == "ai")
        assert reply_entry.interrupted
        # "ca" may still become "call …": pending, so never prose
        assert reply_entry.text == "Here is the plan:\n\n- step one\n- step two\n\n"

        session = app.session
        assert session is not None
        records = [json.loads(line) for line in (await session.export("jsonl")).splitlines()]
        said = [r for r in records if r["type"] == "assistant"]
        assert said == [
            {
                "type": "assistant",
                "t": said[0]["t"],
                "text": "Here is the plan:\n\n- step one\n- step two\n\n",
                "interrupted": True,
            }
        ]
        markdown = await session.export("markdown")
        assert "- step two" in markdown and "⏹ interrupted" in markdown
        await workers_done(app)


async def refused_and_given_back(  # type: ignore[no-untyped-def]
    pilot, app: FrontierApp, events: list[Event], text: str
) -> PromptBox:
    """Send ``text``; once its turn ends ``too_long``, the box holding it again."""
    await start(pilot, app, text)
    await until(
        pilot,
        lambda: any(isinstance(e, TurnEnded) and e.reason == "too_long" for e in events),
        "the refused turn",
    )
    box = app.prompt_box()
    assert box is not None
    await until(pilot, lambda: box.prompt.text == text.rstrip(), "the text back in the box")
    return box


async def test_a_message_too_long_for_the_window_comes_back_to_the_box(
    reply: Reply, tmp_path: Path
) -> None:
    """The window is stated (4,096 tokens) and the pasted log alone is larger: it is
    never sent, the Transcript says why with the sizes, and the text is back in the box
    to shorten (nothing the person wrote is lost)."""
    asked: list[str] = []
    original = reply.dispatch

    async def dispatch(request: web.Request) -> web.StreamResponse:
        asked.append(request.path)
        return await original(request)

    reply.dispatch = dispatch  # type: ignore[method-assign]
    log = "".join(f"00:{i % 60:02d} worker {i} failed: timeout\n" for i in range(1500))
    events: list[Event] = []
    app = app_for(reply.url, tmp_path, events, context_window=4096)
    async with app.run_test(size=(140, 45)) as pilot:
        box = await refused_and_given_back(pilot, app, events, log)
        assert box.prompt.cursor_location == box.prompt.document.end  # as a paste leaves it
        said = "it is back in the box (ctrl+z empties it)"
        await until(pilot, lambda: said in "\n".join(transcript_lines(app)), "the note drawn")
        box.prompt.focus()
        await pilot.press("ctrl+z")
        await until(pilot, lambda: box.prompt.is_empty, "the box emptied by one undo")
        text = "\n".join(transcript_lines(app))
        assert f"your message ({len(log.rstrip().encode()):,} bytes) is too long" in text
        assert "is 4,096 (the context_window setting), so it was not sent" in text
        assert asked == []  # not a byte went to the model
        await workers_done(app)


async def test_a_message_the_server_refuses_as_too_long_comes_back_to_the_box(
    tmp_path: Path,
) -> None:
    """Nobody stated the window, so the message goes; the server refuses it and says its
    window (4,096), which the message alone passes: the turn ends at once, with the
    server's words, and the text is back in the box."""
    refusal = {
        "error": {
            "code": 400,
            "message": "request (9100 tokens) exceeds the available context size (4096 "
            "tokens), try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 9100,
            "n_ctx": 4096,
        }
    }
    asked: list[str] = []

    async def dispatch(request: web.Request) -> web.StreamResponse:
        await request.read()
        asked.append(request.path)
        return web.json_response(refusal, status=400)

    message = "".join(f"00:{i % 60:02d} worker {i} failed: timeout\n" for i in range(400))
    events: list[Event] = []
    async with serve(dispatch) as url:
        app = app_for(url, tmp_path, events)
        async with app.run_test(size=(140, 45)) as pilot:
            await refused_and_given_back(pilot, app, events, message)
            (ended,) = [e for e in events if isinstance(e, TurnEnded)]
            assert "exceeds the available context size (4096" in ended.message
            said = "the model did not take your message: it is back in the box"
            await until(pilot, lambda: said in "\n".join(transcript_lines(app)), "the note drawn")
            text = "\n".join(transcript_lines(app))
            assert "⇣ compacted (the model could not take it): your message" in text
            assert asked.count("/v1/chat/completions") == 1  # no summary, no retry
            await workers_done(app)


LOG = "".join(f"00:{i % 60:02d} worker {i} failed: timeout\n" for i in range(200))
"""A pasted log of 200 lines: past a 900-token window on its own."""


def read_then_refused(asked: list[str], gate: asyncio.Event | None = None) -> Dispatch:
    """A model whose first reply reads notes.txt (once ``gate`` is set, when given) and
    which refuses every later request as too long for its 900-token window; each request's
    path goes into ``asked``."""
    refusal = {
        "error": {
            "message": "request (9100 tokens) exceeds the available context size (900 "
            "tokens), try increasing it",
            "type": "exceed_context_size_error",
        }
    }

    async def dispatch(request: web.Request) -> web.StreamResponse:
        await request.read()
        asked.append(request.path)
        if len(asked) > 1:
            return web.json_response(refusal, status=400)
        if gate is not None:
            await gate.wait()
        resp = await start_sse(request)
        await resp.write(chunk("call c1 read\narg path notes.txt\nend\n"))
        await resp.write(finish())
        await resp.write_eof()
        return resp

    return dispatch


async def test_a_queued_message_the_server_refuses_as_too_long_comes_back_to_the_box(
    tmp_path: Path,
) -> None:
    """Typed while the agent works, the message joins the turn's next request, which the
    server refuses as too long (the message alone passes its window): the model never
    answered it, so it is back in the box, as a message sent first would be. The one the
    model answered is not."""
    (tmp_path / "notes.txt").write_text("alpha\n")
    asked: list[str] = []
    answer = asyncio.Event()
    dispatch = read_then_refused(asked, answer)  # the person queues a message meanwhile
    events: list[Event] = []
    async with serve(dispatch) as url:
        app = app_for(url, tmp_path, events)
        async with app.run_test(size=(140, 45)) as pilot:
            await start(pilot, app, "read notes.txt")
            await until(pilot, lambda: len(asked) == 1, "the first request")
            assert app.live is not None and app.live.submit(LOG)
            await until(pilot, lambda: bool(app.session and app.session.queued()), "queued")
            answer.set()
            await until(pilot, lambda: any(isinstance(e, TurnEnded) for e in events), "the end")
            await workers_done(app)
            (ended,) = [e for e in events if isinstance(e, TurnEnded)]
            assert ended.reason == "too_long", ended.message
            assert any(isinstance(e, QueuedDelivered) for e in events)
            assert asked.count("/v1/chat/completions") == 2
            box = app.prompt_box()
            assert box is not None
            await until(pilot, lambda: box.prompt.text == LOG.rstrip(), "the text back")
            said = "the model did not take your message: it is back in the box"
            await until(pilot, lambda: said in "\n".join(transcript_lines(app)), "the note")


async def test_a_message_the_model_answered_stays_out_of_the_box(tmp_path: Path) -> None:
    """The model answered the message (a call, its result) before a later request was
    refused as too long: the message reached the model, so the box is left as it is."""
    (tmp_path / "notes.txt").write_text("alpha\n")
    asked: list[str] = []
    dispatch = read_then_refused(asked)
    events: list[Event] = []
    async with serve(dispatch) as url:
        app = app_for(url, tmp_path, events)
        async with app.run_test(size=(140, 45)) as pilot:
            await start(pilot, app, LOG)
            await until(pilot, lambda: any(isinstance(e, TurnEnded) for e in events), "the end")
            await workers_done(app)
            (ended,) = [e for e in events if isinstance(e, TurnEnded)]
            assert ended.reason == "too_long", ended.message
            assert asked.count("/v1/chat/completions") == 2
            box = app.prompt_box()
            assert box is not None and box.prompt.is_empty
            assert "did not take your message" not in "\n".join(transcript_lines(app))


# ---------------------------------------------------------------------- the demo's story


def demo_app() -> tuple[FrontierApp, list[Event]]:
    app = FrontierApp(
        Config(protocol="ctl-heredoc", approval="auto"),
        demo=True,
        demo_rate=0,
        remember_theme=False,
    )
    seen: list[Event] = []
    original = app.observe

    def observe(event: Event) -> None:
        seen.append(event)
        original(event)

    app.observe = observe  # type: ignore[method-assign]
    return app, seen


def demo_done(app: FrontierApp, seen: list[Event]) -> bool:
    return sum(isinstance(e, TurnEnded) for e in seen) >= 1 and not app.state.turn_running


async def test_stop_truncation_and_repairs_are_one_line_each() -> None:
    app, seen = demo_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: demo_done(app, seen), "the CTL demo", timeout=120)
        notes = [e.text for e in app.state.transcript if e.role == "stop"]
        # step 5: the hallucinated result frame after c5 stops the stream
        stops = [n for n in notes if n.startswith("■ ")]
        assert len(stops) == 1 and "text after call c5 dropped" in stops[0], notes
        # step 6: the reply cut off inside c6 (finish_reason length)
        cuts = [n for n in notes if n.startswith("✂ ")]
        assert cuts == [cuts[0]] and "(finish_reason length): c6 replace never ran" in cuts[0]
        # two repairs: the miscounted write (a contract error) and the truncation
        repairs = [n for n in notes if n.startswith("↺ ")]
        assert len(repairs) == 2, notes
        assert "truncated" in repairs[1]
        # the truncation is said once: no error entry repeats it, no frozen c6 call line
        errors = [e.text for e in app.state.transcript if e.role == "error"]
        assert not any(text.startswith("truncated") for text in errors), errors
        assert not any("truncated" in e.text for e in app.state.transcript if e.role == "note")
        # the Errors pane still has the truncation's detail
        assert any(row.kind == "truncated" for row in app.state.errors)

        def each_line_shown() -> None:
            text = " ".join(transcript_lines(app)).replace("  ", " ")
            for note in notes:
                words = note.split(" ", 1)[1]
                assert " ".join(words.split()) in " ".join(text.split()), note

        app.flush(force=True)
        await eventually(pilot, each_line_shown, "the one-line notes in the Transcript")
        await workers_done(app)


async def test_ctrl_n_starts_every_pane_over_for_the_new_session() -> None:
    app, seen = demo_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await until(pilot, lambda: demo_done(app, seen), "the CTL demo", timeout=120)
        first = app.session
        assert first is not None
        state = app.state
        assert state.response_count > 1 and state.errors and state.tools
        mark = len(seen)
        await pilot.press("ctrl+n")
        await until(
            pilot,
            lambda: app.session is not None and app.session is not first,
            "the native-inc session",
        )
        second = app.session
        assert second is not None
        await until(
            pilot,
            lambda: demo_done(app, seen[mark:]) and bool(state.tools),
            "the native-inc demo",
            timeout=120,
        )
        new = seen[mark:]

        # the Transcript: the earlier talk above one rule, its calls as they ended
        roles = [e.role for e in state.transcript]
        assert roles.count("session") == 1
        rule = roles.index("session")
        assert state.transcript[rule].text == f"new session {second.session_id} · native-inc"
        before, after = list(state.transcript)[:rule], list(state.transcript)[rule + 1 :]
        assert not any(e.call_id for e in before)
        # (each keeps its own row: it still folds and opens in the pager)
        assert any(e.tool is not None and e.tool.call.name == "read" for e in before)
        assert all(e.call_id in state.tools for e in after if e.call_id)
        # every other pane holds the new session's rows only, numbered from 1
        started = [e for e in new if isinstance(e, ResponseStarted)]
        assert [b.index for b in state.responses] == list(range(1, len(started) + 1))
        assert state.response_count == len(started)
        assert state.confirmed[0].label == "response 1 (native-inc)"
        assert set(state.tools) == {e.call.id for e in new if isinstance(e, CallReady)}
        assert not state.errors
        assert state.progress.tokens_in == sum(
            e.tokens.prompt or 0 for e in new if isinstance(e, ResponseEnded)
        )

        def panes_show_only_the_new_session() -> None:
            app.flush(force=True)
            assert_in(f"new session {second.session_id}", transcript_lines(app))
            confirmed = app.screen.query_one(ConfirmedView)
            assert confirmed.rows[0].label == "response 1 (native-inc)"
            assert app.screen.query_one(ErrorsPane).rows == []
            detail = app.screen.query_one("#error-detail", Static)
            assert str(detail.content) == "no contract errors"
            raw = app.screen.query_one(RawStreamView)
            assert raw.buffer is state.current and raw.buffer is not None
            assert raw.buffer.index == len(started)

        await eventually(pilot, panes_show_only_the_new_session, "the panes after ctrl+n")
        await workers_done(app)
