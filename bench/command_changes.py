"""What watching a command's named files costs (``tools/command_changes.py``), by size.

    .venv/bin/python bench/command_changes.py [--repeat 5] [--files 100,400,1600]

Before a ``shell`` command that names files or folders runs, Frontier reads them all
(``Watch.take``), and after it ends reads them again (``Watch.changes``). Printed beside
the same run's reference: a plain Python read of the same files (``os.walk`` and
``Path.read_bytes``, what any copy of them costs), for a generated workspace of N source
files of ~8 KB in nested folders, the command naming its top folder (``black src``).
Growth = time at 4N / time at N: linear is ≈ 4. Best of ``--repeat``, the two
alternating (``transducer.best_pair``); nothing here is a test.

``--git``: the same workspace committed to a git repository, the command naming nothing
(``make``): the watch then asks git before and after (``tools/command_changes_git.py``).
Its reference: the same ``git status`` run twice, bare (what any use of git's answer
costs).

``--hold``: keeping what the watch held in the session store before the command runs
(``StoreJournal.hold``: the bytes scanned for secrets and written as pre-images, then the
record), so a crash while it runs loses nothing — the first time (every version new to
the store) and again (the versions kept already: the usual case, a command run twice),
beside the same run's ``take`` + ``changes`` of the same files.

``--untracked N``: a git work tree holding N untracked (not ignored) 4 KB files, a command
naming nothing (``make``): past the 2,000 files a watch holds git's answer is given up —
before stop 68 only after reading 2,000 of them. Beside the same run's bare ``git status``.

``--lines``: reading a command line for the paths it names (``command_words.named``) at
64 KiB, 256 KiB and 1 MiB — one word repeated, distinct names (each a lookup beneath the
root, bounded by ``WORDS_MAX``), a here-document of a script's literals — against
``shlex.split`` of the same line.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # transducer.py, beside this file
from transducer import best, best_pair

from frontier.tools.command_changes import Watch

STATUS = ["git", "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]

LINE = b"def function_%d(value):\n    return value * %d  # a line of ordinary code\n"


def workspace(root: Path, files: int) -> None:
    """``files`` files of ~8 KB under ``src/``, 20 to a folder, three levels deep."""
    for i in range(files):
        folder = root / "src" / f"p{i // 400}" / f"m{i // 20}"
        folder.mkdir(parents=True, exist_ok=True)
        head = b"# module %d\n" % i  # each file its own content: the store keeps each
        (folder / f"f{i}.py").write_bytes(head + b"".join(LINE % (k, k) for k in range(110)))


def plain_read(root: Path) -> int:
    total = 0
    for folder, _dirs, names in os.walk(root / "src"):
        for name in names:
            total += len(Path(folder, name).read_bytes())
    return total


def watch_and_compare(root: Path, command: str = "black src") -> int:
    watch = Watch.take(str(root), command)
    assert isinstance(watch, Watch), watch
    found = watch.changes()
    assert isinstance(found, list), found
    return len(found)


def git_status_twice(root: Path) -> None:
    for _ in range(2):
        subprocess.run(STATUS, cwd=root, check=True, capture_output=True)


def committed(root: Path) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q", "."], ["add", "-A"], ["-c", "user.name=b", "-c",
                 "user.email=b@b", "commit", "-qm", "b"]):  # fmt: skip
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def hold(repeat: int, sizes: list[int]) -> None:
    import time

    from frontier.app.session.journal import StoreJournal
    from frontier.app.session.store import SessionStore

    print(f"{'files':>6} {'MiB':>6} {'hold, new':>10} {'hold, again':>12} "
          f"{'take+changes':>13} {'new/watch':>9} {'again/watch':>11}")  # fmt: skip
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            workspace(root, n)
            size = plain_read(root) / (1024 * 1024)
            watch = Watch.take(str(root), "black src")
            assert isinstance(watch, Watch), watch
            record, bodies = watch.held()
            new, again, ref = [], [], []
            for i in range(repeat):
                ref.append(best(lambda r=root: watch_and_compare(r), 1))
                with SessionStore.open(root / f"s{i}.db") as store:
                    sid = store.create_session(str(root), "m", None, "ctl")
                    journal = StoreJournal(store.db, sid, "c1")
                    for times in (new, again):
                        t0 = time.perf_counter()
                        journal.hold(record, bodies)
                        times.append(time.perf_counter() - t0)
        w = min(ref)
        print(f"{n:>6} {size:>6.1f} {min(new) * 1e3:>8.1f}ms {min(again) * 1e3:>10.1f}ms "
              f"{w * 1e3:>11.1f}ms {min(new) / w:>9.2f} {min(again) / w:>11.2f}")  # fmt: skip


def untracked(repeat: int, count: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "a.py").write_text("x = 1\n")
        committed(root)
        (root / "data").mkdir()
        for i in range(count):
            (root / "data" / f"f{i}.csv").write_bytes(b"x" * 4000)
        ours, ref = best_pair(
            lambda: Watch.take(str(root), "make"),
            lambda: subprocess.run(STATUS, cwd=root, check=True, capture_output=True),
            repeat,
        )
    print(f"{count:,} untracked files: Watch.take {ours * 1e3:.1f} ms, "
          f"one bare git status {ref * 1e3:.1f} ms, ratio {ours / ref:.2f}")  # fmt: skip


def lines(repeat: int) -> None:
    import shlex

    from frontier.tools.command_words import named

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        workspace(root, 10)
        print(f"{'line':<12} {'chars':>8} {'named':>10} {'shlex.split':>12} {'ratio':>6}")
        for n in (64 * 1024, 256 * 1024, 1024 * 1024):
            shapes = {
                "one word": "black " + "x.py " * (n // 5),
                "names": "black " + "".join(f"x{i}.py " for i in range(n // 8)),
                "heredoc": "python3 - <<'EOF'\n" + "open('f.txt', 'w')\n" * (n // 20) + "EOF",
            }
            for name, line in shapes.items():
                ours, ref = best_pair(
                    lambda c=line: named(c, str(root)), lambda c=line: shlex.split(c), repeat
                )
                print(f"{name:<12} {len(line):>8} {ours * 1e3:>8.1f}ms {ref * 1e3:>10.1f}ms "
                      f"{ours / ref:>6.2f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--files", default="100,400,1600")
    parser.add_argument("--git", action="store_true", help="a repository, the line naming nothing")
    parser.add_argument("--lines", action="store_true", help="reading long command lines")
    parser.add_argument("--hold", action="store_true", help="keeping the held files, for a crash")
    parser.add_argument("--untracked", type=int, default=0, help="N untracked files in git")
    args = parser.parse_args()
    if args.untracked:
        untracked(args.repeat, args.untracked)
        return
    if args.hold:
        hold(args.repeat, [int(x) for x in args.files.split(",")])
        return
    if args.lines:
        lines(args.repeat)
        return
    ref_name = "2x git status" if args.git else "2x plain read"
    print(f"{'files':>6} {'MiB':>6} {'take+changes':>13} {ref_name:>14} {'ratio':>6} growth")
    previous = None
    for n in (int(x) for x in args.files.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            workspace(root, n)
            size = plain_read(root) / (1024 * 1024)
            if args.git:
                committed(root)
                ours, ref = best_pair(
                    lambda r=root: watch_and_compare(r, "make"),
                    lambda r=root: git_status_twice(r),
                    args.repeat,
                )
            else:
                ours, ref = best_pair(
                    lambda r=root: watch_and_compare(r),
                    lambda r=root: (plain_read(r), plain_read(r)),
                    args.repeat,
                )
        growth = f"{ours / previous:.1f}" if previous else ""
        print(f"{n:>6} {size:>6.1f} {ours * 1e3:>11.1f}ms {ref * 1e3:>12.1f}ms "
              f"{ours / ref:>6.2f} {growth}")  # fmt: skip
        previous = ours


if __name__ == "__main__":
    main()
