"""Every CLI command, over a session seeded with every character a terminal acts on, prints
none of them raw (issue 21, item 2).

The seeded session is built with the real store API: the workspace folder's name, a file
name, the prompt, the model's reply (text and its recorded stream), a tool call's id and
arguments, a result, a rejected call's tool name and a contract error all hold the whole
character class of ``terminal_text.UNSAFE`` (C0 but newline and tab, DEL, C1, U+200E/F,
U+202A–E, U+2066–9), as a tampered store or a hostile model would leave them. A loopback
server plays a hostile model for the commands that talk to one (``run``, ``resume``).

Each command runs in-process through ``frontier.app.cli.main`` with stdout and stderr
captured at the descriptor, and stdin a pipe (no terminal). The list of commands walked is
checked against the parser's, so a new command fails here until it is walked too.

Undecodable bytes are walked too (:func:`test_non_utf8_bytes`): Python holds a byte that is
not UTF-8 (in a file name, argv, a patch on stdin) as a lone surrogate, and a stream with
``errors="surrogateescape"`` — stdout under the C or C.UTF-8 locale — writes it back raw,
``\x9b`` a C1 CSI. The commands here write through such streams, and any byte that is not
UTF-8 comes back from the capture as the lone surrogate it was, which is in the class.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from sse_server import serve, sse, start_sse

from frontier.app.cli import build_parser, main
from frontier.app.events import ToolCall, ToolResult
from frontier.app.frontends.terminal_text import UNSAFE
from frontier.app.model.conversation import (
    AssistantTurn,
    ResultEntry,
    ToolResults,
    UserText,
)
from frontier.app.session.record import RecordingWriter
from frontier.app.session.store import SessionStore
from frontier.tools.contract import Preview
from frontier.tools.diffing import file_preview
from frontier.tools.registry import default_registry

EVERY = "".join(
    chr(c)
    for c in (
        *range(0x00, 0x09),
        *range(0x0B, 0x20),
        *range(0x7F, 0xA0),
        0x200E,
        0x200F,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    )
)
"""The whole class, once each."""
assert len(UNSAFE.findall(EVERY)) == len(EVERY)
ATTACK = "\x1b[2J\x1b]0;pwned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x9b31m\u202egnp.exe\r\x1b[2K"
"""What they are used for: clear the screen, retitle, write the clipboard, colour by C1
CSI, reverse the text that follows (Trojan Source), hide the start of the line."""
H = ATTACK + EVERY
NAME = "n" + EVERY.replace("\x00", "") + "\u202ecod.txt"
"""A file or folder name can hold every character of the class but NUL."""
PROMPT = f"fix the bug{H} please"
PROSE = f"I will fix it{H}\n"
NEW_TEXT = f"fixed{H}\n"
SHOWN = "\\u202e"
"""U+202E as both forms show it: ``terminal_safe`` text and ``json_safe`` JSON."""


def raw(text: str) -> list[str]:
    """The characters of the class in ``text`` (what must never reach a terminal); output
    is read back with ``surrogateescape``, so a byte that is not UTF-8 is one too."""
    return UNSAFE.findall(text)


# --------------------------------------------------------------------------- the seeded session


def ctl_reply(path: str) -> str:
    """A ctl-heredoc reply: hostile prose, a write of the hostile file, then a length
    declared too small (a contract error quoting the hostile bytes after it)."""
    return (
        PROSE
        + f"call c1 write\narg path {path}\narg content <<EOF\n{NEW_TEXT}EOF\nend\n"
        + f"call c2 shell\narg command 3\nls {H}\nend\n"
    )


def chunk(text: str, finish: str | None = None) -> str:
    """One Chat Completions chunk carrying ``text`` (the SSE data a response records)."""
    choice = {"index": 0, "delta": {"content": text}, "finish_reason": finish}
    return json.dumps({"choices": [choice]})


@dataclass(frozen=True)
class Seeded:
    sid: str
    ws: Path
    file: Path
    recording: Path
    reply: str


def seed(tmp_path: Path) -> Seeded:
    """A finished session whose every stored string holds the class, through the store API."""
    specs = {s.name: s for s in default_registry().specs()}
    ws = tmp_path / f"ws{NAME}"
    ws.mkdir()
    target = ws / NAME
    old, new = f"broken{H}\n".encode(), NEW_TEXT.encode()
    target.write_bytes(old)
    reply = ctl_reply(NAME)
    model = f"model{H}"
    with SessionStore.open() as store:
        sid = store.create_session(str(ws), model, None, "ctl-heredoc")
        store.append_items(sid, [UserText(PROMPT)])
        rid = store.begin_response(sid, "ctl-heredoc", model, 0)
        for i in range(0, len(reply), 7):
            store.add_stream_event(rid, i / 1000, chunk(reply[i : i + 7]))
        store.add_stream_event(rid, 1.0, chunk("", "stop"))
        store.end_response(rid, "stop")
        store.add_assistant_text(sid, PROSE)
        write = ToolCall("c1", "write", {"path": NAME, "content": NEW_TEXT})
        preview = Preview("diff", files=(file_preview(NAME, old, new),), summary=f"write {NAME}")
        seq = store.add_call(sid, write, specs["write"], preview, rid, started=True)
        target.write_bytes(new)
        change = {"status": "M", "path": NAME, "added": 1, "removed": 1}
        meta = {"files": [NAME], "changes": [change]}
        store.add_result(sid, seq, ToolResult("c1", "write", "ok", f"wrote {NAME}", meta=meta))
        shell = ToolCall(f"call{H}", "shell", {"command": f"printf '{H}'"})
        command = Preview("command", command=f"printf '{H}'")
        seq = store.add_call(sid, shell, specs["shell"], command, rid, started=True)
        result = ToolResult(f"call{H}", "shell", "ok", f"out{H}\nmore{H}", exit_code=0)
        store.add_result(sid, seq, result)
        store.persistence(sid).commit_result(
            ToolResult("c3", f"tool{H}", "unknown_tool", f"no tool named tool{H}")
        )
        store.add_contract_error(sid, "unexpected_line", f"declared 3 bytes, then {H}", 99, rid)
        store.append_items(
            sid,
            [
                AssistantTurn(reply),
                ToolResults((ResultEntry("c1", "write", "ok", 0, f"wrote {NAME}"),), framed=True),
                UserText(f"error contract (unexpected_line) {H}", "feedback"),
            ],
        )
        rid = store.begin_response(sid, "ctl-heredoc", model, 1)
        store.add_stream_event(rid, 0.0, chunk(f"Done{H}", "stop"))
        store.end_response(rid, "stop")
        store.add_assistant_text(sid, f"Done{H}")
        store.append_items(sid, [AssistantTurn(f"Done{H}")])
        store.set_state(sid, "done")
    recording = tmp_path / f"rec{NAME}.jsonl"
    with RecordingWriter(recording, "ctl-heredoc", model) as rec:
        for i in range(0, len(reply), 5):
            rec.event(chunk(reply[i : i + 5]), t=i / 1000)
        rec.end("stop")
    return Seeded(sid, ws, target, recording, reply)


# --------------------------------------------------------------------------- a hostile model


def content_events(text: str) -> list[bytes]:
    events = [sse(json.loads(chunk(text[i : i + 9]))) for i in range(0, len(text), 9)]
    return [*events, sse(json.loads(chunk("", "stop"))), b"data: [DONE]\n\n"]


def native_call_events(call_id: str, name: str, args: dict[str, Any]) -> list[bytes]:
    head = {"index": 0, "id": call_id, "type": "function", "function": {"name": name}}
    delta = {"tool_calls": [{"index": 0, "function": {"arguments": json.dumps(args)}}]}
    return [
        sse({"choices": [{"index": 0, "delta": {"tool_calls": [head]}}]}),
        sse({"choices": [{"index": 0, "delta": delta}]}),
        sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        b"data: [DONE]\n\n",
    ]


PRINTS_ESCAPES = "printf '\\033[2J\\302\\233\\342\\200\\256\\a'"
"""A command whose output is ESC[2J, C1 CSI, U+202E and BEL."""


def hostile_replies(protocol: str) -> Callable[[int], list[bytes]]:
    """Response 0: a call (native: with a hostile id) printing escapes; then a broken frame
    (ctl) or a call of a tool that does not exist (native); then hostile prose."""

    def reply(index: int) -> list[bytes]:
        if protocol == "native-inc":
            if index == 0:
                return native_call_events(f"call{H}", "shell", {"command": PRINTS_ESCAPES})
            if index == 1:
                return native_call_events("call_2", f"tool{H}", {"x": H})
        elif index == 0:
            return content_events(f"{PROSE}call c1 shell\narg command {PRINTS_ESCAPES}\nend\n")
        elif index == 1:
            return content_events(f"{PROSE}call c2 shell\narg command 3\nls {H}\nend\n")
        return content_events(f"All done{H}")

    return reply


@contextmanager
def hostile_model(protocol: str) -> Iterator[str]:
    """A chat-completions server on 127.0.0.1 in its own thread (the CLI runs its own loop)."""
    replies = hostile_replies(protocol)
    ready = threading.Event()
    box: dict[str, Any] = {"n": 0}

    async def dispatch(request: web.Request) -> web.StreamResponse:
        await request.read()
        index = box["n"]
        box["n"] += 1
        resp = await start_sse(request)
        for event in replies(index):
            await resp.write(event)
        await resp.write_eof()
        return resp

    async def run() -> None:
        box["stop"] = asyncio.Event()
        async with serve(dispatch) as url:
            box["url"] = url
            ready.set()
            await box["stop"].wait()

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(run(),), daemon=True)
    thread.start()
    assert ready.wait(10), "loopback server did not start"
    try:
        yield box["url"]
    finally:
        loop.call_soon_threadsafe(box["stop"].set)
        thread.join(10)
        loop.close()


# --------------------------------------------------------------------------- running commands


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str


@contextmanager
def terminal_streams(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``sys.stdout`` / ``sys.stderr`` as a terminal under the C.UTF-8 locale has them:
    UTF-8 with ``surrogateescape``, so a lone surrogate is written as the raw byte it
    stands for (onto the captured descriptors)."""
    streams = []
    for name, fd in (("stdout", 1), ("stderr", 2)):
        stream = io.TextIOWrapper(
            io.FileIO(os.dup(fd), "w"),
            encoding="utf-8",
            errors="surrogateescape",
            write_through=True,
        )
        monkeypatch.setattr(f"sys.{name}", stream)
        streams.append(stream)
    try:
        yield
    finally:
        for stream in streams:
            stream.close()


@pytest.fixture
def frontier(
    capfdbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., Ran]:
    """``frontier ARGV`` in-process, stdin a pipe holding ``stdin``; asserts that neither
    stdout nor stderr holds a raw character of the class."""

    def run(*argv: str, stdin: bytes = b"") -> Ran:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
        capfdbinary.readouterr()
        with terminal_streams(monkeypatch):
            code = main(list(argv))
        out, err = (b.decode("utf-8", "surrogateescape") for b in capfdbinary.readouterr())
        assert not raw(out), (argv, sorted(set(raw(out))), out[-2000:])
        assert not raw(err), (argv, sorted(set(raw(err))), err[-2000:])
        return Ran(code, out, err)

    return run


@pytest.fixture
def seeded(tmp_path: Path) -> Seeded:
    return seed(tmp_path)


WALKED: dict[str | None, str] = {}
"""Each command and the test that walks it (filled by :func:`walks`)."""


def walks(*commands: str | None) -> Callable[[Callable[..., None]], Callable[..., None]]:
    def mark(test: Callable[..., None]) -> Callable[..., None]:
        for command in commands:
            WALKED[command] = test.__name__
        return test

    return mark


# --------------------------------------------------------------------------- the walk


@walks("sessions")
def test_sessions(frontier: Callable[..., Ran], seeded: Seeded) -> None:
    table = frontier("sessions")
    assert table.code == 0 and seeded.sid in table.out and SHOWN in table.out
    listed = frontier("sessions", "--json")
    (row,) = json.loads(listed.out)
    assert row["first_prompt"] == PROMPT and row["workspace"] == str(seeded.ws)  # lossless


@walks("export")
def test_export(frontier: Callable[..., Ran], seeded: Seeded, tmp_path: Path) -> None:
    markdown = frontier("export", seeded.sid)
    assert markdown.code == 0 and SHOWN in markdown.out and "\\x1b[2J" in markdown.out
    jsonl = frontier("export", seeded.sid, "--format", "jsonl")
    records = [json.loads(line) for line in jsonl.out.splitlines()]
    assert records[0] == {**records[0], "type": "user", "text": PROMPT}  # lossless
    assert any(r["type"] == "error" and H in r["message"] for r in records)
    for fmt, name in (("markdown", "out.md"), ("jsonl", "out.jsonl")):
        wrote = frontier("export", seeded.sid, "--format", fmt, "-o", str(tmp_path / name))
        text = (tmp_path / name).read_bytes().decode()
        assert wrote.code == 0 and not raw(text) and SHOWN in text  # the file is read too
    assert (tmp_path / "out.md").read_bytes().decode() == markdown.out
    assert frontier("export", f"nosuch{H}").code == 2


@walks("check")
def test_check(frontier: Callable[..., Ran], seeded: Seeded) -> None:
    checked = frontier("check", seeded.sid, str(seeded.recording))
    assert checked.code == 0 and "errors=unexpected_line" in checked.out
    assert SHOWN in checked.out  # the recording's file name
    explained = frontier("check", "--explain", seeded.sid, str(seeded.recording))
    assert "explain " in explained.out and SHOWN in explained.out
    assert frontier("check", f"{seeded.recording}{H}").code == 2


@walks("replay")
def test_replay(frontier: Callable[..., Ran], seeded: Seeded) -> None:
    for source in (seeded.sid, str(seeded.recording)):
        text = frontier("replay", source, "--headless")
        assert text.code == 1 and "ERROR unexpected_line" in text.out and SHOWN in text.out
        lines = frontier("replay", source, "--headless", "--json").out.splitlines()
        events = [json.loads(line) for line in lines if not line.startswith("──")]
        assert any(e["type"] == "call" and e["args"]["path"] == NAME for e in events)
    no_terminal = frontier("replay", str(seeded.recording))
    assert no_terminal.code == 2 and SHOWN in no_terminal.err


@walks("import")
def test_import(frontier: Callable[..., Ran], tmp_path: Path) -> None:
    capture = tmp_path / f"cap{NAME}.sse"
    capture.write_bytes(b"".join(content_events(f"{PROSE}call c1 read\narg path {H}\nend\n")))
    wrote = frontier("import", str(capture), "-o", str(tmp_path / f"out{NAME}.jsonl"))
    assert wrote.code == 0 and SHOWN in wrote.out and "capture: raw SSE" in wrote.err
    assert frontier("import", f"{capture}{H}").code == 2


@walks("undo")
def test_undo(frontier: Callable[..., Ran], seeded: Seeded) -> None:
    listed = frontier("undo", seeded.sid, "--list")
    assert listed.code == 0 and SHOWN in listed.out and "in effect" in listed.out
    shown = frontier("undo", seeded.sid)  # no terminal: shows the diff, writes nothing
    assert shown.code == 1 and "would write" in shown.out and "\\x1b[2J" in shown.out
    assert seeded.file.read_bytes().decode() == NEW_TEXT
    assert frontier("undo", seeded.sid, f"c9{H}", "--yes").code == 2
    done = frontier("undo", seeded.sid, "--yes")
    assert done.code == 0 and SHOWN in done.out
    assert seeded.file.read_bytes().decode() == f"broken{H}\n"
    assert " undone by u" in frontier("undo", seeded.sid, "--list").out


@walks("rewind")
def test_rewind(frontier: Callable[..., Ran], seeded: Seeded) -> None:
    listed = frontier("rewind", seeded.sid)  # the person's message and the file: the store's
    assert listed.code == 0 and SHOWN in listed.out and "   1  fix the bug" in listed.out
    shown = frontier("rewind", seeded.sid, "1")  # no terminal: shows the diff, writes nothing
    assert shown.code == 1 and "would write" in shown.out and "\\x1b[2J" in shown.out
    assert seeded.file.read_bytes().decode() == NEW_TEXT
    assert frontier("rewind", seeded.sid, "9", "--yes").code == 2
    done = frontier("rewind", seeded.sid, "1", "--yes")
    assert done.code == 0 and SHOWN in done.out  # the message printed to send again, safe
    assert seeded.file.read_bytes().decode() == f"broken{H}\n"


@walks("eval")
def test_eval(frontier: Callable[..., Ran], seeded: Seeded) -> None:
    counts = frontier("eval", "counts", seeded.sid, str(seeded.recording))
    assert counts.code == 0 and SHOWN in counts.out
    json.loads(frontier("eval", "counts", str(seeded.recording), "--json").out)
    framings = frontier("eval", "--session", seeded.sid, "--cuts", "3", "--chunk", "64")
    assert framings.code in (0, 1)
    json.loads(frontier("eval", "--session", seeded.sid, "--cuts", "3", "--json").out)


@walks("transduce")
def test_transduce(frontier: Callable[..., Ran], seeded: Seeded) -> None:
    for chunk_size in ("1", "4096"):
        ran = frontier(
            "transduce", "--protocol", "ctl-heredoc", "--chunk", chunk_size, "--events", "all",
            stdin=seeded.reply.encode(),
        )  # fmt: skip
        events = [json.loads(line) for line in ran.out.splitlines()]
        assert "".join(e["data"] for e in events if e["type"] == "text") == PROSE  # lossless
        assert any(e["type"] == "error" for e in events)
    summary = frontier("transduce", "--protocol", "ctl-heredoc", "--summary", stdin=b"x")
    assert summary.code == 0


@walks("apply-patch")
def test_apply_patch(frontier: Callable[..., Ran], seeded: Seeded) -> None:
    new = "new.txt"  # a new name with such characters is refused (paths.new_name_problem)
    patch = (
        f"--- /dev/null\n+++ b/{new}\n@@ -0,0 +1 @@\n+{H}\n"
        f"--- a/{NAME}\n+++ b/{NAME}\n@@ -1 +1 @@\n-{NEW_TEXT}+again{H}\n"
    )
    dry = frontier("apply-patch", "--root", str(seeded.ws), "--dry-run", stdin=patch.encode())
    assert dry.code == 0 and SHOWN in dry.out and not (seeded.ws / new).exists()
    applied = frontier("apply-patch", "--root", str(seeded.ws), stdin=patch.encode())
    assert applied.code == 0 and SHOWN in applied.out
    assert (seeded.ws / new).read_bytes().decode() == f"{H}\n"
    refused = frontier("apply-patch", "--root", str(seeded.ws), stdin=patch.encode())
    assert refused.code in (0, 1) and SHOWN in refused.out + refused.err
    stale = f"--- a/{NAME}\n+++ b/{NAME}\n@@ -1 +1 @@\n-not there{H}\n+x\n"
    failed = frontier("apply-patch", "--root", str(seeded.ws), stdin=stale.encode())
    assert failed.code == 1 and SHOWN in failed.err
    assert frontier("apply-patch", "--root", f"{seeded.ws}{H}", stdin=b"x").code == 2


@pytest.mark.parametrize("protocol", ["ctl-heredoc", "native-inc"])
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
@walks("run")
def test_run(
    frontier: Callable[..., Ran], seeded: Seeded, tmp_path: Path, protocol: str, as_json: bool
) -> None:
    with hostile_model(protocol) as url:
        ran = frontier(
            "run", "--prompt", PROMPT, "--base-url", url, "--model", f"m{H}",
            "--protocol", protocol, "--approval", "auto", "--workspace", str(seeded.ws),
            *(["--json"] if as_json else []),
        )  # fmt: skip
    assert SHOWN in ran.out + ran.err
    # The command's escape sequences are not its output (the model reads what a terminal
    # shows: tools/terminal_output.py); the rest of what it printed is kept, and shown safe.
    if as_json:
        events = [json.loads(line) for line in ran.out.splitlines()]
        finished = [e for e in events if e["type"] == "tool_finished"]
        assert any("\u202e\a" in e["output"] for e in finished)  # lossless
        assert not any("\x1b" in e["output"] for e in finished)
    else:
        assert "\\u202e\\x07" in ran.out  # the command's output, shown safe


@walks("doctor")
def test_doctor(frontier: Callable[..., Ran], seeded: Seeded) -> None:
    """The model's name, its reply, its call's name and arguments and the workspace's
    name are shown safe; a check in JSON keeps them whole."""
    for as_json in (False, True):
        with hostile_model("native-inc") as url:
            ran = frontier(
                "doctor", "--base-url", url, "--model", f"m{H}", "--protocol", "native-inc",
                "--workspace", str(seeded.ws), *(["--json"] if as_json else []),
            )  # fmt: skip
        assert SHOWN in ran.out
        if as_json:
            checks = {c["name"]: c for c in map(json.loads, ran.out.splitlines())}
            assert checks["tool call"]["said"].startswith("asked for read, the model called tool")
            assert SHOWN in checks["tool call"]["said"]  # shown safe, never raw


@walks("resume", None)
def test_resume_and_the_tui_commands_without_a_terminal(
    frontier: Callable[..., Ran],
    seeded: Seeded,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with hostile_model("ctl-heredoc") as url:
        resumed = frontier(
            "resume", seeded.sid, "--headless", "--prompt", PROMPT, "--base-url", url,
            "--model", "m", "--approval", "auto",
        )  # fmt: skip
    assert SHOWN in resumed.out  # the workspace's name, the prompt, the reply
    assert frontier("resume", seeded.sid).code == 2  # the TUI needs a terminal
    last = frontier("resume", "--last", "--workspace", str(seeded.ws))
    assert last.code == 2 and seeded.sid in last.err
    elsewhere = tmp_path / f"other{NAME}"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    other = frontier("-c")  # no session here: names this folder and the one used last
    assert other.code == 2 and SHOWN in other.err
    assert frontier().code == 2  # plain `frontier`: the TUI needs a terminal


@walks("demo")
def test_demo(frontier: Callable[..., Ran]) -> None:
    """No seeded text reaches the demo (a scratch copy of its own project): walked so its
    printing goes through the same helpers and stays readable."""
    ran = frontier("demo", "--headless", "--rate", "0", "--protocol", "ctl-heredoc")
    assert ran.code == 0 and "demo in ctl-heredoc mode" in ran.out
    tour = frontier("demo", "--tour", "--headless", "--json")
    assert tour.code == 0 and json.loads(tour.out.splitlines()[0])["moment"] == 1


@walks("serve")
def test_serve(frontier: Callable[..., Ran], seeded: Seeded) -> None:
    """``serve`` prints the person's own arguments and a web page's Origin (through the
    same helper); what it serves is the TUI, in the browser. Its refusals are walked."""
    assert frontier("serve", "--", "replay", str(seeded.recording), "--headless").code == 2
    assert frontier("serve", "--", "export", seeded.sid).code == 2


@walks("mcp")
def test_mcp(frontier: Callable[..., Ran], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project's MCP servers are the workspace's words: what ``trust`` shows of them (the
    command, its arguments, env names) and what ``list`` says of a server that cannot
    start go through the same helpers."""
    ws = tmp_path / "ws"
    (ws / ".frontier").mkdir(parents=True)
    hostile = json.dumps(f"tool{H}")  # a JSON string is a TOML basic string
    (ws / ".frontier" / "mcp.toml").write_text(
        f"[mcp_servers.srv]\ncommand = {hostile}\nargs = [{hostile}]\n"
        f"env = {{ {json.dumps('K' + NAME)} = {hostile} }}\nstartup_timeout = 5\n",
        "utf-8",
    )
    shown = frontier("mcp", "--workspace", str(ws), "trust")
    assert shown.code == 3 and SHOWN in shown.out, shown
    assert frontier("mcp", "--workspace", str(ws), "trust", "--yes").code == 0
    listed = frontier("mcp", "--workspace", str(ws), "list")
    assert listed.code == 0 and "srv  stdio  dead" in listed.out and SHOWN in listed.out
    assert frontier("mcp", "--workspace", str(ws), "test", f"srv{H}").code == 2
    assert frontier("mcp", "--workspace", str(ws), "allow", f"srv__{H}").code == 2


@walks("checks")
def test_checks(frontier: Callable[..., Ran], tmp_path: Path) -> None:
    """A project's checks are the workspace's words: what ``trust`` shows of them (name
    aside: the name's pattern refuses control characters) and what ``list`` says."""
    ws = tmp_path / "ws"
    (ws / ".frontier").mkdir(parents=True)
    hostile = json.dumps(f"lint{H.replace(chr(0), '')} {{files}}")  # TOML takes a JSON string
    (ws / ".frontier" / "checks.toml").write_text(
        f"[checks.lint]\nrun = {hostile}\nfiles = [{json.dumps('*' + NAME)}]\n", "utf-8"
    )
    shown = frontier("checks", "trust", "--workspace", str(ws))
    assert shown.code == 3 and SHOWN in shown.out, shown
    assert frontier("checks", "trust", "--yes", "--workspace", str(ws)).code == 0
    listed = frontier("checks", "--workspace", str(ws))
    assert listed.code == 0 and "check lint  runs here" in listed.out and SHOWN in listed.out
    assert frontier("checks", "trust", f"x{H}", "--workspace", str(ws)).code == 2
    (ws / f"a{NAME}").write_text("x\n")  # the check's command line, the verdict
    tried = frontier("checks", "test", "lint", f"a{NAME}", "--workspace", str(ws))
    assert tried.code == 1 and SHOWN in tried.out and "the model would read" in tried.out
    (ws / ".frontier" / "checks.toml").write_text(f"[checks.{json.dumps(H)}]\n", "utf-8")
    broken = frontier("checks", "--workspace", str(ws))
    assert broken.code == 0 and "the name must be" in broken.out


def undecodable(name: bytes) -> str:
    """``name`` as Python holds a file name or argument that is not UTF-8."""
    return os.fsdecode(name)


def test_non_utf8_bytes(frontier: Callable[..., Ran], tmp_path: Path) -> None:
    """A byte that is not UTF-8 — in a patch's file name on stdin, a folder, a capture's
    and a recording's names on the command line — is printed as ``\\x9b``, never as the
    raw byte (a C1 CSI: ``apply-patch`` printed ``n 233 3 1 m``)."""
    ws = tmp_path / undecodable(b"ws\x9b")
    ws.mkdir()
    patch = b"--- /dev/null\n+++ b/n\x9b31m.txt\n@@ -0,0 +1 @@\n+hi \x9b2J\xff\n"
    dry = frontier("apply-patch", "--root", str(ws), "--dry-run", stdin=patch)
    assert dry.code == 0 and "n\\x9b31m.txt" in dry.out and not os.listdir(ws)
    applied = frontier("apply-patch", "--root", str(ws), stdin=patch)
    assert applied.code == 0 and "n\\x9b31m.txt" in applied.out
    assert os.listdir(os.fsencode(ws)) == [b"n\x9b31m.txt"]  # the name as the patch has it
    again = frontier("apply-patch", "--root", str(ws), stdin=patch)
    assert "n\\x9b31m.txt" in again.out + again.err
    missing = frontier("apply-patch", "--root", str(tmp_path / undecodable(b"no\x9b")), stdin=b"x")
    assert missing.code == 2 and "no\\x9b" in missing.err

    capture = tmp_path / undecodable(b"cap\x9b\xff.sse")
    capture.write_bytes(b"".join(content_events(f"{PROSE}call c1 read\narg path a\nend\n")))
    recording = tmp_path / undecodable(b"rec\x9b.jsonl")
    imported = frontier("import", str(capture), "-o", str(recording))
    assert imported.code == 0 and "\\x9b\\xff" in imported.err + imported.out
    for argv in (("check", str(recording)), ("check", "--explain", str(recording))):
        assert "rec\\x9b.jsonl" in frontier(*argv).out, argv  # the name is printed...
    frontier("replay", str(recording), "--headless")  # ...or not: never a raw byte
    frontier("eval", "counts", str(recording))
    assert frontier("check", str(tmp_path / undecodable(b"none\x9b.jsonl"))).code == 2


def test_every_command_is_walked() -> None:
    """``frontier --help`` lists the commands; each one must have a walk above."""
    parser = build_parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    commands: set[str | None] = {None, *sub.choices}
    assert commands == set(WALKED), commands ^ set(WALKED)
