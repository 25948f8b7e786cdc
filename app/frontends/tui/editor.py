"""The person's own editor, opened on a file while the TUI steps aside (the review's
``e``: ``tools/review_edit.py``).

``$VISUAL``, else ``$EDITOR`` (split as a shell would: ``code --wait``), else the first of
``nano``, ``vim``, ``vi`` on ``PATH``. Textual hands the terminal over (``App.suspend``:
input stops, the alternate screen is left) and takes it back after. The editor runs on a
thread, so the session's loop keeps reading the model's stream meanwhile; what the
screen would draw then is dropped and it is drawn whole on return.
"""

from __future__ import annotations

import asyncio
import shlex
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

FALLBACKS = ("nano", "vim", "vi")


def editor_argv(env: Mapping[str, str]) -> list[str] | None:
    """The command that opens the editor (the file's path goes last), or ``None``."""
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            try:
                argv = shlex.split(value)
            except ValueError:
                argv = value.split()
            if argv:
                return argv
    for program in FALLBACKS:
        found = shutil.which(program)
        if found:
            return [found]
    return None


async def edit_in_editor(app: App[Any], path: Path, env: Mapping[str, str]) -> str | None:
    """Open ``path`` in the person's editor until it exits; ``None`` when it ended well,
    else why not (no editor, no terminal to hand over, it failed)."""
    argv = editor_argv(env)
    if argv is None:
        return "no editor: set VISUAL or EDITOR (nano, vim and vi are not on PATH)"
    try:
        with app.suspend():
            done = await asyncio.to_thread(subprocess.run, [*argv, str(path)], check=False)
    except SuspendNotSupported:
        return "this terminal cannot be handed to an editor (a browser, or no terminal)"
    except OSError as exc:
        return (
            f"the editor {argv[0]!r} could not start: {exc.strerror or exc} (set VISUAL or EDITOR)"
        )
    finally:
        app.refresh(layout=True)
    if done.returncode != 0:
        return f"the editor exited with status {done.returncode}"
    return None
