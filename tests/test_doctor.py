"""``frontier doctor``: each problem a session would meet, found first and said with its fix."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from frontier.app.cli import main
from frontier.app.session.db import default_path
from frontier.app.session.schema import current_version
from frontier.tools.sandbox import SandboxSettings, make_sandbox

TEXT_CALL = '<tool_call>\n{"name": "read", "arguments": {"path": "README.md"}}\n</tool_call>'


class Server:
    """A loopback Chat Completions server scripted per test: what ``/models`` lists, what
    a plain request and a request offering tools are answered with."""

    def __init__(self) -> None:
        self.models: list[str] | None = ["m"]
        self.props: dict[str, Any] | None = {
            "default_generation_settings": {"n_ctx": 4096},
            "chat_template_caps": {"supports_tools": True},
        }
        self.status = 200
        self.reply = "ready"
        self.tool_reply: str | None = None
        """What a request that asks for a call is answered with, as text (``None``: a
        native call of ``read``)."""
        self.posts: list[dict[str, Any]] = []
        self.hold = threading.Event()
        """Set: a request waits until it is cleared (a server that hangs)."""
        self.released = threading.Event()

    def handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return

            def _json(self, status: int, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path == "/v1/models" and server.models is not None:
                    self._json(200, {"data": [{"id": m} for m in server.models]})
                elif self.path == "/props" and server.props is not None:
                    self._json(200, server.props)
                else:
                    self._json(404, {"error": "not found"})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.posts.append(body)
                if server.hold.is_set():
                    server.released.wait()
                if server.status != 200:
                    self._json(server.status, {"error": {"message": "Incorrect API key"}})
                    return
                asks = "Make only that call" in json.dumps(body["messages"][-1])
                native = bool(body.get("tools"))
                if asks and server.tool_reply is None and not native:
                    text = "call c1 read\narg path README.md\nend\n"  # a CTL frame
                    delta, finish = {"content": text}, "stop"
                elif asks and server.tool_reply is None:
                    delta = {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_1",
                                "type": "function",
                                "function": {
                                    "name": "read",
                                    "arguments": '{"path": "README.md"}',
                                },
                            }
                        ]
                    }
                    finish = "tool_calls"
                else:
                    text = str(server.tool_reply) if asks else server.reply
                    delta, finish = {"content": text}, "stop"
                chunks: list[dict[str, Any]] = [
                    {"choices": [{"index": 0, "delta": {"role": "assistant"}}]},
                    {"choices": [{"index": 0, "delta": delta}]},
                    {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
                ]
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in chunks:
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

        return Handler


@pytest.fixture
def server() -> Iterator[tuple[Server, str]]:
    scripted = Server()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), scripted.handler())
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield scripted, f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()


def config_toml(text: str) -> Path:
    """Write the test's config.toml (in its own config dir); its path."""
    config = Path(os.environ["FRONTIER_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)
    return config


def doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, dict[str, str]]]:
    """Run ``frontier doctor --json ARGS``: the exit status and each check by name."""
    status = main(["doctor", "--json", *args])
    out = capsys.readouterr().out
    checks = [json.loads(line) for line in out.splitlines()]
    return status, {c["name"]: c for c in checks}


def test_a_working_server_passes_and_its_native_call_is_read(
    server: tuple[Server, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    scripted, url = server
    status, checks = doctor(capsys, "--base-url", url, "--workspace", str(tmp_path))
    assert checks["endpoint"]["status"] == "ok" and url in checks["endpoint"]["said"]
    assert checks["model"] == {
        "area": "model",
        "name": "model",
        "status": "ok",
        "said": "m (the one the server lists)",
    }
    assert checks["window"]["said"].startswith("4,096 tokens (server: GET /props")
    assert checks["protocol"]["said"].startswith("auto picks native-inc")
    assert checks["reply"]["status"] == "ok" and checks["reply"]["said"].startswith("'ready'")
    assert checks["tool call"] == {
        "area": "model",
        "name": "tool call",
        "status": "ok",
        "said": 'read({"path": "README.md"}), confirmed by the native-inc reader',
    }
    assert [p["model"] for p in scripted.posts] == ["m", "m"]  # the listed model, taken
    assert "read" in [t["function"]["name"] for t in scripted.posts[1]["tools"]]
    assert status == (1 if any(c["status"] == "fail" for c in checks.values()) else 0)
    assert not any(
        c["area"] in ("settings", "model") and c["status"] == "fail" for c in checks.values()
    )


def test_a_call_sent_back_as_text_fails_with_the_servers_fix(
    server: tuple[Server, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    scripted, url = server
    scripted.tool_reply = TEXT_CALL
    status, checks = doctor(capsys, "--base-url", url, "--workspace", str(tmp_path))
    call = checks["tool call"]
    assert call["status"] == "fail" and "wrote the call as text" in call["said"]
    assert "--jinja" in call["fix"] and "--enable-auto-tool-choice" in call["fix"]
    assert status == 1
    scripted.tool_reply = "I cannot do that."  # prose: a small model's, not the server's fault
    status, checks = doctor(capsys, "--base-url", url, "--workspace", str(tmp_path))
    assert checks["tool call"]["status"] == "warn"
    assert "answered in prose" in checks["tool call"]["said"]


def test_a_text_protocols_call_is_read_by_its_own_transducer_and_a_broken_frame_said(
    server: tuple[Server, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    scripted, url = server
    scripted.tool_reply = "I will read it.\ncall c1 read\narg path README.md\nend\n"
    args = ("--base-url", url, "--protocol", "ctl-heredoc", "--workspace", str(tmp_path))
    status, checks = doctor(capsys, *args)
    assert checks["tool call"]["status"] == "ok"
    assert checks["tool call"]["said"] == (
        'read({"path": "README.md"}), confirmed by the ctl-heredoc reader'
    )
    assert "tools" not in scripted.posts[-1]  # a text protocol offers none natively
    assert "call c1 read" not in json.dumps(scripted.posts[-1]["messages"][-1])
    assert checks["continuation"]["status"] == "ok"  # a text protocol's: looked at
    scripted.tool_reply = "call c1 read\narg path README.md\nwhat now\n"  # not a frame line
    status, checks = doctor(capsys, *args)
    assert status == 0  # a session runs: it asks the model to repair the frame
    broke = checks["tool call"]
    assert broke["status"] == "warn" and broke["said"].startswith("the ctl-heredoc framing broke")
    assert "--protocol native-inc" in broke["fix"]
    recording = tmp_path / "doctor.jsonl"  # kept, for the tools that debug a framing
    _, checks = doctor(capsys, *args, "--record", str(recording))
    assert f"recorded: frontier check --explain {recording} reads it" in checks["tool call"]["said"]
    assert main(["check", "--explain", str(recording)]) == 0  # S1–S3 hold; the model broke
    explained = capsys.readouterr().out
    assert "mode=ctl-heredoc" in explained and "what now" in explained


def test_a_refused_key_stops_the_model_checks_and_an_unlisted_model_is_named(
    server: tuple[Server, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    scripted, url = server
    scripted.status = 401
    scripted.models = ["alpha", "beta"]
    status, checks = doctor(
        capsys, "--base-url", url, "--model", "gamma", "--workspace", str(tmp_path)
    )
    assert status == 1
    assert checks["model"]["status"] == "warn"
    assert "gamma is not among the models the server lists: alpha, beta" in checks["model"]["said"]
    assert checks["reply"]["status"] == "fail" and "401" in checks["reply"]["said"]
    assert "window" not in checks and "tool call" not in checks  # nothing more to learn
    assert "sandbox" in checks and "sessions" in checks  # the machine is still looked at
    scripted.status = 200
    scripted.models = ["alpha"]  # llama.cpp (its /props): any name is its one model
    _, checks = doctor(capsys, "--base-url", url, "--model", "gamma", "--workspace", str(tmp_path))
    assert checks["model"]["status"] == "ok"
    assert checks["model"]["said"] == (
        "gamma: llama.cpp answers every request with the model it loaded, alpha, whatever "
        "the name (it checks none)"
    )
    scripted.props = None  # another server: an alias it may take, or a mistake
    _, checks = doctor(capsys, "--base-url", url, "--model", "gamma", "--workspace", str(tmp_path))
    assert checks["model"]["status"] == "warn"
    scripted.models = None  # no listing and no model named: nothing to take one from
    status, checks = doctor(capsys, "--base-url", url, "--workspace", str(tmp_path))
    assert checks["model"]["status"] == "fail" and "--model M" in checks["model"]["fix"]


def test_no_request_spends_nothing(
    server: tuple[Server, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    scripted, url = server
    status, checks = doctor(capsys, "--base-url", url, "--no-request", "--workspace", str(tmp_path))
    assert status == (1 if any(c["status"] == "fail" for c in checks.values()) else 0)
    assert scripted.posts == []
    assert checks["reply"]["status"] == "skip"
    assert checks["window"]["status"] == "ok"  # the look-ups before a first request still run


def test_no_endpoint_and_a_broken_config_are_said_and_the_rest_still_looked_at(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_BASE_URL", "FRONTIER_BASE_URL", "FRONTIER_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    status, checks = doctor(capsys, "--workspace", str(tmp_path))
    assert status == 1
    assert checks["endpoint"]["said"] == "no endpoint configured"
    assert "--base-url URL" in checks["endpoint"]["fix"]
    config_toml("model = [unclosed\n")
    status, checks = doctor(capsys, "--workspace", str(tmp_path))
    assert status == 1
    assert checks["config"]["status"] == "fail" and "config.toml" in checks["config"]["said"]
    assert {"sandbox", "editor", "sessions", "instructions"} <= set(checks)


def test_the_text_form_marks_each_check_and_gives_the_fix_under_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_BASE_URL", "FRONTIER_BASE_URL", "FRONTIER_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    assert main(["doctor", "--workspace", str(tmp_path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"frontier doctor · {tmp_path.resolve()}"
    at = lines.index("settings")
    endpoint = next(i for i, line in enumerate(lines) if "endpoint" in line and "✗" in line)
    assert endpoint > at and lines[endpoint + 1].lstrip().startswith("→ pass --base-url URL")
    assert lines[-1].endswith("1 problem")


def test_tmux_without_focus_events_is_a_warning_with_the_setting(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "tmux"
    fake.write_text("#!/bin/sh\necho off\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")
    monkeypatch.delenv("FRONTIER_NOTIFY", raising=False)
    _, checks = doctor(capsys, "--no-request", "--workspace", str(tmp_path))
    back = checks["call-backs"]
    assert back["status"] == "warn" and "focus-events off" in back["said"]
    assert back["fix"].startswith("tmux set -g focus-events on")
    fake.write_text("#!/bin/sh\necho on\n")
    _, checks = doctor(capsys, "--no-request", "--workspace", str(tmp_path))
    assert checks["call-backs"]["status"] == "ok"


def test_a_store_written_by_a_newer_frontier_is_a_problem(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {current_version() + 1}")
    conn.close()
    status, checks = doctor(capsys, "--no-request", "--workspace", str(tmp_path))
    assert status == 1
    assert checks["sessions"]["status"] == "fail"
    assert "upgrade Frontier" in checks["sessions"]["said"]


@pytest.mark.skipif(
    not make_sandbox(SandboxSettings()).active, reason="no OS sandbox on this machine"
)
def test_the_sandbox_is_used_and_a_write_outside_the_workspace_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    _, checks = doctor(capsys, "--no-request", "--workspace", str(workspace))
    said = checks["sandbox"]["said"]
    assert checks["sandbox"]["status"] == "ok", said
    assert "a command ran in it, and its write to" in said and "was refused" in said
    assert not (Path.home() / ".frontier-doctor-probe").exists()
    assert checks["network"]["status"] == "ok"  # off: a connection to this machine failed
    assert "did not get through" in checks["network"]["said"]
    _, checks = doctor(
        capsys, "--no-request", "--sandbox-network", "on", "--workspace", str(workspace)
    )
    assert "network" not in checks  # on, as asked: nothing to prove
    # the probe tells the two apart: with the network on, the same connection gets through
    from frontier.app.agent.runtime import session_sandbox
    from frontier.app.config import Config
    from frontier.app.doctor.machine import _network_closed

    opened = session_sandbox(Config(sandbox_network=True), [], root=workspace)
    try:
        assert _network_closed(opened, str(workspace)).status == "fail"
    finally:
        opened.close()
    _, checks = doctor(capsys, "--no-request", "--sandbox", "off", "--workspace", str(workspace))
    assert checks["sandbox"]["status"] == "warn" and "unconfined" in checks["sandbox"]["said"]


def test_a_vendors_api_without_a_key_is_a_problem_and_nothing_is_sent(
    server: tuple[Server, str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scripted, url = server
    for name in ("FRONTIER_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    # the loopback server stands in for a vendor's API (never aimed at a real one)
    monkeypatch.setattr("frontier.app.model.catalogue.host_has_tools", lambda base: True)
    status, checks = doctor(capsys, "--base-url", url, "--model", "m", "--workspace", str(tmp_path))
    assert status == 1
    assert checks["key"]["status"] == "fail" and "FRONTIER_API_KEY" in checks["key"]["fix"]
    assert "model" not in checks and scripted.posts == []  # every request would be refused


def test_every_protocol_says_which_ones_the_models_calls_are_read_in(
    server: tuple[Server, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    scripted, url = server  # native calls natively, CTL frames in text: no MiniMax XML
    args = ("--base-url", url, "--every-protocol", "--workspace", str(tmp_path))
    recording = tmp_path / "calls.jsonl"
    status, checks = doctor(capsys, *args, "--record", str(recording))
    assert checks["tool call"]["status"] == "ok"  # auto picked native-inc: its own check
    for mode in ("native-eos", "ctl", "ctl-heredoc"):
        assert checks[f"tool call · {mode}"]["status"] == "ok", checks[f"tool call · {mode}"]
    assert checks["tool call · xml"]["status"] == "warn"
    assert checks["protocols"] == {
        "area": "model",
        "name": "protocols",
        "status": "ok",
        "said": "calls read in: native-eos, native-inc, ctl, ctl-heredoc",
    }
    assert (tmp_path / "calls-xml.jsonl").exists() and recording.exists()
    assert len(scripted.posts) == 6  # the reply, then one tool call per protocol
    assert status == (1 if any(c["status"] == "fail" for c in checks.values()) else 0)
    scripted.tool_reply = TEXT_CALL  # every protocol gets the call as text: none is read
    status, checks = doctor(capsys, *args, "--protocol", "ctl-heredoc")
    assert checks["tool call"]["status"] == "warn"  # ctl-heredoc, the one asked for
    assert checks["tool call · native-inc"]["status"] == "warn"  # a failure there: a warning
    assert "--jinja" in checks["tool call · native-inc"]["fix"]
    assert checks["protocols"]["said"].startswith("no protocol's call was read")
    scripted.tool_reply = None
    status, checks = doctor(capsys, *args, "--protocol", "xml")
    assert checks["tool call"]["status"] == "warn"  # a CTL frame is not MiniMax's XML
    said = checks["protocols"]
    assert said["status"] == "warn" and "not in xml, the one a session uses" in said["said"]
    assert said["fix"].startswith("--protocol native-eos")


def test_each_check_is_said_the_moment_it_is_found(
    server: tuple[Server, str], tmp_path: Path
) -> None:
    """A hung server's reply check takes minutes: what was already looked at is on the
    screen meanwhile."""
    import subprocess
    import sys

    scripted, url = server
    scripted.hold.set()
    argv = [sys.executable, "-m", "frontier.app.cli", "doctor", "--base-url", url]
    argv += ["--first-byte-timeout", "3600"]  # the reply never comes while the test looks
    child = subprocess.Popen(
        [*argv, "--workspace", str(tmp_path)], stdout=subprocess.PIPE, text=True, encoding="utf-8"
    )
    try:
        assert child.stdout is not None
        seen: list[str] = []
        reader = threading.Thread(
            target=lambda: seen.extend(iter_until(child.stdout, "✓ model")), daemon=True
        )
        reader.start()
        reader.join(120)  # a guard only: the line comes as soon as /models answered
        assert any("✓ model" in line for line in seen), seen
        assert child.poll() is None  # the reply cannot have come: the server holds it
        assert not any("reply" in line for line in seen)
        assert seen[0] == f"frontier doctor · {tmp_path.resolve()}"
    finally:
        scripted.released.set()
        child.kill()
        child.wait()


def iter_until(stream: Any, marker: str) -> Iterator[str]:
    for line in stream:
        yield line.rstrip("\n")
        if marker in line:
            return


def test_after_edit_checks_are_listed_and_a_missing_program_named(
    server: tuple[Server, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = config_toml(
        '[checks.lint]\nrun = "FOO=1 sh -c true {files}"\nfiles = ["*.py"]\n'
        '[checks.gone]\nrun = "no-such-linter-xyz --strict {files}"\n'
        '[checks.far]\nrun = "no-such-linter-xyz"\nworkspaces = ["/elsewhere-xyz"]\n'
        '[checks.web]\nrun = "cd web && npm run -s lint"\n'
        '[formatters.fmt]\nrun = "no-such-formatter-xyz --stdin-filename {file} -"\n'
    )
    _, url = server
    _, checks = doctor(capsys, "--base-url", url, "--no-request", "--workspace", str(tmp_path))
    assert checks["check lint"]["status"] == "ok"
    assert checks["check lint"]["said"] == "on *.py: FOO=1 sh -c true {files}"
    assert checks["check gone"]["status"] == "warn"  # a session runs: the check says so
    assert "no-such-linter-xyz is not found on PATH" in checks["check gone"]["said"]
    assert "[checks.gone] of config.toml" in checks["check gone"]["fix"]
    assert checks["check far"]["status"] == "skip"  # another project's: not looked for
    assert checks["check web"]["status"] == "ok"  # `cd` is the shell's: no program to find
    assert checks["formatter fmt"]["status"] == "warn"
    assert "[formatters.fmt] of config.toml" in checks["formatter fmt"]["fix"]
    assert checks["check far"]["said"] == "not for this workspace (only in /elsewhere-xyz)"
    config.write_text('[checks.bad]\nrun = ""\n')
    status, checks = doctor(capsys, "--base-url", url, "--no-request", "--workspace", str(tmp_path))
    assert status == 1 and checks["checks"]["status"] == "fail"
    assert "run must be a command" in checks["checks"]["said"]


def test_a_projects_checks_are_listed_those_waiting_for_trust_with_the_fix(
    server: tuple[Server, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from frontier.app.checks_project import project_checks, trust

    (tmp_path / ".frontier").mkdir()
    (tmp_path / ".frontier" / "checks.toml").write_text(
        '[checks.lint]\nrun = "no-such-linter-xyz {files}"\n'
        '[checks.off]\nrun = "no-such-linter-xyz"\nenabled = false\n'
        '[formatters.fmt]\nrun = "sh -c cat"\n'
    )
    trust(tmp_path, project_checks(tmp_path)[0][:2])
    _, url = server
    _, checks = doctor(capsys, "--base-url", url, "--no-request", "--workspace", str(tmp_path))
    assert checks["check lint"]["status"] == "warn"
    assert "(.frontier/checks.toml, trusted)" in checks["check lint"]["said"]
    assert "[checks.lint] of .frontier/checks.toml" in checks["check lint"]["fix"]
    assert checks["formatter fmt"]["status"] == "warn"
    assert checks["formatter fmt"]["said"] == (
        ".frontier/checks.toml declares it; it waits for your trust: sh -c cat"
    )
    assert checks["formatter fmt"]["fix"].startswith("frontier checks trust")
    assert "check off" not in checks  # trusted, but turned off: a session runs none


def test_each_mcp_server_is_started_and_said_running_with_its_tools_or_why_not(
    server: tuple[Server, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A server that does not start showed only once a session had begun, as a note; the
    doctor said "2 configured" whatever they did."""
    fixture = Path(__file__).with_name("mcp_server_fixture.py")
    config_toml(
        f"[mcp_servers.good]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(fixture))}]\n"
        '[mcp_servers.gone]\ncommand = "no-such-mcp-server-xyz"\n'
        '[mcp_servers.off]\ncommand = "no-such-mcp-server-xyz"\nenabled = false\n'
    )
    _, url = server
    status, checks = doctor(capsys, "--base-url", url, "--no-request", "--workspace", str(tmp_path))
    assert checks["MCP"]["status"] == "ok"
    assert checks["MCP"]["said"] == "3 configured (off disabled)"
    good = checks["MCP good"]
    assert good["status"] == "ok", good
    assert good["said"].startswith(
        "running · 9 tools (echo, env, slow, boom, …) · stdio in workspace-write"
    )
    gone = checks["MCP gone"]
    assert gone["status"] == "warn"  # a session goes on without its tools
    assert gone["said"].startswith("did not start: ")
    assert "no-such-mcp-server-xyz" in gone["said"]
    assert "frontier mcp test gone shows each step" in gone["fix"]
    assert str(Path(os.environ["FRONTIER_DATA_DIR"]) / "mcp-logs" / "gone.log") in gone["fix"]
    assert "MCP off" not in checks  # disabled: never started
    assert "MCP note" not in checks  # gone's failure is said on its own line, once
    assert status == 0


def test_the_servers_a_session_runs_are_reported_as_they_are_and_none_started_again(
    tmp_path: Path,
) -> None:
    """``/doctor`` in a session: its servers' states, not a second start of each."""
    from frontier.app.config import Config
    from frontier.app.doctor.mcp import mcp_checks
    from frontier.tools.mcp_settings import ServerState

    config_toml('[mcp_servers.srv]\ncommand = "no-such-mcp-server-xyz"\n')
    log = tmp_path / "srv.log"
    running = [
        ServerState("srv", "stdio", "no-such-mcp-server-xyz", "dead", "it exited", (), log),
        ServerState("web", "http", "https://mcp.example/mcp", "starting", None, (), log),
    ]
    found = {c.name: c for c in mcp_checks(Config(), tmp_path, running)}
    assert found["MCP srv"].said == "did not start: it exited · stdio no-such-mcp-server-xyz"
    assert found["MCP web"].status == "skip"
    assert not (Path(os.environ["FRONTIER_DATA_DIR"]) / "mcp-logs").exists()  # nothing started


def leaky_report(
    server: tuple[Server, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> tuple[str, str]:
    """The doctor's report (it passes: a server that does not start is a warning) and the
    log of the MCP server ``leak`` the config names."""
    _, url = server
    status = main(["doctor", "--base-url", url, "--no-request", "--workspace", str(tmp_path)])
    out = capsys.readouterr().out
    assert status == 0
    log = Path(os.environ["FRONTIER_DATA_DIR"]) / "mcp-logs" / "leak.log"
    return out, log.read_text("utf-8")


def test_a_servers_secret_env_value_it_prints_as_it_fails_is_not_shown(
    server: tuple[Server, str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its "last words" said the token it was given (``env``, or ``${NAME}`` from
    Frontier's environment): a doctor's report is what people paste into an issue."""
    monkeypatch.setenv("SERVICE_KEY", "sk-from-frontiers-env-5678")
    script = 'echo "auth failed for $MY_TOKEN and $SVC" >&2; exit 1'
    config_toml(
        f'[mcp_servers.leak]\ncommand = "sh"\nargs = ["-c", {json.dumps(script)}]\n'
        'env = { MY_TOKEN = "sk-written-in-config-1234", SVC = "${SERVICE_KEY}" }\n'
    )
    out, log = leaky_report(server, capsys, tmp_path)
    assert "auth failed for [env value] and [env value]" in out
    assert "sk-written-in-config-1234" not in out and "sk-from-frontiers-env-5678" not in out
    assert "auth failed for [env value] and [env value]" in log, log


def test_a_secret_a_servers_arguments_hold_is_not_shown_in_its_line_or_its_last_words(
    server: tuple[Server, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``args = [..., "--api-key", "sk-…"]``: the doctor showed the command line as written,
    and the server's own complaint with the key in it."""
    script = 'echo "key $1 refused" >&2; exit 1'
    config_toml(
        f'[mcp_servers.leak]\ncommand = "sh"\nargs = ["-c", {json.dumps(script)}, '
        '"--api-key", "sk-proj-written-in-args-0123456789"]\n'
    )
    out, log = leaky_report(server, capsys, tmp_path)
    assert "key [REDACTED] refused" in out and "--api-key '[REDACTED]'" in out
    assert "sk-proj-written-in-args" not in out
    assert "key [REDACTED] refused" in log and "sk-proj-written-in-args" not in log


def test_a_project_server_config_toml_stands_in_for_is_said(
    server: tuple[Server, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``frontier mcp list`` said so; the doctor said nothing of the project's copy."""
    from frontier.app.mcp_project import PROJECT_FILE, project_servers, trust

    fixture = Path(__file__).with_name("mcp_server_fixture.py")
    good = f"command = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(fixture))}]\n"
    config_toml(f"[mcp_servers.good]\n{good}")
    (tmp_path / PROJECT_FILE).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / PROJECT_FILE).write_text(f"[mcp_servers.good]\n{good}")
    trust(tmp_path, project_servers(tmp_path)[0])
    _, url = server
    _, checks = doctor(capsys, "--base-url", url, "--no-request", "--workspace", str(tmp_path))
    assert checks["MCP note"]["status"] == "warn"
    assert "server good is also in config.toml; config.toml's is used" in checks["MCP note"]["said"]
    assert checks["MCP good"]["status"] == "ok"  # config.toml's, started once


def test_the_key_a_reply_or_a_call_repeats_is_never_shown(
    server: tuple[Server, str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reply and the prose answer are quoted: a model that echoes the key (it read
    ``env``) must not put it in the report, cut at 80 characters or whole."""
    key = "FAKEAPIKEY_abcdef123456"
    monkeypatch.setenv("FRONTIER_API_KEY", key)
    scripted, url = server
    scripted.reply = "x" * 70 + f" {key}"  # the quote's cut falls inside the key
    scripted.tool_reply = f"k {key}"
    args = ["--base-url", url, "--model", "m", "--workspace", str(tmp_path)]
    _, checks = doctor(capsys, *args)
    assert "[REDACTED]" in checks["tool call"]["said"]
    main(["doctor", *args])
    shown = json.dumps(checks) + capsys.readouterr().out
    assert key not in shown and key[:8] not in shown


def test_a_recording_masks_the_key_however_obtained_and_the_urls_credentials(
    server: tuple[Server, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--record`` masked only the environment's keys: a key from ``api_key_command``, the
    URL's password and its ``?api_key=`` were written as the model repeated them."""
    key, password, query = "CMDKEY0123456789abcdef", "URLPASS123456", "QUERYKEY123456"
    config_toml(f'api_key_command = "echo {key}"\n')
    scripted, url = server
    scripted.tool_reply = f"c {key} {password} {query}"
    base = url.replace("http://", f"http://u:{password}@") + f"?api_key={query}"
    record = tmp_path / "rec.jsonl"
    _, checks = doctor(
        capsys, "--base-url", base, "--model", "m", "--record", str(record),
        "--workspace", str(tmp_path),
    )  # fmt: skip
    assert "recorded" in checks["tool call"]["said"]
    written = record.read_text()
    for secret in (key, password, query):
        assert secret not in written and secret not in json.dumps(checks)


@pytest.mark.parametrize(
    ("base", "named"),
    [
        ("http://127.0.0.1:1880200/v1", "1880200"),
        ("http://user:BADPW12345678@[::1/v1", "http://[::1/v1"),
    ],
    ids=["port-out-of-range", "broken-ipv6-host"],
)
def test_a_base_url_that_cannot_be_used_is_the_endpoints_problem(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, base: str, named: str
) -> None:
    """Not an ``OverflowError`` traceback from the socket, nor a ✓ endpoint line quoting
    the URL's password."""
    status, checks = doctor(
        capsys, "--base-url", base, "--model", "m", "--workspace", str(tmp_path)
    )
    endpoint = checks["endpoint"]
    assert endpoint["status"] == "fail" and "invalid base URL" in endpoint["said"]
    assert named in endpoint["said"] and "BADPW" not in json.dumps(checks)
    assert "--base-url" in endpoint["fix"]
    assert status == 1
