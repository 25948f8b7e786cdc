"""A child's stderr reaches its log through :class:`CappedLog`: bounded, newest lines kept,
and a log that cannot be written never holds the child."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from frontier.tools.capped_log import CappedLog

WRITE = (
    "import sys\nfor i in range({n}):\n    sys.stderr.write(f'line {{i}} ' + 'x' * 1000 + '\\n')\n"
)


def run(log: CappedLog, lines: int) -> int:
    """A child writing ``lines`` lines of ~1 KB to its stderr, through ``log``."""
    child = subprocess.Popen([sys.executable, "-c", WRITE.format(n=lines)], stderr=log.stream)
    log.spawned()
    code = child.wait(timeout=60)
    assert log.join(timeout=60), "the copy did not end with the child's stderr"
    return code


def test_the_log_is_moved_aside_past_its_bound_and_keeps_the_newest_lines(tmp_path: Path) -> None:
    path = tmp_path / "server.log"
    path.write_text("from an earlier start\n")
    log = CappedLog(path, 100_000)
    assert run(log, 1_000) == 0  # ~1 MB
    older = path.with_name("server.log.1")
    assert path.stat().st_size <= 100_000 and older.stat().st_size <= 100_000
    assert path.read_text().endswith("line 999 " + "x" * 1000 + "\n")
    assert log.rotations >= 9


def test_a_log_that_cannot_be_written_never_holds_the_child(tmp_path: Path) -> None:
    """Its folder is gone: the child writes 2 MB (far more than a pipe holds) and ends."""
    log = CappedLog(tmp_path / "missing" / "server.log", 100_000)
    assert run(log, 2_000) == 0
    assert not (tmp_path / "missing").exists()


def test_a_secret_the_child_prints_is_hidden_even_split_across_writes(tmp_path: Path) -> None:
    """Written in two pieces with a pause between (two reads of the pipe), and last with
    no line end: each is hidden, as the doctor's and the notes' "last words" are."""
    path = tmp_path / "server.log"
    script = (
        "import sys, time\n"
        "sys.stderr.write('auth failed: tok-live-'); sys.stderr.flush(); time.sleep(0.2)\n"
        "sys.stderr.write('12345678 refused\\nuser pw-9876543 '); sys.stderr.flush()\n"
    )
    log = CappedLog(path, 100_000, {"tok-live-12345678": "[REDACTED]", "pw-9876543": "[env value]"})
    child = subprocess.Popen([sys.executable, "-c", script], stderr=log.stream)
    log.spawned()
    assert child.wait(timeout=60) == 0 and log.join(timeout=60)
    assert path.read_text() == "auth failed: [REDACTED] refused\nuser [env value] "


def test_a_secret_in_every_line_of_a_megabyte_is_hidden_across_every_read(tmp_path: Path) -> None:
    """Reads of 64 KiB cut lines anywhere: the secret a read ended inside was written in
    two halves, hidden in neither."""
    path = tmp_path / "server.log"
    script = (
        "import sys\nsys.stderr.write(''.join("  # one write: the pipe's reads cut lines anywhere
        "f'request {i} auth=sk-SECRET-0123456789 ok\\n' for i in range(20000)))\n"
    )
    log = CappedLog(path, 10_000_000, {"sk-SECRET-0123456789": "[REDACTED]"})
    child = subprocess.Popen([sys.executable, "-c", script], stderr=log.stream)
    log.spawned()
    assert child.wait(timeout=60) == 0 and log.join(timeout=60)
    lines = path.read_text().splitlines()
    assert lines == [f"request {i} auth=[REDACTED] ok" for i in range(20000)]


def test_a_line_with_no_end_reaches_the_log_while_the_child_waits(tmp_path: Path) -> None:
    """A prompt (``Enter the passphrase: ``) waited for a line end that never came: the
    doctor quoted the line before it as the server's last words."""
    path = tmp_path / "server.log"
    script = (
        "import sys\nsys.stderr.write('Enter the passphrase: '); sys.stderr.flush()\n"
        "sys.stdin.read()\n"
    )
    log = CappedLog(path, 100_000, {"sk-SECRET-0123456789": "[REDACTED]"})
    child = subprocess.Popen(
        [sys.executable, "-c", script], stderr=log.stream, stdin=subprocess.PIPE
    )
    log.spawned()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (path.exists() and path.read_text()):
        time.sleep(0.01)  # waiting for the state asserted, not for a time
    assert path.read_text() == "Enter the passphrase: "
    assert child.poll() is None  # still waiting: written while it runs
    child.communicate(b"", timeout=60)
    assert log.join(timeout=60)


@pytest.mark.parametrize(
    ("secrets", "written", "logged"),
    [
        (
            {"a1b2c3d4e5a1": "[REDACTED]"},
            ["auth a1b2c3d4e5a1", " failed\n"],
            "auth [REDACTED] failed\n",
        ),
        (
            {"ghp_0123456789abcdefXYZ9": "[REDACTED]", "9f8e7d6c5b4a39f8e7d6": "[env value]"},
            ["token ghp_0123456789abcdefXYZ9", "\n"],
            "token [REDACTED]\n",
        ),
    ],
    ids=["its-end-starts-itself", "its-end-starts-another"],
)
def test_a_whole_secret_whose_end_could_start_a_secret_is_hidden(
    tmp_path: Path, secrets: dict[str, str], written: list[str], logged: str
) -> None:
    """Held back as a possible start, the secret's end was written on the next read and
    its beginning in clear on this one."""
    path = tmp_path / "server.log"
    script = "import sys, time\n" + "".join(
        f"sys.stderr.write({piece!r}); sys.stderr.flush(); time.sleep(0.2)\n" for piece in written
    )
    log = CappedLog(path, 100_000, secrets)
    child = subprocess.Popen([sys.executable, "-c", script], stderr=log.stream)
    log.spawned()
    assert child.wait(timeout=60) == 0 and log.join(timeout=60)
    assert path.read_text() == logged


def pieces_written(log: CappedLog, data: bytes, cuts: list[int]) -> bytes:
    """What ``log`` writes of ``data`` read in the pieces ``cuts`` make, as ``_copy`` reads."""
    points = sorted({c % (len(data) + 1) for c in cuts})
    out, held = [], b""
    for a, b in zip([0, *points], [*points, len(data)], strict=True):
        chunk, held = log._writable(held + data[a:b], ended=False)
        out.append(chunk)
    chunk, held = log._writable(held, ended=True)
    return b"".join([*out, chunk])


@given(
    secrets=st.dictionaries(
        st.text(alphabet="ab1", min_size=2, max_size=8), st.sampled_from(["[R]", "[E]"]),
        min_size=1, max_size=3,
    ),
    data=st.text(alphabet="ab1x", max_size=40),
    cuts=st.lists(st.integers(0, 100), max_size=8),
)  # fmt: skip
@example(secrets={"b1": "[R]", "b1b": "[E]"}, data="xb1b", cuts=[3])  # one inside another
@example(secrets={"a1ba1": "[R]"}, data="xa1ba1x", cuts=[6])  # its end starts itself
def test_any_reads_write_what_one_read_writes(
    tmp_path_factory: pytest.TempPathFactory, secrets: dict[str, str], data: str, cuts: list[int]
) -> None:
    """Secrets that start, end or hold one another (a password inside a URL), cut by the
    pipe's reads anywhere: the log is what one read of it all would write."""
    log = CappedLog(tmp_path_factory.mktemp("log") / "x.log", 100_000, secrets)
    log.close()
    assert log.join(timeout=60)
    whole, _ = log._writable(data.encode(), ended=True)
    assert pieces_written(log, data.encode(), cuts) == whole
