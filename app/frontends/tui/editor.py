"""The person's own editor, opened on a file while the TUI steps aside (the review's
``e``: ``tools/review_edit.py``).

The editor is ``editor_command.editor_argv``'s. Textual hands the terminal over (``App.suspend``:
input stops, the alternate screen is left) and takes it back after. The editor runs on a
thread, so the session's loop keeps reading the model's stream meanwhile; what the
screen would draw then is dropped and it is drawn whole on return.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from textual.app import App, SuspendNotSupported

from frontier.app.frontends.editor_command import NO_EDITOR, editor_argv, run_editor


async def edit_in_editor(app: App[Any], path: Path, env: Mapping[str, str]) -> str | None:
    """Open ``path`` in the person's editor until it exits, the TUI stepped aside;
    ``None`` when it ended well, else why not (no editor, no terminal to hand over, it
    failed)."""
    if editor_argv(env) is None:
        return NO_EDITOR
    try:
        with app.suspend():
            return await run_editor(path, env)
    except SuspendNotSupported:
        return "this terminal cannot be handed to an editor (a browser, or no terminal)"
    finally:
        app.refresh(layout=True)
