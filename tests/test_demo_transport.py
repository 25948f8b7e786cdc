"""The built-in demo model, driven exactly as the agent loop drives it: through the
transport (``ModelClient`` on the chat wire) with ``DemoTransport`` (no socket), step
by step.

Each test asserts what a viewer of the demo is promised: the streamed text or
tool calls decode to the scripted step, the framing mistakes are the scripted
ones, and the patch really applies to (and passes the tests of) the sample
project.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.agent.modes import get_mode
from frontier.app.model.conversation import (
    AssistantTurn,
    CallEntry,
    Item,
    ResultEntry,
    ToolResults,
    UserText,
)
from frontier.app.model.demo_script import (
    DEMO_MODEL,
    DEMO_TASK,
    NOTES,
    README_NEW,
    README_OLD,
    SHOUT_PATCH,
    TEST_COMMAND,
    script,
)
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import CallArgs, CallStart, StreamEnd, WireEvent, text_of
from frontier.app.model.transport import ModelClient
from frontier.app.model.wires.demo import (
    DEMO_BASE_URL,
    DemoTransport,
    demo_client,
    demo_project_dir,
    make_demo_workspace,
    pick_step,
    split_tokens,
    step_index,
)
from frontier.app.vocab import CTL_MODES, NATIVE_MODES
from frontier.tools.registry import default_registry

# --------------------------------------------------------------------------- driving


def raw_calls(event: WireEvent) -> list[dict[str, Any]]:
    """The ``delta.tool_calls`` pieces of one chat chunk, as the server sent them."""
    chunk = json.loads(event.raw)
    return (chunk["choices"] or [{}])[0].get("delta", {}).get("tool_calls") or []


class Response:
    """One streamed response, decoded the way a client reads it (the chat wire's deltas)."""

    def __init__(self, items: list[Any]) -> None:
        self.events = [i for i in items if isinstance(i, WireEvent)]
        self.end: StreamEnd = items[-1]
        assert isinstance(self.end, StreamEnd)
        self.text = "".join(text_of(e.deltas) for e in self.events)
        calls: dict[int, dict[str, Any]] = {}
        for event in self.events:
            for d in event.deltas:
                if isinstance(d, CallStart):
                    slot = calls.setdefault(d.key, {"arguments": ""})
                    slot["id"], slot["name"] = d.id, d.name
                elif isinstance(d, CallArgs):
                    calls.setdefault(d.key, {"arguments": ""})["arguments"] += d.data
        self.call_pieces = sum(len(raw_calls(e)) for e in self.events)
        self.tool_calls = [calls[i] for i in sorted(calls)]


def demo(transport: DemoTransport) -> ModelClient:
    return ModelClient(codec("openai-chat"), DEMO_BASE_URL, "demo", transport=transport)


def ask(*items: Item, mode: str = "ctl") -> ModelRequest:
    """A request as the loop makes it in ``mode`` (tools offered natively or not)."""
    tools = get_mode(mode).tools(default_registry())
    return ModelRequest("system prompt", items, tools=tools)


async def conversation(
    mode: str, replies: int, transport: DemoTransport | None = None
) -> list[Response]:
    """Ask the demo ``replies`` times, appending its answer and the results (natively,
    or as a result frame in a user message), as the loop does."""
    client = demo(transport or DemoTransport(mode, rate=0))
    items: list[Item] = [UserText(DEMO_TASK)]
    out: list[Response] = []
    try:
        for _ in range(replies):
            response = Response([i async for i in client.stream(ask(*items, mode=mode))])
            out.append(response)
            if mode in NATIVE_MODES:
                calls = tuple(
                    CallEntry(c["id"], c["name"], json.loads(c["arguments"]))
                    for c in response.tool_calls
                )
                items.append(AssistantTurn(response.text, calls))
                results = tuple(ResultEntry(c.id, c.name, "ok", 0, "ok") for c in calls)
                items.append(ToolResults(results))
            else:
                items.append(AssistantTurn(response.text))
                items.append(ToolResults((ResultEntry("c1", "read", "ok", 0, "ok"),), framed=True))
    finally:
        await client.aclose()
    return out


async def test_the_demo_reads_the_requests_the_wire_sends() -> None:
    """The conversation above reaches the demo as the chat wire encodes the typed history:
    native calls with ``tool`` results, or a result frame in a user message."""
    native = DemoTransport("native-inc", rate=0)
    await conversation("native-inc", 2, native)
    sent = native.bodies[1]["messages"]
    assert {t["function"]["name"] for t in native.bodies[1]["tools"]} >= {"read", "shell"}
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "tool"]
    assert sent[0] == {"role": "system", "content": "system prompt"}
    assert [c["id"] for c in sent[2]["tool_calls"]] == ["call_1", "call_2"]
    assert [(m["tool_call_id"], m["content"]) for m in sent[3:]] == [
        ("call_1", "ok"),
        ("call_2", "ok"),
    ]
    ctl = DemoTransport("ctl", rate=0)
    await conversation("ctl", 2, ctl)
    sent = ctl.bodies[1]["messages"]
    assert "tools" not in ctl.bodies[1]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[-1]["content"] == "result c1 exit=0 2\nok\nend\n"


# --------------------------------------------------------------------------- a reference CTL reader


def parse_ctl(text: str, *, clean: bool) -> dict[str, Any]:
    """A non-streaming reading of DESIGN §3, independent of app/cst: calls, error, stop."""
    data = text.encode()
    pos, calls = 0, []
    result: dict[str, Any] = {"calls": calls, "error": None, "stopped_at": None}

    def line_at(p: int) -> tuple[bytes, int] | None:
        nl = data.find(b"\n", p)
        return None if nl < 0 else (data[p:nl], nl + 1)

    while pos < len(data):
        got = line_at(pos)
        if got is None:
            if calls:
                result["stopped_at"] = pos
            break
        line, nxt = got
        if not line.startswith(b"call "):
            if calls and line.strip():
                result["stopped_at"] = pos
                break
            pos = nxt
            continue
        _, cid, name = line.decode().split(" ")
        args: dict[str, str] = {}
        pos = nxt
        while True:
            got = line_at(pos)
            if got is None:
                result["error"] = "body_eof" if clean else "truncated"
                return result
            line, nxt = got
            if line == b"end":
                calls.append((cid, name, args))
                pos = nxt
                break
            m = re.fullmatch(rb"arg (\w+) (.*)", line, re.S)
            if not m:
                result["error"] = "unexpected_line"
                return result
            key, rest = m.group(1).decode(), m.group(2)
            if rest.isdigit():
                n = int(rest)
                if nxt + n > len(data):
                    result["error"] = "body_eof" if clean else "truncated"
                    return result
                args[key] = data[nxt : nxt + n].decode()
                pos = nxt + n
            elif rest.startswith(b"<<"):
                tag = rest[2:]
                end = data.find(b"\n" + tag + b"\n", nxt - 1)
                if end < 0:
                    result["error"] = "heredoc_eof" if clean else "truncated"
                    return result
                args[key] = data[nxt : end + 1].decode()
                pos = end + len(tag) + 2
            else:
                args[key] = rest.decode()
                pos = nxt
    return result


# --------------------------------------------------------------------------- CTL modes


@pytest.mark.parametrize("mode", CTL_MODES)
async def test_ctl_script_streams_each_step_as_rendered(mode: str) -> None:
    from frontier.app.model.demo_script import render_text

    steps = script(mode)
    responses = await conversation(mode, len(steps))
    for step, response in zip(steps, responses, strict=True):
        assert response.text == render_text(step, mode)
        assert response.end.finish_reason == step.finish
        assert response.end.usage.completion is not None and response.end.usage.completion > 0
        assert response.end.usage.prompt is not None and response.end.usage.prompt > 0
        assert len(response.events) > 5  # streamed in token-sized pieces, not one blob


@pytest.mark.parametrize("mode", CTL_MODES)
async def test_ctl_script_shows_every_behaviour(mode: str) -> None:
    responses = await conversation(mode, 9)
    parsed = [parse_ctl(r.text, clean=r.end.finish_reason == "stop") for r in responses]
    names = [[(c[0], c[1]) for c in p["calls"]] for p in parsed]

    # 0: prose then a read.
    assert responses[0].text.startswith("I'll start by reading")
    assert parsed[0]["calls"] == [("c1", "read", {"path": "greet/cli.py"})]
    # 1: the patch, byte-exact (length-prefixed in ctl, heredoc in ctl-heredoc).
    assert parsed[1]["calls"] == [("c2", "apply_patch", {"patch": SHOUT_PATCH})]
    assert ("arg patch <<EOF\n" in responses[1].text) == (mode == "ctl-heredoc")
    # 2: the test run.
    assert parsed[2]["calls"] == [("c3", "shell", {"command": TEST_COMMAND})]
    # 3: a miscounted length prefix; the call never completes.
    declared = int(re.search(r"arg content (\d+)\n", responses[3].text).group(1))
    assert declared != len(NOTES.encode())
    assert parsed[3]["calls"] == []
    assert parsed[3]["error"] == ("unexpected_line" if mode == "ctl" else "body_eof")
    # 4: resent as a heredoc, same content.
    assert "arg content <<EOF\n" in responses[4].text
    assert parsed[4]["calls"] == [("c4", "write", {"path": "NOTES.md", "content": NOTES})]
    # 5: a call followed by a hallucinated result frame.
    assert names[5] == [("c5", "shell")]
    stop = parsed[5]["stopped_at"]
    assert stop is not None and responses[5].text.encode()[stop:].startswith(b"result c5 ")
    # 6: cut off mid-argument with finish_reason length.
    assert responses[6].end.finish_reason == "length"
    assert parsed[6]["error"] == "truncated" and parsed[6]["calls"] == []
    # 7: the complete resend.
    assert parsed[7]["calls"] == [
        ("c6", "replace", {"path": "README.md", "old": README_OLD, "new": README_NEW})
    ]
    # 8: a closing summary without calls: the task is done.
    assert parsed[8]["calls"] == [] and parsed[8]["error"] is None
    assert responses[8].text.startswith("Done.")
    assert responses[8].end.finish_reason == "stop"


@pytest.mark.parametrize("mode", CTL_MODES)
async def test_ctl_script_through_the_real_transducer(mode: str) -> None:
    """Streamed piece by piece into app/cst's CtlTransducer: the scripted outcomes."""
    ctl = pytest.importorskip("frontier.app.cst.ctl")
    responses = await conversation(mode, 9)
    outcomes = []
    for r in responses:
        t = ctl.CtlTransducer()
        events: list[Any] = []
        for event in r.events:
            piece = text_of(event.deltas)
            if piece and not t.stopped:
                events += t.feed(piece.encode())
        if not t.stopped:
            events += t.finish(r.end.finish_reason == "stop")
        outcomes.append(
            (
                [(e.call.id, e.call.name) for e in events if e.type == "call"],
                [e.kind for e in events if e.type == "error"],
                [e.type for e in events if e.type == "stop"],
            )
        )
    assert outcomes[0] == ([("c1", "read")], [], [])
    assert outcomes[1] == ([("c2", "apply_patch")], [], [])
    assert outcomes[3][0] == []
    assert outcomes[3][1] == ["unexpected_line" if mode == "ctl" else "body_eof"]
    assert outcomes[4] == ([("c4", "write")], [], [])
    assert outcomes[5] == ([("c5", "shell")], [], ["stop"])
    assert outcomes[6][0] == []  # truncated: nothing ready
    assert outcomes[7] == ([("c6", "replace")], [], [])
    assert outcomes[8] == ([], [], [])


def test_patch_applies_cleanly_and_the_tests_pass(tmp_path: Path) -> None:
    """The scripted patch is a correct diff against the bundled sample project."""
    if shutil.which("patch") is None:
        pytest.skip("needs patch(1)")
    root = make_demo_workspace(tmp_path / "ws")
    (tmp_path / "shout.diff").write_text(SHOUT_PATCH)
    dry = subprocess.run(
        ["patch", "-p1", "--dry-run", "-i", str(tmp_path / "shout.diff")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert "offset" not in dry.stdout and "fuzz" not in dry.stdout  # exact, not approximate
    subprocess.run(
        ["patch", "-p1", "-s", "-i", str(tmp_path / "shout.diff")], cwd=root, check=True, timeout=30
    )
    tests = subprocess.run(
        [sys.executable, "-m", "unittest", "-v"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert tests.returncode == 0, tests.stderr
    assert "Ran 2 tests" in tests.stderr and "test_shout_prints_capitals" in tests.stderr
    cli = subprocess.run(
        [sys.executable, "-m", "greet.cli", "--shout", "Ada"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert cli.stdout == "HELLO, ADA!\n"
    # The later steps' targets exist as the script assumes.
    readme = (root / "README.md").read_text()
    assert readme.count(README_OLD) == 1
    assert not (root / "NOTES.md").exists()


def test_bundled_project_passes_its_own_tests_before_the_patch(tmp_path: Path) -> None:
    root = make_demo_workspace(tmp_path / "ws")
    run = subprocess.run(
        [sys.executable, "-m", "unittest", "-v"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0 and "Ran 1 test" in run.stderr


def test_workspace_is_a_copy_and_refuses_a_non_empty_dir(tmp_path: Path) -> None:
    root = make_demo_workspace(tmp_path / "ws")
    (root / "greet" / "cli.py").write_text("changed\n")
    assert "argparse" in (demo_project_dir() / "greet" / "cli.py").read_text()
    with pytest.raises(FileExistsError, match="not empty"):
        make_demo_workspace(root)


# --------------------------------------------------------------------------- native and xml


@pytest.mark.parametrize("mode", NATIVE_MODES)
async def test_native_script_streams_real_tool_call_deltas(mode: str) -> None:
    steps = script(mode)
    responses = await conversation(mode, len(steps))
    decoded = [
        [(c["id"], c["name"], json.loads(c["arguments"])) for c in r.tool_calls] for r in responses
    ]
    assert decoded[0] == [
        ("call_1", "read", {"path": "greet/cli.py"}),
        ("call_2", "read", {"path": "tests/test_cli.py"}),
    ]
    assert decoded[1] == [("call_3", "apply_patch", {"patch": SHOUT_PATCH})]
    assert decoded[2] == [("call_4", "shell", {"command": TEST_COMMAND})]
    assert decoded[3] == []
    assert [r.end.finish_reason for r in responses] == ["tool_calls"] * 3 + ["stop"]
    for r, step in zip(responses, steps, strict=True):
        assert r.text == step.prose
        # arguments arrive split: more pieces than calls (id/name once, then fragments)
        assert r.call_pieces == 0 or r.call_pieces > 2 * len(r.tool_calls)
    # id and name are sent once per call, in the first piece only
    first = [tc for ev in responses[0].events for tc in raw_calls(ev) if "id" in tc]
    assert [tc["index"] for tc in first] == [0, 1]
    assert all("name" in tc["function"] for tc in first)
    later = [tc for ev in responses[0].events for tc in raw_calls(ev) if "id" not in tc]
    assert later and not any("name" in tc["function"] for tc in later)


async def test_xml_script_uses_minimax_blocks() -> None:
    responses = await conversation("xml", 4)
    pattern = re.compile(
        r'<invoke name="(\w+)">\n((?:<parameter name="\w+">.*?</parameter>\n)*)</invoke>', re.S
    )

    def calls(text: str) -> list[tuple[str, dict[str, str]]]:
        assert text.count("<minimax:tool_call>") == text.count("</minimax:tool_call>")
        return [
            (name, dict(re.findall(r'<parameter name="(\w+)">(.*?)</parameter>', body, re.S)))
            for name, body in pattern.findall(text)
        ]

    assert calls(responses[0].text) == [
        ("read", {"path": "greet/cli.py"}),
        ("read", {"path": "tests/test_cli.py"}),
    ]
    assert calls(responses[1].text) == [("apply_patch", {"patch": SHOUT_PATCH})]
    assert calls(responses[2].text) == [("shell", {"command": TEST_COMMAND})]
    assert calls(responses[3].text) == [] and responses[3].text.startswith("Done.")


# --------------------------------------------------------------------------- statelessness


def test_step_comes_from_the_messages() -> None:
    task = [{"role": "system", "content": "s"}, {"role": "user", "content": DEMO_TASK}]
    assert step_index(task) == 0
    after_one = [*task, {"role": "assistant", "content": "x"}, {"role": "user", "content": "r"}]
    assert step_index(after_one) == 1
    # A response whose kept text was empty may leave only the feedback message.
    only_feedback = [*task, {"role": "user", "content": "error contract ..."}]
    assert step_index(only_feedback) == 1


@pytest.mark.parametrize("mode", ["ctl-heredoc", "native-inc"])
def test_a_denied_approval_ends_the_script_politely(mode: str) -> None:
    role = "tool" if mode in NATIVE_MODES else "user"
    messages = [
        {"role": "user", "content": DEMO_TASK},
        {"role": "assistant", "content": "..."},
        {"role": role, "content": "result c2 exit=1 30\n[denied] not today\nend\n"},
    ]
    step = pick_step(mode, messages)
    assert step.calls == () and "declined" in step.prose


async def test_past_the_end_of_the_script_it_says_so() -> None:
    responses = await conversation("ctl", 10)
    assert "demo script is complete" in responses[9].text
    assert responses[9].end.finish_reason == "stop"


# --------------------------------------------------------------------------- wire details


@given(st.text(max_size=300))
def test_tokens_concatenate_back_to_the_text(text: str) -> None:
    pieces = split_tokens(text)
    assert "".join(pieces) == text
    assert all(0 < len(p) <= 7 for p in pieces)


async def test_rate_paces_tokens_without_real_waiting() -> None:
    now = [0.0]
    delays: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        delays.append(seconds)
        now[0] += seconds

    transport = DemoTransport("ctl", rate=100.0, ttft=0.25, sleep=fake_sleep, clock=lambda: now[0])
    client = demo(transport)
    items = [i async for i in client.stream(ask(UserText(DEMO_TASK)))]
    await client.aclose()
    tokens = items[-1].usage.completion
    assert tokens is not None and tokens > 0
    # the first token after the time to first token, then each at 100 tokens/s
    assert delays[0] == pytest.approx(0.25 + 1 / 100, abs=0.05)
    assert all(d > 0 for d in delays)
    assert now[0] == pytest.approx(0.25 + tokens / 100)


async def test_closing_early_stops_the_scripted_stream() -> None:
    client = demo(DemoTransport("ctl", 0))
    stream = client.stream(ask(UserText(DEMO_TASK)))
    seen = 0
    async for item in stream:
        seen += isinstance(item, WireEvent)
        if seen == 3:
            break
    await stream.aclose()
    await client.aclose()
    assert seen == 3


async def test_demo_client_is_the_chat_wire_on_the_demo_transport() -> None:
    """``demo_client`` (what ``frontier demo`` uses): the chat wire, the demo model."""
    client = demo_client("ctl", 0)
    try:
        assert (client.wire, client.model, client.base_url) == (
            "openai-chat",
            DEMO_MODEL,
            DEMO_BASE_URL,
        )
        response = Response([i async for i in client.stream(ask(UserText(DEMO_TASK)))])
    finally:
        await client.aclose()
    assert "call c1 read" in response.text and response.end.finish_reason == "stop"
    with pytest.raises(ValueError, match="ctl-heredoc"):
        demo_client("json-whole")


async def test_models_listing_and_unknown_paths() -> None:
    async with httpx.AsyncClient(transport=DemoTransport("ctl", 0)) as client:
        listing = await client.get("http://demo.invalid/v1/models")
        assert listing.json()["data"][0]["id"] == "frontier-demo"
        missing = await client.post("http://demo.invalid/v1/embeddings", json={})
        assert missing.status_code == 404 and "chat/completions" in missing.text
        bad = await client.post("http://demo.invalid/v1/chat/completions", content=b"{")
        assert bad.status_code == 400


def test_unknown_mode_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="ctl-heredoc"):
        DemoTransport("json-whole")


async def test_concurrent_conversations_do_not_interfere() -> None:
    """Stateless: two sessions on one transport each get their own step."""
    transport = DemoTransport("ctl", 0)
    client = demo(transport)
    first = ask(UserText(DEMO_TASK))
    second = ask(UserText(DEMO_TASK), AssistantTurn("x"), UserText("r"))

    async def text(request: ModelRequest) -> str:
        return Response([i async for i in client.stream(request)]).text

    a, b = await asyncio.gather(text(first), text(second))
    await client.aclose()
    assert "call c1 read" in a and "call c2 apply_patch" in b
