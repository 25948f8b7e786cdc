"""How MCP servers are described to a person: one vocabulary for ``frontier mcp`` and
``/mcp`` (issue 26), so both say the same words for the same state.

Everything here is display text built from a server's settings or state: a header
value (a token) is never part of it — only header *names* — and every string that came
from a file or a server is made terminal-safe by the caller's sink.
"""

from __future__ import annotations

from collections.abc import Sequence

from frontier.app.mcp_project import ProjectServer
from frontier.tools.mcp_settings import ServerSettings, ServerState

TOOLS_SHOWN = 12
"""Tool names listed per server before ``… and N more``."""


def servers_named(names: Sequence[str]) -> str:
    """``MCP server srv`` or ``MCP servers a, b``: how a note names the servers it is about."""
    return f"MCP server{'s' if len(names) > 1 else ''} {', '.join(names)}"


def what_runs(s: ServerSettings, *, exact: bool = False) -> str:
    """What starting ``s`` runs or reaches: the command line or the URL, and the settings
    that widen what it may do (env names, cwd, sandbox, network, trusted hints).
    ``exact``: the command line as it runs (a project server asking for trust), else
    without the secrets its arguments hold."""
    exactly = exact and s.url is None
    head = f"{s.transport} {s.command_line if exactly else s.target}"  # a URL: no query
    if s.url is not None:
        extra = [f"headers: {', '.join(sorted(s.headers))}"] if s.headers else []
    else:
        extra = []
        if s.cwd:
            extra.append(f"cwd {s.cwd}")
        extra.append("unconfined" if not s.sandbox else "sandboxed")
        if s.network:
            extra.append("network on")
    if s.env:
        extra.append(f"env: {', '.join(sorted(s.env))}")
    if s.trusted:
        extra.append("trusted: read-only hints honoured")
    if s.allow is not None:
        extra.append(f"only {', '.join(s.allow)}")
    if s.deny:
        extra.append(f"never {', '.join(s.deny)}")
    return head + (f" ({'; '.join(extra)})" if extra else "")


def state_lines(states: Sequence[ServerState]) -> list[str]:
    """One block per started server: name, state, tools, log."""
    lines: list[str] = []
    for st in states:
        head = f"{st.name}  {st.transport}  {st.state}"
        if st.why:
            head += f": {st.why}"
        if st.transport == "stdio":
            head += f"  sandbox {st.sandbox}" if st.sandbox else "  unconfined"
        lines.append(head)
        lines.append(f"  {st.target}")
        if st.tools:
            shown = ", ".join(st.tools[:TOOLS_SHOWN])
            more = len(st.tools) - TOOLS_SHOWN
            lines.append(
                f"  tools ({len(st.tools)}): {shown}" + (f" … and {more} more" if more > 0 else "")
            )
        else:
            lines.append("  no tools")
        lines.append(f"  log {st.log}")
        if st.cache is not None:
            lines.append(f"  cache {st.cache} (its launcher's downloads, its own)")
    return lines


def waiting_lines(project: Sequence[ProjectServer], taken: set[str]) -> list[str]:
    """The project servers not started because the person has not trusted them."""
    lines: list[str] = []
    for p in project:
        if p.trusted or p.settings.name in taken:
            continue
        why = "changed since you trusted it" if p.state == "changed" else "not trusted yet"
        lines.append(f"{p.settings.name}  project  {why}")
        lines.append(f"  {what_runs(p.settings, exact=True)}")
    if lines:
        lines.append("trust them for this workspace: frontier mcp trust (it shows each first)")
    return lines
