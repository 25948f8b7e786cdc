"""Model requests verify TLS as httpx does, and a plain-HTTP model never reads the CA
bundle (``app/model/tls.py``): against real servers on 127.0.0.1, one speaking TLS with a
certificate from a test authority (``trustme``)."""

from __future__ import annotations

import asyncio
import ssl
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import pytest
import sse_server
import trustme
from aiohttp import web
from sse_server import Sleeps, sse, start_sse

from frontier.app.model.conversation import UserText
from frontier.app.model.errors import ConnectFailed
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import WireEvent, text_of
from frontier.app.model.tls import TrustOnFirstHandshake, trust_for
from frontier.app.model.transport import ModelClient

REQUEST = ModelRequest(system="", items=(UserText("hi"),))
BODY = (
    sse({"choices": [{"index": 0, "delta": {"content": "Hello"}, "finish_reason": None}]})
    + sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    + b"data: [DONE]\n\n"
)


async def answer(request: web.Request) -> web.StreamResponse:
    resp = await start_sse(request)
    await resp.write(BODY)
    await resp.write_eof()
    return resp


def serve(tls: ssl.SSLContext | None = None) -> AbstractAsyncContextManager[str]:
    """The answering model on a free loopback port, over TLS with ``tls``."""
    return sse_server.serve(answer, tls)


async def hello(url: str, sleeps: Sleeps | None = None) -> str:
    """The text the model at ``url`` answers (the client's own retries, never waited)."""
    client = ModelClient(
        codec("openai-chat"), url, "m", sleep=Sleeps() if sleeps is None else sleeps
    )
    try:
        items = [item async for item in client.stream(REQUEST)]
    finally:
        await client.aclose()
    return "".join(text_of(item.deltas) for item in items if isinstance(item, WireEvent))


def server_context(ca: trustme.CA, *names: str) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(*names).configure_cert(context)
    return context


@pytest.fixture
def ca(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[trustme.CA, Path]:
    """A test authority, its certificate written to a file; no trust set in the
    environment (each test sets what it checks)."""
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    authority = trustme.CA()
    pem = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(pem))
    return authority, pem


async def test_a_plain_http_model_is_reached_though_the_ca_bundle_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # httpx read the bundle when the client was made: an unreadable one refused even a
    # local model that speaks no TLS (and a readable one cost 50-60 ms before every start)
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "absent.pem"))
    async with serve() as url:
        assert await hello(url) == "Hello"


async def test_https_is_verified_against_the_trust_the_environment_names(
    ca: tuple[trustme.CA, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    authority, pem = ca
    sleeps = Sleeps()
    async with serve(server_context(authority, "127.0.0.1")) as url:
        with pytest.raises(ConnectFailed, match=r"not trusted \(unable to get local issuer") as e:
            await hello(url, sleeps)  # certifi's authorities do not know the test one
        assert "set SSL_CERT_FILE to that authority's certificate" in str(e.value)
        assert sleeps == [] and e.value.attempts == 1  # the same next time: not retried
        monkeypatch.setenv("SSL_CERT_FILE", str(pem))
        assert await hello(url) == "Hello"


async def test_https_checks_the_host_name(
    ca: tuple[trustme.CA, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    authority, pem = ca
    monkeypatch.setenv("SSL_CERT_FILE", str(pem))
    async with serve(server_context(authority, "model.example")) as url:
        with pytest.raises(ConnectFailed, match=r"certificate is for another host \(IP address"):
            await hello(url)  # a trusted certificate, but for another name


async def test_https_to_a_plain_http_server_says_so_at_once() -> None:
    # a local server's URL written with https://: five attempts over 8 s before, ending in
    # "Is the server running?"
    sleeps = Sleeps()
    async with serve() as url:
        with pytest.raises(ConnectFailed, match=r"does not speak TLS \(SSL: [A-Z_]+\)") as e:
            await hello(url.replace("http://", "https://"), sleeps)
    assert "needs http:// in --base-url" in str(e.value)
    assert sleeps == [] and e.value.attempts == 1


async def test_http_to_a_tls_only_server_says_so_at_once(ca: tuple[trustme.CA, Path]) -> None:
    # Python's ssl closes a plain-HTTP request's connection without a word: five attempts
    # over 8 s before, ending in "Is the server running?"
    authority, _ = ca
    sleeps = Sleeps()
    async with serve(server_context(authority, "127.0.0.1")) as url:
        with pytest.raises(ConnectFailed, match=r"speaks TLS on that port") as e:
            await hello(url.replace("https://", "http://"), sleeps)
    assert "use https:// in --base-url" in str(e.value)
    assert sleeps == [] and e.value.attempts == 1  # only the fresh-connection retry


async def test_a_plain_server_that_hangs_up_is_still_retried_not_called_tls() -> None:
    # the TLS question must not turn a flaky plain server's closes into a wrong diagnosis
    accepted = 0

    async def hang_up(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal accepted
        accepted += 1
        writer.transport.abort()

    server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    sleeps = Sleeps()
    try:
        with pytest.raises(ConnectFailed, match="connection closed before a response") as e:
            await hello(f"http://127.0.0.1:{port}/v1", sleeps)
    finally:
        server.close()
        await server.wait_closed()
    assert "TLS" not in str(e.value)
    assert sleeps and e.value.attempts == len(sleeps) + 1  # backed off as any closed connection
    assert accepted == e.value.attempts + 2  # every attempt, the fresh retry and one TLS hello


async def test_an_unreadable_bundle_fails_the_https_request_naming_it(
    ca: tuple[trustme.CA, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    authority, _ = ca
    absent = tmp_path / "absent.pem"
    monkeypatch.setenv("SSL_CERT_FILE", str(absent))
    async with serve(server_context(authority, "127.0.0.1")) as url:
        with pytest.raises(ConnectFailed) as e:
            await hello(url)
    assert str(e.value).endswith(
        f"cannot connect: the CA certificates in {absent} could not be read ([Errno 2] No such "
        "file or directory): point SSL_CERT_FILE at a readable file of CA certificates, or "
        "unset it"
    )
    assert e.value.attempts == 1


def test_the_context_is_the_default_contexts_settings_with_its_bundle_read_later(
    ca: tuple[trustme.CA, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, pem = ca
    monkeypatch.setenv("SSL_CERT_FILE", str(pem))
    default = ssl.create_default_context(cafile=str(pem))
    lazy = trust_for("http://127.0.0.1:8080/v1")
    assert isinstance(lazy, TrustOnFirstHandshake)
    for setting in ("options", "verify_mode", "verify_flags", "check_hostname", "protocol"):
        assert getattr(lazy, setting) == getattr(default, setting), setting
    assert (lazy.minimum_version, lazy.maximum_version) == (
        default.minimum_version,
        default.maximum_version,
    )
    assert lazy.get_ciphers() == default.get_ciphers()
    assert lazy.get_ca_certs() == []  # plain HTTP: nothing read until a handshake needs it
    lazy.trusted()
    assert lazy.get_ca_certs() == default.get_ca_certs()
    https = trust_for("https://model.example/v1")  # read on its own thread at once
    https.trusted()
    assert https.get_ca_certs() == default.get_ca_certs()
