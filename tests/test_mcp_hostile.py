"""A hostile MCP server (tests/mcp_hostile_server.py) through the real boundary (issue 26):
each attack is bounded, reported, loses nothing, and the next call still works."""

from __future__ import annotations

import asyncio
import re
import resource
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from async_wait import until
from test_tools_fakes import Approver, call, make_boundary

from frontier.tools import mcp_servers
from frontier.tools.boundary import ToolBoundary
from frontier.tools.mcp_servers import MAX_TOOLS, McpHost, McpStopError
from frontier.tools.mcp_settings import ServerSettings
from frontier.tools.output_cap import TOOL_OUT_CAP
from frontier.tools.registry import Registry, default_registry

HERE = Path(__file__).parent
HOSTILE = str(HERE / "mcp_hostile_server.py")
FIXTURE = str(HERE / "mcp_server_fixture.py")


def hostile(name: str, *args: str, tool_timeout: float = 20.0) -> ServerSettings:
    return ServerSettings(
        name=name,
        command=sys.executable,
        args=(HOSTILE, *args),
        startup_timeout=20.0,
        tool_timeout=tool_timeout,
    )


def good(name: str = "good") -> ServerSettings:
    return ServerSettings(name=name, command=sys.executable, args=(FIXTURE,), startup_timeout=20)


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[McpHost, Registry]]:
    """One hostile server (1 s tool timeout) and one good one, for the tests that leave
    both running."""
    host = McpHost(tmp_path_factory.mktemp("mcp-logs"))
    registry = default_registry()
    host.start([hostile("bad", tool_timeout=1.0), good()], registry)
    yield host, registry
    host.close()


def boundary(tmp_path: Path, registry: Registry) -> ToolBoundary:
    return make_boundary(tmp_path, registry=registry, approver=Approver())


async def test_a_50_mb_result_reaches_the_model_capped_and_the_next_call_works(
    tmp_path: Path,
) -> None:
    """Its own server with room to answer (the shared one times out after 1 s, which a
    loaded machine can miss): what is checked is the capped result and the memory, never
    the time (the reader's linear cost was measured by hand: docs/mcp.md)."""
    host = McpHost(tmp_path / "mcp-logs")
    registry = default_registry()
    try:
        host.start([hostile("bad", tool_timeout=300.0)], registry)
        await _huge_result(tmp_path, registry)
    finally:
        host.close()


async def _huge_result(tmp_path: Path, registry: Registry) -> None:
    b = boundary(tmp_path, registry)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    r = await b.run(call("bad__huge"))
    grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - peak
    assert r.kind == "ok", r.output
    assert r.output.startswith("HEAD") and r.output.endswith("TAIL")
    assert "bytes of output omitted (kept first 60% and last 40%)" in r.output
    assert len(r.output.encode()) <= TOOL_OUT_CAP
    assert grew < 1024**3  # a few copies of the 50 MB message at most, never unbounded
    assert (await b.run(call("bad__ok", 2, text="after"))).output == "after"


async def test_a_tool_that_never_answers_times_out_and_the_server_still_answers(
    tmp_path: Path, shared: tuple[McpHost, Registry]
) -> None:
    _, registry = shared
    b = boundary(tmp_path, registry)
    r = await b.run(call("bad__hang"))
    assert r.kind == "timeout" and "bad" in r.output and "hang" in r.output
    assert (await b.run(call("bad__ok", 2, text="still"))).output == "still"


async def test_a_result_holding_a_lone_surrogate_is_read_with_a_replacement(
    tmp_path: Path,
) -> None:
    """``"\\udcff"`` is valid JSON but no character: the SDK could not read the message,
    dropped it, and the call waited out its time limit (here 20 s, 60 s by default) to say
    "timed out". Its own server, so a loaded machine's slowness cannot look like that."""
    host = McpHost(tmp_path / "mcp-logs")
    registry = default_registry()
    try:
        host.start([hostile("bad", tool_timeout=20.0)], registry)
        b = boundary(tmp_path, registry)
        r = await b.run(call("bad__surrogate"))
        assert (r.kind, r.output) == ("ok", "bad\ufffd name")
        assert (await b.run(call("bad__ok", 2, text="after"))).output == "after"
    finally:
        host.close()
    assert not any("could not be read" in note for note in host.notes)


async def test_lines_that_are_no_message_are_skipped_said_once_and_logged(
    tmp_path: Path,
) -> None:
    """A server that greets on stdout did not start ("sent a message that could not be
    read"); a ``print`` left in a tool was noted as unreadable. Neither lost a message."""
    host = McpHost(tmp_path / "mcp-logs")
    registry = default_registry()
    try:
        host.start([hostile("bad", "banner", tool_timeout=20.0)], registry)
        assert "bad__chatty" in registry.names(), host.notes
        b = boundary(tmp_path, registry)
        assert (await b.run(call("bad__chatty"))).output == "said"
        assert (await b.run(call("bad__chatty", 2))).output == "said"
    finally:
        host.close()
    said = [n for n in host.notes if "not MCP messages" in n]
    assert len(said) == 1 and said[0].startswith("MCP server bad prints lines"), host.notes
    log = (tmp_path / "mcp-logs" / "bad.log").read_text()
    assert "'Starting hostile MCP server v1.0 ...'" in log and "listening on stdio'" in log
    assert log.count("'debug: chatty called'") == 2


async def test_unreadable_messages_grow_no_log_without_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """50,000 lines that start as JSON and are not made its log 19 MB (a line each) and the
    SDK's log 46 MB (a traceback each), with seconds of CPU: each is bounded now."""
    from frontier.tools import mcp_servers

    monkeypatch.setattr(mcp_servers, "MAX_LOG", 64 << 10)  # the SDK log's bound, made small
    host = McpHost(tmp_path / "mcp-logs")
    registry = default_registry()
    try:
        host.start([hostile("bad", tool_timeout=60.0)], registry)
        b = boundary(tmp_path, registry)
        assert (await b.run(call("bad__garbled", count=3000))).output == "garbled 3000"
        assert (await b.run(call("bad__ok", 2, text="after"))).output == "after"
    finally:
        host.close()
    log = (tmp_path / "mcp-logs" / "bad.log").read_text()
    assert log.count("could not be read") == mcp_servers.MAX_STRAY_LOGGED
    sdk = tmp_path / "mcp-logs" / "sdk.log"
    assert sdk.stat().st_size < (64 << 10) + 4096
    assert sdk.read_text().endswith("of the SDK's warnings this session: no more\n")
    assert sum("could not be read" in note for note in host.notes) == 1


async def test_a_server_that_answers_wrongly_fails_that_call_at_once_and_keeps_serving(
    tmp_path: Path,
) -> None:
    """A careless server's answers (tests/mcp_hostile_server.py ``SLOPPY``, ``typed``). A
    JSON-RPC error or a result without ``content`` marked the whole server dead for the
    session; an answer the SDK could not read (no ``"jsonrpc"``, a string ``result``, an
    error without a code) was dropped, and its call waited out its limit (20 s here, 60 s
    by default) to say "timed out"; structured content that missed the tool's output schema
    made a call that had run read as a failure, and killed the server too."""
    host = McpHost(tmp_path / "mcp-logs")
    registry = default_registry()
    said = {
        "nojsonrpc": 'its answer is not a JSON-RPC response (it has no "jsonrpc": "2.0")',
        "textresult": 'its answer is not a JSON-RPC response (its "result" is not an object)',
        "nocode": 'its answer is not a JSON-RPC response (its "error" lacks an integer "code"',
        "rpcerror": "no (JSON-RPC error -32000)",
        "emptyresult": "its answer is not a tool result (content: Field required)",
    }
    try:
        host.start([hostile("bad", tool_timeout=20.0)], registry)
        b = boundary(tmp_path, registry)
        for n, (how, words) in enumerate(said.items(), 1):
            r = await b.run(call("bad__sloppy", n, how=how))
            assert r.kind == "error", (how, r.kind, r.output)
            assert r.output.startswith(f"MCP server bad: tool sloppy: {words}"), r.output
            assert (await b.run(call("bad__ok", 100 + n, text=how))).output == how
        ran = await b.run(call("bad__typed", 50))
        assert ran.kind == "ok", ran.output
        assert ran.output.startswith("made issue 7\n[note: the server's structured content")
        assert "'7' is not of type 'integer'" in ran.output
        assert {s.name: s.state for s in host.states()} == {"bad": "running"}
    finally:
        host.close()
    log = (tmp_path / "mcp-logs" / "bad.log").read_text()
    assert log.count("tool sloppy:") == len(said) and "tool typed: Invalid structured" in log


async def test_a_servers_screenshot_is_an_image_for_the_model_only_when_it_is_one(
    tmp_path: Path,
) -> None:
    """Playwright's server answers ``browser_take_screenshot`` with image content: the model
    saw "[image image/png, 8 base64 chars]" and never the page. The image goes with the
    result (the loop shows it after the round's results); bytes that are no image, or not
    base64, are named and never sent (the API would refuse that request and every later
    one)."""
    import base64

    host = McpHost(tmp_path / "mcp-logs")
    registry = default_registry()
    try:
        host.start([hostile("bad", tool_timeout=20.0)], registry)
        shot = await boundary(tmp_path, registry).run(call("bad__screenshot"))
        many = await boundary(tmp_path, registry).run(call("bad__gallery", 2))
    finally:
        host.close()
    assert len(many.images) == 4  # each is sent again with every later request
    assert many.output.count("not shown: at most 4 images a result") == 2, many.output
    assert shot.kind == "ok", shot.output
    (image,) = shot.images
    assert (image.media_type, image.name) == ("image/png", "bad screenshot image")
    from mcp_hostile_server import SHOT

    raw = base64.b64decode(SHOT)
    assert base64.b64decode(image.data) == raw
    assert shot.output.splitlines() == [
        "Took the screenshot",
        f"[image image/png, {len(raw)} bytes]",
        "[image image/png, not shown: not a PNG, JPEG, GIF or WebP image]",
        "[image image/png, not shown: not an image that can be read (damaged, or a kind "
        "Pillow does not know)]",
        "[image image/jpeg, not shown: not valid base64]",
    ]


async def test_an_embedded_resource_reaches_the_model_with_its_text(tmp_path: Path) -> None:
    """GitHub's server answers ``get_file_contents`` with the file as an embedded resource:
    the model saw ``[resource URI]`` and never the file."""
    host = McpHost(tmp_path / "mcp-logs")
    registry = default_registry()
    try:
        host.start([hostile("bad", tool_timeout=20.0)], registry)
        read = await boundary(tmp_path, registry).run(call("bad__embedded"))
    finally:
        host.close()
    assert read.output == (
        "successfully downloaded text file\n[resource repo://a/README.md text/markdown]\n"
        "# A\nbody\n[resource repo://a/logo.png ?, 8 base64 chars]"
    )


def test_a_server_without_ping_answers_it_with_an_error_and_is_running(tmp_path: Path) -> None:
    """``Method not found`` for ``ping`` marked the server dead (``frontier mcp test``, a
    ping from ``/mcp``), and every one of its tools with it."""
    host = McpHost(tmp_path / "mcp-logs")
    try:
        host.start([hostile("bad", "noping", tool_timeout=20.0)], default_registry())
        assert host.ping("bad") >= 0
        assert {s.name: s.state for s in host.states()} == {"bad": "running"}
    finally:
        host.close()
    log = (tmp_path / "mcp-logs" / "bad.log").read_text()
    assert "ping answered with an error, so it is running: Method not found: ping" in log


def test_a_server_that_offers_no_tools_is_noted_and_not_a_failed_start(tmp_path: Path) -> None:
    """It names no tools among its capabilities and answers ``tools/list`` with ``Method
    not found``: "did not start" at every session, for a server other clients use for its
    resources. One that names tools and then refuses to list them still fails its start
    (``nolist``, above)."""
    host = McpHost(tmp_path / "mcp-logs")
    try:
        registry = default_registry()
        host.start([hostile("res", "notools"), good()], registry)
        (state, other) = sorted(host.states(), key=lambda s: s.name != "res")
        assert (state.state, state.tools, state.why) == ("running", (), None)
        assert other.state == "running" and "good__echo" in registry.names()
        assert host.notes == [
            "MCP server res offers no tools (its capabilities name none, and Frontier uses "
            "only a server's tools)"
        ]
    finally:
        host.close()


def test_a_long_log_is_moved_aside_when_its_server_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every session appended the server's stderr to one file in the data folder: a
    server that logs each request grew it without end."""
    monkeypatch.setattr(mcp_servers, "MAX_LOG", 1000)
    logs = tmp_path / "mcp-logs"
    logs.mkdir()
    (logs / "bad.log").write_text("old line\n" * 200)  # 1,800 bytes: over
    (logs / "bad.log.1").write_text("older\n")
    for _ in range(2):
        host = McpHost(logs)
        try:
            host.start([hostile("bad", tool_timeout=20.0)], default_registry())
        finally:
            host.close()
    assert (logs / "bad.log.1").read_text() == "old line\n" * 200
    log = (logs / "bad.log").read_text()
    assert "old line" not in log and log.count("] starting ") == 2  # under 1,000: kept


async def test_a_server_that_logs_without_end_keeps_its_log_within_twice_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its stderr went straight into the log, moved aside only at the next start: a server
    that logs every request grew it without end during a session. The newest lines stay
    in the log, where the notes read a server's last words."""
    monkeypatch.setattr(mcp_servers, "MAX_LOG", 200_000)
    logs = tmp_path / "mcp-logs"
    host = McpHost(logs)
    try:
        registry = default_registry()
        host.start([hostile("loud")], registry)
        for kib in (400, 300, 500):  # 1.2 MB in all
            result = await boundary(tmp_path, registry).run(call("loud__noisy", 1, kib=kib))
            assert result.kind == "ok", result.output
        log, older = logs / "loud.log", logs / "loud.log.1"

        def logged() -> str:  # a moment between moving it aside and the next one
            return log.read_text() if log.exists() else ""

        await until(lambda: "noisy done 500" in logged(), what="the last line logged")
        assert log.stat().st_size <= 200_000 and older.stat().st_size <= 200_000
    finally:
        host.close()


def test_a_server_that_exits_before_answering_is_said_with_its_status_and_last_words(
    tmp_path: Path,
) -> None:
    """A server that lacks its token says so on stderr and exits: the note said
    "Connection closed", and the reason was in a log nobody opened."""
    logs = tmp_path / "mcp-logs"
    logs.mkdir()
    (logs / "gh.log").write_text("Error: an older session's words\n")
    code = (
        "import sys; print('starting', file=sys.stderr); "
        "print('Error: GITHUB_TOKEN not set', file=sys.stderr); sys.exit(1)"
    )
    host = McpHost(logs)
    try:
        host.start(
            [ServerSettings(name="gh", command=sys.executable, args=("-c", code))], Registry()
        )
    finally:
        host.close()
    (state,) = host.states()
    assert state.why == (
        "it exited with status 1 before answering; its last words: 'Error: GITHUB_TOKEN not set'"
    )


async def test_a_withheld_variable_reaches_one_server_by_name_and_its_absence_is_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GitHub's server needs its token, which Frontier withholds from tools and servers
    (``*TOKEN*``): it said only "not set", while the person saw it set in their shell, and
    the one way in was the token's value written into config.toml."""
    token = "ghp_5e1c0ffee42d"
    monkeypatch.setenv("GITHUB_PERSONAL_ACCESS_TOKEN", token)
    passed = ServerSettings(
        name="good",
        command=sys.executable,
        args=(FIXTURE,),
        env={"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}"},
        startup_timeout=20,
    )
    code = (
        "import os, sys; os.environ.get('GITHUB_PERSONAL_ACCESS_TOKEN') or sys.exit("
        "'Error: GITHUB_PERSONAL_ACCESS_TOKEN environment variable is not set')"
    )
    lacking = ServerSettings(name="gh", command=sys.executable, args=("-c", code))
    host = McpHost(tmp_path / "mcp-logs")
    registry = Registry()
    try:
        host.start([passed, lacking], registry)
        b = boundary(tmp_path, registry)
        r = await b.run(call("good__env", name="GITHUB_PERSONAL_ACCESS_TOKEN"))
        assert r.output == token
    finally:
        host.close()
    gh = next(s for s in host.states() if s.name == "gh")
    assert gh.why is not None and gh.why.endswith(
        "(Frontier withholds GITHUB_PERSONAL_ACCESS_TOKEN from tools and servers: pass it to "
        'this one with env = { GITHUB_PERSONAL_ACCESS_TOKEN = "${GITHUB_PERSONAL_ACCESS_TOKEN}" '
        "} in [mcp_servers.gh])"
    )
    assert token not in " ".join(host.notes)


def test_a_schema_is_offered_without_its_dollar_schema(shared: tuple[McpHost, Registry]) -> None:
    """Gemini's OpenAI endpoint refuses ``$schema`` in a tool's parameters ("Unknown name"),
    which zod-made servers write: every request of the session failed."""
    _, registry = shared
    tool = registry.get("bad__ok")
    assert tool is not None
    assert tool.spec.parameters == {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    }


def test_a_tool_named_with_control_characters_is_skipped_and_shown_escaped(
    shared: tuple[McpHost, Registry],
) -> None:
    host, registry = shared
    (note,) = [n for n in host.notes if "bad name" in n]
    assert note == r"MCP server bad: tool 'evil\x1b[31m\x07name' skipped (bad name)"
    assert not any("\x1b" in n or "\x07" in n for n in host.notes)
    assert not any("evil" in name for name in registry.names())
    assert "bad__ok" in registry.names() and "good__echo" in registry.names()


async def test_a_server_that_exits_mid_call_is_reported_and_the_others_keep_working(
    tmp_path: Path,
) -> None:
    host = McpHost(tmp_path / "mcp-logs")
    try:
        registry = Registry()
        host.start([hostile("bad"), good()], registry)
        b = boundary(tmp_path, registry)
        r = await b.run(call("bad__die"))
        assert r.kind == "error"
        assert "MCP server bad failed during die" in r.output
        assert str(tmp_path / "mcp-logs" / "bad.log") in r.output
        again = await b.run(call("bad__ok", 2, text="x"))
        assert again.kind == "error" and "not running" in again.output
        assert (await b.run(call("good__echo", 3, text="fine"))).output == "fine"
        states = {s.name: s for s in host.states()}
        assert states["bad"].state == "dead" and states["good"].state == "running"
    finally:
        host.close()


async def test_deep_schemas_are_skipped_or_the_server_reported_and_others_work(
    tmp_path: Path,
) -> None:
    host = McpHost(tmp_path / "mcp-logs")
    try:
        registry = Registry()
        servers = [hostile("d60", "deep", "60"), hostile("d100", "deep", "100")]
        servers += [hostile("nolist", "nolist"), good()]
        host.start(servers, registry)
        # 60 levels reach Frontier: that tool alone is skipped, its server's others stay
        assert (
            "MCP server d60: tool deep skipped: its input schema nests deeper than 32 levels"
            in (host.notes)
        )
        assert "d60__ok" in registry.names() and "d60__deep" not in registry.names()
        # 100: the SDK's client cannot read the listing; a server that answers tools/list
        # with an error (as the SDK's own does at 200 levels, which it cannot send). Either
        # way: not started, said at once.
        (d100,) = [n for n in host.notes if n.startswith("MCP server d100 did not start")]
        assert "could not be read" in d100 and "recursion limit" in d100
        (refused,) = [n for n in host.notes if n.startswith("MCP server nolist did not start")]
        assert "the tool listing could not be made" in refused
        assert not any(n.startswith(("d100__", "nolist__")) for n in registry.names())
        b = boundary(tmp_path, registry)
        assert (await b.run(call("good__echo", text="ok"))).output == "ok"
        assert (await b.run(call("d60__ok", 2, text="ok"))).output == "ok"
    finally:
        host.close()


async def test_a_list_changed_flood_costs_a_few_relists_and_notes(tmp_path: Path) -> None:
    host = McpHost(tmp_path / "mcp-logs")
    try:
        registry = default_registry()
        host.start([hostile("fl")], registry)
        notes_at_start = len(host.notes)
        server = host.servers["fl"]
        b = boundary(tmp_path, registry)
        began = time.monotonic()
        r = await b.run(call("fl__flood", count=5000))
        assert r.output == "sent 5000"
        await until(lambda: not server.refreshing, "the re-lists to settle")
        took = time.monotonic() - began
        # at most one re-list a second (plus the first), however many notifications came
        assert 1 <= server.refreshes <= 2 + took
        new = host.notes[notes_at_start:]
        assert len(new) <= server.refreshes + 1
        assert any(n.startswith("MCP server fl: tools now ok, huge") for n in new)
        assert new.count(f"MCP server fl: only its first {MAX_TOOLS} tools are used") == 1
        assert len([n for n in registry.names() if n.startswith("fl__")]) == MAX_TOOLS
        assert (await b.run(call("fl__ok", 2, text="calm"))).output == "calm"
        assert (await b.run(call("fl__f0", 3))).output == "flooded"
    finally:
        host.close()


async def test_a_message_over_the_limit_is_dropped_unread_and_the_next_call_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The answer's start names its request: the call fails when the line ends, saying why
    (it waited out its time limit to say "timed out", inviting the model to run it again)."""
    monkeypatch.setattr(mcp_servers, "MAX_MESSAGE", 1024 * 1024)
    host = McpHost(tmp_path / "mcp-logs")
    try:
        registry = Registry()
        host.start([hostile("big", tool_timeout=120.0)], registry)
        b = boundary(tmp_path, registry)
        r = await b.run(call("big__huge"))
        assert r.kind == "error", r.output
        assert "its answer was over 1 MiB" in r.output and "dropped unread" in r.output
        assert "the call may have run" in r.output
        (note,) = [n for n in host.notes if "dropped" in n]
        assert note.startswith("MCP server big sent a message over 1 MiB; it was dropped")
        assert (await b.run(call("big__ok", 2, text="next"))).output == "next"
        log = (tmp_path / "mcp-logs" / "big.log").read_text("utf-8")
        (size,) = re.findall(r"dropped a message of (\d+) bytes \(over 1048576\)", log)
        assert int(size) > 50 * 1024 * 1024
    finally:
        host.close()


class _StopsBadly:
    """A started server as the host holds it, whose stop fails (or never ends)."""

    def __init__(self, name: str, log_path: Path, failure: BaseException | None) -> None:
        self.settings = type("Settings", (), {"name": name})()
        self.log_path = log_path
        self.failure = failure
        self.stopped = False
        self.logged: list[str] = []

    async def stop(self) -> None:
        self.stopped = True
        if self.failure is not None:
            raise self.failure

    def reason(self, exc: BaseException) -> str:
        return f"{type(exc).__name__}: {exc}"

    def _log_line(self, text: str) -> None:
        self.logged.append(text)


def test_a_server_whose_stop_fails_is_reported_and_the_others_are_stopped(
    tmp_path: Path,
) -> None:
    """``McpHost.close`` used to swallow a failing stop (issue 24's carried list): now every
    server is still asked to stop, the loop is closed, and the failure is raised naming the
    server and its log, for the session's close to report."""
    host = McpHost(tmp_path / "mcp-logs")
    bad = _StopsBadly("flaky", tmp_path / "flaky.log", OSError("pipe closed"))
    good = _StopsBadly("fine", tmp_path / "fine.log", None)
    host.servers = {"flaky": bad, "fine": good}  # type: ignore[dict-item]
    with pytest.raises(McpStopError, match=r"MCP server flaky did not stop cleanly") as caught:
        host.close()
    assert "OSError: pipe closed" in str(caught.value) and str(bad.log_path) in str(caught.value)
    assert "fine" not in str(caught.value)
    assert bad.stopped and good.stopped
    assert bad.logged == ["stop failed: OSError: pipe closed"] and not good.logged
    assert host._loop.is_closed()
    host.close()  # closing twice does nothing


class _StopsWhenLet(_StopsBadly):
    """A server whose stop ends only when the test lets it (one that ignores its stdin
    closing: the SDK waits 2 s, then terminates it)."""

    def __init__(self, name: str, log_path: Path) -> None:
        super().__init__(name, log_path, None)
        self.let = threading.Event()

    async def stop(self) -> None:
        self.stopped = True
        await asyncio.to_thread(self.let.wait, 30)


async def test_closing_from_an_event_loop_leaves_the_loop_running_while_servers_stop(
    tmp_path: Path,
) -> None:
    """A session's close runs on the front end's loop: the servers' stop used to block it,
    so ``/new`` with a server stuck in its start froze the TUI for ~2 s."""
    host = McpHost(tmp_path / "mcp-logs")
    stuck = _StopsWhenLet("stuck", tmp_path / "stuck.log")
    host.servers = {"stuck": stuck}  # type: ignore[dict-item]
    closing = asyncio.ensure_future(host.aclose())
    await until(lambda: stuck.stopped, "the server asked to stop")  # the loop still runs
    assert not closing.done()
    stuck.let.set()
    await closing
    assert host._loop.is_closed()
