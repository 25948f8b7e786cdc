"""Standard streams that cannot encode every character (``PYTHONIOENCODING=ascii``, a
legacy 8-bit locale): ``frontier run`` and ``frontier demo --headless`` ended at their
first ✓ or a model's é with a ``UnicodeEncodeError``, and the TUI drew every border as
``\\u2500`` escapes (``app/std_streams.py``, ``run_tui``)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pty_screen import on_a_pty, quit_with_ctrl_q, read_until
from wire_scripts import Text, WireServer, script, serve_wire
from wire_scripts import stream as reply

from frontier.app.std_streams import is_utf8

DEADLINE = 120.0
"""Seconds before a wait gives up: far beyond a start on a loaded box."""


def narrow(encoding: str) -> dict[str, str]:
    return {**os.environ, "PYTHONIOENCODING": encoding}


async def run_answering(
    tmp_path: Path, said: str, encoding: str, *extra: str
) -> subprocess.CompletedProcess[bytes]:
    """``frontier run hi`` against a model that says ``said``, its streams in ``encoding``."""
    server = WireServer("openai-chat")
    server.answer(reply(script("openai-chat", [Text(said)])))
    argv = [sys.executable, "-m", "frontier.app.cli", "run", "hi", "--model", "m", *extra]
    argv += ["--workspace", str(tmp_path)]
    async with serve_wire(server) as url:
        done = await asyncio.to_thread(
            subprocess.run,
            [*argv, "--base-url", url],
            capture_output=True,
            env=narrow(encoding),
            timeout=DEADLINE,
        )
    assert done.returncode == 0, done.stderr.decode(encoding, "replace")
    assert b"Traceback" not in done.stderr
    return done


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
async def test_frontier_run_says_what_it_can_on_a_narrow_stdout(
    tmp_path: Path, encoding: str
) -> None:
    done = await run_answering(tmp_path, "Done ✓ — naïve café.", encoding)
    said = done.stdout.decode(encoding)
    if encoding == "ascii":
        assert "ai  Done ? ? na?ve caf?." in said
    else:  # what Latin-1 holds is written as itself
        assert "ai  Done ? ? naïve café." in said


FAST = ("--rate", "0")
"""The demo as fast as it goes (at its 60 tokens a second it took 27 s)."""
AUTO = ("--approval", "auto")


def test_the_headless_demo_runs_to_its_end_on_an_ascii_stdout(tmp_path: Path) -> None:
    env = narrow("ascii")
    env["FRONTIER_DATA_DIR"] = str(tmp_path / "data")
    env["FRONTIER_CONFIG_DIR"] = str(tmp_path / "config")
    done = subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", "demo", "--headless", *FAST, *AUTO],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=DEADLINE,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr.decode("ascii", "replace")
    assert b"Traceback" not in done.stderr
    assert b"demo in ctl-heredoc mode" in done.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux pseudo-terminal")
def test_the_tui_draws_its_borders_whatever_the_stream_encoding(tmp_path: Path) -> None:
    env = {**narrow("ascii"), "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
    env.pop("TEXTUAL_DRIVER", None)
    env["FRONTIER_DATA_DIR"] = str(tmp_path / "data")
    env["FRONTIER_CONFIG_DIR"] = str(tmp_path / "config")
    argv = [sys.executable, "-m", "frontier.app.cli", "demo"]
    with on_a_pty(argv, env) as (pid, fd):
        deadline = time.monotonic() + DEADLINE
        screen = read_until(fd, b"message the agent", deadline)
        quit_with_ctrl_q(fd, deadline)
        os.waitpid(pid, 0)
    assert b"message the agent" in screen
    assert "╭".encode() in screen and "─".encode() in screen  # a panel's corner and border
    assert b"\\u25" not in screen  # not as the escapes an ASCII stream made of them


@pytest.mark.parametrize(
    ("encoding", "utf8"),
    [
        ("utf-8", True),
        ("UTF8", True),
        ("utf_8", True),
        ("ascii", False),
        ("latin-1", False),
        ("cp1252", False),
        ("no-such-codec", False),
        (None, False),
    ],
)
def test_every_spelling_of_utf8_is_known(encoding: str | None, utf8: bool) -> None:
    assert is_utf8(encoding) is utf8


async def test_json_on_a_narrow_stdout_escapes_what_it_cannot_say(tmp_path: Path) -> None:
    """``frontier run --json`` wrote ``?`` for every character ASCII has not: the JSON
    parsed, and the model's text in it was wrong."""
    import json

    done = await run_answering(tmp_path, "Done ✓ — café.", "ascii", "--json")
    events = [json.loads(line) for line in done.stdout.decode("ascii").splitlines()]
    said = "".join(e.get("text", "") for e in events if e["type"] == "text_delta")
    assert said == "Done ✓ — café."
