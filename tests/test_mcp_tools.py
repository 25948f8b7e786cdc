"""MCP stdio servers as tools (issue 26): a real server (tests/mcp_server_fixture.py) started
from config.toml, its tools called through a real ToolBoundary."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_tools_fakes import Approver, FakeStore, call, make_boundary

from frontier.app.config import ConfigError, config_path
from frontier.app.mcp_config import load_mcp_servers
from frontier.tools.mcp_servers import McpHost, schema_problem
from frontier.tools.registry import Registry

FIXTURE = Path(__file__).with_name("mcp_server_fixture.py")


def write_config(extra: str = "", tool_timeout: float = 30) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "[mcp_servers.srv]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(FIXTURE))}]\n"
        f"tool_timeout = {tool_timeout}\n"
        "startup_timeout = 30\n" + extra,
        "utf-8",
    )


@pytest.fixture
def host(tmp_path: Path) -> Iterator[McpHost]:
    made = McpHost(tmp_path / "mcp-logs")
    yield made
    made.close()


def started(host: McpHost) -> Registry:
    tools = host.start(load_mcp_servers())
    assert host.notes == []
    return Registry(tools)


async def test_tools_are_listed_by_server_and_echo_runs_through_the_boundary(
    tmp_path: Path, host: McpHost
) -> None:
    write_config()
    registry = started(host)
    assert registry.names() == ["srv__echo", "srv__env", "srv__slow", "srv__boom"]
    store = FakeStore()
    b = make_boundary(tmp_path, registry=registry, approver=Approver(), store=store)
    r = await b.run(call("srv__echo", text="hello there"))
    assert (r.kind, r.output) == ("ok", "hello there")
    steps = [name for name, _ in store.log]
    assert steps.index("commit_result") > steps.index("mark_started")


async def test_a_tool_that_never_answers_times_out_naming_server_and_tool(
    tmp_path: Path, host: McpHost
) -> None:
    write_config(tool_timeout=0.5)
    b = make_boundary(tmp_path, registry=started(host), approver=Approver())
    r = await b.run(call("srv__slow"))
    assert r.kind == "timeout"
    assert "srv" in r.output and "slow" in r.output
    # the server is still usable after a timed-out call
    assert (await b.run(call("srv__echo", 2, text="still here"))).output == "still here"


async def test_a_server_that_exits_mid_call_is_an_error_and_marked_dead(
    tmp_path: Path, host: McpHost
) -> None:
    write_config()
    b = make_boundary(tmp_path, registry=started(host), approver=Approver())
    r = await b.run(call("srv__boom"))
    assert r.kind == "error" and "MCP server srv" in r.output
    again = await b.run(call("srv__echo", 2, text="x"))
    assert again.kind == "error" and "not running" in again.output


async def test_withheld_variables_reach_the_server_only_when_named_in_env(
    tmp_path: Path, host: McpHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_parent_secret")
    write_config()
    b = make_boundary(tmp_path, registry=started(host), approver=Approver())
    r = await b.run(call("srv__env", name="GITHUB_TOKEN"))
    assert r.output == "<unset>"
    host.close()
    second = McpHost(tmp_path / "logs2")
    try:
        write_config('env = { GITHUB_TOKEN = "named_for_srv" }\n')
        b = make_boundary(tmp_path, registry=started(second), approver=Approver())
        r = await b.run(call("srv__env", name="GITHUB_TOKEN"))
        assert r.output == "named_for_srv"
    finally:
        second.close()


async def test_the_gate_asks_for_an_mcp_tool_under_auto_edit(tmp_path: Path, host: McpHost) -> None:
    write_config()
    asker = Approver(approve_all=False, reason="not now")
    b = make_boundary(tmp_path, registry=started(host), approver=asker, policy="auto-edit")
    r = await b.run(call("srv__echo", text="hi"))
    assert r.kind == "denied"
    assert [c.name for c, _ in asker.seen] == ["srv__echo"]
    auto = make_boundary(tmp_path, registry=b.registry, approver=asker, policy="auto")
    assert (await auto.run(call("srv__echo", 2, text="hi"))).output == "hi"
    assert len(asker.seen) == 1


def test_allow_and_deny_filter_the_tools(host: McpHost) -> None:
    write_config('allow = ["echo", "slow"]\ndeny = ["slow"]\n')
    assert started(host).names() == ["srv__echo"]


def test_a_server_that_cannot_start_is_a_note(host: McpHost) -> None:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text('[mcp_servers.gone]\ncommand = "/nonexistent/mcp"\n', "utf-8")
    assert host.start(load_mcp_servers()) == []
    assert len(host.notes) == 1 and "gone did not start" in host.notes[0]


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ('[mcp_servers.Bad]\ncommand = "x"\n', "the name must be"),
        ('[mcp_servers.ok]\ncommand = "x"\nurl = "http://h"\n', "not supported yet"),
        ('[mcp_servers.ok]\ncommand = "x"\ntool_timeout = 0\n', "tool_timeout"),
        ('[mcp_servers.ok]\nargs = ["a"]\n', "command must be"),
    ],
)
def test_config_errors_name_the_file_and_key(table: str, says: str) -> None:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(table, "utf-8")
    with pytest.raises(ConfigError) as err:
        load_mcp_servers()
    assert says in str(err.value) and str(config_path()) in str(err.value)


def test_schemas_are_bounded_before_a_model_sees_them() -> None:
    deep: dict[str, object] = {"type": "object"}
    node = deep
    for _ in range(200):
        node["properties"] = {"x": {"type": "object"}}
        node = node["properties"]["x"]  # type: ignore[index]
    assert "deeper than 32" in (schema_problem(deep) or "")
    huge = {"type": "object", "description": "x" * 70_000}
    assert "bytes" in (schema_problem(huge) or "")
    assert schema_problem({"type": "object", "properties": {}}) is None
