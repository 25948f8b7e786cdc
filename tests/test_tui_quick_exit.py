"""The TUI's terminal driver stops its input thread at once at exit (``quick_exit.py``):
Textual's waited out the thread's 0.1 s select and 0.1 s more, 0.2 s of every quit.

A real app on a pseudo-terminal, the driver's wait for input made endless: the app still
exits the moment ctrl+q is read, and leaves the terminal as it found it. Waits are for
states (a screen, an exit), bounded only against a hang."""

from __future__ import annotations

import os
import pty
import select
import sys
import textwrap
import time
from pathlib import Path

import pytest

DEADLINE = 120.0
"""Seconds before the test gives up: far beyond a start on a loaded box."""

APP = textwrap.dedent(
    """
    from textual.app import App
    from textual.widgets import Static

    from frontier.app.frontends.tui import quick_exit

    quick_exit.POLL = 3600.0  # without the wake, the exit would wait an hour


    class Tiny(App[int]):
        BINDINGS = [("ctrl+q", "quit", "Quit")]
        def get_driver_class(self):  # as FrontierApp chooses it
            return quick_exit.quicker(super().get_driver_class())

        def compose(self):
            yield Static("ready-to-quit")

        def on_mount(self) -> None:
            assert isinstance(self._driver, quick_exit.QuickExitDriver), self._driver


    raise SystemExit(Tiny().run() or 0)
    """
)


def _read_until(fd: int, marker: bytes, deadline: float) -> bytes:
    seen = b""
    while marker not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"never saw {marker!r}; the screen said {seen[-800:]!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
    return seen


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux pseudo-terminal")
def test_ctrl_q_ends_the_app_without_waiting_out_its_input_thread(tmp_path: Path) -> None:
    script = tmp_path / "tiny.py"
    script.write_text(APP)
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}
    env.pop("TEXTUAL_DRIVER", None)
    pid, fd = pty.fork()
    if pid == 0:  # the child: the pty is its terminal
        os.execve(sys.executable, [sys.executable, str(script)], env)
    try:
        deadline = time.monotonic() + DEADLINE
        _read_until(fd, b"ready-to-quit", deadline)
        # Pressed until the app has left the alternate screen: a press before the app
        # put the terminal in raw mode is the line discipline's (XON), not the app's.
        left = b""
        while b"\x1b[?1049l" not in left:
            assert time.monotonic() < deadline, f"ctrl+q never quit: {left[-500:]!r}"
            os.write(fd, b"\x11")
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    left += os.read(fd, 65536)
                except OSError:  # the child closed the terminal: it has quit
                    break
        left += _read_until(fd, b"\x1b[?25h", deadline)  # the rest, to the terminal's end
        _, status = os.waitpid(pid, 0)  # an hour, were the thread waited out
        assert os.waitstatus_to_exitcode(status) == 0
        assert b"\x1b[?25h" in left  # the cursor shown again: the terminal restored
    finally:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)
