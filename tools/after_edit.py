"""After-edit checks: the person's lint or type check, run on the files a call changed,
its verdict appended to that call's result so the model sees it with the edit.

Aider lints after each edit and hands the errors back; Claude Code's ``PostToolUse`` hooks
and opencode's diagnostics do the same. A model that broke a file learns it from the
result of the edit that broke it, not turns later from a failing test. Here:

- a check is config.toml's ``[checks.NAME]`` (``app/checks_config.py``), or a trusted one of
  the project's ``.frontier/checks.toml`` (``app/checks_project.py``): a command line,
  the globs of the files it is for, a timeout. It runs after every call whose result is
  ``ok`` and names the files it changed (``meta["files"]``: ``edit``, ``write``,
  ``apply_patch``, and the commands made patches, ``rm``, ``sed -i``…), once per check
  whose globs match one of them, with ``{files}`` replaced by those files (quoted for the
  shell, relative to the root). It is the boundary's ``after_hook``: the result the model
  sees and the store keeps is the one with the check's verdict in it, and the call stays
  running (Esc stops the check) until it is over.
- **It runs with the workspace read-only** (in the session's sandbox, whatever its mode):
  a check that rewrote the file (a formatter) would leave it holding what no review showed
  and no undo can put back (the undo of the edit checks the file still holds what the edit
  wrote). Caches go to the sandbox's private ``/tmp`` (:data:`CACHES`). Without a sandbox
  (``--sandbox off``, or none can start) it runs unconfined, and a file it changed is said
  to the model and the person.
- The model is told the verdict, never asked to act on the setting: ``passed``, or the
  exit code and the output (capped at :data:`OUTPUT_CAP`), a timeout, a missing program
  (exit 127: the person's setting, not the model's to fix).
- Nothing else changes: the result's kind stays the edit's (the edit happened); its
  meta gains ``checks`` (name, exit, seconds).
"""

from __future__ import annotations

import shlex
import stat
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from frontier.app.check_text import CHECK_OPENING
from frontier.app.events import Event, ToolCall, ToolOutput, ToolResult
from frontier.app.listing import listing
from frontier.app.record import record, replace

if TYPE_CHECKING:
    from frontier.tools.base import CancelToken
    from frontier.tools.process import ProcessResult
    from frontier.tools.sandbox import Sandbox

MAX_TIMEOUT = 600.0
"""The longest a check may be given (a type check of a large project)."""
OUTPUT_CAP = 8 * 1024
"""Bytes of one check's output the model gets (head and tail kept): a linter's first
errors are the ones to fix; a flood of them is cut, not sent whole after every edit."""
FIRST_MAX = 200
"""Characters of a check's first output line kept in its meta (the person's one line)."""
EXIT_NOT_FOUND = 127
READ_ONLY = "Read-only file system"
"""``EROFS``'s words, as shells, Python and Rust tools print them."""
PLACEHOLDER = "{files}"
CACHES = (
    ("RUFF_CACHE_DIR", "/tmp/.cache/ruff"),
    ("MYPY_CACHE_DIR", "/tmp/.cache/mypy"),
    ("PYTHONDONTWRITEBYTECODE", "1"),
)
"""Where a checker's cache goes inside the sandbox (its private ``/tmp``, kept across the
session's commands) instead of the read-only workspace, unless the environment names one:
ruff refuses to start without a writable cache, mypy crashes."""


@record
class CheckSettings:
    """One ``[checks.NAME]`` (or ``[formatters.NAME]``) of config.toml or of the project's
    ``.frontier/checks.toml``."""

    name: str
    run: str
    """A ``bash -c`` command line; ``{files}`` becomes the matched files, quoted."""
    files: tuple[str, ...] = ()
    """Globs: a pattern with a ``/`` matches the workspace-relative path, one without it
    the file's name (``*.py``); none: every changed file."""
    timeout: float = 60.0
    enabled: bool = True
    workspaces: tuple[str, ...] = ()
    """Absolute folders: the check is for a session whose workspace is one of them or
    inside one (a project's own lint command); none: every workspace."""
    project: bool = False
    """Declared by the workspace's ``.frontier/checks.toml`` (and trusted by the person),
    not by config.toml: said so wherever it is named."""
    reformat: bool = False
    """A formatter's: also format a file that was not formatted before the edit (every
    line of it, not only the model's); by default such a file is left as the model sent
    it (``tools/formatting.py``)."""

    @property
    def whose(self) -> str:
        """Whose setting it is, for the model and the person: ``the person's`` or ``the
        project's``."""
        return "the project's" if self.project else "the person's"

    def applies_to(self, root: str) -> bool:
        """This check runs in a session whose workspace is ``root`` (resolved)."""
        import os

        if not self.workspaces:
            return True
        real = os.path.realpath(root)
        for folder in self.workspaces:
            base = os.path.realpath(folder)
            if real == base or real.startswith(base.rstrip("/") + "/"):
                return True
        return False


@record
class CheckRun:
    """How one check went, as ``meta["checks"]`` keeps it."""

    name: str
    files: tuple[str, ...]
    exit_code: int | None
    """``None``: it did not end on its own (timeout, Esc)."""
    seconds: float
    outcome: str
    """``passed``, ``failed``, ``timeout``, ``cancelled``, ``not_found`` or ``not_run`` (no
    process could be started)."""
    first: str = ""
    """The output's first line that is not blank (a failure's headline for the person)."""

    def as_meta(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "files": list(self.files),
            "exit": self.exit_code,
            "seconds": round(self.seconds, 3),
            "outcome": self.outcome,
            "first": self.first,
        }


def read_only_command(
    line: str, root: str, sandbox: Sandbox | None
) -> tuple[list[str], dict[str, str], list[str], bool]:
    """``bash -c line`` as a check or a formatter runs it: in the session's sandbox with
    every place read-only (caches in its private ``/tmp``, :data:`CACHES`), else unconfined.
    The argv, its environment, the mount points the sandbox made (``sandbox.tidy`` them
    after) and whether it is contained."""
    from frontier.app.programs import find_program
    from frontier.tools.process import child_env

    argv = [find_program("bash", root) or "/bin/sh", "-c", line]
    env = child_env()
    if sandbox is None or not sandbox.active:
        return argv, env, [], False
    for name, value in CACHES:
        env.setdefault(name, value)
    argv, env, made = sandbox.wrap(argv, root, env, read_only=True)
    return argv, env, made, True


def for_files(check: CheckSettings, paths: Sequence[str]) -> list[str]:
    """The paths of ``paths`` that ``check`` is for, in order."""
    if not check.files:
        return list(paths)
    from frontier.tools.globmatch import compile_glob

    globs = [(compile_glob(g), "/" in g) for g in check.files]
    return [
        p for p in paths if any(g.match(p if whole else p.rsplit("/", 1)[-1]) for g, whole in globs)
    ]


def command_line(check: CheckSettings, paths: Sequence[str]) -> str:
    """``check.run`` with ``{files}`` replaced by ``paths``, each quoted for the shell (a
    file named ``$(rm -rf ~).py`` is a name, never a command)."""
    quoted = " ".join(shlex.quote(p if not p.startswith("-") else f"./{p}") for p in paths)
    return check.run.replace(PLACEHOLDER, quoted)


class AfterEditChecks:
    """The boundary's ``after_hook``: runs ``checks`` after each call that changed files."""

    def __init__(
        self,
        checks: Sequence[CheckSettings],
        root: str,
        sandbox: Sandbox | None,
        emit: Callable[[Event], None] | None = None,
    ) -> None:
        self.checks = [c for c in checks if c.enabled]
        self.root = root
        self.sandbox = sandbox
        self.emit = emit
        self.paused = False
        """The person paused them (``/checks off``): edits run none until ``/checks on``."""

    async def __call__(
        self, call: ToolCall, result: ToolResult, cancel: CancelToken
    ) -> ToolResult | None:
        if result.kind != "ok" or not self.checks or self.paused:
            return None
        changed = result.meta.get("files")
        if not isinstance(changed, list) or not changed:
            return None
        present = [p for p in dict.fromkeys(changed) if isinstance(p, str) and self._file(p)]
        runs: list[CheckRun] = []
        said: list[str] = []
        for check in self.checks:
            paths = for_files(check, present)
            if not paths:
                continue
            if cancel.cancelled:
                break
            try:
                run, text = await self._run(check, paths, call.id, cancel)
            except OSError as exc:  # no process could be started (the sandbox's folder, bash)
                run = CheckRun(check.name, tuple(paths), None, 0.0, "not_run", str(exc)[:200])
                text = f"{_head(check, paths)} could not be started ({exc})]"
            runs.append(run)
            said.append(text)
        if not runs:
            return None
        meta = {**result.meta, "checks": [r.as_meta() for r in runs]}
        return replace(
            result, output=result.output.rstrip("\n") + "\n" + "\n".join(said), meta=meta
        )

    def _file(self, path: str) -> bool:
        """``path`` is a regular file beneath the root now (a deleted file is not checked)."""
        import os

        from frontier.tools import beneath
        from frontier.tools.paths import PathError, resolve

        try:
            rel = resolve(self.root, path).rel
            with beneath.parent(self.root, rel, follow_final=False) as found:
                st = os.stat(found.name, dir_fd=found.fd, follow_symlinks=False)
        except (OSError, PathError, ValueError):
            return False
        return stat.S_ISREG(st.st_mode)

    async def _run(
        self, check: CheckSettings, paths: list[str], call_id: str, cancel: CancelToken
    ) -> tuple[CheckRun, str]:
        from frontier.tools.paths import real_root
        from frontier.tools.process import run_process
        from frontier.tools.sandbox import tidy
        from frontier.tools.terminal_output import terminal_text

        root = str(real_root(self.root))
        line = command_line(check, paths)
        argv, env, made, contained = read_only_command(line, root, self.sandbox)
        # unconfined, a check could rewrite the file: looked at before and after
        before = {} if contained else self._digests(paths)
        self._say(call_id, f"── check {check.name}: {line}\n")
        started = time.monotonic()
        try:
            res = await run_process(
                argv,
                cwd=root,
                env=env,
                timeout=check.timeout,
                cancel=cancel,
                on_output=lambda text: self._say(call_id, text),
                contained=contained,
            )
        finally:
            tidy(made)
        seconds = time.monotonic() - started
        shown = terminal_text(res.output)  # a checker's colours and cursor moves: text
        first = next((line.strip() for line in shown.splitlines() if line.strip()), "")
        run = CheckRun(
            check.name, tuple(paths), _exit(res), seconds, _outcome(res), first[:FIRST_MAX]
        )
        text = _verdict(check, paths, shown, run)
        if contained and res.kind == "error" and READ_ONLY in res.output:
            text += (
                "\n[checks run with the workspace read-only: one that writes (a formatter, a "
                "cache in the workspace) cannot; the setting is the person's]"
            )
        rewritten = [p for p, digest in before.items() if self._digests([p])[p] != digest]
        if rewritten:
            text += (
                f"\n[the check changed {', '.join(rewritten)} after the edit (no sandbox kept "
                "it read-only): what the file holds now was not reviewed, and the edit's "
                "undo will refuse]"
            )
        self._say(call_id, f"── {run.outcome}\n")
        return run, text

    def _digests(self, paths: Sequence[str]) -> dict[str, str | None]:
        from frontier.tools.workspace_files import BeneathFiles

        files = BeneathFiles(self.root)
        return {p: files.digest(p) for p in paths}

    def _say(self, call_id: str, text: str) -> None:
        if self.emit is not None:
            self.emit(ToolOutput(call_id=call_id, data=text))


def _exit(res: ProcessResult) -> int | None:
    return res.exit_code if res.kind in ("ok", "error") else None


def _outcome(res: ProcessResult) -> str:
    if res.kind in ("timeout", "cancelled"):
        return res.kind
    if res.exit_code == 0:
        return "passed"
    return "not_found" if res.exit_code == EXIT_NOT_FOUND else "failed"


def _head(check: CheckSettings, paths: Sequence[str]) -> str:
    on = listing(paths, 5)
    return f"{CHECK_OPENING[1:]}{check.name} ({check.whose} after-edit check) on {on}:"


def _verdict(check: CheckSettings, paths: Sequence[str], shown: str, run: CheckRun) -> str:
    """What the model is told of one check (``shown``: its output as text)."""
    from frontier.tools.output_cap import cap_output

    head = _head(check, paths)
    output = cap_output(shown, OUTPUT_CAP).rstrip("\n")
    if run.outcome == "passed":
        return f"{head} passed in {run.seconds:.1f} s]"
    if run.outcome == "timeout":
        return f"{head} timed out after {check.timeout:g} s, stopped]\n{output}".rstrip()
    if run.outcome == "cancelled":
        return f"{head} stopped by the person]"
    if run.outcome == "not_found":
        return (
            f"{head} its command was not found (exit 127); the setting is {check.whose}, "
            f"not yours to fix]\n{output}"
        ).rstrip()
    return f"{head} exit {run.exit_code} in {run.seconds:.1f} s]\n{output}".rstrip()
