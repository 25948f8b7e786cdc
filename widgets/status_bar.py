"""The status bar: what the agent is doing, the approval policy, model, mode, tokens/s,
frontier, pending, token counts, the context used, the session — fitted to one line.

At 80 columns not everything fits, so each field offers a short and a full form and
the bar is built greedily by priority: a list of steps ("show the session id short",
"spell the timer out in full"...), most important first, each taken when the line
still fits. What matters depends on the moment: while a turn runs the timer, the
interrupt key and the stream's frontier and pending come first and the model, mode
and session id give way; between turns the session id, model, mode and token counts
do. Fields keep their display order whatever was dropped.

The model name, the mode, the session id and the activity (``running c3``: the call id
is the model's) can come from a stored session or the model, so they go through
``display.display_preview`` (one row each) before they are measured or drawn.

The sandbox (issue 22) sits beside the approval policy, the two together say what runs
without asking: ``sandbox: workspace-write · net off`` in full, ``sbx ws-write·net off``
when the line is short (``docs/decisions.md``, "The sandbox in an 80-column status
bar"); ``sandbox: unavailable`` (Frontier asks before every command) is a warning, drawn
in the theme's warning colour and kept before everything but the activity.
"""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.timer import Timer
from textual.widgets import Static

from frontier.app.record import record, replace
from frontier.widgets.display import display_preview
from frontier.widgets.pacing import Pacer
from frontier.widgets.progress import clock_text, count_text

SEPARATOR = " · "
ORDER = (
    "activity",
    "approval",
    "sandbox",
    "jobs",
    "model",
    "effort",
    "mode",
    "rate",
    "frontier",
    "pending",
    "tokens",
    "context",
    "session",
    "hints",
)
"""Display order (left to right), whatever is dropped."""
MOVING = (
    "token_rate",
    "frontier",
    "pending",
    "working",
    "spinner",
    "tokens_in",
    "tokens_out",
    "tokens_cached",
)
"""Fields a stream changes many times a second: a change of only these is paced
(``widgets/pacing.py``: at most 10 repaints a second)."""


@record
class StatusInfo:
    model: str
    mode: str
    token_rate: float | None
    """Tokens/s of the latest response, ``None`` before any (nothing is shown)."""
    frontier: int
    pending: int
    session: str
    activity: str = ""
    """``streaming``, ``review``, ``running c3``, ``idle``, or the replay state."""
    waiting: str = ""
    """A silent server, live: ``waiting for the first byte · 23 s``, ``stalled · 12 s``;
    it takes the place of ``streaming`` (the silence is the news) and follows a running
    tool or a review."""
    approval: str = ""
    """The approval policy (live sessions; shift+Tab cycles it), else empty."""
    working: float | None = None
    """Seconds the running turn has taken (``None``: no turn runs)."""
    spinner: str = ""
    rate_estimated: bool = False
    """``token_rate`` counts chunks (no ``usage`` from the server yet): shown with ``~``."""
    tokens_in: int | None = None
    """Prompt tokens of the session so far; ``None`` when the server never said."""
    tokens_out: int = 0
    tokens_cached: int = 0
    context: float | None = None
    context_assumed: bool = False
    """The window behind ``context`` is only assumed (nobody said): shown as such."""
    """Share of the model's context window the latest response used, when the window is
    known (a setting); ``None`` shows nothing."""
    interrupt_key: str = "esc"
    sandbox: str = ""
    """Where commands run (``Sandbox.label``): ``workspace-write · net off``, ``off``,
    ``unavailable: <reason>``; empty shows nothing (a replay: no commands run)."""
    effort: str = ""
    """The reasoning effort asked (``/effort``, ``--reasoning-effort``); empty or ``auto``
    shows nothing (the model's own)."""
    jobs: int = 0
    """Background jobs running (a dev server the model started): 0 shows nothing."""


Step = tuple[int, str, Text]
"""``(priority, field, text)``: show ``field`` as ``text`` (replacing a shorter form)."""


def _text(value: str, style: str = "") -> Text:
    return Text(value, style=style)


@lru_cache(maxsize=256)
def _shown(text: str) -> str:
    """One row of display text (cached: the bar offers the same few names every flush)."""
    return display_preview(text, one_line=True, limit=80)


SANDBOX_SHORT = {"workspace-write": "ws-write", "read-only": "read-only"}
"""The short form's name of each mode (``sbx ws-write·net off``)."""
WARNING = "bold reverse"
"""The style of a warning field when the bar is drawn without a theme (tests, plain
``render_status``); the ``StatusBar`` passes its theme's ``status-bar--warning``."""


def sandbox_forms(label: str, warning: Style | str = WARNING) -> tuple[Text, Text, bool]:
    """The sandbox field's short and full forms, and whether it is a warning."""
    mode, _, rest = label.partition(" · ")
    if mode == "unavailable" or label.startswith("unavailable"):
        reason = label.partition(":")[2].strip()
        full = f"sandbox: unavailable ({reason})" if reason else "sandbox: unavailable"
        return Text("sandbox: unavailable", warning), Text(full, warning), True
    if mode in SANDBOX_SHORT and rest:
        return (
            Text.assemble(("sbx ", "dim"), f"{SANDBOX_SHORT[mode]}·{rest}"),
            Text.assemble(("sandbox: ", "dim"), label),
            False,
        )
    if label == "off":
        return (
            Text.assemble(("sbx ", "dim"), "off"),
            Text.assemble(("sandbox: ", "dim"), "off"),
            False,
        )
    return Text(f"sbx {label}"), Text(f"sandbox: {label}"), False


def _steps(info: StatusInfo, warning: Style | str = WARNING) -> list[Step]:
    """Every field's forms with the priority of showing each (short forms first)."""
    info = replace(
        info,
        model=_shown(info.model),
        mode=_shown(info.mode),
        session=_shown(info.session),
        activity=_shown(info.activity),
        waiting=_shown(info.waiting),
        approval=_shown(info.approval),
        sandbox=_shown(info.sandbox),
    )
    working = info.working is not None
    busy = working or info.activity not in ("", "idle")
    """The stream is the news (a turn, a running tool, a replay): its fields first."""
    steps: list[Step] = []

    def add(field: str, priority: int, short: Text, full: Text | None, upgrade: int) -> None:
        steps.append((priority, field, short))
        if full is not None and full.plain != short.plain:
            steps.append((upgrade, field, full))

    activity = info.activity
    if working:
        # short: the clock and the key; mid: the words of the issue ("Working 1m05s · esc to
        # interrupt"); full: what runs (the Tools pane and a review show that too). A silent
        # server's wait is news, so every form keeps it.
        sub = "" if activity in ("", "streaming", "idle") else activity
        wait = f" · {info.waiting}" if info.waiting else ""
        clock = clock_text(info.working or 0.0)
        key = info.interrupt_key
        short = f"{info.spinner} {clock}{wait} · {key}"
        mid = f"{info.spinner} Working {clock}{wait} · {key} to interrupt"
        full = f"{info.spinner} Working {clock}" + (f" · {sub}" if sub else "")
        full += f"{wait} · {key} to interrupt"
        add("activity", 100, _text(short, "reverse"), _text(mid, "reverse"), 95)
        if full != mid:
            steps.append((70, "activity", _text(full, "reverse")))
    elif activity or info.waiting:
        if info.waiting:
            quiet = activity in ("", "streaming", "idle")
            activity = info.waiting if quiet else f"{activity} · {info.waiting}"
        style = "reverse" if activity != "idle" else "dim"
        add("activity", 100, _text(activity, style), None, 0)
    if info.approval:
        style = "bold reverse" if info.approval == "auto" else "bold"
        add(
            "approval",
            90 if busy else 95,
            _text(info.approval, style),
            Text.assemble(("approval ", "dim"), (info.approval, style)),
            13 if busy else 26,
        )
    if info.sandbox:
        confined, in_full, warns = sandbox_forms(info.sandbox, warning)
        if warns:  # commands are not confined: news whatever else is going on
            add("sandbox", 97, confined, in_full, 25 if busy else 60)
        else:
            add("sandbox", 72 if busy else 92, confined, in_full, 10 if busy else 81)
    if info.jobs:
        plural = "s" if info.jobs > 1 else ""
        short, full = f"{info.jobs} job{plural}", f"{info.jobs} background job{plural} (/jobs)"
        add(
            "jobs", 74 if busy else 91, _text(short, "bold"), _text(full, "bold"), 8 if busy else 27
        )
    model = info.model or "no model"
    short_model = model if len(model) <= 14 else model[:13] + "…"
    add("model", 55 if busy else 90, _text(short_model, "bold"), _text(model, "bold"), 9)
    if info.effort not in ("", "auto"):
        add("effort", 52 if busy else 87, _text(info.effort), _text(f"effort {info.effort}"), 30)
    if info.mode:
        add("mode", 60 if busy else 88, _text(info.mode), None, 0)
    if info.token_rate is not None:
        rate = f"{'~' if info.rate_estimated else ''}{info.token_rate:,.0f} tok/s"
        add("rate", 75 if busy else 70, _text(rate), None, 0)
    add(
        "frontier",
        78 if busy else 50,
        _text(f"fr {info.frontier:,}", "bold"),
        _text(f"frontier {info.frontier:,}", "bold"),
        15 if busy else 20,
    )
    pending_style = "italic underline" if info.pending else ""
    add(
        "pending",
        80 if busy else 48,
        _text(f"pend {info.pending:,}", pending_style),
        _text(f"pending {info.pending:,}", pending_style),
        14 if busy else 19,
    )
    if info.tokens_in is not None:
        brief = f"{count_text(info.tokens_in)}↑ {count_text(info.tokens_out)}↓"
        whole = f"{count_text(info.tokens_in)} in · {count_text(info.tokens_out)} out"
        if info.tokens_cached:
            whole += f" · {count_text(info.tokens_cached)} cached"
        add("tokens", 45 if busy else 82, _text(brief), _text(whole), 12 if busy else 28)
    if info.context is not None:
        style = "bold" if info.context > 0.8 else ""
        mark = "?" if info.context_assumed else ""  # of a window nobody said: see the note
        ctx = _text(f"ctx {info.context:.0%}{mark}", style)
        assumed = _text(f"ctx {info.context:.0%} of an assumed window", style) if mark else None
        add("context", 50 if busy else 84, ctx, assumed, 0)
    if info.session:
        add(
            "session",
            40 if busy else 86,
            _text(info.session[:8], "dim"),
            _text(f"session {info.session[:8]}", "dim"),
            11 if busy else 30,
        )
    hints = _text("? help  ^p palette", "dim")
    add("hints", 20 if busy else 65, _text("? help", "dim"), hints, 5)
    return steps


def _width(chosen: dict[str, Text]) -> int:
    if not chosen:
        return 0
    separators = cell_len(SEPARATOR) * (len(chosen) - 1)
    return sum(text.cell_len for text in chosen.values()) + separators


def fit_status(info: StatusInfo, width: int, warning: Style | str = WARNING) -> dict[str, Text]:
    """The fields shown at ``width`` cells and the form of each (see the module doc)."""
    chosen: dict[str, Text] = {}
    seen: set[str] = set()
    used = -cell_len(SEPARATOR)  # cells of the chosen fields and their separators
    gap = cell_len(SEPARATOR)
    for _, field, text in sorted(_steps(info, warning), key=lambda step: -step[0]):
        if field in seen and field not in chosen:
            continue  # its short form did not fit: a longer one cannot
        seen.add(field)
        before = chosen.get(field)
        grown = used + text.cell_len + (gap if before is None else -before.cell_len)
        if grown <= width:
            chosen[field] = text
            used = grown
    return chosen


def render_status(info: StatusInfo, width: int = 1000, warning: Style | str = WARNING) -> Text:
    """The bar's line at ``width`` cells: fields by priority, in display order."""
    chosen = fit_status(info, width, warning)
    text = Text(no_wrap=True, overflow="ellipsis")
    first = True
    for field in ORDER:
        part = chosen.get(field)
        if part is None:
            continue
        if not first:
            text.append(SEPARATOR, style="dim")
        text.append_text(part)
        first = False
    return text


class StatusBar(Static):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"status-bar--warning"}
    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $foreground; padding: 0 1; }
    StatusBar > .status-bar--warning { background: $warning; color: $panel; text-style: bold; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.info: StatusInfo | None = None
        self._shown: tuple[StatusInfo, int, Style] | None = None
        """What the bar shows now: every flush offers the status, few change it."""
        self._warning: Style | None = None
        self._pacer = Pacer(MOVING)
        self._deferred: Timer | None = None
        """The paint of the latest status a pace held back (``paint_now`` does it now)."""

    def show(self, info: StatusInfo) -> None:
        self.info = info
        self._paint()

    def paint_now(self) -> None:
        """Draw the latest status even if only its moving numbers changed (a forced
        flush: after a user action, in tests)."""
        self._paint(paced=False)

    def _paint_deferred(self) -> None:
        self._deferred = None
        self._paint()

    def on_resize(self, event: events.Resize) -> None:
        self._paint()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._shown = self._warning = None  # a theme change restyles the warning field

    def _paint(self, paced: bool = True) -> None:
        """Draw the bar, unless it would look as it does: the flush timer offers the
        status ~30 times a second, and an unchanged bar must cost no repaint (idle CPU).
        A change of only the moving numbers waits for its pace (``MOVING``)."""
        if self.info is None:
            return
        width = self.content_size.width or max(1, self.app.size.width - 2)
        warning = self._warning
        if warning is None:
            warning = self._warning = self.get_component_rich_style(
                "status-bar--warning", partial=True
            )
        key = (as_shown(self.info), width, warning)
        if key == self._shown:
            return
        if paced and self._shown is not None and self._shown[1:] == key[1:]:
            wait = self._pacer.wait(self._shown[0], key[0])
            if wait > 0:
                if self._deferred is None:
                    self._deferred = self.set_timer(wait, self._paint_deferred)
                return
        if self._deferred is not None:
            self._deferred.stop()
            self._deferred = None
        if self._shown is not None and self._shown[1:] == key[1:]:
            self._pacer.painted(self._shown[0], key[0])
        else:
            self._pacer.painted(None, key[0])
        self._shown = key
        self.update(render_status(self.info, width, warning), layout=False)


def as_shown(info: StatusInfo) -> StatusInfo:
    """``info`` at the precision the bar draws it (whole seconds, whole tokens/s): a
    status that differs only below it draws the same bar and costs no repaint."""
    working = None if info.working is None else float(int(info.working))
    rate = None if info.token_rate is None else round(info.token_rate)
    if working == info.working and rate == info.token_rate:
        return info
    return replace(info, working=working, token_rate=rate)
