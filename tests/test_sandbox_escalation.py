"""Escalation (issue 22): a command the sandbox stopped may run once outside it, after a
person says so — never under ``auto``, never headless.

Through a real ``ToolBoundary`` with a real sandbox: a command writing to a folder outside
the workspace is refused inside, then, approved, written. The session test runs the real
runtime against a loopback model: under ``auto-edit`` a command runs inside the sandbox
without asking, its stored result carries the sandbox, and the export shows it. Skipped,
with the reason, where no sandbox can start here."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from wire_scripts import Call, Text, WireServer, args, script, serve_wire, stream

from frontier.app.agent.approvals import ApprovalDesk
from frontier.app.agent.runtime import create_runtime
from frontier.app.config import Config
from frontier.app.events import ToolCall, ToolResult
from frontier.tools.boundary import ESCALATED, ToolBoundary
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.policy import PolicyApprover
from frontier.tools.registry import default_registry
from frontier.tools.sandbox import Sandbox, SandboxSettings, make_sandbox

_PROBE = make_sandbox(SandboxSettings())
needs_sandbox = pytest.mark.skipif(
    not _PROBE.active, reason=f"no sandbox here: {_PROBE.unavailable}"
)
WAIT = 30.0

NOBODY = ApprovalDesk(lambda event: None, interactive=False)
"""A session's desk with nobody to answer it (headless without a terminal)."""


class Person:
    """Answers each review in turn from ``answers`` and records what it was shown."""

    def __init__(self, *answers: bool) -> None:
        self.answers = list(answers)
        self.seen: list[Preview] = []

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        self.seen.append(preview)
        answer = self.answers.pop(0)
        return Decision(answer, "" if answer else "keep it inside")


class Store:
    """A ``Persistence`` that counts what the boundary records."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.results: list[ToolResult] = []

    def persist_call(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        self.log.append(f"call {call.id}")

    def persist_and_start(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        self.log.append(f"call+start {call.id}")

    def mark_started(self, call_id: str) -> None:
        self.log.append(f"start {call_id}")

    def commit_result(self, result: ToolResult) -> None:
        self.log.append(f"result {result.call_id}")
        self.results.append(result)

    def commit_rejected(self, call: ToolCall, result: ToolResult) -> None:
        self.log.append(f"rejected {call.id}")

    def journal(self, call_id: str) -> None:
        return None


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    ws, out = tmp_path / "ws", tmp_path / "out"
    ws.mkdir()
    out.mkdir()
    return ws, out


@pytest.fixture
def sandbox(places: tuple[Path, Path]) -> Any:
    # the host's /tmp is not the command's: show the outside folder (read-only) so the
    # refusal is the sandbox's read-only file system, as for any folder outside
    made = make_sandbox(SandboxSettings(readable=(str(places[1]),)))
    yield made
    made.close()


def run_write(
    places: tuple[Path, Path], sandbox: Sandbox, policy: str, ask: Any
) -> tuple[ToolResult, Store]:
    ws, out = places
    store = Store()
    boundary = ToolBoundary(
        default_registry(), ws, PolicyApprover(policy, ask, sandbox=sandbox), store, sandbox=sandbox
    )
    call = ToolCall("c1", "shell", {"command": f"echo escaped > {out}/f.txt"})
    return asyncio.run(boundary.run(call)), store


@needs_sandbox
def test_approved_it_runs_again_outside(places: tuple[Path, Path], sandbox: Sandbox) -> None:
    person = Person(True, True)
    result, store = run_write(places, sandbox, "ask", person)
    assert (places[1] / "f.txt").read_text() == "escaped\n"
    inside, outside = person.seen
    assert inside.sandbox == "workspace-write · net off" and inside.escalation is None
    assert outside.kind == "command" and outside.command == inside.command
    assert outside.summary == "run outside the sandbox" and outside.sandbox is None
    assert outside.escalation is not None and "a write outside the writable folders" in (
        outside.escalation
    )
    first, _, second = result.output.partition(f"\n{ESCALATED}\n")
    assert "Read-only file system" in first and "[stopped by the sandbox:" in first
    assert second == "(no output)\n" or "escaped" not in first
    assert result.kind == "ok" and result.exit_code == 0
    assert result.meta["sandbox"] == {"mode": "escalated", "network": True}
    assert result.meta["escalated_from"] == {"mode": "workspace-write", "network": False}
    assert "sandbox_stopped" not in result.meta
    # the same call: recorded once, started once, one result
    assert store.log == ["call+start c1", "result c1"] and store.results == [result]


@needs_sandbox
def test_what_both_runs_wrote_is_one_record_from_before_the_first(
    places: tuple[Path, Path], sandbox: Sandbox
) -> None:
    """The sandboxed run wrote before it was stopped, the approved run again: an undo must
    put the file back to before the first (tools/command_changes.py ``both_runs``)."""
    import hashlib

    ws, out = places
    boundary = ToolBoundary(
        default_registry(),
        ws,
        PolicyApprover("ask", Person(True, True), sandbox=sandbox),
        Store(),
        sandbox=sandbox,
    )
    call = ToolCall("c1", "shell", {"command": f"echo x >> log.txt && echo y > {out}/f.txt"})
    result = asyncio.run(boundary.run(call))
    assert (ws / "log.txt").read_text() == "x\nx\n"
    assert result.meta["files"] == ["log.txt"]
    [target] = result.meta["targets"]
    assert (target["pre"], target["post"]) == (None, hashlib.sha256(b"x\nx\n").hexdigest())


@needs_sandbox
def test_denied_the_sandboxed_result_stands(places: tuple[Path, Path], sandbox: Sandbox) -> None:
    person = Person(False)  # auto-edit ran it inside without asking; only the escalation asks
    result, store = run_write(places, sandbox, "auto-edit", person)
    assert not (places[1] / "f.txt").exists()
    [shown] = person.seen
    assert shown.escalation is not None and shown.sandbox is None
    assert result.kind == "error" and ESCALATED not in result.output
    assert result.output.rstrip().endswith(
        "[not run outside the sandbox: denied by the user: keep it inside. Do not retry the "
        "same command unchanged; adjust the approach.]"
    )
    assert result.meta["sandbox"] == {"mode": "workspace-write", "network": False}
    assert "a write outside" in result.meta["sandbox_stopped"]
    assert store.log == ["call+start c1", "result c1"]


@needs_sandbox
@pytest.mark.parametrize(
    ("policy", "who"),
    [("auto", "person"), ("auto-edit", "nobody"), ("auto-edit", "no-terminal"), ("auto", "nobody")],
)
def test_never_under_auto_or_headless(
    places: tuple[Path, Path], sandbox: Sandbox, policy: str, who: str
) -> None:
    person = Person()  # any question would fail: it has no answers
    ask = {
        "person": person,
        "nobody": None,
        "no-terminal": NOBODY,
    }[who]
    result, store = run_write(places, sandbox, policy, ask)
    assert person.seen == []
    assert not (places[1] / "f.txt").exists()
    assert result.kind == "error" and "[stopped by the sandbox:" in result.output
    assert ESCALATED not in result.output and "not run outside" not in result.output
    assert result.meta["sandbox"] == {"mode": "workspace-write", "network": False}
    assert store.log == ["call+start c1", "result c1"]


@needs_sandbox
def test_a_command_inside_that_succeeds_asks_nothing_more(
    places: tuple[Path, Path], sandbox: Sandbox
) -> None:
    ws, _ = places
    store = Store()
    boundary = ToolBoundary(
        default_registry(),
        ws,
        PolicyApprover("auto-edit", Person(), sandbox=sandbox),
        store,
        sandbox=sandbox,
    )
    call = ToolCall("c1", "shell", {"command": "echo in > inside.txt && cat inside.txt"})
    result = asyncio.run(boundary.run(call))
    assert result.kind == "ok" and "in" in result.output
    assert (ws / "inside.txt").read_text() == "in\n"
    assert result.meta["sandbox"] == {"mode": "workspace-write", "network": False}


# ------------------------------------------------------------------ through the runtime


@needs_sandbox
async def test_a_session_under_auto_edit_runs_shell_inside_without_asking(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    srv = WireServer("openai-chat", strict=True)
    async with serve_wire(srv):
        call = Call("call_1", "shell", args(command="echo hello > made.txt && echo done"))
        srv.answer(stream(script(srv.wire, [call])), stream(script(srv.wire, [Text("ok")])))
        config = Config(
            base_url=srv.url,
            model="test-model",
            wire="openai-chat",
            protocol="native-inc",
            approval="auto-edit",
            api_key="sk-loopback-0123456789",
            context_window=100_000,
            instructions=False,
        )
        person = Person()  # never asked
        session = create_runtime(config, approver=person, workspace=root)
        try:
            assert session.sandbox_active
            assert session.sandbox_label == "workspace-write · net off"
            assert not any("sandbox unavailable" in note for note in session.notes)
            ended = await asyncio.wait_for(session.send("make the file"), WAIT)
            assert ended.reason == "done"
            jsonl = await session.export("jsonl")
            markdown = await session.export("markdown")
        finally:
            await session.close()
    assert person.seen == []
    assert (root / "made.txt").read_text() == "hello\n"
    [result] = [r for r in map(json.loads, jsonl.splitlines()) if r["type"] == "result"]
    assert result["kind"] == "ok" and result["sandbox"] == "workspace-write · net off"
    assert "sandbox: workspace-write · net off" in markdown


async def test_an_unavailable_sandbox_is_said_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import frontier.app.agent.runtime as runtime

    def cannot(settings: SandboxSettings, root: object = None) -> Sandbox:
        return Sandbox(settings, unavailable="bwrap not found (apt install bubblewrap)")

    monkeypatch.setattr(runtime, "make_sandbox", cannot)
    config = Config(base_url="http://127.0.0.1:9/v1", model="m", api_key="sk-0123456789abcdef")
    session = create_runtime(config, approver=Person(), workspace=tmp_path)
    try:
        assert not session.sandbox_active
        assert session.sandbox_label == "unavailable: bwrap not found (apt install bubblewrap)"
        assert (
            "sandbox unavailable: bwrap not found (apt install bubblewrap) — every command "
            "will be asked before it runs (--sandbox off runs them unconfined without asking)"
        ) in session.notes
    finally:
        await session.close()
    off = create_runtime(
        Config(
            base_url="http://127.0.0.1:9/v1",
            model="m",
            api_key="sk-0123456789abcdef",
            sandbox="off",
        ),
        approver=Person(),
        workspace=tmp_path,
    )
    try:
        assert off.sandbox_label == "off" and not off.sandbox_active
        assert not any("sandbox" in note for note in off.notes)
    finally:
        await off.close()


def test_the_sandbox_hides_frontiers_own_places(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import frontier.app.agent.runtime as runtime
    from frontier.app.config import config_dir, data_dir

    seen: list[SandboxSettings] = []
    monkeypatch.setattr(runtime, "make_sandbox", lambda s, root=None: seen.append(s) or Sandbox(s))
    config = Config(
        api_key_file="key.txt",
        sandbox="read-only",
        sandbox_network=True,
        sandbox_writable=("~/.cache/pip",),
    )
    runtime.session_sandbox(config, [])
    [settings] = seen
    assert settings.mode == "read-only" and settings.network is True
    assert settings.writable == ("~/.cache/pip",)
    assert settings.private == (str(data_dir()), str(config_dir()), str(config_dir() / "key.txt"))


async def test_headless_names_the_sandbox_in_its_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from frontier.app.frontends.headless import run_headless

    srv = WireServer("openai-chat", strict=True)
    async with serve_wire(srv):
        srv.answer(stream(script(srv.wire, [Text("ok")])))
        config = Config(
            base_url=srv.url,
            model="test-model",
            wire="openai-chat",
            protocol="native-inc",
            api_key="sk-loopback-0123456789",
            context_window=100_000,
            instructions=False,
            sandbox="off",
        )
        code = await run_headless(config, prompts=["hi"], workspace=tmp_path)
    header = capsys.readouterr().out.splitlines()[0]
    assert code == 0 and header.endswith(f"workspace {tmp_path} · sandbox off")
