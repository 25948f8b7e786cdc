"""``frontier apply-patch --root DIR [--dry-run] < PATCH`` — the agent's patch engine, standalone.

Reads both dialects (a unified diff, or OpenAI Codex's ``*** Begin Patch``
envelope), detected from the text, also inside a ```` ```diff ```` fence.
Exit 0: applied (or, with ``--dry-run``, every hunk located), or already applied
(nothing written, said so); one ``M path (+3 −1)`` line per file on stdout.
Exit 1: the patch could not be applied and nothing was written; the reason
(file, hunk, why) is on stderr. Exit 2: usage error.
Imports only the patch engine (no Textual, no httpx) so it starts fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PROG = "frontier apply-patch"


def main(args: argparse.Namespace) -> int:
    from frontier.tools.patch_engine import PatchError, apply_patch

    root = Path(args.root)
    if not root.is_dir():
        print(f"{PROG}: --root {root}: not a directory", file=sys.stderr)
        return 2
    if sys.stdin is None or sys.stdin.isatty():
        print(f"{PROG}: no patch on stdin; usage: {PROG} --root DIR < change.diff", file=sys.stderr)
        return 2
    data = sys.stdin.buffer.read()
    if not data.strip():
        print(f"{PROG}: the patch on stdin is empty; nothing to do", file=sys.stderr)
        return 2
    try:
        plan = apply_patch(root, data, dry_run=bool(args.dry_run))
    except PatchError as exc:
        print(f"{PROG}: nothing written: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{PROG}: nothing written: {exc}", file=sys.stderr)
        return 1
    out = sys.stdout
    for line in plan.summary():
        out.write(line + "\n")
    if plan.already_applied:
        names = ", ".join(plan.already[:10]) + (" …" if len(plan.already) > 10 else "")
        out.write(f"already applied: every change is already in {names}; nothing written\n")
    elif not plan.changes:
        out.write("no changes: the patch changes nothing in the files\n")
    if args.dry_run:
        out.write("dry run: every hunk located; nothing written\n")
    return 0
