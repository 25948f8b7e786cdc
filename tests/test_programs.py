"""The programs Frontier runs itself (git, rg, sed, bwrap, bash) are never the
workspace's: a ``PATH`` naming the current folder — an empty entry, ``.``, a relative
``./node_modules/.bin`` — or a folder inside the workspace is skipped when they are
looked up (``app/programs.py``). Frontier runs in the workspace, and a repository
shipping a ``git`` at its top was run unconfined by the session's first look at it.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from datetime import date
from pathlib import Path

import pytest
from test_tools_fakes import make_boundary

from frontier.app.agent.environment import gather_environment
from frontier.app.events import ToolCall
from frontier.app.programs import find_program, safe_path
from frontier.tools.restore_via_shell import restore_patch
from frontier.tools.sed_via_shell import sed_patch

NAMES = ("git", "rg", "sed", "bwrap", "bash", "python3", "nsenter")


def planted(ws: Path, marker: Path) -> None:
    """The workspace ships each program, at its top and in node_modules/.bin, each
    leaving ``marker`` when run."""
    for folder in (ws, ws / "node_modules" / ".bin"):
        folder.mkdir(parents=True, exist_ok=True)
        for name in NAMES:
            program = folder / name
            program.write_text(f"#!/bin/sh\necho {name} >> {marker}\n")
            program.chmod(program.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A git repository holding the programs, Frontier's folder, and a PATH that names
    it every way a PATH can."""
    ws, marker = tmp_path / "ws", tmp_path / "ran"
    ws.mkdir()
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(ws)], check=True, timeout=60)
    (ws / "f.txt").write_text("a\n")
    planted(ws, marker)
    real = os.environ.get("PATH", os.defpath)
    hostile_path = os.pathsep.join(
        ["", ".", "node_modules/.bin", str(ws / "node_modules/.bin"), real]
    )
    monkeypatch.setenv("PATH", hostile_path)
    monkeypatch.chdir(ws)
    return ws, marker


def test_no_lookup_finds_the_workspaces_program(hostile: tuple[Path, Path]) -> None:
    ws, _ = hostile
    assert shutil.which("git") in ("./git", "git")  # what a plain lookup takes: the workspace's
    for name in NAMES:
        found = find_program(name, ws)
        assert found is None or not Path(found).resolve().is_relative_to(ws.resolve()), name
    kept = safe_path(ws).split(os.pathsep)
    assert "" not in kept and "." not in kept and str(ws / "node_modules/.bin") not in kept


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_environment_note_and_the_git_route_run_the_real_git(
    hostile: tuple[Path, Path],
) -> None:
    ws, marker = hostile
    environ = {k: v for k, v in os.environ.items() if k != "FRONTIER_ENVIRONMENT"}
    found = gather_environment(ws, today=date(2026, 12, 6), environ=environ, home=ws.parent)
    assert found is not None and found.git is not None, found.git_note  # the real git answered
    restore_patch("git checkout -- f.txt", {}, str(ws))
    sed_patch("sed -i 's/a/b/' f.txt", {}, str(ws))
    assert not marker.exists(), marker.read_text()


async def test_grep_and_the_shell_run_the_real_programs(hostile: tuple[Path, Path]) -> None:
    ws, marker = hostile
    boundary = make_boundary(ws)
    found = await boundary.run(ToolCall("g", "grep", {"pattern": "a"}))
    assert found.ok and "f.txt" in found.output
    ran = await boundary.run(ToolCall("s", "shell", {"command": "echo hi"}))
    assert ran.ok and "hi" in ran.output
    assert not marker.exists(), marker.read_text()


def test_an_mcp_servers_command_is_not_the_workspaces(hostile: tuple[Path, Path]) -> None:
    """A server configured as `command = "fakeserver"` (a bare name: `npx`, `uvx`) and
    run outside the sandbox is found as Frontier finds its own programs: the workspace's
    `fakeserver` (PATH names the current folder) is not run; with no other, the server
    did not start, and the note says its command was not found."""
    from frontier.tools.mcp_servers import McpHost
    from frontier.tools.mcp_settings import ServerSettings
    from frontier.tools.registry import Registry

    ws, marker = hostile
    planted_server = ws / "fakeserver"
    planted_server.write_text(f"#!/bin/sh\necho fakeserver >> {marker}\n")
    planted_server.chmod(0o755)
    logs = ws.parent / "mcp-logs"
    logs.mkdir()
    host = McpHost(logs, root=ws)
    try:
        host.start(
            [ServerSettings(name="fs", command="fakeserver", startup_timeout=20)], Registry()
        )
    finally:
        host.close()
    (state,) = host.states()
    assert "its command 'fakeserver' was not found" in (state.why or ""), state.why
    assert not marker.exists()


def test_the_key_command_runs_no_program_of_the_workspace(hostile: tuple[Path, Path]) -> None:
    """`api_key_command = "pass show openai"` ran in the workspace with its PATH: a
    repository's `pass` would have been handed the key's place."""
    from frontier.app.config import _key_from_command

    ws, marker = hostile
    planted = ws / "frontier-test-keytool"  # a name no machine has: `pass`, `op` stand-in
    planted.write_text(f"#!/bin/sh\necho keytool >> {marker}\necho sk-planted\n")
    planted.chmod(0o755)
    with pytest.raises(Exception, match="api_key_command"):
        _key_from_command("frontier-test-keytool show openai")  # none but the planted one
    assert not marker.exists()


def test_an_activated_virtual_environment_s_python_is_the_python_tool_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`source .venv/bin/activate` puts the project's venv first on PATH: its `python3` is a
    link to the system's interpreter, and the `python` tool runs it (the project's
    packages importable), as before stop 60 skipped every folder inside the workspace.
    A script the workspace holds, or a link to another program, is still never taken."""
    from frontier.tools.process import PythonTool

    system = shutil.which("python3")
    if system is None:
        pytest.skip("python3 is not installed")
    ws = tmp_path / "ws"
    bin_dir = ws / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python3").symlink_to(os.path.realpath(system))
    (bin_dir / "git").symlink_to("/bin/sh")  # a link, but to another program
    (bin_dir / "rg").write_text("#!/bin/sh\necho planted\n")  # the workspace's own
    (bin_dir / "rg").chmod(0o755)
    monkeypatch.setenv("PATH", os.pathsep.join([str(bin_dir), os.environ["PATH"]]))
    argv, _ = PythonTool().argv({"code": "print(1)"}, str(ws))
    assert argv[0] == str(bin_dir / "python3")
    assert find_program("git", ws) != str(bin_dir / "git")
    assert find_program("rg", ws) != str(bin_dir / "rg")
    assert str(bin_dir) not in safe_path(ws).split(os.pathsep)
