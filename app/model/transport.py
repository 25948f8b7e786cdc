"""One HTTP transport for every wire: retries, timeouts, the 200 sniff, errors.

``ModelClient.stream`` turns one :class:`~frontier.app.model.request.ModelRequest` into a
flat async sequence the loop can consume without knowing HTTP or any API:
:class:`~frontier.app.model.stream.WireEvent`\\ s (each server-sent event's raw ``data``
and its neutral deltas, decoded by the wire adapter), ``Retry`` events while the
request is retried, and always a final ``StreamEnd`` (or a :class:`ModelError` when no
response could be obtained at all). The wire adapter (``app/model/wires/``) is the only
part that knows the API's JSON: the path, headers, body, events and error bodies.

Fault policy (DESIGN §4, issue 4), decided by *when* a failure happens:

* before the first byte of the answer (nothing of it exists yet): connect errors,
  timeouts and HTTP 429/500/502/503/504/529 are retried with exponential backoff,
  honouring ``Retry-After``, while the retry window lasts; a pooled keep-alive
  connection the server already closed is retried at once on a fresh connection;
  401/403/404 and other statuses raise :class:`ModelError` naming the URL and model
  (a wire may first adjust and resend once: Chat's ``stream_options``), and so does a
  TLS failure no retry can mend (a certificate not trusted, a server that speaks no TLS,
  an unreadable CA bundle: ``app/model/tls.py``), saying what to change;
* a 200 whose body is not an event stream (a web page behind a wrong ``--base-url``, a
  JSON error) raises at once: resending the same request to the same page cannot help;
  a 200 JSON body that *is* a whole answer of the API (a server that ignored ``stream:
  true``) is read as one;
* after the first byte of an event stream (part of the answer may have been shown and
  acted on): a dropped connection or a stall longer than ``idle_timeout`` ends the
  stream with ``StreamEnd("disconnect")`` — a truncation, never silently re-requested;
  an error the server reports in the stream ends it with ``StreamEnd("error")``.

Timeouts (:class:`Timeouts`, docs/decisions-providers.md has the arithmetic):
``connect`` to connect, ``first_byte`` from sending the request to the first byte of
the body (none: retried) and on to its first *content-bearing* event, ``idle`` between
content-bearing events after that (``_Deadline``); no attempt starts more than
``retry_window`` seconds after the first, so a hung server costs at most
``retry_window + connect + first_byte`` (115 s by default). Keep-alive comments,
``ping`` events and empty deltas are read but move no deadline, so a server that sends
only those ends the stream ``disconnect`` like a silent one (issue 21).

Malformed SSE (``data`` the wire cannot read) is skipped and counted, never fatal here:
it comes through as an ``Unreadable`` delta, and the mode decides (a hole inside a call
fails that call; elsewhere it is a note: ``app/agent/modes.py``).

Secrets: every text this module produces from the server's words (error bodies, error
events, retry reasons, log lines) is scrubbed of the key, of credentials the base URL
carries and of credential shapes (``Authorization: Bearer …``) before it leaves; URLs in
messages are shown without their credentials (``https://***@host/v1/...``).
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import re
import time
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Mapping,
    Sequence,
)
from contextlib import aclosing
from typing import Any

from frontier.app import fastjson
from frontier.app.events import PromptRead, Retry, TokenUsage
from frontier.app.model.errors import (
    ContextOverflow,
    ModelError,
    ModelErrorKind,
    context_overflow,
    model_error,
    refused_call,
)
from frontier.app.model.http import httpx
from frontier.app.model.lasting_refusals import lasting_refusal, refuses_images, refuses_tools
from frontier.app.model.probe import (
    PROBE_TIMEOUT,
    WindowInfo,
    endpoint_url,
    get_json,
    is_llama_cpp,
    window_from,
    window_from_models,
)
from frontier.app.model.proxy_hint import proxy_advice
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import (
    NO_FINISH,
    Delta,
    End,
    Finish,
    Ignored,
    Malformed,
    PromptProgress,
    ServerError,
    StreamEnd,
    StreamItem,
    Unreadable,
    UsageDelta,
    WireEvent,
)
from frontier.app.model.think_tags import OPENED, ThinkTags
from frontier.app.model.tls import PLAIN_TO_TLS, speaks_tls, tls_refusal, trust_for
from frontier.app.model.wires.base import EventDecoder, WireCodec
from frontier.app.model.wires.llama_progress import slots_reading
from frontier.app.record import record, replace
from frontier.app.secret_shapes import configured_header_secrets
from frontier.app.secrets import Scrubber, redact_url, url_secrets
from frontier.app.vocab import CLEAN_FINISH
from frontier.app.wire import safejson
from frontier.app.wire.sse import SSEDecoder, SSEEvent

log = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504, 529})
"""Worth another attempt (529: Anthropic's "overloaded")."""
MAX_BACKOFF = 30.0
"""Longest computed backoff between attempts (seconds)."""
CONNECT_TIMEOUT = 10.0
FIRST_BYTE_TIMEOUT = 45.0
SLOTS_EVERY = 5.0
"""How often llama.cpp's ``/slots`` is asked while a request waits for its first content
(a third of ``first_byte_timeout`` when that is shorter)."""
IDLE_TIMEOUT = 30.0
PATIENT_TIMEOUT = 300.0
"""First byte and idle for a model that may reason silently (``catalogue.reasons_first``):
a turn of silent thinking is not a hung server."""
RETRY_WINDOW = 60.0
"""No attempt starts later than this after the first one: with the timeouts above the
worst case is 60 + 10 + 45 = 115 s, under the two minutes a user will wait (60 + 10 +
300 for a model that reasons silently, which a person watching can stop at any time)."""
MAX_PORT = 65535
"""The highest TCP port: a base URL naming a higher one is refused before it is dialled."""
MAX_RETRIES = 4
ERROR_BODY_CAP = 8192
JSON_BODY_CAP = 1 << 24
SNIFF_LIMIT = 4096
"""Bytes of a 200 body read, at most, to tell an event stream from anything else."""
DRAIN_TIMEOUT = 1.0
"""How long to wait for the end of the body after the wire's terminal event (keeps the
connection reusable; a server that holds the stream open after it is just closed)."""
SSE_FIELDS = frozenset({b"data", b"event", b"id", b"retry"})


Sleep = Callable[[float], Awaitable[Any]]


@record
class Timeouts:
    """The waits of one endpoint, in seconds, as one value (``connect_timeout``,
    ``first_byte_timeout``, ``idle_timeout`` in config.toml, flags and env)."""

    connect: float = CONNECT_TIMEOUT
    first_byte: float = FIRST_BYTE_TIMEOUT
    """From sending a request to the first byte of its answer (no byte: retried) and
    to its first content-bearing event (only keep-alives: ``disconnect``)."""
    idle: float = IDLE_TIMEOUT
    """Between content-bearing events once the answer streams (keep-alives and empty
    deltas do not count)."""
    retry_window: float = RETRY_WINDOW
    """No attempt starts later than this after the first."""

    @property
    def worst_case_wait(self) -> float:
        """The longest a request can take to give up before any byte arrives: the last
        attempt starts within ``retry_window`` and lasts at most connect + first byte."""
        return self.retry_window + self.connect + self.first_byte


class _Deadline:
    """When the wait for a response's body gives up, moved only by what carries content.

    Until the first content-bearing event (text, reasoning, call bytes, a finish,
    usage: a :class:`WireEvent` with a delta other than ``Ignored`` or ``Malformed``)
    the deadline is ``first_byte_timeout`` after the request went out; after each one
    it is ``idle_timeout`` later. The server's word that it is still reading the prompt
    (:meth:`working`) gives another ``first_byte_timeout``. Bytes alone move nothing: a
    server that sends only SSE comments (``: keep-alive``), Anthropic ``ping`` events,
    Responses ``in_progress`` events or Chat chunks with an empty or role-only delta is
    read, but waited on no longer than a silent one (issue 21, item 11) — else it holds
    the turn forever. ``read`` counts the bytes since the deadline last moved, so the
    message can say keep-alives arrived rather than nothing."""

    def __init__(self, first: float, idle: float) -> None:
        self.when = first
        """The loop time (``asyncio`` clock) at which the wait ends."""
        self.idle = idle
        self.content = False
        """A content-bearing event has arrived (``first_byte_timeout`` no longer runs)."""
        self.read = 0
        """Bytes read since the deadline was last set: keep-alives, empty events."""
        self.timer: asyncio.Timeout | None = None
        """The read waiting on ``when`` (:meth:`ModelClient._pieces`), moved with it."""

    def bytes_read(self, count: int) -> None:
        self.read += count

    def moved(self) -> None:
        """Content arrived: the next must come within ``idle`` seconds."""
        self.when = asyncio.get_running_loop().time() + self.idle
        self.content = True
        self.read = 0

    def working(self, first_byte: float) -> None:
        """The server says it is reading the prompt (llama.cpp's progress in the stream, or
        a busy slot in its ``/slots``): the first byte may come ``first_byte`` seconds from
        now, as the first batch's could; the read waiting already is given the new time."""
        self.when = max(self.when, asyncio.get_running_loop().time() + first_byte)
        self.read = 0
        if self.timer is not None and not self.timer.expired():  # (it may be expiring now)
            self.timer.reschedule(self.when)


class _Silent(Exception):
    """The body carried no content for too long: before its first content-bearing event
    (``first``), or after the last one. ``read``: the bytes that did arrive meanwhile
    (keep-alives, empty events; 0 means the connection was silent)."""

    def __init__(self, first: bool, read: int = 0) -> None:
        super().__init__("no first content" if first else "stalled")
        self.first = first
        self.read = read


@record(frozen=False)
class _Attempt:
    """What one failed attempt says for the retry decision."""

    failure: str
    delay: float
    status: int | None = None
    timed_out: bool = False
    """No first byte within ``first_byte_timeout`` (the give-up hint differs)."""


class ModelClient:
    """Streams one wire's responses from one endpoint; see the module doc."""

    def __init__(
        self,
        wire: WireCodec,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeouts: Timeouts | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        max_retries: int = MAX_RETRIES,
        max_tokens: int | None = None,
        effort: str | None = None,
        headers: Mapping[str, str] | None = None,
        backoff_base: float = 0.5,
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        secrets: Scrubber | None = None,
    ) -> None:
        """``sleep`` and ``clock`` are injected by tests so backoff is never waited out.
        ``headers``: sent with every request, under the wire's own (a provider's
        ``headers``: Azure's ``api-key``, a gateway's token); their values are secrets.
        ``secrets``: the session's scrubber, used as is — what it learns later (an MCP
        server's secrets, a key a ``/model`` switch resolves) is redacted from the next
        request — and taught this client's own; without it, one of this client's."""
        self.codec = wire
        self.wire = wire.name
        self._base = base_url
        self._request_url = endpoint_url(base_url, request_path(wire, base_url))
        self.base_url = redact_url(base_url.rstrip("/")) or ""
        """The base URL as shown to people: without its credentials."""
        self.url = redact_url(self._request_url) or ""
        """The request URL as shown in messages (``ModelError.url``)."""
        self._models_url = (
            redact_url(endpoint_url(base_url, request_path(wire, base_url, "models"))) or ""
        )
        self._root = (
            f"the /{wire.sdk_prefix} is added when it does not end in it"
            if wire.sdk_prefix
            else "it usually ends in /v1"
        )
        """What the 404 hint says of the base URL's path."""
        self.model = model
        self._api_key = api_key
        self._headers = dict(headers or {})
        self._scrubber = secrets if secrets is not None else Scrubber()
        self._scrubber.add_env()
        self._scrubber.add(
            api_key,
            *url_secrets(base_url),
            *(s for n, v in self._headers.items() for s in configured_header_secrets(n, v)),
        )
        """The one scrubber of what is shown, stored and sent (:meth:`_build`): the key,
        the URL's credentials, the API-key variables' values and the header values that are
        credentials (``configured_header_secrets``: not ``X-Title: Frontier``), and
        with ``secrets`` whatever else the session knows, now or later."""
        self.timeouts = timeouts or Timeouts()
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self._sleep = sleep
        self._clock = clock
        self.max_tokens = max_tokens
        self.effort = effort
        """``reasoning_effort`` asked with every request (``None``: the model's own)."""
        """The cap on each response (``--max-tokens``) when the request names none."""
        # Our own deadlines (asyncio) bound the first byte and the gaps; httpx's read
        # timeout is only the backstop for the reads they do not cover.
        t = self.timeouts
        backstop = max(t.first_byte, t.idle) + 1.0
        timeout = httpx.Timeout(
            connect=t.connect, read=backstop, write=t.first_byte, pool=t.connect
        )
        # the CA bundle read off the path to the first request (app/model/tls.py)
        verify = trust_for(base_url)
        self._client = httpx.AsyncClient(
            transport=transport, timeout=timeout, verify=verify, headers=self._headers
        )
        self._idle = transport is None
        """httpx's own transport, nothing sent through it yet: no connection to close."""
        self._probes: dict[str, asyncio.Future[Any]] = {}
        """``probe_json`` answers by URL (one GET per path for the client's life)."""
        self._window: asyncio.Future[WindowInfo | None] | None = None
        """``probe_context_window``'s answer, once asked."""
        self._said_no_finish = False
        """The person was told the server sends no finish_reason (once a client)."""
        self.think_opened: str | None = None
        """The model whose replies are read opened inside a thought (its template opens
        ``<think>`` in the prompt and the server leaves the thinking in the text:
        ``think_tags.py``), learned from one of its replies; ``None``: none."""
        self.progress = False
        """Ask for the prompt's reading progress (``return_progress``): set once
        ``GET /props`` showed a llama.cpp server on the Chat or Responses wire
        (:meth:`_saw_props`), cleared if a server refuses the field."""
        self.slots = False
        """Ask llama.cpp's ``GET /slots`` whether it still reads the prompt while a request
        waits for its first content (:meth:`_reading`, :meth:`_watch`): set once ``GET
        /props`` showed llama.cpp, on any wire."""

    def __repr__(self) -> str:
        # Never shows the key.
        return f"ModelClient(wire={self.wire!r}, url={self.url!r}, model={self.model!r})"

    @property
    def worst_case_wait(self) -> float:
        return self.timeouts.worst_case_wait

    @property
    def scrubber(self) -> Scrubber:
        """The scrubber this client redacts its requests with: the session's when it was
        given one, else its own — the key however it was obtained, the base URL's
        credentials, the header values, the API-key variables' — for what shows or keeps
        this client's replies outside a session (the doctor's report and its
        ``--record``)."""
        return self._scrubber

    def warm(self) -> None:
        """Import now what httpx's pool imports at the first request (anyio's asyncio
        backend: 30-40 ms, 25 modules). The TUI builds its session on a thread of its
        own and calls this there: at the first request it ran on the screen's loop, just
        as the person's first message was being drawn."""
        if self._idle:
            import anyio._backends._asyncio  # noqa: F401

    async def __aenter__(self) -> ModelClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections. A client that never sent has none, and closing httpx's
        pool anyway imported anyio's event-loop backend just for that (28 ms of quitting
        a TUI where no message was sent)."""
        if not self._idle:
            await self._client.aclose()

    async def probe_context_window(self, timeout: float = PROBE_TIMEOUT) -> WindowInfo | None:
        """Ask the server for the model's context window (``probe.py``): llama.cpp's
        ``/props``, else ``/models``, else what Ollama runs the model with
        (``ollama.py``); ``None`` when none says. Never raises. Asked once per client,
        as each of its look-ups is (Ollama may be asked to load the model)."""
        if self._window is None:
            self._window = asyncio.ensure_future(self._probe_window(timeout))
        return await asyncio.shield(self._window)

    async def _probe_window(self, timeout: float) -> WindowInfo | None:
        from frontier.app.model import lmstudio

        props, models, ps, studio = await asyncio.gather(
            self.probe_json("props", root=True, timeout=timeout),
            self.probe_json("models", timeout=timeout),
            self.probe_json("api/ps", root=True, timeout=timeout),
            self.probe_json(lmstudio.PATH, root=True, timeout=timeout),
        )
        found = window_from(props, models, self.model)
        if found is not None:
            return found
        tokens = lmstudio.lmstudio_window(studio, self.model)
        if tokens is not None:
            return WindowInfo(tokens, lmstudio.SOURCE)
        page = window_from_models(await self.model_page(timeout), self.model)
        if page is not None:
            return WindowInfo(page[0], f"GET /models/{self.model} {page[1]}")
        from frontier.app.model.ollama import ollama_window

        return await ollama_window(
            self._client,
            self._base,
            self.model,
            ps,
            self._probe_headers(),
            probe_timeout=timeout,
            load_timeout=self.timeouts.first_byte,
        )

    async def model_page(self, timeout: float = PROBE_TIMEOUT) -> Any:
        """``GET /models/{model}``, the one model's page, when the ``/models`` listing has
        no entry for it: OpenRouter's whole listing (400 models and their descriptions) can
        pass what a look-up reads, Anthropic's is paged 20 at a time, and a model's page
        says its window (and, OpenRouter's, whether it takes tools). Not asked where the
        listing names the model (OpenAI's: a page would say no more, and cost the first
        request a round trip). Asked once."""
        from frontier.app.model.probe import lists_model
        from frontier.app.percent import percent_encode

        if not self.model or lists_model(
            await self.probe_json("models", timeout=timeout), self.model
        ):
            return None
        name = percent_encode(self.model.encode("utf-8"), safe=b"/:-._~@")
        return await self.probe_json(f"models/{name}", timeout=timeout)

    async def probe_tools(self, timeout: float = PROBE_TIMEOUT) -> bool | None:
        """Whether the server says the model takes native tool calls: llama.cpp's
        ``/props`` (its template's capabilities), the ``/models`` listing's
        ``supported_parameters`` (OpenRouter's), else Ollama's ``/api/show`` (the model's
        ``capabilities``); ``None`` when none says. Never raises."""
        from frontier.app.model.probe import tools_from_models, tools_from_props

        said = tools_from_props(await self.probe_json("props", root=True, timeout=timeout))
        if said is None:
            listing = await self.probe_json("models", timeout=timeout)
            said = tools_from_models(listing, self.model)
        if said is None:
            said = tools_from_models(await self.model_page(timeout), self.model)
        if said is None:
            from frontier.app.model import lmstudio

            studio = await self.probe_json(lmstudio.PATH, root=True, timeout=timeout)
            said = lmstudio.lmstudio_tools(studio, self.model)
        if said is not None:
            return said
        from frontier.app.model.ollama import is_ollama, ollama_tools

        if not is_ollama(await self.probe_json("api/ps", root=True, timeout=timeout)):
            return None
        return await ollama_tools(
            self._client, self._base, self.model, self._probe_headers(), timeout
        )

    def _probe_headers(self) -> dict[str, str]:
        """The wire's headers for a ``GET`` beside the endpoint (its key), less ``Accept``."""
        headers = dict(self.codec.headers(self._api_key))
        headers.pop("Accept", None)
        headers.pop("accept", None)
        return headers

    async def probe_json(
        self, path: str, *, root: bool = False, timeout: float = PROBE_TIMEOUT
    ) -> Any:
        """``GET`` a JSON document beside the endpoint (``models``) or, with ``root``, at
        the server root (llama.cpp's ``props``): its body, or ``None`` for anything but a
        200 JSON answer. Never raises. Asked once per client and path: the context window,
        prefill and tool detection all read ``/props``, and a session needs one answer."""
        beside = path if root else request_path(self.codec, self._base, path)
        url = endpoint_url(self._base, beside, root=root)
        if url not in self._probes:
            self._idle = False
            self._probes[url] = asyncio.ensure_future(
                get_json(self._client, url, self._probe_headers(), timeout)
            )
            if root and path == "props":
                self._probes[url].add_done_callback(self._saw_props)
        return await asyncio.shield(self._probes[url])

    # ------------------------------------------------------------------ request

    def _where(self) -> str:
        return f"{self.url} (model {self.model!r})"

    def _error(self, kind: ModelErrorKind, message: str, **fields: Any) -> ModelError:
        """``model_error`` for this client's request: its URL and model filled in."""
        return model_error(kind, message, url=self.url, model=self.model, **fields)

    def _saw_props(self, answer: asyncio.Future[Any]) -> None:
        """llama.cpp's ``/props`` answered (the window, prefill and tool look-ups ask it
        before the first request): its Chat and Responses endpoints stream how far it has
        read the prompt when asked (its ``/v1/messages`` does not). A long prompt on a CPU
        takes minutes before the first token, which ``first_byte_timeout`` (45 s for a
        model not known to reason) took for a hung server; the progress moves the deadline
        and is shown."""
        if answer.cancelled() or answer.exception() is not None:
            return
        llama = is_llama_cpp(answer.result())
        self.progress = llama and self.wire in ("openai-chat", "openai-responses")
        self.slots = llama  # /v1/messages streams no progress; a batch may outlast 45 s

    def _build(self, request: ModelRequest) -> httpx.Request:
        if request.max_tokens is None and self.max_tokens:
            request = replace(request, max_tokens=self.max_tokens)
        effort = request.effort if request.effort is not None else self.effort
        if effort != request.effort or effort == "auto":  # "auto": the model's own
            request = replace(request, effort=None if effort == "auto" else effort)
        if self.progress and "return_progress" not in request.extra:
            request = replace(request, extra={**request.extra, "return_progress": True})
        body = self.codec.body(request, self.model)
        headers = self.codec.headers(self._api_key)
        self._check_port()
        try:
            # A known secret in what the model is sent — a file it read, a command's
            # output, an MCP server's answer, the person's message — goes as [REDACTED],
            # as the stored history (what a resumed session sends) already has it: the key
            # of another provider in ~/.zshrc never reaches this one. Known values and
            # vendors' keys (``ghp_…``) only: other shapes stay for the model to edit.
            text = fastjson.dumps(body, ensure_ascii=False, separators=(",", ":"))
            data = self._scrubber.redact(text).encode("utf-8")
            if not any(name.lower() == "content-type" for name in headers):
                headers = {**headers, "Content-Type": "application/json"}
            return self._client.build_request(
                "POST", self._request_url, content=data, headers=headers
            )
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise self._invalid_url(exc) from exc

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamItem, None]:
        """One response as ``WireEvent``/``Retry`` items and a final ``StreamEnd``.

        Stopping early (the loop saw text after a confirmed call) closes the HTTP
        response: ``aclose()`` the generator (or use ``contextlib.aclosing``) so the
        connection is released at once, not at GC time.
        """
        began = self._clock()
        retries = 0
        stale_retried = False
        tls_asked = False  # whether a closed plain-HTTP connection was asked if TLS is spoken
        limit = request.max_tokens or self.max_tokens  # as ``_build`` sends it
        while True:
            built = self._build(request)
            sent = time.perf_counter()
            try:
                response, first_deadline = await self._send(built)
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
                if not tls_asked:
                    tls_asked = True
                    if await self._plain_to_tls():  # the same next time: said at once
                        raise self._cannot_connect(PLAIN_TO_TLS, retries + 1) from exc
                failed = _Attempt(
                    f"connection closed before a response ({self._exc(exc)})",
                    self._backoff(retries + 1),
                )
            except TimeoutError:
                failed = self._no_first_byte(retries)
            except (httpx.ConnectError, httpx.TimeoutException) as exc:
                refusal = tls_refusal(exc)
                if refusal is not None:  # the same next time: said at once, not retried
                    raise self._cannot_connect(refusal, retries + 1) from exc
                failed = _Attempt(
                    self._scrubber.scrub(_describe_connect_failure(exc, self.timeouts.connect)),
                    self._backoff(retries + 1),
                )
            except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
                raise self._invalid_url(exc) from exc
            else:
                if response.status_code == 200:
                    deadline = _Deadline(first_deadline, self.timeouts.idle)
                    pieces = self._pieces(response, deadline)
                    head: bytes | None = None
                    try:
                        if self.slots and not self.progress:  # the wire says nothing
                            sniffing = asyncio.ensure_future(_sniff(pieces))
                            async with aclosing(self._reading(sniffing, deadline)) as reads:
                                async for read in reads:
                                    yield read
                            head = await sniffing
                        else:
                            head = await _sniff(pieces)
                    except _Silent:
                        # not one byte: retried below, like a server that never answered
                        log.debug("no first byte within first_byte_timeout")
                    finally:
                        if head is None:
                            await pieces.aclose()
                            await response.aclose()
                    if head is not None:
                        opened = self.think_opened == self.model and not request.prefill
                        answer = self._answer(response, pieces, head, sent, deadline, opened, limit)
                        async with aclosing(answer) as items:
                            async for item in items:
                                yield item
                        return
                    failed = self._no_first_byte(retries)
                else:
                    status = response.status_code
                    text = self._scrubber.scrub(await self._error_body(response))
                    adjusted = self.codec.rejected(status, text)
                    if adjusted is None and self.progress and "return_progress" in text:
                        self.progress = False  # a proxy in front of llama.cpp: not again
                        adjusted = "the server rejected return_progress; retrying without it"
                    if adjusted is not None:
                        yield Retry(attempt=retries + 1, delay=0.0, reason=adjusted)
                        continue
                    if status >= 400 and (fix := lasting_refusal(text)) is not None:
                        raise self._error(  # asked again, it would refuse again
                            "http",
                            f"{self._where()}: HTTP {status} {_reason_phrase(status)}"
                            f"{self._server_says(text)}; {fix}",
                            status=status,
                            attempts=retries + 1,
                            tools_refused=refuses_tools(text),
                            images_refused=refuses_images(text),
                        )
                    if 300 <= status < 400 and response.headers.get("location"):
                        raise self._redirected(status, response.headers["location"], retries + 1)
                    if status not in RETRY_STATUSES:
                        raise self._status_error(status, text, retries + 1)
                    failure = f"HTTP {status} {_reason_phrase(status)}{self._server_says(text)}"
                    after = _retry_after(response.headers.get("retry-after"))
                    left = self.timeouts.retry_window - (self._clock() - began)
                    if after is not None and after > left:
                        raise self._error(
                            "http",
                            f"{self._where()} answered {failure} and asks to wait "
                            f"{after:.0f} s before retrying (past Frontier's "
                            f"{self.timeouts.retry_window:.0f} s retry window); try again "
                            "later or use another endpoint",
                            status=status,
                            attempts=retries + 1,
                        )
                    delay = after if after is not None else self._backoff(retries + 1)
                    failed = _Attempt(failure, delay, status)
            waited = self._clock() - began
            if retries >= self.max_retries or waited + failed.delay > self.timeouts.retry_window:
                raise self._give_up(failed, retries + 1, waited)
            retries += 1
            yield Retry(retries, failed.delay, failed.failure, limit=self.max_retries)
            await self._sleep(failed.delay)

    def _cannot_connect(self, why: str, attempts: int) -> ModelError:
        """A connection failure no retry can mend (TLS, the scheme), said with what to
        change."""
        return self._error(
            "connect",
            f"{self._where()}: cannot connect: {self._scrubber.scrub(why)}"
            + proxy_advice(self._request_url),
            attempts=attempts,
        )

    async def _plain_to_tls(self) -> bool:
        """Whether an ``http://`` endpoint whose connections close unanswered speaks TLS."""
        url = httpx.URL(self._request_url)
        if url.scheme != "http" or not url.host:
            return False
        return await speaks_tls(url.host, url.port or 80, min(self.timeouts.connect, 2.0))

    async def _send(self, request: httpx.Request) -> tuple[httpx.Response, float]:
        """Send ``request``; the response (headers read) and the deadline for its first
        body byte. Raises ``TimeoutError`` when no headers came by that deadline.

        The deadline starts as connect + first byte and is moved to "first byte after
        the request went out" when httpx reports sending it (its ``trace`` extension;
        in-process transports do not report, and keep the first figure)."""
        loop = asyncio.get_running_loop()
        t = self.timeouts
        async with asyncio.timeout(t.connect + t.first_byte) as limit:

            async def trace(name: str, info: dict[str, Any]) -> None:
                when = limit.when()
                if name.endswith("send_request_headers.started") and when is not None:
                    limit.reschedule(min(when, loop.time() + t.first_byte))

            request.extensions["trace"] = trace
            self._idle = False
            response = await self._client.send(request, stream=True)
            deadline = limit.when() or loop.time() + t.first_byte
            limit.reschedule(None)
        return response, deadline

    async def _reading(
        self, sniffing: asyncio.Future[bytes], deadline: _Deadline
    ) -> AsyncGenerator[PromptRead, None]:
        """While ``sniffing`` waits for the body's first bytes, llama.cpp's ``GET /slots``
        every few seconds (:meth:`_busy_slots`). A busy slot is the server at work on a
        prompt (its ``/v1/messages`` streams no progress, and a long prompt on a CPU takes
        minutes): the first-byte deadline moves, and the person is shown how far when one
        slot is busy. An idle server lets the deadline run, so a hung request is still cut
        off; a server that refuses ``/slots`` (``--no-slots``: 501) is not asked again for
        this request. The first bytes never wait for an answer of ``/slots``."""
        every = self._slots_every
        shown: int | None = None
        poll: asyncio.Future[Sequence[int] | None] | None = None
        try:
            while not sniffing.done():
                await asyncio.wait({sniffing}, timeout=every)
                if sniffing.done():
                    return
                poll = asyncio.ensure_future(self._busy_slots(self.timeouts.first_byte))
                either: set[asyncio.Future[Any]] = {sniffing, poll}
                await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
                if not poll.done():  # the first bytes came: the answer is not needed
                    return
                busy = poll.result()
                if busy is None:
                    return
                if busy:
                    deadline.working(self.timeouts.first_byte)
                if len(busy) == 1 and busy[0] != shown:  # two: which is this request's?
                    shown = busy[0]
                    yield PromptRead(busy[0], 0)
        except BaseException:  # closed or cancelled: the read of the body goes too
            sniffing.cancel()
            await asyncio.wait({sniffing})
            raise
        finally:
            if poll is not None and not poll.done():
                poll.cancel()
                await asyncio.wait({poll})

    def _watch(self, deadline: _Deadline) -> asyncio.Future[None]:
        """Until the body's first content, llama.cpp's ``GET /slots`` every few seconds:
        a busy slot moves the deadline (:meth:`_Deadline.working`). Its progress reports
        come once a batch, and a batch of 2,048 tokens of a 7B model on a CPU (20–50
        tokens a second) outlasts ``first_byte_timeout``: the request was cut off between
        two reports. Cancelled when the body ends."""

        async def watch() -> None:
            every = self._slots_every
            while not deadline.content:
                await asyncio.sleep(every)
                busy = (
                    None if deadline.content else await self._busy_slots(self.timeouts.first_byte)
                )
                if busy is None:
                    return
                if busy and not deadline.content:  # (content may have come meanwhile)
                    deadline.working(self.timeouts.first_byte)

        return asyncio.ensure_future(watch())

    @property
    def _slots_every(self) -> float:
        return min(SLOTS_EVERY, self.timeouts.first_byte / 3)

    async def _busy_slots(self, timeout: float) -> Sequence[int] | None:
        """llama.cpp's ``GET /slots``: the prompt tokens each busy slot has read
        (:func:`slots_reading`); ``None`` when it refuses or answers something else
        (``--no-slots``: 501). An answer may be late (a server between two batches of a
        prompt): it is waited for up to ``timeout`` (the first byte's; the body is read
        meanwhile), and none by then is no busy slot this time, not a refusal."""
        url = endpoint_url(self._base, "slots", root=True)
        try:
            async with asyncio.timeout(timeout):
                answer = await get_json(self._client, url, self._probe_headers(), timeout * 2)
        except TimeoutError:
            return ()
        return slots_reading(answer)

    def _no_first_byte(self, retries: int) -> _Attempt:
        return _Attempt(
            f"no first byte within {self.timeouts.first_byte:g} s of sending the request "
            "(first_byte_timeout)",
            self._backoff(retries + 1),
            timed_out=True,
        )

    def _give_up(self, failed: _Attempt, attempts: int, waited: float) -> ModelError:
        if failed.status is not None:
            kind: Any = "http"
            hint = "The server is failing or overloaded: try again later."
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
        hint += proxy_advice(self._request_url)  # a proxy from the environment was asked
        return self._error(
            kind,
            f"{self._where()}: {failed.failure}; gave up after {attempts} attempts in "
            f"{waited:.0f} s. {hint}",
            status=failed.status,
            attempts=attempts,
        )

    def _check_port(self) -> None:
        """A port past 65535 is taken by httpx and refused by the socket with an
        ``OverflowError`` (a traceback, through every retry and the loop): said here as the
        base URL's mistake, naming the port."""
        try:
            port = httpx.URL(self._request_url).port
        except httpx.InvalidURL:
            return  # any other mistake of the URL is httpx's to say (``_invalid_url``)
        if port is not None and port > MAX_PORT:
            raise self._invalid_url(ValueError(f"port {port} is out of range (0-{MAX_PORT})"))

    def _endpoint_given(self) -> str:
        """What to say of a base URL that ends in an endpoint's own path (a URL pasted
        from an API's reference: ``…/v1/chat/completions``), the request then going to
        ``…/chat/completions/chat/completions``; ``""`` for any other."""
        from urllib.parse import urlsplit, urlunsplit

        from frontier.app.model import registry

        try:
            parts = urlsplit(self._base.strip())
        except ValueError:
            return ""
        path = parts.path.rstrip("/")
        for wire in registry.codecs():
            if path.endswith(f"/{wire.path}"):
                root = urlunsplit(parts._replace(path=path.removesuffix(f"/{wire.path}")))
                added = request_path(self.codec, root)
                said = f"it ends in /{wire.path}, an endpoint's own path, and /{added}"
                return f"{said} is added to it: give {redact_url(root)}"
        return ""

    def _invalid_url(self, exc: Exception) -> ModelError:
        return self._error(
            "connect",
            f"invalid base URL {self.base_url!r}: {self._exc(exc, bare=True)}; "
            "use e.g. http://127.0.0.1:8080/v1",
        )

    def _exc(self, exc: BaseException, *, bare: bool = False) -> str:
        """An exception's text, scrubbed (httpx may quote the URL it was given)."""
        return self._scrubber.scrub(str(exc).strip() if bare else _exc_text(exc))

    def _backoff(self, attempt: int) -> float:
        return min(MAX_BACKOFF, self.backoff_base * (2 ** (attempt - 1)))

    def _server_says(self, text: str) -> str:
        """`` — the server says: …`` from an error body (this wire's error shape, a
        ``detail`` field, or the text itself), or empty."""
        text = text.strip()
        if not text:
            return ""
        try:
            obj = safejson.loads(text, max_depth=safejson.ENVELOPE_DEPTH)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and "error" in obj:
            text = self.codec.error_text(obj)
        elif isinstance(obj, dict) and "detail" in obj:
            text = str(obj["detail"])
        text = " ".join(text.split())
        return f" — the server says: {text[:300]}"

    def _redirected(self, status: int, location: str, attempts: int) -> ModelError:
        """A redirect, said with where it points and the base URL that goes there. Not
        followed: the request carries the API key, and a redirect may point anywhere
        (``http://`` to ``https://`` is the usual one; a proxy's login page another)."""
        from urllib.parse import urljoin

        where = urljoin(self._request_url, location.strip()[:2000])  # "/v2/…" as well
        target = redact_url(self._scrubber.scrub(where)) or "?"
        path = "/" + request_path(self.codec, self._base).lstrip("/")
        base = target[: -len(path)] if target.endswith(path) else None
        hint = (
            f"use --base-url {base}"
            if base
            else "check --base-url (the redirect is not to this API's endpoint)"
        )
        return self._error(
            "http",
            f"{self._where()}: HTTP {status} {_reason_phrase(status)} to {target}; Frontier "
            f"does not follow a redirect with the API key: {hint}",
            status=status,
            attempts=attempts,
        )

    def _status_error(self, status: int, text: str, attempts: int) -> ModelError:
        says = self._server_says(text)
        via = proxy_advice(self._request_url)  # a proxy's 403, 404 or 407 is not the server's
        if status in (401, 403):
            hint = (
                "the API key was rejected: check that the key (FRONTIER_API_KEY, the "
                "provider's key variable, api_key_command / api_key_file in config.toml) "
                "is valid for this endpoint"
                if self._api_key
                else "no API key is set: export FRONTIER_API_KEY (or the provider's key "
                "variable, e.g. OPENAI_API_KEY, ANTHROPIC_API_KEY), or set api_key_command "
                "/ api_key_file in config.toml"
            )
            return self._error(
                "auth",
                f"{self._where()} refused the request: HTTP {status} "
                f"{_reason_phrase(status)}{says}; {hint}{via}",
                status=status,
                attempts=attempts,
            )
        if status == 404:
            return self._error(
                "not_found",
                f"{self._where()}: HTTP 404 Not Found{says}; check --base-url "
                f"({self._endpoint_given() or self._root}), "
                f"--wire (this is {self.wire}) and --model (GET "
                f"{self._models_url} lists what the server has){via}",
                status=status,
                attempts=attempts,
            )
        overflow = context_overflow(text) if status in (400, 413, 422) else None
        if overflow is None and status == 413:
            # the body is over the server's (or a proxy's: nginx's default is 1 MB) size
            # limit, whatever its words say; the remedy is a window's: a shorter history
            overflow = ContextOverflow()
        return self._error(
            "http",
            f"{self._where()}: HTTP {status} {_reason_phrase(status)}{says}{via}",
            status=status,
            attempts=attempts,
            overflow=overflow,
            refused_call=refused_call(text) if status == 400 else None,
        )

    # ------------------------------------------------------------------ response

    async def _pieces(
        self, response: httpx.Response, deadline: _Deadline
    ) -> AsyncGenerator[bytes, None]:
        """The body's bytes as they arrive; raises ``_Silent`` once ``deadline`` passes.

        The deadline is the consumer's to move (``_Deadline.moved``, on content): a byte
        read here only counts. It is checked before every read as well as bounding it: a
        server that always has a keep-alive ready would otherwise complete each read
        before the timeout's cancellation could land."""
        loop = asyncio.get_running_loop()
        raw = response.aiter_bytes()
        try:
            while True:
                if loop.time() >= deadline.when:
                    raise _Silent(not deadline.content, deadline.read)
                try:
                    async with asyncio.timeout_at(deadline.when) as deadline.timer:
                        piece = await anext(raw)
                except StopAsyncIteration:
                    return
                except TimeoutError:
                    raise _Silent(not deadline.content, deadline.read) from None
                finally:
                    deadline.timer = None
                deadline.bytes_read(len(piece))
                yield piece
        finally:
            await raw.aclose()  # type: ignore[attr-defined]

    async def _error_body(self, response: httpx.Response, cap: int = ERROR_BODY_CAP) -> str:
        """At most ``cap`` bytes of a body, each read bounded by ``idle``."""
        try:
            async with asyncio.timeout(self.timeouts.idle):
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
        deadline: _Deadline,
        opened: bool = False,
        limit: int | None = None,
    ) -> AsyncGenerator[StreamItem, None]:
        """Yield what a 200 body holds, by what its first bytes are (the label lies:
        streams come as ``text/plain``, web pages as ``200 text/html``). ``opened``: the
        reply is read opened inside a thought (:attr:`think_opened`), and its recording
        says so first (``think_tags.OPENED``). ``limit``: the output tokens asked for
        (:func:`_reached`)."""
        try:
            kind = _classify(head, complete=True)
            if kind == "sse" or kind == "empty":
                decoder = self.codec.decoder()
                if opened and isinstance(decoder, ThinkTags):
                    decoder.open()
                    yield WireEvent(OPENED, 0.0, ())
                read = self._read(pieces, head, sent, deadline, decoder, limit)
                watch = self._watch(deadline) if self.slots and not deadline.content else None
                try:
                    async with aclosing(read) as items:
                        async for item in items:
                            if isinstance(item, StreamEnd):
                                item = replace(item, notes=self._learned(item, decoder, opened))
                            yield item
                finally:
                    if watch is not None:
                        watch.cancel()
                        await asyncio.wait({watch})
                return
            if kind == "json":
                text = await self._rest(pieces, head, JSON_BODY_CAP, deadline)
                for item in self._read_json(text, sent):
                    yield item
                return
            text = await self._rest(pieces, head, ERROR_BODY_CAP, deadline)
            raise self._not_a_stream(response, kind or "other", text)
        finally:
            await pieces.aclose()
            await response.aclose()

    async def _rest(
        self, pieces: AsyncIterator[bytes], head: bytes, cap: int, deadline: _Deadline
    ) -> str:
        """``head`` and what follows it, up to ``cap`` bytes (a stall just ends it). A
        body that is not an event stream has no keep-alives: every byte is content."""
        buf = bytearray(head)
        try:
            async for piece in pieces:
                deadline.moved()
                buf += piece
                if len(buf) >= cap:
                    break
        except (_Silent, httpx.TransportError, httpx.DecodingError) as exc:
            log.debug("body cut short: %s", _exc_text(exc))
        return bytes(buf[:cap]).decode("utf-8", errors="replace")

    def _not_a_stream(self, response: httpx.Response, kind: str, text: str) -> ModelError:
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
        return self._error(
            "protocol",
            f"{self._where()}: the server answered {what}, not an event stream; is --base-url "
            f"right?{seen} It should be the API root, which usually ends in /v1 "
            f"(GET {self._models_url} lists the models).",
            status=200,
        )

    def _learned(self, end: StreamEnd, decoder: EventDecoder, opened: bool) -> tuple[str, ...]:
        """What one reply taught the client that the person hears once: that the server
        sends no finish, and what the model's thinking looks like."""
        notes = []
        if end.raw_reason == NO_FINISH and not self._said_no_finish:
            self._said_no_finish = True
            notes.append(
                "the server ends its replies without a finish_reason (only its end event): "
                "each is read as a normal end, so a reply cut by the token limit cannot be "
                "told from a finished one"
            )
        if isinstance(decoder, ThinkTags) and (learned := self._learn(decoder, opened)):
            notes.append(learned)
        return tuple(notes)

    def _learn(self, decoder: ThinkTags, opened: bool) -> str:
        """What one reply taught about the model's thinking (``think_tags.py``), and the
        line the person is told of it (empty: nothing new)."""
        if opened and (decoder.never_closed or not decoder.opened):
            self.think_opened = None  # no </think> after all, or the server splits it off
            return ""
        if not opened and decoder.opened_in_prompt and self.think_opened != self.model:
            self.think_opened = self.model
            return (
                "the model closed its thinking with </think> it never opened (its template "
                "opens it in the prompt) and the server left it in the reply's text: this "
                "reply's thinking was read as text; from the next reply on, what comes "
                "before </think> is read as thinking, and no call in it runs"
            )
        return ""

    async def _read(
        self,
        pieces: AsyncIterator[bytes],
        head: bytes,
        sent: float,
        deadline: _Deadline,
        decoder: EventDecoder,
        limit: int | None = None,
    ) -> AsyncGenerator[StreamItem, None]:
        """Yield the events of an event stream; always ends with one ``StreamEnd``.

        Only an event that carries content moves ``deadline`` (see :class:`_Deadline`):
        the wire adapters decode keep-alives and empty deltas to no delta at all, and a
        chunk read and deliberately not used to ``Ignored``."""
        finish: str | None = None
        raw_reason = ""
        terminal = False
        usage = TokenUsage()
        bare = self.codec.records_bare_events
        sse = SSEDecoder()
        try:
            async with aclosing(_sse_events(head, pieces, sse)) as events:
                async for name, data in events:
                    deltas = decoder.feed(name, data)
                    if _reading_the_prompt(deltas):
                        deadline.working(self.timeouts.first_byte)
                    elif _carries_content(deltas):
                        deadline.moved()
                    error: str | None = None
                    refused: str | None = None
                    ended = False
                    for delta in deltas:
                        kind = type(delta)
                        if kind is Finish:
                            assert isinstance(delta, Finish)
                            finish, raw_reason = delta.reason, delta.raw or delta.reason
                        elif kind is UsageDelta:
                            assert isinstance(delta, UsageDelta)
                            usage = _merged(usage, delta.usage)
                        elif kind is ServerError:
                            assert isinstance(delta, ServerError)
                            error = self._scrubber.scrub(delta.message)
                            if delta.refused_call is not None:
                                refused = self._scrubber.scrub(delta.refused_call)
                        elif kind is End:
                            ended = True
                    if any(type(d) is not End for d in deltas) or (
                        bare and not deltas and data.strip()
                    ):
                        # recorded: what carries something (junk too: Unreadable), and
                        # on a wire whose bare events are small and structural, those
                        # (WireCodec.records_bare_events); never a bare end marker
                        yield WireEvent(data, time.perf_counter() - sent, tuple(deltas))
                    if error is not None:
                        yield StreamEnd(
                            "error",
                            usage,
                            error=error,
                            skipped=decoder.skipped,
                            raw_reason=raw_reason,
                            refused_call=refused,
                        )
                        return
                    if ended:
                        terminal = True
                        await _drain(pieces)
                        break
        except _Silent as exc:
            if finish is None:
                yield StreamEnd(
                    "disconnect", usage, skipped=decoder.skipped, detail=self._silence(exc)
                )
                return
        except httpx.TimeoutException:
            if finish is None:
                yield StreamEnd(
                    "disconnect",
                    usage,
                    skipped=decoder.skipped,
                    detail=f"no data for {self.timeouts.idle:g} s (idle_timeout: a read stall)",
                )
                return
        except (httpx.TransportError, httpx.DecodingError) as exc:
            if finish is None:
                yield StreamEnd(
                    "disconnect",
                    usage,
                    skipped=decoder.skipped,
                    detail=f"connection dropped mid-stream ({self._exc(exc)})",
                )
                return
        if sse.too_long and finish is None:
            yield StreamEnd(
                "disconnect",
                usage,
                skipped=decoder.skipped,
                detail=f"an SSE line or event passed {sse.max_line:,} bytes; the stream "
                "cannot be read past it",
            )
            return
        if finish is None and terminal:
            # its end event and no finish before it (proxies in front of Gemini, servers
            # that never send finish_reason): the stream was not cut, it ended. Taken for
            # a cut, every reply was "repaired" until the turn failed.
            yield StreamEnd("stop", usage, skipped=decoder.skipped, raw_reason=NO_FINISH)
            return
        if finish is None:
            yield StreamEnd(
                "disconnect",
                usage,
                skipped=decoder.skipped,
                detail="the stream ended without a finish or its end event"
                if head.strip()
                else "the server answered 200 with an empty body",
            )
            return
        if limit and finish in CLEAN_FINISH and _reached(usage.completion, limit):
            raw_reason = f"{raw_reason} at the max_tokens asked ({usage.completion} of {limit})"
            finish = "length"
        yield StreamEnd(finish, usage, skipped=decoder.skipped, raw_reason=raw_reason)

    def _silence(self, exc: _Silent) -> str:
        """Why a stream that went without content ended: which timeout ran out, and
        whether the server was silent or kept the connection busy without content."""
        t = self.timeouts
        if exc.first:
            which = (
                f"no content within {t.first_byte:g} s of sending the request (first_byte_timeout)"
            )
            if not exc.read:
                return f"{which}: the server sent nothing after the response headers"
        else:
            if not exc.read:
                return f"no data for {t.idle:g} s (idle_timeout: a read stall)"
            which = f"no content for {t.idle:g} s (idle_timeout)"
        return (
            f"{which}: the server sent only keep-alives or empty events ({exc.read:,} "
            "bytes); it is connected but not answering"
        )

    def _read_json(self, text: str, sent: float) -> list[StreamItem]:
        """A 200 JSON body: a server that ignored ``stream: true`` (read as one event of
        the whole answer, so the loop sees one shape), or an error reported as JSON."""
        try:
            obj = safejson.loads(text, max_depth=safejson.ENVELOPE_DEPTH)
        except ValueError:
            obj = None
        if isinstance(obj, dict) and obj.get("error"):
            message = self._scrubber.scrub(self.codec.error_text(obj))
            raise self._error(
                "http",
                f"{self._where()} answered HTTP 200 with an error instead of a stream — the "
                f"server says: {' '.join(message.split())[:300]}",
                status=200,
            )
        deltas = self.codec.json_answer(obj)
        if deltas is None:
            raise self._error(
                "protocol",
                f"{self._where()} answered 200 with a JSON body that is not an {self.wire} "
                f"answer ({self._scrubber.scrub(text[:200])!r}); is --wire right, and is "
                "--base-url the API root?",
                status=200,
            )
        finish, raw, usage = "stop", "", TokenUsage()
        for delta in deltas:
            if isinstance(delta, Finish):
                finish, raw = delta.reason, delta.raw
            elif isinstance(delta, UsageDelta):
                usage = delta.usage
        event = WireEvent(text, time.perf_counter() - sent, tuple(deltas))
        return [event, StreamEnd(finish, usage, raw_reason=raw)]


LIMIT_SLACK = 4
"""Output tokens past the ``max_tokens`` asked that a response cut at it may report (a
server counting its end token): one that used thousands more was not capped by it
(DeepSeek's reasoner caps only the answer, its usage counts the reasoning too)."""


def _reached(used: int | None, limit: int) -> bool:
    """A response whose usage says it used the ``limit`` of output tokens asked for was
    cut, whatever its end says: llama.cpp's Responses endpoint says ``completed`` (and its
    items ``completed``) at ``max_output_tokens``, so a reply cut mid-sentence was read as
    the whole answer, and native-eos ran the calls of a cut response. Decided on the
    response's end (``StreamEnd``), as the stored response's finish, so ``check`` and
    ``replay`` of it read the same cut (its deltas stay as the server sent them). A reply
    that ended naturally at exactly the limit is read as cut too: asked to go on, the
    model adds nothing."""
    return used is not None and limit <= used <= limit + LIMIT_SLACK


def _carries_content(deltas: list[Delta]) -> bool:
    """An event that moves the deadlines: any delta but ``Ignored``, ``Malformed`` and
    ``Unreadable`` (so text, reasoning, call bytes, a finish, usage, an error, the end).
    Keep-alives and empty deltas decode to none on every wire (Anthropic ``ping``,
    Responses ``response.created`` / ``in_progress``, Chat ``{"delta": {}}`` and role-only
    deltas); an event too deep or too broken to read is no more an answer than one for
    another choice (a server sending only those would be waited on forever)."""
    return any(type(delta) not in _NOT_CONTENT for delta in deltas)


_NOT_CONTENT: frozenset[type] = frozenset({Ignored, Malformed, Unreadable})


def _reading_the_prompt(deltas: list[Delta]) -> bool:
    """llama.cpp's progress and nothing more: the next batch of the prompt may take as long
    as the first byte may (``first_byte_timeout``), not a gap in a reply (``idle``): a
    batch of 2,048 tokens of a 7B model on a CPU takes longer than ``idle_timeout``."""
    return bool(deltas) and all(type(delta) is PromptProgress for delta in deltas)


def _merged(old: TokenUsage, new: TokenUsage) -> TokenUsage:
    """Usage reported in pieces (Anthropic: input at the start, output at the end): each
    count the newer report gives wins."""
    return TokenUsage(
        new.prompt if new.prompt is not None else old.prompt,
        new.completion if new.completion is not None else old.completion,
        new.cached if new.cached is not None else old.cached,
    )


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

    ``_Silent`` with not one byte read (none by the first-byte deadline) propagates:
    the caller may retry, nothing of the answer exists. Bytes that never become
    something to classify (blank lines only), a later stall or a dropped connection
    just end the sniff: the body is then judged by what arrived (the reader then meets
    the passed deadline and ends the stream ``disconnect``)."""
    head = bytearray()
    try:
        async for piece in pieces:
            head += piece
            if _classify(bytes(head), complete=False) is not None:
                break
    except _Silent as exc:
        if not head:
            raise
        log.debug("no content before the body could be told apart: %s", exc)
    except (httpx.TransportError, httpx.DecodingError) as exc:
        log.debug("body cut short before it could be told apart: %s", _exc_text(exc))
    return bytes(head)


async def _sse_events(
    head: bytes, pieces: AsyncIterator[bytes], decoder: SSEDecoder | None = None
) -> AsyncGenerator[SSEEvent, None]:
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


def request_path(codec: WireCodec, base_url: str, path: str | None = None) -> str:
    """The endpoint's path under ``base_url`` (``path``, else the wire's), after the
    wire's SDK prefix (``v1``) when the base URL's path does not end in it
    (``https://h/anthropic`` → ``v1/messages``; ``https://api.anthropic.com/v1`` →
    ``messages``)."""
    path = path or codec.path
    if not codec.sdk_prefix:
        return path
    from urllib.parse import urlsplit

    try:
        tail = urlsplit(base_url.strip()).path.rstrip("/").rsplit("/", 1)[-1]
    except ValueError:
        tail = ""
    return path if tail == codec.sdk_prefix else f"{codec.sdk_prefix}/{path}"


def _reason_phrase(status: int) -> str:
    try:
        return str(httpx.codes(status).phrase)  # type: ignore[attr-defined]
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


__all__ = ["ModelClient", "ModelError", "Timeouts"]
