"""Experiment D on a real model: make CTL sessions, then ``frontier eval counts`` them.

    .venv/bin/python bench/eval_counts.py --base-url http://127.0.0.1:18080/v1 --model smollm2
    .venv/bin/python bench/eval_counts.py ... --runs 4 --max-tokens 200,400 --out /tmp/d

Each run is ``frontier run --protocol ctl --approval read-only --max-turns N`` in a
scratch copy of the demo project, with its own data dir (so nothing of yours is
touched and no tool can change a file: read-only denies every mutation and command,
which does not matter here — the framing is what is measured). The prompts cycle
through ``PROMPTS``: plain tasks that need a multi-line value, and the same with a
CTL example in the prompt ("seeded"), since a small model rarely writes a frame
unprompted. Afterwards every session is judged by ``frontier eval counts`` and the
script prints how many responses started a ``call`` at all, the counts report, and
where the sessions are (``--out``) for ``frontier check`` / ``replay``.

``--arm frame`` measures the count itself: every fresh request (the task, and each
resend the runtime asks for after a framing error) ends with an assistant prefill
holding the frame up to the length prefix, ``call c1 write`` / ``arg path NOTES.md`` /
``arg content `` — llama.cpp continues it (and echoes it, so it is part of the recorded
response), and the model writes the byte count, the body and ``end`` itself. The loop
is the real ``AgentLoop`` (ctl, read-only approvals: a write is denied, which ends the
frame's story) with the store in ``--out``; the prefilling client is
``bench/continuation.py``'s ``Seeded`` around a ``ModelClient`` on the Chat Completions wire.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FRONTIER = [sys.executable, "-m", "frontier.app.cli"]

EXAMPLE = (
    "Write tool calls exactly like this example (the number is the byte count of the "
    "content, here 12 bytes):\ncall c1 write\narg path NOTES.md\narg content 12\nhello\n"
    "world\nend\n"
)
PROMPTS = (
    ("plain", "Create a file NOTES.md that says, on three lines, what greet/cli.py does."),
    ("plain", "Write a short CHANGELOG.md with a heading and two bullet points."),
    ("seeded", EXAMPLE + "Now create TODO.md with two lines: 'add --shout' and 'add tests'."),
    ("seeded", EXAMPLE + "Now create AUTHORS.md listing Ada and Grace, one per line."),
)


def run_one(
    i: int, base_url: str, model: str, max_tokens: int, turns: int, out: Path, timeout: float
) -> dict[str, object]:
    kind, prompt = PROMPTS[i % len(PROMPTS)]
    ws = out / f"ws{i}"
    shutil.copytree(ROOT / "app" / "demo_project", ws)
    env = {
        **os.environ,
        "FRONTIER_DATA_DIR": str(out / "data"),
        "FRONTIER_CONFIG_DIR": str(out / "cfg"),
    }
    argv = [
        *FRONTIER, "run", "--base-url", base_url, "--model", model, "--protocol", "ctl",
        "--approval", "read-only", "--max-turns", str(turns), "--max-tokens", str(max_tokens),
        "--workspace", str(ws), "--json", "--prompt", prompt,
    ]  # fmt: skip
    start = time.monotonic()
    try:
        done = subprocess.run(
            argv, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
        lines = done.stdout.splitlines()
    except subprocess.TimeoutExpired as exc:
        lines = (exc.stdout or b"").decode("utf-8", "replace").splitlines() if exc.stdout else []
    session = ""
    for line in lines[:5]:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("type") == "session":
            session = str(obj.get("id", ""))
    seconds = round(time.monotonic() - start, 1)
    return {"run": i, "kind": kind, "max_tokens": max_tokens, "session": session, "s": seconds}


FRAME_SEED = "call c1 write\narg path NOTES.md\narg content "
FRAME_TASKS = {
    "example": (
        "Write NOTES.md with three short lines about the greet CLI. Send the content as a "
        "length-prefixed argument: the exact byte count of the content, a newline, the "
        "content, then a line end. Example for the 12-byte content 'hello\\nworld\\n':\n"
        "call c1 write\narg path NOTES.md\narg content 12\nhello\nworld\nend\n"
    ),
    "bare": (
        "Write NOTES.md with three short lines about the greet CLI. Send the content as a "
        "length-prefixed argument: the exact byte count of the content (UTF-8 bytes, the "
        "newlines counted), a newline, exactly that many bytes, then a line end."
    ),
}
"""The frame arm's task: with a worked example (which a small model copies, count and
all) or without one."""


def run_frame(
    i: int,
    base_url: str,
    model: str,
    max_tokens: int,
    turns: int,
    out: Path,
    temperature: float,
    task: str,
) -> dict[str, object]:
    """One seeded-frame session, in process (see the module doc, ``--arm frame``)."""
    import asyncio

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from continuation import Seeded

    from frontier.app.agent.loop import AgentLoop
    from frontier.app.agent.modes import get_mode
    from frontier.app.model.registry import codec
    from frontier.app.model.transport import ModelClient
    from frontier.app.session.store import DB_NAME, SessionStore
    from frontier.tools.boundary import ToolBoundary
    from frontier.tools.policy import PolicyApprover
    from frontier.tools.registry import default_registry

    ws = out / f"ws{i}"
    shutil.copytree(ROOT / "app" / "demo_project", ws)
    (out / "data").mkdir(exist_ok=True)
    store = SessionStore.open(out / "data" / DB_NAME)
    sid = store.create_session(str(ws), model, base_url, "ctl")

    async def go() -> str:
        wire = codec("openai-chat")
        inner = ModelClient(wire, base_url, model, max_tokens=max_tokens)
        client = Seeded(inner, temperature, i, prefix=FRAME_SEED)
        registry = default_registry()
        boundary = ToolBoundary(
            registry, ws, PolicyApprover("read-only"), store.persistence(sid), emit=lambda e: None
        )
        loop = AgentLoop(
            client=client,
            boundary=boundary,
            registry=registry,
            mode=get_mode("ctl"),
            emit=lambda e: None,
            store=store,
            session_id=sid,
            max_turns=turns,
            can_prefill=wire.can_prefill,
        )
        try:
            ended = await loop.send(FRAME_TASKS[task])
            return ended.reason
        finally:
            await client.aclose()

    start = time.monotonic()
    reason = asyncio.run(go())
    store.close()
    seconds = round(time.monotonic() - start, 1)
    return {
        "run": i,
        "kind": "frame",
        "max_tokens": max_tokens,
        "session": sid,
        "ended": reason,
        "s": seconds,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--runs", type=int, default=4, help="runs per max-tokens value")
    ap.add_argument("--max-tokens", default="300", help="comma-separated (default 300)")
    ap.add_argument("--turns", type=int, default=3, help="--max-turns per run (default 3)")
    ap.add_argument("--timeout", type=float, default=240, help="seconds per run")
    ap.add_argument("--out", help="keep the sessions here (default: a temp dir, printed)")
    ap.add_argument(
        "--arm",
        choices=("plain", "frame"),
        default="plain",
        help="plain: `frontier run` on the prompts; frame: the frame seeded up to the count",
    )
    ap.add_argument("--temperature", type=float, default=0.7, help="frame arm (default 0.7)")
    ap.add_argument(
        "--task", choices=tuple(FRAME_TASKS), default="bare", help="frame arm: the task's wording"
    )
    opts = ap.parse_args()
    out = Path(opts.out or tempfile.mkdtemp(prefix="frontier-eval-counts-"))
    out.mkdir(parents=True, exist_ok=True)
    runs = []
    i = 0
    for tokens in [int(t) for t in opts.max_tokens.split(",")]:
        for _ in range(opts.runs):
            if opts.arm == "frame":
                info = run_frame(
                    i,
                    opts.base_url,
                    opts.model,
                    tokens,
                    opts.turns,
                    out,
                    opts.temperature,
                    opts.task,
                )
            else:
                info = run_one(i, opts.base_url, opts.model, tokens, opts.turns, out, opts.timeout)
            print(json.dumps(info), flush=True)
            runs.append(info)
            i += 1
    env = {
        **os.environ,
        "FRONTIER_DATA_DIR": str(out / "data"),
        "FRONTIER_CONFIG_DIR": str(out / "cfg"),
    }
    listing = subprocess.run(
        [*FRONTIER, "sessions", "--json"], env=env, capture_output=True, text=True
    )
    sessions = [s["id"] for s in json.loads(listing.stdout or "[]")]
    if not sessions:
        print("no session was stored", file=sys.stderr)
        return 1
    report = subprocess.run(
        [*FRONTIER, "eval", "counts", *sessions, "--json"], env=env, capture_output=True, text=True
    )
    (out / "counts.json").write_text(report.stdout)
    value = json.loads(report.stdout)
    print(
        f"\n{len(sessions)} sessions in {out}/data; responses {value['responses']}, calls "
        f"started {value['calls']}, executable {value['executable']}, length-prefixed args "
        f"{value['length_args']} (miscounted {value['miscounted']} of {value['counted']})"
    )
    text = subprocess.run(
        [*FRONTIER, "eval", "counts", *sessions], env=env, capture_output=True, text=True
    )
    print(text.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
