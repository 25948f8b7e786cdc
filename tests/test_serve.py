"""`frontier serve`: what it refuses, where it listens, who may connect, how it stops.

The browser itself is tests/test_serve_browser.py; here a plain aiohttp client speaks
to the web socket the way a page does (and the way a page of another site would)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from serve_helpers import serving

from frontier.app.cli import parse_args
from frontier.app.commands import serve
from frontier.app.commands._agent_args import served_in_browser, terminal_problem

aiohttp = pytest.importorskip("aiohttp")
try:
    import textual_serve  # noqa: F401

    NO_TEXTUAL_SERVE = False
except ImportError:
    NO_TEXTUAL_SERVE = True
needs_textual_serve = pytest.mark.skipif(
    NO_TEXTUAL_SERVE, reason="textual-serve is not installed (pip install -e '.[serve]')"
)


def _frontier(*args: str, timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


# --- arguments -------------------------------------------------------------------------


def test_the_served_arguments_come_after_a_double_dash() -> None:
    args = parse_args(["serve", "--port", "0", "--", "--base-url", "http://x/v1", "--model", "m"])
    assert (args.command, args.port, args.host) == ("serve", 0, None)
    assert args.served == ["--base-url", "http://x/v1", "--model", "m"]
    assert parse_args(["serve"]).served == []  # → demo


def test_the_served_command_is_this_interpreter_running_frontier() -> None:
    command = serve.served_command(["demo", "--rate", "30"])
    assert command.startswith(sys.executable)
    assert command.endswith("-m frontier.app.cli demo --rate 30")


@pytest.mark.parametrize(
    ("served", "says"),
    [
        (["run", "--prompt", "x"], "`frontier run` has no TUI"),
        (["sessions"], "`frontier sessions` has no TUI"),
        (["demo", "--headless"], "drop --headless"),
        (["serve"], "`frontier serve` has no TUI"),
    ],
    ids=["run", "sessions", "headless-demo", "serve-itself"],
)
def test_a_command_without_a_tui_is_refused_before_serving(served: list[str], says: str) -> None:
    result = _frontier("serve", "--port", "0", "--", *served)
    assert result.returncode == 2
    assert says in result.stderr
    assert "Frontier in a browser" not in result.stdout


def test_bad_served_arguments_are_reported_once_at_start() -> None:
    result = _frontier("serve", "--port", "0", "--", "demo", "--no-such-flag")
    assert result.returncode == 2
    assert "--no-such-flag" in result.stderr
    assert "the frontier arguments after -- are not valid" in result.stderr


def test_without_textual_serve_it_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "textual_serve", None)
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)
    assert serve.main(parse_args(["serve"])) == 2
    assert "pip install 'frontier-agent[serve]'" in capsys.readouterr().err


@needs_textual_serve
def test_a_port_in_use_says_so() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _frontier("serve", "--port", str(port))
    assert result.returncode == 2
    assert f"port {port} on 127.0.0.1 is in use" in result.stderr
    assert "--port 0" in result.stderr


def test_only_loopback_is_quiet() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "localhost", "::1"):
        assert serve._is_loopback(host), host
    for host in ("0.0.0.0", "::", "192.168.1.10", "example.org"):
        assert not serve._is_loopback(host), host
    warning = serve._exposed_warning("0.0.0.0", 8470)
    assert "Anyone who can reach" in warning and "shell commands" in warning


def test_the_web_driver_counts_as_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    assert served_in_browser() and terminal_problem() is None
    monkeypatch.delenv("TEXTUAL_DRIVER")
    assert not served_in_browser()


# --- who may drive a session ------------------------------------------------------------

LOCAL = serve.ServerAddress("127.0.0.1", 8470, "http://127.0.0.1:8470")
LOCAL_V6 = serve.ServerAddress("::1", 8470, "http://[::1]:8470")


def _drives(address: serve.ServerAddress, origin: str | None, host: str) -> bool:
    """Would a web socket handshake with these headers start a session?"""
    return address.host_problem(host) is None and address.origin_problem(origin, host) is None


@pytest.mark.parametrize(
    ("address", "origin", "host", "allowed"),
    [
        (LOCAL, "http://127.0.0.1:8470", "127.0.0.1:8470", True),
        (LOCAL, "http://localhost:8470", "127.0.0.1:8470", True),  # page by name, socket by address
        (LOCAL_V6, "http://[::1]:8470", "[::1]:8470", True),
        (LOCAL, None, "127.0.0.1:8470", True),  # no Origin: not a browser
        (LOCAL, "https://evil.example", "127.0.0.1:8470", False),  # another site's page
        (LOCAL, "http://evil.example:8470", "evil.example:8470", False),  # DNS rebinding
        (LOCAL, "null", "127.0.0.1:8470", False),  # a file:// or sandboxed page
    ],
    ids=["same", "localhost-name", "ipv6", "no-origin", "other-site", "rebinding", "null"],
)
def test_origin_on_loopback(
    address: serve.ServerAddress, origin: str | None, host: str, allowed: bool
) -> None:
    assert _drives(address, origin, host) is allowed


def test_origin_when_exposed() -> None:
    exposed = serve.ServerAddress("0.0.0.0", 8470, "https://class.example")
    assert _drives(exposed, "http://10.0.0.5:8470", "10.0.0.5:8470")
    assert _drives(exposed, "https://class.example", "class.example")  # behind a TLS proxy
    assert not _drives(exposed, "https://evil.example", "10.0.0.5:8470")


# --- the server -------------------------------------------------------------------------


async def _handshake(url: str, origin: str | None) -> tuple[int, bytes]:
    """Open the web socket as a page would; the HTTP status and the first bytes."""
    headers = {"Origin": origin} if origin else {}
    async with aiohttp.ClientSession() as client:
        try:
            async with client.ws_connect(
                f"{url.replace('http', 'ws', 1)}/ws?width=80&height=24", headers=headers
            ) as ws:
                message = await asyncio.wait_for(ws.receive(), timeout=30)
                data = message.data if isinstance(message.data, bytes) else b""
                return 101, data
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status, b""


@needs_textual_serve
def test_the_page_template_loads_no_outside_font(tmp_path: Path) -> None:
    """A projected page must not call an outside host (privacy; offline classrooms)."""
    out = serve.offline_templates(tmp_path)
    page = (out / "app_index.html").read_text(encoding="utf-8")
    assert "{{ config.static.url }}js/textual.js" in page  # the rest of the template kept
    assert "fonts.googleapis.com" not in page


# slow (~3 s): a real `frontier serve` process, its TUI child, then SIGINT and its exit
@pytest.mark.slow
@needs_textual_serve
def test_serve_listens_on_loopback_refuses_other_sites_and_stops_on_ctrl_c() -> None:
    with serving(["--max-sessions", "1"]) as served:
        assert served.url.startswith("http://127.0.0.1:")
        assert "serving `frontier demo`" in served.output
        status, _ = asyncio.run(_handshake(served.url, "https://evil.example"))
        assert status == 403
        served.wait_for_line(r"refused a page from 'https://evil.example'")

        async def page() -> str:
            async with aiohttp.ClientSession() as client, client.get(served.url + "/") as r:
                return await r.text()

        html = asyncio.run(page())
        assert "textual.js" in html  # the real page, served from our own templates
        assert "googleapis" not in html and "gstatic" not in html  # nothing from outside

        async def one_session_then_a_second() -> tuple[int, bytes, int]:
            headers = {"Origin": served.url}
            async with aiohttp.ClientSession() as client:
                ws_url = f"{served.url.replace('http', 'ws', 1)}/ws?width=80&height=24"
                async with client.ws_connect(ws_url, headers=headers) as ws:
                    first = await asyncio.wait_for(ws.receive(), timeout=30)
                    second, _ = await _handshake(served.url, served.url)
                    return 101, first.data, second

        status, first, second = asyncio.run(one_session_then_a_second())
        assert status == 101 and isinstance(first, bytes) and first  # the TUI's first paint
        assert second == 503  # --max-sessions 1
        served.wait_for_line(r"refused a session: 1 are open \(--max-sessions 1\)")
        # The refused page never started a process, and the closed one ended its own.
        deadline = time.monotonic() + 20
        while served.descendants() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert served.descendants() == []

        # Ctrl+C with a session open: the session quits and nothing outlives the server.
        async def hold_open() -> None:
            async with aiohttp.ClientSession() as client:
                ws_url = f"{served.url.replace('http', 'ws', 1)}/ws?width=80&height=24"
                async with client.ws_connect(ws_url, headers={"Origin": served.url}) as ws:
                    await asyncio.wait_for(ws.receive(), timeout=30)
                    children = served.descendants()
                    assert children
                    # A browser keeps reading: it answers the server's close at once.
                    reading = asyncio.create_task(_read_until_closed(ws))
                    started = time.monotonic()
                    os.killpg(served.process.pid, signal.SIGINT)
                    await asyncio.to_thread(served.process.wait, 20)
                    await reading
                    assert time.monotonic() - started < serve.SHUTDOWN_WAIT + 5
                    assert all(not _alive(pid) for pid in children), served.output

        asyncio.run(hold_open())
    assert served.process.returncode == 0
    assert "ending 1 session(s)" in served.output
    assert "frontier serve: stopped" in served.output
    assert "had not quit" not in served.output  # the session quit and saved on its own


STUBBORN = """
import os, signal, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", (
    "import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
    "print(os.getpid(), flush=True); time.sleep(120)")])
child.wait()
"""


def test_a_session_still_running_at_the_deadline_is_stopped_even_if_it_ignores_term() -> None:
    """What textual-serve's quit did not end by ``SHUTDOWN_WAIT`` is stopped: TERM, then KILL."""
    parent = subprocess.Popen([sys.executable, "-c", STUBBORN], stdout=subprocess.PIPE)
    try:
        assert parent.stdout is not None
        stubborn = int(parent.stdout.readline())  # running, TERM ignored

        async def at_the_deadline() -> int:
            return await serve.sessions_ended(asyncio.get_running_loop().time(), parent.pid)

        assert asyncio.run(at_the_deadline()) == 1
        assert parent.wait(timeout=30) == 0  # its child is gone, so its wait returned
        assert not _alive(stubborn)
    finally:
        parent.kill()
        parent.wait()


async def _read_until_closed(ws: aiohttp.ClientWebSocketResponse) -> None:
    async for _ in ws:
        pass


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
