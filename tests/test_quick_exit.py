"""The console script ends a quick command without the interpreter's teardown (issue 24),
and loses nothing by it: every byte of its output, its exit status, and anything another
part of the process registered to run at exit (``cli.quick_exit`` declines then)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from frontier.app import cli

ENTRY = (
    "import sys; from frontier.app.cli import entry; sys.argv[0] = 'frontier'; sys.exit(entry())"
)


def script(*argv: str, stdin: bytes = b"", prelude: str = "") -> subprocess.CompletedProcess[bytes]:
    """``frontier ARGV`` through the console script's own function, in a fresh interpreter;
    ``prelude`` runs first (what another library might have done). Its output is buffered
    as a user's is (without ``PYTHONUNBUFFERED``), so that a flush missed would lose bytes."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run(
        [sys.executable, "-c", prelude + "\n" + ENTRY, *argv],
        input=stdin,
        env=env,
        capture_output=True,
        check=False,
        timeout=120,
    )


def test_a_large_output_reaches_a_pipe_whole() -> None:
    # 20,000 calls print ~2 MB of JSON lines: far more than a pipe holds (64 KiB), so the
    # flush before the exit must wait for this reader; a byte lost would show as a line
    # missing or cut at the end.
    body = "".join(f"call c{i} read_file\narg path f{i}.txt\nend\n" for i in range(20_000))
    ran = script("transduce", "--protocol", "ctl", stdin=body.encode())
    assert ran.returncode == 0, ran.stderr[-500:]
    lines = [json.loads(x) for x in ran.stdout.decode().splitlines()]
    assert [x["id"] for x in lines if x["type"] == "call"] == [f"c{i}" for i in range(20_000)]
    assert lines[-1]["type"] == "summary" and lines[-1]["calls"] == 20_000


def test_the_exit_status_and_the_message_are_kept(tmp_path: Path) -> None:
    usage = script("sessions", "--bogus")
    assert usage.returncode == 2
    assert b"unrecognized arguments: --bogus" in usage.stderr
    helped = script("--help")  # ~10 KB through print: more than the stream's buffer holds
    assert helped.returncode == 0 and b"apply-patch" in helped.stdout
    assert helped.stdout.endswith(
        b"Sessions live in the user data dir (FRONTIER_DATA_DIR overrides).\n"
    )
    version = script("--version")  # one short line, still in the stream's buffer at the exit
    assert version.returncode == 0 and version.stdout.startswith(b"frontier ")
    refused = script(
        "apply-patch",
        "--root",
        str(tmp_path),
        stdin=b"*** Begin Patch\n*** Add File: ../x.txt\n+x\n*** End Patch\n",
    )
    assert refused.returncode == 1
    assert b"outside the workspace" in refused.stderr
    assert not (tmp_path.parent / "x.txt").exists()


def test_a_patch_written_by_a_quick_exit_is_on_disk(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    patch = b"*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+three\n*** End Patch\n"
    ran = script("apply-patch", "--root", str(tmp_path), stdin=patch)
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "a.txt").read_text() == "one\nthree\n"
    assert b"M a.txt" in ran.stdout


def test_an_atexit_handler_registered_by_anyone_still_runs() -> None:
    ran = script("--help", prelude="import atexit; atexit.register(print, 'handler ran')")
    assert ran.returncode == 0
    assert ran.stdout.rstrip().endswith(b"handler ran")


def test_a_live_thread_is_still_waited_for() -> None:
    # The thread can finish only once the interpreter's own exit has begun (threading's
    # exit hooks run before it joins threads): a quick exit in its place would kill it
    # before it prints.
    prelude = (
        "import threading\n"
        "ending = threading.Event()\n"
        "threading._register_atexit(ending.set)\n"
        "def late():\n"
        "    ending.wait()\n"
        "    print('thread finished', flush=True)\n"
        "threading.Thread(target=late).start()"
    )
    ran = script("--help", prelude=prelude)
    assert ran.returncode == 0
    assert ran.stdout.rstrip().endswith(b"thread finished")


class Exited(Exception):
    pass


@pytest.fixture
def exits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """``os._exit`` recorded instead of done, and no ``atexit`` handlers (pytest has its
    own): what ``quick_exit`` decides, in this process."""
    seen: list[int] = []

    def fake_exit(code: int) -> None:
        seen.append(code)
        raise Exited

    monkeypatch.setattr(os, "_exit", fake_exit)
    import atexit

    monkeypatch.setattr(atexit, "_ncallbacks", lambda: 0, raising=False)
    return seen


def test_quick_exit_reads_the_code_as_sys_exit_does(
    exits: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    for code, status in ((None, 0), (0, 0), (2, 2), (256, 0), (-1, 255), (True, 1)):
        with pytest.raises(Exited):
            cli.quick_exit(code)
        assert exits[-1] == status
    cli.quick_exit("a message to print")  # sys.exit prints it: the normal exit does that
    assert len(exits) == 6


def test_quick_exit_declines_while_another_thread_lives(
    exits: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    cli.quick_exit(0)
    assert exits == []


def test_quick_exit_declines_when_the_output_cannot_be_flushed(
    exits: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(threading, "active_count", lambda: 1)

    class Closed:
        def flush(self) -> None:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Closed())
    cli.quick_exit(0)
    assert exits == []
