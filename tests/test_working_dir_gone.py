"""A working directory deleted under the shell (``rm -rf`` of a checkout, ``git worktree
remove``): every relative path failed deep in ``resolve()`` with a bare ``[Errno 2]``.
``frontier run`` printed a traceback, the TUI opened to "could not start the agent", and
``apply-patch --root .`` said "nothing written: [Errno 2] No such file or directory"
(``app/working_dir.py``)."""

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

from frontier.app.working_dir import GONE

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="removing the working directory under a process"
)

ENDPOINT = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
"""Never asked: each command here stops before its first request."""


def inside_a_removed(directory: Path) -> Callable[[], None]:
    """In the child before it starts: in ``directory``, then ``directory`` removed."""

    def enter_and_remove() -> None:
        os.chdir(directory)
        os.rmdir(directory)

    return enter_and_remove


def frontier(tmp_path: Path, *argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    gone = tmp_path / "gone"
    gone.mkdir()
    env = {
        **os.environ,
        "FRONTIER_DATA_DIR": str(tmp_path / "data"),
        "FRONTIER_CONFIG_DIR": str(tmp_path / "config"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", *argv],
        input=stdin.decode(),
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=inside_a_removed(gone),
        timeout=120,
    )
    assert not gone.exists()
    return done


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "hi", *ENDPOINT],
        [*ENDPOINT],  # the TUI: said before any screen (stdin here is not even a terminal)
        ["resume", "--last"],
        ["mcp", "list"],
    ],
    ids=["run", "tui", "resume --last", "mcp list"],
)
def test_a_command_in_a_removed_directory_says_so(tmp_path: Path, argv: list[str]) -> None:
    done = frontier(tmp_path, *argv)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert GONE in done.stderr


def test_apply_patch_at_a_removed_root_says_so_and_writes_nothing(tmp_path: Path) -> None:
    patch = b"*** Begin Patch\n*** Add File: made.txt\n+x\n*** End Patch\n"
    done = frontier(tmp_path, "apply-patch", "--root", ".", stdin=patch)
    assert done.returncode == 2, done.stderr
    assert f"--root .: {GONE}" in done.stderr
    assert not list(tmp_path.rglob("made.txt"))


async def test_a_workspace_given_whole_still_works_from_a_removed_directory(
    tmp_path: Path,
) -> None:
    server = WireServer("openai-chat")
    server.answer(reply(script("openai-chat", [Text("Hello.")])))
    (tmp_path / "ws").mkdir()
    async with serve_wire(server) as url:
        argv = ["run", "hi", "--base-url", url, "--model", "m", "--workspace", str(tmp_path / "ws")]
        done = await asyncio.to_thread(frontier, tmp_path, *argv)
    assert done.returncode == 0, done.stderr
    assert "ai  Hello." in done.stdout


def test_sessions_does_not_need_the_directory(tmp_path: Path) -> None:
    done = frontier(tmp_path, "sessions")
    assert done.returncode == 0, done.stderr
    assert "No sessions yet" in done.stdout
