"""``frontier run -`` reads its prompt from stdin as bytes (``commands/run.py``
``from_stdin``): bytes that are not UTF-8 are sent as U+FFFD and said, and a pipe that
never ends is refused. Read as text they failed: a strict locale raised
``UnicodeDecodeError``, and a C.UTF-8 one kept lone surrogates that the store could not
write ("turn ended: session_persistence_failed")."""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from wire_scripts import Text, WireServer, script, serve_wire
from wire_scripts import stream as reply

from frontier.app.commands import run


def piped(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_bytes_that_are_not_utf8_are_sent_as_replacement_and_said(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # a U+FFFD already in the text is not counted as replaced
    piped(monkeypatch, b"caf\xe9 menu " + "\ufffd".encode() + b" kept\xff\xfe")
    assert run.from_stdin() == "caf\ufffd menu \ufffd kept\ufffd\ufffd"
    assert capsys.readouterr().err == (
        "note stdin is not all UTF-8 text: 3 invalid byte sequences sent as \ufffd\n"
    )


def test_a_prompt_past_the_cap_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(run, "STDIN_MAX", 16)
    piped(monkeypatch, b"y\n" * 9)
    assert run.from_stdin() is None
    assert "the prompt on stdin is over 0 MiB" in capsys.readouterr().err
    piped(monkeypatch, b"y\n" * 8)
    assert run.from_stdin() == "y\n" * 8


async def test_a_log_with_a_latin1_byte_reaches_the_model(tmp_path: Path) -> None:
    server = WireServer("openai-chat")
    server.answer(reply(script("openai-chat", [Text("Read it.")])))
    async with serve_wire(server) as url:
        argv = ["run", "-", "--base-url", url, "--model", "m", "--workspace", str(tmp_path)]
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "frontier.app.cli", *argv],
            input=b"ERROR caf\xe9 crashed at line 3\n",
            capture_output=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr.decode()
    assert "ai  Read it." in done.stdout.decode()
    assert "caf\ufffd crashed at line 3" in server.requests[-1].text


# --------------------------------------------------------------------------- with a PROMPT


def task_args(prompt: str) -> argparse.Namespace:
    return argparse.Namespace(task=prompt, prompt=None)


def stdin_pipe(monkeypatch: pytest.MonkeyPatch, data: bytes, *, close: bool) -> int:
    """A real pipe on stdin holding ``data``; its write end left open unless ``close``
    (returned, for the test to close)."""
    read, write = os.pipe()
    os.write(write, data)
    if close:
        os.close(write)
    monkeypatch.setattr("sys.stdin", open(read, encoding="utf-8", closefd=True))  # noqa: SIM115
    return write


async def test_input_piped_to_a_task_goes_with_it(tmp_path: Path) -> None:
    """``git diff | frontier run "review this"``: the diff was dropped without a word and
    the model reviewed nothing. It goes after the task, fenced so that its own backticks
    cannot close the block."""
    server = WireServer("openai-chat")
    server.answer(reply(script("openai-chat", [Text("Looks fine.")])))
    diff = b"diff --git a/x b/x\n+print('```')\n"
    async with serve_wire(server) as url:
        argv = ["run", "review this", "--base-url", url, "--model", "m"]
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "frontier.app.cli", *argv, "--workspace", str(tmp_path)],
            input=diff,
            capture_output=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr.decode()
    (user,) = [m for m in server.requests[-1].body["messages"] if m["role"] == "user"]
    assert user["content"] == (
        "review this\n\nStandard input, piped to this task (33 bytes):\n````\n"
        "diff --git a/x b/x\n+print('```')\n````"
    )


def test_a_pipe_that_neither_sends_nor_ends_does_not_hold_the_task(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A harness that starts Frontier with a pipe it never writes nor closes: the task
    waited for ever. It goes without the input after ``STDIN_WAIT``, and says so."""
    monkeypatch.setattr(run, "STDIN_WAIT", 0.01)
    write = stdin_pipe(monkeypatch, b"", close=False)
    try:
        assert run.task(task_args("fix the bug")) == "fix the bug"
    finally:
        os.close(write)
    assert "note stdin sent nothing in 0.01 s and did not end" in capsys.readouterr().err


def test_an_empty_or_ended_stdin_adds_nothing_and_says_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin_pipe(monkeypatch, b"", close=True)  # < /dev/null, cron, a closed pipe
    assert run.task(task_args("fix the bug")) == "fix the bug"
    stdin_pipe(monkeypatch, b"  \n", close=True)
    assert run.task(task_args("fix the bug")) == "fix the bug"
    assert capsys.readouterr().err == ""
    stdin_pipe(monkeypatch, b"caf\xe9\n", close=True)  # said as for a piped prompt
    assert run.task(task_args("read it")) == (
        "read it\n\nStandard input, piped to this task (7 bytes):\n```\ncaf\ufffd\n```"
    )
    assert "not all UTF-8 text: 1 invalid byte sequence" in capsys.readouterr().err
