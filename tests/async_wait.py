"""Waiting for a state outside a Textual pilot (a server's tools, a process gone): bounded,
polling, never a sleep for time — only a hang reaches the limit."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path


async def until(cond: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Return once ``cond()`` holds; fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.01)


def gone(pid: int) -> bool:
    """Dead or a zombie (this VM's PID 1 may reap orphans late, or never)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] == "Z"
    except OSError:
        return True
