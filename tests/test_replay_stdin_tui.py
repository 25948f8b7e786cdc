"""``… | frontier replay -`` opens the TUI: the capture is read whole from the pipe, the
keys come from the controlling terminal (as ``less`` takes them). Before, it refused with
"the TUI needs a terminal (stdin is not a terminal)".

A real process on a pseudo-terminal (its controlling terminal), stdin a pipe: the test
waits for the screen to show the capture's detection line, then quits with ctrl+q.
"""

from __future__ import annotations

import os
import pty
import select
import shlex
import sys
import time
from pathlib import Path

import pytest

BODY = (
    b'data: {"choices":[{"index":0,"delta":{"content":"Reading."}}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)
DEADLINE = 120.0
"""Seconds before the test gives up on a screen: far beyond a start on a loaded box."""


def _read_until(fd: int, marker: bytes, deadline: float) -> bytes:
    seen = b""
    while marker not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"never saw {marker!r}; the screen said {seen[-2000:]!r}")
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
def test_a_capture_piped_to_replay_opens_the_tui_with_keys_from_the_terminal(
    tmp_path: Path,
) -> None:
    capture = tmp_path / "cap.sse"
    capture.write_bytes(BODY)
    frontier = Path(sys.executable).with_name("frontier")
    command = f"cat {shlex.quote(str(capture))} | {shlex.quote(str(frontier))} replay -"
    env = {
        **os.environ,
        "FRONTIER_DATA_DIR": str(tmp_path / "data"),
        "FRONTIER_CONFIG_DIR": str(tmp_path / "cfg"),
        "TERM": "xterm-256color",
        "COLUMNS": "120",
        "LINES": "40",
    }
    pid, fd = pty.fork()
    if pid == 0:  # the child: its controlling terminal is the pty; stdin becomes the pipe
        os.execvpe("sh", ["sh", "-c", command], env)
    try:
        deadline = time.monotonic() + DEADLINE
        screen = _read_until(fd, b"Raw stream", deadline)  # a pane of the TUI
        assert b"needs a terminal" not in screen
        # ctrl+q from the terminal quits. Pressed again until the app has left the
        # alternate screen: a press before the app put the terminal in raw mode is the
        # line discipline's (XON), not the app's.
        left = b""
        while b"\x1b[?1049l" not in left:
            assert time.monotonic() < deadline, (
                f"ctrl+q never quit; the screen said {left[-500:]!r}"
            )
            os.write(fd, b"\x11")
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    left += os.read(fd, 65536)
                except OSError:  # the child closed the terminal: it has quit
                    break
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)
