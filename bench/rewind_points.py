"""Opening the rewind picker on a long session: ``rewind_points`` (the person's messages the
model still has, each with the files a rewind would put back and the commands run since)
beside reading the history it starts from (``Compactions.positioned``, what a resume
reads) and the session's calls (``ledger.calls``, which it reads too), in the same run.

    .venv/bin/python bench/rewind_points.py [--messages 300] [--calls 4] [--runs 5]

The session is made through the real tool boundary and store (offline, approval
``auto``): ``--messages`` person's messages, each followed by ``--calls`` writes of new
files and one edit of a file every message edits. Timed in-process, best of ``--runs``;
the person waits for this before the picker shows. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


async def build(root: Path, messages: int, calls: int) -> tuple[object, str]:
    from frontier.app.agent.runtime import create_runtime
    from frontier.app.config import Config
    from frontier.app.events import ToolCall
    from frontier.app.model.conversation import UserText

    (root / "shared.py").write_text("v = 0\n")
    session = create_runtime(Config(approval="auto"), workspace=root, offline=True)
    store = session._store  # type: ignore[attr-defined]
    boundary = session._loop.boundary  # type: ignore[attr-defined]
    sid = session.session_id
    for m in range(messages):
        store.append_items(sid, [UserText(f"message {m}: change things", "person")])
        for c in range(calls):
            call = ToolCall(f"c{m}_{c}", "write", {"path": f"m{m}/f{c}.py", "content": f"x={c}\n"})
            await boundary.run(call)
        edit = f"@@\n-v = {m}\n+v = {m + 1}\n"
        patch = f"*** Begin Patch\n*** Update File: shared.py\n{edit}*** End Patch"
        await boundary.run(ToolCall(f"p{m}", "apply_patch", {"patch": patch}))
    return session, sid


def best(runs: int, fn: object) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--messages", type=int, default=300)
    ap.add_argument("--calls", type=int, default=4)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    from frontier.app.agent.rewind import rewind_points

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["FRONTIER_DATA_DIR"] = str(Path(tmp) / "data")
        os.environ["FRONTIER_CONFIG_DIR"] = str(Path(tmp) / "config")
        root = Path(tmp) / "ws"
        root.mkdir()
        started = time.perf_counter()
        session, sid = await build(root, args.messages, args.calls)
        made = time.perf_counter() - started
        store = session._store  # type: ignore[attr-defined]
        points = rewind_points(store, sid)
        ours = best(args.runs, lambda: rewind_points(store, sid))
        ref = best(args.runs, lambda: store.compactions.positioned(sid))
        ledger = best(args.runs, lambda: store.ledger.calls(sid))
        calls = len(store.ledger.calls(sid))
        await session.close()  # type: ignore[attr-defined]
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"session: {args.messages} messages, {calls} calls (made in {made:.1f} s); load {load}")
    print(f"{'what':<34}{'best of ' + str(args.runs):>14}{'ratio':>8}")
    print(f"{'history read (positioned)':<34}{ref * 1000:>12.1f}ms{1.0:>8.2f}")
    print(f"{'the calls read (ledger.calls)':<34}{ledger * 1000:>12.1f}ms{ledger / ref:>8.2f}")
    print(f"{'rewind_points':<34}{ours * 1000:>12.1f}ms{ours / ref:>8.2f}")
    print(f"points: {len(points)}; the first puts back {points[0].file_count} files")


if __name__ == "__main__":
    asyncio.run(main())
