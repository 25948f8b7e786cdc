"""The prompt history behind ↑/↓ and ctrl+r: per workspace, capped, scrubbed, robust."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from frontier.app.secrets import Scrubber
from frontier.app.session.prompt_history import (
    DEMO_KEY,
    ENTRY_MAX,
    HISTORY_DIR,
    PromptHistory,
    history_path,
)


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_prompts_come_back_in_a_new_process_for_the_same_workspace(tmp_path: Path) -> None:
    first = PromptHistory.for_workspace(str(tmp_path / "proj"))
    first.add("add a --shout flag")
    first.add("now run the tests\nand say which failed")
    again = PromptHistory.for_workspace(str(tmp_path / "proj"))
    assert again.entries() == ["add a --shout flag", "now run the tests\nand say which failed"]
    # under FRONTIER_DATA_DIR (the suite points it at a temp dir), one file per workspace
    assert first.path is not None
    assert first.path.parent == Path(os.environ["FRONTIER_DATA_DIR"]) / HISTORY_DIR
    assert first.path.name.startswith("proj-") and first.path.suffix == ".jsonl"


def test_each_workspace_has_its_own_history_and_the_demo_one_is_shared(tmp_path: Path) -> None:
    PromptHistory.for_workspace(str(tmp_path / "a")).add("in a")
    PromptHistory.for_workspace(str(tmp_path / "b")).add("in b")
    PromptHistory.for_workspace(DEMO_KEY).add("in the demo")
    assert PromptHistory.for_workspace(str(tmp_path / "a")).entries() == ["in a"]
    assert PromptHistory.for_workspace(str(tmp_path / "b")).entries() == ["in b"]
    assert PromptHistory.for_workspace(DEMO_KEY).entries() == ["in the demo"]
    # two folders with one name (a/x, b/x) still get two files
    assert history_path(str(tmp_path / "a" / "x")) != history_path(str(tmp_path / "b" / "x"))


def test_secrets_never_reach_the_disk_nor_the_recall(tmp_path: Path) -> None:
    key = "sk-live-0123456789abcdef"
    history = PromptHistory(tmp_path / "h.jsonl", scrubber=Scrubber([key]))
    history.add(f"why does {key} fail?")
    history.add("curl -H 'Authorization: Bearer abcdef0123456789xyz' http://127.0.0.1:8080")
    recalled = history.entries()
    assert key not in "".join(recalled)
    assert "abcdef0123456789xyz" not in "".join(recalled)
    assert "[REDACTED]" in recalled[0] and "[REDACTED]" in recalled[1]
    on_disk = (tmp_path / "h.jsonl").read_text()
    assert key not in on_disk and "abcdef0123456789xyz" not in on_disk


def test_the_newest_are_kept_and_the_file_is_compacted(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    history = PromptHistory(path, cap=5)
    for n in range(23):
        history.add(f"prompt {n}")
    assert history.entries() == [f"prompt {n}" for n in range(18, 23)]
    assert len(lines(path)) < 10  # rewritten once it held twice the cap
    assert PromptHistory(path, cap=5).entries() == [f"prompt {n}" for n in range(18, 23)]


def test_blank_repeated_and_huge_prompts_are_not_remembered(tmp_path: Path) -> None:
    history = PromptHistory(tmp_path / "h.jsonl")
    assert history.add("   \n ") is None
    assert history.add("same") == "same"
    assert history.add("same") is None  # the newest already
    assert history.add("x" * (ENTRY_MAX + 1)) is None  # a pasted log is sent, not kept
    assert history.add("other") == "other"
    assert history.add("same") == "same"  # not the newest any more: kept again
    assert history.entries() == ["same", "other", "same"]


def test_a_damaged_file_loses_only_its_bad_lines(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    path.write_text(
        '{"t": 1, "text": "good one"}\n'
        "not json at all\n"
        '{"t": 2, "text": 42}\n'
        '["a list"]\n'
        + "["
        * 100_000  # nested past the stack: json.loads raised RecursionError
        + "\n"
        '{"t": 3, "text": "good two"}\n'
        '{"t": 4, "text": "cut off in the mid'
    )
    assert PromptHistory(path).entries() == ["good one", "good two"]


def test_the_file_is_private(tmp_path: Path) -> None:
    path = tmp_path / "new" / "h.jsonl"
    PromptHistory(path).add("hello")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through permissions")
def test_an_unwritable_data_dir_keeps_the_history_in_memory_and_says_why(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        history = PromptHistory(folder / "h.jsonl")
        history.add("still recalled")
        assert history.entries() == ["still recalled"]
        assert history.problem is not None and "cannot write the prompt history" in history.problem
    finally:
        folder.chmod(0o700)


def test_an_unwritable_path_keeps_the_history_in_memory_and_says_why(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    history = PromptHistory(blocker / "h.jsonl")  # its folder is a file: cannot be made
    history.add("still recalled")
    history.add("and this")
    assert history.entries() == ["still recalled", "and this"]
    assert history.problem is not None and "the prompt history" in history.problem
    assert "Not a directory" in history.problem


def test_search_is_newest_first_unique_and_ignores_case(tmp_path: Path) -> None:
    history = PromptHistory(tmp_path / "h.jsonl")
    for text in ["Run the tests", "fix the parser", "run the tests", "Run the tests", "lint"]:
        history.add(text)
    assert history.search("RUN") == ["Run the tests", "run the tests"]
    assert history.search("") == ["lint", "Run the tests", "run the tests", "fix the parser"]
    assert history.search("nothing like it") == []


def test_in_memory_history_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    history = PromptHistory()
    history.add("only here")
    assert history.entries() == ["only here"]
    assert list(tmp_path.iterdir()) == []
