"""``frontier undo SESSION --yes`` in its own process, paused where a crash test kills it.

Usage::

    undo_driver.py SESSION --stop before-write   (the undo's call row and start are
                                                  committed; no file touched yet)
    undo_driver.py SESSION --stop renamed-N      (N of its files renamed into place)
    undo_driver.py SESSION --stop before-result  (every file written; result not committed)

It runs the real command (``frontier.app.cli.main``): the session opened offline, its
lock, recovery, ``AgentSession.undo``, the undo tool through the tool boundary, the
journaled multi-file writer. The pauses sit in ``tools.atomic``'s crash seams and in the
store's result commit, printing ``PAUSED`` and blocking on stdin so the test's SIGKILL
lands at that exact instant. ``FRONTIER_DATA_DIR`` comes from the test's environment.
"""

from __future__ import annotations

import argparse
import sys


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def wait_for_test(where: str) -> None:
    say(f"PAUSED {where}")
    sys.stdin.readline()  # the test kills us here


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("session")
    parser.add_argument("--stop", required=True)
    args = parser.parse_args()

    from frontier.app.cli import main as cli
    from frontier.app.session.persistence import SessionPersistence
    from frontier.tools import atomic

    stop: str = args.stop
    started = SessionPersistence.persist_and_start

    def persist_and_start(self, call, spec, preview):  # type: ignore[no-untyped-def]
        started(self, call, spec, preview)
        say(f"STARTED {call.id}")

    SessionPersistence.persist_and_start = persist_and_start  # type: ignore[method-assign]
    if stop == "before-write":

        def crash_point(step: str) -> None:
            if step == "temp":
                wait_for_test("before-write")

        atomic._crash_point = crash_point
    elif stop.startswith("renamed-"):
        want = int(stop.split("-", 1)[1])
        renames = 0
        real_replace = atomic._replace

        def paused_replace(src: str, dst: str, dir_fd: int) -> None:
            nonlocal renames
            if renames == want:
                wait_for_test(stop)
            renames += 1
            real_replace(src, dst, dir_fd)

        atomic._replace = paused_replace
    elif stop == "before-result":
        commit = SessionPersistence.commit_result

        def paused_commit(self, result):  # type: ignore[no-untyped-def]
            wait_for_test("before-result")
            commit(self, result)

        SessionPersistence.commit_result = paused_commit  # type: ignore[method-assign]
    code = cli(["undo", args.session, "--yes"])
    say(f"DONE {code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
