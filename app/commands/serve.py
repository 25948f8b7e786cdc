"""``frontier serve``: the TUI in a browser, through textual-serve.

textual-serve runs a small aiohttp server; every browser connection to its web socket
starts the served command as a new process with Textual's web driver (the browser's
xterm.js is its terminal) and ends it when the page closes. So each page load is a new
session, and for the demo a new scratch workspace under the data dir.

Whoever can open the page drives an agent that runs shell commands in the workspace.
So the server binds 127.0.0.1 unless ``--host`` says otherwise (and then warns), the
web socket refuses a page of another origin (any site open in the same browser could
otherwise connect to a local port and press the keys), and ``--max-sessions`` bounds the
processes one server starts.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import ipaddress
import logging
import re
import shlex
import socket
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

DEFAULT_HOST = "127.0.0.1"
SHUTDOWN_WAIT = 10.0
"""Seconds Ctrl+C waits for the open sessions to quit (each saves its session)."""
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})

TUI_COMMANDS = (None, "demo", "replay", "resume")
"""The frontier commands that open the TUI: the only ones a browser can show."""

MISSING = (
    "frontier serve: textual-serve is not installed; it serves the TUI in a browser. "
    "Install it with: pip install 'frontier-agent[serve]' (or pip install textual-serve)"
)


def main(args: argparse.Namespace) -> int:
    served = list(args.served) or ["demo"]
    if (problem := _served_problem(served)) is not None:
        print(f"frontier serve: {problem}", file=sys.stderr)
        return 2
    if args.max_sessions < 1:
        print("frontier serve: --max-sessions must be at least 1", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(f"frontier serve: --port {args.port} is not a port (0-65535)", file=sys.stderr)
        return 2
    try:
        from textual_serve.server import Server
    except ImportError:
        print(MISSING, file=sys.stderr)
        return 2

    host = args.host or DEFAULT_HOST
    try:
        port = _claim_port(host, args.port)
    except OSError as exc:
        print(f"frontier serve: {_bind_problem(host, args.port, exc)}", file=sys.stderr)
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
        title="Frontier · " + shlex.join(["frontier", *served]),
        public_url=public_url.rstrip("/"),
        templates_path=offline_templates(Path(templates.name)),
    )
    server.frontier_setup(
        served=served,
        loopback=_is_loopback(host),
        max_sessions=args.max_sessions,
    )
    if not _is_loopback(host):
        print(_exposed_warning(host, port), file=sys.stderr, flush=True)
    try:
        server.serve()
    except OSError as exc:  # lost the port between the check and the bind
        print(f"frontier serve: {_bind_problem(host, port, exc)}", file=sys.stderr)
        return 2
    finally:
        templates.cleanup()
    print("frontier serve: stopped", flush=True)
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
        (dest / template.name).write_text(OUTSIDE_FONT.sub("", text), encoding="utf-8")
    return dest


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


def origin_allowed(
    origin: str | None, host_header: str | None, *, loopback: bool, public_url: str
) -> bool:
    """May a web socket from this page drive a session?

    Browsers send ``Origin`` with every web socket handshake, and a page of any site may
    open one to a local port, so: the page must come from this server (its host as the
    request names it, or the public URL). Bound to loopback, both names must be loopback
    ones too, which also turns away a DNS-rebound name. No ``Origin`` is no browser
    (a local program, which could start frontier itself)."""
    if origin is None:
        return True
    page = urlsplit(origin)
    if page.scheme not in ("http", "https") or not page.hostname:
        return False
    if loopback:
        asked = urlsplit(f"//{host_header or ''}").hostname or ""
        return _is_loopback(page.hostname) and _is_loopback(asked)
    public = urlsplit(public_url)
    return page.netloc == (host_header or "") or (
        page.scheme == public.scheme and page.netloc == public.netloc
    )


def _server_class(base: type) -> type:
    """textual-serve's Server with Frontier's banner, an origin check and a session bound."""
    from aiohttp import web

    class FrontierServer(base):  # type: ignore[misc, valid-type]
        def frontier_setup(
            self, *, served: Sequence[str], loopback: bool, max_sessions: int
        ) -> None:
            self.served = list(served)
            self.loopback = loopback
            self.max_sessions = max_sessions
            self.handlers: set[asyncio.Task[object]] = set()

        def initialize_logging(self) -> None:
            super().initialize_logging()
            # textual-serve's own warnings and errors, not a line for every request.
            logging.getLogger("aiohttp.access").setLevel(logging.WARNING)

        async def on_startup(self, app: web.Application) -> None:
            # In place of textual-serve's logo and its "Serving '<long command>'" line.
            print(
                f"Frontier in a browser: {self.public_url}/\n"
                f"  serving `{shlex.join(['frontier', *self.served])}`; each page load "
                f"starts a new session (at most {self.max_sessions} at once)\n"
                "  Ctrl+C stops the server and every session",
                flush=True,
            )

        async def handle_websocket(self, request: web.Request) -> web.StreamResponse:
            origin = request.headers.get("Origin")
            if not origin_allowed(
                origin, request.host, loopback=self.loopback, public_url=self.public_url
            ):
                print(
                    f"frontier serve: refused a page from {origin!r} (not this server)",
                    flush=True,
                )
                raise web.HTTPForbidden(text="frontier serve: this page is not from this server")
            if len(self.handlers) >= self.max_sessions:
                print(
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
            # instead: textual-serve's handler sends the app "quit" when cancelled and
            # waits for the process, so every session is saved and no process outlives us.
            if not self.handlers:
                return
            print(f"frontier serve: ending {len(self.handlers)} session(s)", flush=True)
            for task in self.handlers:
                task.cancel()
            await asyncio.wait(set(self.handlers), timeout=SHUTDOWN_WAIT)

    return FrontierServer
