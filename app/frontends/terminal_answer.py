"""One line typed on the terminal, read as the event loop's own I/O.

Why not ``asyncio.to_thread(sys.stdin.readline)``: a thread blocked in a read cannot be
cancelled. ctrl+c or SIGTERM at ``frontier run``'s approval question stopped the turn and
said so, then the process stayed alive, waiting on that thread at exit, until the person
pressed Enter. The loop's reader is called off with the wait.
"""

from __future__ import annotations

import asyncio
import os
import sys

MAX_ANSWER = 64 * 1024
"""Bytes read at most: an answer is a letter or a reason to deny (a terminal's own line
is at most 4 KiB in canonical mode; a pipe could send more)."""


async def read_answer() -> str:
    """The next line on standard input, without its line end; ``""`` at end of input."""
    stdin = sys.stdin
    if not stdin.isatty():  # a file or a test's StringIO: a read that ends by itself
        return (await asyncio.to_thread(stdin.readline)).rstrip("\r\n")
    fd = stdin.fileno()
    got = bytearray()
    while b"\n" not in got and len(got) < MAX_ANSWER:
        await _readable(fd)
        chunk = os.read(fd, MAX_ANSWER - len(got))
        if not chunk:
            break
        got += chunk
    return got.split(b"\n", 1)[0].decode("utf-8", "replace").rstrip("\r")


async def _readable(fd: int) -> None:
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def wake() -> None:  # called again while the line waits to be read: once is enough
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, wake)
    try:
        await ready
    finally:
        loop.remove_reader(fd)
