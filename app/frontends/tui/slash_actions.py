"""What each slash command does in the TUI (issue 23; the vocabulary is ``app/agent/slash.py``).

``LiveController.submit`` hands every line starting with ``/`` to :func:`run_slash`
first. A command is an operation on the session (``AgentSession`` methods, or the
controller's own for undo, export, mode and approval) and never reaches the model —
except a prompt template (``/init``, custom commands), whose expansion is sent as the
user's message and shown in the Transcript as sent. An unknown ``/word`` is refused and
stays in the box; a path-like ``/usr/bin is odd`` is an ordinary message; ``//text``
sends ``/text``. What this module says goes to the Transcript as notes (kept, copyable)
or to a toast when it is only a refusal.
"""

from __future__ import annotations

import asyncio
import shlex
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from frontier.app.agent.session import AgentSession, SessionBusy
from frontier.app.agent.slash import (
    BUILTINS,
    Commands,
    Invocation,
    Message,
    SlashCommand,
    Unknown,
    resolve,
)
from frontier.app.frontends.tui.host import BindingsChanged, FocusPrompt, Quit
from frontier.app.vocab import (
    AGENT_MODES,
    APPROVAL_MEANINGS,
    APPROVALS,
    REASONING_EFFORTS,
    SANDBOXES,
)

if TYPE_CHECKING:
    from textual.screen import Screen

    from frontier.app.checks_project import ProjectCheck
    from frontier.app.frontends.tui.live import LiveController
    from frontier.tools.jobs import JobTail

MODELS_LISTED = 40
"""Catalogue models named by ``/model`` (the rest counted)."""

Action = Callable[["SlashContext", str], bool]


class SlashContext:
    """One submitted command: the controller, its session and the typed text."""

    def __init__(self, controller: LiveController, session: AgentSession, typed: str) -> None:
        self.controller = controller
        self.session = session
        self.typed = typed
        self.app = controller.app

    # ------------------------------------------------------------------ saying things
    def note(self, text: str) -> None:
        self.app.state.note(text)

    def warn(self, text: str) -> bool:
        """A refusal: a toast, the text stays in the box (False)."""
        self.app.notify(text, severity="warning", timeout=6)
        return False

    def idle(self, what: str) -> bool:
        """No turn or undo is running (else say to wait: False)."""
        if self.app.state.turn_running or self.controller._undoing:
            self.warn(f"wait for the turn to end (or press Esc to stop it) before {what}")
            return False
        return True

    def remember(self) -> None:
        """Keep the typed command in ↑ history, as any prompt."""
        self.controller._remember(self.session, self.typed)

    def work(self, job: Coroutine[Any, Any, None], name: str) -> None:
        self.app.run_worker(job, name=name, group="slash", exit_on_error=False)

    def send(self, text: str) -> bool:
        """Send ``text`` as the user's message (queued while a turn runs)."""
        controller = self.controller
        if controller._undoing:
            return self.warn("wait for the undo to finish")
        self.remember()
        if self.app.state.turn_running:
            self.session.queue(text)
            controller._show_queue()
            return True
        self.app.run_worker(controller.send(text), name="turn", group="agent", exit_on_error=False)
        return True


# --------------------------------------------------------------------------- routing


def run_slash(controller: LiveController, session: AgentSession, text: str) -> bool | None:
    """Handle a submitted line starting with ``/``: True when it was taken (the box is
    emptied), False when refused (the text stays), ``None`` when it is an ordinary
    message for the usual path (path-like: ``/usr/bin is odd``)."""
    known = _cached_commands(controller)
    found = resolve(text, known)
    ctx = SlashContext(controller, session, text)
    if isinstance(found, Message):
        return None if found.text == text else ctx.send(found.text)  # `//x` sends `/x`
    if isinstance(found, Unknown):
        # a custom command added since the menu read the folders: look once more
        ctx.work(_late_lookup(ctx, found), "slash-lookup")
        return False
    return _run(ctx, found)


def _run(ctx: SlashContext, found: Invocation) -> bool:
    if found.text is not None:  # a prompt template: its expansion is the message
        return ctx.send(found.text)
    action = ACTIONS.get(found.command.name)
    if action is None:
        return ctx.warn(f"/{found.command.name} does nothing here")
    return action(ctx, found.arguments)


async def _late_lookup(ctx: SlashContext, unknown: Unknown) -> None:
    commands = await _load(ctx)
    found = resolve(ctx.typed, commands.commands)
    if isinstance(found, Invocation) and found.text is not None:
        box = ctx.controller._prompt_box()
        if ctx.send(found.text) and box is not None and box.prompt.text.strip() == ctx.typed:
            box.prompt.clear_prompt()
        return
    ctx.warn(unknown.message)


async def _load(ctx: SlashContext) -> Commands:
    """The session's commands, read off the loop; the menu's list is refreshed too."""
    commands = await asyncio.to_thread(ctx.session.slash_commands)
    box = ctx.controller._prompt_box()
    if box is not None:
        box.prompt.commands = commands.commands
    return commands


def _cached_commands(controller: LiveController) -> tuple[SlashCommand, ...]:
    box = controller._prompt_box()
    return box.prompt.commands if box is not None else BUILTINS


# --------------------------------------------------------------------------- the commands


def _help(ctx: SlashContext, args: str) -> bool:
    from frontier.app.frontends.tui.screens.help import HelpScreen

    async def show() -> None:
        try:
            commands = await _load(ctx)
        except OSError as exc:
            ctx.note(f"custom commands could not be read: {exc}")
            commands = Commands()
        for problem in commands.problems:
            ctx.note(f"custom commands: {problem}")
        ctx.app.push_screen(HelpScreen(commands.commands))

    ctx.work(show(), "slash-help")
    return True


def _model(ctx: SlashContext, args: str) -> bool:
    session = ctx.session
    try:
        words = shlex.split(args)
    except ValueError as exc:
        return ctx.warn(f"/model: {exc}")
    provider: str | None = None
    names: list[str] = []
    it = iter(words)
    for word in it:
        if word == "--provider":
            provider = next(it, "")
        elif word.startswith("--provider="):
            provider = word.split("=", 1)[1]
        else:
            names.append(word)
    if provider == "" or len(names) > 1 or (provider and not names):
        return ctx.warn("usage: /model [NAME] [--provider P]")
    if not names:
        ctx.remember()
        window = session.context_window
        ctx.note(
            f"model {session.model or '—'} · provider {session.provider or '—'} · wire "
            f"{session.wire} · window {f'{window:,} tokens' if window else 'not known yet'}"
        )
        known = session.known_models()
        shown = ", ".join(known[:MODELS_LISTED])
        more = f" … and {len(known) - MODELS_LISTED} more" if len(known) > MODELS_LISTED else ""
        ctx.note(f"the catalogue knows: {shown}{more} — /model NAME [--provider P] switches")

        async def served() -> None:
            names = await session.served_models()
            if names:
                listed = ", ".join(names[:MODELS_LISTED])
                rest = len(names) - MODELS_LISTED
                ctx.note(f"the server lists: {listed}{f' … and {rest} more' if rest > 0 else ''}")

        ctx.work(served(), "slash-model-served")
        return True
    if not ctx.idle("switching model"):
        return False
    ctx.remember()

    async def switch() -> None:
        try:
            switched = await session.switch_model(names[0], provider)
        except (SessionBusy, ValueError) as exc:
            ctx.warn(f"model not switched: {exc}")
            return
        except Exception as exc:  # a store failure: said, never a traceback
            ctx.app.notify(f"model not switched: {exc}", severity="error", timeout=10)
            return
        for note in switched.notes:
            ctx.note(note)
        via = f" via {switched.provider}" if switched.provider else ""
        ctx.note(
            f"model {switched.model}{via} ({switched.wire}) from the next request — recorded, "
            "so `frontier -c` continues with it"
        )
        ctx.app.state.mark("status")

    ctx.work(switch(), "slash-model")
    return True


def _mode(ctx: SlashContext, args: str) -> bool:
    if not args:
        ctx.remember()
        ctx.note(f"mode {ctx.session.mode} · modes: {', '.join(AGENT_MODES)} — /mode NAME switches")
        return True
    if args not in AGENT_MODES:
        return ctx.warn(f"unknown mode {args!r}; choose {', '.join(AGENT_MODES)}")
    if not ctx.idle("switching mode"):
        return False
    ctx.remember()
    ctx.controller.set_mode(args)
    return True


def _effort(ctx: SlashContext, args: str) -> bool:
    if not args:
        ctx.remember()
        ctx.note(
            f"reasoning effort {ctx.session.effort} · {', '.join(REASONING_EFFORTS)} — "
            "/effort LEVEL asks that from the next request (auto: the model's own)"
        )
        return True
    if args not in REASONING_EFFORTS:
        return ctx.warn(f"unknown effort {args!r}; choose {', '.join(REASONING_EFFORTS)}")
    ctx.remember()
    ctx.session.set_effort(args)
    ctx.note(f"reasoning effort {args} from the next request")
    return True


def _approval(ctx: SlashContext, args: str) -> bool:
    if not args:
        ctx.remember()
        current = ctx.session.approval
        ctx.note(f"approval {current}: {APPROVAL_MEANINGS.get(current, '')}")  # type: ignore[call-overload]
        for policy in APPROVALS:
            if policy != current:
                ctx.note(f"  /approval {policy}: {APPROVAL_MEANINGS[policy]}")
        return True
    if args not in APPROVALS:
        return ctx.warn(f"unknown approval policy {args!r}; choose {', '.join(APPROVALS)}")
    ctx.remember()
    ctx.controller.set_approval(args)
    return True


def _sandbox(ctx: SlashContext, args: str) -> bool:
    session = ctx.session
    if args and args not in SANDBOXES:
        return ctx.warn(f"unknown sandbox {args!r}; choose {', '.join(SANDBOXES)}")
    ctx.remember()
    ctx.note(f"sandbox: {session.sandbox_label}")
    if args:
        # the sandbox is built with the session and runs every command: it is not
        # swapped under a running session (docs/slash-commands.md)
        ctx.note(
            f"the sandbox is set when a session starts: quit (ctrl+q) and continue with "
            f"`frontier -c --sandbox {args}`"
        )
    return True


def _mcp(ctx: SlashContext, args: str) -> bool:
    """The session's MCP servers and the project's waiting ones; ``trust`` trusts those
    waiting (shown first, as ``frontier mcp trust``); they start with the next session."""
    from frontier.app.mcp_project import project_servers, trust
    from frontier.app.mcp_status import state_lines, waiting_lines, what_runs

    if args not in ("", "trust"):
        return ctx.warn(f"/mcp takes nothing or `trust`, not {args!r}")
    ctx.remember()
    session = ctx.session
    project, notes = project_servers(session.workspace)
    host = session.mcp
    states = host.states() if host is not None else []
    started = {st.name for st in states}
    if args == "trust":
        waiting = [p for p in project if not p.trusted and p.settings.name not in started]
        if not waiting:
            ctx.note("/mcp trust: no project server is waiting for trust")
            return True
        from frontier.app.mcp_project import PROJECT_FILE

        def trusted() -> None:
            path = trust(session.workspace, waiting)
            for p in waiting:
                ctx.note(f"/mcp trust: {p.settings.name}: {what_runs(p.settings, exact=True)}")
            ctx.note(
                f"/mcp trust: trusted for this workspace in {path}; they start with the next "
                "session (/new)"
            )

        lines = [f"  {p.settings.name}: {what_runs(p.settings, exact=True)}" for p in waiting]
        _ask_trust(ctx, "mcp", "MCP servers", [f"{PROJECT_FILE} asks to start:", *lines], trusted)
        return True
    lines = [*state_lines(states), *waiting_lines(project, started)]
    if not lines:
        lines = ["no MCP servers: [mcp_servers.NAME] in config.toml or .frontier/mcp.toml"]
    ctx.note("\n".join(["/mcp", *lines, *notes, *(host.notes if host is not None else [])]))
    return True


def _status(ctx: SlashContext, args: str) -> bool:
    """The session's facts (Codex's ``/status``): model, wire, policies, context, tokens."""
    from frontier.app.config import config_path
    from frontier.app.frontends.tui.status_lines import status_lines

    if args:
        return ctx.warn("/status takes nothing")
    ctx.remember()
    try:
        report = ctx.session.context_report()
    except ValueError:  # a loop that builds no request: the rest is still worth saying
        report = None
    progress = ctx.app.state.progress
    ctx.note("\n".join(status_lines(ctx.session, progress, report, config=config_path())))
    return True


def _doctor(ctx: SlashContext, args: str) -> bool:
    """``frontier doctor`` from inside: the endpoint and model as this session speaks to
    them now (after a ``/model --provider`` switch, that provider's), then the machine
    and the session's MCP servers as they are."""
    from frontier.app.record import replace

    if args not in ("", "--no-request"):
        return ctx.warn("/doctor takes nothing, or --no-request")
    ctx.remember()
    session, controller = ctx.session, ctx.controller
    asking = "" if args else " (one short request and one tool call to the model)"
    amend = ctx.app.state.growing_note(f"/doctor: checking the setup{asking}…")

    async def check() -> None:
        from frontier.app.doctor.check import Check
        from frontier.app.doctor.endpoint import model_checks
        from frontier.app.doctor.machine import machine_checks
        from frontier.app.doctor.report import report_lines

        found: list[Check] = []

        def seen(check: Check) -> None:  # the report grows as each check is found
            found.append(check)
            amend("\n".join([*report_lines(found, session.workspace)[:-1], "…"]))

        # the endpoint the session speaks to now (a /model --provider switch's), else the
        # settings it started with
        settings = session.settings or ctx.app.config
        config = replace(settings, model=session.model, wire=session.wire)
        if controller.demo:
            seen(Check("model", "model", "skip", "the demo's scripted model"))
        else:
            await model_checks(config, ask=not args, seen=seen)
        # the session's MCP servers as they are; a session without any (the demo, none
        # configured when it began) has the configured ones started and stopped
        host = session.mcp
        running = host.states() if host is not None else None
        machine = machine_checks(config, session.workspace, running)
        while (found_here := await asyncio.to_thread(next, machine, None)) is not None:
            seen(found_here)
        amend("\n".join(report_lines(found, session.workspace)))

    ctx.work(check(), "slash-doctor")
    return True


def _context(ctx: SlashContext, args: str) -> bool:
    """What fills the context window (Claude Code's ``/context``), part by part."""
    from frontier.app.frontends.tui.status_lines import context_lines

    if args:
        return ctx.warn("/context takes nothing")
    try:
        report = ctx.session.context_report()
    except ValueError as exc:
        return ctx.warn(f"/context: {exc}")
    ctx.remember()
    ctx.note("\n".join(context_lines(report)))
    return True


def _compact(ctx: SlashContext, args: str) -> bool:
    if not ctx.idle("compacting"):
        return False
    ctx.remember()
    ctx.note("compacting the context…")

    async def compact() -> None:
        try:
            done = await ctx.session.compact()
        except (SessionBusy, ValueError) as exc:
            ctx.warn(f"not compacted: {exc}")
            return
        except Exception as exc:  # PersistenceFailed and the like: said, not raised
            ctx.app.notify(f"compaction failed: {exc}", severity="error", timeout=10)
            return
        if not done:
            ctx.note("nothing to compact: the conversation is already short")

    ctx.work(compact(), "slash-compact")
    return True


def _clear(ctx: SlashContext, args: str) -> bool:
    if not ctx.idle("clearing the context"):
        return False
    try:
        cleared = ctx.session.clear_context()
    except (SessionBusy, ValueError) as exc:
        return ctx.warn(f"not cleared: {exc}")
    except Exception as exc:  # the store could not record it: nothing was forgotten
        ctx.app.notify(f"not cleared: {exc}", severity="error", timeout=10)
        return False
    ctx.remember()
    ctx.app.state.progress.context_used = None
    ctx.app.state.mark("status")
    ctx.app.state.forget(None)  # dimmed: what the model no longer gets
    ctx.note(
        f"context cleared: the model forgets the {cleared.items} earlier message"
        f"{'s' if cleared.items != 1 else ''} from your next one on; this session, its "
        "record and /undo stay"
    )
    return True


def _new(ctx: SlashContext, args: str) -> bool:
    if not ctx.idle("starting a new session"):
        return False
    ctx.remember()
    controller = ctx.controller

    async def start() -> None:
        old = controller.session
        previous = (controller.session_id, controller.workspace)
        controller.session_id = None  # a new session…
        if old is not None and not controller.demo:
            controller.workspace = old.workspace  # …in the same workspace
        session = await controller._built()
        if session is None:
            controller.session_id, controller.workspace = previous
            controller._send_held(None)
            return
        controller._adopt(session)
        ctx.app.post_message(BindingsChanged())
        controller._send_held(session)
        if old is not None:
            try:
                await old.close()
            except Exception as exc:  # the new one is open; say why the old one was not
                ctx.app.notify(f"closing the previous session failed: {exc}", severity="warning")

    ctx.work(start(), "slash-new")
    return True


def _diff(ctx: SlashContext, args: str) -> bool:
    from frontier.app.frontends.tui.screens.session_diff import SessionDiffScreen

    ctx.remember()
    session = ctx.session

    async def show() -> None:
        try:
            diff = await session.diff()
        except Exception as exc:  # not stored, unreadable store: said
            ctx.warn(f"no diff: {exc}")
            return
        for note in diff.notes:
            ctx.note(f"/diff: {note}")
        if not diff.files:
            ctx.note("/diff: this session has changed no file (or every change is undone)")
            return
        ctx.app.push_screen(SessionDiffScreen(diff, session.session_id))

    ctx.work(show(), "slash-diff")
    return True


def _undo(ctx: SlashContext, args: str) -> bool:
    return ctx.controller._undo_typed(ctx.session, ctx.typed)


def _rewind(ctx: SlashContext, args: str) -> bool:
    """Back to before one of the person's messages: a picker, then the session's rewind
    (the files' undo reviewed like any undo); the message comes back in the box."""
    if args.strip():
        return ctx.warn("/rewind takes nothing: it lists your messages to choose from")
    if not ctx.idle("rewinding"):
        return False
    ctx.remember()
    open_rewind(ctx)
    return True


def open_rewind(ctx: SlashContext) -> None:
    """The rewind picker, then the chosen rewind (``/rewind``, and Esc twice at an idle,
    empty message box)."""
    from frontier.app.frontends.tui.screens.rewind import RewindChoice, RewindScreen

    session, controller, app = ctx.session, ctx.controller, ctx.app

    async def rewind(choice: RewindChoice) -> None:
        controller._undoing = True  # a turn waits, as for an undo: the files are changing
        try:
            outcome = await session.rewind(
                choice.number, files=choice.files, conversation=choice.conversation
            )
        except (SessionBusy, ValueError) as exc:
            ctx.warn(f"not rewound: {exc}")
            return
        except Exception as exc:  # the store could not record it: said, not raised
            app.state.note(f"the rewind failed: {exc!r}", "error")
            app.notify(f"the rewind failed: {exc}", severity="error", timeout=10)
            return
        finally:
            controller._undoing = False
        if outcome.kind == "denied":
            app.notify(outcome.message, timeout=4)
        elif outcome.kind != "rewound":
            ctx.note(f"/rewind: {outcome.message}")
            app.notify(outcome.message, title="rewind", severity="warning", timeout=10)
        else:
            ctx.note(outcome.message)
            box = controller._prompt_box()
            if box is not None and box.prompt.is_empty and outcome.text:
                box.prompt.give_back(outcome.text)
        app.post_message(FocusPrompt())

    def chosen(choice: RewindChoice | None) -> None:
        if choice is not None:
            ctx.work(rewind(choice), "slash-rewind")
        else:
            app.post_message(FocusPrompt())

    async def pick() -> None:
        try:
            points = await session.rewind_points()
        except Exception as exc:  # not stored, unreadable store: said
            ctx.warn(f"no rewind: {exc}")
            return
        if not points:
            ctx.note(
                "/rewind: none of your messages is in the model's conversation (a /clear, a "
                "summary or an earlier rewind took them)"
            )
            return
        app.push_screen(RewindScreen(points), chosen)

    ctx.work(pick(), "slash-rewind")


def _checks(ctx: SlashContext, args: str) -> bool:
    """The after-edit checks and formatters for this workspace, config.toml's and the
    project's (docs/checks.md); ``off`` pauses them for the session, ``on`` runs them
    again, ``trust`` trusts the project's waiting ones (shown first, as ``frontier checks
    trust``) and runs them from the next call on."""
    from frontier.app.checks_config import load_edit_settings
    from frontier.app.checks_project import PROJECT_FILE, project_checks, taken_keys, waiting
    from frontier.app.config import ConfigError

    if args not in ("", "off", "on", "trust"):
        return ctx.warn(f"/checks takes nothing, off, on or trust, not {args!r}")
    session = ctx.session
    try:
        configured = load_edit_settings(only_enabled=False)
    except ConfigError as exc:
        return ctx.warn(f"/checks: {exc}")
    project, notes = project_checks(session.workspace)
    pending = waiting(project, taken_keys(session.workspace, configured))
    if args == "trust":
        return _trust_checks(ctx, pending, notes)
    checks, formatters = session.checks, session.formatters
    if not checks and not formatters and not pending:
        return ctx.warn(
            "no after-edit checks or formatters for this workspace: add [checks.NAME] or "
            f"[formatters.NAME] to config.toml or {PROJECT_FILE} (docs/checks.md)"
        )
    ctx.remember()
    if args:
        session.pause_checks(args == "off")
        said = "paused: calls run none until /checks on" if args == "off" else "on again"
        ctx.note(f"after-edit checks and formatters {said}")
        return True
    state = "paused (/checks on runs them again)" if session.checks_paused else "on (/checks off)"
    lines = [f"after-edit checks and formatters, {state}; each runs with the workspace read-only:"]
    if not checks and not formatters:
        lines = ["no after-edit check or formatter runs here yet:"]
    for kind, listed in (("check", checks), ("formatter", formatters)):
        for one in listed:
            files = ", ".join(one.files) or "every file"
            whose = f" · {PROJECT_FILE}" if one.project else ""
            lines.append(f"  {kind} {one.name} · on {files} · {one.timeout:g} s{whose} · {one.run}")
    for p in pending:
        changed = ", changed since you trusted it" if p.state == "changed" else ""
        lines.append(
            f"  {p.noun} {p.settings.name} · waits for your trust{changed} (/checks trust) · "
            f"{PROJECT_FILE} · {p.settings.run}"
        )
    for line in [*lines, *notes]:
        ctx.note(line)
    return True


def _trust_checks(ctx: SlashContext, pending: list[ProjectCheck], notes: list[str]) -> bool:
    """``/checks trust``: the project's waiting checks and formatters trusted for this
    workspace (what each runs said), then the session's taken afresh."""
    from frontier.app.checks_project import trust

    ctx.remember()
    session = ctx.session
    if not pending:  # trusted elsewhere (`frontier checks trust`) while this one was open?
        before = (session.checks, session.formatters)
        session.reload_checks([])
        taken = [c.name for c in (*session.checks, *session.formatters) if c.project]
        if (session.checks, session.formatters) != before and taken:
            said = ", ".join(taken)
            ctx.note(f"/checks trust: the project's trusted since run from the next call: {said}")
        else:
            ctx.note("/checks trust: no project check or formatter is waiting for trust")
        return True
    from frontier.app.checks_project import PROJECT_FILE, what_runs_lines

    def trusted() -> None:
        path = trust(session.workspace, pending)
        lines = [f"/checks trust: {p.noun} {p.settings.name}: {p.settings.run}" for p in pending]
        reloaded: list[str] = []
        if session.reload_checks(reloaded):  # its notes: the file's, read again
            said, told = "they run from the next call on", reloaded
        else:
            said, told = "they run from the next session (/new)", notes
        lines.append(f"/checks trust: trusted for this workspace in {path}; {said}")
        for line in [*lines, *told]:
            ctx.note(line)

    shown = [f"{PROJECT_FILE} asks to run, after edits, without asking each time:"]
    _ask_trust(ctx, "checks", "checks", [*shown, *what_runs_lines(pending)], trusted)
    return True


def _ask_trust(
    ctx: SlashContext, command: str, what: str, lines: list[str], trusted: Callable[[], None]
) -> None:
    """``/checks trust``, ``/mcp trust``: the project file is the workspace's words (a model
    can write it), so every command it asks to run is shown in a question first; ``y`` calls
    ``trusted``, ``n`` or Esc leaves them waiting."""
    from frontier.app.frontends.tui.screens.trust import TrustScreen

    def answered(yes: bool | None) -> None:
        if yes:
            trusted()
        else:
            ctx.note(f"/{command} trust: not trusted; they keep waiting (/{command} lists them)")

    ctx.app.ask(TrustScreen(f"Trust the project's {what}?", lines), answered)


def _jobs(ctx: SlashContext, args: str) -> bool:
    """The background jobs running (a dev server the model started); ``show ID`` its last
    lines of output (the model's reads untouched); ``stop ID`` or ``stop all`` stops them
    (the model hears it at its next read)."""
    words = args.split()
    if words and (words[0] not in ("stop", "show") or len(words) != 2):
        return ctx.warn(f"/jobs takes nothing, `show ID`, `stop ID` or `stop all`, not {args!r}")
    session = ctx.session
    running = session.running_jobs()
    if not words:
        ctx.remember()
        if not running:
            ctx.note("background jobs: none running")
            return True
        ctx.note(f"background jobs ({len(running)}; /jobs show ID, /jobs stop ID or all):")
        for job in running:
            ctx.note(f"  {job.id} · {job.elapsed:.0f}s · {job.command}")
        return True
    if words[0] == "show":
        tail = session.job_tail(words[1], lines=JOB_PAGER_LINES)
        if tail is None:
            known = ", ".join(j.id for j in running) or "none is running"
            return ctx.warn(f"no background job {words[1]!r} in this session ({known})")
        ctx.remember()
        shown = tail.lines[-JOB_NOTE_LINES:]
        count = len(shown)
        said = f"its last {count} line{'s' if count != 1 else ''}" if count else "no output yet"
        ctx.note(f"job {tail.id} · {tail.state} · {tail.command} · {said}:")
        for line in shown:
            ctx.note(f"  │ {line}")

        def closed(_: None) -> None:
            ctx.app.post_message(FocusPrompt())

        ctx.app.push_screen(_job_pager(session, tail), closed)  # followed while it runs
        return True
    wanted = [j.id for j in running] if words[1] == "all" else [words[1]]
    if words[1] != "all" and words[1] not in {j.id for j in running}:
        known = ", ".join(j.id for j in running) or "none is running"
        return ctx.warn(f"no background job {words[1]!r} running ({known})")
    ctx.remember()

    async def stop() -> None:
        for job_id in wanted:
            if await session.stop_job(job_id):
                ctx.note(f"stopped background job {job_id}")

    ctx.work(stop(), "slash-jobs")
    return True


JOB_NOTE_LINES = 40
"""A job's last lines the Transcript keeps when ``/jobs show`` opens its pager."""
JOB_PAGER_LINES = 100_000
"""Lines the pager asks of a job: all it keeps (its last ``tools.jobs.TAIL`` characters)."""


def _job_pager(session: AgentSession, tail: JobTail) -> Screen[None]:
    """A job's latest output (the person's last 16 KB of it, scrubbed), followed live in
    the pager while the job runs."""
    from frontier.app.frontends.tui.screens.pager import Followed, PagerScreen

    def seen(tail: JobTail) -> Followed:
        running = tail.state.startswith("running")
        subtitle = tail.state + (" · live: End follows the newest output" if running else "")
        return Followed("\n".join(tail.lines), subtitle, running)

    def now() -> Followed | None:
        latest = session.job_tail(tail.id, lines=JOB_PAGER_LINES)
        return seen(latest) if latest is not None else None

    first = seen(tail)
    return PagerScreen(
        f"job {tail.id} · {tail.command}",
        first.text,
        subtitle=first.subtitle,
        follow=now if first.live else None,
    )


def _export(ctx: SlashContext, args: str) -> bool:
    ctx.remember()
    ctx.controller.export()
    return True


def _resume(ctx: SlashContext, args: str) -> bool:
    """The picker (as the palette's "Open session…"), or straight to the session an id
    or a unique prefix names; this one is kept (``frontier resume`` continues it)."""
    if not ctx.idle("opening another session"):
        return False
    ctx.remember()
    controller, wanted = ctx.controller, args.strip()
    if not wanted:
        controller.open_picker(here=ctx.session.workspace)
        return True

    async def find() -> None:
        from frontier.app.session.catalogue import find_session
        from frontier.app.session.db import StoreError

        try:
            found = await asyncio.to_thread(find_session, wanted)
        except StoreError as exc:
            ctx.app.notify(f"{exc}", title="resume", severity="error", timeout=10)
            return
        controller.open_chosen(found.id)

    ctx.work(find(), "slash-resume")
    return True


def _memory(ctx: SlashContext, args: str) -> bool:
    """The project's instruction file (``AGENTS.md``, or the ``CLAUDE.md`` /
    ``.frontier/instructions.md`` already there) in the person's editor, as Claude Code's
    ``/memory``; saved, it is read again into the system prompt of the next request."""
    from frontier.app.agent.instructions import file_to_edit

    if not ctx.idle("editing the project's instructions"):
        return False
    session = ctx.session
    try:
        path = file_to_edit(session.workspace)
    except ValueError as exc:
        return ctx.warn(f"/memory: {exc}")
    ctx.remember()

    async def edit() -> None:
        from frontier.app.agent.instructions import read_for_edit, save_edited
        from frontier.app.frontends.editor_command import edited

        name = path.relative_to(session.workspace).as_posix()
        try:
            before = await asyncio.to_thread(read_for_edit, path)
        except OSError as exc:
            ctx.warn(f"/memory: {name} cannot be read: {exc.strerror or exc}")
            return
        data, refused = await edited(before, path.name, ctx.app.open_editor)
        if data is None:
            ctx.warn(f"/memory: {refused}: {name} is as it was")
            return
        if data == before:
            ctx.note(f"{name} unchanged")
            return
        try:
            await asyncio.to_thread(save_edited, session.workspace, path, data)
        except (OSError, ValueError) as exc:
            ctx.warn(f"/memory: {exc}")
            return
        project = await asyncio.to_thread(session.reload_instructions)
        if project is None:
            ctx.note(f"{name} saved: the model reads it when a session starts")
            return
        ctx.note(f"{name} saved: the model reads it from the next request")
        for note in project.notes():
            ctx.note(note)

    ctx.work(edit(), "slash-memory")
    return True


def _exit(ctx: SlashContext, args: str) -> bool:
    ctx.app.post_message(Quit())
    return True


ACTIONS: dict[str, Action] = {
    "help": _help,
    "model": _model,
    "mode": _mode,
    "effort": _effort,
    "approval": _approval,
    "sandbox": _sandbox,
    "mcp": _mcp,
    "status": _status,
    "context": _context,
    "doctor": _doctor,
    "compact": _compact,
    "clear": _clear,
    "new": _new,
    "memory": _memory,
    "resume": _resume,
    "diff": _diff,
    "undo": _undo,
    "rewind": _rewind,
    "jobs": _jobs,
    "checks": _checks,
    "export": _export,
    "exit": _exit,
}
"""Every built-in operation (``/init`` is a template: it is sent)."""
assert set(ACTIONS) == {c.name for c in BUILTINS if not c.is_template}


__all__ = ["ACTIONS", "SlashContext", "open_rewind", "run_slash"]
