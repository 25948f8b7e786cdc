"""MCP servers over streamable HTTP (issue 26): a real SDK server (tests/mcp_sdk_server.py
``http``) on 127.0.0.1, started once for the module; its tools called through a real
ToolBoundary, a header taken from Frontier's environment reaching it and never shown."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_tools_fakes import Approver, call, make_boundary

from frontier.app.config import ConfigError, config_path
from frontier.app.mcp_config import load_mcp_servers
from frontier.tools.mcp_servers import McpHost
from frontier.tools.mcp_settings import ServerSettings, expand_headers
from frontier.tools.registry import Registry

FIXTURE = Path(__file__).with_name("mcp_sdk_server.py")
FLAKY = Path(__file__).with_name("mcp_http_flaky_server.py")
TOKEN = "tok-3f9a1c77e0d2b4"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """The fixture server's endpoint; the port is printed once its socket listens."""
    proc = subprocess.Popen(
        [sys.executable, str(FIXTURE), "http"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait(10)


@pytest.fixture(scope="module")
def flaky_url() -> Iterator[str]:
    """tests/mcp_http_flaky_server.py's endpoint."""
    proc = subprocess.Popen(
        [sys.executable, str(FLAKY)], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True
    )
    try:
        assert proc.stdout is not None
        yield f"http://127.0.0.1:{int(proc.stdout.readline())}/mcp"
    finally:
        proc.kill()
        proc.wait(10)


@pytest.fixture
def host(tmp_path: Path) -> Iterator[McpHost]:
    made = McpHost(tmp_path / "mcp-logs")
    yield made
    made.close()


def write_config(url: str, extra: str = "") -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"[mcp_servers.web]\nurl = {json.dumps(url + '?key=q-secret')}\n"
        'headers = { X-Token = "Bearer ${FRONTIER_TEST_MCP_TOKEN}" }\n'
        "startup_timeout = 20\ntool_timeout = 20\n" + extra,
        "utf-8",
    )


async def test_http_tools_are_called_through_the_boundary_with_the_header_from_the_environment(
    tmp_path: Path, host: McpHost, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRONTIER_TEST_MCP_TOKEN", TOKEN)
    write_config(url)
    registry = Registry()
    host.start(load_mcp_servers(), registry)
    assert host.notes == []
    assert registry.names()[:2] == ["web__echo", "web__env"]
    b = make_boundary(tmp_path, registry=registry, approver=Approver())
    r = await b.run(call("web__echo", text="over http"))
    assert (r.kind, r.output) == ("ok", "over http")
    r = await b.run(call("web__header", 2, name="X-Token"))
    assert r.output == f"Bearer {TOKEN}"
    # the token is in no note, repr, state or log line; the URL is shown without its query
    (state,) = host.states()
    assert (state.transport, state.state, state.target) == ("http", "running", url)
    assert "web__header" in state.tools
    assert host.ping("web") >= 0
    shown = [*host.notes, repr(state), repr(load_mcp_servers()), state.log.read_text("utf-8")]
    assert not any(TOKEN in text or "q-secret" in text for text in shown)


def test_a_missing_variable_is_a_note_naming_it(
    host: McpHost, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FRONTIER_TEST_MCP_TOKEN", raising=False)
    write_config(url)
    assert host.start(load_mcp_servers(), Registry()) == []
    (note,) = host.notes
    assert "web did not start" in note and "${FRONTIER_TEST_MCP_TOKEN}" in note
    assert "not set" in note and "q-secret" not in note
    (state,) = host.states()
    assert state.state == "dead" and "FRONTIER_TEST_MCP_TOKEN" in (state.why or "")


def test_a_server_that_refuses_connections_is_a_note_without_secrets(
    host: McpHost, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    with socket.socket() as sock:  # a port nothing listens on (bound, never listening)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        monkeypatch.setenv("FRONTIER_TEST_MCP_TOKEN", TOKEN)
        write_config(f"http://127.0.0.1:{port}/mcp")
        assert host.start(load_mcp_servers()) == []
    (note,) = host.notes
    assert "web did not start" in note
    assert TOKEN not in note and "q-secret" not in note


async def test_a_trusted_servers_read_only_tool_is_a_read_and_is_not_asked(
    tmp_path: Path, host: McpHost, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRONTIER_TEST_MCP_TOKEN", TOKEN)
    write_config(url, "trusted = true\n")
    registry = Registry()
    host.start(load_mcp_servers(), registry)
    peek, echo = registry.get("web__peek"), registry.get("web__echo")
    assert peek is not None and echo is not None
    assert (peek.spec.kind, peek.spec.mutates) == ("read", False)
    assert (echo.spec.kind, echo.spec.mutates) == ("exec", True)  # no hint: still asked
    nobody = Approver(approve_all=False, reason="no")
    b = make_boundary(tmp_path, registry=registry, approver=nobody, policy="ask")
    assert (await b.run(call("web__peek"))).output == "peeked"
    assert (await b.run(call("web__echo", 2, text="x"))).kind == "denied"
    assert [c.name for c, _ in nobody.seen] == ["web__echo"]


def test_headers_expand_from_the_environment_and_a_missing_name_says_which() -> None:
    env = {"A": "one"}
    assert expand_headers({"X": "pre ${A} post"}, env) == {"X": "pre one post"}
    with pytest.raises(ValueError, match=r"header X names \$\{B\}, which is not set"):
        expand_headers({"X": "${B}"}, env)
    with pytest.raises(ValueError, match="line break") as err:
        expand_headers({"X": "${A}"}, {"A": "evil\r\nInjected: 1"})
    assert "evil" not in str(err.value)


def test_settings_never_show_header_or_env_values() -> None:
    s = ServerSettings(name="w", url="https://h/mcp?t=1", headers={"K": "v-secret"})
    assert "v-secret" not in repr(s) and s.target == "https://h/mcp"
    local = ServerSettings(name="l", command="srv", env={"TOKEN": "e-secret"})
    assert "e-secret" not in repr(local)
    in_path = "https://h/api/mcp/s/NWI4ZjQ3YjktNjM5ZC00MjFm/sse;token=T0K3N"  # the URL is the key
    assert ServerSettings(name="z", url=in_path).target == "https://h/api/mcp/s/[REDACTED]/sse"
    named = "https://h/my-long-project-name-server/mcp"
    assert ServerSettings(name="n", url=named).target == named


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ('url = "http://h"\nheaders = { X = 3 }\n', "headers must be a table of strings"),
        ('url = "http://h"\nheaders = { X = "a\\nb" }\n', "control character"),
        ('url = "http://:80"\n', "with a host"),
        ('command = "x"\nheaders = { X = "1" }\n', "headers are for an HTTP server"),
    ],
)
def test_http_config_errors_name_the_key_and_never_the_value(table: str, says: str) -> None:
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text("[mcp_servers.web]\n" + table, "utf-8")
    with pytest.raises(ConfigError, match=says) as err:
        load_mcp_servers()
    assert "a\\nb" not in str(err.value) and "a\nb" not in str(err.value)


async def test_a_failed_http_answer_fails_its_call_and_the_server_keeps_serving(
    flaky_url: str, host: McpHost, tmp_path: Path
) -> None:
    """An HTTP 500, an HTML page (a proxy's sign-in) or a body that is no JSON-RPC answer
    to one ``tools/call``: the SDK answers that request with an error, which marked the
    whole server dead for the session (tools/mcp_answers.py)."""
    registry = Registry()
    settings = ServerSettings(name="web", url=flaky_url, startup_timeout=20, tool_timeout=20)
    host.start([settings], registry)
    b = make_boundary(tmp_path, registry=registry, approver=Approver())
    said = {
        "500": "HTTP 500 (JSON-RPC error -32603)",
        "html": "Unexpected content type: text/html (JSON-RPC error -32600)",
        "nojsonrpc": "Failed to parse JSON response",
    }
    for n, (how, words) in enumerate(said.items(), 1):
        r = await b.run(call("web__flaky", n, how=how))
        assert r.kind == "error" and r.output.startswith("MCP server web: tool flaky: "), r
        assert words in r.output, r.output
        assert (await b.run(call("web__ok", 10 + n))).output == "fine"
    assert [s.state for s in host.states()] == ["running"]


def test_a_server_that_wants_a_sign_in_says_so_and_how_to_give_a_token(
    flaky_url: str, host: McpHost
) -> None:
    """The SDK says "Server returned an error response" for every HTTP error: a 401 that
    wants a token read as a 500 did."""
    url = flaky_url.replace("/mcp", "/signin/mcp")
    host.start([ServerSettings(name="gh", url=url, startup_timeout=20)], Registry())
    (note,) = host.notes
    assert note.startswith("MCP server gh did not start (MCPError: HTTP 401: the server wants")
    assert 'headers = { Authorization = "Bearer ${TOKEN}" }' in note


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (("--api-key", "sk-proj-0123456789abcdefghij"), "--api-key '[REDACTED]'"),
        (("--token=abcd1234efgh",), "'--token=[REDACTED]'"),
        (("-e", "GITHUB_TOKEN=gh-live-12345"), "-e 'GITHUB_TOKEN=[REDACTED]'"),
        (("-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"), None),
        (("run", "ghp_abcdefghijklmnopqrstuv"), "run '[REDACTED]'"),
        (("-H", "Authorization: Bearer tok-98765"), "-H 'Authorization: Bearer [REDACTED]'"),
        (("--header", "X-API-Key: XAPIKEYSECRET123456"), "--header 'X-API-Key: [REDACTED]'"),
        (("--header", "Cookie: session=abcdef123"), "--header 'Cookie: [REDACTED]'"),
        (("--header", "Authorization:${AUTH_HEADER}"), None),
        (("https://u:pw-secret@h/sse?api_key=k-123456",), "'https://u:[REDACTED]@h/sse?api_key=[REDACTED]'"),
        (("https://ghp_USERNAMETOKEN1234567890@github.com/x",), "'https://[REDACTED]@github.com/x'"),
        (("-e", "DATABASE_URL=postgres://u:pw-123456@h/db"), "-e 'DATABASE_URL=postgres://u:[REDACTED]@h/db'"),
        (("-c", "node s.js --api-key XKEY12345"), "-c 'node s.js --api-key [REDACTED]'"),
        (("--dsn", "Db=y;Password=PWD123456;"), "--dsn 'Db=y;Password=[REDACTED];'"),
        (("--tokenizer", "gpt2", "--model", "gpt2-large"), None),
        (("--primary-key", "AzurePrimary0123"), "--primary-key '[REDACTED]'"),
        (("--api-key", "test", "/home/test/s.js"), "--api-key '[REDACTED]' /home/test/s.js"),
        (("--monkey-patch", "true", "--keys", "name", "--token-file", "/p/tok"), None),
        (("--max-tokens", "100000000", "--port", "8080", "--api-key-env", "OPENAI_API_KEY"), None),
        (("--password", "--verbose", "--secret", "abc"), None),
    ],
)  # fmt: skip
def test_a_secret_in_a_servers_arguments_is_never_shown(args: tuple[str, ...], shown: str) -> None:
    """``args = ["--api-key", "sk-…"]`` was shown as written by ``frontier mcp list``, the
    doctor and the server's log ("starting …"): a doctor's report is what gets pasted into
    an issue. The flag stays, so the person sees which argument it was."""
    s = ServerSettings(name="l", command="srv", args=args)
    assert s.target == "srv " + (shown or shlex.join(args))
    for word in ("sk-proj-0123456789abcdefghij", "abcd1234efgh", "XKEY12345", "pw-secret"):
        assert word not in repr(s)
