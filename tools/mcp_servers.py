"""MCP servers as tools (issue 26): each server tool is one more ``Tool`` of the registry,
so its calls take the same path as the built-ins (prepare → gate → persist → execute →
commit) and its results are capped and scrubbed like theirs.

The SDK's client lives inside anyio task groups that must be entered and left by one
task, and ``create_runtime`` is synchronous; so every server runs in one private event
loop on a daemon thread (:class:`McpHost`), and a call crosses over with
``run_coroutine_threadsafe``. A server that fails to start is a note, never fatal.

A session the person drives starts its servers in the background (:meth:`McpHost.launch`):
the screen and the first message never wait for a slow server; the first request waits a
short grace for the ones still starting (the whole start for one marked ``required``), and
goes without the tools of any still starting, saying so (docs/mcp.md, "Starting").

A server is local (stdio: ``command``, run inside the session's sandbox when there is
one) or remote (streamable HTTP: ``url`` and ``headers``, whose values may name
``${VARIABLES}`` of Frontier's environment and never appear in a note, a log line, a
repr or an error). ``notifications/tools/list_changed`` re-lists that server's tools, at
most one re-list in flight and one a second per server, and replaces them in the
registry (copy-on-write, so a loop iterating the specs on another thread is safe).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import errno
import json
import logging
import math
import os
import re
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from frontier.app.events import ToolCall
from frontier.app.image import IMAGES_SHOWN, Image
from frontier.app.listing import listing
from frontier.app.programs import find_program
from frontier.app.record import replace as replace_record
from frontier.app.secret_shapes import REDACTED, argv_secrets
from frontier.app.wire import safejson
from frontier.tools import mcp_answers, mcp_sdk
from frontier.tools.base import CancelToken, Outcome, Prepared, ToolError
from frontier.tools.capped_log import CappedLog
from frontier.tools.contract import MCP_SEPARATOR, Preview, ToolContext, ToolSpec
from frontier.tools.image_kind import image_from_base64
from frontier.tools.mcp_launchers import (
    DOWNLOADERS,
    container_engine,
    offline_refusal,
    private_cache,
)
from frontier.tools.mcp_names import SERVER_TOOL_NAME, wire_name
from frontier.tools.mcp_settings import (
    HeaderError,
    ServerSettings,
    ServerState,
    expand_env,
    expand_headers,
    public_url,
)
from frontier.tools.output_cap import cap_output
from frontier.tools.process import child_env, is_secret, reaper_ready, release, watch_group

if TYPE_CHECKING:
    from frontier.tools.registry import Registry
    from frontier.tools.sandbox import Sandbox

T = TypeVar("T")

SEPARATOR = MCP_SEPARATOR
MAX_SCHEMA_DEPTH = 32
MAX_SCHEMA_BYTES = 64 * 1024
MAX_DESCRIPTION = 2000
"""A server's tool description is cut here: it goes into every system prompt."""
MAX_TOOLS = 256
"""Tools taken from one server (more are skipped with one note): each costs prompt room."""
MAX_PAGES = 20
"""``tools/list`` pages read from one server (a cursor that never ends is bounded)."""
REFRESH_INTERVAL = 1.0
"""Seconds between two re-lists of one server, whatever its ``list_changed`` rate."""
MAX_REFRESH_NOTES = 20
"""Notes kept about one server's changing tool list; after them, one saying so."""
MAX_SSE_EVENT = 16 * 1024 * 1024
"""Bytes of one streamable-HTTP event (the SDK's default, 1 MiB, fails a large result
outright; the boundary caps what the model sees anyway)."""
HEAD = 512
"""Bytes of a dropped message kept to find the request it answers."""
MAX_MESSAGE = 64 * 1024 * 1024
"""Bytes of one message (one line) from a local server: a longer one is dropped unread
(its request then times out) and noted, so a hostile server cannot make Frontier hold
gigabytes."""
_DROPPED: contextvars.ContextVar[Callable[[int], None] | None] = contextvars.ContextVar(
    "mcp_dropped", default=None
)
"""Told the size of each over-long line dropped; set by the server's task, so the SDK's
reader task (started inside it) inherits it."""
_STRAY: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "mcp_stray", default=None
)
"""Told each line that is no JSON message (a banner, a stray ``print``), set as
:data:`_DROPPED` is."""
_UNSCHEMED: contextvars.ContextVar[Callable[[str, str], None] | None] = contextvars.ContextVar(
    "mcp_unschemed", default=None
)
"""Told each tool a listing is taken without (its name, why), set as :data:`_DROPPED` is."""


def _listing_kept(line: str) -> str:
    """A ``tools/list`` answer without the tools whose ``inputSchema`` (or
    ``outputSchema``) is not an object's schema, each told (:data:`_UNSCHEMED`); any other
    line as it is. The SDK checks a listing whole, so one tool declaring ``{"type":
    "string"}`` failed the server's start and lost all its tools."""
    if '"inputSchema"' not in line or '"tools"' not in line:
        return line
    try:
        message = safejson.loads(line)
    except ValueError:
        return line  # the SDK says what is wrong with it
    result = message.get("result") if isinstance(message, dict) else None
    tools = result.get("tools") if isinstance(result, dict) else None
    if not isinstance(tools, list):
        return line
    kept = []
    for tool in tools:
        why = _not_an_object_schema(tool)
        if why is None:
            kept.append(tool)
        elif (told := _UNSCHEMED.get()) is not None:
            name = tool.get("name") if isinstance(tool, dict) else None
            told(name if isinstance(name, str) else "(unnamed)", why)
    if len(kept) == len(tools) or not isinstance(result, dict):
        return line
    result["tools"] = kept
    return json.dumps(message, ensure_ascii=False)


def _not_an_object_schema(tool: Any) -> str | None:
    """Why a listed tool's schemas are not objects' (MCP asks ``"type": "object"``)."""
    if not isinstance(tool, dict):
        return "it is not an object"
    for key in ("inputSchema", "outputSchema"):
        schema = tool.get(key)
        if key == "outputSchema" and schema is None:
            continue
        if not isinstance(schema, dict) or schema.get("type") != "object":
            return f'its {key} is not an object\'s schema (MCP asks "type": "object")'
    return None


MAX_LOG = 8 << 20
"""Bytes a server's log may hold; a longer one is moved to ``NAME.log.1`` (the one before
is dropped) and a new one begun: when the server starts (:func:`rotated`) and while it
runs (``capped_log``: its stderr reaches the log through a pipe)."""
MAX_STRAY_LOGGED = 100
"""Stray lines written to a server's log word for word; after them, only counted."""
MAX_OWN_LOG = 1 << 20
"""Bytes of Frontier's own lines (``[frontier …]``) in one server's log a session: a
server sending 50,000 unreadable messages grew its log by 19 MB, one line each."""


class WholeLines:
    """The SDK's stdio reader, fed whole lines: it stands in for anyio's
    ``TextReceiveStream`` in ``mcp.client.stdio`` (:func:`_patch_stdio`).

    The SDK joins each 64 KiB pipe chunk to the partial line before it (``buffer +
    chunk``), which is quadratic: a 50 MB result took over a minute. Here the pieces of a
    line are kept in a list and joined once, and a line over :data:`MAX_MESSAGE` bytes is
    skipped as it arrives, never held. A lone surrogate escape (``"\\udcff"``, valid JSON)
    is made U+FFFD: the SDK could not read such a message, and its call waited out its
    time limit (60 s) to say "timed out". A line that is no JSON at all (``Starting my
    server…``, a ``print`` left in a tool) is skipped and told (:data:`_STRAY`): given to the
    SDK, it failed the server's start, or was noted as unreadable, though no message was
    lost; a TypeScript stdio client (the Vercel AI SDK's, for one) reports such a line and
    reads on."""

    def __init__(self, stream: Any, encoding: str = "utf-8", errors: str = "strict") -> None:
        self._stream = stream
        self._encoding, self._errors = encoding, errors
        self._parts: list[bytes] = []
        self._size = 0
        self._skipping = False
        self._head = b""
        """The first bytes of a line being skipped: where its ``id`` is."""

    def __aiter__(self) -> WholeLines:
        return self

    async def __anext__(self) -> str:
        import anyio

        while True:
            try:
                chunk: bytes = await self._stream.receive()
            except anyio.EndOfStream:
                raise StopAsyncIteration from None
            lines = self._feed(chunk)
            if lines:
                return "".join(lines)

    def _feed(self, chunk: bytes) -> list[str]:
        out, start = [], 0
        while (end := chunk.find(b"\n", start)) != -1:
            self._take(chunk[start:end])
            if not self._skipping:
                line, self._parts = b"".join(self._parts), []
                text = line.decode(self._encoding, self._errors)
                if text.lstrip().startswith(("{", "[")):
                    out.append(_listing_kept(safejson.without_lone_surrogates(text)) + "\n")
                elif text.strip() and (stray := _STRAY.get()) is not None:
                    stray(text)  # a banner or a stray print: no message, skipped
                del line
            else:
                if (told := _DROPPED.get()) is not None:
                    told(self._size)
                answer = mcp_answers.dropped_answer(self._head, self._size, MAX_MESSAGE)
                if answer is not None:  # its call fails now, not at its time limit
                    out.append(answer + "\n")
            self._parts, self._size, self._skipping = [], 0, False
            start = end + 1
        self._take(chunk[start:])
        return out

    def _take(self, piece: bytes) -> None:
        self._size += len(piece)
        if self._skipping or not piece:
            return
        if self._size > MAX_MESSAGE:
            self._head = (b"".join(self._parts[:4]) + piece)[:HEAD]  # the id is at its start
            self._parts, self._skipping = [], True
        else:
            self._parts.append(piece)


_SPAWNED: contextvars.ContextVar[Callable[[Any], None] | None] = contextvars.ContextVar(
    "mcp_spawned", default=None
)
"""Told the process the SDK spawned for a local server; set by the server's task."""


def _patch_stdio() -> None:
    """Make the SDK's stdio client read through :class:`WholeLines`, and tell the server
    its process (:data:`_SPAWNED`), which the SDK keeps to itself (idempotent)."""
    (stdio,) = mcp_sdk.load(("mcp.client.stdio",))
    stdio.TextReceiveStream = WholeLines  # type: ignore[attr-defined]  # a module object
    spawn = stdio._create_platform_compatible_process
    if getattr(spawn, "tells_frontier", False):
        return

    async def spawned(*args: Any, **kwargs: Any) -> Any:
        process = await spawn(*args, **kwargs)
        told = _SPAWNED.get()
        if told is not None:
            told(process)
        return process

    spawned.tells_frontier = True  # type: ignore[attr-defined]  # a function's attribute
    stdio._create_platform_compatible_process = spawned  # type: ignore[attr-defined]  # a module object
    parse = getattr(stdio, "_parse_line", None)
    if parse is None:
        return  # another SDK: an unreadable answer waits out its call's limit, as before

    def parse_line(line: str) -> Any:
        """The SDK's reading of a line; an answer it cannot read answers its request with
        an error saying why (``mcp_answers``), so the call fails now, not at its limit."""
        read = parse(line)
        if isinstance(read, Exception):
            answer = mcp_answers.unreadable_answer(line)
            if answer is not None:
                return parse(answer)
        return read

    stdio._parse_line = parse_line  # type: ignore[attr-defined]  # a module object


def server_env(settings: ServerSettings) -> dict[str, str]:
    """The tools' environment (secret-named variables withheld) plus the server's ``env``,
    ``${NAME}`` in it read from Frontier's own environment (``expand_env``)."""
    env = child_env()
    env.update(expand_env(settings.env, os.environ, server=settings.name))
    return env


def env_secrets(settings: ServerSettings, env: Mapping[str, str]) -> tuple[str, ...]:
    """The values of a local server's own ``env`` that no reason shown may hold: those
    named like a secret (``API_KEY``, ``TOKEN``…: ``process.is_secret``) or read from
    Frontier's environment (``${GITHUB_TOKEN}``). A server that printed its token as it
    failed had it shown in its "last words" by the doctor, ``frontier mcp`` and the
    session's note."""
    return tuple(
        env[key]
        for key, raw in settings.env.items()
        if len(env.get(key, "")) >= 4 and (is_secret(key) or "${" in raw)
    )


def server_secrets(settings: ServerSettings) -> tuple[str, ...]:
    """The credentials ``settings`` holds, for the session's scrubber: what its arguments
    hold (``argv_secrets``: values named as credentials, key-shaped words), its URL's
    credentials, its credential headers' values (``Authorization``'s token after its
    scheme, ``X-Api-Key``, cookies) and the ``env`` values whose name's last word names a
    credential (``GITHUB_TOKEN``; not ``TOKENIZER``, ``KEY_VAULT_NAME``) — each not a path
    (``secret_shapes.names_a_path``) — and a ``${NAME}`` passed under another name only if
    shaped like a credential (``worth_scrubbing``: ``HOME = "${HOME}"`` blanked the home
    folder out of the conversation). A tool that answered with its
    server's own token had it stored and sent to the model, where the provider's key in
    the same answer read ``[REDACTED]``. A variable that is not set: that server does not
    start, and what it would have held is nowhere."""
    from frontier.app.secret_shapes import (
        header_secrets,
        learnable,
        names_a_path,
        names_a_secret,
        url_secrets,
        worth_scrubbing,
    )

    found = [*argv_secrets(settings.args), *url_secrets(settings.url)]
    with contextlib.suppress(HeaderError):
        headers = expand_headers(settings.headers, os.environ)
        for name, value in headers.items():
            found += header_secrets(name, value)
    if settings.url is None:
        with contextlib.suppress(HeaderError):
            env = server_env(settings)
            for key, raw in settings.env.items():
                value = env.get(key, "")
                if names_a_secret(key) or ("${" in raw and worth_scrubbing(value)):
                    found.append(value)
    return tuple(v for v in found if learnable(v) and not names_a_path(v))


def withheld_hint(words: str, settings: ServerSettings) -> str:
    """When a server's last words name a variable Frontier withheld from it (set here,
    secret-named, not in its ``env``), how to pass it: such a server says only that it
    is not set, and the person sees it set in their shell."""
    passed = child_env()
    for name in sorted(set(re.findall(r"\b[A-Z][A-Z0-9_]{2,}\b", words))):
        if name in os.environ and name not in passed and name not in settings.env:
            return (
                f" (Frontier withholds {name} from tools and servers: pass it to this one with "
                f'env = {{ {name} = "${{{name}}}" }} in [mcp_servers.{settings.name}])'
            )
    return ""


def schema_problem(schema: Any) -> str | None:
    """Why a tool's input schema may not reach a model (``None``: it may)."""
    if not isinstance(schema, Mapping):
        return "its input schema is not an object"
    if schema.get("type", "object") != "object":
        return "its input schema is not of type object"
    if _depth(schema) > MAX_SCHEMA_DEPTH:
        return f"its input schema nests deeper than {MAX_SCHEMA_DEPTH} levels"
    try:
        size = len(json.dumps(schema).encode())
    except (TypeError, ValueError, RecursionError) as exc:
        return f"its input schema is not JSON ({type(exc).__name__})"
    if size > MAX_SCHEMA_BYTES:
        return f"its input schema is {size} bytes (at most {MAX_SCHEMA_BYTES})"
    return None


def _depth(value: Any) -> int:
    """Nesting depth, iteratively (a hostile schema must not exhaust the stack)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if level > MAX_SCHEMA_DEPTH:
            return level
        children = node.values() if isinstance(node, Mapping) else node
        if isinstance(node, Mapping | list):
            stack.extend((child, level + 1) for child in children)
    return deepest


def _shown(text: str) -> str:
    """A server-chosen name as a note may show it (control characters escaped)."""
    return repr(text[:80])


def _listing(names: Sequence[str], limit: int = 12) -> str:
    if not names:
        return "none"
    return listing(names, limit)


class _EndWatch:
    """The SDK's read stream, passed through, telling ``on_end`` once it ends.

    Why: when a server's process exits (or its connection closes) while no request is in
    flight, the SDK's dispatcher only fails the *next* request; nothing else notices, so
    the server would be shown ``running`` and its tools offered until a call found out.
    This is the SDK's public ``ReadStream`` protocol (what ``ClientSession`` reads), so
    nothing of the SDK's internals is touched."""

    __slots__ = ("_on_end", "_stream")

    def __init__(self, stream: Any, on_end: Callable[[], object]) -> None:
        self._stream = stream
        self._on_end = on_end

    @property
    def last_context(self) -> contextvars.Context | None:
        """The sender's context of the last item (the SDK asks for it by ``getattr``)."""
        return getattr(self._stream, "last_context", None)

    async def receive(self) -> Any:
        import anyio

        try:
            return await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self._stream.__anext__()
        except (StopAsyncIteration, anyio.ClosedResourceError):
            self._on_end()
            raise

    def __aiter__(self) -> _EndWatch:
        return self

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> _EndWatch:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        return bool(await self._stream.__aexit__(*exc))


def rotated(log: Path) -> None:
    """Move ``log`` aside when it is over :data:`MAX_LOG`. A server's stderr is written to
    its log, and every session appended to the same file: a server that logs each request
    (many do, at their default level) grew it without end in the data folder."""
    with contextlib.suppress(OSError):  # no log yet, or a folder that cannot be written:
        if log.stat().st_size > MAX_LOG:  # the start says so where it opens the log
            os.replace(log, log.with_name(log.name + ".1"))


CACHE_FOLDER = "mcp-cache"
"""Beside the logs in the data folder: a launcher-started server's own cache
(``mcp_launchers.py``), one folder per server."""
LAST_WORDS = 300
"""Characters of a server's last stderr line a note quotes."""
LAST_WORDS_WAIT = 0.5
"""Seconds an ended server's last stderr lines may take to reach its log: the pipe is
drained at once, unless a process it left behind holds it open (then the log is read as
it is after this wait)."""


def said_since_start(log: Path) -> list[str]:
    """The lines a server wrote to its log since Frontier last started it (its stderr:
    not Frontier's own ``[frontier …]`` lines). Only the log's last 64 KiB are read."""
    try:
        with log.open("rb") as f:
            f.seek(max(0, f.seek(0, os.SEEK_END) - (64 << 10)))
            tail = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    since = tail.rsplit("] starting ", 1)[-1].splitlines()[1:]
    return [line.strip() for line in since if line.strip() and not line.startswith("[frontier ")]


def last_words(log: Path) -> str:
    """The last line a server wrote to its log since Frontier last started it, at most
    :data:`LAST_WORDS` long; ``""`` when there is none."""
    said = said_since_start(log)
    return said[-1][:LAST_WORDS] if said else ""


class McpServer:
    """One server: its client session lives in the host loop's ``_serve`` task."""

    def __init__(self, host: McpHost, settings: ServerSettings, log_path: Path) -> None:
        self.host = host
        self.settings = settings
        self.log_path = log_path
        self.session: Any = None
        self.dead: str | None = None
        """Why the server cannot be called any more (``None``: it can)."""
        self.tools: tuple[str, ...] = ()
        """The full names of its tools in use now."""
        self.refreshes = 0
        """Re-lists done after ``list_changed`` (bounded by :data:`REFRESH_INTERVAL`)."""
        self.offered: list[McpTool] = []
        """Its tools as last listed and accepted (before the registry's name check)."""
        self.sandbox: Sandbox | None = None
        """The server's own sandbox (``None``: unconfined or remote)."""
        self.cache: Path | None = None
        """Its launcher's cache of its own, when it has one (``mcp_launchers.py``)."""
        self._made: list[str] = []
        """Mount points its sandbox made in the workspace, removed when it stops."""
        self._stderr: CappedLog | None = None
        """The copy of the running process's stderr into its log."""
        self._secrets: tuple[str, ...] = ()
        """The header values sent, scrubbed from any reason shown."""
        self._env_secrets: tuple[str, ...] = ()
        """A local server's secret ``env`` values (:func:`env_secrets`), scrubbed the same."""
        self._arg_secrets = tuple(argv_secrets(settings.args))
        """What its ``args`` hold as written (``--api-key sk-…``), scrubbed the same."""
        self._stop = asyncio.Event()
        self._by_itself = False
        """The server's side ended with no stop asked (``_ended``)."""
        self.started = False
        """Its start has ended, well or not."""
        self.installed = False
        """Its tools were installed once: a later install is a changed list, noted."""
        self._task: asyncio.Task[None] | None = None
        self._process: Any = None
        """A local server's process (anyio's), once spawned."""
        self._ready: asyncio.Future[list[Any]] | None = None
        self._dirty = False
        self._refresher: asyncio.Task[None] | None = None
        self._last_refresh = -math.inf
        self._noted: set[str] = set()
        self._strays = 0
        """Lines on its stdout that were no message (:meth:`_stray`)."""
        self._unreadable = 0
        """Messages the SDK could not read (:meth:`_on_message`): the first are logged."""
        self._own_logged = 0
        """Bytes of Frontier's own lines written to the log (:data:`MAX_OWN_LOG`)."""
        self._http_status: int | None = None
        """The status of the last HTTP error a remote server answered (:meth:`_heard`)."""
        self._schema_problems: dict[int, str] = {}
        """Results (by ``id``) whose structured content missed their tool's output schema,
        until :meth:`call` takes them (:meth:`_keeping`)."""
        self._change_notes = 0

    async def start(self) -> list[Any]:
        """Connect, ``initialize`` and ``tools/list`` within ``startup_timeout``."""
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[list[Any]] = loop.create_future()
        self._ready = ready
        self._task = loop.create_task(self._serve(ready))
        try:
            return await asyncio.wait_for(asyncio.shield(ready), self.settings.startup_timeout)
        except TimeoutError:
            self.dead = self._too_slow()
            # the start's own failure comes after this: retrieved here, or asyncio prints
            # "Future exception was never retrieved" on stderr (over the TUI's screen)
            ready.add_done_callback(lambda f: f.cancelled() or f.exception())
            await self.stop()
            raise

    def _too_slow(self) -> str:
        """Why a start timed out, and the setting that gives it longer: a first ``npx`` or
        ``uvx`` run downloads the server, and the person saw only "did not start"."""
        s = self.settings
        why = f"did not start within {s.startup_timeout:g} s"
        last = self._said_last(ended=False)
        why += last
        stopped = self._sandbox_stopped(last)
        if stopped:  # waiting longer would not help
            return why + stopped
        runner = Path(s.command or "").name
        if runner in DOWNLOADERS and self.sandbox is not None and not s.network:
            return why + (
                f" (a first {runner} run downloads the server, and its sandbox has no "
                f"network: network = true in [mcp_servers.{s.name}] gives it one; if the "
                "server was downloaded already, raise startup_timeout there)"
            )
        if runner in DOWNLOADERS:
            return why + (
                f" (a first {runner} run downloads the server: raise startup_timeout in "
                f"[mcp_servers.{s.name}])"
            )
        return why + f" (if it is only slow, raise startup_timeout in [mcp_servers.{s.name}])"

    async def _serve(self, ready: asyncio.Future[list[Any]]) -> None:
        try:
            # inside: a log folder that cannot be made (the data dir a file) is the start's
            # failure, said at once, not a wait for startup_timeout with nothing said
            mcp_sdk.load(mcp_sdk.HTTP if self.settings.url is not None else mcp_sdk.STDIO)
            from mcp.client.session import ClientSession

            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            async with contextlib.AsyncExitStack() as stack:
                read, write = await self._connect(stack)
                session = await stack.enter_async_context(
                    ClientSession(
                        _EndWatch(read, self._ended), write, message_handler=self._on_message
                    )
                )
                # an instance's method replaced: the SDK's check, made to keep the result
                session.validate_tool_result = self._keeping(  # type: ignore[method-assign,assignment]
                    session.validate_tool_result
                )
                listed = await self._first_list(session, await session.initialize())
                self.session = session
                ready.set_result(listed)
                await self._stop.wait()
                if self._by_itself:
                    self._ended_by_itself()
        except BaseException as exc:
            started = ready.done()
            self.dead = self.dead or (
                f"stopped ({self.reason(exc)})" if started else self._unstarted(exc)
            )
            if not started:
                ready.set_exception(RuntimeError(self.dead))
            if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
                raise
        finally:
            self.session = None
            self.dead = self.dead or "stopped"
            self._log_line(f"stopped: {self.dead}")
            self._unconfine()
            process = self._process
            if process is not None and process.returncode is not None:
                release(process.pid)  # ended; one still running stays the reaper's to stop

    async def _connect(self, stack: contextlib.AsyncExitStack) -> Any:
        """The transport's read and write streams, their lifetimes entered on ``stack``."""
        s = self.settings
        if s.url is not None:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            headers = expand_headers(s.headers, os.environ, server=s.name)
            self._secrets = tuple(v for v in headers.values() if len(v) >= 4)
            self._log_line(f"connecting to {s.target}")
            client = await stack.enter_async_context(create_mcp_http_client(headers=headers))
            client.event_hooks["response"].append(self._heard)
            return await stack.enter_async_context(
                streamable_http_client(s.url, http_client=client, max_sse_event_size=MAX_SSE_EVENT)
            )
        from mcp.client.stdio import StdioServerParameters, stdio_client

        assert s.command is not None
        argv, env, cwd = [s.command, *s.args], server_env(s), s.cwd
        self._env_secrets = env_secrets(s, env)
        outer = self.host.sandbox
        if outer is not None and outer.active and s.sandbox:
            from frontier.tools.sandbox import Sandbox

            root = str(self.host.root or Path.cwd())
            cache_env, cache = private_cache(
                s.command, s.network, self.host.log_dir.parent / CACHE_FOLDER / s.name
            )
            env = {**env, **{k: v for k, v in cache_env.items() if k not in s.env}}
            self.cache = cache
            writable = outer.settings.writable + ((str(cache),) if cache is not None else ())
            inner = replace_record(outer.settings, network=s.network, writable=writable)
            self.sandbox = Sandbox(inner, bwrap=outer.bwrap)
            wrapped, env, made = self.sandbox.wrap(argv, root, env)
            self._made = made
            if cwd is not None:  # bwrap's last --chdir wins: the server's own folder
                at = wrapped.index("--")
                wrapped[at:at] = ["--chdir", cwd]
            argv, cwd = wrapped, None
        elif "/" not in argv[0]:  # found as Frontier finds its own programs: not a
            # workspace's `npx` because PATH names the current folder (app/programs.py)
            found = find_program(argv[0], self.host.root or Path.cwd(), env.get("PATH", ""))
            if found is None:
                raise FileNotFoundError(errno.ENOENT, "not found", s.command)
            argv[0] = found
        rotated(self.log_path)
        self._log_line(f"starting {s.target}" + (" (sandboxed)" if self.sandbox else ""))
        reaper_ready()
        capped = self._stderr = CappedLog(  # bounded while it runs, its secrets hidden
            self.log_path,
            MAX_LOG,
            {
                **dict.fromkeys(self._arg_secrets, REDACTED),
                **dict.fromkeys(self._env_secrets, "[env value]"),
            },
        )
        stack.callback(capped.close)
        errlog = capped.stream
        params = StdioServerParameters(
            command=argv[0], args=argv[1:], env=env, cwd=cwd, encoding_error_handler="replace"
        )
        _patch_stdio()
        _DROPPED.set(self._dropped)
        _STRAY.set(self._stray)
        _UNSCHEMED.set(self._unschemed)
        _SPAWNED.set(self._spawned)
        return await stack.enter_async_context(stdio_client(params, errlog=errlog))

    def _ended(self) -> None:
        """The read stream ended (``_EndWatch``): unless a stop was asked first, the server
        stopped by itself, and ``_serve`` stops waiting."""
        if not self._stop.is_set():
            self._by_itself = True
            self._stop.set()

    def _ended_by_itself(self) -> None:
        """The server's side ended with no stop asked: dead now, said once as a note."""
        how = (
            "its connection closed"
            if self.settings.url is not None
            else "its process exited or closed its output"
        )
        how += self._said_last()
        self.dead = self.dead or f"stopped by itself ({how})"
        self.session = None
        self.note_once(
            "ended",
            f"MCP server {self.settings.name} {self.dead}; its tools fail until the next "
            f"session. See {self.log_path}",
        )

    def _dropped(self, size: int) -> None:
        """A message over :data:`MAX_MESSAGE` was skipped (on the reader's task)."""
        self._log_line(f"dropped a message of {size} bytes (over {MAX_MESSAGE})")
        self.note_once(
            "dropped",
            f"MCP server {self.settings.name} sent a message over {MAX_MESSAGE // 2**20} MiB; "
            f"it was dropped (the call it answered fails, or times out when the answer's start "
            f"does not name it); see {self.log_path}",
        )

    def _unschemed(self, tool: str, why: str) -> None:
        """A listed tool taken out before the SDK read the listing (:func:`_listing_kept`)."""
        self.note_once(
            f"schema {tool}", f"MCP server {self.settings.name}: tool {_shown(tool)} skipped: {why}"
        )

    def _stray(self, line: str) -> None:
        """A line on the server's stdout that is no message was skipped (on the reader's
        task): logged (the first :data:`MAX_STRAY_LOGGED`), and said once."""
        self._strays += 1
        if self._strays <= MAX_STRAY_LOGGED:
            self._log_line(f"skipped a line that is not an MCP message: {self.scrub(line)[:500]!r}")
        self.note_once(
            "stray",
            f"MCP server {self.settings.name} prints lines that are not MCP messages on its "
            f"standard output (they belong on standard error); they are skipped; see "
            f"{self.log_path}",
        )

    def _unconfine(self) -> None:
        """Remove what the server's sandbox made (its temp folder, empty mount points)."""
        if self.sandbox is None:
            return
        from frontier.tools.sandbox import tidy

        tidy(self._made)
        self.sandbox.close()

    def reason(self, exc: BaseException) -> str:
        """``exc`` as a note may say it: no header value, no URL query string; an HTTP
        error by its status (:meth:`_heard`)."""
        text = str(exc) if isinstance(exc, HeaderError) else f"{type(exc).__name__}: {exc}"
        if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
            text = self.reason(exc.exceptions[0])
        return self.scrub(mcp_answers.said_plainly(text, self._http_status))

    def _unstarted(self, exc: BaseException) -> str:
        """Why the server did not start: for a local one that closed before it answered
        (it exited), its status and the last line it wrote to stderr, where such a server
        says what it lacks ("GITHUB_TOKEN not set"); the note said "Connection closed"."""
        why = self.reason(exc)
        if (
            self.settings.url is None
            and isinstance(exc, FileNotFoundError)
            and exc.filename in (None, self.settings.command)
        ):
            return self.scrub(
                f"its command {self.settings.command!r} was not found (is it installed, and "
                "on the PATH Frontier was started with?)"
            )
        if self.settings.url is not None or "Connection closed" not in why:
            return why
        code = getattr(self._process, "returncode", None)
        said = f"it exited{f' with status {code}' if code is not None else ''} before answering"
        last = self._said_last()
        hint = withheld_hint(last, self.settings) if last else ""
        return self.scrub(said) + last + (hint or self._sandbox_stopped(last))

    def _sandbox_stopped(self, quoted: str = "") -> str:
        """``; the sandbox stopped it: …`` when a sandboxed local server's stderr since its
        start shows what the sandbox refused it, and for the network what lets it through
        (the line is not quoted again when ``quoted``, its last words, hold it). An ``npx``
        or ``uvx`` server downloads itself at its first start; with the network off the
        note quoted npm's last line ("rerun the command with --loglevel=verbose") after
        npm's retries, or asked for a longer startup_timeout, which never helped."""
        sandbox, s = self.sandbox, self.settings
        if sandbox is None or s.url is not None:
            return ""
        from frontier.tools.sandbox import refused_network

        lines = said_since_start(self.log_path)
        said = sandbox.stopped_by("\n".join(lines))
        if said is None and not s.network:
            said = offline_refusal(s.command, lines)
        if said is None:
            return ""
        kind, _, line = said.partition(": ")
        why = f"; the sandbox stopped it: {kind if line and line in quoted else said}"
        if said.startswith("a hidden place") and container_engine(s.command):
            why += (
                f" (the sandbox hides {Path(s.command or '').name}'s socket, which would let "
                "anything in it out; the server runs in the engine's own container: "
                f"sandbox = false in [mcp_servers.{s.name}] starts it so)"
            )
        elif refused_network(said):
            runner = Path(s.command or "").name
            needs = (
                f", which a first {runner} run needs to download the server"
                if runner in DOWNLOADERS
                else ""
            )
            why += (
                f" (a sandboxed server has no network{needs}: network = true in "
                f"[mcp_servers.{s.name}] gives it one)"
            )
        return self.scrub(why)

    def _said_last(self, *, ended: bool = True) -> str:
        """``; its last words: '…'`` when a local server wrote a line to its stderr (its
        log) since it was started, else ``""``. ``ended``: its process is over, so what
        it wrote last is waited for (it may still be in the pipe); a live one's log is
        read as it is."""
        if self.settings.url is not None:
            return ""
        if ended and self._stderr is not None:
            self._stderr.join(LAST_WORDS_WAIT)
        words = last_words(self.log_path)
        return f"; its last words: {self.scrub(words)!r}" if words else ""

    async def _heard(self, response: Any) -> None:
        """Each HTTP response of a remote server: the last error's status is kept, since
        the SDK says only "Server returned an error response" (a 401 that wants a token
        read the same as a 500)."""
        if response.status_code >= 400:
            self._http_status = int(response.status_code)

    def scrub(self, text: str) -> str:
        url = self.settings.url
        if url is not None and url in text:
            text = text.replace(url, public_url(url))
        for secret in self._secrets:
            text = text.replace(secret, "[header value]")
        for secret in self._env_secrets:
            text = text.replace(secret, "[env value]")
        for secret in self._arg_secrets:
            text = text.replace(secret, REDACTED)
        return " ".join(text.split())[:500]

    def _log_line(self, text: str) -> None:
        if self._own_logged > MAX_OWN_LOG:
            return
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        line = f"[frontier {stamp}] {self.scrub(text)}\n"
        self._own_logged += len(line)
        if self._own_logged > MAX_OWN_LOG:
            line = f"[frontier {stamp}] over {MAX_OWN_LOG >> 20} MiB of Frontier's lines: no more\n"
        with contextlib.suppress(OSError), self.log_path.open("a", encoding="utf-8") as log:
            log.write(line)

    async def _first_list(self, session: Any, initialized: Any) -> list[Any]:
        """The tools at the start. A server that names no tools among its capabilities (one
        that offers resources or prompts, kept in a configuration other clients share) and
        refuses ``tools/list`` offers none: noted, not a failed start."""
        try:
            return await self._list(session)
        except Exception as exc:
            if initialized.capabilities.tools is not None or not mcp_answers.answer_failure(exc):
                raise
        self.note_once(
            "no tools",
            f"MCP server {self.settings.name} offers no tools (its capabilities name none, "
            "and Frontier uses only a server's tools)",
        )
        return []

    async def _list(self, session: Any) -> list[Any]:
        """Every page of ``tools/list`` (bounded by :data:`MAX_PAGES` and :data:`MAX_TOOLS`)."""
        from mcp_types import PaginatedRequestParams

        tools: list[Any] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            params = None if cursor is None else PaginatedRequestParams(cursor=cursor)
            page = await session.list_tools(params=params)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None or len(tools) > MAX_TOOLS:
                break
        return tools

    async def _on_message(self, message: Any) -> None:
        """The session's notifications: a changed tool list schedules a re-list; a message
        the SDK could not read fails a start at once (its request would never be answered)
        and is noted later."""
        from mcp_types import ToolListChangedNotification

        if isinstance(message, Exception):
            why = f"sent a message that could not be read ({self.reason(message)})"
            self._unreadable += 1
            if self._unreadable <= MAX_STRAY_LOGGED:  # said once below; each is no news
                self._log_line(why)
            ready = self._ready
            if ready is not None and not ready.done() and self._task is not None:
                self.dead = why
                ready.set_exception(RuntimeError(why))
                self._task.cancel()
            else:
                self.note_once("unreadable", f"MCP server {self.settings.name} {why}")
            return
        if isinstance(message, ToolListChangedNotification):
            self._dirty = True
            if self._refresher is None or self._refresher.done():
                self._refresher = asyncio.get_running_loop().create_task(self._refresh())

    @property
    def refreshing(self) -> bool:
        """A re-list is in flight or due."""
        return self._dirty or (self._refresher is not None and not self._refresher.done())

    async def _refresh(self) -> None:
        """Re-list while a ``list_changed`` came since the last one: one at a time, at most
        one per :data:`REFRESH_INTERVAL` (a flood costs one re-list a second)."""
        loop = asyncio.get_running_loop()
        while self._dirty and self.dead is None and self.session is not None:
            wait = self._last_refresh + REFRESH_INTERVAL - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)  # rate limit, not a wait for a state
            self._dirty = False
            self._last_refresh = loop.time()
            try:
                listed = await asyncio.wait_for(
                    self._list(self.session), self.settings.startup_timeout
                )
            except Exception as exc:
                self.note_once(
                    f"relist failed: {type(exc).__name__}",
                    f"MCP server {self.settings.name}: re-listing its tools failed "
                    f"({self.reason(exc)}); its tools are unchanged",
                )
                continue
            self.refreshes += 1
            self.host._install(self, listed)

    def note_once(self, key: str, text: str) -> None:
        """A note about this server, kept once however often it recurs."""
        if key not in self._noted:
            self._noted.add(key)
            self.host._note(text)

    def changed(self, before: Sequence[str], after: Sequence[str]) -> None:
        """Note a changed tool list (bounded by :data:`MAX_REFRESH_NOTES`)."""
        name = self.settings.name
        self._change_notes += 1
        if self._change_notes > MAX_REFRESH_NOTES:
            self.note_once(
                "changes",
                f"MCP server {name}: its tool list keeps changing; further changes are not noted",
            )
            return
        short = [t.split(SEPARATOR, 1)[1] for t in after]
        added = [t.split(SEPARATOR, 1)[1] for t in after if t not in before]
        removed = [t.split(SEPARATOR, 1)[1] for t in before if t not in after]
        what = [f"added {_listing(added)}"] if added else []
        what += [f"removed {_listing(removed)}"] if removed else []
        self.host._note(f"MCP server {name}: tools now {_listing(short)} ({'; '.join(what)})")

    async def call(self, tool: str, args: Mapping[str, Any]) -> tuple[Any, str | None]:
        """The tool's result, and why its structured content does not match the tool's
        output schema (``None``: it does, or there is no schema)."""
        if self.dead is not None or self.session is None:
            raise ToolError(f"MCP server {self.settings.name!r} is not running: {self.dead}")
        result = await self.session.call_tool(tool, dict(args))
        return result, self._schema_problems.pop(id(result), None)

    def _keeping(
        self, validate: Callable[[str, Any], Coroutine[Any, Any, None]]
    ) -> Callable[[str, Any], Coroutine[Any, Any, None]]:
        """The SDK's check of a result against its tool's output schema, which keeps the
        result: it raised, and a tool that had run (its effect made) read as a failure,
        which asks the model to run it again. The mismatch goes with the result."""

        async def validate_keeping(name: str, result: Any) -> None:
            try:
                await validate(name, result)
            except RuntimeError as exc:
                self._schema_problems[id(result)] = self.scrub(str(exc))

        return validate_keeping

    async def ping(self) -> float:
        """Seconds one ``ping`` took (a failure marks the server dead and raises). An error
        for an answer (``Method not found`` from a server that never implemented ``ping``)
        is an answer: the server is running, and that is what a ping asks."""
        if self.dead is not None or self.session is None:
            raise ToolError(f"MCP server {self.settings.name!r} is not running: {self.dead}")
        began = time.monotonic()
        try:
            await self.session.send_ping()
        except Exception as exc:
            answered = mcp_answers.answer_failure(exc)
            if answered is None:
                self.dead = self.dead or f"ping failed ({self.reason(exc)})"
                raise ToolError(f"MCP server {self.settings.name!r}: {self.dead}") from None
            self._log_line(f"ping answered with an error, so it is running: {answered}")
        return time.monotonic() - began

    def _spawned(self, process: Any) -> None:
        # a server is a process group of its own (the SDK's spawn): without the reaper one
        # that ignores its closed stdin (busy in a call, or stubborn) outlived `kill -9`
        watch_group(process.pid)
        self._process = process
        if self._stderr is not None:
            self._stderr.spawned()  # its copy of the pipe is the child's now
        self._log_line(f"process {process.pid} started")

    def _hang_up(self) -> None:
        """SIGTERM to a local server's process group, as the SDK's shutdown would send
        after its 2 s grace: a server that never finished ``initialize`` has no state a
        graceful end would keep (quitting beside a stuck one took 2.3 s)."""
        process = self._process
        if process is None or process.returncode is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)  # its own session: the SDK's spawn
        except ProcessLookupError:
            return  # it exited meanwhile: what was wanted
        self._log_line("never started: its process group sent SIGTERM")

    async def stop(self) -> None:
        self.dead = self.dead or "stopped"
        self._stop.set()
        if self._refresher is not None:
            self._refresher.cancel()
        task = self._task
        if task is None or task.done():
            return
        if self.session is None:
            # never ready (a start that timed out): nothing to wind down gently, and
            # ``_stop`` cannot reach a task still inside ``initialize``; cancelling runs
            # the SDK's own bounded shutdown (stdin closed, then terminate, then kill)
            # at once instead of after 5 s more; and it is hung up on first, so that
            # shutdown's 2 s wait for a process that never read a line ends at once
            self._hang_up()
            task.cancel()
        done, _ = await asyncio.wait({task}, timeout=5.0)
        if not done:
            task.cancel()
            await asyncio.wait({task})


class McpStopError(RuntimeError):
    """One or more MCP servers did not stop cleanly at close (the message names each and
    its log); every other server was stopped and the host's loop closed all the same."""


class McpHost:
    """The servers of one session and the thread whose event loop runs them.

    ``sandbox`` and ``root``: a local server runs inside the session's sandbox with the
    workspace as its root (unless its ``sandbox = false``). ``on_note``: called on the
    host's thread with each note made after :meth:`start`, or from :meth:`launch` on (a
    server that did not start, a refreshed tool list, a failed re-list), beside
    :attr:`notes`, which keeps them all; the notes made before it was set are told the
    moment it is.
    """

    def __init__(
        self,
        log_dir: Path,
        *,
        sandbox: Sandbox | None = None,
        root: Path | None = None,
        on_note: Callable[[str], None] | None = None,
    ) -> None:
        self.log_dir = log_dir
        self.sandbox = sandbox
        self.root = root
        self._on_note = on_note
        self.servers: dict[str, McpServer] = {}
        self.notes: list[str] = []
        self.start_notes: dict[str, str] = {}
        """The note of each server that did not start, by its name (among :attr:`notes`):
        what shows each server's state on a line of its own (the doctor) leaves them out."""
        self.registry: Registry | None = None
        """Where refreshed tools go (the one given to :meth:`start`)."""
        self._live = False
        """Notes are told as they are made (not only kept for the caller of ``start``)."""
        self._untold: list[str] = []
        """Notes made while telling, before ``on_note`` was set."""
        self._telling = threading.Lock()
        self._starting: dict[str, asyncio.Task[Sequence[Any] | None]] = {}
        """Each server's start (on the host's loop)."""
        self.missed: set[str] = set()
        """Servers a request went without because they were still starting: told when
        they start."""
        self.on_change: Callable[[], None] | None = None
        """Called on the host's thread each time a background start ends
        (:meth:`starting` says which are left)."""
        _sdk_log_to(log_dir / "sdk.log")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp", daemon=True)
        self._thread.start()

    def submit(self, coro: Any) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    @property
    def on_note(self) -> Callable[[str], None] | None:
        return self._on_note

    @on_note.setter
    def on_note(self, tell: Callable[[str], None] | None) -> None:
        """Set who is told each note; the notes made meanwhile are told now, in order."""
        with self._telling:
            self._on_note = tell
            untold, self._untold = self._untold, []
        if tell is not None:
            for text in untold:
                tell(text)

    def start(
        self, settings: Sequence[ServerSettings], registry: Registry | None = None
    ) -> list[McpTool]:
        """Start every enabled server at once and wait for them all; their tools (bad ones
        are notes, skipped), in the order the settings name the servers.

        With ``registry`` the tools are added to it here (a name already taken is a note)
        and a server's ``list_changed`` later replaces its tools there; without one the
        caller adds them, and refreshes only change :meth:`states`."""
        self.registry = registry
        wanted = [s for s in settings if s.enabled]
        if not wanted:
            return []
        limit = max(s.startup_timeout for s in wanted) + 10.0
        try:
            self.submit(self._start_all(wanted, in_order=True)).result(limit)
        except FutureTimeout:
            self.notes.append("MCP servers did not start in time; none are used")
            return []
        tools: list[McpTool] = []
        for s in wanted:
            server = self.servers[s.name]
            tools.extend(t for t in server.offered if t.spec.name in server.tools)
        self._live = True
        return tools

    def launch(self, settings: Sequence[ServerSettings], registry: Registry) -> None:
        """Start every enabled server in the background and return at once: each one's
        tools join ``registry`` the moment it has started, and every note from now on is
        told (``on_note``). :meth:`wait_started` is the first request's wait."""
        self.registry = registry
        self._live = True
        wanted = [s for s in settings if s.enabled]
        for s in wanted:  # made here, so states() lists them as starting at once
            self.servers[s.name] = McpServer(self, s, self._log(s.name))
        if wanted:
            self.submit(self._start_all(wanted, in_order=False))

    def starting(self) -> tuple[str, ...]:
        """The servers whose start has not ended yet, in start order."""
        return tuple(name for name, server in self.servers.items() if not server.started)

    async def wait_started(self, grace: float) -> tuple[str, ...]:
        """Wait, from the session's loop, for the servers still starting: one marked
        ``required`` for its whole start (bounded by its ``startup_timeout``), the others
        at most ``grace`` seconds; the names of those still starting then, which are
        told (a note) when they start later."""
        if not self.servers or all(s.started for s in self.servers.values()):
            return ()
        return await asyncio.wrap_future(self.submit(self._wait_on_host(grace)))

    async def _wait_on_host(self, grace: float) -> tuple[str, ...]:
        starting = {n: t for n, t in self._starting.items() if not t.done()}
        required = [t for n, t in starting.items() if self.servers[n].settings.required]
        if required:
            await asyncio.wait(required)
        optional = [t for t in starting.values() if not t.done()]
        if optional and grace > 0:
            await asyncio.wait(optional, timeout=grace)  # the grace is a time by design
        late = tuple(n for n, t in self._starting.items() if not t.done())
        self.missed.update(late)
        return late

    async def _start_all(self, settings: Sequence[ServerSettings], *, in_order: bool) -> None:
        """Start the servers at once; each is installed as it starts, or (``in_order``)
        all of them in the settings' order once every start has ended."""
        loop = asyncio.get_running_loop()
        for s in settings:
            server = self.servers.get(s.name) or McpServer(self, s, self._log(s.name))
            self.servers[s.name] = server
            self._starting[s.name] = loop.create_task(self._start_one(server, not in_order))
        starts = list(self._starting.values())
        listed = await despite_stray_cancels(asyncio.gather(*starts, return_exceptions=True))
        if in_order:
            for s, found in zip(settings, listed, strict=True):
                if found is not None and not isinstance(found, BaseException):
                    self._install(self.servers[s.name], found)

    async def _start_one(self, server: McpServer, install: bool) -> Sequence[Any] | None:
        """One server's start: its listing (installed at once when ``install``), or
        ``None`` after a note saying why it did not start."""
        name = server.settings.name
        listed: Sequence[Any] | None = None
        try:
            listed = await server.start()
        except (Exception, asyncio.CancelledError) as exc:  # a stray cancel too, as gather kept
            why = server.dead or server.reason(exc)
            note = self.start_notes[name] = (
                f"MCP server {name} did not start ({why}); see {server.log_path}"
            )
            self._note(note)
        server.started = True
        if listed is not None and install:
            self._install(server, listed)
            if name in self.missed:
                count = len(server.tools)
                self._note(
                    f"MCP server {name} has started: its {count} tool{'s' if count != 1 else ''} "
                    "are offered from the next request"
                )
        if self.on_change is not None:
            self.on_change()
        return listed

    def _log(self, name: str) -> Path:
        return self.log_dir / f"{name}.log"

    def _note(self, text: str) -> None:
        self.notes.append(text)
        if not self._live:
            return
        with self._telling:
            tell = self._on_note
            if tell is None:
                self._untold.append(text)
        if tell is not None:
            tell(text)

    def _install(self, server: McpServer, listed: Sequence[Any]) -> None:
        """Make ``listed`` the server's tools (in the registry too, when there is one)."""
        tools = self._tools_of(server, listed)
        server.offered = tools
        if self.registry is None:
            names = tuple(t.spec.name for t in tools)
        else:
            taken = self.registry.replace_source(server.settings.name, tools)
            for name in taken:
                server.note_once(f"taken {name}", f"MCP tool {name} skipped: the name is taken")
            names = tuple(t.spec.name for t in tools if t.spec.name not in taken)
        before, server.tools = server.tools, names
        if server.installed and before != names:
            server.changed(before, names)
        server.installed = True

    def _tools_of(self, server: McpServer, listed: Sequence[Any]) -> list[McpTool]:
        s = server.settings
        out: list[McpTool] = []
        offered: dict[str, str] = {}
        """Each name offered to the model, and the tool of the server it calls."""
        for tool in listed:
            name = str(tool.name)
            if not SERVER_TOOL_NAME.fullmatch(name):
                server.note_once(
                    f"name {name}",
                    f"MCP server {s.name}: tool {_shown(name)} skipped (bad name)",
                )
                continue
            if (s.allow is not None and name not in s.allow) or name in s.deny:
                continue
            problem = schema_problem(tool.input_schema)
            if problem is not None:
                server.note_once(
                    f"schema {name} {problem}",
                    f"MCP server {s.name}: tool {name} skipped: {problem}",
                )
                continue
            if len(out) >= MAX_TOOLS:
                server.note_once(
                    "too many",
                    f"MCP server {s.name}: only its first {MAX_TOOLS} tools are used",
                )
                break
            hints = getattr(tool, "annotations", None)
            made = McpTool(self, server, name, tool.description or "", tool.input_schema, hints)
            first = offered.get(made.spec.name)
            if first is not None:  # `dup.x` and `dup_x`, or one name listed twice
                server.note_once(
                    f"same {made.spec.name}",
                    f"MCP server {s.name}: tool {name} skipped: it would be offered "
                    f"as {made.spec.name}, as its tool {first} is",
                )
                continue
            offered[made.spec.name] = name
            out.append(made)
        return out

    def states(self) -> list[ServerState]:
        """Every server started (or tried), in start order."""
        out = []
        for server in list(self.servers.values()):
            s = server.settings
            alive = server.dead is None and server.session is not None
            starting = not server.started and server.dead is None
            box = server.sandbox
            out.append(
                ServerState(
                    name=s.name,
                    transport=s.transport,
                    target=s.target,
                    state="running" if alive else "starting" if starting else "dead",
                    why=None if alive or starting else server.dead,
                    tools=server.tools,
                    log=server.log_path,
                    sandbox=box.label if box is not None else None,
                    cache=server.cache,
                )
            )
        return out

    def ping(self, name: str, timeout: float = 10.0) -> float:
        """Seconds one ``ping`` to server ``name`` took; a :class:`ToolError` saying why not."""
        server = self.servers.get(name)
        if server is None:
            raise ToolError(f"no MCP server {name!r} was started")
        try:
            return float(self.submit(asyncio.wait_for(server.ping(), timeout)).result(timeout + 5))
        except (TimeoutError, FutureTimeout):
            raise ToolError(f"MCP server {name!r} did not answer a ping in {timeout:g} s") from None

    async def aclose(self) -> None:
        """:meth:`close` on a thread of its own, for a session closed from an event loop:
        a server that ignores its stdin closing takes the SDK's 2 s before it is
        terminated, and the screen must keep answering meanwhile (``/new``, a resume)."""
        await asyncio.to_thread(self.close)

    def close(self) -> None:
        """Stop every server, then the loop (a session closer).

        Every server is asked to stop even when another fails; then a server whose stop
        failed or did not end in time raises :class:`McpStopError` naming each (written to
        its log too), so the session's close reports it rather than a process that may
        still be running going unsaid."""
        if self._loop.is_closed():
            return
        failed: list[str] = []
        if self.servers:
            servers = list(self.servers.values())

            async def stop_all() -> list[BaseException | None]:
                stops = asyncio.gather(*(srv.stop() for srv in servers), return_exceptions=True)
                return await despite_stray_cancels(stops)

            try:
                outcomes = self.submit(stop_all()).result(15.0)
            except FutureTimeout:
                outcomes = [TimeoutError("did not stop within 15 s")] * len(servers)
            for server, outcome in zip(servers, outcomes, strict=True):
                if isinstance(outcome, BaseException):
                    why = server.reason(outcome)
                    server._log_line(f"stop failed: {why}")
                    failed.append(
                        f"MCP server {server.settings.name} did not stop cleanly ({why}); "
                        f"see {server.log_path}"
                    )
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5.0)
        if not self._thread.is_alive():
            self._loop.close()
        if failed:
            raise McpStopError("; ".join(failed))


async def despite_stray_cancels(awaitable: Awaitable[T]) -> T:
    """``await awaitable`` to its end even when this task is cancelled meanwhile.

    The MCP SDK's anyio scopes, ended while a hostile server is started or stopped beside
    others, can cancel the task that awaits them all (seen twice in ~20 runs of
    ``test_deep_schemas_are_skipped_or_the_server_reported_and_others_work``: ``close``
    raised ``CancelledError``, a session's exit would have). Such a cancel is not ours: it
    is taken back and the wait goes on. Callers bound it (``Future.result(timeout)``)."""
    future = asyncio.ensure_future(awaitable)
    while True:
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            if future.cancelled():
                raise
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()


class _SdkLog(logging.Handler):
    """The SDK's own warnings (a message it could not parse, a failed session end), kept in
    the latest host's ``sdk.log`` rather than written to the terminal a TUI draws on."""

    path: Path | None = None
    written = 0
    """Bytes written to ``path`` by this process: at most :data:`MAX_LOG` (the SDK wrote a
    traceback for each of 50,000 unreadable lines, 46 MB and seconds of CPU)."""

    def emit(self, record: logging.LogRecord) -> None:
        path = self.path
        if path is None or self.written > MAX_LOG:
            return
        text = self.format(record) + "\n"
        self.written += len(text)
        if self.written > MAX_LOG:
            text = f"over {MAX_LOG >> 20} MiB of the SDK's warnings this session: no more\n"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as log:
                log.write(text)
        except OSError:
            return  # the log is a courtesy; a full disk must not break a call


_SDK_LOG = _SdkLog(logging.WARNING)
_SDK_LOG.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))


def _sdk_log_to(path: Path) -> None:
    if _SDK_LOG.path != path:
        rotated(path)  # every session appends to it: kept under MAX_LOG as a server's is
        _SDK_LOG.path, _SDK_LOG.written = path, 0
    sdk = logging.getLogger("mcp")
    if _SDK_LOG not in sdk.handlers:
        sdk.addHandler(_SDK_LOG)
        sdk.propagate = False


class McpTool:
    """One server tool as the boundary drives it."""

    bytes_args: frozenset[str] = frozenset()

    def __init__(
        self,
        host: McpHost,
        server: McpServer,
        tool: str,
        description: str,
        schema: Mapping[str, Any],
        hints: Any = None,
    ) -> None:
        self.host = host
        self.server = server
        self.tool = tool
        settings = server.settings
        name = settings.name
        text = " ".join(description.split())[:MAX_DESCRIPTION]
        # A hint is the server's word: it counts only for a server the person trusts.
        read = (
            settings.trusted
            and getattr(hints, "read_only_hint", None) is True
            and getattr(hints, "destructive_hint", None) is not True
        )
        self.spec = ToolSpec(
            name=wire_name(name, tool),
            description=f"{text} (MCP server {name})" if text else f"MCP server {name}: {tool}",
            parameters=_as_offered(schema),
            sequential=not read,
            mutates=not read,
            timeout=settings.tool_timeout,
            kind="read" if read else "exec",
            enforces_timeout=True,
            source="mcp",
        )

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        shown = json.dumps(dict(args), ensure_ascii=False, sort_keys=True)
        command = f"{self.server.settings.name} · {self.tool} {shown}"
        box = self.server.sandbox  # where the server runs, so where this call does
        where = f"MCP server {self.server.settings.name}: {box.label}" if box else None
        return Prepared(
            args=args,
            preview=Preview(
                kind="command", command=command, summary=f"MCP {command}", sandbox=where
            ),
            needs_approval=self.spec.kind != "read",
        )

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        server, limit = self.server.settings.name, self.server.settings.tool_timeout
        future = self.host.submit(self.server.call(self.tool, prepared.args))
        work = asyncio.wrap_future(future)
        stopped = asyncio.ensure_future(cancel.event.wait())
        try:
            done, _ = await asyncio.wait(
                {work, stopped}, timeout=limit, return_when="FIRST_COMPLETED"
            )
        finally:
            stopped.cancel()
        if work not in done:
            future.cancel()  # cancels the request in the host loop (the SDK tells the server)
            if stopped in done:
                return Outcome("cancelled", f"{server}: {self.tool} was cancelled")
            return Outcome(
                "timeout", f"MCP server {server}: tool {self.tool} timed out after {limit:g} s"
            )
        exc = work.exception()
        if isinstance(exc, ToolError):
            raise exc
        failed = mcp_answers.answer_failure(exc) if exc is not None else None
        if failed is not None:  # the server answered: it is alive, this call failed
            failed = mcp_answers.said_plainly(failed, self.server._http_status)
            text = self.server.scrub(f"MCP server {server}: tool {self.tool}: {failed}")
            self.server._log_line(text)
            return Outcome("error", text)
        if exc is not None:
            why = self.server.reason(exc)
            self.server.dead = self.server.dead or why
            raise ToolError(
                f"MCP server {server} failed during {self.tool} ({why}); "
                f"it is marked dead, its log is {self.server.log_path}"
            )
        result, schema_problem = work.result()
        name = f"{self.server.settings.name} {self.tool}"
        if any(getattr(item, "type", "") == "image" for item in result.content):
            outcome = await asyncio.to_thread(_outcome, result, name)  # one may be scaled
        else:
            outcome = _outcome(result, name)
        if schema_problem is None:
            return outcome
        self.server._log_line(f"tool {self.tool}: {schema_problem}")
        note = mcp_answers.schema_note(schema_problem)
        return replace_record(outcome, output=f"{outcome.output}\n{note}".lstrip("\n"))


def _embedded(resource: Any) -> str:
    """An embedded resource: its text under a line naming it (a server such as GitHub's
    answers ``get_file_contents`` with the file as one: the model saw only the URI); a
    binary one described, as an image is."""
    uri = getattr(resource, "uri", "?")
    mime = getattr(resource, "mime_type", None)
    text = getattr(resource, "text", None)
    if isinstance(text, str):
        return f"[resource {uri}{f' {mime}' if mime else ''}]\n{text}"
    size = len(getattr(resource, "blob", "") or "")
    return f"[resource {uri} {mime or '?'}, {size} base64 chars]"


def _as_offered(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A tool's input schema as a model API is given it: a copy, without the top-level
    ``$schema`` that zod-made servers put there and Gemini's OpenAI endpoint refuses ("Unknown
    name $schema": every request of the session failed); it says nothing a model needs."""
    copied: dict[str, Any] = json.loads(json.dumps(schema))
    copied.pop("$schema", None)
    _items_given(copied)
    return copied


def _items_given(node: Any) -> None:
    """Give every array schema without ``items`` an empty one (anything, as before): OpenAI
    refuses a tool whose array has none ("array schema missing items", a 400), and with it
    every request of the session. Bounded: :func:`schema_problem` passed only a schema
    32 levels deep at most."""
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    if (kind == "array" or (isinstance(kind, list) and "array" in kind)) and (
        "items" not in node and "prefixItems" not in node
    ):
        node["items"] = {}
    for key in _ONE_SCHEMA:
        _items_given(node.get(key))
    for key in _SCHEMA_LISTS:
        if isinstance(found := node.get(key), list):
            for value in found:
                _items_given(value)
    for key in _SCHEMA_MAPS:
        if isinstance(found := node.get(key), dict):
            for value in found.values():
                _items_given(value)


_ONE_SCHEMA = ("items", "additionalProperties", "not", "contains", "if", "then", "else")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
"""Where a schema holds schemas: only those are given ``items`` (a ``default`` or an
``examples`` value shaped like a schema is the server's data, sent as it is)."""


def _outcome(result: Any, name: str = "") -> Outcome:
    """Text content joined (an embedded resource's text too); an image shown to the model
    after the round's results (a browser server's screenshot), named where it was; other
    content as a described placeholder."""
    parts: list[str] = []
    images: list[Image] = []
    for item in result.content:
        kind = getattr(item, "type", "?")
        if kind == "text":
            parts.append(item.text)
        elif kind == "image" and len(images) >= IMAGES_SHOWN:
            mime = getattr(item, "mime_type", "?")
            parts.append(f"[image {mime}, not shown: at most {IMAGES_SHOWN} images a result]")
        elif kind == "image":
            image = image_from_base64(getattr(item, "data", None), f"{name} image")
            if isinstance(image, Image):
                images.append(image)
                parts.append(f"[image {image.media_type}, {image.size():,} bytes]")
            else:
                mime = getattr(item, "mime_type", "?")
                parts.append(f"[image {mime}, not shown: {image}]")
        elif kind == "audio":
            size = len(getattr(item, "data", "") or "")
            mime = getattr(item, "mime_type", "?")
            parts.append(f"[{kind} {mime}, {size} base64 chars]")
        elif kind == "resource":
            parts.append(_embedded(item.resource))
        elif kind == "resource_link":
            parts.append(f"[resource link {getattr(item, 'uri', '?')}]")
        else:
            parts.append(f"[{kind} content]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False))
    text = cap_output("\n".join(parts))  # as the boundary would: the copies it makes stay small
    if result.is_error:
        return Outcome("error", text or "the tool reported an error", images=tuple(images))
    return Outcome("ok", text, images=tuple(images))
