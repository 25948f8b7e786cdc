"""Reading a ``sed -i``, ``git checkout --`` or ``git apply`` call as the patch tool's.

    .venv/bin/python bench/shell_routes.py [--repeat 7]

At a shell call's confirmation the agent loop reads a plain ``sed -i`` as the patch of
what it changes: one ``sed --sandbox`` run per file and a diff of the two texts, on the
event loop, before the review. Printed beside the same run's reference, the command it
stands for run as a command was (``bash -c "sed -i …"`` on a copy of the file, without
the sandbox around it, which only adds to it), for one edited line and for every line
edited, at three sizes (past ``MAX_CHANGED`` lines the call stays a command: the cost
then is of finding that out).

``git checkout -- .`` (``tools/restore_via_shell.py``: two git runs, then one for each
changed file) with 1, 5 and 20 files changed, beside ``git checkout -- .`` itself run by
bash on a copy of the repository (the copy changed again, untimed, before each run).

``git apply fix.patch`` (``tools/git_apply_via_shell.py``: git lists the diff's files and
applies it to copies; the repository's settings and attributes asked) with a diff of 1, 5
and 20 files, beside ``git apply fix.patch`` run by bash on a copy (put back, untimed,
before each run).

Best of ``--repeat``, the two alternating (``transducer.best_pair``); nothing here is a
test.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # transducer.py, beside this file
from transducer import best_pair

from frontier.tools.git_apply_via_shell import git_apply_patch
from frontier.tools.restore_via_shell import restore_patch
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
        restores(root, repeat)
        applies(root, repeat)


WHO = {f"GIT_{role}_{key}": value for role in ("AUTHOR", "COMMITTER")
       for key, value in (("NAME", "b"), ("EMAIL", "b@b"))}  # fmt: skip
ENV = {"GIT_CONFIG_GLOBAL": "/dev/null", "PATH": "/usr/bin:/bin", **WHO}


def restores(tmp: Path, repeat: int) -> None:
    env = ENV
    print(f"\n{'git checkout -- .':<18} {'read as patch':>14} {'git (bash)':>11} {'ratio':>6}")
    for count in (1, 5, 20):
        roots = [tmp / f"repo{count}", tmp / f"copy{count}"]
        for root in roots:
            root.mkdir()
            for i in range(count):
                (root / f"m{i}.py").write_text("".join(f"x_{k} = {k}\n" for k in range(200)))
            for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "c"]):
                subprocess.run(["git", *args], cwd=root, env=env, check=True)

        def change(root: Path, count: int = count) -> None:
            body = "".join(f"x_{k} = {k}\n" for k in range(200))
            for i in range(count):
                (root / f"m{i}.py").write_text("y = 0\n" + body)

        change(roots[0])

        def route(r: Path = roots[0]) -> None:
            assert restore_patch("git checkout -- .", {}, str(r)) is not None

        def run(r: Path = roots[1]) -> None:
            change(r)
            subprocess.run(["bash", "-c", "git checkout -- ."], cwd=r, env=env, check=True)

        ours, ref = best_pair(route, run, repeat)
        print(f"{f'{count} files changed':<18} {ours * 1e3:>12.2f}ms {ref * 1e3:>9.2f}ms "
              f"{ours / ref:>6.2f}")  # fmt: skip


def applies(tmp: Path, repeat: int) -> None:
    print(f"\n{'git apply fix.patch':<18} {'read as patch':>14} {'git (bash)':>11} {'ratio':>6}")
    body = "".join(f"x_{k} = {k}\n" for k in range(200))
    for count in (1, 5, 20):
        roots = [tmp / f"apply{count}", tmp / f"applied{count}"]
        for root in roots:
            root.mkdir()
            for i in range(count):
                (root / f"m{i}.py").write_text(body)
            for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "c"]):
                subprocess.run(["git", *args], cwd=root, env=ENV, check=True)
            for i in range(count):
                (root / f"m{i}.py").write_text("y = 0\n" + body)
            diff = subprocess.run(["git", "diff"], cwd=root, env=ENV, check=True,
                                  capture_output=True).stdout  # fmt: skip
            (root / "fix.patch").write_bytes(diff)
            subprocess.run(["git", "checkout", "-q", "--", "."], cwd=root, env=ENV, check=True)

        def route(r: Path = roots[0]) -> None:
            assert git_apply_patch("git apply fix.patch", {}, str(r)) is not None

        def run(r: Path = roots[1], count: int = count) -> None:
            for i in range(count):  # put back (a write each: ~0.1 ms of the reference)
                (r / f"m{i}.py").write_text(body)
            subprocess.run(["bash", "-c", "git apply fix.patch"], cwd=r, env=ENV, check=True)

        ours, ref = best_pair(route, run, repeat)
        print(f"{f'{count} files':<18} {ours * 1e3:>12.2f}ms {ref * 1e3:>9.2f}ms "
              f"{ours / ref:>6.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
