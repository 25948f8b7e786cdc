"""``/diff``: everything this session changed, in one read-only, scrollable, copyable view.

The review's own diff widget (``widgets/diff_view.py``) draws the files — the same
colours, split/unified and wrapping — but nothing here is decided: ``y`` copies the
whole unified diff, ``s`` switches split/unified, ``j``/``k`` step through hunks, Esc
closes. Files the view cannot show (an earlier version not kept) are listed under it.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from frontier.app.agent.session_ops import SessionDiff
from frontier.widgets.diff_view import DiffView
from frontier.widgets.display import display_preview


class SessionDiffScreen(ModalScreen[None]):
    """The session's diff (``AgentSession.diff``), read only."""

    DEFAULT_CSS = """
    SessionDiffScreen { align: center middle; }
    SessionDiffScreen > Vertical {
        width: 96%; height: 92%; border: thick $primary; background: $surface;
    }
    SessionDiffScreen DiffView { height: 1fr; }
    SessionDiffScreen #session-diff-notes { height: auto; max-height: 5; color: $text-warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("y", "copy", "Copy diff"),
        Binding("s", "split", "Split/unified"),
        Binding("j", "hunk(1)", "Next hunk", show=False),
        Binding("k", "hunk(-1)", "Previous hunk", show=False),
    ]

    def __init__(self, diff: SessionDiff, session_id: str = "") -> None:
        super().__init__()
        self.diff = diff
        self.session_id = session_id

    def compose(self) -> ComposeResult:
        files = self.diff.files
        added = sum(f.added for f in files)
        removed = sum(f.removed for f in files)
        with Vertical() as box:
            box.border_title = (
                f"Session {self.session_id} changed {len(files)} file"
                f"{'s' if len(files) != 1 else ''} · +{added} −{removed}"
            )
            box.border_subtitle = "y copy · s split/unified · j/k hunk · Esc close"
            yield DiffView(files, id="session-diff")
            notes = "\n".join(display_preview(n, one_line=True) for n in self.diff.notes)
            yield Static(notes, id="session-diff-notes", markup=False)

    def on_mount(self) -> None:
        self.query_one(DiffView).focus()
        self.query_one("#session-diff-notes").display = bool(self.diff.notes)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.diff.text)
        self.notify("the session's diff is on the clipboard", timeout=3)

    def action_split(self) -> None:
        view = self.query_one(DiffView)
        view.split = not view.split

    def action_hunk(self, step: int) -> None:
        view = self.query_one(DiffView)
        view.goto_hunk(max(0, view.current + step))  # clamped to the last hunk there


__all__ = ["SessionDiffScreen"]
