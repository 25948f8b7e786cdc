"""Chat completions over SSE against any OpenAI-compatible endpoint.

``OpenAIProvider.stream`` turns one request into a flat async sequence the agent
loop can consume without knowing HTTP: parsed ``Chunk``\\ s, ``Retry`` events while
the request is retried, and always a final ``StreamEnd`` (or a ``ProviderError``
when no response could be obtained at all).

Fault policy (DESIGN §4, issue 4), decided by *when* a failure happens:

* before the response headers (nothing of the answer exists yet): connect errors,
  timeouts and HTTP 429/500/502/503/504 are retried with exponential backoff,
  honouring ``Retry-After``; a pooled keep-alive connection the server already
  closed is retried at once on a fresh connection; 401/403/404 and other
  statuses raise ``ProviderError`` naming the URL and model;
* after the headers of a 200 (part of the answer may have been shown and acted
  on): a dropped connection or a read stall ends the stream with
  ``StreamEnd("disconnect")`` — a truncation, never silently re-requested;
  an ``{"error": ...}`` object ends it with ``StreamEnd("error")``.

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
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
from httpx_sse import EventSource

from frontier.app.cst import safejson
from frontier.app.events import Retry
from frontier.app.providers.errors import ProviderError
from frontier.app.secrets import Scrubber, redact_url, url_secrets

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_BACKOFF = 30.0
"""Longest computed backoff between attempts (seconds)."""
MAX_RETRY_AFTER = 120.0
"""A ``Retry-After`` longer than this is not waited for: the request fails with the
server's figure in the message, rather than freezing the session for an hour."""
ERROR_BODY_CAP = 8192
DRAIN_TIMEOUT = 1.0
"""How long to wait for the end of the body after ``[DONE]`` (keeps the connection
reusable; a server that holds the stream open after ``[DONE]`` is just closed)."""


@dataclass(frozen=True)
class Chunk:
    """One parsed SSE ``data:`` JSON object (a ``chat.completion.chunk``)."""

    data: dict[str, Any]
    raw: str
    """The ``data`` string exactly as received (recordings keep this)."""
    t: float
    """Seconds since the request that produced it was sent."""


@dataclass(frozen=True)
class StreamEnd:
    """The last item of every stream.

    ``finish_reason`` is the server's (``stop``, ``length``, ``tool_calls``, ...),
    ``disconnect`` (connection dropped, read stall, or EOF before any
    finish_reason) or ``error`` (an ``{"error": ...}`` object in a 200 stream;
    the server's message is in ``error``).
    """

    finish_reason: str
    usage: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    skipped: int = 0
    """SSE events skipped because their ``data`` was not a JSON object."""
    detail: str = ""
    """Why a ``disconnect`` happened (for logs and the UI), else empty."""


ProviderItem = Chunk | Retry | StreamEnd

Sleep = Callable[[float], Awaitable[Any]]


class _LenientEventSource(EventSource):
    """Parse SSE whatever the Content-Type: some servers label streams
    ``text/plain`` or omit the header; the body decides, not the label."""

    def _check_content_type(self) -> None:
        return None


class OpenAIProvider:
    """Streams ``POST {base_url}/chat/completions`` responses; see the module doc."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 60.0,
        max_retries: int = 4,
        backoff_base: float = 0.5,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
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
        self.backoff_base = backoff_base
        self.read_timeout = read_timeout
        self._sleep = sleep
        self._stream_options = True
        timeout = httpx.Timeout(
            connect=connect_timeout, read=read_timeout, write=read_timeout, pool=connect_timeout
        )
        self._client = httpx.AsyncClient(transport=transport, timeout=timeout)

    def __repr__(self) -> str:
        # Never shows the key.
        return f"OpenAIProvider(url={self.url!r}, model={self.model!r})"

    async def __aenter__(self) -> OpenAIProvider:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._client.aclose()

    # ------------------------------------------------------------------ request

    def _body(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, extra: dict | None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "stream": True}
        if self._stream_options:
            body["stream_options"] = {"include_usage": True}
        if tools:
            body["tools"] = tools
        if extra:
            body.update(extra)
        return body

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream", "Cache-Control": "no-store"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _where(self) -> str:
        return f"{self.url} (model {self.model!r})"

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
        retries = 0
        stale_retried = False
        while True:
            status: int | None = None
            try:
                request = self._client.build_request(
                    "POST",
                    self._request_url,
                    json=self._body(messages, tools, extra),
                    headers=self._headers(),
                )
            except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
                raise self._invalid_url(exc) from exc
            sent = time.perf_counter()
            try:
                response = await self._client.send(request, stream=True)
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
                failure = f"connection closed before a response ({self._exc(exc)})"
                delay = self._backoff(retries + 1)
            except (httpx.ConnectError, httpx.TimeoutException) as exc:
                failure = self._scrubber.scrub(_describe_connect_failure(exc))
                delay = self._backoff(retries + 1)
            except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
                raise self._invalid_url(exc) from exc
            else:
                if response.status_code == 200:
                    async with aclosing(self._read(response, sent)) as items:
                        async for item in items:
                            yield item
                    return
                status = response.status_code
                text = self._scrubber.scrub(await _read_error_body(response))
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
                if after is not None and after > MAX_RETRY_AFTER:
                    raise ProviderError(
                        "http",
                        f"{self._where()} answered {failure} and asks to wait "
                        f"{after:.0f} s before retrying (longer than {MAX_RETRY_AFTER:.0f} s); "
                        "try again later or use another endpoint",
                        url=self.url,
                        model=self.model,
                        status=status,
                        attempts=retries + 1,
                    )
                delay = after if after is not None else self._backoff(retries + 1)
            if retries >= self.max_retries:
                kind = "http" if status is not None else "connect"
                raise ProviderError(
                    kind,
                    f"{self._where()}: {failure}; gave up after {retries + 1} attempts. "
                    + (
                        "The server is failing or overloaded: try again later."
                        if kind == "http"
                        else "Is the server running and is --base-url right?"
                    ),
                    url=self.url,
                    model=self.model,
                    status=status,
                    attempts=retries + 1,
                )
            retries += 1
            yield Retry(attempt=retries, delay=delay, reason=failure)
            await self._sleep(delay)

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
        return ProviderError(
            "http",
            f"{self._where()}: HTTP {status} {_reason_phrase(status)}{says}",
            url=self.url,
            model=self.model,
            status=status,
            attempts=attempts,
        )

    # ------------------------------------------------------------------ response

    async def _read(self, response: httpx.Response, sent: float) -> AsyncIterator[ProviderItem]:
        """Yield the chunks of a 200 response; always ends with one ``StreamEnd``."""
        finish: str | None = None
        usage: dict[str, Any] = {}
        skipped = 0
        try:
            ctype = response.headers.get("content-type", "").partition(";")[0].strip().lower()
            if ctype == "application/json":
                # A server that ignored stream=true (or reports an error as JSON).
                async for item in self._read_json(response, sent):
                    yield item
                return
            try:
                async with aclosing(_LenientEventSource(response).aiter_sse()) as events:
                    async for sse in events:
                        data = sse.data
                        if data.strip() == "[DONE]":
                            await _drain(events)
                            break
                        if not data.strip():
                            continue
                        try:
                            obj = safejson.loads(data, max_depth=safejson.ENVELOPE_DEPTH)
                        except ValueError:
                            obj = None
                        if not isinstance(obj, dict):
                            if sse.event == "error":
                                error = self._scrubber.scrub(data.strip())
                                yield StreamEnd("error", usage, error=error, skipped=skipped)
                                return
                            skipped += 1
                            log.debug(
                                "skipped a non-JSON SSE data line: %.120r",
                                self._scrubber.scrub(data),
                            )
                            continue
                        if obj.get("error") or sse.event == "error":
                            message = self._scrubber.scrub(_error_message(obj.get("error") or obj))
                            yield StreamEnd("error", usage, error=message, skipped=skipped)
                            return
                        for choice in obj.get("choices") or ():
                            if isinstance(choice, dict) and choice.get("finish_reason"):
                                finish = str(choice["finish_reason"])
                        if isinstance(obj.get("usage"), dict):
                            usage = obj["usage"]
                        yield Chunk(obj, data, time.perf_counter() - sent)
            except httpx.TimeoutException:
                if finish is None:
                    yield StreamEnd(
                        "disconnect",
                        usage,
                        skipped=skipped,
                        detail=f"no data for {self.read_timeout:g} s (read stall)",
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
            if finish is None:
                yield StreamEnd(
                    "disconnect",
                    usage,
                    skipped=skipped,
                    detail="the stream ended without a finish_reason",
                )
                return
            yield StreamEnd(finish, usage, skipped=skipped)
        finally:
            await response.aclose()

    async def _read_json(
        self, response: httpx.Response, sent: float
    ) -> AsyncIterator[ProviderItem]:
        text = await _read_error_body(response, cap=1 << 24)
        try:
            obj = safejson.loads(text, max_depth=safejson.ENVELOPE_DEPTH)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and obj.get("error"):
            yield StreamEnd("error", error=self._scrubber.scrub(_error_message(obj["error"])))
            return
        choices = obj.get("choices") if isinstance(obj, dict) else None
        if not choices or not isinstance(choices[0], dict):
            raise ProviderError(
                "protocol",
                f"{self._where()} answered 200 with a JSON body that is not a chat completion "
                f"({self._scrubber.scrub(text[:200])!r}); is this an OpenAI-compatible /v1 "
                "endpoint?",
                url=self.url,
                model=self.model,
                status=200,
            )
        # Re-shape a whole completion as one streamed chunk so the loop sees one shape.
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
        yield Chunk(chunk, json.dumps(chunk), time.perf_counter() - sent)
        yield StreamEnd(finish, usage or {})


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


async def _drain(events: AsyncIterator[Any], limit: float = DRAIN_TIMEOUT) -> None:
    """Read what follows ``[DONE]`` (normally just the end of the chunked body) so the
    connection goes back to the keep-alive pool instead of being torn down."""
    try:
        async with asyncio.timeout(limit):
            async for _ in events:
                pass
    except (TimeoutError, httpx.TransportError) as exc:
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


def _describe_connect_failure(exc: httpx.HTTPError) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return f"connect timed out ({_exc_text(exc)})"
    if isinstance(exc, httpx.ReadTimeout):
        return "no response headers before the read timeout"
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out ({_exc_text(exc)})"
    return f"cannot connect ({_exc_text(exc)})"


def _exc_text(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


__all__ = ["Chunk", "OpenAIProvider", "ProviderError", "ProviderItem", "StreamEnd"]
