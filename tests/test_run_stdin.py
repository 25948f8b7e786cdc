"""``frontier run -`` reads its prompt from stdin as bytes (``commands/run.py``
``from_stdin``): bytes that are not UTF-8 are sent as U+FFFD and said, and a pipe that
never ends is refused. Read as text they failed: a strict locale raised
``UnicodeDecodeError``, and a C.UTF-8 one kept lone surrogates that the store could not
write ("turn ended: session_persistence_failed")."""

from __future__ import annotations

import asyncio
import io
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
