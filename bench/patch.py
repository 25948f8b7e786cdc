"""Patch corpus: Frontier's ``apply_patch`` vs ``git apply`` vs GNU ``patch`` on real diffs.

Usage:  .venv/bin/python bench/patch.py [--cache DIR] [--pairs six,click | NAME:V1:V2[:V3]]
            [--families git/plain,ambiguous,...] [--repeat N] [--show-failures]
            [--dump DIR] [--json OUT]

What it measures
----------------
Pass rates, per *family*, of three appliers run in the same process on the same
cases, and the speed of Frontier on the largest diff.

The corpus is built at run time from the sdists of a few pure-Python packages
(``PACKAGES``: consecutive releases, 2 pairs each), fetched once with
``pip download --no-binary :all: --no-deps`` into a cache outside the repo
(default ``~/.cache/frontier-bench-patch``). Only text files (``TEXT_SUFFIXES``)
that are valid UTF-8 are kept, written with default permissions, so the diffs
are about content. For every release pair two *base forms* are generated:

* ``git``: ``git diff --no-index --no-color -M``, rewritten to ``a/…``/``b/…``
  paths relative to the package root (renames included);
* ``gnu``: ``diff -ruN pkg-OLD pkg-NEW`` run from the parent directory, so both
  sides carry different top-level folders; created/deleted files carry epoch
  timestamps and ``-0,0``/``+0,0`` ranges. Applied with ``-p1`` semantics. (It
  cannot show an empty file being created or deleted, so for this form such a
  file is expected to stay as it was.)

Each base form is turned into six variants (family = form/variant):

* ``plain``: as generated; expected = the new release;
* ``shifted``: every non-zero hunk line number moved by a seeded ±3..±30
  (never below 1); expected = the new release;
* ``ws-file``: two trailing spaces added, in the OLD tree, to every line the
  patch uses as context; expected = the new release with the same lines (which
  we know from the hunk's new-side numbering) keeping those spaces, since
  context lines keep the file's version and added lines the patch's text;
* ``ws-patch``: two trailing spaces added to the patch's context lines only;
  expected = the new release exactly;
* ``ambiguous``: in each modified file one seeded hunk with at least 2 old
  lines whose old side is unique gets a useless ``@@ @@`` header, and a copy of
  its old side (context + removed lines) is inserted into the old file at least
  50 lines away, clear of every hunk (later headers of that file are moved by
  the inserted count so they stay exact); expected = the patch is rejected and
  the tree left byte-identical, and Frontier's message names both 1-based lines
  where the old side matches;
* ``useless-header``: the same hunks get ``@@ @@`` without the copy; expected =
  the new release (the hunk is located by content).

Every case runs each applier on a fresh copy of its old tree in a temp dir:
Frontier in-process (``apply_patch(root, patch_bytes)``; ``PatchError`` =
rejection, any other exception a failure), ``git apply -p1 PATCH`` (cwd = root,
``GIT_CEILING_DIRECTORIES`` set, no user/system git config) and
``patch -p1 -N --batch --forward -s -i PATCH``. A case passes when the whole
tree afterwards (file paths + bytes, and empty directories) equals the expected
one; leftover ``.orig``/``.rej`` files therefore fail, and are counted in a note.

Speed: on the largest ``git`` diff (bytes), Frontier's in-process ``apply_patch``
vs the whole-process ``git apply``, medians of ``--repeat`` runs, each on a fresh
copy flushed with ``sync`` before the clock starts (target ratio ≤ 3×); the same
for the ``git`` diff with the most hunks when that is another one.

Generated cases are cached as JSON next to the trees (``cases-vN/``); bump
``GEN_VERSION`` when the generator changes. ``--dump DIR`` writes each
Frontier failure as ``old/``, ``patch.diff``, ``expected/`` and a README with the
``frontier apply-patch`` command that reproduces it.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from frontier.tools.patch_engine import PatchError, apply_patch

PACKAGES: dict[str, list[str]] = {
    "six": ["1.15.0", "1.16.0", "1.17.0"],
    "click": ["8.1.5", "8.1.6", "8.1.7"],
    "requests": ["2.32.1", "2.32.2", "2.32.3"],
    "rich": ["13.6.0", "13.7.0", "13.7.1"],
    "attrs": ["23.1.0", "23.2.0", "24.1.0"],
    "packaging": ["23.1", "23.2", "24.0"],
    "idna": ["3.5", "3.6", "3.7"],
    "markdown": ["3.5", "3.5.1", "3.5.2"],
}
TEXT_SUFFIXES = {".py", ".md", ".rst", ".txt", ".cfg", ".toml", ".ini", ".in", ".yml", ".yaml"}
FORMS = ("git", "gnu")
TOOLS = ("frontier", "git", "patch")
VARIANTS = ("plain", "shifted", "ws-file", "ws-patch", "ambiguous", "useless-header")
GEN_VERSION = 2
FAR = 50
"""Minimum distance, in lines, between an ambiguous hunk and its inserted copy."""
HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)", re.S)
REPO = Path(__file__).resolve().parent.parent
PY = sys.executable
GIT_DIFF = ("git", "diff", "--no-index", "--no-color", "--no-ext-diff", "-M")
GIT_DIFF += ("--src-prefix=a/", "--dst-prefix=b/")
GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "LC_ALL": "C",
    "TZ": "UTC",
}


# --------------------------------------------------------------------------- corpus


def fetch(cache: Path, name: str, version: str) -> Path:
    """The release's text files (valid UTF-8 only) under ``cache/trees/NAME-VERSION``."""
    tree = cache / "trees" / f"{name}-{version}"
    if tree.is_dir():
        return tree
    dl = cache / "sdists" / f"{name}-{version}"
    found = [p for p in dl.glob("*") if p.suffix in (".gz", ".zip", ".bz2")] if dl.is_dir() else []
    if not found:
        dl.mkdir(parents=True, exist_ok=True)
        cmd = [PY, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps"]
        subprocess.run([*cmd, f"{name}=={version}", "-d", str(dl)], check=True)
        found = [p for p in dl.glob("*") if p.suffix in (".gz", ".zip", ".bz2")]
    tmp = cache / "trees" / f".{name}-{version}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if found[0].suffix == ".zip":
        with zipfile.ZipFile(found[0]) as z:
            z.extractall(tmp)
    else:
        with tarfile.open(found[0]) as tar:
            tar.extractall(tmp, filter="data")
    (top,) = list(tmp.iterdir())
    staging = tmp.with_name(f".{name}-{version}.staging")
    shutil.rmtree(staging, ignore_errors=True)
    for path in sorted(top.rglob("*")):
        if path.is_symlink() or not path.is_file() or path.suffix not in TEXT_SUFFIXES:
            continue
        data = path.read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        dest = staging / path.relative_to(top)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    shutil.rmtree(tmp)
    staging.rename(tree)
    return tree


def git_diff(old: Path, new: Path) -> str:
    res = subprocess.run(
        [*GIT_DIFF, old.name, new.name],
        cwd=old.parent,
        capture_output=True,
        env=GIT_ENV,
        check=False,
    )
    if res.returncode not in (0, 1):
        raise RuntimeError(res.stderr.decode(errors="replace"))
    either = f"(?:{re.escape(old.name)}|{re.escape(new.name)})"
    text = res.stdout.decode("utf-8")
    text = re.sub(
        rf"^diff --git a/{either}/(\S+) b/{either}/", r"diff --git a/\1 b/", text, flags=re.M
    )
    for head in ("--- a/", r"\+\+\+ b/", "rename from ", "rename to "):
        text = re.sub(rf"^({head}){either}/", r"\1", text, flags=re.M)
    return text


def gnu_diff(old: Path, new: Path) -> str:
    res = subprocess.run(
        ["diff", "-ruN", old.name, new.name],
        cwd=old.parent,
        capture_output=True,
        env=GIT_ENV,
        check=False,
    )
    if res.returncode not in (0, 1) or b"\nBinary files " in b"\n" + res.stdout:
        raise RuntimeError(res.stderr.decode(errors="replace") or "binary files in gnu diff")
    return res.stdout.decode("utf-8")


def split_lines(text: str) -> list[str]:
    """Lines split on ``\\n`` only (``str.splitlines`` also splits on ``\\r``, ``\\f``, …)."""
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def add_ws(line: str) -> str:
    """Two trailing spaces before the line's terminator (``\\r\\n``, ``\\n`` or none)."""
    for end in ("\r\n", "\n"):
        if line.endswith(end):
            return line[: -len(end)] + "  " + end
    return line + "  "


@dataclass
class Row:
    index: int
    """Line index in the patch."""
    kind: str
    old: int | None
    """1-based line in the old file (context and removed lines)."""
    new: int | None
    """1-based line in the new file (context and added lines)."""


@dataclass
class Hunk:
    header: int
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    tail: str
    old_count: bool
    new_count: bool
    rows: list[Row] = field(default_factory=list)
    marker: bool = False
    """The hunk has a ``\\ No newline at end of file`` line."""

    def span(self) -> tuple[int, int]:
        """Old side as 0-based ``[start, end)`` (an empty side sits after line ``old_start``)."""
        if self.old_len == 0:
            return self.old_start, self.old_start
        return self.old_start - 1, self.old_start - 1 + self.old_len

    def render(self, old_start: int | None = None, useless: bool = False) -> str:
        if useless:
            return "@@ @@\n"
        a = self.old_start if old_start is None else old_start
        old = f"{a},{self.old_len}" if self.old_count else f"{a}"
        new = f"{self.new_start},{self.new_len}" if self.new_count else f"{self.new_start}"
        return f"@@ -{old} +{new} @@{self.tail}"


@dataclass
class FileDiff:
    old: str | None
    """Path in the old tree (None: created)."""
    new: str | None
    """Path in the new tree (None: deleted)."""
    hunks: list[Hunk] = field(default_factory=list)


def parse(lines: list[str], form: str, old_tree: Path, new_tree: Path) -> list[FileDiff]:
    """Our own small unified-diff reader (independent of the engine under test)."""

    def rel(raw: str, tree: Path) -> str | None:
        path = raw[4:].rstrip("\n").split("\t")[0]
        if path == "/dev/null":
            return None
        path = path.split("/", 1)[1]
        return path if (tree / path).is_file() else None

    files: list[FileDiff] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            files.append(FileDiff(rel(line, old_tree), rel(lines[i + 1], new_tree)))
            i += 2
            continue
        m = HUNK.fullmatch(line)
        if not m or not files:
            i += 1
            continue
        a, b, c, d = m.group(1), m.group(2), m.group(3), m.group(4)
        h = Hunk(
            i, int(a), int(b or 1), int(c), int(d or 1), m.group(5), b is not None, d is not None
        )
        o, n, left_o, left_n = h.old_start, h.new_start, h.old_len, h.new_len
        i += 1
        while i < len(lines) and (left_o or left_n or lines[i].startswith("\\")):
            kind = lines[i][0]
            if kind == "\\":
                h.marker = True
            elif kind == " ":
                h.rows.append(Row(i, kind, o, n))
                o, n, left_o, left_n = o + 1, n + 1, left_o - 1, left_n - 1
            elif kind == "-":
                h.rows.append(Row(i, kind, o, None))
                o, left_o = o + 1, left_o - 1
            elif kind == "+":
                h.rows.append(Row(i, kind, None, n))
                n, left_n = n + 1, left_n - 1
            else:
                raise ValueError(f"{form} diff: bad hunk line {i + 1}: {lines[i]!r}")
            i += 1
        files[-1].hunks.append(h)
    return files


def content(patch_line: str, marker_follows: bool) -> str:
    """The file line a patch line stands for."""
    text = patch_line[1:]
    return text[:-1] if marker_follows and text.endswith("\n") else text


def count_at(lines: list[str], block: list[str], loose: bool = False) -> list[int]:
    """0-based starts where ``block`` occurs in ``lines`` (overlaps included)."""

    def key(s: str) -> str:
        return s.rstrip(" \t\r\n\f\v") if loose else s

    hay, needle = [key(s) for s in lines], [key(s) for s in block]
    return [
        i
        for i in range(len(hay) - len(needle) + 1)
        if hay[i] == needle[0] and hay[i : i + len(needle)] == needle
    ]


@dataclass
class Case:
    family: str
    pair: str
    old: str
    """Base old tree (``cache/trees/<old>``)."""
    new: str
    patch: str
    old_over: dict[str, str] = field(default_factory=dict)
    """Files of the old tree replaced for this case."""
    expect: str = "new"
    """``new``: the new tree; ``old``: the (modified) old tree, i.e. a rejection."""
    expect_over: dict[str, str] = field(default_factory=dict)
    expect_drop: list[str] = field(default_factory=list)
    """New-tree files the diff cannot create (``diff -N`` shows no empty new file)."""
    matches: list[tuple[str, int, int]] = field(default_factory=list)
    """For ``ambiguous``: (path, line, line) where each made-ambiguous old side matches."""


def make_cases(cache: Path, name: str, v_old: str, v_new: str) -> list[Case]:
    """All families of one release pair, from the cache when already generated."""
    pair = f"{name} {v_old}->{v_new}"
    store = cache / f"cases-v{GEN_VERSION}" / f"{name}-{v_old}-{v_new}.json"
    if store.is_file():
        return [Case(**c) for c in json.loads(store.read_text("utf-8"))]
    old, new = fetch(cache, name, v_old), fetch(cache, name, v_new)
    cases: list[Case] = []
    for form, text in (("git", git_diff(old, new)), ("gnu", gnu_diff(old, new))):
        lines = split_lines(text)
        files = parse(lines, form, old, new)

        # GNU diff -N shows no empty file created or deleted: expect what the diff says.
        said = {p for f in files for p in (f.old, f.new) if p}
        o_files = {p.relative_to(old).as_posix() for p in old.rglob("*") if p.is_file()}
        n_files = {p.relative_to(new).as_posix() for p in new.rglob("*") if p.is_file()}
        unsaid_new = sorted(n_files - o_files - said) if form == "gnu" else []
        unsaid_old = sorted(o_files - n_files - said) if form == "gnu" else []

        def case(
            variant: str,
            patch: list[str],
            old_over: dict[str, str] | None = None,
            expect_over: dict[str, str] | None = None,
            matches: list[tuple[str, int, int]] | None = None,
            _form: str = form,
            _drop: list[str] = unsaid_new,
            _keep: list[str] = unsaid_old,
        ) -> None:
            c = Case(f"{_form}/{variant}", pair, old.name, new.name, "".join(patch))
            c.old_over = old_over or {}
            if matches:  # a rejection: expect the modified old tree
                c.expect, c.expect_over, c.matches = "old", c.old_over, matches
            else:
                c.expect_over = {**dict.fromkeys(_keep, ""), **(expect_over or {})}
                c.expect_drop = _drop
            cases.append(c)

        def rng(variant: str, _form: str = form) -> random.Random:
            return random.Random(f"{pair}/{_form}/{variant}")

        def read(tree: Path, path: str) -> list[str]:
            return split_lines((tree / path).read_bytes().decode("utf-8"))

        case("plain", lines)

        r = rng("shifted")
        out = list(lines)
        for f in files:
            for h in f.hunks:
                d = r.choice((-1, 1)) * r.randint(3, 30)
                a = max(1, h.old_start + d) if h.old_start else 0
                c = max(1, h.new_start + d) if h.new_start else 0
                out[h.header] = Hunk(
                    h.header, a, h.old_len, c, h.new_len, h.tail, h.old_count, h.new_count
                ).render()
        case("shifted", out)

        old_over: dict[str, str] = {}
        exp_over: dict[str, str] = {}
        for f in files:
            if f.old is None or f.new is None or not f.hunks:
                continue
            o_lines, n_lines = read(old, f.old), read(new, f.new)
            for h in f.hunks:
                for r_ in h.rows:
                    if r_.kind != " ":
                        continue
                    assert r_.old is not None and r_.new is not None
                    was = o_lines[r_.old - 1]
                    assert was == n_lines[r_.new - 1], (pair, form, f.old, r_)
                    last = r_.index + 1 < len(lines) and lines[r_.index + 1].startswith("\\")
                    assert was == content(lines[r_.index], last), (pair, form, f.old, r_)
                    o_lines[r_.old - 1] = add_ws(was)
                    n_lines[r_.new - 1] = add_ws(was)
            old_over[f.old] = "".join(o_lines)
            exp_over[f.new] = "".join(n_lines)
        case("ws-file", lines, old_over, exp_over)

        out = list(lines)
        for f in files:
            for h in f.hunks:
                for r_ in h.rows:
                    if r_.kind == " ":
                        out[r_.index] = add_ws(lines[r_.index])
        case("ws-patch", out)

        r = rng("ambiguous")
        amb, useless = list(lines), list(lines)
        old_over, matches = {}, []
        for f in files:
            if f.old is None or f.new is None or not f.hunks:
                continue
            o_lines = read(old, f.old)
            picked = pick_ambiguous(f, o_lines, lines, r)
            if picked is None:
                continue
            h, k = picked
            s0, e0 = h.span()
            block = o_lines[s0:e0]
            new_lines = o_lines[:k] + block + o_lines[k:]
            assert count_at(new_lines, block) == count_at(new_lines, block, True)
            assert len(count_at(new_lines, block)) == 2
            m = len(block)
            for other in f.hunks:
                if other is h:
                    continue
                if other.span()[0] >= k:
                    amb[other.header] = other.render(old_start=other.old_start + m)
            amb[h.header] = useless[h.header] = h.render(useless=True)
            old_over[f.old] = "".join(new_lines)
            at = s0 + 1 + (m if k <= s0 else 0)
            matches.append((f.old, min(at, k + 1), max(at, k + 1)))
        if matches:
            case("ambiguous", amb, old_over, matches=matches)
            case("useless-header", useless)
    store.parent.mkdir(parents=True, exist_ok=True)
    tmp = store.with_suffix(".tmp")
    tmp.write_text(json.dumps([asdict(c) for c in cases]), "utf-8")
    tmp.replace(store)
    return cases


def pick_ambiguous(
    f: FileDiff, o_lines: list[str], lines: list[str], r: random.Random
) -> tuple[Hunk, int] | None:
    """A seeded hunk of ``f`` whose old side (≥ 2 lines, no ``\\`` marker, no body line that
    would read as a file header without counts) is unique in the old file, and a line
    boundary at least ``FAR`` lines away, clear of every hunk, where to insert its copy."""
    n = len(o_lines)
    spans = [h.span() for h in f.hunks]
    bad_eof = any(e == n for _, e in spans) or (n and not o_lines[-1].endswith("\n"))
    candidates = [h for h in f.hunks if h.old_len >= 2 and not h.marker]
    r.shuffle(candidates)
    for h in candidates:
        if any(lines[x.index].startswith(("---", "+++")) for x in h.rows):
            continue
        s0, e0 = h.span()
        block = o_lines[s0:e0]
        if len(count_at(o_lines, block)) != 1 or len(count_at(o_lines, block, True)) != 1:
            continue
        best: tuple[int, int] | None = None
        for k in range(1, n + 1):
            if (k == n and bad_eof) or any(s <= k <= e for s, e in spans):
                continue
            dist = min(abs(k - s0), abs(k - e0))
            if dist >= FAR and (best is None or dist >= best[0]):
                best = (dist, k)
        if best is None:
            continue
        k = best[1]
        trial = o_lines[:k] + block + o_lines[k:]
        if len(count_at(trial, block)) == 2 and len(count_at(trial, block, True)) == 2:
            return h, k
    return None


# --------------------------------------------------------------------------- running


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file's bytes by relative path, plus empty directories (``dir/`` → None)."""
    out: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root).as_posix()
        if not dirnames and not filenames and rel != ".":
            out[rel + "/"] = None
        for name in filenames:
            p = Path(dirpath, name)
            key = (p.relative_to(root)).as_posix()
            out[key] = b"symlink:" + os.readlink(p).encode() if p.is_symlink() else p.read_bytes()
    return out


class Corpus:
    def __init__(self, cache: Path) -> None:
        self.cache = cache
        self._snaps: dict[str, dict[str, bytes | None]] = {}

    def base(self, tree: str) -> dict[str, bytes | None]:
        if tree not in self._snaps:
            self._snaps[tree] = snapshot(self.cache / "trees" / tree)
        return self._snaps[tree]

    def materialize(self, case: Case, dest: Path, sync: bool = False) -> None:
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(self.cache / "trees" / case.old, dest)
        for path, text in case.old_over.items():
            (dest / path).write_bytes(text.encode("utf-8"))
        if sync:
            os.sync()

    def expected(self, case: Case) -> dict[str, bytes | None]:
        snap = dict(self.base(case.new if case.expect == "new" else case.old))
        for path, text in case.expect_over.items():
            snap[path] = text.encode("utf-8")
        for path in case.expect_drop:
            snap.pop(path, None)
        return snap


@dataclass
class Outcome:
    status: str
    """``applied``, ``rejected`` or ``error`` (Frontier raised something else)."""
    message: str = ""
    passed: bool = False
    why: str = ""
    """For a failure: what was wrong."""
    leftovers: int = 0
    """``.orig``/``.rej`` files left in the tree."""


def run_frontier(root: Path, patch: bytes) -> Outcome:
    try:
        apply_patch(root, patch)
    except PatchError as e:
        return Outcome("rejected", str(e))
    except Exception as e:
        return Outcome("error", f"{type(e).__name__}: {e}")
    return Outcome("applied")


def run_git(root: Path, patch_file: Path) -> Outcome:
    env = {**GIT_ENV, "GIT_CEILING_DIRECTORIES": str(root.parent)}
    res = subprocess.run(
        ["git", "apply", "-p1", str(patch_file)],
        cwd=root,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    status = "applied" if res.returncode == 0 else "rejected"
    return Outcome(status, res.stderr.decode(errors="replace"))


def run_patch(root: Path, patch_file: Path) -> Outcome:
    res = subprocess.run(
        ["patch", "-p1", "-N", "--batch", "--forward", "-s", "-i", str(patch_file)],
        cwd=root,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    status = "applied" if res.returncode == 0 else "rejected"
    text = (res.stdout + res.stderr).decode(errors="replace")
    return Outcome(status, text)


def tree_diff(got: dict[str, bytes | None], want: dict[str, bytes | None]) -> str:
    """Which paths differ, and the first differing line of the first changed file."""
    paths = sorted(p for p in got.keys() | want.keys() if got.get(p, b"?") != want.get(p, b"?"))
    shown = ", ".join(
        p + (" (extra)" if p not in want else " (missing)" if p not in got else "")
        for p in paths[:4]
    )
    more = f" +{len(paths) - 4} more" if len(paths) > 4 else ""
    detail = ""
    for p in paths:
        a, b = got.get(p), want.get(p)
        if a is not None and b is not None:
            la, lb = a.split(b"\n"), b.split(b"\n")
            i = next((i for i, (x, y) in enumerate(zip(la, lb, strict=False)) if x != y), None)
            if i is None:
                i = min(len(la), len(lb))
            x = la[i] if i < len(la) else b"<eof>"
            y = lb[i] if i < len(lb) else b"<eof>"
            detail = f"; {p}:{i + 1} got {x[:70]!r} want {y[:70]!r}"
            break
    return f"tree differs: {shown}{more}{detail}"


def judge(case: Case, out: Outcome, got: dict[str, bytes | None], want: dict, frontier: bool):
    out.leftovers = sum(1 for p in got if p.endswith((".orig", ".rej")) and p not in want)
    same = got == want
    if case.expect == "old":
        if out.status == "applied":
            out.why = "applied (should reject)"
        elif out.status == "error":
            out.why = "crashed"
        elif not same:
            out.why = "rejected but the tree changed: " + tree_diff(got, want)
        elif frontier and not any(
            re.search(rf"(?<!\d){a}(?!\d)", out.message)
            and re.search(rf"(?<!\d){b}(?!\d)", out.message)
            for _, a, b in case.matches
        ):
            out.why = "rejected without naming both matching lines"
        else:
            out.passed = True
    elif out.status != "applied":
        out.why = "crashed" if out.status == "error" else "rejected"
    elif not same:
        out.why = "applied, wrong result: " + tree_diff(got, want)
    else:
        out.passed = True
    return out


def patch_paths(case: Case) -> list[str]:
    found = re.findall(r"^(?:---|\+\+\+) (\S+)", case.patch, flags=re.M)
    return sorted({p.split("/", 1)[1] for p in found if "/" in p and p != "/dev/null"})


def failing_file(case: Case, out: Outcome) -> str:
    if out.why.startswith(("applied, wrong", "rejected but")):
        m = re.search(r"tree differs: (\S+?)(?:,| |;|$)", out.why)
        return m.group(1) if m else "-"
    hits = [p for p in patch_paths(case) if p in out.message]
    return max(hits, key=len) if hits else "-"


def dump_case(dump: Path, n: int, case: Case, corpus: Corpus, out: Outcome) -> None:
    name = f"{n:03d}-{case.family.replace('/', '_')}-{case.pair.replace(' ', '-')}"
    name = name.replace("->", "_to_")
    d = dump / name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    corpus.materialize(case, d / "old")
    (d / "patch.diff").write_bytes(case.patch.encode("utf-8"))
    exp = d / "expected"
    for path, data in corpus.expected(case).items():
        target = exp / path
        if data is None:
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    expect = (
        "REJECTED, tree unchanged, message naming lines "
        + "; ".join(f"{p}: {a} and {b}" for p, a, b in case.matches)
        if case.expect == "old"
        else "applied, tree == expected/"
    )
    (d / "README").write_text(
        f"family {case.family}, pair {case.pair}\nexpected: {expect}\n"
        f"frontier: {out.status}: {out.why}\n\n{out.message}\n\n"
        "reproduce:\n  rm -rf /tmp/repro && cp -r old /tmp/repro && "
        "frontier apply-patch --root /tmp/repro < patch.diff; diff -r /tmp/repro expected\n",
        "utf-8",
    )


def time_case(corpus: Corpus, big: Case, repeat: int, work: Path) -> dict:
    """Frontier in-process vs whole-process ``git apply``, fresh synced copy each run."""
    files = len(re.findall(r"^diff --git ", big.patch, flags=re.M))
    hunks = len(re.findall(r"^@@ ", big.patch, flags=re.M))
    root, patch_file = work / "timed", work / "timed.diff"
    data = big.patch.encode("utf-8")
    patch_file.write_bytes(data)
    want = corpus.expected(big)
    ours, theirs, ok_ours, ok_git = [], [], True, True
    for _ in range(repeat):
        corpus.materialize(big, root, sync=True)
        t0 = time.perf_counter()
        out = run_frontier(root, data)
        ours.append(time.perf_counter() - t0)
        ok_ours = ok_ours and out.status == "applied" and snapshot(root) == want
        corpus.materialize(big, root, sync=True)
        t0 = time.perf_counter()
        out = run_git(root, patch_file)
        theirs.append(time.perf_counter() - t0)
        ok_git = ok_git and out.status == "applied" and snapshot(root) == want
    o_ms, g_ms = statistics.median(ours) * 1000, statistics.median(theirs) * 1000
    return {
        "pair": big.pair,
        "bytes": len(big.patch.encode("utf-8")),
        "files": files,
        "hunks": hunks,
        "frontier_ms": o_ms,
        "git_apply_ms": g_ms,
        "ratio": o_ms / g_ms,
        "frontier_ok": ok_ours,
        "git_ok": ok_git,
        "repeat": repeat,
    }


# --------------------------------------------------------------------------- main


def select_pairs(spec: list[str] | None) -> list[tuple[str, str, str]]:
    tokens = [t for s in spec or [] for t in s.split(",") if t]
    chains: list[tuple[str, list[str]]] = []
    for t in tokens or list(PACKAGES):
        name, *versions = t.split(":")
        if not versions:
            if name not in PACKAGES:
                raise SystemExit(f"unknown package {name!r} (known: {', '.join(PACKAGES)})")
            versions = PACKAGES[name]
        chains.append((name, versions))
    return [(n, v[i], v[i + 1]) for n, v in chains for i in range(len(v) - 1)]


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument(
        "--cache",
        type=Path,
        default=Path.home() / ".cache/frontier-bench-patch",
        metavar="DIR",
        help="sdists, trees and generated cases (outside the repo; default %(default)s)",
    )
    ap.add_argument("--pairs", nargs="*", metavar="NAME[:V1:V2...]", help="comma-separated too")
    ap.add_argument("--families", help="comma-separated families, forms or variants")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs (0: no timing)")
    ap.add_argument("--show-failures", action="store_true")
    ap.add_argument("--dump", type=Path, metavar="DIR", help="write each Frontier failure here")
    ap.add_argument("--json", type=Path, metavar="OUT")
    opts = ap.parse_args()
    cache = opts.cache.expanduser().resolve()
    if cache == REPO or REPO in cache.parents:
        raise SystemExit(f"--cache must be outside the repository ({REPO})")
    wanted = {t for t in (opts.families or "").split(",") if t}

    def keep(family: str) -> bool:
        form, variant = family.split("/")
        return not wanted or bool(wanted & {family, form, variant})

    started = time.perf_counter()
    corpus = Corpus(cache)
    every: list[Case] = []
    for name, v_old, v_new in select_pairs(opts.pairs):
        every += make_cases(cache, name, v_old, v_new)
    cases = [c for c in every if keep(c.family)]
    order = {f"{f}/{v}": i for i, (f, v) in enumerate((f, v) for f in FORMS for v in VARIANTS)}
    cases.sort(key=lambda c: order[c.family])
    built = time.perf_counter() - started

    results: list[tuple[Case, dict[str, Outcome]]] = []
    work = Path(tempfile.mkdtemp(prefix="frontier-bench-patch-"))
    try:
        root, patch_file = work / "root", work / "case.diff"
        for case in cases:
            data = case.patch.encode("utf-8")
            patch_file.write_bytes(data)
            want = corpus.expected(case)
            outs: dict[str, Outcome] = {}
            for tool in TOOLS:
                corpus.materialize(case, root)
                if tool == "frontier":
                    out = run_frontier(root, data)
                elif tool == "git":
                    out = run_git(root, patch_file)
                else:
                    out = run_patch(root, patch_file)
                outs[tool] = judge(case, out, snapshot(root), want, tool == "frontier")
            results.append((case, outs))
        plain = [c for c in every if c.family == "git/plain"]
        largest = max(plain, key=lambda c: len(c.patch))
        most = max(plain, key=lambda c: c.patch.count("\n@@ "))
        timing = []
        for label, c in (("largest diff", largest), ("most hunks", most)):
            if opts.repeat > 0 and (label == "largest diff" or most is not largest):
                timing.append({"label": label, **time_case(corpus, c, opts.repeat, work)})
    finally:
        shutil.rmtree(work, ignore_errors=True)

    tools = TOOLS
    families = list(dict.fromkeys(c.family for c, _ in results))
    print(f"{'family':<22}{'cases':>6}   {'Frontier':<14}{'git apply':<14}{'patch':<14}")

    def cell(rows: list[dict[str, Outcome]], tool: str) -> str:
        n = sum(r[tool].passed for r in rows)
        return f"{n:>3} {100 * n / len(rows):5.1f}%".ljust(14)

    for fam in [*families, "total"]:
        rows = [o for c, o in results if fam in ("total", c.family)]
        if fam == "total":
            print("-" * 70)
        print(f"{fam:<22}{len(rows):>6}   " + "".join(cell(rows, t) for t in tools))
    left = [c.family for c, o in results if o["patch"].leftovers]
    if left:
        print(
            f"note: patch left .orig/.rej files in {len(left)} cases (counted as failures): "
            + ", ".join(f"{f} {n}" for f, n in Counter(left).items())
        )
    print()
    for t in timing:
        print(
            f"{t['label']}: {t['pair']} (git form, {t['bytes'] / 1024:.0f} KiB): "
            f"{t['files']} files, {t['hunks']} hunks; Frontier in-process "
            f"{t['frontier_ms']:.1f} ms{'' if t['frontier_ok'] else ' (FAILED)'}, "
            f"git apply whole-process {t['git_apply_ms']:.1f} ms"
            f"{'' if t['git_ok'] else ' (FAILED)'}, ratio {t['ratio']:.2f}x "
            f"(target <= 3x; medians of {t['repeat']}, fresh synced copy each run)"
        )

    fails = [(c, o["frontier"]) for c, o in results if not o["frontier"].passed]
    if fails:
        print("\nFrontier failures by kind:")
        kinds = Counter((c.family, re.sub(r":.*", "", o.why)) for c, o in fails)
        for (fam, why), n in sorted(kinds.items(), key=lambda x: order[x[0][0]]):
            print(f"  {fam:<22}{n:>4}  {why}")
    if opts.show_failures and fails:
        print("\nFrontier failures:")
        for c, o in fails:
            text = (o.message or o.why) if o.why in ("rejected", "crashed") else o.why
            if o.why.startswith("rejected without") or o.why.startswith("applied (should"):
                where = "; ".join(f"{p}: {a} and {b}" for p, a, b in c.matches)
                text = f"{o.why} [{where}]: {o.message}"
            text = " ".join(text.split())
            print(f"  {c.family:<22} {c.pair:<26} {failing_file(c, o)}\n      {text[:300]}")
    if opts.dump and fails:
        for n, (c, o) in enumerate(fails):
            dump_case(opts.dump, n, c, corpus, o)
        print(f"\n{len(fails)} failing cases written to {opts.dump}")
    if opts.json:
        report = {
            "summary": {
                fam: {
                    "cases": len(rows := [o for c, o in results if fam in ("total", c.family)]),
                    **{t: sum(r[t].passed for r in rows) for t in tools},
                }
                for fam in [*families, "total"]
            },
            "timing": timing,
            "cases": [
                {"family": c.family, "pair": c.pair, **{t: asdict(o[t]) for t in tools}}
                for c, o in results
            ],
        }
        opts.json.write_text(json.dumps(report, indent=1), "utf-8")
    print(
        f"\n{len(results)} cases from {len({c.pair for c in cases})} release pairs "
        f"(corpus {built:.1f} s, total {time.perf_counter() - started:.1f} s; cache {cache})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
