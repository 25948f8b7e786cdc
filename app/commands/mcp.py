"""``frontier mcp list | test NAME | trust [NAME…] | allow TOOL`` (issue 26).

``list`` starts every server a session in this workspace would start (config.toml's,
and the project's trusted ones), prints each with its state and tools, and stops them;
project servers not trusted are listed without being started. ``test NAME`` starts one,
lists its tools and pings it, with the time each step took. ``trust`` shows what each
project server runs and asks before remembering it (``--yes`` for scripts; without a
terminal it refuses rather than trusting silently). ``allow`` remembers an "always
allow" rule for an MCP tool or a whole server (``srv__*``) in this workspace.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

from frontier.app.commands._trust_answer import refused
from frontier.app.config import (
    ConfigError,
    load_approvals,
    save_approvals,
)
from frontier.app.frontends.terminal_text import dumps, safe_print
from frontier.app.mcp_config import load_mcp_servers
from frontier.app.mcp_project import PROJECT_FILE, forget, project_servers, trust
from frontier.app.mcp_status import state_lines, waiting_lines, what_runs
from frontier.app.mcp_trial import startable, trial_host
from frontier.tools.approval_rules import RuleError, tool_rule
from frontier.tools.base import ToolError
from frontier.tools.mcp_servers import McpHost
from frontier.tools.mcp_settings import ServerSettings


def main(args: argparse.Namespace) -> int:
    root = Path(args.workspace or ".").resolve()
    try:
        configured = load_mcp_servers()
        action = args.mcp_command
        if action == "list":
            return _list(root, configured, as_json=args.json)
        if action == "test":
            return _test(root, configured, args.name)
        if action == "trust":
            return _trust(root, args.names, yes=args.yes, withdraw=args.forget)
        if action == "allow":
            return _allow(root, args.tool, withdraw=args.forget)
    except ConfigError as exc:
        safe_print(f"frontier mcp: {exc}", file=sys.stderr)
        return 2
    safe_print("frontier mcp: choose list, test, trust or allow (frontier mcp --help)")
    return 2


def _host(root: Path) -> contextlib.AbstractContextManager[McpHost]:
    def said(problem: str) -> None:  # said, not a traceback: the command's answer stands
        safe_print(f"frontier mcp: {problem}", file=sys.stderr)

    return trial_host(root, said)


def _list(root: Path, configured: list[ServerSettings], *, as_json: bool) -> int:
    servers, notes = startable(root, configured)
    project, _ = project_servers(root)
    taken = {s.name for s in configured}
    with _host(root) as host:
        host.start(servers)
        states = host.states()
    disabled = [s for s in configured if not s.enabled]
    if as_json:
        safe_print(
            dumps(
                {
                    "servers": [
                        {
                            "name": st.name,
                            "transport": st.transport,
                            "target": st.target,
                            "state": st.state,
                            "why": st.why,
                            "tools": list(st.tools),
                            "log": str(st.log),
                            "cache": str(st.cache) if st.cache is not None else None,
                        }
                        for st in states
                    ],
                    "disabled": [s.name for s in disabled],
                    "untrusted": [
                        p.settings.name
                        for p in project
                        if not p.trusted and p.settings.name not in taken
                    ],
                    "notes": notes + host.notes,
                },
                indent=2,
            )
        )
        return 0
    if not states and not project and not disabled:
        safe_print(
            f"no MCP servers: declare them as [mcp_servers.NAME] in config.toml or in "
            f"{PROJECT_FILE} (docs/mcp.md)"
        )
        return 0
    for line in state_lines(states):
        safe_print(line)
    for s in disabled:
        safe_print(f"{s.name}  disabled (enabled = false)")
    for line in waiting_lines(project, taken):
        safe_print(line)
    for note in notes + host.notes:
        if "declares MCP servers not started" not in note:  # said by waiting_lines
            safe_print(f"note: {note}")
    return 0


def _test(root: Path, configured: list[ServerSettings], name: str) -> int:
    servers, _ = startable(root, configured)
    chosen = [s for s in servers if s.name == name]
    if not chosen:
        project, _ = project_servers(root)
        if any(p.settings.name == name for p in project):
            safe_print(
                f"frontier mcp test: {name} is a project server not trusted for this workspace; "
                f"`frontier mcp trust {name}` first (it shows what it runs)",
                file=sys.stderr,
            )
        else:
            known = ", ".join(s.name for s in configured) or "none"
            safe_print(
                f"frontier mcp test: no enabled server {name!r} (known: {known})", file=sys.stderr
            )
        return 2
    settings = chosen[0]
    safe_print(f"{name}: {what_runs(settings)}")
    with _host(root) as host:
        began = time.perf_counter()
        tools = host.start(chosen)
        started = time.perf_counter() - began
        states = host.states()
        if not states or states[0].state != "running":
            why = states[0].why if states else "no answer in time"
            safe_print(f"{name}: did not start ({why}) after {started:.2f} s; log {host.log_dir}")
            for note in host.notes:
                safe_print(f"note: {note}")
            return 1
        safe_print(f"{name}: started, initialized and listed {len(tools)} tools in {started:.2f} s")
        for tool in tools:
            safe_print(f"  {tool.spec.name}: {tool.spec.description[:100]}")
        for note in host.notes:
            safe_print(f"note: {note}")
        try:
            took = host.ping(name, settings.startup_timeout)
        except ToolError as exc:  # the server's failure is the test's answer: said, exit 1
            safe_print(f"{name}: ping failed ({exc}); log {states[0].log}")
            return 1
        safe_print(f"{name}: ping answered in {1000 * took:.1f} ms")
        return 0


def _trust(root: Path, names: list[str], *, yes: bool, withdraw: bool) -> int:
    project, notes = project_servers(root)
    for note in notes:
        safe_print(f"note: {note}")
    if withdraw:
        if not names:
            safe_print("frontier mcp trust --forget: name the servers", file=sys.stderr)
            return 2
        path = forget(root, names)
        safe_print(f"no longer trusted here: {', '.join(names)} ({path})")
        return 0
    if not project:
        safe_print(f"{PROJECT_FILE} declares no MCP servers in {root}")
        return 0
    unknown = [n for n in names if n not in {p.settings.name for p in project}]
    if unknown:
        safe_print(
            f"frontier mcp trust: not in {PROJECT_FILE}: {', '.join(unknown)}", file=sys.stderr
        )
        return 2
    wanted = [p for p in project if (p.settings.name in names if names else not p.trusted)]
    if not wanted:
        safe_print("every server of the project file is trusted already")
        return 0
    safe_print(f"{PROJECT_FILE} in {root} asks to start:")
    for p in wanted:
        safe_print(f"  {p.settings.name}: {what_runs(p.settings, exact=True)}")
    status = refused("mcp trust", "trust these servers for this workspace?", yes=yes)
    if status is not None:
        return status
    path = trust(root, wanted)
    safe_print(
        f"trusted in {path}: {', '.join(p.settings.name for p in wanted)} (they start with the "
        "next session; a change to what they run asks again)"
    )
    return 0


def _allow(root: Path, name: str, *, withdraw: bool) -> int:
    try:
        rule = tool_rule(name)
    except RuleError as exc:
        safe_print(f"frontier mcp allow: {exc}", file=sys.stderr)
        return 2
    data, notes = load_approvals(root)
    for note in notes:
        safe_print(f"note: {note}")
    listed = data.get("mcp_tools", [])
    names = [n for n in listed if isinstance(n, str)] if isinstance(listed, list) else []
    if withdraw:
        if rule.name not in names:
            safe_print(f"{rule.describe()} was not always allowed here")
            return 0
        path = save_approvals(root, {"mcp_tools": [n for n in names if n != rule.name]})
        safe_print(f"no longer always allowed: {rule.describe()} ({path})")
        return 0
    path = save_approvals(root, {"mcp_tools": [*(n for n in names if n != rule.name), rule.name]})
    safe_print(f"always allowed in {root}: {rule.describe()} ({path})")
    return 0
