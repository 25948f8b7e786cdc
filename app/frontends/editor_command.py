"""Which editor is the person's: ``$VISUAL``, else ``$EDITOR`` (split as a shell would:
``code --wait``), else the first of ``nano``, ``vim``, ``vi`` on ``PATH``.

One home for the TUI (the review's ``e``, ctrl+g: ``tui/editor.py``) and the terminal
prompt of ``frontier run`` (``headless.TerminalApprover``), and for handing a private copy
of the text to it and taking back what was saved (:func:`edited`); no Textual here.
"""

from __future__ import annotations

import asyncio
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path

from frontier.app.files import write_atomic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from frontier.tools.contract import FilePreview

FALLBACKS = ("nano", "vim", "vi")
NO_EDITOR = "no editor: set VISUAL or EDITOR (nano, vim and vi are not on PATH)"


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


Opener = Callable[[Path], Awaitable[str | None]]
"""Opens a file in the person's editor until it exits: ``None`` when it ended well, else
why not (the TUI hands its terminal over first: ``tui/editor.edit_in_editor``)."""


async def run_editor(path: Path, env: Mapping[str, str]) -> str | None:
    """:data:`Opener` for a plain terminal (``frontier run``'s prompt): the editor runs on
    a thread, the terminal is its until it exits."""
    argv = editor_argv(env)
    if argv is None:
        return NO_EDITOR
    try:
        done = await asyncio.to_thread(subprocess.run, [*argv, str(path)], check=False)
    except OSError as exc:
        return (
            f"the editor {argv[0]!r} could not start: {exc.strerror or exc} (set VISUAL or EDITOR)"
        )
    return None if done.returncode == 0 else f"the editor exited with status {done.returncode}"


UNCHANGED = "unchanged"
"""What :func:`edited_file` says when the file was saved as it was shown."""


async def edited_file(file: FilePreview, open_editor: Opener) -> tuple[bytes | None, str]:
    """A file of a change as the person saved it, from its new content as shown (the
    review's ``e``, the terminal prompt's): ``(bytes, "")``; ``(None, UNCHANGED)`` when saved
    as it was; ``(None, why)`` when the editor or the copy failed."""
    from frontier.tools.patch_engine import EDIT_MAX_FILE
    from frontier.tools.review_edit import editor_name

    proposed = (file.new_text or "").encode()
    data, refused = await edited(proposed, editor_name(file.path), open_editor, EDIT_MAX_FILE)
    if data is None:
        return None, refused or "the editor failed"
    return (None, UNCHANGED) if data == proposed else (data, "")


async def edited(
    text: bytes, name: str, open_editor: Opener, limit: int | None = None
) -> tuple[bytes | None, str | None]:
    """``text`` as the person saved it after ``open_editor`` had a private copy of it
    (named ``name``, so the editor colours it by its suffix): ``(bytes, None)``, or
    ``(None, why not)`` — the editor failed or left no file, the saved file is over
    ``limit`` bytes, or the temp folder could not be written (a full disk)."""
    try:
        with tempfile.TemporaryDirectory(prefix="frontier-edit-") as folder:
            path = Path(folder) / name
            write_atomic(path, text, mode=0o600)
            refused = await open_editor(path)
            if refused is None and not path.is_file():
                refused = "the editor left no file"
            if refused is None and limit is not None and path.stat().st_size > limit:
                refused = f"the saved file is over {limit >> 20} MiB"
            return (path.read_bytes(), None) if refused is None else (None, refused)
    except OSError as exc:
        return None, f"the file could not be handed to the editor: {exc}"
