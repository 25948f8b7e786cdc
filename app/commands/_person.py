"""The person's review on the command line, for the commands that change a stored
session's files for them (``frontier undo``, ``frontier rewind``): the session picked
(``SESSION`` or ``--last``), the diff shown and
asked about on the terminal, ``--yes`` approving without asking, and with no terminal
the diff shown and declined. Also the call's live output (a writer waiting for a folder
another process has locked) said on stderr as it happens."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from frontier.app.frontends.terminal_text import safe_print, terminal_safe

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from frontier.app.agent.session import AgentSession
    from frontier.app.events import ToolCall
    from frontier.tools.contract import Approver, Decision, Preview, ToolSpec


def stored_session(command: str, args: argparse.Namespace) -> Path | None:
    """The store holding the session ``args`` names (``SESSION`` or ``--last``), with
    ``args.session_id`` set to its whole id; ``None`` (said on stderr) when there is no
    such session or no store."""
    from frontier.app.commands.session_pick import chosen
    from frontier.app.session.db import StoreError, default_path, existing_store

    where = Path(getattr(args, "workspace", None) or ".")
    picked = chosen(command, args.session_id, bool(args.last), where)
    if picked is None:
        return None
    args.session_id = picked
    if args.last:
        args.workspace = None  # --workspace said where to look; the session's own root stands
    try:
        store_path = existing_store()
    except StoreError as exc:
        safe_print(f"frontier {command}: {exc}", file=sys.stderr)
        return None
    if store_path is None:
        safe_print(
            f"frontier {command}: no sessions yet (looked in {default_path()}); "
            "start one with `frontier` or `frontier demo`",
            file=sys.stderr,
        )
    return store_path


def open_offline(command: str, config: object, args: argparse.Namespace) -> AgentSession | None:
    """The session opened without a model (no endpoint contacted, no key resolved), as
    ``frontier resume`` opens it otherwise: its lock, crash recovery first (what it
    reconciled said on stderr), the person's review (``--yes``); ``None`` (said on
    stderr) when it cannot be opened."""
    from frontier.app.agent.runtime import create_runtime
    from frontier.app.config import Config, ConfigError
    from frontier.app.session.store import StoreError

    assert isinstance(config, Config)
    workspace = Path(args.workspace) if getattr(args, "workspace", None) else None
    try:
        session = create_runtime(
            config,
            approver=approver(args.yes),
            session_id=args.session_id,
            workspace=workspace,
            offline=True,
        )
    except (StoreError, ValueError, ConfigError) as exc:
        safe_print(f"frontier {command}: {exc}", file=sys.stderr)
        return None
    session.subscribe(live_output(command))  # a wait for a locked folder is said at once
    for note in session.recovery_notes:  # a refused journal row no call speaks of
        safe_print(f"note {note}", file=sys.stderr)
    from frontier.tools.patch_summary import interrupted_changes

    for result in session.recovered:
        safe_print(
            f"recovered {result.call_id} {result.name} (in flight when its process "
            f"stopped): {result.kind}{interrupted_changes(result.meta)}",
            file=sys.stderr,
        )
    return session


def approver(yes: bool) -> Approver:
    """``--yes``: approved; a terminal: asked there; else shown and declined."""
    from frontier.app.agent.undo import Approve

    if yes:
        return Approve()
    if sys.stdin.isatty():
        from frontier.app.frontends.headless import TerminalApprover

        return TerminalApprover(sys.stdout)
    return ShowAndDecline()


class ShowAndDecline:
    """No terminal to ask on: show what the call would write (escapes shown: the diff is
    the workspace's and the model's text), and decline it."""

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        from frontier.app.frontends.headless import render_preview
        from frontier.tools.contract import Decision

        safe_print(f"── {call.id} would write ──\n{render_preview(preview)}")
        if preview.protected:  # which --yes never applies: reviewed on a terminal only
            rerun = "run it in a terminal to review it (--yes does not write a protected path)"
        else:
            rerun = "rerun with --yes to apply what is shown above"
        return Decision(False, f"there is no terminal to ask on: {rerun}", by="frontier")


def live_output(command: str) -> Callable[[object], None]:
    """An observer saying the call's live output on stderr (its writer waiting for a
    folder another process has locked, and whose pid): the call may wait up to its time
    limit, and a silent wait looks like a hang."""

    def say(event: object) -> None:
        from frontier.app.events import ToolOutput

        if isinstance(event, ToolOutput):
            safe_print(f"frontier {command}: {terminal_safe(event.data.rstrip())}", file=sys.stderr)

    return say
