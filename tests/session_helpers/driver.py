"""Frontier's real tool boundary in its own process, for crash and concurrency tests.

It opens the session store like Frontier does and runs one call through
``frontier.tools.boundary.ToolBoundary`` (the real registry, the ``shell`` and
``apply_patch`` tools, ``SessionPersistence``), printing a line at each sync
point and, where asked, blocking on stdin so the test can SIGKILL it at an
exact instant. Usage::

    driver.py shell  DB WORKSPACE [--pause-before-start] [--command LINE]
                                                (LINE ends by writing probe.txt, then sleeps)
    driver.py patch  DB WORKSPACE --stop-at N   (N = files renamed into place before the pause;
                                                 N = 3: all written, result not yet committed)
    driver.py writer DB WORKSPACE --count N     (drives one session as the loop would)

The patch pause sits inside ``frontier.tools.atomic``'s rename indirection, so
the kill lands between two real ``os.replace`` calls of a real multi-file write.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import os
import sys
from pathlib import Path

from frontier.app.events import ToolCall, ToolResult
from frontier.app.model.conversation import UserText
from frontier.app.session.persistence import SessionPersistence
from frontier.app.session.store import SessionStore
from frontier.tools.contract import Preview, ToolSpec

PATCH_FILES = ("a.txt", "sub/b.txt", "c.txt")
SHELL_COMMAND = "echo $$ > pid.txt; echo started >> probe.txt; exec sleep 30"


def patch_contents(name: str) -> tuple[bytes, bytes]:
    """(pre, post) bytes of a patch-scenario file; large enough that a torn write would show."""
    pre = "".join(f"{name} old line {i}\n" for i in range(5_000)).encode()
    post = "".join(f"{name} NEW line {i}\n" for i in range(5_000)).encode()
    return pre, post


def patch_text() -> str:
    out = []
    for name in PATCH_FILES:
        pre, post = (b.decode().splitlines(keepends=True) for b in patch_contents(name))
        out += difflib.unified_diff(pre, post, f"a/{name}", f"b/{name}")
    return "".join(out)


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def wait_for_test() -> None:
    """Block until the test writes a line (or closes stdin); the test kills us here."""
    sys.stdin.readline()


class SyncPersistence(SessionPersistence):
    """``SessionPersistence`` that reports each commit and can pause before one."""

    pause_before_start = False
    pause_before_result = False

    def persist_and_start(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        """Two commits, not one, so a kill can land between the call row and its start."""
        self.persist_call(call, spec, preview)
        self.mark_started(call.id)

    def persist_call(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> None:
        super().persist_call(call, spec, preview)
        say(f"PERSISTED {self.session_id}")

    def mark_started(self, call_id: str) -> None:
        if self.pause_before_start:
            say("PAUSED before start")
            wait_for_test()
        super().mark_started(call_id)
        say(f"STARTED {self.session_id}")

    def commit_result(self, result: ToolResult) -> None:
        if self.pause_before_result:
            say("PAUSED before result")
            wait_for_test()
        super().commit_result(result)


def boundary_for(
    store: SessionStore, workspace: Path, mode: str, command: str = SHELL_COMMAND
) -> tuple[object, SyncPersistence]:
    from frontier.tools.boundary import ToolBoundary
    from frontier.tools.policy import PolicyApprover
    from frontier.tools.registry import default_registry

    sid = store.create_session(str(workspace), "driver", None, mode)
    store.lock_session(sid)  # held as Frontier holds it: until this process ends
    rid = store.begin_response(sid, mode, "driver", 0)  # the response that confirmed the call
    text = f"call c1 shell\narg command {command}\nend\n"
    store.add_stream_event(
        rid, 0.0, json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]})
    )
    persistence = SyncPersistence(store.ledger, sid)
    boundary = ToolBoundary(default_registry(), workspace, PolicyApprover("auto"), persistence)
    return boundary, persistence


async def shell(
    store: SessionStore, workspace: Path, pause_before_start: bool, command: str = SHELL_COMMAND
) -> int:
    boundary, persistence = boundary_for(store, workspace, "ctl", command)
    persistence.pause_before_start = pause_before_start
    task = asyncio.ensure_future(
        boundary.run(ToolCall("c1", "shell", {"command": command}))  # type: ignore[attr-defined]
    )
    probe = workspace / "probe.txt"
    for _ in range(2000):  # bounded: the command starts within ~10 s or we report it
        if probe.exists() or task.done():
            break
        await asyncio.sleep(0.005)
    say(f"RUNNING {(workspace / 'pid.txt').read_text().strip() if probe.exists() else '?'}")
    result = await task
    say(f"DONE {result.kind}")
    return 0


async def patch(store: SessionStore, workspace: Path, stop_at: int) -> int:
    from frontier.tools import atomic

    boundary, persistence = boundary_for(store, workspace, "ctl")
    persistence.pause_before_result = stop_at == len(PATCH_FILES)
    renames = 0
    real_replace = atomic._replace

    def paused_replace(src: str, dst: str, dir_fd: int) -> None:
        nonlocal renames
        if renames == stop_at:
            say(f"PAUSED after {renames} renames")
            wait_for_test()
        renames += 1
        real_replace(src, dst, dir_fd)

    atomic._replace = paused_replace
    result = await boundary.run(ToolCall("p1", "apply_patch", {"patch": patch_text()}))  # type: ignore[attr-defined]
    say(f"DONE {result.kind} {result.output[:200]!r}")
    return 0


def writer(store: SessionStore, workspace: Path, count: int) -> int:
    """Drive one session as the loop would, ``count`` rounds, for the concurrency test."""
    sid = store.create_session(str(workspace), "driver", None, "native-inc")
    say(f"SESSION {sid}")
    wait_for_test()  # a start barrier, so both writers really overlap
    persistence = store.persistence(sid)
    for i in range(count):
        store.append_items(sid, [UserText(f"task {i} from {os.getpid()}")])
        rid = store.begin_response(sid, "native-inc", "driver", i)
        for k in range(5):
            store.add_stream_event(rid, k * 0.01, f'{{"i": {i}, "k": {k}}}')
        call = ToolCall(f"call_{i}", "read", {"path": f"f{i}.txt"})
        persistence.persist_call(call, ToolSpec("read", "", {}), Preview(kind="none"))
        persistence.mark_started(call.id)
        persistence.commit_result(ToolResult(call.id, "read", "ok", f"content {i}"))
        store.add_assistant_text(sid, f"done {i}. ")
        store.end_response(rid, "stop")
    store.set_state(sid, "done")
    say("DONE")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=("shell", "patch", "writer"))
    parser.add_argument("db", type=Path)
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--pause-before-start", action="store_true")
    parser.add_argument("--stop-at", type=int, default=0)
    parser.add_argument("--count", type=int, default=20)
    parser.add_argument("--command", default=SHELL_COMMAND)
    args = parser.parse_args()
    store = SessionStore.open(args.db)
    if args.scenario == "shell":
        return asyncio.run(shell(store, args.workspace, args.pause_before_start, args.command))
    if args.scenario == "patch":
        return asyncio.run(patch(store, args.workspace, args.stop_at))
    return writer(store, args.workspace, args.count)


if __name__ == "__main__":
    sys.exit(main())
