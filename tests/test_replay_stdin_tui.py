"""``… | frontier replay -`` opens the TUI: the capture is read whole from the pipe, the
keys come from the controlling terminal (as ``less`` takes them). Before, it refused with
"the TUI needs a terminal (stdin is not a terminal)".

A real process on a pseudo-terminal (its controlling terminal), stdin a pipe: the test
waits for the screen to show the capture's detection line, then quits with ctrl+q.
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

import pytest
from pty_screen import on_a_pty, quit_with_ctrl_q, read_until

BODY = (
    b'data: {"choices":[{"index":0,"delta":{"content":"Reading."}}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)
DEADLINE = 120.0
"""Seconds before the test gives up on a screen: far beyond a start on a loaded box."""


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
    with on_a_pty(["sh", "-c", command], env) as (pid, fd):
        deadline = time.monotonic() + DEADLINE
        screen = read_until(fd, b"Raw stream", deadline)  # a pane of the TUI
        assert b"needs a terminal" not in screen
        quit_with_ctrl_q(fd, deadline)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
