"""``@path`` attachments and completion candidates: beneath the root, capped, said plainly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from frontier.app.agent.attachments import (
    FILE_MAX,
    FILES_MAX,
    TOTAL_MAX,
    mentions,
    prepare,
    workspace_files,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "app").mkdir(parents=True)
    (ws / "app" / "cli.py").write_text("def main():\n    return 0\n")
    (ws / "notes with space.md").write_text("# notes\n")
    return ws


def test_a_mention_attaches_the_file_after_the_message(root: Path) -> None:
    prepared = prepare(root, "why does @app/cli.py return 0?")
    assert prepared.typed == "why does @app/cli.py return 0?"
    assert prepared.text == (
        "why does @app/cli.py return 0?\n\n"
        "Attached file app/cli.py (25 bytes):\n"
        "```\ndef main():\n    return 0\n```"
    )
    assert [a.label() for a in prepared.attachments] == ["app/cli.py (25 bytes)"]
    assert prepared.notes() == ["attached app/cli.py (25 bytes)"]


def test_mentions_are_at_word_starts_quoted_or_bare_and_counted_once() -> None:
    text = 'mail me@example.com, see @a.py and @"b c.md" and @a.py again; @ alone'
    assert mentions(text) == ["a.py", "b c.md"]


def test_trailing_punctuation_and_quoted_paths(root: Path) -> None:
    prepared = prepare(root, 'look at @app/cli.py. And @"notes with space.md"')
    assert [a.path for a in prepared.attachments] == ["app/cli.py", "notes with space.md"]
    assert prepared.problems == ()


def test_what_cannot_be_attached_stays_as_typed_and_says_why(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret\n")
    (root / "escape").symlink_to(outside)
    (root / "bin.dat").write_bytes(b"\x00\x01\x02binary")
    os.mkfifo(root / "pipe")
    text = "@nope.py @../secret.txt @escape @app @bin.dat @pipe"
    prepared = prepare(root, text)
    assert prepared.attachments == ()
    assert prepared.text == text  # nothing was added
    assert list(prepared.problems) == [
        "@nope.py: no such file in the workspace; sent as typed",
        "@../secret.txt: outside the workspace (from outside it only an image is attached); "
        "sent as typed",
        "@escape: outside the workspace (from outside it only an image is attached); sent as typed",
        "@app: a folder, not a file (name a file inside it); sent as typed",
        "@bin.dat: not attached, it is not UTF-8 text",
        "@pipe: " + prepared.problems[5].split(": ", 1)[1],
    ]
    assert "not a regular file" in prepared.problems[5]
    assert "top secret" not in prepared.text


def test_a_utf16_file_is_attached_as_its_text(root: Path) -> None:
    """PowerShell's ``>`` writes UTF-16: it was "not UTF-8 text", left unattached."""
    (root / "out.log").write_bytes("Build failed: café\r\n".encode("utf-16"))
    prepared = prepare(root, "why @out.log")
    assert len(prepared.attachments) == 1 and prepared.problems == ()
    assert "Build failed: café" in prepared.text and "\x00" not in prepared.text


def test_a_big_file_is_cut_at_a_line_and_the_model_is_told(root: Path) -> None:
    line = "x" * 99 + "\n"
    (root / "big.log").write_text(line * 1000)  # 100,000 bytes
    prepared = prepare(root, "@big.log")
    (attachment,) = prepared.attachments
    assert attachment.cut and attachment.size == 100_000
    assert attachment.sent <= FILE_MAX and attachment.sent % 100 == 0  # whole lines only
    assert f"the first {attachment.sent:,} of 100,000 bytes; read the file for the rest" in (
        prepared.text
    )
    assert prepared.notes() == [f"attached big.log (first {attachment.sent:,} of 100,000 bytes)"]


def test_a_cut_inside_a_multibyte_character_never_breaks_the_text(root: Path) -> None:
    (root / "wide.txt").write_text("é" * FILE_MAX)  # no newline at all, 2 bytes each
    prepared = prepare(root, "@wide.txt")
    (attachment,) = prepared.attachments
    assert attachment.cut
    assert "\ufffd" not in prepared.text
    assert attachment.sent <= FILE_MAX


def test_files_and_bytes_per_message_are_capped(root: Path) -> None:
    for n in range(FILES_MAX + 2):
        (root / f"f{n}.txt").write_text(f"file {n}\n")
    text = " ".join(f"@f{n}.txt" for n in range(FILES_MAX + 2))
    prepared = prepare(root, text)
    assert len(prepared.attachments) == FILES_MAX
    assert prepared.problems[-1].endswith(f"not attached, {FILES_MAX} files per message at most")
    for n in range(5):
        (root / f"big{n}.txt").write_text(("y" * 63 + "\n") * (FILE_MAX // 64))
    prepared = prepare(root, " ".join(f"@big{n}.txt" for n in range(5)))
    assert sum(a.sent for a in prepared.attachments) <= TOTAL_MAX
    assert any("KiB of files" in p for p in prepared.problems)


def test_backticks_in_a_file_cannot_close_its_fence(root: Path) -> None:
    (root / "README.md").write_text("```python\nprint(1)\n```\n")
    prepared = prepare(root, "@README.md")
    assert "\n````\n```python\nprint(1)\n```\n````" in prepared.text


def test_completion_lists_tracked_files_only(root: Path, tmp_path: Path) -> None:
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "build").mkdir()
    (root / "build" / "out.js").write_text("x")
    (root / "debug.log").write_text("x")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("x")
    (tmp_path / "elsewhere.txt").write_text("x")
    (root / "link.txt").symlink_to(tmp_path / "elsewhere.txt")
    files = workspace_files(root)
    assert set(files) == {".gitignore", "app/cli.py", "notes with space.md"}
    assert workspace_files(root, limit=2) == files[:2]


def never_listed(root: Path, tmp_path: Path, ignored: str, in_git: str, linked: str) -> None:
    """Files ``@`` completion must never offer: ``build/<ignored>`` (in ``.gitignore``),
    ``.git/<in_git>``, and ``linked/<linked>`` behind a link out of the workspace."""
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / ignored).write_text("x")
    (root / ".git").mkdir()
    (root / ".git" / in_git).write_text("x")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / linked).write_text("x")
    (root / "linked").symlink_to(tmp_path / "outside")


def test_a_folder_typed_is_listed_on_its_own_held_to_the_same_rules(
    root: Path, tmp_path: Path
) -> None:
    """``under``: after a cut listing, the folder the person typed is walked alone; it gets
    what the whole listing would give there, and nothing for a folder it would never give."""
    never_listed(root, tmp_path, "out.js", "config", "secret.txt")
    assert workspace_files(root, under="app") == ["app/cli.py"]
    assert workspace_files(root, under="./app/") == ["app/cli.py"]
    for refused in ("build", ".git", "linked", "..", "../outside", "app/../..", "/etc", "none"):
        assert workspace_files(root, under=refused) == [], refused


def test_a_search_past_the_cut_finds_by_letters_in_order_held_to_the_same_rules(
    root: Path, tmp_path: Path
) -> None:
    """``search_files``: the whole tree, uncut, for the paths holding the query's letters in
    order (any case), as the listing would give them: never an ignored, ``.git`` or linked
    one; capped at ``limit`` (then not complete), and ended by ``stop``."""
    import threading

    from frontier.app.agent.attachments import search_files

    never_listed(root, tmp_path, "cli.js", "cli", "cli.txt")
    (root / "deep" / "er").mkdir(parents=True)
    (root / "deep" / "er" / "Client.py").write_text("x")
    assert search_files(root, "cli") == (["app/cli.py", "deep/er/Client.py"], True)
    assert search_files(root, "dercl") == (["deep/er/Client.py"], True)  # letters in order
    assert search_files(root, "zzz") == ([], True)
    assert search_files(root, "cli", limit=1) == (["app/cli.py"], False)
    stopped = threading.Event()
    stopped.set()
    assert search_files(root, "cli", stopped) == ([], False)


def test_nothing_inside_a_fenced_block_is_a_mention(root: Path) -> None:
    """Code and piped input are content: a diff piped to `frontier run` (fenced after the
    task) made `@@` a mention and a context line ` @app/cli.py` attached the file; a
    decorator in pasted code was "no such file". A piped file's own fences stay inside
    (the fence around it is longer than any run in it)."""
    piped = "````\n@@ -1 +1 @@\n @app/cli.py\n```\n@property\n```\n````"
    text = f'review @app/cli.py\n\nStandard input:\n{piped}\nand @"notes with space.md"'
    assert mentions(text) == ["app/cli.py", "notes with space.md"]
    prepared = prepare(root, "see\n```\n@app/cli.py\n@nope.py\n```\n")
    assert prepared.attachments == () and prepared.problems == ()
    assert mentions("```\nnever closed @app/cli.py") == []
