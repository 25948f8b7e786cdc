"""Headless streams (issue 23): prose reaches stdout while the reply is still coming, in
text and in ``--json`` (``text_delta`` before ``response_ended``, a versioned first
line); a prompt is an argument; a call nobody could approve ends the run with one
stderr line naming ``--approval`` and exit status 3."""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from hypothesis import given, settings
from hypothesis import strategies as st
from sse_server import serve, sse, start_sse

from frontier.app.config import Config
from frontier.app.frontends.headless import EXIT_NEEDS_APPROVAL, JSON_VERSION, run_headless

TIMEOUT = 30.0


def delta(text: str) -> bytes:
    return sse({"choices": [{"index": 0, "delta": {"content": text}}]})


STOP = sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}) + b"data: [DONE]\n\n"


@dataclass
class Model:
    """A chat endpoint that answers from a script of replies, holding the first reply
    after its first piece until the test releases it."""

    replies: list[list[str]]
    hold: bool = False
    url: str = ""
    bodies: list[dict[str, Any]] = field(default_factory=list)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    async def dispatch(self, request: web.Request) -> web.StreamResponse:
        self.bodies.append(await request.json())
        pieces = self.replies[min(len(self.bodies), len(self.replies)) - 1]
        resp = await start_sse(request)
        for i, piece in enumerate(pieces):
            await resp.write(delta(piece))
            if i == 0 and self.hold and len(self.bodies) == 1:
                await asyncio.wait_for(self.release.wait(), TIMEOUT)
        await resp.write(STOP)
        await resp.write_eof()
        return resp


@pytest.fixture
async def model() -> AsyncIterator[Model]:
    found = Model([["Reading it ", "now.\nAll done."]], hold=True)
    async with serve(found.dispatch) as url:
        found.url = url
        yield found


def config(model: Model, **extra: Any) -> Config:
    return Config(
        base_url=model.url,
        model="m",
        protocol="ctl-heredoc",
        approval="auto",
        instructions=False,
        sandbox="off",
        context_window=100_000,
        **extra,
    )


async def until(cond: Callable[[], bool], what: str) -> None:
    """Let the loop run until ``cond()`` holds; fail naming ``what`` after TIMEOUT."""
    deadline = time.monotonic() + TIMEOUT
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.005)


class Captured:
    """Everything printed so far (capsys hands out output only once)."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys
        self.out = ""
        self.err = ""

    def read(self) -> str:
        got = self.capsys.readouterr()
        self.out += got.out
        self.err += got.err
        return self.out


async def test_text_reaches_stdout_before_the_reply_ends(
    model: Model, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen = Captured(capsys)
    run = asyncio.create_task(run_headless(config(model), prompts=["hi"], workspace=tmp_path))
    await until(lambda: "ai  Reading it" in seen.read(), "the first words on stdout")
    assert "turn ended" not in seen.out and not run.done()  # the reply is still open
    model.release.set()
    assert await asyncio.wait_for(run, TIMEOUT) == 0
    seen.read()
    lines = seen.out.splitlines()
    start = lines.index("ai  Reading it now.")
    assert lines[start + 1] == "    All done."
    assert lines[-2] == "turn ended: done"
    assert lines[-1].startswith("── done · 1 request · 0 tool calls · ")  # the run's summary
    assert seen.out.count("Reading it") == 1  # the loop's later report is not printed again


async def test_json_deltas_come_before_response_ended_under_a_versioned_first_line(
    model: Model, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen = Captured(capsys)
    run = asyncio.create_task(
        run_headless(config(model), prompts=["hi"], workspace=tmp_path, as_json=True)
    )
    await until(lambda: '"text_delta"' in seen.read(), "a text_delta line")
    assert '"response_ended"' not in seen.out
    model.release.set()
    assert await asyncio.wait_for(run, TIMEOUT) == 0
    seen.read()
    events = [json.loads(line) for line in seen.out.splitlines()]
    assert events[0]["type"] == "session" and events[0]["v"] == JSON_VERSION
    types = [e["type"] for e in events]
    deltas = [e["text"] for e in events if e["type"] == "text_delta"]
    assert "".join(deltas) == "Reading it now.\nAll done."
    last_delta = max(i for i, t in enumerate(types) if t == "text_delta")
    assert types.index("response_started") < types.index("text_delta")
    assert last_delta < types.index("response_ended") < types.index("turn_ended")
    assert [e["data"] for e in events if e["type"] == "text"] == ["Reading it now.\nAll done."]


async def test_the_system_prompt_ends_with_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FRONTIER_ENVIRONMENT")
    (tmp_path / "setup.py").write_text("")
    found = Model([["ok"]])
    async with serve(found.dispatch) as url:
        found.url = url
        assert await run_headless(config(found), prompts=["hi"], workspace=tmp_path) == 0
    system = found.bodies[0]["messages"][0]["content"]
    section = system[system.index("# Environment") :]
    assert "- Date: " in section and "- Workspace top level:\n  setup.py\n- Sandbox: " in section
    assert section.rstrip().endswith(".")  # the sandbox line ends the section
    notes = [line for line in capsys.readouterr().out.splitlines() if "environment:" in line]
    assert len(notes) == 1 and notes[0].endswith("· 1 entry")


async def frontier(*argv: str, cwd: Path) -> tuple[int, str, str]:
    """The real command, with no terminal on stdin (as a script or CI runs it)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "frontier.app.cli",
        *argv,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ),
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


WRITE = "I'll write it.\ncall c1 write\narg path a.txt\narg content <<EOF\nhi\nEOF\nend\n"


async def test_a_prompt_argument_with_nobody_to_approve_exits_3_naming_the_flag(
    tmp_path: Path,
) -> None:
    found = Model([[WRITE], ["Could not write it."]])
    async with serve(found.dispatch) as url:
        endpoint = ["--base-url", url, "--model", "m", "--protocol", "ctl-heredoc"]
        code, out, err = await frontier(
            "write a.txt", *endpoint, "--workspace", str(tmp_path), "--sandbox", "off", cwd=tmp_path
        )
    assert code == EXIT_NEEDS_APPROVAL, out + err
    assert found.bodies[0]["messages"][-1]["content"].endswith("write a.txt")
    assert not (tmp_path / "a.txt").exists()
    lines = [line for line in err.splitlines() if "needs approval" in line]
    assert lines == [
        "frontier: write needs approval and nobody can be asked (no terminal); "
        "rerun with --approval auto-edit"
    ]
    assert "ai  Could not write it." in out


async def test_print_mode_prints_only_the_final_answer(tmp_path: Path) -> None:
    found = Model([["Reading", " it.\ncall c1 read\narg path a.txt\nend\n"], ["The answer: 42."]])
    (tmp_path / "a.txt").write_text("42\n")
    async with serve(found.dispatch) as url:
        code, out, err = await frontier(
            "-p", "what is in a.txt?", "--base-url", url, "--model", "m",
            "--protocol", "ctl-heredoc", "--workspace", str(tmp_path), cwd=tmp_path,
        )  # fmt: skip
    assert code == 0, err
    assert out == "The answer: 42.\n"


def test_an_mcp_tool_nobody_could_approve_names_the_rule_that_would() -> None:
    from frontier.app.frontends.headless import Unanswered, unanswered_line

    line = unanswered_line(
        [Unanswered("tracker__search", "--approval auto"), Unanswered("shell", "--approval auto")]
    )
    assert line.startswith("frontier: tracker__search, shell need approval")
    assert line.endswith(
        "rerun with --approval auto, or allow it for good: frontier mcp allow tracker__search"
    )
    assert "mcp allow" not in unanswered_line([Unanswered("shell", "--approval auto")])


@pytest.mark.parametrize(
    ("as_json", "print_mode", "on_out", "on_err"),
    [(False, False, True, False), (True, False, False, True), (False, True, False, False)],
)
def test_a_notice_is_printed_where_the_sessions_notes_are(
    as_json: bool, print_mode: bool, on_out: bool, on_err: bool
) -> None:
    """Text form: a ``note`` line on stdout; ``--json``: on stderr (stdout stays one
    event per line); ``-p``: nothing but the answer. Secrets are masked."""
    import io

    from frontier.app.events import Notice
    from frontier.app.frontends.headless import EventPrinter
    from frontier.app.secrets import Scrubber

    out, err = io.StringIO(), io.StringIO()
    printer = EventPrinter(
        out,
        as_json=as_json,
        print_mode=print_mode,
        err=err,
        scrubber=Scrubber(["sk-secret-123456"]),
    )
    printer(Notice("MCP server srv stopped by itself; token sk-secret-123456"))
    line = "note MCP server srv stopped by itself; token [REDACTED]\n"
    assert out.getvalue() == (line if on_out else "")
    assert err.getvalue() == (line if on_err else "")


def test_a_continued_reply_is_one_line_with_the_join_said_after_it() -> None:
    """On the rig: ``ai  Han`` / ``⟂ continued at byte 3 …`` / ``ai  na Clark walked``:
    the join's line cut a word in two in the log."""
    from frontier.app.events import Confirmed, ResponseContinued, ResponseEnded, ResponseStarted
    from frontier.app.frontends.headless import EventPrinter
    from frontier.app.secrets import Scrubber

    out = io.StringIO()
    printer = EventPrinter(out, err=io.StringIO(), scrubber=Scrubber([]))
    printer(ResponseStarted("ctl-heredoc", 0))
    printer(Confirmed(0, "text", b"Han"))
    printer(ResponseContinued(3, 3, 1))
    printer(Confirmed(3, "text", b"na Clark walked.\n"))
    printer(ResponseEnded("stop"))
    printer.finish()
    lines = out.getvalue().splitlines()
    at = lines.index("ai  Hanna Clark walked.")
    assert lines[at + 1] == "⟂ continued at byte 3 (continuation 1, its echo of 3 bytes skipped)"


@pytest.mark.parametrize(("as_json", "print_mode"), [(False, False), (True, False), (False, True)])
def test_a_commands_output_is_printed_as_it_comes_a_line_under_each_bar(
    as_json: bool, print_mode: bool
) -> None:
    """Text form: every line of a running command's output under ``│``, a key split
    between pieces masked, controls shown (a piece at a time, in C-speed passes: 3,000,000
    lines took 1.2 s of a 0.05 s command); ``--json``: the pieces as ``tool_output``
    events; ``-p``: nothing but the answer."""
    import io

    from frontier.app.events import CallReady, ToolCall, ToolOutput, ToolStarted
    from frontier.app.frontends.headless import EventPrinter
    from frontier.app.secrets import Scrubber

    out = io.StringIO()
    printer = EventPrinter(
        out, as_json=as_json, print_mode=print_mode, scrubber=Scrubber(["sk-secret-123456"])
    )
    call = ToolCall("c1", "shell", {"command": "make"})
    printer(CallReady(call))
    printer(ToolStarted(call))
    for piece in ("step 1\nstep 2\nkey sk-sec", "ret-123456 ok\n\x1b[2Jdone\n"):
        printer(ToolOutput("c1", piece))
    text = out.getvalue()
    assert "sk-secret" not in text and "123456" not in text and "\x1b" not in text
    if print_mode:
        assert text == ""
    elif as_json:
        outputs = [json.loads(line) for line in text.splitlines() if "tool_output" in line]
        data = "".join(event["data"] for event in outputs)
        assert data == "step 1\nstep 2\nkey [REDACTED] ok\n\x1b[2Jdone\n"
    else:
        shown = [line for line in text.splitlines() if line.startswith("  │")]
        assert shown == ["  │ step 1", "  │ step 2", "  │ key [REDACTED] ok", "  │ \\x1b[2Jdone"]


@settings(max_examples=100, deadline=None)
@given(
    lines=st.lists(st.text(alphabet="ab \t", max_size=5), max_size=12),
    ends_open=st.booleans(),
    cuts=st.lists(st.integers(0, 100), max_size=8),
)
def test_a_commands_lines_are_printed_whole_however_it_was_read(
    lines: list[str], ends_open: bool, cuts: list[int]
) -> None:
    """The pieces a command's output is read in end anywhere; the text form prints each of
    its lines whole, blank ones too, an unfinished last one when the call ends."""
    import io

    from frontier.app.events import CallReady, ToolCall, ToolFinished, ToolOutput, ToolResult
    from frontier.app.frontends.headless import EventPrinter
    from frontier.app.secrets import Scrubber

    text = "\n".join(lines) + ("" if ends_open or not lines else "\n")
    out = io.StringIO()
    printer = EventPrinter(out, scrubber=Scrubber())
    printer(CallReady(ToolCall("c1", "shell", {"command": "make"})))
    marks = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    for start, end in itertools.pairwise(marks):
        printer(ToolOutput("c1", text[start:end]))
    printer(ToolFinished(ToolResult("c1", "shell", "ok", text, 0)))
    shown = [line[4:] for line in out.getvalue().split("\n") if line.startswith("  │")]
    expected = (text[:-1] if text.endswith("\n") else text).split("\n") if text else []
    assert shown == expected


class Terminal(io.StringIO):
    """What ``frontier run`` writes to when a person watches it."""

    def isatty(self) -> bool:
        return True


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(0, 6000),
    width=st.integers(0, 12),
    cuts=st.lists(st.integers(0, 10**6), max_size=8),
)
def test_on_a_terminal_a_commands_output_is_its_first_and_last_lines(
    count: int, width: int, cuts: list[int]
) -> None:
    """``seq 1 3000000`` printed whole to a terminal took 2.5 s (the command: 0.03 s) and
    filled the scrollback. On a terminal the text form prints what the model's copy keeps:
    the first lines as they come, then how much was not printed and the last lines, each
    line whole, however the output was read."""
    from frontier.app.events import CallReady, ToolCall, ToolFinished, ToolOutput, ToolResult
    from frontier.app.frontends.headless import EventPrinter
    from frontier.app.frontends.live_output import TERMINAL_HEAD, TERMINAL_TAIL
    from frontier.app.secrets import Scrubber

    lines = [f"{n:0{width}d}" for n in range(1, count + 1)]
    text = "".join(f"{line}\n" for line in lines)
    out = Terminal()
    printer = EventPrinter(out, scrubber=Scrubber())
    printer(CallReady(ToolCall("c1", "shell", {"command": "seq"})))
    for start, end in itertools.pairwise(
        sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    ):
        printer(ToolOutput("c1", text[start:end]))
    printer(ToolFinished(ToolResult("c1", "shell", "ok", "", 0)))
    shown = [line[4:] for line in out.getvalue().split("\n") if line.startswith("  │ ")]
    if len(text) <= TERMINAL_HEAD:
        assert shown == lines
        return
    marks = [i for i, line in enumerate(shown) if "characters not printed here" in line]
    if not marks:  # the part past the first lines fits in the last lines' room
        assert shown == lines and len(text) <= TERMINAL_HEAD + TERMINAL_TAIL + 1
        return
    head, tail = shown[: marks[0]], shown[marks[0] + 1 :]
    assert head == lines[: len(head)] and tail == lines[len(lines) - len(tail) :]
    assert len("\n".join(head)) <= TERMINAL_HEAD and len("\n".join(tail)) <= TERMINAL_TAIL
    omitted = len(text) - 1 - len("\n".join(head)) - 1 - len("\n".join(tail))
    assert (
        marks
        and shown[marks[0]] == f"… {omitted:,} characters not printed here, as in the model's copy"
    )


def test_on_a_terminal_a_long_message_is_echoed_by_its_ends() -> None:
    """``frontier run - < app.log`` echoed the whole log as ``you …`` (20 MB printed before
    the model was asked). On a terminal it is shown as the TUI's Transcript shows it: its
    first and last lines, each long line by its ends. A file or a pipe gets it whole."""
    from frontier.app.frontends.headless import EventPrinter
    from frontier.app.secrets import Scrubber
    from frontier.widgets.display import MESSAGE_HEAD, MESSAGE_TAIL

    log = "\n".join(f"line {n}" for n in range(1, 20_001))
    shown = EventPrinter(Terminal(), scrubber=Scrubber()).said(log).split("\n")
    assert shown[:MESSAGE_HEAD] == [f"line {n}" for n in range(1, MESSAGE_HEAD + 1)]
    assert shown[MESSAGE_HEAD] == f"… {20_000 - MESSAGE_HEAD - MESSAGE_TAIL:,} more lines …"
    assert shown[-1] == "line 20000" and len(shown) == MESSAGE_HEAD + 1 + MESSAGE_TAIL
    one_line = "word " * 4_000_000
    cut = EventPrinter(Terminal(), scrubber=Scrubber()).said(one_line)
    assert len(cut) < 5_000 and cut.startswith("word word") and "characters" in cut
    short = "fix the failing test\nin tests/test_a.py"
    assert EventPrinter(Terminal(), scrubber=Scrubber()).said(short) == short
    assert EventPrinter(io.StringIO(), scrubber=Scrubber()).said(log) == log  # a file: whole
