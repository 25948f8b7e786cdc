"""A session whose first turn failed is kept (issue 20 audit, item 3).

``frontier run --json`` names the session in its first line before the first request;
when that request failed (a server error), closing used to delete the session as one
the model never answered, and ``frontier run --session ID`` then said "no session
matches". A session that holds a message the person wrote is kept; one nobody wrote in
is still discarded.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest
from wire_scripts import (
    WIRES,
    Text,
    WireServer,
    loopback_config,
    problems_of,
    script,
    serve_wire,
    status,
    stream,
)

from frontier.app.agent.runtime import create_runtime
from frontier.app.events import TurnEnded
from frontier.app.session.catalogue import find_session
from frontier.app.session.db import StoreError
from frontier.app.session.export import read_session
from frontier.app.session.store import SessionStore
from frontier.tools.policy import PolicyApprover

NOW = {"Retry-After": "0"}
"""Retries of a 500 come at once (the transport honours Retry-After)."""


def failing(wire: str) -> list[object]:
    """Five 500s: the first attempt and every retry fail."""
    body = {"error": {"message": "boom", "type": "server_error"}}
    return [status(500, body, NOW) for _ in range(5)]


@pytest.mark.parametrize("wire", WIRES)
async def test_a_failed_first_turn_keeps_the_session_and_it_resumes(
    wire: str, tmp_path: Path
) -> None:
    server = WireServer(wire)
    server.answer(*failing(wire), stream(script(wire, [Text("Done.")])))
    async with serve_wire(server):
        settings = loopback_config(server.url, wire)
        first = create_runtime(settings, approver=PolicyApprover("auto"), workspace=tmp_path)
        sid = first.session_id
        try:
            ended = await first.send("first task")
        finally:
            await first.close()
        assert ended.reason == "provider_error", ended.message
        info = find_session(sid)
        assert (info.first_prompt, info.turns) == ("first task", 1)

        failure = " ".join(ended.message.split())[:300]
        again = create_runtime(settings, approver=PolicyApprover("auto"), session_id=sid)
        try:
            # the resumed session says why the last turn failed (said live, then gone):
            # in its history, where it happened, and apart for a front end without one
            assert again.last_failure == failure and "boom" in failure
            assert [type(e).__name__ for e in again.history_events()] == [
                "UserMessage",
                "TurnEnded",
            ]
            assert again.history_events()[1] == TurnEnded("provider_error", failure)
            ended = await again.send("try again")
        finally:
            await again.close()
        third = create_runtime(settings, approver=PolicyApprover("auto"), session_id=sid)
        try:
            assert third.last_failure is None  # the last turn finished
            assert [e for e in third.history_events() if isinstance(e, TurnEnded)] == [
                TurnEnded("provider_error", failure)  # the first turn's, still in its place
            ]
        finally:
            await third.close()
        assert not [n for n in third.notes if n.startswith("the last turn")]
        with SessionStore.open_readonly() as store:  # as `frontier export` reads it
            _, records = read_session(store.db, sid)
        kinds = [(r["type"], r.get("text") or r.get("message")) for r in records]
        assert kinds[:2] == [("user", "first task"), ("ended", failure)]
        assert ("user", "try again") in kinds[2:]
    assert ended.reason == "done", ended.message
    last = server.requests[-1]
    assert problems_of(wire, last.body) == []
    said = last.text
    assert said.index("first task") < said.index("[Reply failed") < said.index("try again")


async def test_a_session_nobody_wrote_in_is_still_discarded(tmp_path: Path) -> None:
    session = create_runtime(
        loopback_config("http://127.0.0.1:9/v1", "openai-chat"),
        approver=PolicyApprover("auto"),
        workspace=tmp_path,
    )
    sid = session.session_id
    await session.close()
    with pytest.raises(StoreError):
        find_session(sid)


async def _frontier(*argv: str) -> tuple[int, list[str], str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "frontier.app.cli",
        *argv,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode().splitlines(), err.decode()


async def test_run_json_names_a_session_that_run_session_then_finds(tmp_path: Path) -> None:
    """As a user: the first ``--json`` line's id, after a failed first turn, is one
    ``frontier run --session ID`` continues."""
    wire = "openai-chat"
    server = WireServer(wire)
    server.answer(*failing(wire), stream(script(wire, [Text("Done.")])))
    async with serve_wire(server):
        common = ["run", "--json", "--base-url", server.url, "--model", "m"]
        common += ["--protocol", "ctl-heredoc", "--sandbox", "off"]
        code, lines, err = await _frontier(*common, "--workspace", str(tmp_path), "first task")
        assert code != 0, err
        head = json.loads(lines[0])
        assert head["type"] == "session" and not head["resumed"]
        assert json.loads(lines[-1])["reason"] == "provider_error"
        code, lines, err = await _frontier(*common, "--session", head["id"], "try again")
    assert code == 0, err
    again = json.loads(lines[0])
    assert (again["id"], again["resumed"]) == (head["id"], True)
    assert "first task" in server.requests[-1].text
