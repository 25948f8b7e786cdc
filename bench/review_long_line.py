"""How long the review of an edit of a long one-line file takes to open in the TUI.

    .venv/bin/python bench/review_long_line.py [--sizes 1,2,5,20] [--runs 3]
        [--uncut 1] [--uncut-limit 60] [--size 120x40]

Issue 21, item 10: reviewing an edit of a 1 MB one-line file (a minified bundle, a
generated fixture) opened the modal after 19 s, 2 MB showed nothing in 20 s — the event
loop was in rich's per-character wrapping — while ``frontier`` headless printed the same
20 MB diff in 3 s. Every widget now renders at most the first and last ``LINE_KEEP``
(2,000) characters of a line, ``… N characters …`` between (``widgets/display.py``).

Each case is one edit of a one-line file of N MB (its first and last characters change,
so the diff is that one line removed and added) and runs in a child process of its own
(a fresh interpreter: one case's garbage is not the next one's, and a frozen event loop
can be killed). The child builds the preview as the core does (``file_preview`` from the
old and new bytes; timed, but not part of the review figure), then in a headless
``FrontierApp`` driven by Textual's Pilot (as the tests do), after one warm-up review of a
1 KB file (the first review in a process loads pygments and the modal's CSS), asks for
the review (``app.review``: what the tool boundary awaits) and measures, from that call:

* ``mounted``: the ``ReviewScreen``'s ``on_mount`` has run;
* ``shown``: the first frame Textual composed for the review screen (``App._display``:
  headless, every frame is composed as for a terminal and only not written) after which
  the screen's rows hold the old line's start (``- axxxx``) — what a person sees. Both
  instants are noted where they happen (the two methods are wrapped), not when a polling
  loop wakes. Then ``a`` approves and the worker's decision is checked.

References measured in the same run, each in the same kind of child:

* ``headless``: the headless front end's rendering of the same preview —
  ``terminal_safe(render_preview(preview))`` written to ``/dev/null`` (what ``frontier
  run`` prints to ask for approval);
* ``1 KB``: the same review of a 1 KB one-line file (first row);
* ``uncut``: the same review with cutting disabled (``display.LINE_KEEP`` set to 10⁹ in
  the child: the behaviour before item 10) for the sizes in ``--uncut``, killed after
  ``--uncut-limit`` seconds.

Runs alternate between cases (case A run 1, case B run 1, …); each figure is the median
of ``--runs`` with the minimum beside it. Columns: ``÷ 1 KB`` and ``÷ headless`` divide
``shown`` by those references, ``uncut ÷ cut`` an uncut case's ``shown`` by the same size
cut, ``RSS MB`` is the child's peak (the 20 MB old and new texts alone are ~80 MB).
Nothing here is a test: the tests only assert that the 20 MB review opens and shows both
ends (``tests/test_tui_hostile_long_line.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

KB = 1_000
MB = 1_000_000
HUGE_KEEP = 10**9
"""``LINE_KEEP`` for the "uncut" case: no line is ever cut."""


# ---------------------------------------------------------------------- the child
def make_preview(size: int) -> Any:
    """An edit of a ``size``-character one-line file: the first and last characters change."""
    from frontier.tools.contract import Preview
    from frontier.tools.diffing import file_preview

    old = "a" + "x" * (size - 3) + "z\n"
    new = "A" + "x" * (size - 3) + "Z\n"
    file = file_preview("dist/app.min.js", old.encode(), new.encode())
    return Preview(kind="diff", files=(file,), summary="M dist/app.min.js (+1 −1)")


def screen_text(app: Any) -> str:
    """The screen as the terminal rows show it (composes every row: what a paint does)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def time_review(preview: Any, width: int, height: int) -> dict[str, float]:
    """Seconds from ``app.review`` to the modal mounted and to its diff on screen.

    Both instants are taken where they happen, not when a polling loop notices: the
    review screen's ``on_mount`` and the App's ``_display`` (headless, Textual composes
    every frame as for a terminal and only skips writing it) are wrapped to note the
    time. ``shown`` is the first frame after which the screen's rows hold the old
    line's start."""
    from frontier.app.config import Config
    from frontier.app.events import ToolCall
    from frontier.app.frontends.tui.app import FrontierApp
    from frontier.app.frontends.tui.screens.review import ReviewScreen
    from frontier.tools.contract import Decision, ToolSpec

    spec = ToolSpec("write", "write a file", {}, mutates=True, kind="edit")
    call = ToolCall("c1", "write", {"path": "dist/app.min.js", "content": "…"})
    app = FrontierApp(Config(model="bench"), welcome=False, autostart=False, remember_theme=False)
    marks: dict[str, float] = {}
    frames: list[float] = []
    on_mount, display = ReviewScreen.on_mount, FrontierApp._display

    def mounted(screen: ReviewScreen) -> None:
        on_mount(screen)
        marks.setdefault("mounted", time.perf_counter())

    def frame(self: FrontierApp, screen: Any, renderable: Any) -> None:
        display(self, screen, renderable)
        if isinstance(screen, ReviewScreen) and renderable is not None:
            frames.append(time.perf_counter())

    ReviewScreen.on_mount = mounted  # type: ignore[method-assign]
    FrontierApp._display = frame  # type: ignore[method-assign]
    async with app.run_test(size=(width, height)) as pilot:
        # warm up: the first review in a process loads pygments' lexer and style and
        # the modal's CSS (~0.5 s, whatever the file); time what the line itself costs
        warm = app.run_worker(app.review(call, spec, make_preview(KB)), exit_on_error=False)
        await until_true(lambda: bool(frames))
        await pilot.press("a")
        await warm.wait()
        await pilot.pause()
        marks.clear()
        frames.clear()
        start = time.perf_counter()
        worker = app.run_worker(app.review(call, spec, preview), exit_on_error=False)
        checked = 0
        while "shown" not in marks:
            await asyncio.sleep(0.002)
            if len(frames) > checked:
                checked = len(frames)
                last = frames[-1]
                if "- axxxx" in screen_text(app):
                    marks["shown"] = last
        await pilot.press("a")
        await worker.wait()
    if worker.result != Decision(True):
        raise SystemExit(f"the review answered {worker.result!r}, not an approval")
    return {key: at - start for key, at in marks.items()}


async def until_true(cond: Any) -> None:
    while not cond():
        await asyncio.sleep(0.002)


def headless(preview: Any) -> float:
    """Seconds the headless front end takes to print the same preview for approval."""
    from frontier.app.frontends.headless import render_preview
    from frontier.app.frontends.terminal_text import terminal_safe

    start = time.perf_counter()
    with open(os.devnull, "w", encoding="utf-8") as out:
        out.write(terminal_safe(render_preview(preview)) + "\n")
    return time.perf_counter() - start


def child(size: int, uncut: bool, width: int, height: int) -> None:
    if uncut:
        from frontier.widgets import display

        display.LINE_KEEP = HUGE_KEEP
    start = time.perf_counter()
    preview = make_preview(size)
    figures = {"preview": time.perf_counter() - start}
    figures["headless"] = headless(preview)
    figures.update(asyncio.run(time_review(preview, width, height)))
    figures["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(figures), flush=True)


# ---------------------------------------------------------------------- the parent
def run_case(size: int, uncut: bool, args: argparse.Namespace) -> dict[str, float] | None:
    """One child; ``None`` when it was killed at the limit (the modal never showed)."""
    command = [sys.executable, __file__, "--child", str(size), "--size", args.size]
    if uncut:
        command.append("--uncut-child")
    limit = args.uncut_limit if uncut else args.limit
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit, check=True)
    except subprocess.TimeoutExpired:
        return None
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"case {size:,} (uncut={uncut}) failed:\n{exc.stderr}") from None
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def label(size: int, uncut: bool = False) -> str:
    name = f"{size / MB:g} MB" if size >= MB else f"{size / KB:g} KB"
    return name + (" uncut" if uncut else "")


def figure(values: list[float]) -> str:
    """``median (min)``."""
    return f"{statistics.median(values):.3f} ({min(values):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[1], formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--sizes", default="1,2,5,20", help="MB, comma-separated")
    parser.add_argument("--uncut", default="1", help="MB to also time uncut ('' for none)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--size", default="120x40", help="terminal columns x rows")
    parser.add_argument("--limit", type=float, default=300.0, help="s before a cut case fails")
    parser.add_argument("--uncut-limit", type=float, default=60.0, help="s before uncut is killed")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--uncut-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.lower().split("x"))
    if args.child is not None:
        child(args.child, args.uncut_child, width, height)
        return

    cases = [(KB, False)] + [(round(float(n) * MB), False) for n in args.sizes.split(",") if n]
    cases += [(round(float(n) * MB), True) for n in args.uncut.split(",") if n]
    results: dict[tuple[int, bool], list[dict[str, float] | None]] = {c: [] for c in cases}
    for run in range(args.runs):
        for case in cases:
            results[case].append(run_case(*case, args))
            print(f"run {run + 1}/{args.runs}: {label(*case)}", file=sys.stderr, flush=True)

    def shown(case: tuple[int, bool]) -> float | None:
        done = [r["shown"] for r in results.get(case, []) if r is not None]
        return statistics.median(done) if done else None

    reference = shown((KB, False)) or float("nan")
    print(
        f"review of an edit of a one-line file, headless Pilot {args.size}, {args.runs} runs "
        "per case, alternating; median (min) seconds from app.review"
    )
    print(
        f"{'case':<13}{'preview':>9}{'mounted':>16}{'shown':>16}{'÷ 1 KB':>8}"
        f"{'headless ms':>12}{'÷ headless':>12}{'uncut ÷ cut':>13}{'RSS MB':>8}"
    )
    for (size, uncut), runs in results.items():
        done = [r for r in runs if r is not None]
        killed = len(runs) - len(done)
        note = (
            f"  killed at {args.uncut_limit:g} s in {killed} of {len(runs)} runs" if killed else ""
        )
        cut = shown((size, False)) if uncut else None
        if not done:
            over = f"> {args.uncut_limit:g}"
            versus = f"> {args.uncut_limit / cut:,.0f}" if cut else ""
            print(
                f"{label(size, uncut):<13}{'':>9}{'':>16}{over:>16}"
                f"{'> ' + format(args.uncut_limit / reference, ',.0f'):>8}{'':>12}{'':>12}"
                f"{versus:>13}{'':>8}{note}"
            )
            continue
        median_shown = statistics.median(r["shown"] for r in done)
        headless_s = statistics.median(r["headless"] for r in done)
        versus = f"{median_shown / cut:,.0f}" if cut else ""
        print(
            f"{label(size, uncut):<13}{statistics.median(r['preview'] for r in done):>9.3f}"
            f"{figure([r['mounted'] for r in done]):>16}{figure([r['shown'] for r in done]):>16}"
            f"{median_shown / reference:>8.1f}{headless_s * 1000:>12.1f}"
            f"{median_shown / headless_s:>12.1f}{versus:>13}"
            f"{max(r['rss_mb'] for r in done):>8.0f}{note}"
        )
    biggest = max(size for size, uncut in cases if not uncut)
    if biggest > KB:
        at = shown((biggest, False))
        print(
            f"target: the review of a 20 MB one-line file on screen within 2 s; "
            f"{label(biggest)}: {at:.3f} s"
        )


if __name__ == "__main__":
    main()
