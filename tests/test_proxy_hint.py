"""A proxy named by the environment (``HTTP_PROXY`` and the rest, as httpx and curl read
them) is named in a failed request's message: a company proxy in the shell sent requests
for a model on 127.0.0.1 to a proxy that cannot reach it, and the message said "Is the
server running and is --base-url right?" while both were fine (``app/model/proxy_hint.py``)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from aiohttp import web
from model_failures import answering, failure

from frontier.app.model.proxy_hint import proxy_advice, proxy_for

LOCAL = "http://127.0.0.1:8080/v1/chat/completions"


@pytest.mark.parametrize(
    ("url", "env", "found"),
    [
        (LOCAL, {}, None),
        (LOCAL, {"HTTP_PROXY": "http://proxy:3128"}, ("http://proxy:3128", "HTTP_PROXY")),
        (LOCAL, {"http_proxy": "proxy:3128"}, ("http://proxy:3128", "http_proxy")),
        (LOCAL, {"HTTPS_PROXY": "http://proxy:3128"}, None),  # not for http://
        (
            "https://api.example.com/v1",
            {"HTTPS_PROXY": "http://p:1"},
            ("http://p:1", "HTTPS_PROXY"),
        ),
        (LOCAL, {"ALL_PROXY": "socks5://p:1080"}, ("socks5://p:1080", "ALL_PROXY")),
        (LOCAL, {"HTTP_PROXY": "http://u:secret@p:1"}, ("http://***@p:1", "HTTP_PROXY")),
        (LOCAL, {"HTTP_PROXY": "http://p:1", "NO_PROXY": "localhost,127.0.0.1"}, None),
        (LOCAL, {"HTTP_PROXY": "http://p:1", "no_proxy": "*"}, None),
        (LOCAL, {"HTTP_PROXY": "http://p:1", "NO_PROXY": "127.0.0.1:8080"}, None),
        (
            LOCAL,
            {"HTTP_PROXY": "http://p:1", "NO_PROXY": "127.0.0.1:9999"},
            ("http://p:1", "HTTP_PROXY"),
        ),
        ("http://gpu.lab.example/v1", {"HTTP_PROXY": "http://p:1", "NO_PROXY": ".example"}, None),
        (
            "http://gpu.lab.example/v1",
            {"HTTP_PROXY": "http://p:1", "NO_PROXY": "lab.example"},
            None,
        ),
        (
            "http://gpulab.example/v1",
            {"HTTP_PROXY": "http://p:1", "NO_PROXY": "lab.example"},
            ("http://p:1", "HTTP_PROXY"),
        ),
        ("http://[::1]:8080/v1", {"HTTP_PROXY": "http://p:1", "NO_PROXY": "::1"}, None),
    ],
)
def test_the_proxy_a_request_goes_through(
    url: str, env: dict[str, str], found: tuple[str, str] | None
) -> None:
    assert proxy_for(url, env) == found


def test_no_advice_without_a_proxy() -> None:
    assert proxy_advice(LOCAL, {"NO_PROXY": "x"}) == ""


@pytest.fixture
def closed_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


def only_the_proxy(monkeypatch: pytest.MonkeyPatch, proxy: str) -> None:
    """``HTTP_PROXY`` set to ``proxy``, and no other proxy variable."""
    monkeypatch.setenv("HTTP_PROXY", proxy)
    for name in ("NO_PROXY", "no_proxy", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


async def test_a_dead_proxy_is_named_where_the_server_was_blamed(
    monkeypatch: pytest.MonkeyPatch, closed_port: int
) -> None:
    """The model's server is up; the proxy the environment names is not."""

    async def answer(request: web.Request) -> web.Response:
        return web.Response(text="unreachable if the proxy were used")

    async with answering(answer) as url:
        only_the_proxy(monkeypatch, f"http://127.0.0.1:{closed_port}")
        error = await failure(url, max_retries=1)
    assert error.kind == "connect"
    said = str(error)
    assert f"through the proxy http://127.0.0.1:{closed_port} ($HTTP_PROXY)" in said
    assert "add 127.0.0.1 to NO_PROXY" in said


@pytest.mark.parametrize("status", [502, 403, 407])
async def test_a_proxys_refusal_is_named_as_the_proxys(
    monkeypatch: pytest.MonkeyPatch, closed_port: int, status: int
) -> None:
    """A proxy that is up answers 502 for a host it cannot reach, 403 for one its policy
    refuses, 407 without its credentials: not "the server is failing or overloaded" or
    "the API key was rejected" alone."""

    async def from_the_proxy(request: web.Request) -> web.Response:
        return web.Response(status=status, text="from the proxy")

    async with answering(from_the_proxy) as proxy_url:
        proxy = proxy_url.removesuffix("/v1")
        only_the_proxy(monkeypatch, proxy)
        error = await failure(f"http://127.0.0.1:{closed_port}/v1", max_retries=1)
    assert error.status == status
    assert f"through the proxy {proxy} ($HTTP_PROXY)" in str(error)
