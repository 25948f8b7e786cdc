"""The settings of one MCP server and what is shown of it (issue 26): the data half of
``tools/mcp_servers.py``, apart so that reading config (``app/mcp_config.py``, the project
file, ``frontier mcp trust``) does not load the host, its event loop and the SDK glue.

A header value (a token) is never part of a repr, a note or a shown target: only header
*names*, and a URL without its query string, fragment or credentials; nor is a secret a
command line holds as written (``args = ["--api-key", "sk-…"]``): a doctor's report is
what gets pasted into an issue.

A ``${NAME}`` in a header is validated as an API key is (``app/config.valid_key``): a
token pasted with a trailing newline or a zero-width space (U+200B) had it sent as is,
and one with a non-ASCII character failed deep in httpx with a bare ``UnicodeEncodeError``.
Invisible characters at the ends and format characters are dropped; anything else a
header cannot carry is refused naming the server, the header, the variable and the
position — never the value.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from frontier.app.config import ENV_REF, ConfigError, valid_key
from frontier.app.record import field, record
from frontier.app.secret_shapes import REDACTED, hidden_argv, key_shaped

Transport = Literal["stdio", "http"]


class HeaderError(ValueError):
    """A header cannot be made (a missing variable): the message names the header and the
    variable, never a value."""


@record
class ServerSettings:
    """One ``[mcp_servers.NAME]`` table, validated (``app/mcp_config.py``): exactly one of
    ``command`` (stdio) and ``url`` (streamable HTTP)."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = field(default=(), repr=False)
    """Out of the repr (``--api-key sk-…``): :attr:`target` shows them, secrets hidden."""
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Set for the server as given: the only way a withheld (secret-named) variable
    reaches it (kept out of the repr: it may hold a token)."""
    cwd: str | None = None
    enabled: bool = True
    startup_timeout: float = 10.0
    tool_timeout: float = 60.0
    allow: tuple[str, ...] | None = None
    """Only these tools (``None``: all)."""
    deny: tuple[str, ...] = ()
    url: str | None = field(default=None, repr=False)
    """Out of the repr (its query string may hold a token): :attr:`target` shows it."""
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Sent with every HTTP request; ``${NAME}`` in a value is Frontier's variable."""
    trusted: bool = False
    """The person vouches for the server: its ``readOnlyHint`` makes a tool a read."""
    sandbox: bool = True
    """A local server runs inside the session's sandbox, when there is one."""
    network: bool = False
    """A sandboxed local server gets the network."""
    required: bool = False
    """A session's first request waits for this server's whole start (others: a short
    grace, then the request goes without the tools of those still starting)."""

    @property
    def transport(self) -> Transport:
        return "http" if self.url is not None else "stdio"

    @property
    def command_line(self) -> str:
        """A local server's command line exactly as it runs, secrets and all: what a
        project's server is shown as before the person trusts it (nothing of what would
        run may be hidden there; the text is the workspace's own)."""
        return shlex.join([self.command or "", *self.args])

    @property
    def target(self) -> str:
        """What a person is shown: the command line without the secrets its arguments
        hold (``--api-key sk-…``: :func:`hidden_argv`), or the URL without its query
        string, fragment or credentials (a token may hide there); never a header."""
        if self.url is None:
            return shlex.join([self.command or "", *hidden_argv(self.args)])
        return public_url(self.url)


TOKEN_SEGMENT_LEN = 24
"""A path segment this long of letters and digits mixed is taken for a token (a
capability URL's secret: ``/api/mcp/s/<token>/mcp``), not a name."""


def public_url(url: str) -> str:
    """``url`` as it may be shown: scheme, host, port and path — without the path's
    ``;parameters`` and with a segment that looks like a key or a token ``[REDACTED]``
    (a service that puts the secret in the path: its URL is the credential)."""
    try:
        parts = urlsplit(url)
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return "<unparsable URL>"
    path = "/".join(_shown_segment(seg.split(";", 1)[0]) for seg in parts.path.split("/"))
    return f"{parts.scheme}://{parts.hostname or ''}{port}{path}"


def _shown_segment(segment: str) -> str:
    if key_shaped(segment):
        return REDACTED
    if len(segment) >= TOKEN_SEGMENT_LEN and "." not in segment:
        letters = sum(c.isalpha() for c in segment)
        digits = sum(c.isdigit() for c in segment)
        if letters and digits and letters + digits >= 0.8 * len(segment):
            return REDACTED
    return segment


def _expanded(
    raw: str,
    environ: Mapping[str, str],
    entry: str,
    check: Callable[[str, str], str] | None = None,
) -> str:
    """``raw`` with each ``${NAME}`` replaced from ``environ`` (``check(name, value)`` vets a
    value); a name that is not set is a :class:`HeaderError` naming ``entry`` and the
    variable, never a value."""

    def value_of(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise HeaderError(
                f"{entry} names ${{{name}}}, which is not set in Frontier's environment"
            )
        value = environ[name]
        return value if check is None else check(name, value)

    return ENV_REF.sub(value_of, raw)


def expand_env(
    env: Mapping[str, str], environ: Mapping[str, str], *, server: str | None = None
) -> dict[str, str]:
    """A stdio server's ``env`` with every ``${NAME}`` replaced from ``environ``: a
    variable Frontier withholds from tools (``GITHUB_TOKEN``) reaches that one server
    without its value being written into config.toml. A variable that is not set is a
    :class:`HeaderError` naming the server, the entry and the variable, never a value."""
    where = f"MCP server {server}: " if server else ""
    return {key: _expanded(raw, environ, f"{where}env {key}") for key, raw in env.items()}


def expand_headers(
    headers: Mapping[str, str], environ: Mapping[str, str], *, server: str | None = None
) -> dict[str, str]:
    """The headers with every ``${NAME}`` replaced from ``environ``, each variable's value
    made a token as an API key is (:func:`valid_key`); a variable that is not set or not a
    token, or a value a header cannot carry, is a :class:`HeaderError` naming ``server``,
    the header and the variable, never a value."""
    where = f"MCP server {server}: " if server else ""
    out: dict[str, str] = {}
    for key, raw in headers.items():

        def token(name: str, value: str, key: str = key) -> str:
            if any(ch in value.strip() for ch in "\r\n\0"):
                raise HeaderError(
                    f"{where}header {key}: ${{{name}}} has a line break or NUL in its value"
                )
            try:
                return valid_key(value, f"${{{name}}}")
            except ConfigError as exc:
                raise HeaderError(
                    f"{where}header {key}: {exc} (fixed text such as `Bearer ` goes in the "
                    f"header's value around ${{{name}}})"
                ) from None

        value = _expanded(raw, environ, f"{where}header {key}", token)
        if any(ch in value for ch in "\r\n\0"):
            raise HeaderError(f"{where}header {key} has a line break or NUL in its value")
        for at, char in enumerate(value):
            if not (" " <= char <= "~" or char == "\t"):
                raise HeaderError(
                    f"{where}header {key} holds U+{ord(char):04X} at position {at + 1} of "
                    f"{len(value)}; a header value is printable ASCII: write it without that "
                    "character"
                )
        out[key] = value
    return out


@record
class ServerState:
    """One server as ``frontier mcp list`` and ``/mcp`` show it."""

    name: str
    transport: Transport
    target: str
    state: Literal["running", "starting", "dead"]
    why: str | None
    tools: tuple[str, ...]
    """Full ``NAME__tool`` names offered to the model."""
    log: Path
    sandbox: str | None = None
    """The boundary a local server runs in (``workspace-write · net off``), ``None``:
    unconfined (or remote)."""
    cache: Path | None = None
    """The cache of its own a server started by ``npx``, ``uvx``… writes in its sandbox
    (``tools/mcp_launchers.py``): where its downloads went, for the person to see or free."""
