"""The key bar (``widgets/key_bar.py``): the screen's keys on one line, as a person reads,
points at and clicks them; it follows focus without remounting anything."""

from __future__ import annotations

from typing import Any, ClassVar

from pilot_wait import eventually, until
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.pilot import Pilot
from textual.widgets import Input

from frontier.widgets.key_bar import KeyBar, drop_cells


class Field(Input):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+y", "yank", "Yank")]

    def action_yank(self) -> None:
        self.app.log_lines.append("yank")  # type: ignore[attr-defined]


class Keys(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "note('help')", "Help", tooltip="Open the help"),
        Binding("plus,equals_sign", "note('faster')", "Faster", key_display="+"),
        Binding("f9", "note('locked')", "Locked"),
        Binding("f8", "note('hidden')", "Hidden", show=False),
    ]

    def __init__(self, extra: int = 0) -> None:
        super().__init__()
        self.log_lines: list[str] = []
        self.bells = 0
        self.locked = True
        for n in range(extra):
            self.bind(f"ctrl+{chr(ord('a') + n)}", f"note('x{n}')", description=f"Extra {n}")

    def compose(self) -> ComposeResult:
        yield Field(id="one")
        yield Input(id="two")
        yield KeyBar()

    def action_note(self, what: str) -> None:
        self.log_lines.append(what)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "note" and parameters == ("locked",) and self.locked:
            return None  # shown, dimmed, not run
        return True

    def bell(self) -> None:
        self.bells += 1


def bar_line(app: Any) -> str:
    bar = app.screen.query_one(KeyBar)
    return str(app.screen._compositor.render_strips()[bar.region.y].text)


def x_of(app: Any, needle: str) -> int:
    line = bar_line(app)
    assert needle in line, line
    return line.index(needle) + 1


async def shown(pilot: Pilot[Any], needle: str) -> None:
    await until(pilot, lambda: needle in bar_line(pilot.app), f"{needle!r} in the key bar")


async def test_the_bar_shows_each_action_once_and_the_palette_at_the_right_edge() -> None:
    app = Keys()
    async with app.run_test(size=(80, 14)) as pilot:
        await shown(pilot, "f1 Help")
        line = bar_line(app)
        assert line.startswith(" ^y Yank  f1 Help  + Faster  f9 Locked  ")  # focus first
        assert line.count("Faster") == 1  # plus and equals_sign: one action, shown once
        assert "Hidden" not in line
        assert line.endswith("▏^p palette ") and len(line) == 80


async def test_the_bar_follows_focus_and_stays_one_widget() -> None:
    app = Keys()
    async with app.run_test(size=(80, 14)) as pilot:
        bar = app.screen.query_one(KeyBar)
        await pilot.click("#one")
        await shown(pilot, "^y Yank")
        await pilot.click("#two")
        await until(pilot, lambda: "Yank" not in bar_line(app), "Yank gone with the focus")
        assert app.screen.query_one(KeyBar) is bar and not bar.children


async def test_clicking_a_key_presses_it_and_a_disabled_key_rings_the_bell() -> None:
    app = Keys()
    async with app.run_test(size=(80, 14)) as pilot:
        await shown(pilot, "f9 Locked")
        bar = app.screen.query_one(KeyBar)
        await pilot.click(KeyBar, offset=(x_of(app, "Help"), 0))
        await until(pilot, lambda: app.log_lines == ["help"], "f1's action")
        await pilot.click(KeyBar, offset=(x_of(app, "Locked"), 0))
        await until(pilot, lambda: app.bells == 1, "the bell")
        assert app.log_lines == ["help"]
        app.locked = False
        app.screen.refresh_bindings()
        await pilot.click(KeyBar, offset=(x_of(app, "Locked"), 0))
        await until(pilot, lambda: app.log_lines == ["help", "locked"], "f9's action")
        gap = len(bar_line(app).rstrip()) - len("▏^p palette") - 2
        await pilot.click(KeyBar, offset=(gap, 0))  # between keys: nothing
        await pilot.pause()
        assert app.log_lines == ["help", "locked"] and app.bells == 1
        assert bar.region.height == 1


async def test_pointing_at_a_key_highlights_it_until_the_pointer_leaves() -> None:
    app = Keys()
    async with app.run_test(size=(80, 14)) as pilot:
        await shown(pilot, "f1 Help")
        bar = app.screen.query_one(KeyBar)

        def background(x: int) -> object:
            strip = app.screen._compositor.render_strips()[bar.region.y]
            cells = 0
            for segment in strip:
                cells += len(segment.text)
                if cells > x:
                    return segment.style.bgcolor if segment.style else None
            raise AssertionError(x)

        plain = background(x_of(app, "Help"))
        await pilot.hover(KeyBar, offset=(x_of(app, "Help"), 0))
        await eventually(
            pilot, lambda: _differs(background(x_of(app, "Help")), plain), "the highlight"
        )
        assert background(x_of(app, "Faster")) == plain  # only the key pointed at
        assert bar.tooltip == "Open the help"
        await pilot.hover("#one")
        await eventually(
            pilot, lambda: _same(background(x_of(app, "Help")), plain), "the highlight gone"
        )
        assert bar.tooltip is None


def _differs(a: object, b: object) -> None:
    assert a != b


def _same(a: object, b: object) -> None:
    assert a == b


async def test_a_line_wider_than_the_bar_scrolls_under_the_wheel_and_the_palette_stays() -> None:
    app = Keys(extra=8)
    async with app.run_test(size=(60, 14)) as pilot:
        await shown(pilot, "f1 Help")
        first = bar_line(app)
        assert "Extra 7" not in first and first.endswith("▏^p palette ")
        bar = app.screen.query_one(KeyBar)
        for _ in range(40):  # the wheel over the bar, as the terminal reports it
            bar.post_message(events.MouseScrollDown(bar, 5, 0, 0, 1, 0, False, False, False))
        await eventually(
            pilot, lambda: _contains(bar_line(app), "Extra 7"), "the end of the line scrolled in"
        )
        line = bar_line(app)
        assert "f1 Help" not in line and line.endswith("▏^p palette ") and len(line) == 60
        await pilot.click(KeyBar, offset=(x_of(app, "Extra 7"), 0))
        await until(pilot, lambda: app.log_lines == ["x7"], "the scrolled key's action")


def _contains(line: str, needle: str) -> None:
    assert needle in line, line


def test_dropping_cells_keeps_wide_characters_aligned() -> None:
    text = Text("ab漢c")  # 漢 is two cells
    assert drop_cells(text, 1).plain == "b漢c"
    assert drop_cells(text, 3).plain == " c"  # the cut half of 漢 is a space
    assert drop_cells(text, 4).plain == "c"
    assert drop_cells(text, 9).plain == ""
