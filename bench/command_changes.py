"""What watching a command's named files costs (``tools/command_changes.py``), by size.

    .venv/bin/python bench/command_changes.py [--repeat 5] [--files 100,400,1600]

Before a ``shell`` command that names files or folders runs, Frontier reads them all
(``Watch.take``), and after it ends reads them again (``Watch.changes``). Printed beside
the same run's reference: a plain Python read of the same files (``os.walk`` and
``Path.read_bytes``, what any copy of them costs), for a generated workspace of N source
files of ~8 KB in nested folders, the command naming its top folder (``black src``).
Growth = time at 4N / time at N: linear is ≈ 4. Best of ``--repeat``, the two
alternating (``transducer.best_pair``); nothing here is a test.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # transducer.py, beside this file
from transducer import best_pair

from frontier.tools.command_changes import Watch

LINE = b"def function_%d(value):\n    return value * %d  # a line of ordinary code\n"


def workspace(root: Path, files: int) -> None:
    """``files`` files of ~8 KB under ``src/``, 20 to a folder, three levels deep."""
    for i in range(files):
        folder = root / "src" / f"p{i // 400}" / f"m{i // 20}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.py").write_bytes(b"".join(LINE % (k, k) for k in range(110)))


def plain_read(root: Path) -> int:
    total = 0
    for folder, _dirs, names in os.walk(root / "src"):
        for name in names:
            total += len(Path(folder, name).read_bytes())
    return total


def watch_and_compare(root: Path) -> int:
    watch = Watch.take(str(root), "black src")
    assert isinstance(watch, Watch), watch
    return len(watch.changes())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--files", default="100,400,1600")
    args = parser.parse_args()
    print(f"{'files':>6} {'MiB':>6} {'take+changes':>13} {'2x plain read':>14} {'ratio':>6} growth")
    previous = None
    for n in (int(x) for x in args.files.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            workspace(root, n)
            size = plain_read(root) / (1024 * 1024)
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
