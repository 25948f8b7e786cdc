"""Issue 21, third round (b): what the first fixes missed.

- The diff review's cut of a long line kept its two ends, so ``replace checkAuth(user);``
  in the middle of a 20 MB one-line file showed neither the old text nor the new, and
  ``a`` approved it: a changed line now keeps what is around the change, saying how much
  is cut on each side (``display.display_change``).
- Undecodable bytes (Python's ``surrogateescape`` placeholders U+DC80–U+DCFF) passed
  ``terminal_safe`` and ``display_preview`` and went out raw (``\\x9b``: a C1 CSI).
- ``frontier import -o`` truncated its output in place; MCP header variables were not
  validated as keys are; the CLI waited for a locked folder silently, for ever.

The TUI one runs through Pilot at 80×24 and 120×40, waiting on states, never on time.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from pilot_wait import eventually, opened, screen_text, until
from tui_fakes import ask, asking_factory

from frontier.app.cli import main
from frontier.app.config import Config
from frontier.app.events import ToolCall
from frontier.app.frontends.terminal_text import UNSAFE, dumps, json_safe, pictured, terminal_safe
from frontier.app.frontends.tui.app import FrontierApp
from frontier.app.frontends.tui.screens.review import ReviewScreen
from frontier.tools import atomic
from frontier.tools.contract import Decision, Preview, ToolSpec
from frontier.tools.diffing import file_preview
from frontier.tools.mcp_settings import HeaderError, expand_headers
from frontier.widgets.command_view import CommandView
from frontier.widgets.diff_view import DiffView, hunk_texts, shown_name
from frontier.widgets.display import (
    LINE_KEEP,
    changed_span,
    cut_around,
    display_change,
    display_preview,
)

SIZES = {"80x24": (80, 24), "120x40": (120, 40)}
sizes = pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))
PATCH_SPEC = ToolSpec("replace", "replace text in a file", {}, mutates=True, kind="edit")


# ---------------------------------------------------------------------- the diff's cut
HALF = 10_000_000
FILLER = "var a=1;"
OLD_LINE = FILLER * (HALF // len(FILLER)) + "if(!checkAuth(user);)deny();" + FILLER * 1_250_000
NEW_LINE = OLD_LINE.replace("checkAuth(user);", "/*noauth*/true;", 1)


@pytest.fixture(scope="module")
def minified() -> Preview:
    """``replace checkAuth(user);`` in the middle of a 20 MB one-line file."""
    file = file_preview("dist/app.min.js", (OLD_LINE + "\n").encode(), (NEW_LINE + "\n").encode())
    return Preview(kind="diff", files=(file,), summary="replace in dist/app.min.js")


def test_a_changed_line_keeps_what_changed_and_says_what_is_cut() -> None:
    prefix, suffix = changed_span(OLD_LINE, NEW_LINE)
    assert OLD_LINE[prefix : len(OLD_LINE) - suffix] == "checkAuth(user)"  # ";" is shared
    assert NEW_LINE[prefix : len(NEW_LINE) - suffix] == "/*noauth*/true"
    old, new = display_change(OLD_LINE, NEW_LINE)
    for shown, line, changed in ((old, OLD_LINE, "checkAuth(user);"), (new, NEW_LINE, "true;")):
        assert changed in shown and len(shown) < 2 * LINE_KEEP
        before, kept, after = shown.split(" … ")[0], shown.split(" … ")[1], shown.split(" … ")[2]
        cut_left = int(before.removeprefix("… ").removesuffix(" characters").replace(",", ""))
        cut_right = int(after.removesuffix(" characters …").replace(",", ""))
        assert line[cut_left : len(line) - cut_right] == kept  # the counts are true
        assert cut_left > 9_000_000 and cut_right > 9_000_000  # both sides said
    # a change longer than what is kept shows where it begins and where it ends
    long = cut_around("a" * 10_000 + "b" * 10_000, 10_000, 17_000, keep=20, context=5)
    assert long == (
        f"… 9,995 characters … {'a' * 5}{'b' * 20} … 6,960 characters … {'b' * 25} "
        "… 2,995 characters …"
    )
    # the whole line changed: its two ends, as before
    assert (
        cut_around("s" + "m" * 10_000 + "e", 0, 10_002, keep=5)
        == "smmmm … 9,992 characters … mmmme"
    )
    assert display_change("short", "shirt") == ("short", "shirt")
    assert changed_span("xab", "yab") == (0, 2) and changed_span("ab", "ab") == (2, 0)


@sizes
async def test_the_diff_review_of_a_20_mb_line_shows_the_change(
    size: tuple[int, int], minified: Preview
) -> None:
    factory, _ = asking_factory(Path.cwd())
    app = FrontierApp(Config(model="smollm2"), session_factory=factory, remember_theme=False)
    call = ToolCall("c1", "replace", {"path": "dist/app.min.js"})
    async with app.run_test(size=size) as pilot:
        worker = app.run_worker(ask(app, call, PATCH_SPEC, minified), exit_on_error=False)
        screen = await opened(pilot, ReviewScreen, "the review of the 20 MB line")
        diff = screen.query_one(DiffView)
        await eventually(
            pilot, lambda: "checkAuth(user);" in screen_text(app), "the old text on screen"
        )
        assert "… 9,999,8" in screen_text(app)  # the cut before it, counted
        await pilot.press("end")
        await eventually(pilot, lambda: "/*noauth*/true;" in screen_text(app), "the new text")
        assert " characters …" in screen_text(app)  # the cut after it, counted
        await pilot.press("s")  # side by side: the same texts, paired
        await until(pilot, lambda: diff.split or size[0] < 100, "the split view")
        await pilot.press("a")
        await worker.wait()
    assert worker.result == Decision(True)


def test_only_paired_lines_are_centred() -> None:
    """A context line and a line only added keep their ends (nothing to centre on)."""
    context = "c" * 5_000 + "MIDDLE" + "c" * 5_000
    old = f"{context}\nkeep\n".encode()
    new = f"{context}\nkeep\n{'n' * 5_000}TAIL{'n' * 5_000}\n".encode()
    (hunk,) = file_preview("a.txt", old, new).hunks
    texts = hunk_texts(hunk)
    assert [line.sign for line in hunk.lines] == [" ", " ", "+"]
    assert "MIDDLE" not in texts[0] and texts[0].startswith("ccc") and texts[0].endswith("ccc")
    assert texts[2].startswith("nnn") and texts[2].endswith("nnn")


# ---------------------------------------------------------------------- undecodable bytes
BYTES_NAME = os.fsdecode(b"n\x9b31m\xff.txt")
"""A file name with bytes that are not UTF-8, as Python holds it: ``n\\udc9b31m\\udcff.txt``."""


def test_lone_surrogates_are_shown_as_the_bytes_they_stand_for() -> None:
    assert BYTES_NAME == "n\udc9b31m\udcff.txt"
    assert terminal_safe(BYTES_NAME) == "n\\x9b31m\\xff.txt"
    assert pictured(BYTES_NAME) == "n\\x9b31m\\xff.txt"
    assert terminal_safe("a\ud800b") == "a\\ud800b"  # not a byte: its code point
    assert display_preview(BYTES_NAME, one_line=True) == "n\\x9b31m\\xff.txt"
    assert shown_name(BYTES_NAME) == "n\\x9b31m\\xff.txt"  # the diff review's file names
    assert CommandView(f"cat {BYTES_NAME}", "bash").shown == ["cat n\\x9b31m\\xff.txt"]
    assert UNSAFE.findall(BYTES_NAME) == ["\udc9b", "\udcff"]
    # JSON: escaped, and still exactly the same value
    assert json_safe(json.dumps(BYTES_NAME, ensure_ascii=False)) == '"n\\udc9b31m\\udcff.txt"'
    assert json.loads(dumps({"p": BYTES_NAME})) == {"p": BYTES_NAME}
    # what a surrogateescape stream (stdout under C.UTF-8) writes is never the raw byte
    out = io.BytesIO()
    stream = io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape")
    stream.write(terminal_safe(BYTES_NAME))
    stream.flush()
    assert b"\x9b" not in out.getvalue() and out.getvalue().isascii()


# ---------------------------------------------------------------------- import -o
def capture_file(tmp_path: Path) -> Path:
    body = {"choices": [{"index": 0, "delta": {"content": "hello"}, "finish_reason": "stop"}]}
    capture = tmp_path / "cap.sse"
    capture.write_bytes(f"data: {json.dumps(body)}\n\ndata: [DONE]\n\n".encode())
    return capture


def test_import_output_is_written_whole_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text("the recording kept before\n")
    synced: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    assert main(["import", str(capture_file(tmp_path)), "-o", str(out)]) == 0
    assert out.read_text().startswith('{"format": "frontier-recording"')
    assert len(synced) >= 2  # the temp file, then the folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cap.sse", "out.jsonl"]

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    before = out.read_bytes()
    monkeypatch.setattr(os, "fsync", full)
    assert main(["import", str(capture_file(tmp_path)), "-o", str(out)]) == 2
    assert "cannot write (No space left on device)" in capsys.readouterr().err
    assert out.read_bytes() == before  # the old recording, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cap.sse", "out.jsonl"]  # no temp


# ---------------------------------------------------------------------- MCP headers
def test_header_variables_are_validated_as_keys_are() -> None:
    headers = {"Authorization": "Bearer ${TOKEN}"}
    pasted = {"TOKEN": "\u200bsecret-token\u200b\n"}
    assert expand_headers(headers, pasted, server="remote") == {
        "Authorization": "Bearer secret-token"
    }
    for value, says in (
        ("sécret", "position 2 of 6 (U+00E9 LATIN SMALL LETTER E WITH ACUTE)"),
        ("two words", "U+0020 SPACE"),
        ("a\r\nX-Evil: 1", "line break"),
    ):
        with pytest.raises(HeaderError) as err:
            expand_headers(headers, {"TOKEN": value}, server="remote")
        text = str(err.value)
        assert text.startswith("MCP server remote: header Authorization") and says in text
        assert "${TOKEN}" in text and value not in text  # names the variable, never the value
    with pytest.raises(HeaderError, match=r"header X holds U\+00E9 at position 4 of 4"):
        expand_headers({"X": "café"}, {}, server="remote")  # never a raw UnicodeEncodeError


# ---------------------------------------------------------------------- a locked folder
HOLD = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.read()
"""


@contextmanager
def held(folder: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding ``flock`` on ``folder`` until the block ends."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "locked\n"
        yield proc
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(30)


def test_the_cli_gives_up_on_a_locked_folder_and_names_who_holds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FRONTIER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(atomic, "LOCK_WAIT", 0.2)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("old\n")
    patch = b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(patch), encoding="utf-8"))
    with held(ws) as holder:
        code = main(["apply-patch", "--root", str(ws)])
        err = capsys.readouterr().err
    assert code == 1
    assert f"the workspace folder is locked by another process (pid {holder.pid})" in err
    assert "try again" in err and "nothing written" in err
    assert (ws / "a.txt").read_text() == "old\n" and sorted(os.listdir(ws)) == ["a.txt"]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(patch), encoding="utf-8"))
    assert main(["apply-patch", "--root", str(ws)]) == 0  # free again: it applies
    assert (ws / "a.txt").read_text() == "new\n"
