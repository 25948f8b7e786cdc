"""apply_patch vs ``git apply`` on real multi-file diffs between released package versions.

Usage:  .venv/bin/python bench/patch.py [--repeat N] [--cache DIR] [--unsynced]
                                        [--pairs NAME:OLD:NEW ...]

For each pair the sdists are fetched once with ``pip download --no-deps
--no-binary :all:`` into a cache under /tmp (never committed), their text files
are diffed with ``git diff --no-index -M``, and in the same run we measure:

* time: in-process ``apply_patch`` (what the agent pays) vs the whole-process
  time of ``git apply`` on the same patch and tree (median of N fresh copies);
* correctness: the patched tree equals the new version byte for byte;
* robustness: success rate with every hunk header shifted by ±12 lines, and
  with trailing whitespace added to every context line (git apply has no
  tolerance for the latter unless told ``--ignore-whitespace``);
* where our time goes: unidiff parse, locating every hunk (read + resolve +
  match + build), and the durable commit (re-check, temps + fsync, renames,
  directory fsyncs, read-back), medians of N;
* start-up: ``frontier apply-patch --dry-run`` on a one-line patch vs
  ``python -c "import unidiff"`` (same interpreter);
* the approval preview (``PatchPlan.preview()``, computed before the review can
  open): ours, rendered from the located hunks, vs the previous method (difflib
  over every whole file), medians of N on the same plan; "exact" = all preview
  diffs together, applied by our engine to the old tree, place every hunk at its
  ``@@`` line and give the new release's bytes.

Every timed run gets a fresh copy of the old tree, flushed with ``sync`` before
the clock starts (``--unsynced`` skips that: both sides then also compete with
the copy's own writeback, which a real workspace does not have).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from frontier.tools.contract import FilePreview
from frontier.tools.diffing import NO_NEWLINE, decode
from frontier.tools.patch_engine import (
    FileChange,
    PatchError,
    PatchPlan,
    apply_patch,
    apply_plan,
    plan_patch,
)
from frontier.tools.patch_parse import parse_patch

PAIRS = [
    ("six", "1.15.0", "1.16.0"),
    ("click", "8.1.3", "8.1.7"),
    ("requests", "2.31.0", "2.32.3"),
    ("rich", "13.5.2", "13.7.1"),
]
TEXT_SUFFIXES = {".py", ".md", ".rst", ".txt", ".cfg", ".toml", ".ini", ".in", ".yml", ".yaml"}
HEADER = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", re.M)
PY = sys.executable


def fetch(cache: Path, name: str, version: str) -> Path:
    tree = cache / "trees" / f"{name}-{version}"
    if tree.is_dir():
        return tree
    sdists = cache / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    found = list(sdists.glob(f"{name}-{version}.tar.gz"))
    if not found:
        subprocess.run(
            [
                PY,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                str(sdists),
                f"{name}=={version}",
            ],
            check=True,
        )
        found = list(sdists.glob(f"{name}-{version}.tar.gz"))
    tmp = cache / "trees" / f".{name}-{version}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    with tarfile.open(found[0]) as tar:
        tar.extractall(tmp, filter="data")
    (top,) = list(tmp.iterdir())
    tree.mkdir(parents=True)
    for path in sorted(top.rglob("*")):
        if path.is_file() and path.suffix in TEXT_SUFFIXES and "PKG-INFO" not in path.name:
            dest = tree / path.relative_to(top)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest)
    shutil.rmtree(tmp)
    return tree


def make_patch(cache: Path, old: Path, new: Path) -> str:
    res = subprocess.run(
        [
            "git",
            "diff",
            "--no-index",
            "--no-color",
            "-M",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            old.name,
            new.name,
        ],
        cwd=old.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    if res.returncode not in (0, 1):
        raise RuntimeError(res.stderr)
    either = f"(?:{re.escape(old.name)}|{re.escape(new.name)})"
    text = res.stdout
    text = re.sub(
        rf"^diff --git a/{either}/(\S+) b/{either}/", r"diff --git a/\1 b/", text, flags=re.M
    )
    for head in ("--- a/", r"\+\+\+ b/", "rename from ", "rename to "):
        text = re.sub(rf"^({head}){either}/", r"\1", text, flags=re.M)
    return text


def shifted(patch: str, seed: int) -> str:
    rng = random.Random(seed)

    def move(m: re.Match[str]) -> str:
        a, c = int(m.group(1)), int(m.group(3))
        if a == 0:
            return m.group(0)
        d = rng.choice([-12, -6, 6, 12])
        return f"@@ -{max(1, a + d)}{m.group(2) or ''} +{max(1, c + d)}{m.group(4) or ''} @@"

    return HEADER.sub(move, patch)


def trailing_ws(patch: str) -> str:
    out = []
    in_hunk = False
    for line in patch.splitlines(True):
        if line.startswith("@@"):
            in_hunk = True
        elif line.startswith("diff --git"):
            in_hunk = False
        if in_hunk and line.startswith(" ") and line.endswith("\n"):
            line = line[:-1] + "  \n"
        out.append(line)
    return "".join(out)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


SYNC_COPY = True


def fresh_copy(old: Path, work: Path) -> None:
    """A fresh copy of the old tree, synced to disk, so the timed run does not compete with
    the copy's own writeback (a real workspace is not seconds old); same for both sides."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(old, work)
    if SYNC_COPY:
        os.sync()


def run_phases(old: Path, work: Path, patch: str) -> tuple[float, float, float]:
    """``(parse, locate, commit)`` seconds of one apply: locate is ``plan_patch`` minus its
    parse; commit is ``apply_plan`` (hash re-check, durable write, read-back)."""
    fresh_copy(old, work)
    t0 = time.perf_counter()
    parse_patch(patch)
    t1 = time.perf_counter()
    plan = plan_patch(work, patch)
    t2 = time.perf_counter()
    apply_plan(plan)
    t3 = time.perf_counter()
    return t1 - t0, (t2 - t1) - (t1 - t0), t3 - t2


def run_ours(old: Path, work: Path, patch: str, fsync: bool = True) -> tuple[bool, float]:
    """In-process apply; ``fsync=False`` stubs ``os.fsync`` to show what durability costs
    (git apply does not fsync)."""
    fresh_copy(old, work)
    real_fsync = os.fsync
    if not fsync:
        os.fsync = lambda fd: None
    t0 = time.perf_counter()
    try:
        apply_patch(work, patch)
    except PatchError:
        return False, time.perf_counter() - t0
    finally:
        os.fsync = real_fsync
    return True, time.perf_counter() - t0


def run_git(old: Path, work: Path, patch_file: Path) -> tuple[bool, float]:
    fresh_copy(old, work)
    t0 = time.perf_counter()
    res = subprocess.run(["git", "apply", str(patch_file)], cwd=work, capture_output=True)
    return res.returncode == 0, time.perf_counter() - t0


def whole_file_difflib_preview(plan: PatchPlan) -> list[FilePreview]:
    """The previous preview method, as the reference: difflib over every whole file."""
    out = []
    for c in plan.changes:
        old_text, new_text = decode(c.old), decode(c.new)
        a = (old_text or "").splitlines(True)
        b = (new_text or "").splitlines(True)
        src = "/dev/null" if old_text is None else f"a/{c.path}"
        dst = "/dev/null" if new_text is None else f"b/{c.path}"
        rows = [
            r if r.endswith("\n") else r + "\n" + NO_NEWLINE
            for r in difflib.unified_diff(a, b, src, dst)
        ]
        diff = "".join(rows)
        out.append(
            FilePreview(
                path=c.path,
                old_text=old_text,
                new_text=new_text,
                diff=diff,
                old_hash=None if c.old is None else hashlib.sha256(c.old).hexdigest(),
                new_hash=None if c.new is None else hashlib.sha256(c.new).hexdigest(),
                added=sum(1 for r in rows[2:] if r.startswith("+")),
                removed=sum(1 for r in rows[2:] if r.startswith("-")),
            )
        )
    return out


def run_preview(
    old: Path, patch: str, expect: dict[str, bytes], repeat: int
) -> tuple[float, float, float, bool]:
    """``(ours, whole-file difflib, plan_patch)`` ms medians, and whether the preview is exact."""
    plan = plan_patch(old, patch)
    ours, ref, plans = [], [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        preview = plan.preview()
        t1 = time.perf_counter()
        whole_file_difflib_preview(plan)
        t2 = time.perf_counter()
        plan_patch(old, patch)
        t3 = time.perf_counter()
        ours.append(t1 - t0)
        ref.append(t2 - t1)
        plans.append(t3 - t2)
    again = plan_patch(old, "".join(f.diff for f in preview.files))
    exact = all(not c.notes and c.new == expect.get(c.path) for c in again.changes) and {
        c.path for c in again.changes
    } == {c.path for c in plan.changes if c.old != c.new}
    ms = [statistics.median(x) * 1000 for x in (ours, ref, plans)]
    return ms[0], ms[1], ms[2], exact


def run_text_edit_preview(repeat: int) -> str:
    """write/replace/multi have no hunks: one line replaced in a 20,000-line file, ours
    (difflib on the changed middle) vs difflib over the whole file."""
    from frontier.tools.diffing import file_preview

    old = "".join(f"    value_{i} = compute({i}, 'x')\n" for i in range(20_000)).encode()
    new = old.replace(b"value_9000 =", b"value_9000: int =")
    plan = PatchPlan((FileChange("big.py", Path("big.py"), old, new, None, None, "modify"),))
    ours, ref = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fp = file_preview("big.py", old, new)
        t1 = time.perf_counter()
        (want,) = whole_file_difflib_preview(plan)
        t2 = time.perf_counter()
        ours.append(t1 - t0)
        ref.append(t2 - t1)
    same = fp.diff == want.diff
    o_ms, r_ms = statistics.median(ours) * 1000, statistics.median(ref) * 1000
    return (
        f"replace 1 line in a 20,000-line file: preview {o_ms:5.1f}  whole-file difflib "
        f"{r_ms:5.1f}  ratio {o_ms / r_ms:4.2f}  same diff {'yes' if same else 'no'}"
    )


def startup(cache: Path, repeat: int) -> tuple[float, float]:
    root = cache / "startup"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    (root / "f.txt").write_text("a\n")
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n"
    frontier = [PY, "-m", "frontier.app.cli", "apply-patch", "--root", str(root), "--dry-run"]
    unidiff = [PY, "-c", "import unidiff"]
    ours, ref = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(frontier, input=patch, text=True, capture_output=True, check=True)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        subprocess.run(unidiff, check=True)
        ref.append(time.perf_counter() - t0)
    return statistics.median(ours), statistics.median(ref)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/frontier-bench-patch"))
    ap.add_argument("--pairs", nargs="*", metavar="NAME:OLD:NEW")
    ap.add_argument("--unsynced", action="store_true", help="do not sync the fresh copies")
    opts = ap.parse_args()
    global SYNC_COPY
    SYNC_COPY = not opts.unsynced
    pairs = [tuple(p.split(":")) for p in opts.pairs] if opts.pairs else PAIRS
    cache: Path = opts.cache
    print(
        f"{'pair':<26}{'files':>6}{'hunks':>6}{'ours ms':>9}{'preview ms':>11}"
        f"{'no-fsync':>9}{'git ms':>8}"
        f"{'ratio':>7}{'nf ratio':>9}{'same':>6}{'shift ours/git':>16}{'ws ours/git':>13}"
    )
    breakdown: list[str] = []
    previews: list[str] = []
    for name, v_old, v_new in pairs:
        old, new = fetch(cache, name, v_old), fetch(cache, name, v_new)
        patch = make_patch(cache, old, new)
        files = patch.count("\ndiff --git ") + patch.startswith("diff --git")
        hunks = len(HEADER.findall(patch))
        work = cache / "work"
        patch_file = cache / f"{name}.diff"
        expect = snapshot(new)
        ours_t, nosync_t, git_t, same = [], [], [], True
        phases: list[tuple[float, float, float]] = []
        for _ in range(opts.repeat):
            phases.append(run_phases(old, work, patch))
            ok, t = run_ours(old, work, patch)
            same = same and ok and snapshot(work) == expect
            ours_t.append(t)
            nosync_t.append(run_ours(old, work, patch, fsync=False)[1])
            patch_file.write_text(patch)
            ok, t = run_git(old, work, patch_file)
            git_t.append(t)
        variants = {}
        for label, make in (
            ("shift", lambda s, p=patch: shifted(p, s)),
            ("ws", lambda s, p=patch: trailing_ws(p)),
        ):
            o_ok = g_ok = 0
            trials = 3 if label == "shift" else 1
            for seed in range(trials):
                text = make(seed)
                ok, _ = run_ours(old, work, text)
                o_ok += ok and snapshot(work) == expect
                patch_file.write_text(text)
                ok, _ = run_git(old, work, patch_file)
                g_ok += ok and snapshot(work) == expect
            variants[label] = f"{100 * o_ok // trials}%/{100 * g_ok // trials}%"
        o_ms, g_ms = statistics.median(ours_t) * 1000, statistics.median(git_t) * 1000
        p_ms, ref_ms, plan_ms, exact = run_preview(old, patch, expect, opts.repeat)
        n_ms = statistics.median(nosync_t) * 1000
        print(
            f"{name + ' ' + v_old + '->' + v_new:<26}{files:>6}{hunks:>6}{o_ms:>9.1f}{p_ms:>11.1f}"
            f"{n_ms:>9.1f}"
            f"{g_ms:>8.1f}{o_ms / g_ms:>7.2f}{n_ms / g_ms:>9.2f}{'yes' if same else 'NO':>6}"
            f"{variants['shift']:>16}{variants['ws']:>13}"
        )
        parse_ms, locate_ms, commit_ms = (
            statistics.median(x[k] for x in phases) * 1000 for k in range(3)
        )
        breakdown.append(
            f"{name:<10} parse {parse_ms:5.1f}  locate {locate_ms:5.1f}  commit {commit_ms:5.1f}"
        )
        previews.append(
            f"{name:<10} preview {p_ms:5.1f}  whole-file difflib {ref_ms:5.1f}  ratio "
            f"{p_ms / ref_ms:4.2f}  exact {'yes' if exact else 'NO'}  (plan_patch {plan_ms:.1f})"
        )
    print("\nwhere our time goes (ms, medians):")
    for line in breakdown:
        print("  " + line)
    print("\napproval preview (ms, medians; ours from the located hunks vs difflib, whole files):")
    for line in previews:
        print("  " + line)
    print("  " + run_text_edit_preview(opts.repeat))
    s_ours, s_ref = startup(cache, max(5, opts.repeat))
    print(
        f"\nstart-up: frontier apply-patch {s_ours * 1000:.0f} ms vs python -c 'import unidiff' "
        f"{s_ref * 1000:.0f} ms (ratio {s_ours / s_ref:.2f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
