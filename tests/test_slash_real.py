"""``/compact`` and ``/model`` on a real session (issue 23), typed in the TUI's prompt.

A real ``create_runtime(config, interactive=True)`` session in a ``FrontierApp``, against
a chat-completions server on 127.0.0.1 that plays one scripted reply per request and
keeps every request body, so the test reads what the model was actually sent:

- ``/compact`` stubs the results older than the latest rounds (``compactor.compact_now``):
  the next request no longer carries the big file read at the start, and is shorter than
  the request before it although it adds a message;
- ``/model other``: the next request names ``other``, and ``frontier -c`` (the session of
  this workspace used last, resumed in the TUI) goes on with ``other``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from pilot_wait import focus_of, until
from sse_server import serve, sse, start_sse
from textual.pilot import Pilot

from frontier.app.agent.compactor import SUMMARY_PROMPT
from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.cli import main as cli
from frontier.app.commands import resume
from frontier.app.config import Config
from frontier.app.events import AssistantText, Compacted, Event, TurnEnded, UserMessage
from frontier.app.frontends.tui.app import FrontierApp
from frontier.widgets.prompt_input import PromptInput
from frontier.widgets.state import UiState

BIG_LINE = "line {:03d} of the big file, long enough to weigh in the context window\n"
BIG = "".join(BIG_LINE.format(i) for i in range(300))
MARK = "line 150 of the big file"
TURN_1 = (
    "Reading it.\ncall c1 read\narg path big.txt\nend\n",
    "call c2 read\narg path a.txt\nend\n",
    "call c3 read\narg path b.txt\nend\n",
    "Read all three.",
)
"""Four rounds: the big read is then older than the latest three (``DEFAULT_KEEP_ROUNDS``)."""


def chunk(text: str) -> bytes:
    return sse({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


@dataclass
class Model:
    """Replies from ``replies`` in order (then ``ok.``); a summary request gets a summary."""

    replies: list[str] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        system = str(body["messages"][0].get("content", ""))
        summary = system.startswith(SUMMARY_PROMPT[:40])
        if not summary:
            self.bodies.append(body)
        text = (
            "Summary: big.txt was read."
            if summary
            else (self.replies.pop(0) if self.replies else "ok.")
        )
        resp = await start_sse(request)
        for start in range(0, len(text), 16):
            await resp.write(chunk(text[start : start + 16]))
        await resp.write(sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp

    def sent(self, n: int = -1) -> dict[str, Any]:
        return self.bodies[n]


@pytest.fixture
async def model() -> AsyncIterator[Model]:
    scripted = Model()
    async with serve(scripted.dispatch) as url:
        scripted.url = url
        yield scripted


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.txt").write_text(BIG)
    (ws / "a.txt").write_text("alpha\n")
    (ws / "b.txt").write_text("beta\n")
    monkeypatch.chdir(ws)  # `frontier -c` continues the session of this directory
    return ws


def live_app(model: Model, workspace: Path, events: list[Event]) -> FrontierApp:
    config = Config(
        base_url=model.url,
        model="first",
        protocol="ctl-heredoc",
        approval="auto",
        context_window=100_000,  # only /compact compacts here, never the threshold
    )

    def factory() -> AgentSession:
        session = create_runtime(config, interactive=True, workspace=workspace)
        session.subscribe(events.append)
        return session

    return FrontierApp(config, session_factory=factory, remember_theme=False)


def turns_ended(events: list[Event]) -> int:
    return sum(isinstance(e, TurnEnded) for e in events)


async def ready(pilot: Pilot[Any]) -> PromptInput:
    app = pilot.app
    assert isinstance(app, FrontierApp)
    await until(pilot, lambda: app.session is not None, "the session")
    prompt = app.main.query_one("#prompt", PromptInput)
    prompt.focus()
    await focus_of(pilot, prompt, "the message box")
    return prompt


async def type_line(pilot: Pilot[Any], text: str) -> None:
    """``text`` typed into the prompt as a person types it, then Enter."""
    await pilot.press(*["space" if c == " " else c for c in text], "enter")


async def say(pilot: Pilot[Any], events: list[Event], text: str) -> None:
    """Send ``text`` and wait for its turn to end."""
    before = turns_ended(events)
    await type_line(pilot, text)
    await until(pilot, lambda: turns_ended(events) > before, f"the turn of {text!r}")


def notes(app: FrontierApp) -> str:
    return "\n".join(e.text for e in app.state.transcript if e.role == "note")


def size(body: dict[str, Any]) -> int:
    return len(json.dumps(body["messages"]))


async def test_compact_makes_the_next_request_shorter(model: Model, workspace: Path) -> None:
    model.replies = [*TURN_1, "Nothing else."]
    events: list[Event] = []
    app = live_app(model, workspace, events)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await say(pilot, events, "read big.txt, a.txt and b.txt")
        assert len(model.bodies) == 4
        before = model.sent()
        assert MARK in json.dumps(before["messages"])  # the big file is in the context

        await type_line(pilot, "/compact")
        await until(pilot, lambda: any(isinstance(e, Compacted) for e in events), "compacted")
        compacted = next(e for e in events if isinstance(e, Compacted))
        assert (compacted.step, compacted.reason) == ("stub", "manual")
        assert compacted.after < compacted.before
        assert len(model.bodies) == 4  # /compact never reached the model as a message
        await until(pilot, lambda: "⇣ compacted (/compact)" in notes(app), "the note")
        await until(pilot, lambda: app.session is not None and not app.session.busy, "idle")

        await say(pilot, events, "anything else?")
        after = model.sent()
        sent = json.dumps(after["messages"])
        assert "anything else?" in sent and "/compact" not in sent
        assert MARK not in sent  # the big read is a stub now
        assert size(after) < size(before)  # shorter, though it carries one more message
        sid = app.session.session_id  # type: ignore[union-attr]

    # resumed, the history says where the model's view was shortened, as it did live
    config = Config(base_url=model.url, model="first", protocol="ctl-heredoc", approval="auto")
    resumed = create_runtime(config, session_id=sid, workspace=workspace)
    try:
        history = resumed.history_events()
    finally:
        await resumed.close()
    assert history.count(compacted) == 1
    at = history.index(compacted)
    assert history[at - 1] == AssistantText("Read all three.")
    assert history[at + 1] == UserMessage("anything else?")
    state = UiState()
    state.show_history(history)
    shown = [(e.role, e.text) for e in state.transcript]
    line = next(i for i, (role, text) in enumerate(shown) if "⇣ compacted (/compact)" in text)
    assert shown[line - 1] == ("ai", "Read all three.")
    assert shown[line + 1] == ("you", "anything else?")


async def test_model_switch_is_used_next_and_kept_by_continue(
    model: Model, workspace: Path
) -> None:
    events: list[Event] = []
    app = live_app(model, workspace, events)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await say(pilot, events, "hello")
        assert model.sent()["model"] == "first"

        await type_line(pilot, "/model other")
        await until(
            pilot, lambda: app.session is not None and app.session.model == "other", "/model"
        )
        await until(pilot, lambda: not app.session.busy, "the switch to finish")  # type: ignore[union-attr]
        assert len(model.bodies) == 1  # the command is not a message
        await say(pilot, events, "who are you now?")
        assert model.sent()["model"] == "other"
        sid = app.session.session_id  # type: ignore[union-attr]

    # `frontier -c` in this workspace: the TUI the command builds, caught before it runs
    built: list[FrontierApp] = []

    def caught(self: FrontierApp, *args: Any, **kwargs: Any) -> int:
        built.append(self)
        return 0

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(FrontierApp, "run", caught)
        patch.setattr(resume, "terminal_problem", lambda: None)  # Pilot is the terminal
        assert await asyncio.to_thread(cli, ["-c"]) == 0
    (resumed,) = built
    seen: list[Event] = []
    async with resumed.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        session = resumed.session
        assert session is not None and session.session_id == sid
        assert session.model == "other"
        session.subscribe(seen.append)
        await say(pilot, seen, "still there?")
        body = model.sent()
        assert body["model"] == "other"
        assert "who are you now?" in json.dumps(body["messages"])  # the same conversation


async def test_memory_edits_agents_md_and_the_next_request_carries_it(
    model: Model, workspace: Path
) -> None:
    """`/memory` (stop 63): the project's AGENTS.md in the person's editor; saved, the
    next request's system prompt carries it, in the same session."""
    events: list[Event] = []
    app = live_app(model, workspace, events)
    opened: list[Path] = []

    async def editor(path: Path) -> str | None:
        opened.append(path)
        path.write_text("# Notes\nAlways answer in French.\n")
        return None

    app.open_editor = editor
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await say(pilot, events, "hello")
        assert "Always answer in French." not in str(model.sent()["messages"][0]["content"])
        await type_line(pilot, "/memory")
        await until(pilot, lambda: "AGENTS.md saved" in notes(app), "the note")
        assert [p.name for p in opened] == ["AGENTS.md"]  # a private copy, not the file
        assert opened[0].parent != workspace
        assert (workspace / "AGENTS.md").read_text() == "# Notes\nAlways answer in French.\n"
        await say(pilot, events, "bonjour")
        assert "Always answer in French." in str(model.sent()["messages"][0]["content"])


async def test_memory_refuses_a_linked_instruction_file(model: Model, workspace: Path) -> None:
    """A cloned repository's AGENTS.md may point anywhere (``~/.ssh/authorized_keys``):
    the editor is never opened on a link."""
    (workspace / "AGENTS.md").symlink_to(workspace / "a.txt")
    events: list[Event] = []
    app = live_app(model, workspace, events)
    opened: list[Path] = []

    async def editor(path: Path) -> str | None:
        opened.append(path)
        return None

    app.open_editor = editor
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await type_line(pilot, "/memory")
        await until(
            pilot,
            lambda: any("not a plain file" in n.message for n in app._notifications),
            "the refusal",
        )
        assert opened == []


def test_a_link_put_there_while_editing_is_never_written_through(tmp_path: Path) -> None:
    from frontier.app.agent.instructions import file_to_edit, save_edited

    target = tmp_path / "authorized_keys"
    target.write_text("ssh-ed25519 AAAA mine\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    path = file_to_edit(ws)
    assert path == ws / "AGENTS.md"
    (ws / "AGENTS.md").symlink_to(target)  # a background job, while the editor was open
    with pytest.raises(ValueError, match="not a plain file"):
        save_edited(ws, path, b"# Notes\n")
    assert target.read_text() == "ssh-ed25519 AAAA mine\n"
