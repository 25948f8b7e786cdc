"""A file named on macOS keeps its name decomposed (NFD: ``e`` then U+0301), and a model
writes it composed (NFC: ``é``): ``read`` found no such file, and ``write`` made a second
file that looks like the first (``beneath._composed_twin``)."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest
from test_tools_fakes import call, make_boundary


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / nfd("Résumé")).mkdir()
    (tmp_path / nfd("Résumé") / nfd("café.py")).write_text("x = 1\n")
    return tmp_path


async def test_a_composed_name_reads_and_edits_the_decomposed_file(ws: Path) -> None:
    b = make_boundary(ws)
    path = "Résumé/café.py"  # composed, as a model writes it
    assert path != nfd(path)
    r = await b.run(call("read", path=path))
    assert r.kind == "ok" and "x = 1" in r.output, r.output
    r = await b.run(call("replace", 2, path=path, old="x = 1", new="x = 2"))
    assert r.kind == "ok", r.output
    r = await b.run(call("write", 3, path=path, content="x = 3\n"))
    assert r.kind == "ok", r.output
    assert os.listdir(ws) == [nfd("Résumé")]
    assert os.listdir(ws / nfd("Résumé")) == [nfd("café.py")]
    assert (ws / nfd("Résumé") / nfd("café.py")).read_text() == "x = 3\n"


async def test_a_new_name_is_made_as_written_and_two_twins_on_disk_are_left_alone(
    ws: Path,
) -> None:
    b = make_boundary(ws)
    assert (await b.run(call("write", path="Résumé/naïve.py", content="n\n"))).kind == "ok"
    assert "naïve.py" in os.listdir(ws / nfd("Résumé"))  # nothing to match: as written
    (ws / nfd("Résumé") / "café.py").write_text("composed\n")  # both forms exist now
    r = await b.run(call("read", 2, path=nfd("Résumé/café.py")))
    assert "x = 1" in r.output  # each form names its own file
    r = await b.run(call("read", 3, path="Résumé/café.py"))
    assert "composed" in r.output


@pytest.mark.parametrize("pattern", ["Résumé/caf*", "**/café.py", nfd("Résumé/caf*")])
async def test_a_glob_written_either_way_finds_the_file_and_grep_filters_by_it(
    ws: Path, pattern: str
) -> None:
    """``glob`` with ``café*`` found nothing of a decomposed ``café.py``, and grep's
    ``glob`` filter skipped it."""
    b = make_boundary(ws)
    r = await b.run(call("glob", pattern=pattern))
    listed = unicodedata.normalize("NFC", r.output).splitlines()
    assert r.kind == "ok" and listed == ["Résumé/café.py", "[1 file]"], r.output
    r = await b.run(call("grep", 2, pattern="x = 1", glob=pattern))
    assert r.kind == "ok" and "[1 match in 1 file]" in r.output, r.output


@pytest.fixture
def latin1(tmp_path: Path) -> Path:
    """A file whose name is Latin-1 bytes, not UTF-8 (an old archive's ``café.txt``)."""
    try:
        fd = os.open(os.path.join(os.fsencode(tmp_path), b"caf\xe9.txt"), os.O_CREAT | os.O_WRONLY)
    except OSError as exc:  # a file system that takes UTF-8 names only (APFS)
        pytest.skip(f"this file system refuses a name that is not UTF-8: {exc}")
    os.write(fd, b"old = 1\n")
    os.close(fd)
    return tmp_path


async def test_a_name_that_is_not_utf8_is_read_and_edited_as_it_was_shown(latin1: Path) -> None:
    """``glob`` shows it as ``caf\\ufffd.txt``; that name, written back, named nothing, so
    the file could be listed but never read or edited."""
    b = make_boundary(latin1)
    listed = await b.run(call("glob", pattern="*.txt"))
    assert "caf\ufffd.txt" in listed.output
    r = await b.run(call("read", 2, path="caf\ufffd.txt"))
    assert r.kind == "ok" and "old = 1" in r.output, r.output
    r = await b.run(call("replace", 3, path="caf\ufffd.txt", old="old = 1", new="new = 2"))
    assert r.kind == "ok", r.output
    assert os.listdir(os.fsencode(latin1)) == [b"caf\xe9.txt"]  # no second file
    assert (latin1 / os.fsdecode(b"caf\xe9.txt")).read_text() == "new = 2\n"
