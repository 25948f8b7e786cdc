"""``frontier doctor``'s MCP servers: each one a session here would start is started as
the session would start it, and said running with its tools, or not started with why
and where its log is.

A server that does not start only shows once a session has begun, as a note among the
first screen's (``MCP server github did not start (…)``), and the session goes on
without its tools: the model is then told nothing of them and the person finds out when
a request needed them. In the TUI the session's own servers are reported as they are
(nothing is started twice). Starting a server runs what the settings name — the same
programs a session here runs, in its sandbox — and writes its log; a ``npx``/``uvx``
launcher may download on a first start (its own cache, ``tools/mcp_launchers.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from frontier.app.config import Config, ConfigError
from frontier.app.doctor.check import Check
from frontier.tools.mcp_settings import ServerSettings, ServerState

TOOLS_NAMED = 4
"""Tools a running server's line names before ``…``."""


def mcp_checks(
    config: Config, workspace: Path, running: Sequence[ServerState] | None = None
) -> Iterator[Check]:
    """What is configured (and waiting for trust), then one check per server a session
    here starts: ``running`` are the states of servers already started (the TUI's
    session); without them the servers are started here and stopped after."""
    from frontier.app.mcp_config import load_mcp_servers
    from frontier.app.mcp_project import project_servers, waiting_note
    from frontier.app.mcp_trial import startable

    try:
        configured = load_mcp_servers()
    except (ConfigError, OSError) as exc:
        yield Check("workspace", "MCP", "fail", str(exc))
        return
    project, notes = project_servers(workspace)
    waiting = [p.settings.name for p in project if not p.trusted]
    disabled = [s.name for s in configured if not s.enabled]
    said = f"{len(configured)} configured" + (f", {len(project)} in the project" if project else "")
    if disabled:
        said += f" ({', '.join(disabled)} disabled)"
    if notes:
        yield Check("workspace", "MCP", "warn", said + "; " + "; ".join(notes))
    elif waiting:
        yield Check(
            "workspace",
            "MCP",
            "warn",
            f"{said}; waiting for your trust: {', '.join(waiting)}",
            "frontier mcp list shows what each would run; frontier mcp trust",
        )
    elif not configured and not project:
        yield Check("workspace", "MCP", "ok", "no servers")
        return
    else:
        yield Check("workspace", "MCP", "ok", said)
    servers, chosen = startable(workspace, configured)
    taken = {c.name for c in configured}
    waiting_said = waiting_note(  # as session_servers words it: said above already
        [p for p in project if p.settings.name not in taken and p.settings.enabled]
    )
    said_already = {*notes, waiting_said}
    for note in chosen:  # a project server config.toml's of the same name stands in for
        if note not in said_already:
            yield Check("workspace", "MCP note", "warn", note)
    later: list[str] = []
    if running is not None:
        states = list(running)
    elif servers:
        states = _started(config, workspace, servers, later)
    else:
        return
    for state in states:
        yield server_check(state, live=running is not None)
    for note in later:  # a tool skipped (its name or schema), a server that would not stop
        yield Check("workspace", "MCP note", "warn", note, "docs/mcp.md")


def _started(
    config: Config, workspace: Path, servers: Sequence[ServerSettings], notes: list[str]
) -> list[ServerState]:
    """Start ``servers`` as a session here would, take their states, stop them; the
    notes the start made (a tool skipped, none started in time) and a server that would
    not stop go to ``notes``."""
    from frontier.app.mcp_trial import trial_host

    with trial_host(workspace, notes.append, config) as host:
        host.start(servers)
        said = set(host.start_notes.values())  # each server's line says so
        notes.extend(n for n in host.notes if n not in said)
        return host.states()


def server_check(state: ServerState, *, live: bool = False) -> Check:
    """One server's line: running with its tools, still starting, or not started.
    ``live``: the state of a session's server (``/doctor``), which may start later."""
    name = f"MCP {state.name}"
    where = f"{state.transport} {state.target}"
    if state.state == "running":
        count = len(state.tools)
        shown = [t.split("__", 1)[-1] for t in state.tools[:TOOLS_NAMED]]
        tools = f"{count} tool{'s' * (count != 1)}" + (
            f" ({', '.join(shown)}{', …' if count > TOOLS_NAMED else ''})" if shown else ""
        )
        box = "" if state.transport != "stdio" else f" in {state.sandbox or 'no sandbox'}"
        if not count:
            return Check(
                "workspace",
                name,
                "warn",
                f"running, but it offers no tools · {state.transport}{box}",
                f"its log: {state.log}; frontier mcp test {state.name} lists what it answers",
            )
        return Check("workspace", name, "ok", f"running · {tools} · {state.transport}{box}")
    if state.state == "starting" and live:
        return Check(
            "workspace", name, "skip", f"still starting · {where}", "/mcp says when it has"
        )
    if state.state == "starting":  # the start as a whole ran out of time: stopped since
        return Check(
            "workspace",
            name,
            "warn",
            f"did not start in time · {where}",
            f"its log: {state.log}; frontier mcp test {state.name} shows each step",
        )
    return Check(
        "workspace",
        name,
        "warn",
        f"did not start: {state.why or 'no reason given'} · {where}",
        f"a session goes on without its tools; its log: {state.log}; "
        f"frontier mcp test {state.name} shows each step",
    )


__all__ = ["mcp_checks", "server_check"]
