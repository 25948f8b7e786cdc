"""Project instructions (``app/agent/instructions.py``): which files, in what order,
how much of each, and what an untrusted workspace cannot make Frontier read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from frontier.app import cli
from frontier.app.agent import instructions as mod
from frontier.app.agent.instructions import FILE_CAP, TOTAL_CAP, load_instructions
from frontier.app.agent.modes import MODES, get_mode
from frontier.app.config import ConfigError, load_config
from frontier.tools.registry import default_registry


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, "utf-8")
    return path


def repo(tmp_path: Path) -> Path:
    """``tmp_path/home/repo``, a git repository (only ``.git`` matters)."""
    root = tmp_path / "home" / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def load(workspace: Path, tmp_path: Path, **caps: int) -> mod.ProjectInstructions:
    # the search never goes above tmp_path/home: the test's tree is all there is
    return load_instructions(workspace, home=tmp_path / "home", **caps)


def paths(found: mod.ProjectInstructions) -> list[tuple[str, str]]:
    return [(f.path, f.status) for f in found.files]


# --------------------------------------------------------------------------- discovery


def test_without_a_repository_only_the_workspace_root_is_read(tmp_path: Path) -> None:
    ws = tmp_path / "home" / "projects" / "ws"
    write(tmp_path / "home" / "projects" / "AGENTS.md", "parent's\n")
    write(ws / "AGENTS.md", "ws rules\n")
    write(ws / "sub" / "AGENTS.md", "a subdirectory is not searched\n")
    found = load(ws, tmp_path)
    assert paths(found) == [("AGENTS.md", "full")]
    assert found.repository is None and found.searched == (".",)
    assert "ws rules" in found.prompt() and "parent's" not in found.prompt()


@pytest.mark.parametrize("git", ["dir", "file"], ids=["git-dir", "worktree-file"])
def test_a_nested_workspace_reads_its_parents_up_to_the_repository_root(
    tmp_path: Path, git: str
) -> None:
    root = tmp_path / "home" / "repo"
    if git == "dir":
        (root / ".git").mkdir(parents=True)
    else:
        write(root / ".git", "gitdir: /elsewhere/.git/worktrees/repo\n")
    write(tmp_path / "home" / "AGENTS.md", "above the repository\n")
    write(root / "AGENTS.md", "repo rules\n")
    write(root / "pkg" / "CLAUDE.md", "pkg rules\n")
    ws = root / "pkg" / "ws"
    write(ws / "AGENTS.md", "ws agents\n")
    write(ws / ".frontier" / "instructions.md", "ws frontier\n")
    write(ws / "CLAUDE.md", "ws claude\n")
    found = load(ws, tmp_path)
    assert paths(found) == [
        ("../../AGENTS.md", "full"),
        ("../CLAUDE.md", "full"),
        ("AGENTS.md", "full"),
        ("CLAUDE.md", "full"),
        (".frontier/instructions.md", "full"),
    ]
    assert found.repository == "../.." and found.searched == ("../..", "..", ".")
    prompt = found.prompt()
    assert "above the repository" not in prompt
    # outermost first, so the nearest file has the last word; each under its path
    order = [
        "## ../../AGENTS.md\nrepo rules",
        "## ../CLAUDE.md\npkg rules",
        "## AGENTS.md\nws agents",
        "## CLAUDE.md\nws claude",
        "## .frontier/instructions.md\nws frontier",
    ]
    at = [prompt.index(piece) for piece in order]
    assert at == sorted(at), prompt
    assert prompt.startswith("# Project instructions\n")


def test_the_walk_never_goes_above_home(tmp_path: Path) -> None:
    # a .git above home (or none at all below it) does not pull in files above home
    (tmp_path / ".git").mkdir()
    write(tmp_path / "AGENTS.md", "outside home\n")
    write(tmp_path / "home" / "AGENTS.md", "home's own\n")
    ws = tmp_path / "home" / "ws"
    write(ws / "AGENTS.md", "ws\n")
    found = load(ws, tmp_path)
    assert paths(found) == [("AGENTS.md", "full")] and found.repository is None


def test_home_itself_can_be_the_repository(tmp_path: Path) -> None:
    (tmp_path / "home" / ".git").mkdir(parents=True)  # dotfiles kept in git
    write(tmp_path / "home" / "AGENTS.md", "home rules\n")
    ws = tmp_path / "home" / "ws"
    ws.mkdir()
    assert paths(load(ws, tmp_path)) == [("../AGENTS.md", "full")]


def test_nothing_found_means_no_prompt_section_and_no_notes(tmp_path: Path) -> None:
    ws = repo(tmp_path) / "ws"
    ws.mkdir()
    found = load(ws, tmp_path)
    assert found.files == () and found.prompt() == "" and found.notes() == []


# --------------------------------------------------------------------------- caps


def test_a_file_over_the_per_file_cap_is_capped_and_says_so(tmp_path: Path) -> None:
    ws = repo(tmp_path)
    write(ws / "AGENTS.md", "a" * (FILE_CAP + 4096))
    (entry,) = load(ws, tmp_path).files
    assert (entry.status, entry.size, entry.sent) == ("capped", FILE_CAP + 4096, FILE_CAP)
    assert entry.text == "a" * FILE_CAP
    prompt = load(ws, tmp_path).prompt()
    assert "[capped: the first 16,384 of 20,480 bytes; 16 KiB per file]" in prompt
    assert entry.note() == (
        "project instructions: AGENTS.md (20 KiB, capped: the first 16 KiB sent; 16 KiB per file)"
    )


def test_a_file_exactly_at_the_cap_is_whole(tmp_path: Path) -> None:
    ws = repo(tmp_path)
    write(ws / "AGENTS.md", "a" * FILE_CAP)
    (entry,) = load(ws, tmp_path).files
    assert (entry.status, entry.sent) == ("full", FILE_CAP)


def test_a_huge_file_is_never_read_beyond_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = repo(tmp_path)
    with (ws / "AGENTS.md").open("wb") as f:
        f.truncate(64 * 1024 * 1024)  # sparse: 64 MiB of zeros, nothing on disk
    read: list[int] = []
    real = os.read

    def counting(fd: int, n: int) -> bytes:
        data = real(fd, n)
        read.append(len(data))
        return data

    monkeypatch.setattr(mod.os, "read", counting)
    (entry,) = load(ws, tmp_path).files
    assert sum(read) == FILE_CAP + 1
    assert entry.status == "capped" and entry.size == 64 * 1024 * 1024


def test_the_total_cap_goes_to_the_nearest_files_first(tmp_path: Path) -> None:
    root = repo(tmp_path)
    size = 15 * 1024
    write(root / "AGENTS.md", "R" * size)
    write(root / "a" / "AGENTS.md", "A" * size)
    write(root / "a" / "b" / "AGENTS.md", "B" * size)
    ws = root / "a" / "b" / "ws"
    write(ws / "AGENTS.md", "W" * size)
    found = load(ws, tmp_path)
    assert paths(found) == [
        ("../../../AGENTS.md", "omitted"),
        ("../../AGENTS.md", "capped"),
        ("../AGENTS.md", "full"),
        ("AGENTS.md", "full"),
    ]
    assert sum(f.sent for f in found.files) == TOTAL_CAP
    assert found.files[1].sent == TOTAL_CAP - 2 * size
    prompt = found.prompt()
    assert "R" * 10 not in prompt
    assert "[omitted (15,360 bytes): the 32 KiB total for instructions went to files nearer" in (
        prompt
    )
    assert "the 32 KiB total for instructions was reached]" in prompt
    notes = found.notes()
    assert notes[0].startswith("project instructions: ../../../AGENTS.md (15 KiB, omitted: ")
    assert notes[1].startswith("project instructions: ../../AGENTS.md (15 KiB, capped: the first")


def test_caps_can_be_set(tmp_path: Path) -> None:
    ws = repo(tmp_path)
    write(ws / "AGENTS.md", "0123456789")
    write(ws / "CLAUDE.md", "abcdefghij")
    found = load(ws, tmp_path, file_cap=8, total_cap=12)
    assert [(f.status, f.sent) for f in found.files] == [("capped", 4), ("capped", 8)]


# --------------------------------------------------------------------------- hostile files


def test_a_symlink_out_of_the_repository_is_not_followed(tmp_path: Path) -> None:
    secret = write(tmp_path / "secret.md", "TOKEN=hunter2\n")
    root = repo(tmp_path)
    ws = root / "ws"
    ws.mkdir()
    (ws / "AGENTS.md").symlink_to(secret)
    (ws / ".frontier").symlink_to(tmp_path)  # a directory link out, too
    write(tmp_path / "instructions.md", "also outside\n")
    (root / "CLAUDE.md").symlink_to("/etc/passwd")
    found = load(ws, tmp_path)
    assert paths(found) == [
        ("../CLAUDE.md", "skipped"),
        ("AGENTS.md", "skipped"),
        (".frontier/instructions.md", "skipped"),
    ]
    assert all(f.reason == "a symlink to outside the repository, not followed" for f in found.files)
    assert found.prompt() == ""
    assert "hunter2" not in "\n".join(found.notes())


def test_without_a_repository_a_symlink_must_stay_in_the_workspace(tmp_path: Path) -> None:
    ws = tmp_path / "home" / "ws"
    write(tmp_path / "home" / "shared.md", "next door\n")
    ws.mkdir()
    (ws / "AGENTS.md").symlink_to("../shared.md")
    (entry,) = load(ws, tmp_path).files
    assert entry.status == "skipped" and "outside the workspace" in entry.reason


def test_a_symlink_inside_the_repository_is_followed_and_a_file_is_sent_once(
    tmp_path: Path,
) -> None:
    root = repo(tmp_path)
    write(root / "docs" / "agents.md", "shared rules\n")
    (root / "AGENTS.md").symlink_to("docs/agents.md")
    (root / "CLAUDE.md").symlink_to("AGENTS.md")  # the usual CLAUDE.md -> AGENTS.md
    ws = root / "ws"
    write(ws / "AGENTS.md", "shared rules\n")  # a copy, byte for byte
    found = load(ws, tmp_path)
    assert paths(found) == [
        ("../AGENTS.md", "full"),
        ("../CLAUDE.md", "skipped"),
        ("AGENTS.md", "skipped"),
    ]
    assert found.files[1].reason == "the same file as ../AGENTS.md"
    assert found.files[2].reason == "the same content as ../AGENTS.md"
    assert found.prompt().count("shared rules") == 1


def test_dangling_and_looping_symlinks_are_skipped(tmp_path: Path) -> None:
    ws = repo(tmp_path)
    (ws / "AGENTS.md").symlink_to("missing.md")
    (ws / "CLAUDE.md").symlink_to("CLAUDE.md")
    found = load(ws, tmp_path)
    assert [f.status for f in found.files] == ["skipped", "skipped"]
    assert all("leads nowhere" in f.reason for f in found.files)


def test_only_regular_files_are_read(tmp_path: Path) -> None:
    ws = repo(tmp_path)
    (ws / "AGENTS.md").mkdir()
    os.mkfifo(ws / "CLAUDE.md")  # opening it for reading must not wait for a writer
    write(ws / ".frontier" / "instructions.md", "")
    found = load(ws, tmp_path)
    assert [(f.status, f.reason) for f in found.files] == [
        ("skipped", "not a regular file"),
        ("skipped", "not a regular file"),
        ("skipped", "empty"),
    ]


def test_bytes_that_are_not_utf8_are_replaced(tmp_path: Path) -> None:
    ws = repo(tmp_path)
    write(ws / "AGENTS.md", b"caf\xe9 au lait\n\xff\n")
    (entry,) = load(ws, tmp_path).files
    assert entry.status == "full"
    assert entry.text == "caf\ufffd au lait\n\ufffd\n"
    assert entry.note() == (
        "project instructions: AGENTS.md (15 B, not valid UTF-8: undecodable bytes replaced)"
    )


def test_a_cap_inside_a_character_drops_the_half_character(tmp_path: Path) -> None:
    ws = repo(tmp_path)
    write(ws / "AGENTS.md", "\ufeffééé")  # a BOM, then 2-byte characters
    (entry,) = load(ws, tmp_path, file_cap=8).files  # 3 + 2 + 2 + half of the third
    assert entry.status == "capped" and entry.text == "éé"  # no U+FFFD, no BOM
    assert entry.sent == 7
    assert "not valid UTF-8" not in entry.reason


# --------------------------------------------------------------------------- the prompt


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_puts_the_instructions_last_in_the_system_prompt(mode: str) -> None:
    registry = default_registry()
    plain = get_mode(mode).system_prompt(registry)
    section = "# Project instructions\n## AGENTS.md\nuse tabs"
    with_them = get_mode(mode).system_prompt(registry, section)
    assert with_them == f"{plain}\n\n{section}"
    assert "Project instructions" not in plain


# --------------------------------------------------------------------------- turning it off


def test_instructions_are_on_unless_turned_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load_config().instructions is True
    assert load_config(instructions=False).instructions is False
    monkeypatch.setenv("FRONTIER_INSTRUCTIONS", "off")
    assert load_config().instructions is False
    monkeypatch.setenv("FRONTIER_INSTRUCTIONS", "maybe")
    with pytest.raises(ConfigError, match=r"instructions must be true or false.*FRONTIER_INSTR"):
        load_config()
    monkeypatch.delenv("FRONTIER_INSTRUCTIONS")
    config = Path(os.environ["FRONTIER_CONFIG_DIR"]) / "config.toml"
    write(config, "instructions = false\n")
    assert load_config().instructions is False


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--prompt", "x", "--no-instructions"],
        ["resume", "abc", "--no-instructions"],
        ["demo", "--no-instructions"],
        ["--no-instructions"],
    ],
)
def test_no_instructions_is_offered_where_a_session_starts(argv: list[str]) -> None:
    assert cli.parse_args(argv).instructions is False


def test_no_instructions_is_refused_by_replay(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.parse_args(["replay", "x.jsonl", "--no-instructions"])
    assert "--no-instructions does not apply to `frontier replay`" in capsys.readouterr().err
