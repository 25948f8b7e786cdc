"""``BlockView`` (the Transcript's and the Tools pane's line view) draws the layout it
last settled, even after its blocks changed while it could not lay out.

A layout (f6) hides panes: blocks set then cannot be measured (no width) until the pane
is shown and resized. A paint in between indexed the new, shorter block list with the old
start lines: IndexError, and the app closed (found by a key fuzz: the demo's ctrl+n
resets the panes, then f6 shows the Tools pane)."""

from __future__ import annotations

from pilot_wait import until
from rich.text import Text
from textual.app import App, ComposeResult

from frontier.widgets.block_view import BlockView


class ViewApp(App[None]):
    def compose(self) -> ComposeResult:
        yield BlockView(id="view")


async def test_a_paint_after_blocks_set_while_hidden_draws_the_last_layout() -> None:
    app = ViewApp()
    async with app.run_test(size=(40, 10)) as pilot:
        view = app.query_one(BlockView)
        view.set_blocks([(i, Text(f"block {i}")) for i in range(5)])
        await until(pilot, lambda: view.line_count == 5, "the first layout")
        view.display = False
        await pilot.pause()
        view.set_blocks([("new", Text("only one"))])  # no width to lay it out at
        drawn = [view.render_line(y).text.rstrip() for y in range(5)]
        assert drawn == [f"block {i}" for i in range(5)]  # the last settled layout
        view.display = True
        await until(pilot, lambda: view.line_count == 1, "laid out once shown")
        assert [line.rstrip() for line in view.plain_lines] == ["only one"]
        assert view.render_line(0).text.rstrip() == "only one"
