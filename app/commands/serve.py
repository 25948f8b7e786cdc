"""``frontier serve``: the TUI in a browser, through textual-serve.

textual-serve runs a small aiohttp server; every browser connection to its web socket
starts the served command as a new process with Textual's web driver (the browser's
xterm.js is its terminal) and ends it when the page closes. So each page load is a new
session, and for the demo a new scratch workspace under the data dir.

Whoever can open the page drives an agent that runs shell commands in the workspace.
So the server binds 127.0.0.1 unless ``--host`` says otherwise (and then warns);
``--max-sessions`` bounds the processes one server starts; and every request must name
this server (:class:`ServerAddress`): its ``Host`` one of the server's own names and its
port, or a DNS-rebound name (``evil.example`` made to resolve to 127.0.0.1) would let a
site read the page and drive the socket as if it were local; and a web socket's ``Origin``
the server's own scheme, host and port, since any page open in the same browser — a site,
or another local server on port 3000 — may open a web socket to a local port and press
the keys. What the banner and the page title show of the served arguments is redacted
(a ``--base-url`` may carry ``?api_key=…``), since both are made to be projected.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import ipaddress
import logging
import os
import re
import shlex
import signal
import socket
import sys
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from urllib.parse import urlsplit

from frontier.app.files import write_atomic
from frontier.app.frontends.terminal_text import safe_print
from frontier.app.record import record
from frontier.app.secrets import Scrubber, redact_url, url_secrets
from frontier.tools.process_tree import descendants, process_tree

DEFAULT_HOST = "127.0.0.1"
SHUTDOWN_WAIT = 10.0
"""Seconds Ctrl+C waits for the open sessions to quit (each saves its session)."""
KILL_GRACE = 0.5
"""Seconds between the TERM and the KILL of a session still running at ``SHUTDOWN_WAIT``."""
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
REFUSALS_SHOWN = 64
"""Distinct refused hosts and origins printed; a page retrying in a loop prints once each."""

TUI_COMMANDS = (None, "demo", "replay", "resume")
"""The frontier commands that open the TUI: the only ones a browser can show."""

MISSING = (
    "frontier serve: textual-serve is not installed; it serves the TUI in a browser. "
    "Install it with: pip install 'frontier-agent[serve]' (or pip install textual-serve)"
)


def main(args: argparse.Namespace) -> int:
    served = list(args.served) or ["demo"]
    if (problem := _served_problem(served)) is not None:
        safe_print(f"frontier serve: {problem}", file=sys.stderr)
        return 2
    if args.max_sessions < 1:
        safe_print("frontier serve: --max-sessions must be at least 1", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        safe_print(f"frontier serve: --port {args.port} is not a port (0-65535)", file=sys.stderr)
        return 2
    try:
        from textual_serve.server import Server
    except ImportError:
        safe_print(MISSING, file=sys.stderr)
        return 2

    host = args.host or DEFAULT_HOST
    try:
        port = _claim_port(host, args.port)
    except OSError as exc:
        safe_print(f"frontier serve: {_bind_problem(host, args.port, exc)}", file=sys.stderr)
        return 2
    url_host = f"[{host}]" if ":" in host else host
    public_url = args.public_url or f"http://{url_host}:{port}"
    command = served_command(served)
    server_class = _server_class(Server)
    templates = tempfile.TemporaryDirectory(prefix="frontier-serve-")
    server = server_class(
        command,
        host=host,
        port=port,
        title="Frontier · " + shown_command(served),
        public_url=public_url.rstrip("/"),
        templates_path=offline_templates(Path(templates.name)),
    )
    server.frontier_setup(
        served=served,
        address=ServerAddress(host, port, public_url.rstrip("/")),
        max_sessions=args.max_sessions,
    )
    if not _is_loopback(host):
        safe_print(_exposed_warning(host, port), file=sys.stderr, flush=True)
    try:
        server.serve()
    except OSError as exc:  # lost the port between the check and the bind
        safe_print(f"frontier serve: {_bind_problem(host, port, exc)}", file=sys.stderr)
        return 2
    finally:
        templates.cleanup()
    safe_print("frontier serve: stopped", flush=True)
    return 0


OUTSIDE_FONT = re.compile(
    r"<link\b[^>]*\bhref=\"https?://fonts\.(?:googleapis|gstatic)\.com[^\"]*\"[^>]*>", re.S
)
"""textual-serve's page loads Roboto Mono from Google Fonts: a projected page would tell an
outside host who is watching (and wait on it in an offline classroom). The page's CSS falls
back to the local monospace fonts it already names (menlo, monospace)."""


def offline_templates(dest: Path) -> Path:
    """textual-serve's templates, copied into ``dest`` with every outside font link removed;
    a template that no longer has such a link is copied as it is."""
    import textual_serve

    source = Path(textual_serve.__file__).parent / "templates"
    for template in source.glob("*.html"):
        text = template.read_text(encoding="utf-8")
        write_atomic(dest / template.name, OUTSIDE_FONT.sub("", text))
    return dest


def shown_command(served: Sequence[str]) -> str:
    """``frontier ARGS`` as the banner and the page title show it: a credential in a URL
    argument (``--base-url 'http://h/v1?api_key=…'``, ``user:pass@``) and any value of the
    API-key variables become ``[REDACTED]``. Both are made to be seen by a room (a
    projected page, a terminal on a shared screen); what runs keeps the real arguments."""
    scrubber = Scrubber.from_env(*(s for arg in served for s in url_secrets(_url_of(arg))))
    shown = []
    for arg in served:
        url = _url_of(arg)
        if url:
            arg = arg[: len(arg) - len(url)] + (redact_url(url) or "")
        shown.append(scrubber.scrub(arg))
    return shlex.join(["frontier", *shown])


def _url_of(arg: str) -> str:
    """The URL an argument is or carries (``URL``, ``--option=URL``), else ``""``."""
    value = arg.partition("=")[2] if arg.startswith("-") else arg
    return value if "://" in value else ""


def served_command(served: Sequence[str]) -> str:
    """The shell command textual-serve starts per connection: this interpreter's frontier,
    so the page runs the same install (and inherits FRONTIER_DATA_DIR/FRONTIER_CONFIG_DIR
    with the rest of the environment)."""
    return shlex.join([sys.executable, "-m", "frontier.app.cli", *served])


def _served_problem(served: Sequence[str]) -> str | None:
    """Check the served arguments here, once, rather than in every browser session."""
    from frontier.app.cli import parse_args

    try:
        parsed = parse_args(list(served))
    except SystemExit:  # argparse printed what is wrong with them
        return "the frontier arguments after -- are not valid (the error is above)"
    if parsed.command not in TUI_COMMANDS:
        return (
            f"`frontier {parsed.command}` has no TUI to show in a browser; serve the TUI "
            "(no command), demo, replay or resume"
        )
    if getattr(parsed, "headless", False):
        return "--headless prints to a terminal; a browser needs the TUI (drop --headless)"
    return None


def _claim_port(host: str, port: int) -> int:
    """The port to serve on: ``port`` if it can be bound now, a free one for 0. Binding
    first gives a clear "in use" message before anything starts; textual-serve binds
    again (with SO_REUSEADDR, as this check does) a moment later."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host, port))
        return int(probe.getsockname()[1])


def _bind_problem(host: str, port: int, exc: OSError) -> str:
    if exc.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is in use (another frontier serve?); pick another "
            "with --port N, or --port 0 for any free one"
        )
    if exc.errno == errno.EACCES:
        return f"not allowed to listen on port {port} (below 1024 needs privileges); try --port 0"
    if isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {host!r}: no such address on this machine ({exc.strerror})"
    return f"cannot listen on {host}:{port}: {exc.strerror or exc}"


def _is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _exposed_warning(host: str, port: int) -> str:
    return (
        f"WARNING: serving on {host}:{port}, not only this machine. Anyone who can reach "
        "that address can open the page and drive an agent that runs shell commands and "
        "edits files in the workspace. Use it only on a network you trust, and stop it "
        "(Ctrl+C) when the class is over."
    )


def _default_port(scheme: str) -> int:
    return 443 if scheme in ("https", "wss") else 80


def _host_port(value: str, default_port: int) -> tuple[str, int] | None:
    """``(name, port)`` of a ``Host`` header value, or ``None`` if it is not one (the name
    lower case, an IPv6 address without its brackets)."""
    try:
        parts = urlsplit(f"//{value}")
        port = parts.port
    except ValueError:  # not a port number, an unclosed "[" …
        return None
    name = parts.hostname
    if not name or parts.username is not None or parts.path or parts.query or parts.fragment:
        return None
    return name, port or default_port


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@record
class ServerAddress:
    """Where this server listens and the URL browsers use: what a request must name.

    Browsers cannot forge ``Host`` or ``Origin``, so checking both against the server's
    own is what keeps a page of another origin out — as long as "own" means scheme, host
    *and* port: a page of another local server (``http://localhost:3000``) is another
    origin, and a name that resolves to 127.0.0.1 is not this server's name."""

    host: str
    """The address bound (``127.0.0.1``, ``0.0.0.0``, a name)."""
    port: int
    public_url: str
    """Without a trailing ``/``: ``http://127.0.0.1:8470``, or ``--public-url``."""

    @property
    def loopback(self) -> bool:
        return _is_loopback(self.host)

    def _public(self) -> tuple[str, str, int] | None:
        """The public URL's scheme, host and port (the scheme's default filled in)."""
        try:
            public = urlsplit(self.public_url)
            port = public.port or _default_port(public.scheme)
        except ValueError:
            return None
        return (public.scheme, public.hostname or "", port)

    def _names(self) -> frozenset[str]:
        """Loopback names that reach this server (bound to loopback): ``localhost`` and
        the address bound, or every loopback address ``localhost`` binds."""
        bound = self.host.strip("[]").lower()
        if bound == "localhost":
            return LOOPBACK_NAMES
        return frozenset({bound, "localhost"}) if bound in LOOPBACK_NAMES else frozenset({bound})

    def host_problem(self, host_header: str | None) -> str | None:
        """Why a request with this ``Host`` is not for this server, or ``None``.

        Its port must be the server's, and its name one of the server's: bound to
        loopback, a loopback name; otherwise an address (an IP address cannot be
        rebound), the name bound, or the public URL's (a proxy or a machine name is named
        with ``--public-url``). A name that merely resolves here is a DNS-rebinding page."""
        if not host_header:
            return "no Host header"
        public = self._public()
        if public is not None and _host_port(host_header, _default_port(public[0])) == public[1:]:
            return None
        parsed = _host_port(host_header, 80)
        if parsed is None:
            return f"Host {host_header!r} is not a host name"
        name, port = parsed
        if port != self.port:
            return f"Host {host_header!r} names port {port}, not this server's {self.port}"
        if self.loopback:
            if name in self._names():
                return None
            return (
                f"Host {host_header!r} is not a loopback name (a site's name made to point "
                "here: DNS rebinding)"
            )
        if _is_address(name) or name in LOOPBACK_NAMES or name == self.host.lower():
            return None
        return (
            f"Host {host_header!r} is not this server's name; if browsers reach it by that "
            "name, say so with --public-url"
        )

    def origin_problem(self, origin: str | None, host_header: str | None) -> str | None:
        """Why a web socket from a page of ``origin`` may not drive a session, or ``None``.

        The page's scheme, host and port must be this server's: the public URL's, or plain
        HTTP on the server's port under a name of the server (bound to loopback: a loopback
        name, so a page loaded as ``localhost`` may use a socket at ``127.0.0.1``;
        otherwise the name the request itself was sent to). No ``Origin`` is no browser: a
        local program, which could start frontier itself."""
        if origin is None:
            return None
        try:
            page = urlsplit(origin)
            port = page.port or _default_port(page.scheme)
        except ValueError:
            return f"a page from {origin!r} (not an origin)"
        if page.scheme not in ("http", "https") or not page.hostname or page.path:
            return f"a page from {origin!r} (not a web page's origin)"
        if (page.scheme, page.hostname, port) == self._public():
            return None
        asked = _host_port(host_header or "", 80)
        names = self._names() if self.loopback else {asked[0]} if asked else set()
        if page.scheme == "http" and port == self.port and page.hostname in names:
            return None
        return f"a page from {origin!r} (not this server's own scheme, host and port)"


async def sessions_ended(deadline: float, parent: int | None = None) -> int:
    """Wait until no process below ``parent`` (this server) is running, or until
    ``deadline`` (the loop's clock); then TERM what is left, and KILL it after a grace.
    How many were left."""
    loop = asyncio.get_running_loop()
    me = os.getpid() if parent is None else parent
    while (left := descendants(me, process_tree(live=True))) and loop.time() < deadline:
        await asyncio.sleep(0.02)  # a poll of /proc: nothing tells a grandchild's end
    if not left:
        return 0
    _signal_each(left, signal.SIGTERM)
    grace = loop.time() + KILL_GRACE
    while (still := descendants(me, process_tree(live=True))) and loop.time() < grace:
        await asyncio.sleep(0.02)
    _signal_each(still, signal.SIGKILL)
    return len(left)


def _signal_each(pids: Sequence[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _server_class(base: type) -> type:
    """textual-serve's Server with Frontier's banner, a Host and an Origin check, and a
    session bound."""
    from aiohttp import web

    Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

    class FrontierServer(base):  # type: ignore[misc, valid-type]
        def frontier_setup(
            self, *, served: Sequence[str], address: ServerAddress, max_sessions: int
        ) -> None:
            self.served = list(served)
            self.address = address
            self.max_sessions = max_sessions
            self.handlers: set[asyncio.Task[object]] = set()
            self.refusals: set[str] = set()

        def refused(self, line: str) -> None:
            """Print a refusal once: a page retrying in a loop must not flood the log."""
            if line in self.refusals or len(self.refusals) > REFUSALS_SHOWN:
                return
            self.refusals.add(line)
            if len(self.refusals) > REFUSALS_SHOWN:
                line = f"{REFUSALS_SHOWN} different requests; further refusals are not printed"
            safe_print(f"frontier serve: refused {line}", flush=True)

        async def _make_app(self) -> web.Application:
            # Every route (the page, the web socket, downloads, static files) answers only
            # a request that names this server: a DNS-rebound name gets nothing.
            app: web.Application = await super()._make_app()

            @web.middleware
            async def this_server_only(
                request: web.Request, handler: Handler
            ) -> web.StreamResponse:
                problem = self.address.host_problem(request.headers.get("Host"))
                if problem is not None:
                    self.refused(f"a request: {problem}")
                    raise web.HTTPMisdirectedRequest(
                        text=f"frontier serve: not this server's name ({problem})"
                    )
                return await handler(request)

            app.middlewares.append(this_server_only)
            return app

        def initialize_logging(self) -> None:
            super().initialize_logging()
            # textual-serve's own warnings and errors, not a line for every request.
            logging.getLogger("aiohttp.access").setLevel(logging.WARNING)

        async def on_startup(self, app: web.Application) -> None:
            # In place of textual-serve's logo and its "Serving '<long command>'" line.
            safe_print(
                f"Frontier in a browser: {redact_url(self.public_url)}/\n"
                f"  serving `{shown_command(self.served)}`; each page load "
                f"starts a new session (at most {self.max_sessions} at once)\n"
                "  Ctrl+C stops the server and every session",
                flush=True,
            )

        async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
            origin = request.headers.get("Origin")
            problem = self.address.origin_problem(origin, request.headers.get("Host"))
            if problem is not None:
                self.refused(problem)
                raise web.HTTPForbidden(text="frontier serve: this page is not from this server")
            if len(self.handlers) >= self.max_sessions:
                safe_print(
                    f"frontier serve: refused a session: {len(self.handlers)} are open "
                    f"(--max-sessions {self.max_sessions}); close a tab, or restart the "
                    "server with a higher --max-sessions",
                    flush=True,
                )
                raise web.HTTPServiceUnavailable(
                    text=f"frontier serve: {len(self.handlers)} sessions are open already"
                )
            task = asyncio.current_task()
            assert task is not None
            self.handlers.add(task)
            try:
                return await super().handle_websocket(request)
            finally:
                self.handlers.discard(task)

        async def on_shutdown(self, app: web.Application) -> None:
            # aiohttp waits for open web sockets before it stops; end each session now
            # instead: textual-serve's handler sends the app "quit" when cancelled. It
            # returns once the app's output closes, which is before the process has
            # saved and ended; so the processes themselves are waited for, and whatever
            # is left at the deadline is stopped: no session outlives the server.
            deadline = asyncio.get_running_loop().time() + SHUTDOWN_WAIT
            if self.handlers:
                safe_print(f"frontier serve: ending {len(self.handlers)} session(s)", flush=True)
                for task in self.handlers:
                    task.cancel()
                await asyncio.wait(set(self.handlers), timeout=SHUTDOWN_WAIT)
            if left := await sessions_ended(deadline):
                safe_print(
                    f"frontier serve: {left} session process(es) had not quit after "
                    f"{SHUTDOWN_WAIT:g} s; stopped them",
                    flush=True,
                )

    return FrontierServer
