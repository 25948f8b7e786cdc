"""Reading a ``sed -i`` call as the patch tool's (``tools/sed_via_shell.py``), by file size.

    .venv/bin/python bench/sed_route.py [--repeat 7]

At a shell call's confirmation the agent loop reads a plain ``sed -i`` as the patch of
what it changes: one ``sed --sandbox`` run per file and a diff of the two texts, on the
event loop, before the review. Printed beside the same run's reference, the command it
stands for run as a command was (``bash -c "sed -i …"`` on a copy of the file, without
the sandbox around it, which only adds to it), for one edited line and for every line
edited, at three sizes (past ``MAX_CHANGED`` lines the call stays a command: the cost
then is of finding that out). Best of ``--repeat``, the two alternating
(``transducer.best_pair``); nothing here is a test.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # transducer.py, beside this file
from transducer import best_pair

from frontier.tools.sed_via_shell import sed_patch

SCRIPTS = {"one line": "s/value_0007 = 7/value_0007 = 70/", "every line": "s/ = / := /"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    repeat = parser.parse_args().repeat
    print(f"{'edit':<11} {'file':>9} {'read as patch':>14} {'sed -i (bash)':>14} {'ratio':>6}"
          "  the call")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for lines in (100, 5_000, 50_000):
            text = "".join(f"value_{i:04d} = {i}\n" for i in range(lines))
            for name, script in SCRIPTS.items():
                command = f"sed -i '{script}' f.txt"
                (root / "f.txt").write_text(text)
                (root / "copy.txt").write_text(text)

                def route(c: str = command) -> None:
                    sed_patch(c, {}, str(root))

                def run(s: str = script) -> None:
                    subprocess.run(["bash", "-c", f"sed -i '{s}' copy.txt"], cwd=root, check=True)

                ours, ref = best_pair(route, run, repeat)
                (root / "f.txt").write_text(text)
                became = "a patch" if sed_patch(command, {}, str(root)) else "a command"
                print(f"{name:<11} {len(text):>9} {ours * 1e3:>12.2f}ms {ref * 1e3:>12.2f}ms "
                      f"{ours / ref:>6.2f}  {became}")  # fmt: skip


if __name__ == "__main__":
    main()
