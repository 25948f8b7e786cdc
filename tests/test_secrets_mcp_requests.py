"""An MCP server's configured secrets never reach the model (docs/mcp.md, "Secrets").

A real session (``create_runtime``: the loop, the store, a ``ModelClient``) talks to a
loopback chat endpoint (``wire_scripts.WireServer``, which keeps every request body as it
arrived) and to the fixture MCP server, configured with a token in its ``env`` and a
``${NAME}`` passed from Frontier's environment. The server's ``env`` tool answers with
those values. The store, the export and the terminal said ``[REDACTED]``, but the request
bodies carried both values in plain text, in every request after the tool result: the
client redacted with a scrubber of its own, built from the key, the URL and the headers
when it was made, which never learned the servers' secrets (nor a key a later ``/model``
switch resolved). There is now one scrubber, the session's, that the client reads at each
request.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from wire_scripts import Call, Text, WireServer, loopback_config, script, serve_wire, stream

from frontier.app.agent.runtime import create_runtime
from frontier.app.config import config_path
from frontier.app.secrets import REDACTED
from frontier.tools.policy import PolicyApprover

FIXTURE = Path(__file__).with_name("mcp_server_fixture.py")
SVC_TOKEN = "envsecret-1a2b3c4d5e"
"""A token written in config.toml's ``env`` under a credential's name."""
PASSED = "ghp_Pq7Rs8Tu9Vw0Xy1Za2Bc3De4Fg5Hi6Jk7Lm8"
"""A GitHub token passed from Frontier's environment under a name that says nothing."""


def write_config() -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"[mcp_servers.srv]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(FIXTURE))}]\nsandbox = false\nstartup_timeout = 30\n"
        'env = { SVC_TOKEN = "' + SVC_TOKEN + '", PASSTHRU = "${MY_GH}" }\n',
        "utf-8",
    )


def env_calls() -> list[Call]:
    """The model asks the server's ``env`` tool for both values, in one response."""
    return [
        Call("c1", "srv__env", json.dumps({"name": "SVC_TOKEN"})),
        Call("c2", "srv__env", json.dumps({"name": "PASSTHRU"})),
    ]


@pytest.fixture
async def model() -> AsyncIterator[WireServer]:
    srv = WireServer("openai-chat")
    async with serve_wire(srv):
        yield srv


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MY_GH", PASSED)
    write_config()
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def assert_redacted(body: str) -> None:
    """Neither value, in any form, and the results there as ``[REDACTED]``."""
    assert SVC_TOKEN not in body and PASSED not in body
    assert body.count(REDACTED) >= 2


@pytest.mark.parametrize("background", [False, True], ids=["waited", "in-background"])
async def test_a_servers_env_secrets_are_redacted_in_every_request_after_its_answer(
    model: WireServer, workspace: Path, background: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request right after the tool results, and the next turn's, which resends them
    from the loop's history (``background``: the servers start after the client is made,
    as in a person's session; the first request waits for the start whatever the load)."""
    from frontier.app.agent import mcp_wait

    monkeypatch.setattr(mcp_wait, "MCP_GRACE", 60.0)
    model.answer(
        stream(script(model.wire, env_calls())),
        stream(script(model.wire, [Text("both read")])),
        stream(script(model.wire, [Text("fine")])),
    )
    session = create_runtime(
        loopback_config(model.url, "openai-chat"),
        approver=PolicyApprover("auto"),
        workspace=workspace,
        mcp_in_background=background,
    )
    try:
        assert (await session.send("read the server's variables")).reason == "done"
        assert (await session.send("and now?")).reason == "done"
    finally:
        await session.close()
    first, after_results, next_turn = (seen.text for seen in model.requests)
    assert "srv__env" in first  # the tool was offered: the call below ran
    tool_messages = [m for m in model.requests[1].body["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == [REDACTED, REDACTED]
    assert_redacted(after_results)
    assert_redacted(next_turn)


async def test_after_a_model_switch_every_secret_the_session_knows_stays_redacted(
    model: WireServer, workspace: Path
) -> None:
    """The client a ``/model`` switch makes redacts what the session learned before it
    was made: the servers' secrets and the first client's key (which its own scrubber,
    built from its own key alone, did not know: the first provider's key, pasted into
    the conversation, went to the second)."""
    model.answer(
        stream(script(model.wire, env_calls())),
        stream(script(model.wire, [Text("read")])),
        stream(script(model.wire, [Text("fine")])),
    )
    session = create_runtime(
        loopback_config(model.url, "openai-chat"),
        approver=PolicyApprover("auto"),
        workspace=workspace,
    )
    first_key = loopback_config(model.url, "openai-chat").api_key
    assert first_key is not None
    try:
        assert (await session.send("read the server's variables")).reason == "done"
        await session.switch_model("m2")
        assert (await session.send(f"the first key was {first_key}")).reason == "done"
    finally:
        await session.close()
    last = model.requests[-1]
    assert last.body["model"] == "m2"
    assert_redacted(last.text)
    assert first_key not in last.text and f"the first key was {REDACTED}" in last.text
