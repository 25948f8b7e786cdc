"""``frontier doctor``'s look at this machine and workspace: what runs commands, what the
agent's tools need, how the person is called back, where sessions are kept.

Each is something a session only shows when it is too late or in passing: a sandbox
that cannot start (every command is then asked), a tmux that reports no focus (no
call-back ever arrives), an editor that is not there (the review's ``e`` refuses), a
disk nearly full (the store stops writing), a project's MCP server waiting for trust.
The sandbox is not only found but used: a command runs in it, and one tries to write
outside the workspace, which must be refused.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

from frontier.app.config import Config
from frontier.app.doctor.check import Check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from frontier.tools.mcp_settings import ServerState
    from frontier.tools.sandbox import Sandbox

LOW_DISK = 200 * 1024 * 1024
"""Free bytes below which the data dir's disk is a warning (sessions keep streams)."""
PROBE_TIMEOUT = 30.0
"""Seconds a probe command may take (a first sandbox start on a loaded machine)."""
PROBE_NAME = ".frontier-doctor-probe"


def machine_checks(
    config: Config, workspace: Path, mcp_running: Sequence[ServerState] | None = None
) -> Iterator[Check]:
    """Every check of this machine and workspace, in the order they are listed, each as
    it is found (starting the MCP servers takes seconds). ``mcp_running``: the servers a
    session already started (``/doctor``), reported as they are; without it they are
    started here."""
    from frontier.app.doctor.mcp import mcp_checks

    yield from _sandbox_checks(config, workspace)
    yield _program_check("git", "git", "the environment's facts, /diff and git-aware tools")
    yield _program_check(
        "search", "rg", "fast search (without ripgrep, a slower built-in search runs)"
    )
    yield _editor_check()
    yield _callback_check(config)
    yield from _storage_checks()
    yield _instructions_check(config, workspace)
    yield from mcp_checks(config, workspace, mcp_running)
    yield from _after_edit_checks(workspace)


# --------------------------------------------------------------------------- sandbox


def _sandbox_checks(config: Config, workspace: Path) -> list[Check]:
    from frontier.app.agent.runtime import session_sandbox

    if config.sandbox == "off":
        return [
            Check(
                "sandbox",
                "sandbox",
                "warn",
                "off: the model's commands run unconfined, as you",
                "--sandbox workspace-write (the default) confines them to the workspace",
            )
        ]
    notes: list[str] = []
    sandbox = session_sandbox(config, notes, root=workspace)
    try:
        if not sandbox.active:
            return [
                Check(
                    "sandbox",
                    "sandbox",
                    "warn",
                    f"unavailable: {sandbox.unavailable} — every command would be asked first",
                    "install bubblewrap (apt install bubblewrap) and allow unprivileged user "
                    "namespaces; docs/sandbox.md",
                )
            ]
        return _sandbox_used(sandbox, workspace)
    finally:
        sandbox.close()


def _sandbox_used(sandbox: Sandbox, workspace: Path) -> list[Check]:
    """A command run in the sandbox, and one that tries to write outside the workspace."""
    from frontier.tools.process import child_env

    label = sandbox.label
    root = str(workspace.resolve())
    ran = _run(sandbox.wrap(["true"], root, child_env()), root)
    if ran is not None:
        return [
            Check(
                "sandbox",
                "sandbox",
                "fail",
                f"{label}, but a command could not run in it: {ran}",
                "docs/sandbox.md; --sandbox off runs commands unconfined",
            )
        ]
    home = Path.home().resolve()
    if home == Path(root) or Path(root) in home.parents:  # the workspace holds home
        return [Check("sandbox", "sandbox", "ok", f"{label}; a command ran in it")]
    target = home / PROBE_NAME
    script = f"echo probe > {shlex.quote(str(target))}"
    argv, env, made = sandbox.wrap(["sh", "-c", script], root, child_env())
    _run((argv, env, made), root)
    if target.exists():
        target.unlink(missing_ok=True)
        return [
            Check(
                "sandbox",
                "sandbox",
                "fail",
                f"{label}, but a command wrote {target}, outside the workspace",
                "report it: docs/sandbox.md says what the sandbox should refuse",
            )
        ]
    checks = [
        Check(
            "sandbox",
            "sandbox",
            "ok",
            f"{label}; a command ran in it, and its write to {home} was refused",
        )
    ]
    if not sandbox.settings.network:
        checks.append(_network_closed(sandbox, root))
    return checks


def _network_closed(sandbox: Sandbox, root: str) -> Check:
    """With the network off, a command in the sandbox tries to connect to a port this
    process listens on, on this machine's loopback: it must not get there."""
    import socket

    from frontier.app.programs import find_program
    from frontier.tools.process import child_env

    bash = find_program("bash", root)
    if bash is None:
        return Check("sandbox", "network", "skip", "no bash to try a connection with")
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        script = f"exec 3<>/dev/tcp/127.0.0.1/{port}"
        reached = _run(sandbox.wrap([bash, "-c", script], root, child_env()), root) is None
    if reached:
        return Check(
            "sandbox",
            "network",
            "fail",
            f"off, but a command reached 127.0.0.1:{port} on this machine",
            "report it: docs/sandbox.md says what the sandbox should refuse",
        )
    return Check(
        "sandbox",
        "network",
        "ok",
        f"off: a command's connection to this machine (127.0.0.1:{port}) did not get through",
    )


def _run(wrapped: tuple[list[str], dict[str, str], list[str]], root: str) -> str | None:
    """Run a wrapped probe; ``None`` when it exited 0, else why not."""
    from frontier.tools.sandbox import tidy

    argv, env, made = wrapped
    try:
        done = subprocess.run(
            argv,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    finally:
        tidy(made)
    if done.returncode == 0:
        return None
    said = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return f"exit {done.returncode}" + (f": {said[-1][:200]}" if said else "")


# --------------------------------------------------------------------------- programs


def _program_check(name: str, program: str, used_for: str) -> Check:
    from frontier.app.programs import find_program

    found = find_program(program)
    if found is None:
        return Check(
            "tools",
            name,
            "warn",
            f"{program} is not on PATH: used for {used_for}",
            f"install {program}",
        )
    version = _first_line([found, "--version"])
    return Check("tools", name, "ok", f"{version or program} ({found})")


def _editor_check() -> Check:
    from frontier.app.frontends.editor_command import NO_EDITOR, editor_argv

    argv = editor_argv(os.environ)
    if argv is None:
        return Check("terminal", "editor", "warn", NO_EDITOR, "export EDITOR=vim (or nano…)")
    source = next((n for n in ("VISUAL", "EDITOR") if os.environ.get(n, "").strip()), "")
    said = f"{' '.join(argv)}" + (f" (${source})" if source else " (found on PATH)")
    return Check("terminal", "editor", "ok", said + ": the review's e, ctrl+g, /memory")


def _callback_check(config: Config) -> Check:
    from frontier.app.frontends.tui.attention import resolved

    how = resolved(config.notify, os.environ)
    if how == "off":
        return Check("terminal", "call-backs", "ok", "off (notify = off)")
    if how == "tmux":
        focus = _tmux_focus()
        if focus == "off":
            return Check(
                "terminal",
                "call-backs",
                "warn",
                "tmux reports no focus changes (focus-events off): a review waiting or a "
                "turn's end never calls you back from another window",
                "tmux set -g focus-events on (and put it in ~/.tmux.conf)",
            )
        return Check("terminal", "call-backs", "ok", "tmux: the bell, and OSC 9 passed through")
    if how == "osc9":
        return Check(
            "terminal", "call-backs", "ok", "OSC 9 notifications (this terminal shows them)"
        )
    return Check("terminal", "call-backs", "ok", "the terminal bell")


def _tmux_focus() -> str | None:
    tmux = shutil.which("tmux")
    return None if tmux is None else _first_line([tmux, "show-options", "-gv", "focus-events"])


def _first_line(argv: list[str]) -> str | None:
    """The first line a program prints (its version, a setting), or ``None``."""
    try:
        done = subprocess.run(argv, capture_output=True, timeout=PROBE_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else None


# --------------------------------------------------------------------------- storage


def _storage_checks() -> list[Check]:
    from frontier.app.dirs import data_dir
    from frontier.app.session.db import Database, StoreError, existing_store

    folder = data_dir()
    try:
        path = existing_store()
    except StoreError as exc:
        return [Check("storage", "sessions", "fail", str(exc))]
    checks: list[Check] = []
    if path is None:
        checks.append(
            Check("storage", "sessions", "ok", f"none yet: the first is kept in {folder}")
        )
    else:
        try:
            db = Database.open_readonly(path)
            try:
                version = db.read("PRAGMA user_version")[0][0]
                count = db.read("SELECT COUNT(*) FROM sessions")[0][0]
            finally:
                db.close()
        except StoreError as exc:  # a newer Frontier's database says so
            checks.append(Check("storage", "sessions", "fail", str(exc)))
        else:
            size = path.stat().st_size
            said = f"{count} in {path} ({size / 1e6:.1f} MB, schema v{version})"
            checks.append(Check("storage", "sessions", "ok", said))
    existing = folder
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    free = shutil.disk_usage(existing).free
    if free < LOW_DISK:
        checks.append(
            Check(
                "storage",
                "disk",
                "warn",
                f"{free / 1e6:.0f} MB free where sessions are kept",
                "free some space: a full disk stops the session's store (nothing is lost, "
                "the turn stops)",
            )
        )
    else:
        checks.append(Check("storage", "disk", "ok", f"{free / 1e9:.1f} GB free"))
    return checks


# --------------------------------------------------------------------------- the project


def _instructions_check(config: Config, workspace: Path) -> Check:
    from frontier.app.agent.instructions import load_instructions

    if not config.instructions:
        return Check("workspace", "instructions", "ok", "left out (--no-instructions)")
    found = load_instructions(workspace)
    if not found.files:
        return Check(
            "workspace",
            "instructions",
            "ok",
            "none (AGENTS.md, CLAUDE.md or .frontier/instructions.md; /init drafts one)",
        )
    notes = [f.note().removeprefix("project instructions: ") for f in found.files]
    skipped = any(f.status == "skipped" for f in found.files)
    return Check("workspace", "instructions", "warn" if skipped else "ok", "; ".join(notes))


def _after_edit_checks(workspace: Path) -> list[Check]:
    """config.toml's ``[checks.NAME]`` and ``[formatters.NAME]`` and the project's
    (``.frontier/checks.toml``): each one's program found (never run here), the project's
    waiting for trust."""
    from frontier.app.checks_config import load_edit_settings
    from frontier.app.checks_project import PROJECT_FILE, project_checks, taken_keys, waiting
    from frontier.app.config import ConfigError

    try:
        configured = load_edit_settings(only_enabled=False)
    except (ConfigError, OSError) as exc:
        return [Check("workspace", "checks", "fail", str(exc))]
    project, notes = project_checks(workspace)
    taken = taken_keys(workspace, configured)
    listed = [
        *(("check", c) for c in configured[0] if c.enabled),
        *(("formatter", f) for f in configured[1] if f.enabled),
        *(
            (p.noun, p.settings)
            for p in project
            if p.trusted and p.settings.enabled and p.key not in taken
        ),
    ]
    pending = waiting(project, taken)
    found: list[Check] = [Check("workspace", "checks", "warn", note) for note in notes]
    if not listed and not pending and not notes:
        return [Check("workspace", "checks", "ok", "no after-edit checks ([checks.NAME])")]
    for kind, check in listed:
        table = "checks" if kind == "check" else "formatters"
        if not check.applies_to(str(workspace)):
            said = f"not for this workspace (only in {', '.join(check.workspaces)})"
            found.append(Check("workspace", f"{kind} {check.name}", "skip", said))
            continue
        program = _program_of(check.run)
        where = _found(program, workspace) if program else None
        source = PROJECT_FILE if check.project else "config.toml"
        said = f"on {', '.join(check.files) or 'every file'}: {check.run}"
        if check.project:
            said += f" ({PROJECT_FILE}, trusted)"
        if program and where is None:
            found.append(
                Check(
                    "workspace",
                    f"{kind} {check.name}",
                    "warn",
                    f"{said}; {program} is not found on PATH: after each edit the model is "
                    "told it was not found",
                    f"install {program}, or fix run in [{table}.{check.name}] of {source}",
                )
            )
        else:
            found.append(Check("workspace", f"{kind} {check.name}", "ok", said))
    for p in pending:
        changed = " (changed since you trusted it)" if p.state == "changed" else ""
        found.append(
            Check(
                "workspace",
                f"{p.noun} {p.settings.name}",
                "warn",
                f"{PROJECT_FILE} declares it{changed}; it waits for your trust: {p.settings.run}",
                "frontier checks trust (it shows what each runs first)",
            )
        )
    return found


def _program_of(line: str) -> str | None:
    """The program a check's command line starts (after ``NAME=value`` words); ``None``
    when the line is not one plain command to look for (it starts with ``(``, a quote
    the shell would read otherwise…)."""
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    words = [w for w in words if not ("=" in w and w.split("=", 1)[0].isidentifier())]
    if not words or words[0] in _BUILTINS or set(words[0]) & set("(){}$`;|&<>"):
        return None
    return words[0]


_BUILTINS = frozenset({"cd", "command", "exec", "source", ".", "set", "export", "time", "!"})
"""Shell words a check may start with that are no program to look for (``cd web && …``)."""


def _found(program: str, workspace: Path) -> str | None:
    from frontier.app.programs import find_program

    if "/" in program:
        path = program if os.path.isabs(program) else os.path.join(workspace, program)
        return path if os.access(path, os.X_OK) else None
    return find_program(program, workspace) or shutil.which(program)


__all__ = ["machine_checks"]
