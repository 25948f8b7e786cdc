"""SIGTERM and SIGHUP stop Frontier as a person's own stop does (``stop_signals.py``).

Before: either signal ended the process where it stood. A command that had run had no
result committed (the session read it as a crash: "outcome unknown"), ``frontier run``
waiting at its approval question stayed alive after ctrl+c or SIGTERM until Enter, and the
TUI left the terminal in the alternate screen with mouse reporting on.

Real processes, on a pseudo-terminal where a person's would be; a loopback model. Waits are
for states (a line on screen, an exit), bounded by a deadline only against a hang."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest
from pty_screen import on_a_pty, read_until
from wire_scripts import Call, Text, WireServer, args, loopback_config, script, serve_wire
from wire_scripts import stream as reply

from frontier.app.agent.runtime import create_runtime
from frontier.app.session.catalogue import newest_session

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="Linux signals and pseudo-terminals"
)

DEADLINE = 120.0
"""Seconds before a wait gives up: far beyond a start on a loaded box."""

LONG = f"{sys.executable} -c \"print('start' + 'ed', flush=True); import time; time.sleep(60)\""
"""A command that says it started (``started`` appears only in its output), then runs on."""


def model(call: str) -> WireServer:
    server = WireServer("openai-chat")
    server.answer(
        reply(
            script("openai-chat", [Text("Running it."), Call("c1", "shell", args(command=call))])
        ),
        reply(script("openai-chat", [Text("Done.")])),
    )
    return server


def frontier_argv(url: str, workspace: Path, *rest: str) -> list[str]:
    endpoint = ["--base-url", url, "--model", "m", "--protocol", "native-inc"]
    where = ["--workspace", str(workspace), "--sandbox", "off"]
    return [sys.executable, "-m", "frontier.app.cli", *rest, *endpoint, *where]


def pty_env() -> dict[str, str]:
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "100", "LINES": "30"}
    env.pop("TEXTUAL_DRIVER", None)
    return env


async def status_of(pid: int) -> int:
    """The exit status of the child ``pid`` once it ends (a signal's death as -N)."""
    _, status = await asyncio.wait_for(asyncio.to_thread(os.waitpid, pid, 0), DEADLINE)
    return os.waitstatus_to_exitcode(status)


async def stored_result(url: str, workspace: Path) -> str:
    """The newest session's Markdown export, after checking it has nothing to reconcile."""
    found = newest_session()
    assert found is not None
    config = loopback_config(url, "openai-chat")
    again = create_runtime(config, session_id=found.id, workspace=workspace)
    try:
        assert again.recovered == []  # the result is stored: nothing for recovery to decide
        return await again.export("markdown")
    finally:
        await again.close()


def _sigint_as_a_terminal_sends_it() -> None:
    """A background job inherits SIGINT ignored; ctrl+c on a terminal is not ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


async def run_until_started(url: str, workspace: Path) -> asyncio.subprocess.Process:
    """``frontier run go`` (no terminal, output piped), once its command said it started."""
    proc = await asyncio.create_subprocess_exec(
        *frontier_argv(url, workspace, "run", "go", "--approval", "auto"),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=_sigint_as_a_terminal_sends_it,
    )
    assert proc.stdout is not None
    async with asyncio.timeout(DEADLINE):
        while b"started" not in await proc.stdout.readline():
            pass
    return proc


@pytest.mark.parametrize("sent", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_to_frontier_run_records_the_commands_result(
    tmp_path: Path, sent: signal.Signals
) -> None:
    """SIGINT is ctrl+c: it exited 1 (a failed turn) until stop 48, now 130."""
    server = model(LONG)
    async with serve_wire(server) as url:
        proc = await run_until_started(url, tmp_path)
        proc.send_signal(sent)
        out, err = await asyncio.wait_for(proc.communicate(), DEADLINE)
        markdown = await stored_result(url, tmp_path)
    assert proc.returncode == 128 + sent, err
    said = err.decode().splitlines()
    if sent == signal.SIGTERM:
        assert said[-2:] == [
            "frontier: turn ended: cancelled — stopped by SIGTERM",
            "frontier: stopped by SIGTERM",
        ]
    else:
        assert said[-1] == "frontier: turn ended: cancelled — turn cancelled by the user"
    assert "shell cancelled exit=130" in out.decode()
    assert "**result** `cancelled` · exit 130" in markdown and "started" in markdown


async def test_sigterm_at_the_approval_question_ends_frontier_run(tmp_path: Path) -> None:
    """The answer was read on a thread, which a stop could not call off: the process said
    it had stopped, then waited for Enter."""
    server = model("echo hi > made.txt")
    async with serve_wire(server) as url:
        argv = frontier_argv(url, tmp_path, "run", "go", "--approval", "ask")
        with on_a_pty(argv, pty_env()) as (pid, fd):
            deadline = time.monotonic() + DEADLINE
            await asyncio.to_thread(read_until, fd, b"[y] approve", deadline)
            os.kill(pid, signal.SIGTERM)
            status = await status_of(pid)
            said = await asyncio.to_thread(read_until, fd, b"stopped by SIGTERM", deadline)
    assert status == 128 + signal.SIGTERM
    assert b"stopped by SIGTERM" in said
    assert not (tmp_path / "made.txt").exists()


@pytest.mark.parametrize("stop", ["SIGTERM", "hang-up"])
async def test_the_tui_stopped_by_a_signal_records_the_result_and_restores_the_terminal(
    tmp_path: Path, stop: str
) -> None:
    """SIGTERM (``kill``), or the terminal closing under it (the window closed: SIGHUP, and
    nothing left to write to)."""
    server = model(LONG)
    async with serve_wire(server) as url:
        argv = frontier_argv(url, tmp_path, "--approval", "auto")
        with on_a_pty(argv, pty_env()) as (pid, fd):
            deadline = time.monotonic() + DEADLINE
            await asyncio.to_thread(read_until, fd, b"message the agent", deadline)
            os.write(fd, b"go\r")
            await asyncio.to_thread(read_until, fd, b"started", deadline)
            if stop == "SIGTERM":
                os.kill(pid, signal.SIGTERM)
                left = await asyncio.to_thread(read_until, fd, b"stopped by SIGTERM", deadline)
            else:
                os.close(fd)  # the kernel hangs the terminal up: SIGHUP to its session
            status = await status_of(pid)
        markdown = await stored_result(url, tmp_path)
    assert "**result** `cancelled` · exit 130" in markdown and "started" in markdown
    if stop == "SIGTERM":
        assert status == 128 + signal.SIGTERM
        back = left[left.rindex(b"\x1b[?1049l") :]  # out of the alternate screen, and after it:
        assert b"\x1b[?25h" in back  # the cursor shown
        assert b"\x1b[?1000l" in left  # mouse reporting off
    else:
        assert status == 128 + signal.SIGHUP


SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from frontier.app.frontends import stop_signals

    stop_signals.DEADLINE = float(sys.argv[1])

    async def main():
        stop = stop_signals.StopSignals()
        stop.install(lambda: print("stopping", flush=True))  # an orderly stop that never ends
        print("ready", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("how", ["a second signal", "the deadline"])
async def test_a_stop_that_does_not_end_is_ended(tmp_path: Path, how: str) -> None:
    """Whoever sends the signal twice means it; a stop that hangs (on a terminal gone) must
    not leave a process behind holding the session's lock."""
    (tmp_path / "hang.py").write_text(SCRIPT)
    deadline = "3600" if how == "a second signal" else "0.05"
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(tmp_path / "hang.py"),
        deadline,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert await asyncio.wait_for(proc.stdout.readline(), DEADLINE) == b"ready\n"
    proc.send_signal(signal.SIGTERM)
    assert await asyncio.wait_for(proc.stdout.readline(), DEADLINE) == b"stopping\n"
    if how == "a second signal":
        proc.send_signal(signal.SIGTERM)
    _, err = await asyncio.wait_for(proc.communicate(), DEADLINE)
    assert proc.returncode == 128 + signal.SIGTERM
    assert err.decode().strip() == "frontier: stopped at once by SIGTERM"


async def test_a_hang_up_ignored_at_start_stays_ignored() -> None:
    """``nohup frontier run …``: the person asked for SIGHUP to be ignored."""
    from frontier.app.frontends.stop_signals import StopSignals

    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    stop = StopSignals()
    try:
        stop.install(lambda: None)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN)
    finally:
        stop.uninstall()
        signal.signal(signal.SIGHUP, before)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


TALKING = (
    f'{sys.executable} -c "import time\n'
    "print('start' + 'ed', flush=True)\n"
    'for i in range(1200): print(i, flush=True); time.sleep(0.05)"'
)
"""A command that says it started, then goes on printing for a minute."""


async def test_a_reader_that_goes_away_stops_the_run_and_keeps_the_result(tmp_path: Path) -> None:
    """``frontier run … | head``: the printer's ``BrokenPipeError`` reached the tool whose
    output it printed, and the call was stored as "internal error while running shell"
    though the command had run. Now the turn stops as ctrl+c stops it, exit 141."""
    server = model(TALKING)
    async with serve_wire(server) as url:
        proc = await run_until_started(url, tmp_path)
        assert proc.stderr is not None
        transport = proc._transport  # type: ignore[attr-defined]
        transport.get_pipe_transport(1).close()  # the reader goes away, as `head` exits
        await asyncio.wait_for(proc.wait(), DEADLINE)
        err = await proc.stderr.read()
        markdown = await stored_result(url, tmp_path)
    assert proc.returncode == 141, err
    assert b"Traceback" not in err and b"BrokenPipe" not in err
    assert "**result** `cancelled` · exit 130" in markdown and "started" in markdown
    assert "internal error" not in markdown


CRASHING = textwrap.dedent(
    """
    import sys
    from frontier.app.config import Config
    from frontier.app.frontends.tui import app

    def broken(self):
        raise RuntimeError("a bug on mount")

    app.FrontierApp.on_mount = broken
    sys.exit(app.run_tui(Config(), demo=True))
    """
)


INPUT_DIES = textwrap.dedent(
    """
    import sys
    from frontier.app.config import Config
    from frontier.app.frontends.tui import app, quick_exit

    def broken(self):
        raise RuntimeError("the input thread died")

    quick_exit.QuickExitDriver.run_input_thread = broken
    sys.exit(app.run_tui(Config(), demo=True))
    """
)


@pytest.mark.parametrize(
    ("source", "says"),
    [(CRASHING, b"a bug on mount"), (INPUT_DIES, b"the input thread died")],
    ids=["an exception the app did not handle", "its input thread died"],
)
async def test_a_tui_that_crashed_does_not_exit_0(tmp_path: Path, source: str, says: bytes) -> None:
    """Textual prints the error and ends; ``run_tui`` returned the app's result, 0, as
    after a clean quit (stop 48), and after a panic, which is how Textual's driver reports
    its input thread dying and which sets no return code, still 0 (stop 49)."""
    script = tmp_path / "crash.py"
    script.write_text(source)
    with on_a_pty([sys.executable, str(script)], pty_env()) as (pid, fd):
        said = await asyncio.to_thread(read_until, fd, says, time.monotonic() + DEADLINE)
        status = await status_of(pid)
    assert says in said and b"RuntimeError" in said
    assert status == 1
