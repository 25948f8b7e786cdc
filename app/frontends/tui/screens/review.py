"""The review modal: the exact change a call will make, approved or denied here.

Titled "Review patch" for file mutations (every file with +/- counts, its hunks
with syntax colours and line numbers, unified/split) and "Review command" for
shell/python. It shows the ``Preview`` the core computed — the same content
whose hashes the write re-checks (DESIGN §5) — and dismisses with a ``Decision``.

``space`` declines (or re-accepts) the current hunk; approving then sends the
declined ``(path, hunk index)`` pairs with the person's reason, and declining
every hunk is a deny. Below ``NARROW_BELOW`` columns the modal fills the screen,
the file list becomes a one-line header and the diff is unified.

``A`` approves and offers to always allow what this call is — exactly this
command, or edits under the folder holding every file it touches
(``tools/approval_rules.offer``) — for the session (``1``) or also remembered
for the workspace (``2``); the line above the keys says which rule that would
be before it is pressed, a many-line command by its first and last lines and how
many there are (``display.rule_text``: `` `echo safe` … `touch PWNED` (42 lines, 40
blank)``), never joined into one row the screen's edge cuts. ``y`` copies the diff (or the command).

"Review command" shows every line that approving runs (``widgets/command_view.py``):
the head counts them (``shell: 42 lines``), the body scrolls inside a height the
screen bounds (so the head and the key hints stay on screen at any size), a line
below the body says how many lines are still below (``↓ 41 more lines below``), and
``a`` / ``A`` approve only once the end has been on screen — until then the hint line
says to scroll to the end. Every string shown here that came from the model, a file or
a file name goes through ``widgets/display.display_preview`` first.

A command's review says where it will run (issue 22), on the line below the head:
``runs inside the sandbox (workspace-write · net off)`` when ``Preview.sandbox`` names
one, ``runs OUTSIDE the sandbox`` in the warning style when it is ``None``; a command
that destroys work no undo brings back (``Preview.destroys``) says so first on that line,
in the warning style (```git clean -fdx` deletes untracked files: no undo brings that
back · runs inside the sandbox (…)``). A command the
sandbox stopped, offered once outside it (``Preview.escalation``), is headed by the plain
question — ``The sandbox seems to have stopped this command (read from its output):
<what>. Run it once outside the sandbox?`` (inferred: the kernel does not say) — with
the command shown as always and ``a`` / ``d``; "always allow" is not offered for it (one
approval, one run: a rule would make the next escalation silent).
``e`` opens the file in view, as the model would write it, in the person's editor
(``editor.py``); what they save replaces the model's version in this review — its diff
shown from the file as it is now, hunks chosen afresh — and approving writes exactly that
(``Decision.edited``, ``tools/review_edit.py``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import ClassVar, Literal

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from frontier.app.events import ToolCall
from frontier.app.record import record, replace
from frontier.tools.approval_rules import Rule, offer
from frontier.tools.contract import Decision, FilePreview, Preview, ToolSpec
from frontier.tools.review_edit import as_edited, not_editable
from frontier.widgets.command_view import CommandView
from frontier.widgets.diff_view import DiffView
from frontier.widgets.display import GIST_LINE, display_preview, rule_text

NARROW_BELOW = 105
"""Screen columns below which the review is narrow (the modal would be under 100)."""
GIST_LIMITS = (GIST_LINE, 24, 12)
"""Characters of each end of a command the "always allow" line tries, longest first."""
SUMMARY_CHARS = 400
"""Characters of a preview's summary the one-row head draws (it is cut at the edge)."""
DIFF_ACTIONS = frozenset({"split", "hunk", "file", "toggle_hunk", "wrap", "edit"})
"""Actions that only mean something with a diff (hidden on "Review command")."""


@record
class AlwaysAllow:
    """The review's "always allow" answer: the rule, and whether the workspace keeps it."""

    rule: Rule
    remember: bool


Asking = Literal["deny", "approve", "deny_all"]
PLACEHOLDERS: dict[Asking, str] = {
    "deny": "reason for the model (optional)",
    "approve": "why these hunks are declined (optional)",
    "deny_all": "every hunk is declined, so this denies the call: reason (optional)",
}
DEFAULT_REASONS: dict[Asking, str] = {
    "deny": "no reason given (denied in the review)",
    "approve": "declined in review",
    "deny_all": "every hunk declined in the review",
}


def shown(text: str, limit: int | None = None) -> str:
    """A string from the model, a file name or a rule as one row of this modal."""
    return display_preview(text, one_line=True, limit=limit)


def _file_option(file: FilePreview, declined: int) -> Text:
    text = Text.assemble(
        (f"+{file.added:<4}", "bold"), (f"−{file.removed:<4}", "bold"), shown(file.path)
    )
    if declined:
        text.append(f" ✗{declined}", "bold")
    return text


def _hints(items: list[tuple[str, str]], separator: str) -> Text:
    text = Text()
    for n, (key, label) in enumerate(items):
        if n:
            text.append(separator)
        text.append(key, "bold")
        text.append(f" {label}")
    return text


class ReviewScreen(ModalScreen[Decision]):
    AUTO_FOCUS = ""
    """Never auto-focus the hidden reason box: keys must reach the bindings."""
    DEFAULT_CSS = """
    ReviewScreen { align: center middle; }
    #review {
        width: 96%; height: 92%;
        border: thick $primary; background: $surface;
        border-title-style: bold; border-title-color: $foreground;
        border-subtitle-color: $text-muted;
    }
    ReviewScreen.-narrow #review { width: 100%; height: 100%; }
    ReviewScreen.-command #review { height: auto; max-height: 90%; }
    ReviewScreen.-command.-narrow #review { max-height: 100%; }
    ReviewScreen.-command #review-body { height: auto; padding: 1 0 0 1; }
    #review-head { height: 1; padding: 0 1; background: $panel; }
    #review-escalation {
        height: auto; max-height: 3; padding: 0 1; background: $warning 20%;
        color: $text-warning; text-style: bold;
    }
    #review-where { height: 1; padding: 0 1; color: $text-muted; }
    #review-where.-outside { color: $text-warning; text-style: bold; }
    #file-header { display: none; height: 1; padding: 0 1; background: $panel; }
    ReviewScreen.-narrow #file-header { display: block; }
    #review-body { height: 1fr; }
    #files { width: 32; min-width: 20; border: none; border-right: solid $panel-lighten-2; }
    ReviewScreen.-narrow #files { display: none; }
    #command-end { display: none; height: 1; padding: 0 1; }
    #command-end.-shown { display: block; }
    #command-end.-unseen { text-style: bold; color: $text-warning; }
    #reason { display: none; margin: 0 1; }
    #reason.-visible { display: block; }
    #review-more { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    #review-keys { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve"),
        Binding("d", "deny", "Deny"),
        Binding("space", "toggle_hunk", "Accept/decline hunk"),
        Binding("s", "split", "Split/unified"),
        Binding("w", "wrap", "Wrap/scroll"),
        Binding("j", "hunk(1)", "Next hunk"),
        Binding("k", "hunk(-1)", "Prev hunk"),
        Binding("tab", "file(1)", "Next file", show=False),
        Binding("shift+tab", "file(-1)", "Prev file", show=False),
        Binding("escape", "escape", "Deny/back"),
        Binding("A,shift+a", "always", "Always allow", show=False),
        Binding("1", "always_choose(False)", "This session", show=False),
        Binding("2", "always_choose(True)", "This workspace", show=False),
        Binding("y", "copy", "Copy", show=False),
        Binding("e", "edit", "Edit file", show=False),
    ]

    def __init__(
        self,
        call: ToolCall,
        spec: ToolSpec | None,
        preview: Preview,
        *,
        syntax_style: str = "monokai",
        added_bg: str = "#12361f",
        removed_bg: str = "#42171b",
        split: bool = False,
        wrap: bool = True,
        always_allow: bool = False,
    ) -> None:
        super().__init__()
        self.call = call
        self.spec = spec
        self.preview = preview
        self.syntax_style = syntax_style
        self.added_bg = added_bg
        self.removed_bg = removed_bg
        self.want_split = split
        """Split as chosen; drawn split only when the modal is wide."""
        self.initial_wrap = wrap
        self.asking: Asking | None = None
        """What the reason box is open for (``None``: closed)."""
        allow = always_allow and preview.escalation is None  # one run outside, never a rule
        self.offer: Rule | None = offer(call, spec, preview) if allow else None
        """The rule ``A`` would make (``None``: no session to keep one, none fits, or an
        escalation)."""
        self.choosing = False
        """``A`` was pressed: ``1`` / ``2`` say for how long."""
        self.always: AlwaysAllow | None = None
        """Set when the person approved with "always allow" (the App then keeps the rule)."""
        self.answered = False
        """Dismissed already: a second dismiss would pop whatever screen is on top."""
        self._early = 0
        """Approvals put off until the command is laid out (bounded)."""
        self.edited: dict[str, bytes] = {}
        """The files the person rewrote here (``e``), by path: what approving writes."""
        self.open_editor: Callable[[Path], Awaitable[str | None]] = self._editor
        """Opens a file in the person's editor; ``None`` when it ended well, else why
        not (a test edits the file itself instead)."""

    @property
    def title_text(self) -> str:
        if self.spec is not None and self.spec.internal:  # the person's own undo
            rewind = self.call.args.get("rewind")  # /rewind: every change since a message
            if isinstance(rewind, dict) and isinstance(rewind.get("to"), int):
                return f"Review rewind to before message {rewind['to']}"
            target = self.call.args.get("call", "")  # the call it undoes: an id
            shown = target if isinstance(target, str) else repr(target)
            return f"Review {self.call.name} {shown}".rstrip()
        return "Review patch" if self.is_diff else "Review command"

    @property
    def is_diff(self) -> bool:
        return self.preview.kind == "diff"

    @property
    def narrow(self) -> bool:
        return self.has_class("-narrow")

    def compose(self) -> ComposeResult:
        preview = self.preview
        with Vertical(id="review"):
            if self.escalation is not None:
                yield Static(self._escalation_text(), id="review-escalation")
            yield Static(id="review-head")
            if self.runs_command:
                yield Static(self._where(), id="review-where", classes=self._where_class())
            if self.is_diff:
                yield Static(id="file-header")
            with Horizontal(id="review-body"):
                if self.is_diff:
                    yield OptionList(
                        *[Option(_file_option(f, 0)) for f in preview.files], id="files"
                    )
                    yield DiffView(
                        preview.files,
                        syntax_style=self.syntax_style,
                        added_bg=self.added_bg,
                        removed_bg=self.removed_bg,
                        id="diff",
                    )
                else:
                    source, lexer = self._command_source()
                    yield CommandView(source, lexer, syntax_style=self.syntax_style, id="command")
            if not self.is_diff:
                yield Static(id="command-end")
            reason = Input(id="reason")
            reason.can_focus = False
            yield reason
            yield Static(id="review-more")
            yield Static(id="review-keys")

    @property
    def escalation(self) -> str | None:
        """What the sandbox refused, when this review offers one run outside it."""
        return self.preview.escalation if not self.is_diff else None

    @property
    def runs_command(self) -> bool:
        """A command or code that runs as a process (``shell``, ``python``): the review
        says where — inside the sandbox or outside it."""
        if self.is_diff:
            return False
        if self.spec is not None:
            return self.spec.kind == "exec"
        return self.preview.command is not None

    def _escalation_text(self) -> Text:
        what = shown(self.escalation or "", 200)
        return Text(
            f"The sandbox seems to have stopped this command (read from its output): {what}. "
            "Run it once outside the sandbox?",
            overflow="ellipsis",
        )

    def _where(self) -> Text:
        """Where the command runs; first, what it destroys that no undo brings back."""
        destroys = self.preview.destroys
        first = f"{shown(destroys, 80)}: no undo brings that back · " if destroys else ""
        if self.preview.runs_for:  # before the sandbox's label, which a narrow row cuts
            first += f"runs {self.preview.runs_for} · "
        runs = "" if self.preview.runs_for else "runs "
        if self.preview.sandbox is not None:
            return Text(
                f"{first}{runs}inside the sandbox ({shown(self.preview.sandbox, 80)})",
                no_wrap=True,
                overflow="ellipsis",
            )
        once = " · this once, as you approve" if self.escalation is not None else ""
        return Text(f"{first}{runs}OUTSIDE the sandbox{once}", no_wrap=True, overflow="ellipsis")

    def _where_class(self) -> str:
        warned = self.preview.sandbox is None or self.preview.destroys is not None
        return "-outside" if warned else ""

    def _command_source(self) -> tuple[str, str]:
        """What "Review command" shows and its lexer: the command or the python tool's
        code, else every argument of the call as JSON (what approving passes on)."""
        command = self.preview.command
        if command is None:
            return json.dumps(self.call.json_args(), indent=2, ensure_ascii=False), "json"
        return command, "python" if self.call.name == "python" else "bash"

    def on_mount(self) -> None:
        box = self.query_one("#review")
        title = self.title_text
        if self.escalation is not None:
            title += " · outside the sandbox"
        if self.call.origin:  # `sed -i …` the model wrote, reviewed as the patch it makes
            title += f" · the model's `{shown(self.call.origin, 60)}`"
        box.border_title = Text(shown(title))  # the model's command, a call id: never markup
        box.border_subtitle = "the approval is bound to exactly this content"
        self.set_class(not self.is_diff, "-command")
        if self.is_diff:
            diff = self.diff
            diff.wrap = self.initial_wrap
            diff.focus()
        else:
            self.command.focus()
        self._layout(self.app.size)

    def on_resize(self, event: events.Resize) -> None:
        self._layout(event.size)

    def _layout(self, size: Size) -> None:
        self.set_class(size.width < NARROW_BELOW, "-narrow")
        if self.is_diff:
            self.diff.split = self.want_split and not self.narrow
        else:
            self._fit_command(size.height)
        self._refresh_text()

    def _fit_command(self, height: int) -> None:
        """Bound the command's body so the head, the "more" line and the key hints always
        fit: the modal's height (90 %, or the whole screen when narrow) less its border,
        the head, the body's top padding, the reason box when open and the three lines
        below the body."""
        box = height if self.narrow else height * 9 // 10
        reason = 3 if self.asking is not None else 0
        where = 1 if self.runs_command else 0
        escalation = self._escalation_rows()
        self.command.styles.max_height = max(3, box - 2 - 1 - 1 - reason - 3 - where - escalation)

    def _escalation_rows(self) -> int:
        """Rows the escalation question takes (it wraps, at most 3)."""
        if self.escalation is None:
            return 0
        width = max(1, self._inner_width() - 2)
        return min(3, -(-cell_len(self._escalation_text().plain) // width))

    @property
    def diff(self) -> DiffView:
        return self.query_one(DiffView)

    @property
    def command(self) -> CommandView:
        return self.query_one(CommandView)

    @property
    def end_seen(self) -> bool:
        """Approving is allowed: a diff (its own keys move through it), or a command
        whose last line has been on screen."""
        if self.is_diff:
            return True
        view = self.command
        if not view.end_seen and view.at_end():
            view.end_seen = True
        return view.end_seen

    def on_command_view_moved(self, event: CommandView.Moved) -> None:
        event.stop()
        self._refresh_text()
        self.refresh_bindings()

    # ------------------------------------------------------------------ text
    def _refresh_text(self) -> None:
        """The one-row lines (``height: 1`` each, so new text never resizes them: a repaint,
        not a layout of the screen, which each frame of a scroll through a long command
        asked for four times)."""
        self.query_one("#review-head", Static).update(self._head(), layout=False)
        self.query_one("#review-more", Static).update(self._more(), layout=False)
        self.query_one("#review-keys", Static).update(self._keys(), layout=False)
        if self.is_diff:
            self.query_one("#file-header", Static).update(self._file_header(), layout=False)
        else:
            self._command_end()

    def _command_end(self) -> None:
        """The line below the command: how much is still below, and that approving waits
        for the end; hidden when the whole command fits."""
        view = self.command
        line = self.query_one("#command-end", Static)
        line.set_class(view.overflows or view.lines_below() > 0, "-shown")
        seen = self.end_seen
        line.set_class(not seen, "-unseen")
        below = view.lines_below()
        if below:
            text = f"↓ {below:,} more line{'s' * (below != 1)} below"
            if not seen:
                text += " · scroll to the end to approve"
        else:
            text = f"■ end of the {self._what} · {view.total:,} line{'s' * (view.total != 1)}"
        line.update(Text(text, no_wrap=True, overflow="ellipsis"), layout=False)  # height: 1

    @property
    def _what(self) -> str:
        if self.preview.command is None:
            return "arguments"
        return "code" if self.call.name == "python" else "command"

    def _head(self) -> Text:
        preview = self.preview
        head = Text(no_wrap=True, overflow="ellipsis")
        head.append(f"{shown(self.call.id, 40)} ", style="dim")
        head.append(shown(self.call.name, 40), style="bold")
        if preview.protected:  # first: the head is one row, cut at the screen's edge
            names = shown(", ".join(preview.protected), SUMMARY_CHARS)
            head.append(f" · protected (git runs it): {names}", style="bold")
        if not self.is_diff:
            total = self.command.total
            what = "" if preview.command is not None else " of arguments"
            head.append(f": {total:,} line{'s' * (total != 1)}{what}", style="bold")
            default = f"{self.call.name}: {preview.command}"
            if preview.summary and preview.summary != default:
                head.append(f" · {shown(preview.summary, SUMMARY_CHARS)}", style="italic")
            return head
        if self.is_diff:
            added = sum(f.added for f in preview.files)
            removed = sum(f.removed for f in preview.files)
            n = len(preview.files)
            head.append(f" · {n} file{'s' * (n != 1)} · ")
            head.append(f"+{added} −{removed}", style="bold")
            choices = self.diff.choices
            if choices.accepted < choices.total:
                head.append(f" · {choices.accepted} of {choices.total} hunks accepted", "bold")
        if preview.summary:
            head.append(f" · {shown(preview.summary, SUMMARY_CHARS)}", style="italic")
        return head

    def _file_header(self) -> Text:
        """The narrow layout's stand-in for the file list: where ``j``/``k``/``tab`` are."""
        diff = self.diff
        files = self.preview.files
        if not files:
            return Text("no files")
        f = diff.current_file
        file = files[f]
        text = Text(f"file {f + 1}/{len(files)}: ", "dim", no_wrap=True, overflow="ellipsis")
        text.append(shown(file.path), "bold")
        text.append(f"  +{file.added} −{file.removed}")
        hunk = diff.current_hunk
        if hunk is not None and file.hunks:
            text.append(f"  hunk {hunk.index}/{len(file.hunks)}", "dim")
        declined = diff.choices.declined_in(f)
        if declined:
            text.append(f"  {declined} declined", "italic")
        return text

    def _more(self) -> Text:
        """The line above the keys: what ``A`` would always allow, and ``y`` copy.

        The rule is named by ``display.rule_text`` — a many-line command as its first and
        last lines and its line count — in the longest wording that fits the modal, so
        the count is never what the screen's edge cuts off."""
        what = "diff" if self.is_diff else "command"
        width = self._inner_width()
        if self.choosing and self.offer is not None:
            questions = [f"Always allow {rule_text(self.offer, n)}?" for n in GIST_LIMITS]
            question = next((q for q in questions if cell_len(q) <= width), questions[-1])
            return Text(question, style="bold", no_wrap=True, overflow="ellipsis")
        copy = ("y", f"copy the {what}")
        choices: list[list[tuple[str, str]]] = [[copy]]
        if self.offer is not None and self.end_seen:
            choices = []
            for rule in (rule_text(self.offer, n) for n in GIST_LIMITS):  # whole lines first
                approve = ("A", f"approve and always allow {rule}")
                choices += [[approve, copy], [approve], [("A", f"always allow {rule}")]]
        hints = [_hints(items, " · ") for items in choices]
        text = next((hint for hint in hints if cell_len(hint.plain) <= width), hints[-1])
        text.no_wrap, text.overflow = True, "ellipsis"  # cut, never wrapped
        return text

    def _inner_width(self) -> int:
        """Cells inside the modal's border and padding (what one row of text can use)."""
        screen = self.app.size.width
        return (screen if self.narrow else screen * 96 // 100) - 4

    def _keys(self) -> Text:
        """The hint line: only keys that work here, the longest wording that fits."""
        if self.choosing:
            return _hints(
                [("1", "this session"), ("2", "also remember for this workspace"), ("esc", "back")],
                " · ",
            )
        if self.asking is not None:
            verb = "approve the rest" if self.asking == "approve" else "deny"
            return _hints([("enter", verb), ("esc", "back")], " · ")
        if not self.is_diff:
            if not self.end_seen:
                scroll = ("↓/end", "scroll to the end to approve")
                return _hints([scroll, ("d", "deny (+ reason)"), ("esc", "deny")], " · ")
            if self.escalation is not None:
                run = ("a", "run once outside the sandbox")
                return _hints([run, ("d", "deny (+ reason)"), ("esc", "deny")], " · ")
            return _hints([("a", "approve"), ("d", "deny (+ reason)"), ("esc", "deny")], " · ")
        diff = self.diff
        many = len(self.preview.files) > 1
        full: list[tuple[str, str]] = [
            ("a", "approve"),
            ("d", "deny (+ reason)"),
            ("esc", "deny"),
            ("space", "accept/decline hunk"),
            ("j/k", "hunk"),
            *([("tab", "file")] if many else []),
            ("e", "edit"),
            *([] if self.narrow else [("s", "split/unified")]),
            ("w", "wrap/scroll"),
            *([] if diff.wrap else [("←/→", "scroll")]),
        ]
        short: list[tuple[str, str]] = [
            ("a", "approve"),
            ("d/esc", "deny"),
            ("space", "✓/✗ hunk"),
            ("j/k", "hunk"),
            *([("tab", "file")] if many else []),
            ("e", "edit"),
            *([] if self.narrow else [("s", "split")]),
            ("w", "wrap"),
            *([] if diff.wrap else [("←→", "pan")]),
        ]
        width = self._inner_width()
        shortest = [item for item in short if item[0] != "e"]  # `e` still works (? lists it)
        for hint in (_hints(full, " · "), _hints(short, " · "), _hints(shortest, " · ")):
            if cell_len(hint.plain) <= width:
                return hint
        return _hints(shortest, "  ")

    # ------------------------------------------------------------------ answering
    def dismiss(self, result: Decision | None = None) -> AwaitComplete:
        self.answered = True
        return super().dismiss(result)

    def answer(self, decision: Decision) -> None:
        """Answer from outside (ctrl+c stopping the turn): once, and with any screen
        opened above the review (help) closed first, so only the review goes."""
        if self.answered or not self.is_attached:
            return
        if self.app.screen is not self:
            self.pop_until_active()
        self.dismiss(decision)

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "always_choose":
            return self.choosing
        if action == "always":
            return self.offer is not None and self.asking is None and self.end_seen
        if self.choosing and action not in ("escape", "copy"):
            return False  # 1 / 2 / esc answer the question first
        if action in DIFF_ACTIONS and not self.is_diff:
            return False
        if action == "file":
            return len(self.preview.files) > 1
        if action == "split":
            return not self.narrow
        return True

    def action_approve(self) -> None:
        if not self.is_diff:
            if not self.end_seen and not self.command.laid_out and self._early < 3:
                # a key pressed as the review opened, before its command was laid out:
                # decided once it is (it was refused with "0 more lines below")
                self._early += 1
                self.call_after_refresh(self.action_approve)
                return
            if not self.end_seen:
                below = self.command.lines_below()
                self.notify(
                    f"scroll to the end of the {self._what} before approving: "
                    f"{below:,} more line{'s' * (below != 1)} below",
                    severity="warning",
                    timeout=4,
                )
                self._refresh_text()
                return
            self.dismiss(Decision(True))
            return
        choices = self.diff.choices
        if choices.accepted == choices.total:
            self.dismiss(self._approved())
        else:
            self._ask("deny_all" if choices.nothing_left else "approve")

    def _approved(self, reason: str = "", declined: tuple[tuple[str, int], ...] = ()) -> Decision:
        return Decision(True, reason, declined=declined, edited=tuple(self.edited.items()))

    def action_deny(self) -> None:
        self._ask("deny")

    def action_edit(self) -> None:
        """``e``: the file in view, as the model would write it, in the person's editor."""
        if not self.preview.files:
            return
        index = self.diff.current_file
        file = self.preview.files[index]
        refused = not_editable(file)
        if refused is not None:
            self.notify(refused, severity="warning", timeout=5)
            return
        self.app.run_worker(
            self._edit(index, file), group="review-edit", exclusive=True, exit_on_error=False
        )

    async def _editor(self, path: Path) -> str | None:
        from frontier.app.frontends.tui.editor import edit_in_editor

        return await edit_in_editor(self.app, path, os.environ)

    async def _edit(self, index: int, file: FilePreview) -> None:
        from frontier.app.frontends.editor_command import UNCHANGED, edited_file

        data, why = await edited_file(file, self.open_editor)
        if data is None:
            if why == UNCHANGED:
                self.notify(f"{why}: the version shown stands", timeout=3)
            else:
                self.notify(f"{why}: the version shown stands", severity="error")
            return
        if self.answered or not self.is_attached:
            return  # answered (or withdrawn) while the editor was open
        await self._take_edit(index, file, data)

    async def _take_edit(self, index: int, file: FilePreview, data: bytes) -> None:
        """Show ``data`` as the file's new content: its diff from the file as it is now,
        every hunk of it accepted (the other files keep their choices)."""
        rebuilt = as_edited(file, data)
        self.edited[file.path] = data
        kept = [pair for pair in self.diff.choices.pairs() if pair[0] != file.path]
        files = list(self.preview.files)
        files[index] = rebuilt
        self.preview = replace(self.preview, files=tuple(files))
        old = self.diff
        diff = DiffView(
            self.preview.files,
            syntax_style=self.syntax_style,
            added_bg=self.added_bg,
            removed_bg=self.removed_bg,
            id="diff",
        )
        diff.split, diff.wrap = old.split, old.wrap
        await old.remove()
        await self.query_one("#review-body", Horizontal).mount(diff)
        by_path = {f.path: i for i, f in enumerate(self.preview.files)}
        diff.decline((by_path[path], hunk) for path, hunk in kept)
        diff.goto_file(index)
        files_list = self.query_one("#files", OptionList)
        for i, f in enumerate(self.preview.files):
            files_list.replace_option_prompt_at_index(
                i, _file_option(f, diff.choices.declined_in(i))
            )
        files_list.highlighted = index
        diff.focus()
        self._refresh_text()
        self.notify(f"{file.path}: your version is what approving writes", timeout=4)

    def action_always(self) -> None:
        """Ask how long "always allow" lasts (every hunk must be accepted: a rule
        approves whole edits)."""
        if self.offer is None or not self.end_seen:
            return
        if self.is_diff and self.diff.choices.accepted < self.diff.choices.total:
            self.notify(
                "accept every hunk to always allow (a rule approves whole edits)",
                severity="warning",
                timeout=4,
            )
            return
        self.choosing = True
        self.refresh_bindings()
        self._refresh_text()

    def action_always_choose(self, remember: bool) -> None:
        if self.offer is None or not self.end_seen:
            return
        self.always = AlwaysAllow(self.offer, remember)
        self.dismiss(self._approved() if self.is_diff else Decision(True))

    def action_copy(self) -> None:
        """Copy the diff being reviewed (every file) or the command to the clipboard."""
        if self.is_diff:
            text, what = "".join(file.diff for file in self.preview.files), "diff"
        else:
            text, what = self.preview.command or json.dumps(self.call.json_args()), "command"
        self.app.copy_to_clipboard(text)
        self.notify(f"copied the {what} ({len(text):,} characters, OSC 52)", timeout=3)

    def _ask(self, asking: Asking) -> None:
        self.asking = asking
        reason = self.query_one("#reason", Input)
        reason.placeholder = PLACEHOLDERS[asking]
        reason.add_class("-visible")
        reason.can_focus = True
        reason.focus()
        if not self.is_diff:
            self._fit_command(self.app.size.height)
        self._refresh_text()

    def action_escape(self) -> None:
        reason = self.query_one("#reason", Input)
        if self.choosing:
            self.choosing = False
            self.refresh_bindings()
            self._refresh_text()
            return
        if self.asking is not None:
            self.asking = None
            reason.remove_class("-visible")
            reason.can_focus = False
            reason.value = ""
            if self.is_diff:
                self.diff.focus()
            else:
                self._fit_command(self.app.size.height)
                self.command.focus()
            self._refresh_text()
            return
        self.dismiss(Decision(False, DEFAULT_REASONS["deny"]))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        asking = self.asking or "deny"
        reason = event.value.strip() or DEFAULT_REASONS[asking]
        if asking == "approve":
            self.dismiss(self._approved(reason, self.diff.choices.pairs()))
        else:
            self.dismiss(Decision(False, reason))

    def action_split(self) -> None:
        if self.is_diff:
            self.want_split = not self.want_split
            self.diff.split = self.want_split and not self.narrow

    def action_wrap(self) -> None:
        if self.is_diff:
            self.diff.wrap = not self.diff.wrap
            self._refresh_text()

    def action_toggle_hunk(self) -> None:
        if not self.is_diff:
            return
        diff = self.diff
        refused = diff.toggle_current()
        if refused:
            self.notify(refused, severity="warning", timeout=4)
        f = diff.current_file
        if self.preview.files:
            self.query_one("#files", OptionList).replace_option_prompt_at_index(
                f, _file_option(self.preview.files[f], diff.choices.declined_in(f))
            )
        self._refresh_text()

    def action_hunk(self, delta: int) -> None:
        if self.is_diff:
            diff = self.diff
            diff.goto_hunk(diff.current + delta)
            self.query_one("#files", OptionList).highlighted = diff.current_file
            self._refresh_text()

    def action_file(self, delta: int) -> None:
        if self.is_diff and self.preview.files:
            diff = self.diff
            index = (diff.current_file + delta) % len(self.preview.files)
            diff.goto_file(index)
            self.query_one("#files", OptionList).highlighted = index
            self._refresh_text()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.diff.goto_file(event.option_index)
        self._refresh_text()
