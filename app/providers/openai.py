"""Chat completions over SSE against any OpenAI-compatible endpoint.

``OpenAIProvider.stream`` turns one request into a flat async sequence the agent
loop can consume without knowing HTTP: parsed ``Chunk``\\ s, ``Retry`` events while
the request is retried, and always a final ``StreamEnd`` (or a ``ProviderError``
when no response could be obtained at all).

Fault policy (DESIGN §4, issue 4), decided by *when* a failure happens:

* before the first byte of the answer (nothing of it exists yet): connect errors,
  timeouts and HTTP 429/500/502/503/504 are retried with exponential backoff,
  honouring ``Retry-After``, while the retry window lasts; a pooled keep-alive
  connection the server already closed is retried at once on a fresh connection;
  401/403/404 and other statuses raise ``ProviderError`` naming the URL and model;
* a 200 whose body is not an event stream (a web page behind a wrong
  ``--base-url``, a JSON error) raises ``ProviderError`` at once: resending the
  same request to the same page cannot help, and "repairing" it costs a turn;
* after the first byte of an event stream (part of the answer may have been shown
  and acted on): a dropped connection or a stall longer than ``idle_timeout`` ends
  the stream with ``StreamEnd("disconnect")`` — a truncation, never silently
  re-requested; an ``{"error": ...}`` object ends it with ``StreamEnd("error")``.

Timeouts (docs/decisions-providers.md has the arithmetic): ``connect_timeout`` to
connect, ``first_byte_timeout`` from sending the request to the first byte of the
body, ``idle_timeout`` between bytes after that; no attempt starts more than
``retry_window`` seconds after the first, so a hung server costs at most
``retry_window + connect_timeout + first_byte_timeout`` (115 s by default).

Malformed SSE (non-JSON ``data``) is skipped and counted, never fatal.

Secrets: every text this module produces from the server's words (error bodies,
``{"error": ...}`` events, retry reasons, log lines) is scrubbed of the key, of
credentials the base URL carries and of credential shapes (``Authorization:
Bearer …``) before it leaves; URLs in messages are shown without their
credentials (``https://***@host/v1/...``). The request URL is the base URL's path
plus ``/chat/completions``, with the base URL's query string kept after it.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from frontier.app.events import Retry
from frontier.app.providers.base import Chunk, ProviderItem, StreamEnd
from frontier.app.providers.context_window import (
    PROBE_TIMEOUT,
    WindowInfo,
    get_json,
    sibling_url,
    window_from,
)
from frontier.app.providers.errors import ProviderError, context_overflow
from frontier.app.secrets import Scrubber, redact_url, url_secrets
from frontier.app.wire import safejson
from frontier.app.wire.sse import SSEDecoder, SSEEvent

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_BACKOFF = 30.0
"""Longest computed backoff between attempts (seconds)."""
CONNECT_TIMEOUT = 10.0
FIRST_BYTE_TIMEOUT = 45.0
IDLE_TIMEOUT = 30.0
RETRY_WINDOW = 60.0
"""No attempt starts later than this after the first one: with the timeouts above the
worst case is 60 + 10 + 45 = 115 s, under the two minutes a user will wait."""
MAX_RETRIES = 4
ERROR_BODY_CAP = 8192
JSON_BODY_CAP = 1 << 24
SNIFF_LIMIT = 4096
"""Bytes of a 200 body read, at most, to tell an event stream from anything else."""
DRAIN_TIMEOUT = 1.0
"""How long to wait for the end of the body after ``[DONE]`` (keeps the connection
reusable; a server that holds the stream open after ``[DONE]`` is just closed)."""
SSE_FIELDS = frozenset({b"data", b"event", b"id", b"retry"})


Sleep = Callable[[float], Awaitable[Any]]


class _Silent(Exception):
    """The body sent nothing for too long: before its first byte, or mid-stream."""

    def __init__(self, first: bool) -> None:
        super().__init__("no first byte" if first else "stalled")
        self.first = first


@dataclass
class _Attempt:
    """What one failed attempt says for the retry decision."""

    failure: str
    delay: float
    status: int | None = None
    timed_out: bool = False
    """No first byte within ``first_byte_timeout`` (the give-up hint differs)."""


class OpenAIProvider:
    """Streams ``POST {base_url}/chat/completions`` responses; see the module doc."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        connect_timeout: float = CONNECT_TIMEOUT,
        first_byte_timeout: float = FIRST_BYTE_TIMEOUT,
        idle_timeout: float = IDLE_TIMEOUT,
        read_timeout: float | None = None,
        max_retries: int = MAX_RETRIES,
        retry_window: float = RETRY_WINDOW,
        max_tokens: int | None = None,
        backoff_base: float = 0.5,
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``read_timeout`` is the old name of ``idle_timeout`` (kept for callers);
        ``sleep`` and ``clock`` are injected by tests so backoff is never waited out."""
        self._request_url = endpoint_url(base_url, "chat/completions")
        self.base_url = redact_url(base_url.rstrip("/")) or ""
        """The base URL as shown to people: without its credentials."""
        self.url = redact_url(self._request_url) or ""
        """The request URL as shown in messages (``ProviderError.url``)."""
        self._models_url = redact_url(endpoint_url(base_url, "models")) or ""
        self.model = model
        self._api_key = api_key
        self._scrubber = Scrubber.from_env(api_key, *url_secrets(base_url))
        self.max_retries = max_retries
        self.retry_window = retry_window
        self.backoff_base = backoff_base
        self.connect_timeout = connect_timeout
        self.first_byte_timeout = first_byte_timeout
        self.idle_timeout = read_timeout if read_timeout is not None else idle_timeout
        self._sleep = sleep
        self._clock = clock
        self._stream_options = True
        self.max_tokens = max_tokens
        """Sent as ``max_tokens`` when set (``--max-tokens``): a cap on each response."""
        # Our own deadlines (asyncio) bound the first byte and the gaps; httpx's read
        # timeout is only the backstop for the reads they do not cover.
        backstop = max(first_byte_timeout, self.idle_timeout) + 1.0
        timeout = httpx.Timeout(
            connect=connect_timeout, read=backstop, write=first_byte_timeout, pool=connect_timeout
        )
        self._client = httpx.AsyncClient(transport=transport, timeout=timeout)
        self._probes: dict[str, asyncio.Future[Any]] = {}
        """``probe_json`` answers by URL (one GET per path for the provider's life)."""

    def __repr__(self) -> str:
        # Never shows the key.
        return f"OpenAIProvider(url={self.url!r}, model={self.model!r})"

    @property
    def read_timeout(self) -> float:
        """The old name of ``idle_timeout``."""
        return self.idle_timeout

    @property
    def worst_case_wait(self) -> float:
        """The longest a request can take to give up before any byte arrives: the last
        attempt starts within ``retry_window`` and lasts at most connect + first byte."""
        return self.retry_window + self.connect_timeout + self.first_byte_timeout

    async def __aenter__(self) -> OpenAIProvider:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    async def probe_context_window(self, timeout: float = PROBE_TIMEOUT) -> WindowInfo | None:
        """Ask the server for the model's context window (``context_window.py``): llama.cpp's
        ``/props``, else ``/models``; ``None`` when neither says. Never raises."""
        props, models = await asyncio.gather(
            self.probe_json("props", root=True, timeout=timeout),
            self.probe_json("models", timeout=timeout),
        )
        return window_from(props, models, self.model)

    async def probe_json(
        self, path: str, *, root: bool = False, timeout: float = PROBE_TIMEOUT
    ) -> Any:
        """``GET`` a JSON document beside the chat endpoint (``models``) or, with ``root``,
        at the server root (llama.cpp's ``props``): its body, or ``None`` for anything but
        a 200 JSON answer. Never raises. Asked once per provider and path: the context
        window and prefill detection both read ``/props``, and a session needs one answer."""
        url = sibling_url(self._request_url, path, root=root)
        if url not in self._probes:
            headers = {k: v for k, v in self._headers().items() if k != "Accept"}
            self._probes[url] = asyncio.ensure_future(get_json(self._client, url, headers, timeout))
        return await asyncio.shield(self._probes[url])

    # ------------------------------------------------------------------ request

    def _body(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, extra: dict | None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": True}
        if self._stream_options:
            body["stream_options"] = {"include_usage": True}
        if self.max_tokens:
            body["max_tokens"] = self.max_tokens
        if tools:
            body["tools"] = tools
        if extra:
            extra = dict(extra)
            # The loop reads one choice per response: with n > 1 the server interleaves
            # choices the transducer would splice into one text. Never requested.
            n = extra.pop("n", None)
            if n not in (None, 1):
                log.warning("not requesting n=%r: Frontier reads one choice per response", n)
            if extra.pop("stream", True) is not True:
                log.warning("not turning streaming off: Frontier reads event streams")
            body.update(extra)
        return body

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-store"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _where(self) -> str:
        return f"{self.url} (model {self.model!r})"

    def _build(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        extra: dict[str, Any] | None,
    ) -> httpx.Request:
        try:
            return self._client.build_request(
                "POST",
                self._request_url,
                json=self._body(messages, tools, extra),
                headers=self._headers(),
            )
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise self._invalid_url(exc) from exc

    async def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> AsyncIterator[ProviderItem]:
        """One chat completion as ``Chunk``/``Retry`` items and a final ``StreamEnd``.

        Stopping early (the loop saw text after a confirmed call) closes the
        HTTP response: wrap the call in ``contextlib.aclosing`` or ``aclose()``
        the iterator so the connection is released at once, not at GC time.
        """
        began = self._clock()
        retries = 0
        stale_retried = False
        while True:
            request = self._build(messages, tools, extra)
            sent = time.perf_counter()
            try:
                response, first_deadline = await self._send(request)
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError) as exc:
                # The classic stale keep-alive: the server closed an idle pooled
                # connection just as we reused it. Nothing was answered, so one
                # immediate retry on a fresh connection is always safe.
                if not stale_retried:
                    stale_retried = True
                    yield Retry(
                        attempt=retries + 1,
                        delay=0.0,
                        reason=f"connection closed before a response ({self._exc(exc)}); "
                        "retrying on a fresh connection",
                    )
                    continue
                failed = _Attempt(
                    f"connection closed before a response ({self._exc(exc)})",
                    self._backoff(retries + 1),
                )
            except TimeoutError:
                failed = self._no_first_byte(retries)
            except (httpx.ConnectError, httpx.TimeoutException) as exc:
                failed = _Attempt(
                    self._scrubber.scrub(_describe_connect_failure(exc, self.connect_timeout)),
                    self._backoff(retries + 1),
                )
            except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
                raise self._invalid_url(exc) from exc
            else:
                if response.status_code == 200:
                    pieces = self._pieces(response, first_deadline)
                    head: bytes | None = None
                    try:
                        head = await _sniff(pieces)
                    except _Silent:
                        pass  # no first byte: retried below, like a server that never answered
                    finally:
                        if head is None:
                            await pieces.aclose()
                            await response.aclose()
                    if head is not None:
                        answer = self._answer(response, pieces, head, sent)
                        async with aclosing(answer) as items:
                            async for item in items:
                                yield item
                        return
                    failed = self._no_first_byte(retries)
                else:
                    status = response.status_code
                    text = self._scrubber.scrub(await self._error_body(response))
                    if status in (400, 422) and self._stream_options and "stream_options" in text:
                        # Older servers reject the usage option; usage is a nicety.
                        self._stream_options = False
                        yield Retry(
                            attempt=retries + 1,
                            delay=0.0,
                            reason="the server rejected stream_options; retrying without usage",
                        )
                        continue
                    if status not in RETRY_STATUSES:
                        raise self._status_error(status, text, retries + 1)
                    failure = f"HTTP {status} {_reason_phrase(status)}{_server_says(text)}"
                    after = _retry_after(response.headers.get("retry-after"))
                    left = self.retry_window - (self._clock() - began)
                    if after is not None and after > left:
                        raise ProviderError(
                            "http",
                            f"{self._where()} answered {failure} and asks to wait "
                            f"{after:.0f} s before retrying (past Frontier's "
                            f"{self.retry_window:.0f} s retry window); try again later or "
                            "use another endpoint",
                            url=self.url,
                            model=self.model,
                            status=status,
                            attempts=retries + 1,
                        )
                    delay = after if after is not None else self._backoff(retries + 1)
                    failed = _Attempt(failure, delay, status)
            waited = self._clock() - began
            if retries >= self.max_retries or waited + failed.delay > self.retry_window:
                raise self._give_up(failed, retries + 1, waited)
            retries += 1
            yield Retry(attempt=retries, delay=failed.delay, reason=failed.failure)
            await self._sleep(failed.delay)

    async def _send(self, request: httpx.Request) -> tuple[httpx.Response, float]:
        """Send ``request``; the response (headers read) and the deadline for its first
        body byte. Raises ``TimeoutError`` when no headers came by that deadline.

        The deadline starts as connect + first byte and is moved to "first byte after
        the request went out" when httpx reports sending it (its ``trace`` extension;
        in-process transports do not report, and keep the first figure)."""
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(self.connect_timeout + self.first_byte_timeout) as limit:

            async def trace(name: str, info: dict[str, Any]) -> None:
                when = limit.when()
                if name.endswith("send_request_headers.started") and when is not None:
                    limit.reschedule(min(when, loop.time() + self.first_byte_timeout))

            request.extensions["trace"] = trace
            response = await self._client.send(request, stream=True)
            deadline = limit.when() or loop.time() + self.first_byte_timeout
            limit.reschedule(None)
        return response, deadline

    def _no_first_byte(self, retries: int) -> _Attempt:
        return _Attempt(
            f"no first byte within {self.first_byte_timeout:g} s of sending the request "
            "(first_byte_timeout)",
            self._backoff(retries + 1),
            timed_out=True,
        )

    def _give_up(self, failed: _Attempt, attempts: int, waited: float) -> ProviderError:
        if failed.status is not None:
            kind, hint = "http", "The server is failing or overloaded: try again later."
        elif failed.timed_out:
            kind = "timeout"
            hint = (
                "The server accepted the request but sent nothing: it may be overloaded or "
                "stuck; a slow model on a long prompt may need longer: raise "
                "first_byte_timeout (--first-byte-timeout S, FRONTIER_FIRST_BYTE_TIMEOUT or "
                "config.toml)."
            )
        else:
            kind, hint = "connect", "Is the server running and is --base-url right?"
        return ProviderError(
            kind,
            f"{self._where()}: {failed.failure}; gave up after {attempts} attempts in "
            f"{waited:.0f} s. {hint}",
            url=self.url,
            model=self.model,
            status=failed.status,
            attempts=attempts,
        )

    def _invalid_url(self, exc: Exception) -> ProviderError:
        return ProviderError(
            "connect",
            f"invalid base URL {self.base_url!r}: {self._exc(exc, bare=True)}; "
            "use e.g. http://127.0.0.1:8080/v1",
            url=self.url,
            model=self.model,
        )

    def _exc(self, exc: BaseException, *, bare: bool = False) -> str:
        """An exception's text, scrubbed (httpx may quote the URL it was given)."""
        return self._scrubber.scrub(str(exc).strip() if bare else _exc_text(exc))

    def _backoff(self, attempt: int) -> float:
        return min(MAX_BACKOFF, self.backoff_base * (2 ** (attempt - 1)))

    def _status_error(self, status: int, text: str, attempts: int) -> ProviderError:
        says = _server_says(text)
        if status in (401, 403):
            hint = (
                "the API key was rejected: check that the key (FRONTIER_API_KEY, "
                "api_key_command / api_key_file in config.toml, or OPENAI_API_KEY) is valid "
                "for this endpoint"
                if self._api_key
                else "no API key is set: export FRONTIER_API_KEY (or OPENAI_API_KEY), or set "
                "api_key_command / api_key_file in config.toml"
            )
            return ProviderError(
                "auth",
                f"{self._where()} refused the request: HTTP {status} "
                f"{_reason_phrase(status)}{says}; {hint}",
                url=self.url,
                model=self.model,
                status=status,
                attempts=attempts,
            )
        if status == 404:
            return ProviderError(
                "not_found",
                f"{self._where()}: HTTP 404 Not Found{says}; check --base-url (it usually "
                f"ends in /v1) and --model (GET {self._models_url} lists what the server has)",
                url=self.url,
                model=self.model,
                status=status,
                attempts=attempts,
            )
        overflow = context_overflow(text) if status in (400, 413, 422) else None
        return ProviderError(
            "http",
            f"{self._where()}: HTTP {status} {_reason_phrase(status)}{says}",
            url=self.url,
            model=self.model,
            status=status,
            attempts=attempts,
            overflow=overflow,
        )

    # ------------------------------------------------------------------ response

    async def _pieces(
        self, response: httpx.Response, first_deadline: float
    ) -> AsyncGenerator[bytes, None]:
        """The body's bytes as they arrive; raises ``_Silent`` when none arrives by
        ``first_deadline`` (the first) or within ``idle_timeout`` (any later one)."""
        loop = asyncio.get_running_loop()
        raw = response.aiter_bytes()
        deadline = first_deadline
        first = True
        try:
            while True:
                try:
                    async with asyncio.timeout_at(deadline):
                        piece = await anext(raw)
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    raise _Silent(first) from None
                first = False
                deadline = loop.time() + self.idle_timeout
                yield piece
        finally:
            await raw.aclose()

    async def _error_body(self, response: httpx.Response, cap: int = ERROR_BODY_CAP) -> str:
        """At most ``cap`` bytes of a body, each read bounded by ``idle_timeout``."""
        try:
            async with asyncio.timeout(self.idle_timeout):
                return await _read_error_body(response, cap)
        except TimeoutError:
            await response.aclose()
            return ""

    async def _answer(
        self,
        response: httpx.Response,
        pieces: AsyncGenerator[bytes, None],
        head: bytes,
        sent: float,
    ) -> AsyncIterator[ProviderItem]:
        """Yield what a 200 body holds, by what its first bytes are (the label lies:
        streams come as ``text/plain``, web pages as ``200 text/html``)."""
        try:
            kind = _classify(head, complete=True)
            if kind == "sse" or kind == "empty":
                async with aclosing(self._read(pieces, head, sent)) as items:
                    async for item in items:
                        yield item
                return
            if kind == "json":
                text = await self._rest(pieces, head, JSON_BODY_CAP)
                for item in self._read_json(text, sent):
                    yield item
                return
            text = await self._rest(pieces, head, ERROR_BODY_CAP)
            raise self._not_a_stream(response, kind, text)
        finally:
            await pieces.aclose()
            await response.aclose()

    async def _rest(self, pieces: AsyncIterator[bytes], head: bytes, cap: int) -> str:
        """``head`` and what follows it, up to ``cap`` bytes (a stall just ends it)."""
        buf = bytearray(head)
        try:
            async for piece in pieces:
                buf += piece
                if len(buf) >= cap:
                    break
        except (_Silent, httpx.TransportError, httpx.DecodingError) as exc:
            log.debug("body cut short: %s", _exc_text(exc))
        return bytes(buf[:cap]).decode("utf-8", errors="replace")

    def _not_a_stream(self, response: httpx.Response, kind: str, text: str) -> ProviderError:
        ctype = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        label = ctype or "a body without a Content-Type"
        if kind == "html":
            page_type = ctype in ("text/html", "application/xhtml+xml")
            what = label if page_type else f"{label} (an HTML page)"
            title = _html_title(text)
            seen = f" The page is titled {self._scrubber.scrub(title)!r}." if title else ""
        else:
            what = label
            excerpt = " ".join(text.split())[:120]
            seen = f" It begins {self._scrubber.scrub(excerpt)!r}."
        return ProviderError(
            "protocol",
            f"{self._where()}: the server answered {what}, not an event stream; is --base-url "
            f"right?{seen} It should be the API root, which usually ends in /v1 "
            f"(GET {self._models_url} lists the models).",
            url=self.url,
            model=self.model,
            status=200,
        )

    async def _read(
        self, pieces: AsyncIterator[bytes], head: bytes, sent: float
    ) -> AsyncIterator[ProviderItem]:
        """Yield the chunks of an event stream; always ends with one ``StreamEnd``."""
        finish: str | None = None
        usage: dict[str, Any] = {}
        skipped = 0
        decoder = SSEDecoder()
        try:
            async with aclosing(_sse_events(head, pieces, decoder)) as events:
                async for event, data in events:
                    if data.strip() == "[DONE]":
                        await _drain(pieces)
                        break
                    if not data.strip():
                        continue
                    try:
                        obj = safejson.loads(data, max_depth=safejson.ENVELOPE_DEPTH)
                    except ValueError:
                        obj = None
                    if not isinstance(obj, dict):
                        if event == "error":
                            error = self._scrubber.scrub(data.strip())
                            yield StreamEnd("error", usage, error=error, skipped=skipped)
                            return
                        skipped += 1
                        log.debug(
                            "skipped a non-JSON SSE data line: %.120r", self._scrubber.scrub(data)
                        )
                        continue
                    if obj.get("error") or event == "error":
                        message = self._scrubber.scrub(_error_message(obj.get("error") or obj))
                        yield StreamEnd("error", usage, error=message, skipped=skipped)
                        return
                    for choice in obj.get("choices") or ():
                        if isinstance(choice, dict) and choice.get("finish_reason"):
                            finish = str(choice["finish_reason"])
                    if isinstance(obj.get("usage"), dict):
                        usage = obj["usage"]
                    yield Chunk(obj, data, time.perf_counter() - sent)
        except (_Silent, httpx.TimeoutException):
            if finish is None:
                yield StreamEnd(
                    "disconnect",
                    usage,
                    skipped=skipped,
                    detail=f"no data for {self.idle_timeout:g} s (idle_timeout: a read stall)",
                )
                return
        except (httpx.TransportError, httpx.DecodingError) as exc:
            if finish is None:
                yield StreamEnd(
                    "disconnect",
                    usage,
                    skipped=skipped,
                    detail=f"connection dropped mid-stream ({self._exc(exc)})",
                )
                return
        if decoder.too_long and finish is None:
            yield StreamEnd(
                "disconnect",
                usage,
                skipped=skipped,
                detail=f"an SSE line or event passed {decoder.max_line:,} bytes; the stream "
                "cannot be read past it",
            )
            return
        if finish is None:
            yield StreamEnd(
                "disconnect",
                usage,
                skipped=skipped,
                detail="the stream ended without a finish_reason or [DONE]"
                if head.strip()
                else "the server answered 200 with an empty body",
            )
            return
        yield StreamEnd(finish, usage, skipped=skipped)

    def _read_json(self, text: str, sent: float) -> list[ProviderItem]:
        """A 200 JSON body: a server that ignored ``stream: true`` (re-shaped as one
        chunk so the loop sees one shape), or an error reported as JSON."""
        try:
            obj = safejson.loads(text, max_depth=safejson.ENVELOPE_DEPTH)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and obj.get("error"):
            message = self._scrubber.scrub(_error_message(obj["error"]))
            raise ProviderError(
                "http",
                f"{self._where()} answered HTTP 200 with an error instead of a stream — the "
                f"server says: {' '.join(message.split())[:300]}",
                url=self.url,
                model=self.model,
                status=200,
            )
        choices = obj.get("choices") if isinstance(obj, dict) else None
        if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
            raise ProviderError(
                "protocol",
                f"{self._where()} answered 200 with a JSON body that is not a chat completion "
                f"({self._scrubber.scrub(text[:200])!r}); is this an OpenAI-compatible /v1 "
                "endpoint?",
                url=self.url,
                model=self.model,
                status=200,
            )
        assert isinstance(obj, dict)
        choice = choices[0]
        message = dict(choice.get("message") or {})
        for call_index, call in enumerate(message.get("tool_calls") or []):
            if isinstance(call, dict):
                call.setdefault("index", call_index)
        finish = str(choice.get("finish_reason") or "stop")
        chunk = {
            "id": obj.get("id", ""),
            "object": "chat.completion.chunk",
            "model": obj.get("model", self.model),
            "choices": [{"index": 0, "delta": message, "finish_reason": finish}],
        }
        usage = obj.get("usage") if isinstance(obj.get("usage"), dict) else {}
        reshaped = Chunk(chunk, json.dumps(chunk), time.perf_counter() - sent)
        return [reshaped, StreamEnd(finish, usage or {})]


# --------------------------------------------------------------------- the body


def _classify(head: bytes, *, complete: bool) -> str | None:
    """What a 200 body is, from its first bytes: ``sse``, ``html``, ``json``, ``empty``,
    ``other`` — or ``None`` while more bytes are needed (``complete``: no more come).

    An event stream's first line is a field (``data:``, ``event:``, ``id:``, ``retry:``)
    or a ``:`` comment; a line that is neither is tolerated if a ``data:`` line follows
    within ``SNIFF_LIMIT`` bytes (the SSE spec ignores such lines)."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not text:
        return "empty" if complete else None
    if text[:1] == b"<":
        return "html"
    if text[:1] in (b"{", b"["):
        return "json"
    name = re.match(rb"[^:\r\n]*", text)
    assert name is not None
    if name.end() < len(text):  # the first line's field name is complete
        if name.group() in SSE_FIELDS or not name.group():
            return "sse"
        if re.search(rb"[\r\n]data[:\r\n]", text):
            return "sse"
    if complete or len(text) >= SNIFF_LIMIT:
        return "sse" if re.search(rb"(?:^|[\r\n])data(?:[:\r\n]|$)", text) else "other"
    return None


async def _sniff(pieces: AsyncIterator[bytes]) -> bytes:
    """Read until ``_classify`` can tell (or the body ends or stalls); the bytes read.

    ``_Silent(first=True)`` (no byte by the first-byte deadline) propagates: the
    caller may retry, nothing of the answer exists. A later stall or a dropped
    connection just ends the sniff: the body is then judged by what arrived."""
    head = bytearray()
    try:
        async for piece in pieces:
            head += piece
            if _classify(bytes(head), complete=False) is not None:
                break
    except _Silent as exc:
        if exc.first:
            raise
    except (httpx.TransportError, httpx.DecodingError) as exc:
        log.debug("body cut short before it could be told apart: %s", _exc_text(exc))
    return bytes(head)


async def _sse_events(
    head: bytes, pieces: AsyncIterator[bytes], decoder: SSEDecoder | None = None
) -> AsyncIterator[SSEEvent]:
    """``(event, data)`` per dispatched server-sent event, read by the one SSE decoder
    (``frontier.app.wire.sse``: the WHATWG rules) from the sniffed ``head`` and the
    deadline-bounded pieces after it. Stops at a line over the decoder's limit
    (``decoder.too_long``): the caller ends the stream there."""
    decoder = decoder if decoder is not None else SSEDecoder()
    for item in decoder.feed_events(head):
        yield item
    if decoder.too_long:
        return
    async for piece in pieces:
        for item in decoder.feed_events(piece):
            yield item
        if decoder.too_long:
            return


def _html_title(text: str) -> str:
    match = re.search(r"<title[^>]*>(.*?)</title>", text, re.IGNORECASE | re.DOTALL)
    return " ".join(match.group(1).split())[:100] if match else ""


# ---------------------------------------------------------------------- helpers


def endpoint_url(base_url: str, path: str) -> str:
    """``base_url`` + ``/path``, keeping the base URL's query after the new path.

    ``https://h/v1?api-version=2024-01`` → ``https://h/v1/chat/completions?api-version=2024-01``
    (string concatenation would put the path inside the query). User-info stays:
    httpx turns it into Basic auth.
    """
    try:
        parts = urlsplit(base_url.strip())
    except ValueError:  # unparseable: httpx says why when the request is built
        return f"{base_url.rstrip('/')}/{path}"
    joined = f"{parts.path.rstrip('/')}/{path}"
    return urlunsplit((parts.scheme, parts.netloc, joined, parts.query, ""))


async def _read_error_body(response: httpx.Response, cap: int = ERROR_BODY_CAP) -> str:
    """Read at most ``cap`` bytes of a body (error pages can be huge) and close it."""
    buf = bytearray()
    try:
        async for piece in response.aiter_bytes():
            buf += piece
            if len(buf) >= cap:
                break
    except httpx.TransportError as exc:
        log.debug("error body unreadable: %s", exc)
    finally:
        await response.aclose()
    return bytes(buf[:cap]).decode("utf-8", errors="replace")


async def _drain(pieces: AsyncIterator[Any], limit: float = DRAIN_TIMEOUT) -> None:
    """Read what follows ``[DONE]`` (normally just the end of the chunked body) so the
    connection goes back to the keep-alive pool instead of being torn down."""
    try:
        async with asyncio.timeout(limit):
            async for _ in pieces:
                pass
    except (TimeoutError, _Silent, httpx.TransportError, httpx.DecodingError) as exc:
        log.debug("not drained after [DONE]: %s", _exc_text(exc))


def _error_message(error: Any) -> str:
    """The human part of an OpenAI-style error (``{"message": ..., "code": ...}``)."""
    if isinstance(error, dict):
        message = error.get("message") or error.get("error") or json.dumps(error)
        code = error.get("code") or error.get("type")
        text = str(message) if not isinstance(message, dict) else _error_message(message)
        return f"{text} ({code})" if code and str(code) not in text else text
    return str(error)


def _server_says(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    try:
        obj = safejson.loads(text, max_depth=safejson.ENVELOPE_DEPTH)
    except ValueError:
        obj = None
    if isinstance(obj, dict) and "error" in obj:
        text = _error_message(obj["error"])
    elif isinstance(obj, dict) and "detail" in obj:
        text = str(obj["detail"])
    text = " ".join(text.split())
    return f" — the server says: {text[:300]}"


def _reason_phrase(status: int) -> str:
    try:
        return httpx.codes(status).phrase
    except ValueError:
        return ""


def _retry_after(value: str | None) -> float | None:
    """``Retry-After`` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _describe_connect_failure(exc: httpx.HTTPError, connect_timeout: float) -> str:
    if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
        return f"no connection within {connect_timeout:g} s (connect_timeout)"
    if isinstance(exc, httpx.ReadTimeout):
        return "no response headers before the read timeout"
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out ({_exc_text(exc)})"
    return f"cannot connect ({_exc_text(exc)})"


def _exc_text(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


__all__ = ["Chunk", "OpenAIProvider", "ProviderError", "ProviderItem", "StreamEnd"]
