"""What a shell command changed among the files it names (``tools/command_changes.py``):
which paths a line names, what is held before, what counts as changed after, the bounds."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from frontier.tools import command_changes, command_words
from frontier.tools.command_changes import Watch, recorded
from frontier.tools.command_words import Named, literal_words, named, only_reads


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "a.py").write_text("a = 1\n")
    (root / "src" / "b.py").write_text("b = 1\n")
    (root / "src" / "pkg" / "c.py").write_text("c = 1\n")
    return root


@pytest.mark.parametrize(
    ("command", "files", "folders"),
    [
        ("perl -pi -e 's/1/2/' a.py", ("a.py",), ()),
        ("black src/", (), ("src",)),
        ("ruff check --fix .", (), (".",)),
        ("cd src && black pkg", (), ("src/pkg",)),
        ("cd -- src && black .", (), ("src",)),
        ("cp a.py copy.py", ("a.py", "copy.py"), ()),
        ("echo hi >> notes.txt", ("notes.txt",), ()),
        ("echo hi 2>err.log", ("err.log",), ()),
        ("sed -i 's/a/b/' *.py", ("a.py",), ()),
        # a quoted pattern is expanded too (the words come unquoted): more is held, and a
        # file held that the command leaves alone is no change
        ("find src -name '*.py' -delete", ("a.py",), ("src",)),
        ("git checkout -- src", (), ("src",)),
        ("python gen.py out.json", ("gen.py", "out.json"), ()),  # a name it may make
        ("touch NEWS", ("NEWS",), ()),
        # programs that only read: their operands are not watched, their redirections are
        ("cat a.py", (), ()),
        ("grep -rn x src > out.txt", ("out.txt",), ()),
        ("sed -n 1p a.py", (), ()),
        ("find src -name '*.py'", (), ()),
        ("git diff src", (), ()),
        ("ls src | wc -l", (), ()),
        # what cannot be followed, or is not the workspace's
        ("cd $DIR && black .", (), ()),
        ("black $HOME/x.py ~/y.py", (), ()),
        ("black ../outside.py /etc/hosts", (), ()),
        ("black src/__pycache__ node_modules/x.js", (), ()),
        ("python -m pytest", (), ()),
        ("make", (), ()),
    ],
)
def test_the_paths_a_command_line_names(
    ws: Path, command: str, files: tuple, folders: tuple
) -> None:
    assert named(command, str(ws)) == Named(files, folders)


def test_a_folder_named_is_watched_whole_and_what_changed_in_it_found(ws: Path) -> None:
    (ws / "a.py").chmod(0o644)
    watch = Watch.take(str(ws), "black src/ a.py")
    assert isinstance(watch, Watch)
    assert set(watch.before) == {"a.py", "src/b.py", "src/pkg/c.py"}

    (ws / "src" / "b.py").write_text("b = 2\n")
    (ws / "src" / "pkg" / "new.py").write_text("")
    (ws / "src" / "pkg" / "c.py").unlink()
    (ws / "a.py").chmod(0o755)  # the content is the same: the mode changed

    found = {c.path: c for c in watch.changes()}
    assert set(found) == {"a.py", "src/b.py", "src/pkg/c.py", "src/pkg/new.py"}
    assert (found["a.py"].old, found["a.py"].old_mode, found["a.py"].new_mode) == (
        b"a = 1\n",
        0o644,
        0o755,
    )
    assert (found["src/b.py"].old, found["src/b.py"].new) == (b"b = 1\n", b"b = 2\n")
    assert found["src/pkg/c.py"].new_hash is None  # deleted
    assert found["src/pkg/new.py"].old is None and found["src/pkg/new.py"].new == b""


def test_caches_and_ignored_files_a_command_makes_are_not_its_changes(ws: Path) -> None:
    (ws / ".gitignore").write_text("*.log\n")
    watch = Watch.take(str(ws), "python -m pytest src")
    assert isinstance(watch, Watch)
    (ws / "src" / "__pycache__").mkdir()
    (ws / "src" / "__pycache__" / "b.cpython-311.pyc").write_bytes(b"\0")
    (ws / "src" / "run.log").write_text("ran\n")
    assert watch.changes() == []


def test_a_command_that_changes_nothing_records_nothing(ws: Path) -> None:
    watch = Watch.take(str(ws), "black src")
    assert isinstance(watch, Watch)
    (ws / "src" / "b.py").write_text("b = 1\n")  # rewritten with the same bytes
    assert watch.changes() == [] and recorded([], str(ws)) is None


def test_a_line_naming_nothing_to_watch_holds_nothing(ws: Path) -> None:
    assert Watch.take(str(ws), "cat a.py src/b.py") is None
    assert Watch.take(str(ws), "make -j4 && npm ci") is None


def test_more_than_the_bounds_is_not_watched_at_all_and_says_why(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(command_changes, "WATCH_FILES", 2)
    assert Watch.take(str(ws), "black .") == "it names more than 2 files"
    monkeypatch.setattr(command_changes, "WATCH_FILES", 2_000)
    monkeypatch.setattr(command_changes, "WATCH_BYTES", 10)
    assert Watch.take(str(ws), "black .") == "the files it names hold more than 0 MiB"
    monkeypatch.setattr(command_changes, "WATCH_BYTES", 1 << 20)
    monkeypatch.setattr(command_changes, "FILE_MAX", 3)
    assert (
        Watch.take(str(ws), "black a.py") == "it names a.py, larger than the 0 MiB kept of a file"
    )


def test_a_file_grown_past_the_cap_is_still_compared_by_its_hash(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(command_changes, "FILE_MAX", 8)
    watch = Watch.take(str(ws), "black a.py")
    assert isinstance(watch, Watch)
    (ws / "a.py").write_text("a = 1\n" * 100)
    [changed] = watch.changes()
    assert changed.new is None and changed.new_hash is not None  # modified, not deleted
    record = recorded([changed], str(ws))
    assert record is not None
    assert record.meta["changes"][0]["status"] == "M"


def test_a_link_named_is_left_alone(ws: Path) -> None:
    os.symlink("a.py", ws / "link.py")
    assert named("black link.py", str(ws)) == Named((), ())


def test_what_the_result_records(ws: Path) -> None:
    watch = Watch.take(str(ws), "black src a.py && touch src/new.py")
    assert isinstance(watch, Watch)
    (ws / "a.py").write_text("a = 2\nb = 3\n")
    (ws / "src" / "new.py").write_text("n\n")
    record = recorded(watch.changes(), str(ws))
    assert record is not None
    assert (
        record.note
        == "[the command changed 2 files: M a.py (+2 \u22121), A src/new.py (+1 \u22120)]"
    )
    assert record.meta["files"] == ["a.py", "src/new.py"]
    assert [t["path"] for t in record.meta["targets"]] == ["a.py", "src/new.py"]
    assert record.meta["targets"][1]["pre"] is None  # created: undo deletes it
    assert list(record.kept.values()) == [b"a = 1\n"]


@pytest.mark.parametrize(
    ("line", "run"),
    [
        ("black src", "touch src/made0.py src/made1.py src/made2.py"),
        ("cp -r src backup", "cp -r src backup && touch backup/made.py"),  # a folder made
    ],
)
def test_a_command_that_made_more_than_the_bounds_records_nothing(
    ws: Path, monkeypatch: pytest.MonkeyPatch, line: str, run: str
) -> None:
    """What it did is only partly known: recording part would have undo put back part."""
    watch = Watch.take(str(ws), line)
    assert isinstance(watch, Watch)
    monkeypatch.setattr(command_changes, "WATCH_FILES", 2)
    subprocess.run(["sh", "-c", run], cwd=ws, check=True, timeout=60)
    assert watch.changes() == "it changed more than 2 files"

    monkeypatch.setattr(command_changes, "WATCH_FILES", 2_000)
    monkeypatch.setattr(command_changes, "FILE_MAX", 8)
    monkeypatch.setattr(command_changes, "HASH_MAX", 64)
    (ws / "src" / "b.py").write_bytes(b"x" * 100)
    assert watch.changes() == "it left a file larger than 0 MiB (b.py)"


def test_the_reading_of_a_line_stops_at_the_bound(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(command_words, "NAMES_MAX", 2)
    assert (
        named("black a.py src/b.py src/pkg/c.py src", str(ws)).over == "it names more than 2 files"
    )
    assert Watch.take(str(ws), "black a.py src/b.py src/pkg/c.py") == "it names more than 2 files"
    monkeypatch.setattr(command_words, "NAMES_MAX", 2_000)
    monkeypatch.setattr(command_words, "WORDS_MAX", 3)
    line = "black " + " ".join(f"new{i}.py" for i in range(4))  # each looked up once
    assert Watch.take(str(ws), line) == "its line has more than 3 words to look up as files"
    assert isinstance(Watch.take(str(ws), "black " + " a.py" * 100), Watch)  # one word


@pytest.mark.parametrize(
    ("command", "files", "folders"),
    [
        # a script given to an interpreter: the paths its string literals name
        (
            "python3 - <<'EOF'\nfrom pathlib import Path\np = Path(\"a.py\")\n"
            "p.write_text(p.read_text().replace('1', '2'))\nopen('src/new.txt', 'w')\nEOF",
            ("a.py", "src/new.txt"),
            (),
        ),
        ("python3 -c \"open('a.py', 'w').write('x')\"", ("a.py",), ()),
        (
            "cd src && node -e \"require('fs').writeFileSync('out.json', '{}')\"",
            ("src/out.json",),
            (),
        ),
        # code, messages and formats are no names; '.' is everywhere ('.'.join)
        ("python3 -c 'print(1.5)'", (), ()),
        ("python3 -c \"print('.'.join(['a', 'b']), f'{x}.py', 'see http://x.y/z')\"", (), ()),
    ],
)
def test_the_paths_a_script_given_on_the_line_names(
    ws: Path, command: str, files: tuple, folders: tuple
) -> None:
    assert named(command, str(ws)) == Named(files, folders)


def test_the_python_tool_s_code_is_read_for_the_paths_it_names(ws: Path) -> None:
    code = "for p in Path('src').rglob('*.py'):\n    p.write_text('x')\nopen('log.txt', 'a')\n"
    watch = Watch.take(str(ws), code, script=True)
    assert isinstance(watch, Watch)
    assert (watch.named.files, watch.named.folders) == (("a.py", "log.txt"), ("src",))


def test_a_script_is_read_linearly_and_only_so_far() -> None:
    from frontier.tools.command_words import SCRIPT_MAX, literal_words

    assert literal_words("'" + "x" * 10_000_000) == []  # no closing quote: bounded work
    assert literal_words(" " * SCRIPT_MAX + "'a.py'") == []


def test_a_command_run_again_outside_the_sandbox_records_both_runs_as_one() -> None:
    from frontier.tools.command_changes import both_runs

    def run(*targets: tuple[str, str | None, str | None]) -> dict:
        return {
            "files": [t[0] for t in targets],
            "changes": [{"path": t[0], "status": "M"} for t in targets],
            "targets": [{"path": p, "pre": a, "post": b, "mode": 0o644} for p, a, b in targets],
        }

    first = run(("a.py", "A", "B"), ("back.py", "X", "Y"))
    second = run(("a.py", "B", "C"), ("back.py", "Y", "X"), ("new.py", None, "N"))
    merged = both_runs(first, second)
    assert merged["files"] == ["a.py", "new.py"]  # back.py is where it began
    assert [(t["path"], t["pre"], t["post"]) for t in merged["targets"]] == [
        ("a.py", "A", "C"),
        ("new.py", None, "N"),
    ]
    assert both_runs(first, {"unwatched": "it names more than 2,000 files"}) == {
        "unwatched": "it names more than 2,000 files"
    }
    assert both_runs({}, {}) == {}


_SHELLISH = st.text(
    alphabet=st.sampled_from(list("ab.py/ -*?[]{}'\"\\$`~;&|<>()\n\t=%!#0123456789EOF")),
    max_size=300,
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command=_SHELLISH)
def test_any_line_is_read_without_an_error_and_names_only_the_workspace(
    ws: Path, command: str
) -> None:
    """A model's command is untrusted input: whatever its quoting, here-documents,
    redirections or globs, reading it raises nothing and names only paths beneath the
    root."""
    found = named(command, str(ws))
    assert isinstance(only_reads(command), bool)
    for rel in (*found.files, *found.folders):
        assert rel == "." or not (rel.startswith("/") or rel.split("/")[0] == "..")
        assert (ws / rel).resolve().is_relative_to(ws.resolve())
    assert all(isinstance(w, str) for w in literal_words(command))


def test_two_runs_taken_up_after_a_crash_count_from_before_the_first(ws: Path) -> None:
    """A command the sandbox stopped and the person let run outside runs twice, each run
    held; after a crash in the second both are compared with the files now. The first
    spans both runs: a file the first run made and the second removed, or put back as
    it was before the first, is no change (the second's view would take the first run's
    leftovers for what they were)."""
    from frontier.tools.command_changes import recovered

    line = "sh run.sh a.py out.tmp"
    first = Watch.take(str(ws), line)
    assert isinstance(first, Watch)
    (ws / "a.py").write_text("run 1\n")
    (ws / "out.tmp").write_text("left by run 1\n")
    second = Watch.take(str(ws), line)
    assert isinstance(second, Watch)
    (ws / "a.py").write_text("a = 1\n")  # the second run puts it back, removes out.tmp
    (ws / "out.tmp").unlink()
    records = [first.held(), second.held()]
    bodies = {h: b for _, kept in records for h, b in kept.items()}

    assert recovered(str(ws), [r for r, _ in records], bodies.get) is None
    (ws / "a.py").write_text("run 2\n")
    found = recovered(str(ws), [r for r, _ in records], bodies.get)
    assert found is not None and found.meta["targets"] == [
        {"path": "a.py", "pre": sha(b"a = 1\n"), "post": sha(b"run 2\n"), "mode": 0o644}
    ]


def sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"before": [["a.py", int("1" * 64), 0o644]]}, "no sha256"),  # SQLite cannot take it
        ({"folders": ["../.."]}, "not all relative paths"),
        ({"listed": ["ok"] * (command_changes.LISTED_MAX + 1)}, "not a list within the bound"),
        ({"before": [["a.py", "0" * 64, 0o170000]]}, "not permission bits"),
    ],
)
def test_a_held_record_frontier_would_not_make_is_refused_whole(
    ws: Path, change: dict[str, object], why: str
) -> None:
    held, _ = Watch.take(str(ws), "black a.py src").held()  # type: ignore[union-attr]
    with pytest.raises(ValueError, match=why):
        Watch.resumed(str(ws), {**held, **change}, lambda _: None)


def test_what_frontier_held_is_read_back_however_long_its_lists(ws: Path) -> None:
    """A record lists the files it met but could not hold and git's listing whole (2,000
    bounds what is held, not what is listed): one Frontier wrote is never refused."""
    held, bodies = Watch.take(str(ws), "black a.py").held()  # type: ignore[union-attr]
    many = [f"gone/{i}.py" for i in range(command_changes.WATCH_FILES + 100)]
    again = Watch.resumed(str(ws), {**held, "listed": many, "found": many}, bodies.get)
    assert again.before.keys() == {"a.py"} and len(again.listed) == len(many)


def test_folders_inside_another_are_walked_once() -> None:
    assert command_changes._outermost(("src/pkg", "src", "docs", "src", "docs/a/b")) == (
        "docs",
        "src",
    )
    assert command_changes._outermost(("src", ".", "x/y")) == (".",)


def test_a_file_name_not_in_utf8_is_held_and_read_back(tmp_path: Path) -> None:
    """Names come from the disk (a glob, a folder's walk, git's listing): a byte that is
    not UTF-8 must not keep the store from holding them (it would refuse the text)."""
    from frontier.app.session.journal import StoreJournal, held_files
    from frontier.app.session.store import SessionStore

    ws = tmp_path / "ws"
    ws.mkdir()
    odd = os.fsdecode(b"\xff.txt")
    (ws / odd).write_text("before\n")
    watch = Watch.take(str(ws), "black *.txt")
    assert isinstance(watch, Watch) and odd in watch.before
    with SessionStore.open(tmp_path / "s.db") as store:
        sid = store.create_session(str(ws), "m", None, "ctl")
        StoreJournal(store.db, sid, "c1").hold(*watch.held())
        (record,) = held_files(store.db, sid)["c1"]
        (ws / odd).write_text("after\n")
        again = Watch.resumed(str(ws), record, store.preimages.get)
        (change,) = again.changes()  # type: ignore[misc]
    assert (change.path, change.old) == (odd, b"before\n")


@pytest.mark.parametrize(
    ("line", "made"),
    [
        ("cp -r src backup", ["backup/b.py", "backup/pkg/c.py"]),
        ("mkdir -p out && sh gen.sh", ["out/one.txt", "out/sub/two.txt"]),
    ],
)
def test_a_folder_made_where_a_name_was_not_is_recorded_with_its_files(
    ws: Path, line: str, made: list[str]
) -> None:
    """Outside git a name the line gives a maker (`cp -r`, `mkdir`) that is a folder after
    the command is walked: its files are what the command created (in a git work tree
    git lists them)."""
    (ws / "gen.sh").write_text("mkdir -p out/sub; echo 1 > out/one.txt; echo 2 > out/sub/two.txt\n")
    watch = Watch.take(str(ws), line)
    assert isinstance(watch, Watch)
    subprocess.run(["sh", "-c", line], cwd=ws, check=True, timeout=60)
    found = watch.changes()
    assert isinstance(found, list)
    assert [(c.path, c.old_hash) for c in found] == [(p, None) for p in made]
