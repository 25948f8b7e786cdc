"""``frontier rewind``: the TUI's ``/rewind`` for a stored session on the command line —
its list, the files' review on the terminal (or ``--yes``), the message printed to send
again, the exit statuses a script reads."""

from __future__ import annotations

import asyncio

import pytest
from test_undo import demo_session

from frontier.app.cli import main as cli


def test_the_list_the_rewind_and_what_comes_after(capsys: pytest.CaptureFixture[str]) -> None:
    sid, ws = asyncio.run(demo_session())
    before = (ws / "README.md").read_text()
    assert "--shout" in before

    assert cli(["rewind", sid]) == 0  # no MESSAGE: the list, nothing written
    listed = capsys.readouterr().out.splitlines()
    assert listed[0].startswith(f"your messages in session {sid} (")
    assert listed[1].startswith("   1  ") and "files: " in listed[1]
    assert "--shout" in (ws / "README.md").read_text()

    assert cli(["rewind", sid, "1"]) == 1  # no terminal: shown, declined, nothing changed
    out, err = capsys.readouterr()
    assert "would write" in out and "README.md" in out
    assert "rerun with --yes" in err and "--shout" in (ws / "README.md").read_text()

    assert cli(["rewind", sid, "1", "--yes"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("rewound to before your message 1: the conversation and the files (")
    assert "--shout" not in (ws / "README.md").read_text()
    undo = next(line for line in out.splitlines() if line.startswith("the files' undo is call"))
    assert "your message 1, to send again" in out

    assert cli(["rewind", sid, "1", "--yes"]) == 2  # the model has no message of theirs now
    assert "no message 1 to rewind to" in capsys.readouterr().err
    undo_id = undo.split("call ")[1].split(" ")[0]
    assert cli(["undo", sid, undo_id, "--yes"]) == 0  # and the changes come back
    assert "--shout" in (ws / "README.md").read_text()


@pytest.mark.parametrize("message", ["x", "0", "-1"])
def test_a_message_that_is_no_number_of_the_list_is_a_usage_error(
    message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    sid, ws = asyncio.run(demo_session())
    assert cli(["rewind", sid, "--", message]) == 2
    assert "MESSAGE is a number from the list" in capsys.readouterr().err
    assert "--shout" in (ws / "README.md").read_text()


def test_files_only_and_conversation_only_exclude_each_other() -> None:
    with pytest.raises(SystemExit) as exited:
        cli(["rewind", "abc", "1", "--files-only", "--conversation-only"])
    assert exited.value.code == 2
