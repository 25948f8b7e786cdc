"""Messages typed while the agent works: queued, shown, editable, removable, and delivered
with the next model request — after the tool round's results, before the model is asked
again — as a user message stored like any other (docs/decisions-tui.md, "Queued messages").

The delivery rule is checked on the real ``AgentLoop`` (a scripted provider, and over
HTTP on 127.0.0.1 through the TUI); the message box on the real ``AgentSession``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from inline_boundary import InlineBoundary
from pilot_wait import eventually, focus_of, until, workers_done
from scripted import ScriptedClient
from sse_server import serve, sse, start_sse
from textual.pilot import Pilot
from textual.widgets import Static
from tui_input_fakes import EchoLoop, EchoRuntime, echo_factory

from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.agent.queue import MessageQueue
from frontier.app.agent.session import AgentSession, EventHub, NotQueued
from frontier.app.config import Config
from frontier.app.events import (
    Event,
    QueuedDelivered,
    ResponseStarted,
    ToolCall,
    ToolResult,
)
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.model.conversation import (
    AssistantTurn,
    ResultEntry,
    ToolResults,
    UserText,
    frame,
)
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamItem, WireEvent
from frontier.app.session.db import default_path
from frontier.app.session.store import SessionStore
from frontier.tools.registry import default_registry
from frontier.widgets.prompt_input import PromptInput

READ = "call c1 read\narg path a.txt\nend\n"


def text_chunks(text: str, size: int = 7) -> list[dict[str, Any]]:
    return [
        {"choices": [{"delta": {"content": text[i : i + size]}, "finish_reason": None}]}
        for i in range(0, len(text), size)
    ]


def native_call(call_id: str, name: str, args: str) -> list[dict[str, Any]]:
    head = {"index": 0, "id": call_id, "type": "function"}
    return [
        {"choices": [{"delta": {"tool_calls": [{**head, "function": {"name": name}}]}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": args}}]}}]},
    ]


class Client(ScriptedClient):
    """One scripted response per request; ``during(request, chunk)`` runs as each chunk
    is served (the user typing while the model streams). ``requests``: what each request
    sent, as chat messages; ``sent``: the same requests as the loop made them."""

    def __init__(
        self,
        responses: Sequence[tuple[Sequence[dict[str, Any]], str]],
        during: Callable[[int, int], None] = lambda request, chunk: None,
    ) -> None:
        super().__init__(responses)
        self.during = during

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        index = len(self.sent)
        chunk = 0
        async for item in super().stream(request):
            if isinstance(item, WireEvent):
                self.during(index, chunk)
                chunk += 1
            yield item


class Boundary(InlineBoundary):
    """Runs every call at once; ``during`` runs while a call executes."""

    def __init__(self, during: Callable[[ToolCall], None] = lambda call: None) -> None:
        self.during = during

    async def run(self, call: ToolCall) -> ToolResult:
        self.during(call)
        await asyncio.sleep(0)
        return ToolResult(call.id, call.name, "ok", f"output of {call.id}", exit_code=0)


def session_around(
    client: Client, boundary: Boundary, mode: str = "ctl-heredoc", max_turns: int = 20
) -> tuple[AgentSession, list[Event]]:
    hub = EventHub()
    seen: list[Event] = []
    hub.subscribe(seen.append)
    queue = MessageQueue(Path("."))
    loop = AgentLoop(
        client=client,
        boundary=boundary,
        registry=default_registry(),
        mode=get_mode(mode),
        emit=hub.emit,
        max_turns=max_turns,
        inbox=queue,
    )
    session = AgentSession(loop, hub, session_id="s1", workspace=Path("."), model="m", queue=queue)
    assert session.mode == mode  # the session reads it from the loop
    return session, seen


DONE = (text_chunks("All done."), "stop")
RESULT_C1 = ToolResults((ResultEntry("c1", "read", "ok", 0, "output of c1"),), framed=True)
"""What the history holds after ``Boundary`` ran ``READ`` (a text protocol: framed)."""


def frames(results: ToolResults) -> str:
    """``results`` as the result frames a text protocol sends."""
    return "".join(frame(r) for r in results.results)


# ---------------------------------------------------------------------- the loop


async def test_queued_during_a_tool_round_goes_after_its_results_before_the_next_request() -> None:
    holder: dict[str, AgentSession] = {}
    boundary = Boundary(lambda call: holder["s"].queue("also check b.txt"))
    client = Client([(text_chunks("Reading.\n" + READ), "stop"), DONE])
    session, seen = session_around(client, boundary)
    holder["s"] = session
    ended = await session.send("read a.txt")
    assert ended.reason == "done"
    # in the history: the reply, its results, then the queued message
    assert client.sent[1].items[-3:] == (
        AssistantTurn("Reading.\n" + READ),
        RESULT_C1,
        UserText("also check b.txt"),
    )
    # on the wire the results and the message are one user message (roles alternate),
    # the results first
    second = client.requests[1]
    assert second[-2] == {"role": "assistant", "content": "Reading.\n" + READ}
    assert second[-1] == {"role": "user", "content": frames(RESULT_C1) + "\n\nalso check b.txt"}
    assert session.queued() == ()
    delivered = [e for e in seen if isinstance(e, QueuedDelivered)]
    assert delivered == [QueuedDelivered(("also check b.txt",))]
    # told before the request it goes with
    starts = [i for i, e in enumerate(seen) if isinstance(e, ResponseStarted)]
    assert starts[0] < seen.index(delivered[0]) < starts[1]


async def test_queued_while_the_final_answer_streams_keeps_the_turn_going() -> None:
    holder: dict[str, AgentSession] = {}

    def typing(request: int, chunk: int) -> None:
        if request == 0 and chunk == 1:
            holder["s"].queue("one more thing")

    client = Client([(text_chunks("All done, nothing to run."), "stop"), DONE], typing)
    session, _seen = session_around(client, Boundary())
    holder["s"] = session
    ended = await session.send("hello")
    assert ended.reason == "done"
    assert len(client.requests) == 2  # the model was asked again, in the same turn
    assert client.requests[1][-2] == {"role": "assistant", "content": "All done, nothing to run."}
    assert client.requests[1][-1] == {"role": "user", "content": "one more thing"}


async def test_several_queued_messages_go_as_one_user_message_in_order() -> None:
    holder: dict[str, AgentSession] = {}

    def typing(call: ToolCall) -> None:
        session = holder["s"]
        first = session.queue("first")
        session.queue("second")
        third = session.queue("third")
        session.edit_queued(first.id, "first, edited")
        session.remove_queued(third.id)

    client = Client([(text_chunks(READ), "stop"), DONE])
    session, _seen = session_around(client, Boundary(typing))
    holder["s"] = session
    await session.send("go")
    assert client.sent[1].items[-2:] == (RESULT_C1, UserText("first, edited\n\nsecond"))
    assert client.requests[1][-1] == {
        "role": "user",
        "content": frames(RESULT_C1) + "\n\nfirst, edited\n\nsecond",
    }


async def test_in_native_modes_it_follows_the_tool_messages() -> None:
    holder: dict[str, AgentSession] = {}
    boundary = Boundary(lambda call: holder["s"].queue("steer: use b.txt"))
    chunks = native_call("a", "read", '{"path": "a.txt"}')
    final = {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}
    client = Client([([*chunks, final], "tool_calls"), DONE])
    session, _seen = session_around(client, boundary, mode="native-inc")
    holder["s"] = session
    await session.send("go")
    second = client.requests[1]
    assert second[-3]["tool_calls"][0]["id"] == "a"
    assert second[-2]["role"] == "tool" and second[-2]["tool_call_id"] == "a"
    assert second[-1] == {"role": "user", "content": "steer: use b.txt"}


async def test_what_a_turn_could_not_deliver_opens_the_next_turn() -> None:
    holder: dict[str, AgentSession] = {}
    boundary = Boundary(lambda call: holder["s"].queue("typed during the last request"))
    client = Client([(text_chunks(READ), "stop"), DONE])
    session, seen = session_around(client, boundary, max_turns=1)
    holder["s"] = session
    ended = await session.send("go")
    assert ended.reason == "max_turns"  # no request left to carry it
    assert [m.text for m in session.queued()] == ["typed during the last request"]
    await session.send("and now this")
    opened = UserText("typed during the last request\n\nand now this")
    assert client.sent[1].items[-2:] == (RESULT_C1, opened)
    # the last turn's results and this message go as one user message (roles alternate)
    assert client.requests[1][-1] == {
        "role": "user",
        "content": frames(RESULT_C1) + "\n\n" + opened.text,
    }
    assert session.queued() == ()
    assert any(isinstance(e, QueuedDelivered) for e in seen)


async def test_a_delivered_message_can_no_longer_be_edited_or_removed() -> None:
    holder: dict[str, Any] = {}

    def typing(call: ToolCall) -> None:
        holder["m"] = holder["s"].queue("soon gone")

    client = Client([(text_chunks(READ), "stop"), DONE])
    session, _seen = session_around(client, Boundary(typing))
    holder["s"] = session
    await session.send("go")
    with pytest.raises(NotQueued, match="already delivered"):
        session.edit_queued(holder["m"].id, "too late")
    with pytest.raises(NotQueued):
        session.remove_queued(holder["m"].id)
    with pytest.raises(ValueError, match="empty"):
        session.queue("  \n")


# ---------------------------------------------------------------------- the message box


def make_app(root: Path, holder: list[EchoRuntime], **kw: object) -> FrontierApp:
    return FrontierApp(
        Config(base_url="http://127.0.0.1:9/v1", model="echo"),
        session_factory=echo_factory(root, holder, **kw),  # type: ignore[arg-type]
        remember_theme=False,
    )


def prompt_of(app: FrontierApp) -> PromptInput:
    return app.main.query_one("#prompt", PromptInput)


def queue_strip(app: FrontierApp) -> str:
    strip = app.main.query_one("#prompt-queue", Static)
    return str(strip.render()) if strip.has_class("-shown") else ""


async def submit(pilot: Pilot, text: str) -> None:
    app = pilot.app
    assert isinstance(app, FrontierApp)
    await focus_of(pilot, lambda: prompt_of(app), "the message box")
    await pilot.press(*text, "enter")


async def a_turn_running(
    pilot: Pilot[Any], app: FrontierApp, holder: list[EchoRuntime]
) -> EchoLoop:
    """The session up and a turn started with "start" (held by the echo loop): its loop."""
    await until(pilot, lambda: app.session is not None, "the session")
    await submit(pilot, "start")
    loop = holder[0].loop
    await until(pilot, loop.started.is_set, "the turn started")
    return loop


async def test_typed_while_working_is_queued_edited_removed_then_delivered(
    tmp_path: Path,
) -> None:
    holder: list[EchoRuntime] = []
    app = make_app(tmp_path, holder, hold=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session")
        prompt = prompt_of(app)
        await submit(pilot, "start")
        loop = holder[0].loop
        await until(pilot, loop.started.is_set, "the turn started")
        await submit(pilot, "first note")
        await submit(pilot, "second note")
        await submit(pilot, "third note")
        session = holder[0].session
        await until(pilot, lambda: len(session.queued()) == 3, "three queued")
        assert prompt.text == ""
        await eventually(
            pilot,
            lambda: _contains(queue_strip(app), ["⧗ queued #1 first note", "#3 third note"]),
            "the queue shown above the box",
        )
        # ↑ on an empty box: the newest queued message, edited in place
        await pilot.press("up")
        await until(pilot, lambda: prompt.editing == 3, "editing #3")
        assert prompt.text == "third note"
        # unchanged, ↑ steps to the one before; Esc leaves it as it was
        await pilot.press("up")
        await until(pilot, lambda: prompt.editing == 2, "editing #2")
        await pilot.press("escape")
        await until(pilot, lambda: prompt.editing is None and prompt.text == "", "left alone")
        assert loop.cancelled is False  # Esc in the box did not stop the turn
        # edit #3: Enter saves it in its place
        await pilot.press("up")
        await until(pilot, lambda: prompt.editing == 3, "editing #3 again")
        await pilot.press("space", *"(edited)", "enter")
        await until(
            pilot,
            lambda: [m.text for m in session.queued()][-1] == "third note (edited)",
            "the edit saved",
        )
        # emptied, Enter removes #2
        await pilot.press("up", "up")
        await until(pilot, lambda: prompt.editing == 2, "editing #2 again")
        await pilot.press(*["backspace"] * len("second note"), "enter")
        await until(pilot, lambda: [m.id for m in session.queued()] == [1, 3], "#2 removed")
        loop.release.set()
        await until(pilot, lambda: len(loop.sent) == 2, "the next request")
        await workers_done(app)
        await eventually(pilot, lambda: _equal(queue_strip(app), ""), "the queue emptied")
    assert loop.sent == ["start", "first note\n\nthird note (edited)"]
    yous = [e.text for e in app.state.transcript if e.role == "you"]
    assert yous == ["start", "first note", "third note (edited)"]
    history = holder[0].session.prompt_history.entries()
    assert history == ["start", "first note", "second note", "third note"]  # as typed


async def test_queued_left_by_a_stopped_turn_wait_and_an_empty_enter_sends_them(
    tmp_path: Path,
) -> None:
    holder: list[EchoRuntime] = []
    app = make_app(tmp_path, holder, hold=True)
    async with app.run_test(size=(120, 40)) as pilot:
        loop = await a_turn_running(pilot, app, holder)
        await submit(pilot, "keep this")
        session = holder[0].session
        await until(pilot, lambda: len(session.queued()) == 1, "queued")
        await pilot.press("escape")  # stop the turn
        await workers_done(app)
        notes = [e.text for e in app.state.transcript if e.role == "note"]
        assert any("1 queued message not delivered (the turn ended: cancelled)" in n for n in notes)
        assert queue_strip(app)  # still shown, still editable
        loop.hold = False
        await focus_of(pilot, lambda: prompt_of(app), "the box")
        await pilot.press("enter")  # an empty Enter sends what waits
        await until(pilot, lambda: len(loop.sent) == 2, "the queued message sent")
        await workers_done(app)
    assert loop.sent[1] == "keep this"
    assert [e.text for e in app.state.transcript if e.role == "you"] == ["start", "keep this"]


async def test_a_new_message_after_a_stopped_turn_follows_what_was_queued(
    tmp_path: Path,
) -> None:
    holder: list[EchoRuntime] = []
    app = make_app(tmp_path, holder, hold=True)
    async with app.run_test(size=(120, 40)) as pilot:
        loop = await a_turn_running(pilot, app, holder)
        await submit(pilot, "queued first")
        await until(pilot, lambda: len(holder[0].session.queued()) == 1, "queued")
        await pilot.press("escape")
        await workers_done(app)
        loop.hold = False
        await submit(pilot, "typed after")
        await until(pilot, lambda: len(loop.sent) == 2, "the next turn")
        await workers_done(app)
    assert loop.sent[1] == "queued first\n\ntyped after"
    yous = [e.text for e in app.state.transcript if e.role == "you"]
    assert yous == ["start", "queued first", "typed after"]  # in the order they were typed


def _contains(text: str, parts: list[str]) -> None:
    for part in parts:
        assert part in text, f"{part!r} not in {text!r}"


def _equal(actual: object, expected: object) -> None:
    assert actual == expected, f"{actual!r} != {expected!r}"


# ---------------------------------------------------------------------- over HTTP


def content(text: str) -> bytes:
    return sse({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


def finish() -> bytes:
    return (
        sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}) + b"data: [DONE]\n\n"
    )


async def test_over_http_the_queued_message_follows_the_tool_results_and_is_stored(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    (root / "b.txt").write_text("bravo\n")
    requests: list[dict[str, Any]] = []
    release = asyncio.Event()

    async def dispatch(request: web.Request) -> web.StreamResponse:
        requests.append(await request.json())
        resp = await start_sse(request)
        if len(requests) == 1:
            await resp.write(content("Reading a.txt.\n" + READ))
            await release.wait()  # the model "thinks on" while the read has run
            await resp.write(finish())
        else:
            await resp.write(content("Both read.") + finish())
        await resp.write_eof()
        return resp

    async with serve(dispatch) as url:
        config = Config(base_url=url, model="m", approval="auto", protocol="ctl-heredoc")
        app = FrontierApp(config, workspace=root, remember_theme=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.session is not None, "the session")
            session = app.session
            assert session is not None
            await submit(pilot, "read a.txt")
            await until(
                pilot,
                lambda: "c1" in app.state.tools and app.state.tools["c1"].state == "ok",
                "the read done while the response is still open",
            )
            await submit(pilot, "then look at @b.txt")
            await until(pilot, lambda: len(session.queued()) == 1, "queued")
            release.set()
            await until(pilot, lambda: len(requests) == 2, "the next request")
            await workers_done(app)
            session_id = session.session_id
    messages = requests[1]["messages"]
    queued = "then look at @b.txt\n\nAttached file b.txt (6 bytes):\n```\nbravo\n```"
    # the results and the queued message, results first, as one user message (roles
    # alternate: issue 20)
    assert messages[-2] == {"role": "assistant", "content": "Reading a.txt.\n" + READ}
    assert messages[-1]["role"] == "user"
    assert messages[-1]["content"].startswith("result c1 ")
    assert messages[-1]["content"].endswith("\nend\n\n\n" + queued)
    notes = [e.text for e in app.state.transcript if e.role == "note"]
    assert "attached b.txt (6 bytes)" in notes
    with SessionStore.open_readonly(default_path()) as store:
        stored = store.load_items(session_id)
        typed = [r.data["text"] for r in store.records(session_id) if r.type == "user"]
    results = stored[-3]
    assert isinstance(results, ToolResults)
    assert [(r.call_id, r.kind) for r in results.results] == [("c1", "ok")]
    assert messages[-1]["content"] == frames(results) + "\n\n" + queued
    assert stored[-2] == UserText(queued)  # stored like any message, after the results
    assert stored[-1] == AssistantTurn("Both read.")  # then the model's answer
    assert typed == ["read a.txt", queued]


async def test_quitting_with_messages_queued_says_they_were_not_sent(tmp_path: Path) -> None:
    """ctrl+q mid-turn with messages queued: they never reach the model, and quitting said
    nothing (the queue's row went with the screen). ↑ brings them back next time."""
    holder: list[EchoRuntime] = []
    app = make_app(tmp_path, holder, hold=True)
    async with app.run_test(size=(120, 40)) as pilot:
        loop = await a_turn_running(pilot, app, holder)
        await submit(pilot, "also check the logs")
        await submit(pilot, "and the tests")
        session = holder[0].session
        await until(pilot, lambda: len(session.queued()) == 2, "two queued")
        await pilot.press("ctrl+q")
    assert loop.sent == ["start"]
    assert app.quit_note == (
        "Your 2 queued messages were not sent: ↑ in the message box brings them back."
    )
    assert session.prompt_history.entries()[-2:] == ["also check the logs", "and the tests"]


def test_a_file_sent_whole_with_a_queued_message_counts_as_read(tmp_path: Path) -> None:
    """`@notes.md` typed while the agent works goes with the queued message when it is
    delivered; the model has then seen the file, as for a message sent at once, so a
    whole-file write of it is not refused as never read (tools/file_views.py)."""
    from frontier.tools.file_views import FileViews

    (tmp_path / "notes.md").write_text("# Notes\n")
    views = FileViews()
    queue = MessageQueue(tmp_path, views)
    queue.add("and tidy @notes.md")
    assert not views.knows("notes.md")
    delivery = queue.take()
    assert delivery is not None and "# Notes" in delivery.content
    assert views.knows("notes.md")
