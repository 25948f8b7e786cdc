"""Project instructions end to end: what the model is sent, what each front end lists at
session start, ``--no-instructions``, and a resume that reads them again."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from pilot_wait import until, workers_done
from sse_server import serve, sse, start_sse

from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.config import Config
from frontier.app.frontends.headless import run_headless
from frontier.app.frontends.tui.app import FrontierApp
from frontier.widgets.transcript import Transcript

ROOT_RULES = "Use tabs for indentation.\n"
WS_RULES = "Never touch generated/.\n"


@dataclass
class Model:
    """Answers every request with a short reply and keeps what it was sent."""

    url: str = ""
    bodies: list[dict[str, Any]] = field(default_factory=list)

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        self.bodies.append(await request.json())
        resp = await start_sse(request)
        await resp.write(sse({"choices": [{"index": 0, "delta": {"content": "Done."}}]}))
        await resp.write(sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp

    def system(self, index: int = -1) -> str:
        first = self.bodies[index]["messages"][0]
        assert first["role"] == "system"
        return str(first["content"])


@pytest.fixture
async def model() -> AsyncIterator[Model]:
    found = Model()
    async with serve(found.dispatch) as url:
        found.url = url
        yield found


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """``repo/`` (a git repository) with an AGENTS.md; the workspace is ``repo/app``,
    with a CLAUDE.md of its own; an AGENTS.md above the repository is never read."""
    (tmp_path / "AGENTS.md").write_text("ABOVE THE REPOSITORY\n")
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "AGENTS.md").write_text(ROOT_RULES)
    ws = root / "app"
    ws.mkdir()
    (ws / "CLAUDE.md").write_text(WS_RULES)
    return ws


def config(model: Model, **extra: Any) -> Config:
    return Config(base_url=model.url, model="m", protocol="ctl-heredoc", approval="auto", **extra)


LISTED = [
    f"note project instructions: ../AGENTS.md ({len(ROOT_RULES)} B)",
    f"note project instructions: CLAUDE.md ({len(WS_RULES)} B)",
]


async def test_headless_run_lists_them_and_sends_them_in_the_system_prompt(
    model: Model, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = await run_headless(config(model), prompts=["hi"], workspace=workspace)
    assert status == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:4] == [*LISTED, "you hi"], lines  # at start, before the first message
    system = model.system()
    assert system.index("## ../AGENTS.md\n" + ROOT_RULES) < system.index(
        "## CLAUDE.md\n" + WS_RULES.strip()
    )
    assert system.rstrip().endswith(WS_RULES.strip())  # the nearest file has the last word
    assert "ABOVE THE REPOSITORY" not in system


async def test_json_names_them_in_the_session_line(
    model: Model, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await run_headless(config(model), prompts=["hi"], workspace=workspace, as_json=True)
    out, err = capsys.readouterr()
    first = json.loads(out.splitlines()[0])
    assert first["instructions"] == [
        {"path": "../AGENTS.md", "status": "full", "size": 26, "sent": 26, "reason": ""},
        {"path": "CLAUDE.md", "status": "full", "size": 24, "sent": 24, "reason": ""},
    ]
    assert err.splitlines()[:2] == LISTED  # notes stay off stdout with --json


async def test_no_instructions_sends_and_lists_none(
    model: Model, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await run_headless(config(model, instructions=False), prompts=["hi"], workspace=workspace)
    assert "project instructions" not in capsys.readouterr().out
    assert "Project instructions" not in model.system()
    assert ROOT_RULES.strip() not in model.system()


async def test_resume_reads_them_again(
    model: Model, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    await run_headless(config(model), prompts=["hi"], workspace=workspace, as_json=True)
    session_id = json.loads(capsys.readouterr().out.splitlines()[0])["id"]
    (workspace / "CLAUDE.md").write_text("Changed since: keep generated/ as it is.\n")
    (workspace / "AGENTS.md").write_text("New in the workspace.\n")
    await run_headless(config(model), prompts=["again"], session_id=session_id)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:4] == [
        LISTED[0],
        "note project instructions: AGENTS.md (22 B)",
        "note project instructions: CLAUDE.md (41 B)",
    ]
    system = model.system()
    assert "Changed since" in system and "New in the workspace." in system
    assert WS_RULES.strip() not in system
    # the system prompt is never stored: the resumed history starts with the first user turn
    assert [m["role"] for m in model.bodies[-1]["messages"]][:3] == ["system", "user", "assistant"]


async def test_the_demo_project_has_instructions_of_its_own() -> None:
    session = create_runtime(Config(approval="auto"), demo=True, demo_rate=0)
    try:
        assert [(f.path, f.status) for f in session.instructions] == [("AGENTS.md", "full")]
        assert session.notes[0].startswith("project instructions: AGENTS.md (")
    finally:
        await session.close()


# --------------------------------------------------------------------------- the TUI


def tui(model: Model, make: Any) -> FrontierApp:
    def factory() -> AgentSession:
        return make()  # type: ignore[no-any-return]

    return FrontierApp(config(model), session_factory=factory, remember_theme=False)


def transcript(app: FrontierApp) -> str:
    return "\n".join(line.rstrip() for line in app.screen.query_one(Transcript).plain_lines)


async def test_the_tui_lists_them_at_start_and_after_a_resume(
    model: Model, workspace: Path
) -> None:
    def fresh() -> AgentSession:
        return create_runtime(config(model), interactive=True, workspace=workspace)

    app = tui(model, fresh)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.session is not None, "the session")
        await until(
            pilot,
            lambda: "project instructions: CLAUDE.md" in transcript(app),
            "the instructions listed",
        )
        text = transcript(app)
        assert text.index("project instructions: ../AGENTS.md") < text.index(
            "project instructions: CLAUDE.md"
        )
        assert app.live is not None and app.live.submit("hi")
        await until(pilot, lambda: bool(model.bodies), "the request")
        assert "Project instructions" in model.system()
        assert app.session is not None
        session_id = app.session.session_id
        await until(pilot, lambda: app.session is not None and not app.session.busy, "the turn")
        await workers_done(app)

    (workspace / "CLAUDE.md").write_text("A new rule.\n")

    def resumed() -> AgentSession:
        return create_runtime(config(model), interactive=True, session_id=session_id)

    app = tui(model, resumed)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(
            pilot,
            lambda: "project instructions: CLAUDE.md (12 B)" in transcript(app),
            "the instructions listed again",
        )
        text = transcript(app)
        assert text.index(f"resumed session {session_id}") < text.index("project instructions")
        await workers_done(app)
