"""`frontier serve` against pages that are not its own (issue 21, item 6): another local
port, another scheme, a DNS-rebound name; and what it shows of the served arguments.

The rules are checked on :class:`serve.ServerAddress` case by case, then against a real
loopback ``frontier serve`` with crafted ``Origin`` and ``Host`` headers: a refused
handshake gets its status before any session starts, and no process is left behind."""

from __future__ import annotations

import asyncio
import re
import socket
import time
from collections.abc import Iterator

import pytest
from serve_helpers import Served, serving

from frontier.app.commands import serve

aiohttp = pytest.importorskip("aiohttp")
pytest.importorskip("textual_serve", reason="textual-serve is not installed (the serve extra)")

KEY = "sk-live-0123456789abcdef"
"""A key carried in the served --base-url: never on the banner, never in the page."""
SERVED = ["--base-url", f"http://127.0.0.1:9/v1?api_key={KEY}", "--model", "m"]
LOCAL = serve.ServerAddress("127.0.0.1", 8470, "http://127.0.0.1:8470")


def _drives(address: serve.ServerAddress, origin: str | None, host: str) -> bool:
    return address.host_problem(host) is None and address.origin_problem(origin, host) is None


# --------------------------------------------------------------------------- the rules


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        ("http://localhost:3000", "127.0.0.1:8470"),  # the report: a dev server's page
        ("http://127.0.0.1:3000", "127.0.0.1:8470"),
        ("http://[::1]:3000", "127.0.0.1:8470"),
        ("http://localhost", "127.0.0.1:8470"),  # port 80
        ("https://127.0.0.1:8470", "127.0.0.1:8470"),  # another scheme is another origin
        ("http://127.0.0.2:8470", "127.0.0.1:8470"),  # another loopback address's server
        ("http://[::1]:8470", "127.0.0.1:8470"),  # not where this server listens
        ("http://127.0.0.1:8470", "127.0.0.1:3000"),  # Host: another port
        ("http://127.0.0.1:8470", "127.0.0.1"),  # Host: port 80
        ("http://localhost:8470", "evil.example:8470"),  # Host: a rebound name
        ("http://127.0.0.1:8470/x", "127.0.0.1:8470"),  # an origin has no path
        ("http://127.0.0.1:notaport", "127.0.0.1:8470"),
        ("ws://127.0.0.1:8470", "127.0.0.1:8470"),
    ],
)
def test_a_page_that_is_not_this_servers_is_refused_on_loopback(origin: str, host: str) -> None:
    assert not _drives(LOCAL, origin, host)


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        ("http://127.0.0.1:8470", "127.0.0.1:8470"),
        ("http://localhost:8470", "127.0.0.1:8470"),  # the page by name, the socket by address
        ("http://LOCALHOST:8470", "localhost:8470"),  # names are not case-sensitive
        (None, "localhost:8470"),  # no Origin: a local program, not a browser
    ],
)
def test_this_servers_own_page_drives_a_session(origin: str | None, host: str) -> None:
    assert _drives(LOCAL, origin, host)


def test_a_server_bound_to_localhost_answers_to_every_loopback_name() -> None:
    # aiohttp binds every address `localhost` resolves to (127.0.0.1 and ::1)
    named = serve.ServerAddress("localhost", 8470, "http://localhost:8470")
    assert _drives(named, "http://[::1]:8470", "[::1]:8470")
    assert _drives(named, "http://127.0.0.1:8470", "localhost:8470")
    assert not _drives(named, "http://127.0.0.2:8470", "127.0.0.1:8470")


def test_a_public_url_is_the_servers_own_origin_too() -> None:
    # an SSH tunnel (`ssh -L 9000:127.0.0.1:8470`) named with --public-url
    tunnelled = serve.ServerAddress("127.0.0.1", 8470, "http://localhost:9000")
    assert _drives(tunnelled, "http://localhost:9000", "localhost:9000")
    assert _drives(tunnelled, "http://127.0.0.1:8470", "127.0.0.1:8470")
    assert not _drives(tunnelled, "http://localhost:9001", "localhost:9000")
    assert not _drives(tunnelled, "https://localhost:9000", "localhost:9000")


def test_plain_http_to_a_loopback_server_needs_a_loopback_host_on_its_port() -> None:
    assert LOCAL.host_problem("127.0.0.1:8470") is None
    assert LOCAL.host_problem("localhost:8470") is None
    assert "DNS rebinding" in (LOCAL.host_problem("evil.example:8470") or "")
    assert "not a loopback name" in (LOCAL.host_problem("10.0.0.5:8470") or "")
    assert "port 3000, not this server's 8470" in (LOCAL.host_problem("localhost:3000") or "")
    assert LOCAL.host_problem(None) == "no Host header"
    assert LOCAL.host_problem("") == "no Host header"
    for bad in ("user@127.0.0.1:8470", "127.0.0.1:8470/x", "127.0.0.1:x", "[::1"):
        assert LOCAL.host_problem(bad) is not None, bad


def test_an_exposed_server_answers_to_addresses_and_the_names_it_was_given() -> None:
    exposed = serve.ServerAddress("0.0.0.0", 8470, "http://box.lan:8470")
    for host in ("10.0.0.5:8470", "[fe80::1]:8470", "box.lan:8470", "localhost:8470"):
        assert exposed.host_problem(host) is None, host
    rebound = exposed.host_problem("evil.example:8470")
    assert rebound is not None and "--public-url" in rebound
    assert exposed.host_problem("10.0.0.5:3000") is not None
    # the page's host must be the one the socket was asked for, on the server's port
    assert _drives(exposed, "http://10.0.0.5:8470", "10.0.0.5:8470")
    assert not _drives(exposed, "http://10.0.0.9:8470", "10.0.0.5:8470")  # another machine
    assert not _drives(exposed, "http://10.0.0.5:3000", "10.0.0.5:8470")


# --------------------------------------------------------------------------- what is shown


def test_the_shown_command_redacts_credentials_in_served_urls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment-42")
    shown = serve.shown_command(
        [
            "--base-url",
            f"http://127.0.0.1:9/v1?api_key={KEY}&x=1",
            "--public-url=http://me:hunter2pass@host:1/",  # the --opt=URL form
            "--model",
            "sk-from-the-environment-42",  # an environment key, wherever it appears
        ]
    )
    assert KEY not in shown and "hunter2pass" not in shown
    assert "sk-from-the-environment-42" not in shown
    assert "'http://127.0.0.1:9/v1?api_key=[REDACTED]&x=1'" in shown
    assert "'--public-url=http://***@host:1/'" in shown
    assert serve.shown_command(["demo", "--rate", "30"]) == "frontier demo --rate 30"


# --------------------------------------------------------------------------- a real server


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with serving(["--", *SERVED]) as running:
        yield running


async def _handshake(served: Served, origin: str | None, host: str | None = None) -> int:
    """The status of a web socket handshake with these headers (101: a session started);
    a started session is closed at once."""
    headers = {"Origin": origin} if origin else {}
    if host is not None:
        headers["Host"] = host
    async with aiohttp.ClientSession() as client:
        try:
            ws_url = f"{served.url.replace('http', 'ws', 1)}/ws?width=80&height=24"
            async with client.ws_connect(ws_url, headers=headers) as ws:
                await asyncio.wait_for(ws.receive(), timeout=30)
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


async def _get(served: Served, path: str, host: str) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as client,
        client.get(served.url + path, headers={"Host": host}) as response,
    ):
        return response.status, await response.text()


def _no_sessions_left(served: Served) -> None:
    deadline = time.monotonic() + 20
    while served.descendants() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert served.descendants() == [], served.output


@pytest.mark.slow
@pytest.mark.parametrize(
    ("origin", "host", "status", "says"),
    [
        ("http://localhost:3000", None, 403, "a page from 'http://localhost:3000'"),
        ("http://127.0.0.1:3000", None, 403, "a page from 'http://127.0.0.1:3000'"),
        ("https://127.0.0.1:{port}", None, 403, "a page from 'https://127.0.0.1:{port}'"),
        ("http://127.0.0.2:{port}", None, 403, "a page from 'http://127.0.0.2:{port}'"),
        ("http://localhost:{port}", "127.0.0.1:3000", 421, "names port 3000"),
        ("http://evil.example:{port}", "evil.example:{port}", 421, "DNS rebinding"),
    ],
    ids=["localhost-3000", "127-3000", "https", "other-loopback", "host-port", "rebound"],
)
def test_a_real_server_refuses_the_handshake_before_any_session_starts(
    served: Served, origin: str, host: str | None, status: int, says: str
) -> None:
    origin = origin.format(port=served.port)
    host = host.format(port=served.port) if host else None
    assert asyncio.run(_handshake(served, origin, host)) == status
    served.wait_for_line("frontier serve: refused .*" + re.escape(says.format(port=served.port)))
    assert served.descendants() == []  # refused before textual-serve started a process


@pytest.mark.slow
def test_a_real_server_refuses_every_route_to_a_rebound_name(served: Served) -> None:
    rebound = f"rebound.example:{served.port}"
    for path in ("/", "/static/js/textual.js", "/download/x"):
        status, text = asyncio.run(_get(served, path, rebound))
        assert status == 421, path
        assert "not this server's name" in text and KEY not in text
    served.wait_for_line(rf"refused a request: Host '{re.escape(rebound)}' is not a loopback")
    # printed once, however often a page retries
    asyncio.run(_get(served, "/", rebound))
    assert sum("rebound.example" in line for line in served.lines) == 1


@pytest.mark.slow
def test_a_request_without_a_host_is_refused(served: Served) -> None:
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as raw:
        raw.sendall(b"GET / HTTP/1.0\r\n\r\n")
        head = raw.recv(4096).decode("latin-1")
    assert head.startswith("HTTP/1.0 421") or head.startswith("HTTP/1.1 421"), head


@pytest.mark.slow
def test_a_real_server_serves_its_own_page_and_never_shows_the_key(served: Served) -> None:
    assert KEY not in served.output
    assert "api_key=[REDACTED]" in served.output  # the banner says a key was there
    for host in (f"127.0.0.1:{served.port}", f"localhost:{served.port}"):
        status, page = asyncio.run(_get(served, "/", host))
        assert status == 200 and "textual.js" in page
        assert KEY not in page and "api_key=[REDACTED]" in page  # the page title


@pytest.mark.slow
def test_a_real_server_starts_a_session_for_its_own_page_by_name(served: Served) -> None:
    # The page loaded as http://localhost:PORT opens the socket at 127.0.0.1:PORT.
    status = asyncio.run(_handshake(served, f"http://localhost:{served.port}"))
    assert status == 101
    _no_sessions_left(served)


def test_refusals_are_printed_once_each_and_only_so_many(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A page may retry forever, under as many names as it likes: the log stays short."""
    from textual_serve.server import Server

    server = serve._server_class(Server)("true", host="127.0.0.1", port=8470)
    server.frontier_setup(served=["demo"], address=LOCAL, max_sessions=1)
    for _ in range(3):
        server.refused("a page from 'http://localhost:3000'")
    for n in range(serve.REFUSALS_SHOWN + 10):
        server.refused(f"a request: Host 'n{n}.example:8470'")
    lines = capsys.readouterr().out.splitlines()
    assert lines.count("frontier serve: refused a page from 'http://localhost:3000'") == 1
    assert len(lines) == serve.REFUSALS_SHOWN + 1
    assert lines[-1] == (
        f"frontier serve: refused {serve.REFUSALS_SHOWN} different requests; "
        "further refusals are not printed"
    )
