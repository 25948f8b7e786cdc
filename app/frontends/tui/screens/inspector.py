"""The framing-error inspector: one contract error, explained.

Opened with Enter on a row of the Errors pane (live and replay) and, in replay, by
pressing ``e`` again at the error ``e`` just jumped to. It renders an
:class:`~frontier.app.agent.explain.Explanation` — the object ``frontier check
--explain`` prints — and computes nothing: the bytes around the offset as hex and as
text (the frontier and the error offset marked, confirmed / pending / unread bytes
styled as the Raw stream styles them), the frame as parsed so far, the exact
feedback the model got and what the store recorded, and the model's next attempt.

Keys: ``g`` closes it and highlights the byte in the Raw stream (replay; in a live
session the same, with the command that replays the response); ``e`` (replay) moves
on to the next error and inspects that one; ``y`` copies the explanation as text;
``↑↓`` / page keys scroll; ``esc`` closes. It fits 80×24 (it fills the screen there
and scrolls); hex rows are 16 bytes from 80 columns, 8 below.

Everything in an explanation may quote the model's bytes or a stored session (the
message, the frame, the feedback, the next attempt, the source's name), so every string
goes through ``display.display_preview`` where it becomes rich text: ``printable``
escapes C0 controls, and this adds C1 and the bidi overrides.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from frontier.app.agent.explain import (
    Explanation,
    arg_lines,
    call_line,
    client_lines,
    format_explanation,
    length_line,
    next_line,
    printable,
    recorded_lines,
    wire_call_lines,
    wire_lines,
)
from frontier.app.cst.explain import hex_rows, text_lines
from frontier.widgets.display import display_preview

InspectorAction = Literal["jump", "next"]


def _one(text: str) -> str:
    return display_preview(text, one_line=True)


WIDE = 80
"""Columns from which hex rows hold 16 bytes (8 below)."""
STYLES = ("confirmed", "pending", "error", "unread", "frontier", "label", "good", "bad")


class InspectorScreen(ModalScreen["InspectorAction | None"]):
    """Dismisses with ``jump`` (g), ``next`` (e, replay) or ``None`` (esc)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"inspector--{name}" for name in STYLES}
    DEFAULT_CSS = """
    InspectorScreen { align: center middle; }
    #inspector {
        width: 96%; max-width: 110; height: 92%;
        border: thick $primary; background: $surface;
        border-title-style: bold; border-title-color: $foreground;
        border-subtitle-color: $text-muted;
    }
    InspectorScreen.-narrow #inspector { width: 100%; height: 100%; }
    #inspector-body { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    #inspector-body > Static { height: auto; margin-bottom: 1; }
    #inspector-message { color: $error; }
    #inspector-hex { text-wrap: nowrap; text-overflow: clip; }
    #inspector-keys { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    InspectorScreen > .inspector--confirmed { color: $foreground; }
    InspectorScreen > .inspector--pending { color: $warning; text-style: italic underline; }
    InspectorScreen > .inspector--error { color: $error; text-style: bold reverse; }
    InspectorScreen > .inspector--unread { color: $text-muted; }
    InspectorScreen > .inspector--frontier { color: $primary; text-style: bold; }
    InspectorScreen > .inspector--label { color: $accent; text-style: bold; }
    InspectorScreen > .inspector--good { color: $success; text-style: bold; }
    InspectorScreen > .inspector--bad { color: $error; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("g", "jump", "Jump to byte"),
        Binding("e", "next", "Next error"),
        Binding("y", "copy", "Copy"),
    ]

    def __init__(
        self, explanation: Explanation, *, replay: bool, sandbox: tuple[str, ...] = ()
    ) -> None:
        super().__init__()
        self.explanation = explanation
        self.replay = replay
        self.sandbox = sandbox
        """Where the call the next attempt confirmed ran (``sandbox: workspace-write · net
        off``, ``outside the sandbox (approved)``…: ``sandbox_text.ran_under``), when this
        front end saw it finish; empty otherwise."""
        """In replay ``e`` moves on to the next error; live, ``g`` also names the replay."""

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        exp = self.explanation
        site = exp.site
        with Vertical(id="inspector") as box:
            box.border_title = Text(
                f"Error {site.number}/{site.count} · {_one(site.kind)} at byte {site.offset:,}"
            )
            box.border_subtitle = Text(_one(exp.source))  # a capture's path: never markup
            with VerticalScroll(id="inspector-body"):
                yield Static(id="inspector-message")
                yield Static(id="inspector-where")
                yield Static(id="inspector-frame")
                yield Static(id="inspector-hex")
                yield Static(id="inspector-text")
                yield Static(id="inspector-feedback")
                yield Static(id="inspector-next")
            yield Static(self._keys(), id="inspector-keys")

    def on_mount(self) -> None:
        self.set_class(self.app.size.width < 100, "-narrow")
        self._render_all()
        self.query_one("#inspector-body").focus()

    def _keys(self) -> Text:
        items = [("g", "jump to byte")]
        if self.replay:
            items.append(("e", "next error"))
        items += [("y", "copy"), ("↑↓", "scroll"), ("esc", "close")]
        text = Text(no_wrap=True, overflow="ellipsis")
        for n, (key, label) in enumerate(items):
            if n:
                text.append(" · ")
            text.append(key, "bold")
            text.append(f" {label}")
        return text

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"inspector--{name}", partial=True)

    def _render_all(self) -> None:
        exp, site = self.explanation, self.explanation.site
        frame = site.frame
        label = self._style("label")
        self.query_one("#inspector-message", Static).update(Text(display_preview(site.message)))
        when = "at the end of the stream" if site.at_finish else "by a byte"
        where = Text()
        where.append("offset ", label)
        where.append(f"{site.offset:,} of {site.size:,} · ")
        where.append("frontier ", label)
        where.append(
            f"{frame.frontier:,} · raised {when} · {_one(exp.mode)}, "
            f"finish {_one(exp.finish_reason)}\n"
        )
        where.append("state ", label)
        where.append(_one(frame.state))
        self.query_one("#inspector-where", Static).update(where)

        rows: list[tuple[str, str]] = []
        rows.append(("call", call_line(exp)))
        rows += [("args" if i == 0 else "", line) for i, line in enumerate(arg_lines(exp))]
        length = length_line(exp)
        if length:
            rows.append(("length", length))
        if frame.tag:
            rows.append(
                ("tag", f"{frame.tag}  (the body ends at a line that is exactly {frame.tag})")
            )
        if frame.element:
            rows.append(("element", frame.element))
        if frame.json:
            rows.append(("json", f"{frame.json} · {frame.pending:,} argument bytes held"))
        if frame.line:
            rows.append(("pending", f"'{printable(frame.line)}'  (held, undecided)"))
        for name, lines in (  # a native stream in its wire's events (the server's, too)
            ("wire", wire_lines(exp)),
            ("calls", wire_call_lines(exp)),
            ("client", client_lines(exp)),
        ):
            rows += [(name if i == 0 else "", line) for i, line in enumerate(lines)]
        self.query_one("#inspector-frame", Static).update(
            self._table("Frame as parsed so far", rows)
        )

        self.query_one("#inspector-hex", Static).update(self._hex())
        self.query_one("#inspector-text", Static).update(self._text())

        feedback = Text()
        feedback.append("Feedback sent to the model\n", label)
        feedback.append(display_preview(exp.feedback) + "\n")
        recorded = [display_preview(line) for line in recorded_lines(exp)]
        matches = exp.recorded_matches
        style = (
            self._style("good") if matches else self._style("bad") if matches is False else Style()
        )
        feedback.append(recorded[0], style)
        if len(recorded) > 1 and not matches:
            feedback.append("\n" + "\n".join(recorded[1:]))
        self.query_one("#inspector-feedback", Static).update(feedback)

        attempt = exp.attempt
        nxt = Text()
        nxt.append("Next attempt\n", label)
        if attempt is not None and attempt.outcome in ("repaired", "failed", "other"):
            ok = attempt.succeeded
            nxt.append("✓ " if ok else "✗ ", self._style("good" if ok else "bad"))
        nxt.append(display_preview(next_line(exp)) + "\n")
        for line in self.sandbox:  # where that call ran, as its result said
            nxt.append("ran ", label)
            nxt.append(_one(line) + "\n")
        nxt.append("replay ", label)
        nxt.append(_one(exp.replay_command))
        self.query_one("#inspector-next", Static).update(nxt)

    def _table(self, title: str, rows: list[tuple[str, str]]) -> Text:
        label = self._style("label")
        text = Text()
        text.append(title, label)
        for key, value in rows:
            text.append("\n")
            text.append(f"{key:<8}", label)
            text.append(display_preview(value))
        return text

    def _hex(self) -> Text:
        site = self.explanation.site
        per_row = 16 if self.app.size.width >= WIDE else 8
        styles = {k: self._style(k) for k in ("confirmed", "pending", "error", "unread")}
        mark = self._style("frontier")
        text = Text(no_wrap=True, overflow="crop")
        text.append(
            f"Bytes {site.window_start:,}–{site.window_start + len(site.window):,}",
            self._style("label"),
        )
        text.append("  ▏", mark)
        text.append("frontier  ")
        text.append("error", styles["error"])
        text.append("  ")
        text.append("pending", styles["pending"])
        for row in hex_rows(site, per_row):
            pad = row.offset % per_row
            text.append(f"\n{row.offset:>5}" + "   " * pad)
            for i, byte in enumerate(row.data):
                text.append("▏" if row.frontier == i else " ", mark)
                text.append(f"{byte:02x}", styles[row.kinds[i]])
            text.append("▏" if row.frontier == len(row.data) else " ", mark)
            end = row.error == len(row.data)
            text.append("◀" if end else " ", styles["error"] if end else Style())
            text.append("   " * (per_row - pad - len(row.data)) + " " * (pad + 1))
            for i, byte in enumerate(row.data):
                char = chr(byte) if 0x20 <= byte < 0x7F else "·"
                text.append(char, styles[row.kinds[i]])
        return text

    def _text(self) -> Text:
        site = self.explanation.site
        styles = {k: self._style(k) for k in ("confirmed", "pending", "error", "unread")}
        text = Text()
        text.append("As text", self._style("label"))
        for n, spans in enumerate(text_lines(site)):
            text.append("\n")
            if n == 0 and site.window_start:
                text.append("…", styles["unread"])
            for span in spans:
                if span.kind == "frontier":
                    text.append("▏", self._style("frontier"))
                elif span.kind == "end":
                    text.append("◀ end of stream", styles["error"])
                else:
                    text.append(display_preview(printable(span.data)), styles[span.kind])
        return text

    # ------------------------------------------------------------------ keys
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next":
            return self.replay
        return True

    def action_close(self) -> None:
        self.dismiss(None)

    def action_jump(self) -> None:
        self.dismiss("jump")

    def action_next(self) -> None:
        self.dismiss("next")

    def action_copy(self) -> None:
        text = format_explanation(self.explanation)
        self.app.copy_to_clipboard(text)
        self.notify(f"copied the explanation ({len(text):,} characters)", timeout=3)
