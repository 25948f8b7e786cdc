"""Formatters: the person's formatter applied to what a call will write, **before the
review**, so the diff the person approves, the bytes written and the undo all hold the
formatted file.

Claude Code's users run ``prettier --write`` in a ``PostToolUse`` hook: the file is
rewritten after the edit, behind the review's back (the person approved another text) and
past the edit's undo. Here a formatter is config.toml's ``[formatters.NAME]`` (the keys of
``[checks.NAME]``, ``app/checks_config.py``): its ``run`` reads one file's new content on
stdin and prints it formatted (``{file}``: the file's path, quoted, for the formatter's
settings: ``ruff format --stdin-filename {file} -``, ``prettier --stdin-filepath {file}``).

- It runs on every file a mutating call will create or modify whose name its ``files``
  globs match (not a deletion or a move), after the tool prepared the call and before
  the gate, with the workspace read-only in the session's sandbox (unconfined without
  one), stdout and stderr apart. Exit 0 and an output: the file's new content is the
  output, through the review's own path (``review_edit.apply_edits``: the preview's diff,
  the plan's bytes); anything else (a syntax error the formatter refuses, a timeout, an
  output over ``EDIT_MAX_FILE``) leaves the model's version and says why.
- The model is told with the result which files were formatted and the diff from its
  version (so its next edit starts from what is there); the result's meta gains
  ``formatted`` (the paths) and, for a formatter that failed, ``format_failed``.
- A dry run, a call that writes nothing and a file the formatter leaves as it was change
  nothing.
- A file the call modifies that was not formatted before (the formatter's output for the
  file as it was differs from it) is left as the model sent it, unless the formatter
  ``reformat``s: formatting it would rewrite every line, not only the model's (the
  review would hide the change among them). Both versions are formatted at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from frontier.app.record import replace
from frontier.tools.after_edit import CheckSettings, for_files

if TYPE_CHECKING:
    from frontier.tools.base import CancelToken, Prepared
    from frontier.tools.sandbox import Sandbox

PLACEHOLDER = "{file}"
UNFORMATTED = (
    "it was not formatted before this edit, and formatting it would rewrite lines the model "
    "did not change (reformat = true formats such a file whole)"
)
"""Why a formatter left a file as sent: its ``reformat`` is off and the file's content
before the edit is not what it would print."""
ERR_KEEP = 2048
"""Characters of a failed formatter's stderr the model and the person are told (its end)."""


def command_line(formatter: CheckSettings, path: str) -> str:
    """``run`` with ``{file}`` replaced by ``path``, quoted for the shell."""
    return formatter.run.replace(PLACEHOLDER, shlex.quote(path if path[:1] != "-" else f"./{path}"))


class Formatters:
    """The boundary's formatting step (``ToolBoundary.formatters``)."""

    def __init__(self, formatters: Sequence[CheckSettings], root: str, sandbox: Sandbox | None):
        self.formatters = [f for f in formatters if f.enabled]
        self.root = root
        self.sandbox = sandbox
        self.paused = False
        """The person paused them (``/checks off``): calls are written as the model sent them."""

    async def __call__(self, prepared: Prepared, cancel: CancelToken) -> Prepared:
        """``prepared`` with its files formatted (``formatted``, ``formatted_note``) and the
        formatters that could not format one named (``format_failed``)."""
        from frontier.tools.patch_engine import PatchPlan

        plan = prepared.plan
        if self.paused or not self.formatters or not isinstance(plan, PatchPlan):
            return prepared
        if not prepared.needs_approval:  # a dry run
            return prepared
        edits: list[tuple[str, bytes]] = []
        failed: list[str] = []
        left: list[str] = []
        used: dict[str, None] = {}
        by: dict[str, list[CheckSettings]] = {}  # path -> the formatters that changed it
        for change in plan.changes:
            if change.new is None or change.renamed_from or change.renamed_to:
                continue
            data, was = change.new, change.old
            for formatter in self.formatters:
                if not for_files(formatter, [change.path]) or cancel.cancelled:
                    continue
                (out, why), before = await self._both(formatter, change.path, data, was, cancel)
                if before is not None and before != was:
                    left.append(f"{formatter.name} on {change.path}: {UNFORMATTED}")
                    continue  # formatting it would rewrite lines the model did not change
                if before is not None:
                    was = before
                if why is not None:
                    failed.append(f"{formatter.name} on {change.path}: {why}")
                elif out != data:
                    data = out
                    used[formatter.name] = None
                    by.setdefault(change.path, []).append(formatter)
            if data != change.new:
                edits.append((change.path, data))
        verdicts = {"format_failed": tuple(failed), "format_left": tuple(left)}
        if not edits:
            return replace(prepared, **verdicts) if failed or left else prepared
        from frontier.tools.review_edit import EditError, apply_edits

        try:
            new_plan, preview, changed, _review_words = apply_edits(plan, prepared.preview, edits)
        except EditError as exc:  # the plan cannot take the output: the model's version
            return replace(prepared, format_failed=(*failed, str(exc)), format_left=tuple(left))
        mine = {c.path: c.new or b"" for c in plan.changes}
        note = "\n".join(_told(path, mine[path], new, by[path]) for path, new in edits)
        said = f"{preview.summary} · formatted by {', '.join(used)}"  # the review's header
        return replace(
            prepared,
            plan=new_plan,
            preview=replace(preview, summary=said),
            formatted=changed,
            formatted_note=note,
            formatted_by=tuple(used),
            **verdicts,
        )

    async def _both(
        self,
        formatter: CheckSettings,
        path: str,
        data: bytes,
        was: bytes | None,
        cancel: CancelToken,
    ) -> tuple[tuple[bytes, str | None], bytes | None]:
        """The formatter's output for the new content and, unless it ``reformat``s or the
        file is new, for the content before the edit (``None`` when it could not say: a
        file it cannot parse is not taken as unformatted), both at once."""
        if was is None or formatter.reformat:
            return await self.format_file(formatter, path, data, cancel), None
        new, old = await asyncio.gather(
            self.format_file(formatter, path, data, cancel),
            self.format_file(formatter, path, was, cancel),
        )
        return new, old[0] if old[1] is None else None

    async def format_file(
        self, formatter: CheckSettings, path: str, data: bytes, cancel: CancelToken
    ) -> tuple[bytes, str | None]:
        """The formatter's output for ``data`` (``path``'s new content), or why there is
        none (also ``frontier checks test``: a formatter tried by hand)."""
        from frontier.tools.after_edit import read_only_command
        from frontier.tools.patch_engine import EDIT_MAX_FILE
        from frontier.tools.paths import real_root
        from frontier.tools.sandbox import tidy

        root = str(real_root(self.root))
        made: list[str] = []
        try:
            line = command_line(formatter, path)
            argv, env, made, contained = read_only_command(line, root, self.sandbox)
            limit = formatter.timeout
            return await _filter(argv, data, root, env, limit, cancel, EDIT_MAX_FILE, contained)
        except OSError as exc:
            return data, f"could not be started ({exc})"
        finally:
            tidy(made)


async def _filter(
    argv: list[str],
    data: bytes,
    cwd: str,
    env: dict[str, str],
    timeout: float,
    cancel: CancelToken,
    cap: int,
    contained: bool = False,
) -> tuple[bytes, str | None]:
    """Run ``argv`` with ``data`` on stdin: its stdout when it exits 0, else why not.
    Its process group is killed at ``timeout``, on Esc, or past ``cap`` bytes of output."""
    from frontier.tools.process import stop_group

    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdin, stdout, stderr = proc.stdin, proc.stdout, proc.stderr
    out = bytearray()
    err = bytearray()

    async def feed() -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            stdin.write(data)
            await stdin.drain()
        stdin.close()

    async def read_out() -> bool:
        while chunk := await stdout.read(65536):
            out.extend(chunk)
            if len(out) > cap:  # stop it now: it would block writing what is not read
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                # read to the end, dropping it: a pipe left with unread bytes past the
                # reader's limit is paused, never sees its end, and asyncio's wait() for
                # the process waits for its pipes (1 run in 200 hung to the timeout)
                while await stdout.read(65536):
                    pass
                return False
        return True

    async def read_err() -> None:
        while chunk := await stderr.read(65536):
            err.extend(chunk)
            del err[: max(0, len(err) - ERR_KEEP)]

    started = time.monotonic()
    work: asyncio.Future[Any] = asyncio.gather(feed(), read_out(), read_err(), proc.wait())
    stopped: asyncio.Future[Any] = asyncio.ensure_future(cancel.event.wait())
    try:
        done, _ = await asyncio.wait(
            {work, stopped}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
    except asyncio.CancelledError:
        await stop_group(proc, contained)
        raise
    finally:
        stopped.cancel()
    if work not in done:
        await stop_group(proc, contained)
        work.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await work
        if cancel.cancelled:
            return data, "stopped by the person"
        return data, f"timed out after {time.monotonic() - started:.0f} s"
    _, whole, _, code = work.result()
    said = err.decode("utf-8", "replace").strip()
    if not whole:
        await stop_group(proc, contained)
        return data, f"its output was over {cap >> 20} MiB"
    if code != 0:
        return data, f"exit {code}" + (f": {said[-ERR_KEEP:]}" if said else "")
    if not out and data:
        return data, "it printed nothing (does it read stdin and print the result?)"
    return bytes(out), None


def _told(path: str, mine: bytes, theirs: bytes, formatters: Sequence[CheckSettings]) -> str:
    """What the model is told of a file formatted before it was written: whose formatter
    (the person's, or the project's they trusted), which, and its changes to the model's."""
    from frontier.tools.review_edit import diff_from

    whose = "project's" if all(f.project for f in formatters) else "person's"
    names = ", ".join(f.name for f in formatters)
    return (
        f"The {whose} formatter ({names}) rewrote {path} before it was written: the file "
        f"holds the formatted version. Its changes to yours:\n"
        f"{diff_from(path, mine, theirs, 'formatted')}"
    )
