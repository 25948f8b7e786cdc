"""A standard stream closed by whoever started Frontier is ``/dev/null`` instead
(``app/std_streams.py``): ``frontier run … <&-`` raised a traceback at its first
``isatty()``, ``sessions`` and ``check`` with stdout closed at their first write."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from wire_scripts import Text, WireServer, script, serve_wire
from wire_scripts import stream as reply

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX descriptors")


def closing(*fds: int) -> Callable[[], None]:
    """In the child before it starts: these descriptors closed, as ``<&-``/``>&-`` do."""

    def close() -> None:
        for fd in fds:
            os.close(fd)

    return close


def frontier(*argv: str, closed: tuple[int, ...]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        preexec_fn=closing(*closed),
        timeout=120,
    )


CHUNK = (
    'data: {"object": "chat.completion.chunk", "choices": [{"index": 0, '
    '"delta": {"content": "Hello."}, "finish_reason": "stop"}]}\n\ndata: [DONE]\n\n'
)


@pytest.mark.parametrize("closed", [(1,), (0, 1)])
def test_check_with_stdout_closed_runs_without_a_traceback(
    tmp_path: Path, closed: tuple[int, ...]
) -> None:
    capture = tmp_path / "reply.sse"
    capture.write_text(CHUNK)
    done = frontier("check", str(capture), closed=closed)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


async def test_frontier_run_with_stdin_closed_does_its_task(tmp_path: Path) -> None:
    server = WireServer("openai-chat")
    server.answer(reply(script("openai-chat", [Text("Hello.")])))
    async with serve_wire(server) as url:
        argv = ["run", "hi", "--base-url", url, "--model", "m", "--workspace", str(tmp_path)]
        done = await asyncio.to_thread(frontier, *argv, closed=(0,))  # the server on this loop
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "ai  Hello." in done.stdout


def test_no_file_opened_after_takes_a_standard_descriptor(tmp_path: Path) -> None:
    """With descriptor 1 closed, the next file opened got it: the session store would
    have been "standard output" for whatever writes there."""
    probe = (
        "import os, sys; from frontier.app.std_streams import reopen_closed; reopen_closed(); "
        f"fd = os.open({str(tmp_path / 'f')!r}, os.O_CREAT | os.O_WRONLY); "
        "sys.stderr.write(f'{fd} {sys.stdout is not None}')"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, preexec_fn=closing(1)
    )
    fd, has_stdout = done.stderr.split()
    assert int(fd) > 2 and has_stdout == "True"
