"""No secret reaches any sink, whatever the chunking (issue: "the API key reaches disk and output").

A loopback server streams replies that echo the key in 1-, 2- and 3-character
pieces (text and native modes), and error bodies that echo it; afterwards every
file of the data dir (the SQLite database and its WAL included) and every output
of ``run``, ``run --json``, ``replay SESSION --headless`` (text and JSON),
``export`` and ``check`` are searched for it.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web
from sse_server import serve, sse, start_sse

from frontier.app.cli import main
from frontier.app.config import data_dir
from frontier.app.session.store import session_recordings

KEY = "sk-frontier-TEST-9f2c1e7d4b3a"
OTHER_TOKEN = "ghp_Zx81Qw7Lm2Np5Rt9"
"""A bearer token Frontier was never told about: caught by its ``Authorization: Bearer`` shape."""

Reply = Callable[[int], list[bytes]]


# --------------------------------------------------------------------------- server


@contextmanager
def loopback(respond: Callable[[web.Request, int], Any]) -> Iterator[str]:
    """A chat-completions server on 127.0.0.1 in its own thread (the CLI runs its own loop)."""
    ready = threading.Event()
    box: dict[str, Any] = {}
    count = {"n": 0}

    async def dispatch(request: web.Request) -> web.StreamResponse:
        await request.read()
        index = count["n"]
        count["n"] += 1
        return await respond(request, index)

    async def run() -> None:
        box["stop"] = asyncio.Event()
        async with serve(dispatch) as url:
            box["url"] = url
            ready.set()
            await box["stop"].wait()

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(run(),), daemon=True)
    thread.start()
    assert ready.wait(10), "loopback server did not start"
    try:
        yield box["url"]
    finally:
        loop.call_soon_threadsafe(box["stop"].set)
        thread.join(10)
        loop.close()


def streaming(reply: Reply) -> Callable[[web.Request, int], Any]:
    async def respond(request: web.Request, index: int) -> web.StreamResponse:
        resp = await start_sse(request)
        for event in reply(index):
            await resp.write(event)
        await resp.write_eof()
        return resp

    return respond


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def content_events(text: str, size: int, finish: str = "stop") -> list[bytes]:
    events = [
        sse({"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]})
        for p in pieces(text, size)
    ]
    events.append(sse({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}))
    return [*events, b"data: [DONE]\n\n"]


def tool_call_events(command: str, size: int) -> list[bytes]:
    """One native ``shell`` call whose arguments JSON arrives ``size`` characters at a time."""
    args = json.dumps({"command": command})
    head = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "shell"}}
    events = [sse({"choices": [{"index": 0, "delta": {"tool_calls": [head]}}]})]
    for p in pieces(args, size):
        delta = {"tool_calls": [{"index": 0, "function": {"arguments": p}}]}
        events.append(sse({"choices": [{"index": 0, "delta": delta}]}))
    events.append(sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    return [*events, b"data: [DONE]\n\n"]


def echo_reply(protocol: str, size: int) -> Reply:
    """Response 0 echoes the key in prose and runs ``echo KEY``; response 1 echoes it and ends."""

    def reply(index: int) -> list[bytes]:
        if index == 0 and protocol.startswith("native"):
            return tool_call_events(f"echo {KEY}", size)
        if index == 0:
            text = (
                f"Your key is {KEY}, I will print it.\ncall c1 shell\narg command echo {KEY}\nend\n"
            )
            return content_events(text, size)
        return content_events(f"Done: the key was {KEY} all along.", size)

    return reply


# --------------------------------------------------------------------------- helpers


def cli(capfd: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capfd.readouterr()
    return code, out + err


def data_dir_hits(needle: str) -> list[str]:
    """Every file under the data dir (db, -wal, -shm, locks, workspaces) holding ``needle``."""
    hits = []
    for path in data_dir().rglob("*"):
        if path.is_file() and needle.encode() in path.read_bytes():
            hits.append(str(path))
    return hits


def only_session() -> str:
    from frontier.app.session.store import SessionStore

    with SessionStore.open() as store:
        sessions = store.list_sessions()
    assert len(sessions) == 1
    return sessions[0].id


def original_input(protocol: str, size: int) -> int:
    """How many transducer input bytes response 0 had as sent (before any masking;
    ``[DONE]`` is not a chunk, so neither the provider nor the store keeps it)."""
    from frontier.app.session.record import Recording

    events = []
    for raw in echo_reply(protocol, size)(0):
        data = raw.decode()[len("data: ") :].rstrip("\n")
        if data != "[DONE]":
            events.append((0.0, data))
    rec = Recording(mode=protocol, model="m", created="", events=tuple(events))
    return len(rec.transducer_input())


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("protocol", ["ctl-heredoc", "native-inc"])
@pytest.mark.parametrize("size", [1, 2, 3])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_key_echoed_in_pieces_reaches_no_sink(
    capfd, monkeypatch, tmp_path: Path, protocol: str, size: int, as_json: bool
) -> None:
    monkeypatch.setenv("FRONTIER_API_KEY", KEY)
    with loopback(streaming(echo_reply(protocol, size))) as url:
        argv = ["run", "--base-url", url, "--model", "m", "--protocol", protocol]
        argv += ["--approval", "auto", "--workspace", str(tmp_path), "--prompt", "show the key"]
        code, out = cli(capfd, *argv, *(["--json"] if as_json else []))
    assert code == 0, out
    assert "the key was" in out  # the output is there: the search below means something
    assert KEY not in out
    sid = only_session()
    outputs = {}
    for argv in (
        ["replay", sid, "--headless"],
        ["replay", sid, "--headless", "--json"],
        ["export", sid, "--format", "jsonl"],
        ["export", sid, "--format", "markdown"],
        ["check", sid],
    ):
        code, outputs[" ".join(argv)] = cli(capfd, *argv)
        assert code == 0, outputs[" ".join(argv)]
    # What is stored is masked: replay and export show no key even when this process
    # no longer knows it (another shell, the key rotated).
    monkeypatch.delenv("FRONTIER_API_KEY")
    for argv in (["replay", sid, "--headless", "--json"], ["export", sid, "--format", "jsonl"]):
        code, outputs["(no key) " + " ".join(argv)] = cli(capfd, *argv)
        assert code == 0
    for name, text in outputs.items():
        assert KEY not in text, name
    assert "*" * len(KEY) in outputs["replay " + sid + " --headless --json"]
    assert data_dir_hits(KEY) == []
    # Masks keep every length: the stored stream has the bytes it had, and check passes.
    (name, rec), *_ = session_recordings(sid)
    assert name == f"{sid}#0"
    assert len(rec.transducer_input()) == original_input(protocol, size)
    assert KEY.encode() not in rec.transducer_input()


ERROR_BODIES = {
    "401 json": (
        401,
        json.dumps({"error": {"message": f"bad header Authorization: Bearer {KEY}"}}),
    ),
    "400 text": (400, f"rejected api_key={KEY}&x=1; Authorization: Bearer {OTHER_TOKEN}"),
    "404 html": (404, f"<pre>GET /v1?key={KEY}</pre>"),
}


@pytest.mark.parametrize("case", sorted(ERROR_BODIES))
def test_an_error_body_echoing_the_key_is_scrubbed(capfd, monkeypatch, tmp_path, case) -> None:
    status, body = ERROR_BODIES[case]
    monkeypatch.setenv("FRONTIER_API_KEY", KEY)

    async def respond(request: web.Request, index: int) -> web.Response:
        return web.Response(status=status, text=body)

    with loopback(respond) as url:
        code, out = cli(
            capfd, "run", "--base-url", url, "--model", "m", "--workspace", str(tmp_path),
            "--prompt", "hi",
        )  # fmt: skip
    assert code == 1
    assert f"HTTP {status}" in out
    assert KEY not in out and OTHER_TOKEN not in out
    assert data_dir_hits(KEY) == [] and data_dir_hits(OTHER_TOKEN) == []


def test_an_error_event_inside_the_stream_is_scrubbed(capfd, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("FRONTIER_API_KEY", KEY)

    def reply(index: int) -> list[bytes]:
        return [sse({"error": {"message": f"quota for Authorization: Bearer {KEY} exceeded"}})]

    with loopback(streaming(reply)) as url:
        for extra in ([], ["--json"]):
            code, out = cli(
                capfd, "run", "--base-url", url, "--model", "m", "--workspace", str(tmp_path),
                "--prompt", "hi", *extra,
            )  # fmt: skip
            assert code == 1 and "quota for" in out
            assert KEY not in out
    assert data_dir_hits(KEY) == []


PASSWORD = "hunter2-Secret-77"


def test_a_base_url_with_credentials_is_never_shown_or_stored(capfd, monkeypatch, tmp_path):
    async def respond(request: web.Request, index: int) -> web.Response:
        return web.Response(status=404, text="no such model")

    with loopback(respond) as url:
        url = url.replace("http://", f"http://frontier:{PASSWORD}@") + f"?api_key={KEY}&v=1"
        code, out = cli(
            capfd, "run", "--base-url", url, "--model", "m", "--workspace", str(tmp_path),
            "--prompt", "hi",
        )  # fmt: skip
        assert code == 1 and "HTTP 404" in out
        assert "http://***@127.0.0.1:" in out, out
        assert "/v1/chat/completions?" in out  # the path goes before the query
        code, listing = cli(capfd, "sessions", "--json")
    assert PASSWORD not in out + listing and KEY not in out + listing
    assert data_dir_hits(PASSWORD) == [] and data_dir_hits(KEY) == []


# --------------------------------------------------------------------------- provider


def _provider(base_url: str, handler: Callable[[httpx.Request], httpx.Response]) -> Any:
    from frontier.app.model.registry import codec
    from frontier.app.model.transport import ModelClient

    async def no_sleep(delay: float) -> None:
        return None

    return ModelClient(
        codec("openai-chat"),
        base_url,
        "m",
        api_key=KEY,
        transport=httpx.MockTransport(handler),
        sleep=no_sleep,
    )


async def _drain(provider: Any) -> list[Any]:
    from frontier.app.model.conversation import UserText
    from frontier.app.model.request import ModelRequest

    items = []
    async for item in provider.stream(ModelRequest("", (UserText("hi"),))):
        items.append(item)
    await provider.aclose()
    return items


async def test_the_request_url_keeps_the_query_after_the_path() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, text="data: [DONE]\n\n")

    provider = _provider(f"https://u:{PASSWORD}@h.example/v1/?api-version=2024-01", handler)
    assert PASSWORD not in repr(provider) and PASSWORD not in provider.url
    assert provider.url == "https://***@h.example/v1/chat/completions?api-version=2024-01"
    await _drain(provider)
    (request,) = seen
    assert str(request.url.copy_with(username=None, password=None)) == (
        "https://h.example/v1/chat/completions?api-version=2024-01"
    )
    # user-info still authenticates (httpx sends it as Basic auth), it is only never shown
    assert request.headers["authorization"] == httpx.BasicAuth("u", PASSWORD)._auth_header


async def test_retry_reasons_and_errors_never_quote_the_key() -> None:
    bodies = iter([(500, f"upstream said Authorization: Bearer {KEY}"), (401, f"bad key {KEY}")])

    def handler(request: httpx.Request) -> httpx.Response:
        status, text = next(bodies)
        return httpx.Response(status, text=text)

    provider = _provider(f"http://127.0.0.1:9/v1?api_key={KEY}", handler)
    from frontier.app.events import Retry
    from frontier.app.model.errors import ModelError

    items: list[Any] = []
    from frontier.app.model.conversation import UserText
    from frontier.app.model.request import ModelRequest

    with pytest.raises(ModelError) as err:
        async for item in provider.stream(ModelRequest("", (UserText("hi"),))):
            items.append(item)
    await provider.aclose()
    (retry,) = [i for i in items if isinstance(i, Retry)]
    assert "HTTP 500" in retry.reason and "Bearer [REDACTED]" in retry.reason
    message = str(err.value) + err.value.url
    assert "HTTP 401" in message and "api_key=[REDACTED]" in message
    assert KEY not in message + retry.reason
