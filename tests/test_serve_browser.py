"""`frontier serve` in a real headless Chromium: the page loads, the demo plays, the
patch review is approved by key presses, and the change shows in the Tools pane and on
disk. The screenshot of that moment is the docs image: set FRONTIER_BROWSER_SCREENSHOT
to a path (docs/screenshots/browser-demo.png) to write it there.

Debian's Chromium (``apt-get install chromium``; .ci/run does) driven by Playwright with
``executable_path``: Playwright never downloads a browser here. textual-serve draws
the terminal with xterm.js on a canvas, so the screen text is read from xterm's own
buffer: the Terminal object is found once through the DevTools protocol
(Runtime.queryObjects), then read with ``buffer.active.getLine()`` as often as needed.
Every wait polls that text, bounded; none sleeps for timing."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from browser_helpers import CHROMIUM, CHROMIUM_ARGS, require_chromium
from serve_helpers import serving

pytest.importorskip("textual_serve", reason="textual-serve is not installed (the serve extra)")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install -e '.[test]')"
)

require_chromium("the browser test of frontier serve")

pytestmark = pytest.mark.slow

VIEWPORT = {"width": 1280, "height": 800}  # a projector's size; a ~120 KB PNG

FIND_TERMINAL = """function () {
  const term = this.find((o) => {
    try {
      return o && typeof o.write === "function" && typeof o.focus === "function"
        && o.buffer && o.buffer.active && typeof o.buffer.active.getLine === "function";
    } catch (e) { return false; }
  });
  if (term) window.__frontierTerminal = term;
  return Boolean(term);
}"""
SCREEN_TEXT = """() => {
  const term = window.__frontierTerminal;
  const buffer = term.buffer.active;
  const rows = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
}"""


class Screen:
    """The served TUI as xterm.js holds it in the page."""

    def __init__(self, page: sync_api.Page) -> None:
        self.page = page
        self.text = ""

    def attach(self, timeout: float = 30.0) -> None:
        cdp = self.page.context.new_cdp_session(self.page)
        prototype = cdp.send("Runtime.evaluate", {"expression": "Object.prototype"})
        deadline = time.monotonic() + timeout
        while True:
            objects = cdp.send(
                "Runtime.queryObjects", {"prototypeObjectId": prototype["result"]["objectId"]}
            )["objects"]["objectId"]
            found = cdp.send(
                "Runtime.callFunctionOn",
                {"objectId": objects, "functionDeclaration": FIND_TERMINAL, "returnByValue": True},
            )["result"].get("value")
            cdp.send("Runtime.releaseObject", {"objectId": objects})
            if found:
                cdp.detach()
                return
            if time.monotonic() > deadline:
                raise AssertionError("the page never made an xterm.js terminal")
            time.sleep(0.1)

    def read(self) -> str:
        self.text = self.page.evaluate(SCREEN_TEXT)
        return self.text

    def wait_for(self, what: str, ok: Callable[[str], bool], timeout: float = 90.0) -> float:
        """Poll the screen until ``ok``; the seconds it took."""
        started = time.monotonic()
        while not ok(self.read()):
            if time.monotonic() - started > timeout:
                raise AssertionError(f"no {what} within {timeout} s; the screen:\n{self.text}")
            time.sleep(0.1)
        return time.monotonic() - started

    def press(self, key: str) -> None:
        self.page.evaluate("() => window.__frontierTerminal.focus()")
        self.page.keyboard.press(key)


def _tool_line(name: str, state: str) -> Callable[[str], bool]:
    # a row opens its output (▸) or not (•): the marker comes first
    pattern = re.compile(
        rf"^│?\s*(?:[▸•]\s)?{re.escape(name)}\s.*\s{re.escape(state)}\s", re.MULTILINE
    )
    return lambda text: bool(pattern.search(text))


# slow (~20 s): a real Chromium loads the served TUI and plays the demo
def test_the_demo_plays_in_chromium_and_a_review_is_approved_by_keys(tmp_path: Path) -> None:
    timings: dict[str, float] = {}
    started = time.monotonic()
    with serving() as served:
        timings["server listening"] = time.monotonic() - started
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch_persistent_context(
                str(tmp_path / "chromium-profile"),  # a fresh profile every run
                executable_path=CHROMIUM,
                headless=True,
                args=CHROMIUM_ARGS,
                viewport=VIEWPORT,
            )
            try:
                page = browser.pages[0] if browser.pages else browser.new_page()
                loaded = time.monotonic()
                page.goto(served.url + "/")
                # textual-serve shows a Start button only for ?delay; click it if shown.
                start = page.locator("#start.-delay")
                if start.count():
                    start.click()
                screen = Screen(page)
                screen.attach()
                screen.wait_for("Frontier TUI", lambda t: "Transcript" in t and "Raw stream" in t)
                timings["page load to first paint"] = time.monotonic() - loaded
                screen.wait_for("patch review", lambda t: "Review patch" in t and "a approve" in t)
                timings["page load to patch review"] = time.monotonic() - loaded
                assert "apply_patch" in screen.text and "greet/cli.py" in screen.text
                screen.press("a")
                screen.wait_for(
                    "approved patch in the Tools pane", _tool_line("c2 apply_patch", "ok")
                )
                # The approval reached the files: the demo's scratch copy has the change.
                data = Path(os.environ["FRONTIER_DATA_DIR"])
                changed = [
                    p for p in data.rglob("greet/cli.py") if "--shout" in p.read_text("utf-8")
                ]
                assert changed, "the approved patch is not in the demo's workspace"
                # The command review next; approved the same way, the tests run.
                screen.wait_for("command review", lambda t: "Review command" in t)
                screen.press("a")
                screen.wait_for("the command's result", _tool_line("c3 shell", "ok"))
                # The story goes on: a miscounted body (a contract error, repaired by a
                # heredoc) and a write to review; approved, it is the docs picture.
                screen.wait_for(
                    "the write's review", lambda t: "Review patch" in t and "c4 write" in t
                )
                screen.press("a")
                screen.wait_for("the write's result", _tool_line("c4 write", "ok"))
                # the Errors pane paints at the slow panes' rate: wait for it, not a time
                screen.wait_for(
                    "the contract error in the Errors pane",
                    lambda t: "body_eof @217" in t,  # the Errors pane's row: kind @byte
                )
                shot = Path(os.environ.get("FRONTIER_BROWSER_SCREENSHOT") or tmp_path / "b.png")
                shot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(shot))
                assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            finally:
                browser.close()
    print("timings: " + ", ".join(f"{k} {v:.1f}s" for k, v in timings.items()))
