"""What one look of a live pager costs (``PagerView.set_text``: a running call's or a job's
output grew), beside making the same text display-safe (``display_preview``, the least
any showing of it costs), in the same run.

    .venv/bin/python bench/pager_follow.py [--runs 5]

The pager is mounted in a headless App at 120×40 (its width decides the wrapping); the
text is a test run's output of 1 KB, 100 KB and 1 MB (the most a running call's pager
holds, ``tool_row.STREAM_KEEP``), shown at its end as the pager follows it. Best of
``--runs``. Nothing is asserted: the pager looks every 0.5 s while the output grows.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

SIZES = (1_000, 100_000, 1_000_000)


def output(size: int) -> str:
    line = "tests/test_module_{i}.py::test_case_{i} PASSED                      [ 42%]\n"
    out: list[str] = []
    total, i = 0, 0
    while total < size:
        piece = line.format(i=i)
        out.append(piece)
        total += len(piece)
        i += 1
    return "".join(out)[:size]


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    from textual.app import App

    from frontier.app.frontends.tui.screens.pager import PagerScreen, PagerView
    from frontier.widgets.display import LINE_KEEP, display_preview

    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(PagerScreen("c1 shell pytest", "starting\n"))

    rows: list[tuple[int, float, float]] = []
    app = Host()
    async with app.run_test(size=(120, 40)) as pilot:
        while not isinstance(app.screen, PagerScreen):
            await pilot.pause()
        view = app.screen.query_one(PagerView)
        while not view.row_count:
            await pilot.pause()
        for size in SIZES:
            text = output(size)
            looks, floor = [], []
            for _ in range(args.runs):
                view.set_text("starting\n")
                start = time.perf_counter()
                view.set_text(text)
                looks.append(time.perf_counter() - start)
                start = time.perf_counter()
                display_preview(text.rstrip("\n"), keep=LINE_KEEP)
                floor.append(time.perf_counter() - start)
            rows.append((size, min(looks), min(floor)))
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"one look of a live pager (set_text), best of {args.runs}; load {load}")
    print(f"{'output':>10}  {'set_text':>9}  {'display_preview':>15}  {'ratio':>6}")
    for size, look, floor in rows:
        print(f"{size:>10,}  {look * 1000:>7.1f}ms  {floor * 1000:>13.1f}ms  {look / floor:>6.2f}")


if __name__ == "__main__":
    asyncio.run(main())
