"""The workspace folder is pinned for the session (issue 21, item 9).

The root used to be resolved by its path on every call, so one shell call swapping the
folder for a symlink (``mv ws ws.old && ln -s victim ws``) redirected every later write
outside the workspace. A session now opens its root once (``beneath.pin_root``) and
every tool refuses — "the workspace folder was replaced" — once the path no longer names
that folder, whether it became a link, was moved, or was deleted and made again.

Driven as a person meets it: the real runtime (store, policy, tools, the chat wire's
encoder) against a loopback model server whose scripted calls do the swap and then try
every tool; the victim folder and the moved-away workspace must come out byte for byte
as they went in. The pin is one descriptor, released when the session closes.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from test_tools_fakes import model_has_read
from wire_scripts import Call, Text, WireServer, args, script, serve_wire, stream

from frontier.app.agent.runtime import create_runtime
from frontier.app.config import Config
from frontier.app.events import Event, ToolCall, ToolFinished, ToolResult, TurnEnded
from frontier.tools import beneath
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.policy import PolicyApprover

WAIT = 60.0
"""The longest a turn may take here: past it the test fails (nothing waits for time)."""
REPLACED = "the workspace folder was replaced since the session started: "
PATCH = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-notes\n+patched\n"


def tree(base: Path) -> dict[str, bytes | str]:
    """Every entry beneath ``base``: a file's bytes, a link's target, ``<dir>``."""
    found: dict[str, bytes | str] = {}
    for path in sorted(base.rglob("*")):
        rel = path.relative_to(base).as_posix()
        if path.is_symlink():
            found[rel] = f"-> {os.readlink(path)}"
        elif path.is_dir():
            found[rel] = "<dir>"
        else:
            found[rel] = path.read_bytes()
    return found


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """``ws`` (the workspace, with a file every tool can aim at) beside ``victim``, a
    folder outside it with a file of the same name."""
    ws, victim = tmp_path / "ws", tmp_path / "victim"
    ws.mkdir()
    victim.mkdir()
    (ws / "notes.txt").write_text("notes\n")
    (victim / "notes.txt").write_text("precious\n")
    return ws, victim


@pytest.fixture
async def server() -> AsyncIterator[WireServer]:
    srv = WireServer("openai-chat", strict=True)
    async with serve_wire(srv):
        yield srv


def every_tool() -> list[Call]:
    """One call of each file tool (and the shell), each aimed at ``notes.txt``."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("write", {"path": "notes.txt", "content": "overwritten\n"}),
        ("replace", {"path": "notes.txt", "old": "notes", "new": "replaced"}),
        ("multi", {"path": "notes.txt", "edits": [{"old": "notes", "new": "multi"}]}),
        ("apply_patch", {"patch": PATCH}),
        ("write", {"path": "new/created.txt", "content": "fresh\n"}),
        ("read", {"path": "notes.txt"}),
        ("grep", {"pattern": "notes"}),
        ("glob", {"pattern": "**/*"}),
        # `&& true`: a command (alone, the append is read as apply_patch's call)
        ("shell", {"command": "printf 'shell\\n' >> notes.txt && true"}),
    ]
    return [Call(f"call_{n}", name, args(**a)) for n, (name, a) in enumerate(calls, 2)]


def config(server: WireServer) -> Config:
    return Config(
        base_url=server.url,
        model="test-model",
        wire="openai-chat",
        protocol="native-inc",
        approval="auto",
        # the OS sandbox would refuse the model's `mv ws …` itself (tests/test_sandbox.py):
        # off here, so the pin is what stops every later call
        sandbox="off",
        api_key="sk-loopback-0123456789",
        context_window=100_000,
        instructions=False,
    )


async def run_session(server: WireServer, ws: Path, swap: str) -> list[ToolResult]:
    """A turn whose model first runs ``swap`` in the shell, then calls every tool; every
    result, in order."""
    server.answer(
        stream(script(server.wire, [Call("call_1", "shell", args(command=swap))])),
        stream(script(server.wire, every_tool())),
        stream(script(server.wire, [Text("done")])),
    )
    events: list[Event] = []
    session = create_runtime(config(server), approver=PolicyApprover("auto"), workspace=ws)
    try:
        session.subscribe(events.append)
        ended = await asyncio.wait_for(session.send("tidy the notes"), WAIT)
    finally:
        await session.close()
    assert isinstance(ended, TurnEnded) and ended.reason == "done", ended
    return [e.result for e in events if isinstance(e, ToolFinished)]


def assert_every_tool_refused(results: list[ToolResult], now: str) -> None:
    swap, *rest = results
    assert swap.kind == "ok", swap.output  # the swap itself ran
    assert [r.name for r in rest] == [c.name for c in every_tool()]
    for r in rest:
        assert r.kind == "error", (r.name, r.output)
        assert r.output.startswith(REPLACED), (r.name, r.output)
        assert now in r.output, (r.name, r.output)
        assert "nothing was read or written" in r.output


async def test_a_workspace_swapped_for_a_symlink_is_refused_by_every_tool(
    world: tuple[Path, Path], server: WireServer
) -> None:
    ws, victim = world
    base = ws.parent
    victim_before, ws_before = tree(victim), tree(ws)
    results = await run_session(server, ws, f"cd {base} && mv ws ws.old && ln -s victim ws")

    assert_every_tool_refused(results, f"is now a symbolic link to {'victim'!r}")
    assert tree(victim) == victim_before  # nothing written, made or changed outside
    assert tree(base / "ws.old") == ws_before  # nor in the real workspace, moved away
    assert os.readlink(ws) == "victim"
    # and the model was told, in the request after the calls
    told = json.loads(server.requests[2].text)["messages"]
    tool_texts = [m["content"] for m in told if m["role"] == "tool"]
    assert len(tool_texts) == 1 + len(every_tool())
    assert all(REPLACED in text for text in tool_texts[1:])


async def test_a_workspace_deleted_and_made_again_is_refused(
    world: tuple[Path, Path], server: WireServer
) -> None:
    """Same path, a new folder (another inode: the pin keeps the old one allocated, so
    the number cannot come back)."""
    ws, victim = world
    victim_before = tree(victim)
    results = await run_session(server, ws, f"cd {ws.parent} && rm -rf ws && mkdir ws")

    assert_every_tool_refused(results, "is now a different folder")
    assert tree(ws) == {}  # the new, empty folder: nothing was written into it
    assert tree(victim) == victim_before


async def test_a_workspace_moved_away_is_refused(
    world: tuple[Path, Path], server: WireServer
) -> None:
    ws, _ = world
    ws_before = tree(ws)
    results = await run_session(server, ws, f"cd {ws.parent} && mv ws ws.old")

    assert_every_tool_refused(results, "no longer exists (moved or deleted)")
    assert not ws.exists()
    assert tree(ws.parent / "ws.old") == ws_before


class SwapsDuringReview:
    """The person at the review, while someone else swaps the workspace (a review can
    take minutes): approves, after the swap."""

    def __init__(self, ws: Path, victim: Path) -> None:
        self.ws, self.victim = ws, victim

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        self.ws.rename(self.ws.with_name("ws.old"))
        self.ws.symlink_to(self.victim)
        return Decision(True)


async def test_a_swap_during_the_review_is_refused_before_anything_is_written(
    world: tuple[Path, Path],
) -> None:
    ws, victim = world
    victim_before = tree(victim)
    session = create_runtime(
        Config(approval="ask"), approver=SwapsDuringReview(ws, victim), workspace=ws, offline=True
    )
    try:
        boundary: Any = session._loop.boundary  # type: ignore[attr-defined]
        model_has_read(boundary, "notes.txt")
        call = ToolCall("c1", "write", {"path": "notes.txt", "content": "overwritten\n"})
        result = await asyncio.wait_for(boundary.run(call), WAIT)
    finally:
        await session.close()
    assert result.kind == "error" and result.output.startswith(REPLACED), result.output
    assert tree(victim) == victim_before
    assert (ws.parent / "ws.old" / "notes.txt").read_text() == "notes\n"


def open_fds() -> dict[int, str]:
    """This process's descriptors and what each names."""
    found: dict[int, str] = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            found[int(name)] = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue  # the listing's own descriptor, closed already
    return found


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
async def test_the_pin_is_one_descriptor_released_when_the_session_closes(
    world: tuple[Path, Path],
) -> None:
    ws, _ = world
    warm = ws.parent / "warm"
    warm.mkdir()
    for root in (warm, ws):  # the first session opens what a process keeps (the store's…)
        session = create_runtime(
            Config(approval="auto"), approver=PolicyApprover("auto"), workspace=root, offline=True
        )
        if root == warm:
            await session.close()
            before = open_fds()
    try:
        pinned = [fd for fd, name in open_fds().items() if name == str(ws)]
        assert len(pinned) == 1  # the pin: one descriptor of the folder, held while open
        pin = beneath.pin_of(session.workspace)
        assert pin is not None and not pin.closed
    finally:
        await session.close()
    assert pin.closed
    assert open_fds() == before  # nothing leaked: not the pin, not a walk's descriptor
