"""A session started without ``--model`` asks the server what it serves
(``app/model/served_models.py``): the one model listed is used and said; several are
named in the refusal. It was refused outright, "pass --model M", though a local server
knows what it serves."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from wire_scripts import Text, WireServer, script, serve_wire
from wire_scripts import stream as reply

from frontier.app.model.served_models import MAX_NAME, listed_models


async def frontier_run(
    tmp_path: Path, server: WireServer, *extra: str
) -> subprocess.CompletedProcess[str]:
    async with serve_wire(server) as url:
        argv = [sys.executable, "-m", "frontier.app.cli", "run", "hi", "--base-url", url]
        argv += ["--workspace", str(tmp_path), *extra]
        env = {k: v for k, v in os.environ.items() if k != "FRONTIER_MODEL"}
        env["FRONTIER_CONFIG_DIR"] = str(tmp_path / "config")
        return await asyncio.to_thread(
            subprocess.run, argv, capture_output=True, text=True, env=env, timeout=120
        )


def answering(models: list[object] | None) -> WireServer:
    server = WireServer("openai-chat", models=models)
    server.answer(reply(script("openai-chat", [Text("Hello.")])))
    return server


async def test_the_one_model_a_server_lists_is_used_and_said(tmp_path: Path) -> None:
    server = answering([{"id": "qwen2.5-coder-7b", "object": "model"}])
    done = await frontier_run(tmp_path, server)
    assert done.returncode == 0, done.stderr
    assert "model qwen2.5-coder-7b (the one" in done.stderr
    assert [r.body["model"] for r in server.requests] == ["qwen2.5-coder-7b"]
    assert "ai  Hello." in done.stdout


async def test_several_models_are_named_in_the_refusal(tmp_path: Path) -> None:
    server = answering([{"id": f"m{i}"} for i in range(15)])
    done = await frontier_run(tmp_path, server)
    assert done.returncode == 2
    assert "the server lists 15: m0, m1, m2" in done.stderr and "m11 and 3 more" in done.stderr
    assert server.requests == []  # no model asked for a model it was not given


@pytest.mark.parametrize(
    ("models", "says"),
    [(None, "/models gave no answer: is the server running?"), ([], "/models lists none")],
    ids=["no listing", "an empty one"],
)
async def test_a_server_that_lists_nothing_gets_the_refusal_saying_so(
    tmp_path: Path, models: list[object] | None, says: str
) -> None:
    done = await frontier_run(tmp_path, answering(models))
    assert done.returncode == 2
    assert "no model: pass --model M" in done.stderr and says in done.stderr


async def test_a_model_given_is_never_second_guessed(tmp_path: Path) -> None:
    server = answering([{"id": "served"}])
    done = await frontier_run(tmp_path, server, "--model", "mine")
    assert done.returncode == 0, done.stderr
    assert [r.body["model"] for r in server.requests] == ["mine"]
    assert "the one" not in done.stderr


def test_a_hostile_listing_gives_only_names() -> None:
    body = {
        "data": [
            {"id": "x" * (MAX_NAME + 1)},
            {"id": 7},
            "not an entry",
            {"id": ""},
            {"id": "ok"},
            {"id": "ok"},
            {"id": "red\x1b[31m"},
            {"id": "rtl\u202eevil"},
            {"name": "no id"},
        ]
    }
    assert listed_models(body) == ["ok"]
    assert listed_models({"data": {"id": "a"}}) == [] and listed_models([1, 2]) == []


async def test_model_in_the_tui_names_what_the_server_lists(tmp_path: Path) -> None:
    """``/model`` showed only the catalogue (OpenAI's and Anthropic's names): on Ollama or
    LM Studio the models one can switch to were in another window."""
    from pilot_wait import focus_of, until

    from frontier.app.agent.runtime import create_runtime
    from frontier.app.agent.session import AgentSession
    from frontier.app.config import Config
    from frontier.app.frontends.tui.app import FrontierApp
    from frontier.widgets.prompt_input import PromptInput

    server = answering([{"id": "qwen2.5-coder:7b"}, {"id": "llama3.2:3b"}])
    async with serve_wire(server) as url:
        config = Config(base_url=url, model="qwen2.5-coder:7b", approval="auto")

        def factory() -> AgentSession:
            return create_runtime(config, interactive=True, workspace=tmp_path)

        app = FrontierApp(config, session_factory=factory, remember_theme=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.session is not None, "the session")
            prompt = app.main.query_one("#prompt", PromptInput)
            prompt.focus()
            await focus_of(pilot, prompt, "the message box")
            await pilot.press(*"/model", "enter")

            def noted() -> str:
                return "\n".join(e.text for e in app.state.transcript if e.role == "note")

            await until(pilot, lambda: "the server lists" in noted(), "the server's list")
            assert "the server lists: qwen2.5-coder:7b, llama3.2:3b" in noted()


async def test_the_welcome_screen_offers_a_local_server_and_u_starts_a_session_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With nothing configured, ``frontier`` listed the commands to type; a llama.cpp or
    Ollama already running on this machine now is one key away."""
    from pilot_wait import until
    from textual.widgets import Button

    from frontier.app.config import Config
    from frontier.app.frontends.tui.app import FrontierApp
    from frontier.app.frontends.tui.screens.welcome import WelcomeScreen

    monkeypatch.chdir(tmp_path)
    server = answering([{"id": "qwen2.5-coder:7b"}])
    async with serve_wire(server) as url:
        nothing_there = "http://127.0.0.1:9/v1"  # refused at once: not offered
        monkeypatch.setenv("FRONTIER_LOCAL_SERVERS", f"{nothing_there},{url}")
        app = FrontierApp(Config(approval="auto"), remember_theme=False)
        async with app.run_test(size=(120, 50)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, WelcomeScreen), "the welcome")
            offered = lambda: [str(b.label) for b in app.screen.query(Button)]  # noqa: E731
            await until(pilot, lambda: any("qwen2.5-coder:7b" in b for b in offered()), "offer")
            assert sum(url in b for b in offered()) == 1
            await pilot.press("u")
            await until(pilot, lambda: app.session is not None, "the session")
            assert app.session is not None and app.session.model == "qwen2.5-coder:7b"
            notes = "\n".join(e.text for e in app.state.transcript if e.role == "note")
            assert f"frontier --base-url {url} --model qwen2.5-coder:7b" in notes


async def test_nothing_is_offered_where_no_local_server_answers(tmp_path: Path) -> None:
    """``FRONTIER_LOCAL_SERVERS`` empty (the suite's default): nowhere is asked."""
    from pilot_wait import until
    from textual.widgets import Button

    from frontier.app.config import Config
    from frontier.app.frontends.tui.app import FrontierApp
    from frontier.app.frontends.tui.screens.welcome import WelcomeScreen
    from frontier.app.model.local_servers import candidates

    assert candidates() == ()
    assert candidates({}) == candidates({"X": "1"}) and "http://127.0.0.1:11434/v1" in candidates(
        {}
    )
    app = FrontierApp(Config(), remember_theme=False)
    async with app.run_test(size=(120, 50)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, WelcomeScreen), "the welcome")
        await pilot.pause()
        labels = [str(b.label) for b in app.screen.query(Button)]
        assert labels == ["Start the demo  (d)", "Quit  (q)"]


async def test_the_local_search_asks_loopback_past_a_company_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``HTTP_PROXY`` in the shell sent the welcome screen's loopback search to a proxy that
    cannot reach this machine: nothing was ever offered."""
    import socket

    from frontier.app.model.local_servers import find_local_servers

    with socket.socket() as dead:
        dead.bind(("127.0.0.1", 0))
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{dead.getsockname()[1]}")
        for name in ("NO_PROXY", "no_proxy", "http_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.delenv(name, raising=False)
        server = answering([{"id": "qwen2.5-coder:7b"}])
        async with serve_wire(server) as url:
            monkeypatch.setenv("FRONTIER_LOCAL_SERVERS", url)
            (found,) = await find_local_servers()
    assert found.models == ("qwen2.5-coder:7b",)


async def test_a_server_listing_many_models_offers_six_and_says_how_many_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pilot_wait import until
    from textual.widgets import Button, Static

    from frontier.app.config import Config
    from frontier.app.frontends.tui.app import FrontierApp
    from frontier.app.frontends.tui.screens.welcome import MAX_OFFERED, WelcomeScreen

    monkeypatch.chdir(tmp_path)
    server = answering([{"id": f"model-{n}"} for n in range(10)])
    async with serve_wire(server) as url:
        monkeypatch.setenv("FRONTIER_LOCAL_SERVERS", url)
        app = FrontierApp(Config(), remember_theme=False)
        async with app.run_test(size=(120, 60)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, WelcomeScreen), "the welcome")

            def texts() -> str:
                return "\n".join(str(w.render()) for w in app.screen.query(Static))

            await until(pilot, lambda: "and 4 more" in texts(), "the count of the rest")
            offered = [b for b in app.screen.query(Button) if str(b.id).startswith("use-")]
            assert len(offered) == MAX_OFFERED == 6
