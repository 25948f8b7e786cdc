"""MCP stdio servers as tools (issue 26): each server tool is one more ``Tool`` of the
registry, so its calls take the same path as the built-ins (prepare → gate → persist →
execute → commit) and its results are capped and scrubbed like theirs.

The SDK's client lives inside anyio task groups that must be entered and left by one
task, and ``create_runtime`` is synchronous; so every server runs in one private event
loop on a daemon thread (:class:`McpHost`), and a call crosses over with
``run_coroutine_threadsafe``. A server that fails to start is a note, never fatal.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from frontier.app.events import ToolCall
from frontier.tools.base import CancelToken, Outcome, Prepared, ToolError
from frontier.tools.contract import Preview, ToolContext, ToolSpec
from frontier.tools.process import child_env

SEPARATOR = "__"
"""``NAME__tool``: the server's name, then the tool's own."""
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_SCHEMA_DEPTH = 32
MAX_SCHEMA_BYTES = 64 * 1024
MAX_DESCRIPTION = 2000
"""A server's tool description is cut here: it goes into every system prompt."""


@dataclass(frozen=True)
class ServerSettings:
    """One ``[mcp_servers.NAME]`` table, validated (``app/mcp_config.py``)."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    """Set for the server as given: the only way a withheld (secret-named) variable
    reaches it."""
    cwd: str | None = None
    enabled: bool = True
    startup_timeout: float = 10.0
    tool_timeout: float = 60.0
    allow: tuple[str, ...] | None = None
    """Only these tools (``None``: all)."""
    deny: tuple[str, ...] = ()


def server_env(settings: ServerSettings) -> dict[str, str]:
    """The tools' environment (secret-named variables withheld) plus the server's ``env``."""
    env = child_env()
    env.update(settings.env)
    return env


def schema_problem(schema: Any) -> str | None:
    """Why a tool's input schema may not reach a model (``None``: it may)."""
    if not isinstance(schema, Mapping):
        return "its input schema is not an object"
    if schema.get("type", "object") != "object":
        return "its input schema is not of type object"
    try:
        size = len(json.dumps(schema).encode())
    except (TypeError, ValueError, RecursionError) as exc:
        return f"its input schema is not JSON ({type(exc).__name__})"
    if size > MAX_SCHEMA_BYTES:
        return f"its input schema is {size} bytes (at most {MAX_SCHEMA_BYTES})"
    if _depth(schema) > MAX_SCHEMA_DEPTH:
        return f"its input schema nests deeper than {MAX_SCHEMA_DEPTH} levels"
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


class McpServer:
    """One running server: its client session lives in the host loop's ``_serve`` task."""

    def __init__(self, settings: ServerSettings, log_path: Path) -> None:
        self.settings = settings
        self.log_path = log_path
        self.session: Any = None
        self.dead: str | None = None
        """Why the server cannot be called any more (``None``: it can)."""
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> list[Any]:
        """Spawn, ``initialize`` and ``tools/list`` within ``startup_timeout``."""
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[list[Any]] = loop.create_future()
        self._task = loop.create_task(self._serve(ready))
        try:
            return await asyncio.wait_for(asyncio.shield(ready), self.settings.startup_timeout)
        except TimeoutError:
            self.dead = f"did not start within {self.settings.startup_timeout:g} s"
            await self.stop()
            raise

    async def _serve(self, ready: asyncio.Future[list[Any]]) -> None:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        s = self.settings
        params = StdioServerParameters(
            command=s.command, args=list(s.args), env=server_env(s), cwd=s.cwd
        )
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self.log_path.open("a", encoding="utf-8") as errlog:
                async with (
                    stdio_client(params, errlog=errlog) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    listed = await session.list_tools()
                    self.session = session
                    ready.set_result(list(listed.tools))
                    await self._stop.wait()
        except BaseException as exc:
            self.dead = self.dead or f"stopped ({type(exc).__name__}: {exc})"
            if not ready.done():
                ready.set_exception(RuntimeError(self.dead))
            if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
                raise
        finally:
            self.session = None
            self.dead = self.dead or "stopped"

    async def call(self, tool: str, args: Mapping[str, Any]) -> Any:
        if self.dead is not None or self.session is None:
            raise ToolError(f"MCP server {self.settings.name!r} is not running: {self.dead}")
        return await self.session.call_tool(tool, dict(args))

    async def stop(self) -> None:
        self.dead = self.dead or "stopped"
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), 5.0)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class McpHost:
    """The servers of one session and the thread whose event loop runs them."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.servers: dict[str, McpServer] = {}
        self.notes: list[str] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp", daemon=True)
        self._thread.start()

    def submit(self, coro: Any) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def start(self, settings: Sequence[ServerSettings]) -> list[McpTool]:
        """Start every enabled server at once; their tools (bad ones are notes, skipped)."""
        wanted = [s for s in settings if s.enabled]
        if not wanted:
            return []
        limit = max(s.startup_timeout for s in wanted) + 10.0
        try:
            listed = self.submit(self._start_all(wanted)).result(limit)
        except FutureTimeout:
            self.notes.append("MCP servers did not start in time; none are used")
            return []
        tools: list[McpTool] = []
        for s, found in zip(wanted, listed, strict=True):
            if isinstance(found, BaseException):
                why = self.servers[s.name].dead or f"{type(found).__name__}: {found}"
                self.notes.append(
                    f"MCP server {s.name} did not start ({why}); see {self._log(s.name)}"
                )
                continue
            tools.extend(self._tools_of(s, found))
        return tools

    async def _start_all(self, settings: Sequence[ServerSettings]) -> list[Any]:
        for s in settings:
            self.servers[s.name] = McpServer(s, self._log(s.name))
        starts = [self.servers[s.name].start() for s in settings]
        return list(await asyncio.gather(*starts, return_exceptions=True))

    def _log(self, name: str) -> Path:
        return self.log_dir / f"{name}.log"

    def _tools_of(self, s: ServerSettings, listed: Sequence[Any]) -> list[McpTool]:
        out: list[McpTool] = []
        for tool in listed:
            name = str(tool.name)
            if not TOOL_NAME.fullmatch(name):
                self.notes.append(f"MCP server {s.name}: tool {_shown(name)} skipped (bad name)")
                continue
            if (s.allow is not None and name not in s.allow) or name in s.deny:
                continue
            problem = schema_problem(tool.input_schema)
            if problem is not None:
                self.notes.append(f"MCP server {s.name}: tool {name} skipped: {problem}")
                continue
            server = self.servers[s.name]
            out.append(McpTool(self, server, name, tool.description or "", tool.input_schema))
        return out

    def close(self) -> None:
        """Stop every server, then the loop (a session closer)."""
        if self._loop.is_closed():
            return
        if self.servers:
            servers = list(self.servers.values())

            async def stop_all() -> None:
                await asyncio.gather(*(srv.stop() for srv in servers))

            with contextlib.suppress(FutureTimeout):
                self.submit(stop_all()).result(15.0)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5.0)
        if not self._thread.is_alive():
            self._loop.close()


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
    ) -> None:
        self.host = host
        self.server = server
        self.tool = tool
        name = server.settings.name
        text = " ".join(description.split())[:MAX_DESCRIPTION]
        self.spec = ToolSpec(
            name=f"{name}{SEPARATOR}{tool}",
            description=f"{text} (MCP server {name})" if text else f"MCP server {name}: {tool}",
            parameters=json.loads(json.dumps(schema)),
            sequential=True,
            mutates=True,
            timeout=server.settings.tool_timeout,
            kind="exec",
            enforces_timeout=True,
            source="mcp",
        )

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        shown = json.dumps(dict(args), ensure_ascii=False, sort_keys=True)
        command = f"{self.server.settings.name} · {self.tool} {shown}"
        return Prepared(
            args=args,
            preview=Preview(kind="command", command=command, summary=f"MCP {command}"),
            needs_approval=True,
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
        if exc is not None:
            self.server.dead = self.server.dead or f"{type(exc).__name__}: {exc}"
            raise ToolError(
                f"MCP server {server} failed during {self.tool} ({type(exc).__name__}: {exc}); "
                f"it is marked dead, its log is {self.server.log_path}"
            )
        return _outcome(work.result())


def _outcome(result: Any) -> Outcome:
    """Text content joined; other content as a described placeholder."""
    parts: list[str] = []
    for item in result.content:
        kind = getattr(item, "type", "?")
        if kind == "text":
            parts.append(item.text)
        elif kind in ("image", "audio"):
            size = len(getattr(item, "data", "") or "")
            mime = getattr(item, "mime_type", "?")
            parts.append(f"[{kind} {mime}, {size} base64 chars]")
        elif kind == "resource":
            uri = getattr(item.resource, "uri", "?")
            parts.append(f"[resource {uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource link {getattr(item, 'uri', '?')}]")
        else:
            parts.append(f"[{kind} content]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False))
    text = "\n".join(parts)
    if result.is_error:
        return Outcome("error", text or "the tool reported an error")
    return Outcome("ok", text)
