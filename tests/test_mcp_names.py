"""``tools/mcp_names.py``: every server tool reaches the model under a name each model API
takes, and its calls reach the server under the tool's own name."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from test_tools_fakes import Approver, call, make_boundary

from frontier.tools.mcp_names import MAX_WIRE_NAME, wire_name
from frontier.tools.mcp_servers import McpHost
from frontier.tools.mcp_settings import ServerSettings
from frontier.tools.registry import Registry

HOSTILE = str(Path(__file__).with_name("mcp_hostile_server.py"))
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
    host = McpHost(tmp_path / "mcp-logs")
    registry = Registry()
    try:
        settings = ServerSettings(
            name="bad", command=sys.executable, args=(HOSTILE, "names"), startup_timeout=20
        )
        host.start([settings], registry)
        names = [n for n in registry.names() if n != "bad__ok" and n.startswith("bad__")]
        assert "bad__github_search" in names
        long = [n for n in names if n.startswith("bad__list_pull_request")]
        assert len(long) == 2 and all(len(n) == MAX_WIRE_NAME for n in long), long
        assert all(API_NAME.fullmatch(n) for n in registry.names())
        b = make_boundary(tmp_path, registry=registry, approver=Approver())
        for n, name in enumerate([*long, "bad__github_search"], 1):
            assert (await b.run(call(name, n, text=name))).output == name
    finally:
        host.close()
    assert not [note for note in host.notes if "skipped" in note and "github" in note]
