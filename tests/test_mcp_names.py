"""``tools/mcp_names.py``: every server tool reaches the model under a name each model API
takes, and its calls reach the server under the tool's own name."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_tools_fakes import Approver, call, make_boundary

from frontier.app.config import ConfigError
from frontier.app.mcp_config import parse_mcp_servers
from frontier.tools.approval_rules import SERVER_WILDCARD, ToolRule
from frontier.tools.contract import MCP_SERVER_NAME
from frontier.tools.mcp_names import MAX_WIRE_NAME, wire_name
from frontier.tools.mcp_servers import McpHost
from frontier.tools.mcp_settings import ServerSettings
from frontier.tools.registry import Registry

HOSTILE = str(Path(__file__).with_name("mcp_hostile_server.py"))


@contextmanager
def hostile(tmp_path: Path, name: str, mode: str) -> Iterator[tuple[McpHost, Registry]]:
    """The hostile server in ``mode``, started as ``name`` into a registry of its own;
    closed after (its notes stay readable on the host)."""
    host = McpHost(tmp_path / "mcp-logs")
    registry = Registry()
    try:
        settings = ServerSettings(
            name=name, command=sys.executable, args=(HOSTILE, mode), startup_timeout=20
        )
        host.start([settings], registry)
        yield host, registry
    finally:
        host.close()


API_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""OpenAI's and Anthropic's rule for a tool's name."""
SERVER = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,31}", fullmatch=True).filter(lambda s: "__" not in s)


@given(SERVER, st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1))
def test_every_name_is_one_the_apis_take_and_a_fitting_one_is_kept(server: str, tool: str) -> None:
    name = wire_name(server, tool)
    assert API_NAME.fullmatch(name) and name.startswith(f"{server}__")
    if API_NAME.fullmatch(f"{server}__{tool}"):
        assert name == f"{server}__{tool}"


@given(SERVER, st.text(alphabet="ab_", min_size=60, max_size=128), st.text("ab_", min_size=1))
def test_two_long_names_cut_to_the_same_length_stay_two(server: str, a: str, tail: str) -> None:
    b = a + tail
    assert wire_name(server, a) != wire_name(server, b) or len(f"{server}__{b}") <= MAX_WIRE_NAME


async def test_dotted_and_long_tool_names_are_offered_renamed_and_called_by_their_own(
    tmp_path: Path,
) -> None:
    """``github.search`` was skipped as a bad name; a name of 70 characters went to the
    model as it was, and the API refused every request of the session."""
    with hostile(tmp_path, "bad", "names") as (host, registry):
        names = [n for n in registry.names() if n != "bad__ok" and n.startswith("bad__")]
        assert "bad__github_search" in names
        long = [n for n in names if n.startswith("bad__list_pull_request")]
        assert len(long) == 2 and all(len(n) == MAX_WIRE_NAME for n in long), long
        assert all(API_NAME.fullmatch(n) for n in registry.names())
        b = make_boundary(tmp_path, registry=registry, approver=Approver())
        for n, name in enumerate([*long, "bad__github_search"], 1):
            assert (await b.run(call(name, n, text=name))).output == name
    assert not [note for note in host.notes if "skipped" in note and "github" in note]


def test_two_tools_offered_under_one_name_keep_the_first_and_say_so(tmp_path: Path) -> None:
    """``dup.x`` and ``dup_x`` are both offered as ``twin__dup_x``: the second vanished
    unsaid, and ``mcp test`` listed both."""
    with hostile(tmp_path, "twin", "twins") as (host, registry):
        assert registry.names().count("twin__dup_x") == 1
        tool = registry.get("twin__dup_x")
        assert tool is not None and getattr(tool, "tool", None) == "dup.x"
    said = [note for note in host.notes if "dup_x skipped" in note]
    assert said == [
        "MCP server twin: tool dup_x skipped: it would be offered as twin__dup_x, as its "
        "tool dup.x is"
    ]


def test_an_array_without_items_is_offered_with_items(tmp_path: Path) -> None:
    """OpenAI refuses a tool whose array schema has no ``items`` (a 400 for every request
    of the session); an empty one means the same: anything."""
    with hostile(tmp_path, "arr", "arrays") as (_host, registry):
        tool = registry.get("arr__tagged")
        assert tool is not None
        properties = tool.spec.parameters["properties"]
        assert properties["tags"] == {"type": "array", "items": {}}
        assert properties["n"] == {"type": ["array", "null"], "items": {}}
        assert properties["d"]["default"] == {"type": "array"}  # data, not a schema


async def test_a_tool_whose_schema_is_no_objects_is_skipped_not_the_server(
    tmp_path: Path,
) -> None:
    """The SDK checks a listing whole: one tool declaring ``{"type": "string"}`` failed the
    server's start ("ValidationError … tools.1.inputSchema.type") and lost every tool."""
    with hostile(tmp_path, "odd", "unschemed") as (host, registry):
        names = registry.names()
        assert "odd__ok" in names and "odd__plain" not in names, host.notes
        b = make_boundary(tmp_path, registry=registry, approver=Approver())
        assert (await b.run(call("odd__ok", 1, text="still here"))).output == "still here"
    assert (
        "MCP server odd: tool 'plain' skipped: its inputSchema is not an object's schema "
        '(MCP asks "type": "object")'
    ) in host.notes
    assert not [note for note in host.notes if "did not start" in note]


VALID_SERVER = st.from_regex(MCP_SERVER_NAME, fullmatch=True).filter(lambda s: "__" not in s)
TOOL = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=80)


def _valid(name: str) -> bool:
    return re.fullmatch(MCP_SERVER_NAME, name) is not None and "__" not in name


@given(VALID_SERVER, st.data(), TOOL, TOOL)
def test_a_tool_is_one_servers_whatever_the_names(
    a: str, data: st.DataObject, tool: str, other: str
) -> None:
    """A server ``a_`` made ``a___echo``: server ``a``'s ``a__*`` rule approved it, ``a``'s
    refresh dropped it, and ``a``'s tool ``_echo`` had the same name. Names ending in
    ``_`` are refused, so the first ``__`` is always the separator."""
    near = st.sampled_from([a + "_", a + "-", a[:-1] or "z", a + "_x"]).filter(_valid)
    b = data.draw(st.one_of(near, VALID_SERVER))  # names one character from a's first
    if a == b:
        return
    name = wire_name(b, tool)
    assert not ToolRule(f"{a}{SERVER_WILDCARD}").matches(name)
    assert not name.startswith(a + "__")  # what a refresh of server a drops
    assert name != wire_name(a, other)


def test_a_server_name_ending_in_an_underscore_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        parse_mcp_servers({"mcp_servers": {"a_": {"command": "x"}}}, tmp_path / "config.toml")
    assert "not ending in _" in str(err.value)
    assert parse_mcp_servers({"mcp_servers": {"a-": {"command": "x"}}}, tmp_path / "c.toml")
