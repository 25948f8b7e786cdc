"""How many model requests one message may lead to before the turn stops and waits for the
person: ``max_turns`` (config.toml, ``FRONTIER_MAX_TURNS``, ``--max-turns``). In the TUI it
was 20, fixed, so a real task stopped halfway ("turn ended: max_turns stopped after 20
model requests"); it is 100 there now, 20 headless, and either is a setting."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiohttp import web
from wire_scripts import Call, WireServer, args, script, serve_wire, stream

from frontier.app.agent.runtime import create_runtime
from frontier.app.cli import main
from frontier.app.config import Config, ConfigError, load_config
from frontier.tools.policy import PolicyApprover


def reading_for_ever() -> WireServer:
    """A model that reads the file again in every reply, each time with another ``limit``:
    never the same call twice (the same call again would have its turn stopped,
    ``app/agent/repeats.py``), so only the limit ends the turn."""
    server = WireServer("openai-chat")

    async def again(srv: WireServer, request: web.Request) -> web.StreamResponse:
        n = len(srv.requests)
        body = script("openai-chat", [Call(f"c{n}", "read", args(path="notes.txt", limit=n))])
        return await stream(body)(srv, request)

    server.answer(again)
    return server


def config(url: str, **settings: object) -> Config:
    return Config(
        base_url=url, model="m", wire="openai-chat", protocol="native-inc", approval="auto",
        api_key="sk-test-0123456789", context_window=100_000, instructions=False,
        **settings,  # type: ignore[arg-type]
    )  # fmt: skip


@pytest.mark.parametrize(
    ("interactive", "setting", "expected"),
    [(True, None, 100), (False, None, 20), (True, 3, 3), (False, 4, 4)],
)
async def test_a_turn_stops_at_the_limit_and_says_how_to_go_on(
    tmp_path: Path, interactive: bool, setting: int | None, expected: int
) -> None:
    server = reading_for_ever()
    (tmp_path / "notes.txt").write_text("hello\n")
    async with serve_wire(server) as url:
        session = create_runtime(
            config(url, max_turns=setting),
            interactive=interactive,
            approver=PolicyApprover("auto"),
            workspace=tmp_path,
        )
        try:
            ended = await session.send("read it")
        finally:
            await session.close()
    assert ended.reason == "max_turns"
    assert len(server.requests) == expected
    assert f"stopped after {expected} model responses in this turn" in ended.message
    assert "send a message to go on" in ended.message


def test_the_setting_is_read_from_the_environment_and_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FRONTIER_MAX_TURNS", "250")
    assert load_config().max_turns == 250
    monkeypatch.setenv("FRONTIER_MAX_TURNS", "0")
    with pytest.raises(ConfigError, match="max_turns must be a whole number of requests > 0"):
        load_config()


def test_run_reads_the_setting_and_its_flag_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``frontier run`` without ``--max-turns`` stopped at 20 whatever the settings said."""
    import asyncio
    import threading

    server = reading_for_ever()
    (tmp_path / "notes.txt").write_text("hello\n")
    ready = threading.Event()
    url: list[str] = []
    served_on: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    async def serve() -> None:
        stop = asyncio.Event()
        async with serve_wire(server) as served:
            url.append(served)
            served_on.append((asyncio.get_running_loop(), stop))
            ready.set()
            await stop.wait()

    thread = threading.Thread(target=lambda: asyncio.run(serve()))
    thread.start()
    try:
        ready.wait()
        monkeypatch.setenv("FRONTIER_MAX_TURNS", "2")
        argv = ["run", "--base-url", url[0], "--model", "m", "--protocol", "native-inc",
                "--approval", "auto", "--workspace", str(tmp_path), "read it"]  # fmt: skip
        assert main(argv) != 0
        assert len(server.requests) == 2
        assert main([*argv[:-1], "--max-turns", "3", argv[-1]]) != 0
        assert len(server.requests) == 2 + 3
    finally:
        ready.wait()
        loop, stop = served_on[0]
        loop.call_soon_threadsafe(stop.set)
        thread.join()
    out, err = capsys.readouterr()
    assert "stopped after 3 model responses in this turn (max_turns;" in out + err
