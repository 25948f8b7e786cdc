"""``frontier doctor [--no-request] [--json] [--record FILE]`` — what would stop a session here.

Looks at the settings, the endpoint and the model (a session's own client: its key,
``/models``, the window, the protocol ``auto`` picks, one short request and, for a native
protocol, one tool call), then this machine (the sandbox, used; git and ripgrep; the
editor; call-backs; where sessions are kept) and the workspace (instruction files, MCP
servers). Each finding is ✓, ! (works, worse than it could) or ✗ (a session would not
work), with its fix. Exit 1 when any is ✗. Nothing is written: no session is made, the
store is opened read-only, the sandbox's probe writes nothing it keeps.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from frontier.app.doctor.check import Check
from frontier.app.frontends.terminal_text import dumps, safe_print


def main(args: argparse.Namespace) -> int:
    import asyncio

    from frontier.app.cli import AGENT_OPTIONS
    from frontier.app.config import Config, ConfigError, config_path, load_config
    from frontier.app.doctor.endpoint import model_checks
    from frontier.app.doctor.machine import machine_checks
    from frontier.app.doctor.report import WIDE, WIDTH, Report

    report = Report(WIDE if args.every_protocol else WIDTH)
    checks: list[Check] = []

    def seen(check: Check) -> None:
        """Said the moment it is found: a hung server's reply takes minutes."""
        checks.append(check)
        lines = [dumps(check.as_json())] if args.json else report.lines(check)
        for line in lines:
            safe_print(line, flush=True)

    flags = {name: getattr(args, name, None) for name in AGENT_OPTIONS}
    try:
        config = load_config(**flags)
    except ConfigError as exc:
        config, broken = Config(), Check("settings", "config", "fail", str(exc))
    else:
        where = config_path()
        said = f"{where}" if where.exists() else f"none ({where} would be read)"
        broken = Check("settings", "config", "ok", said)
    workspace = Path(config.workspace or ".").resolve()
    if not args.json:
        safe_print(report.head(workspace), flush=True)
    seen(broken)
    if broken.status == "ok":
        record = Path(args.record) if args.record else None
        asked = model_checks(
            config,
            ask=not args.no_request,
            record=record,
            every_protocol=args.every_protocol,
            seen=seen,
        )
        asyncio.run(asked)
    for check in machine_checks(config, workspace):
        seen(check)
    if not args.json:
        safe_print(report.summary(checks))
    return 1 if any(c.status == "fail" for c in checks) else 0
