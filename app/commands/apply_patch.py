"""``frontier apply-patch --root DIR [--dry-run] < PATCH`` — the agent's patch engine, standalone.

Reads both dialects (a unified diff, or OpenAI Codex's ``*** Begin Patch``
envelope), detected from the text, also inside a ```` ```diff ```` fence.
Exit 0: applied (or, with ``--dry-run``, every hunk located), or already applied
(nothing written, said so); one ``M path (+3 −1)`` line per file on stdout.
Exit 1: the patch could not be applied and nothing was written; the reason
(file, hunk, why) is on stderr. Exit 2: usage error.

A write of several files is crash-atomic as the agent's is: its intent journal
(``tools.file_journal``, under ``<data dir>/patch-journals``, keyed by the root's real
path) is fsynced before the first rename, and every run that writes first finishes a
journal an earlier, killed run left open for its root — rolled forward or back, and said
on stderr — so a kill between renames never leaves a patch half applied for good. A dry
run touches nothing: when it fails, it says whether such a journal is waiting.

Imports only the patch engine (no Textual, no httpx) so it starts fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from frontier.app import working_dir
from frontier.app.frontends.terminal_text import safe_print

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)

if TYPE_CHECKING:
    from frontier.tools.file_journal import Finished
    from frontier.tools.patch_engine import PatchPlan

PROG = "frontier apply-patch"


class _NotApplied(Exception):
    """This run's patch was not applied, for a reason outside the patch: the message says
    it whole (a killed run's write that could not be put right, no place for the journal,
    another run writing the same root)."""


def main(args: argparse.Namespace) -> int:
    from frontier.tools.atomic import AtomicWriteError
    from frontier.tools.patch_engine import PatchError, apply_patch

    root = Path(args.root)
    if not root.is_absolute() and working_dir.gone():  # "." still stats as a directory
        safe_print(f"{PROG}: --root {root}: {working_dir.GONE}", file=sys.stderr)
        return 2
    if not root.is_dir():
        safe_print(f"{PROG}: --root {root}: not a directory", file=sys.stderr)
        return 2
    if sys.stdin is None or sys.stdin.isatty():
        safe_print(
            f"{PROG}: no patch on stdin; usage: {PROG} --root DIR < change.diff", file=sys.stderr
        )
        return 2
    data = sys.stdin.buffer.read()
    if not data.strip():
        safe_print(f"{PROG}: the patch on stdin is empty; nothing to do", file=sys.stderr)
        return 2
    try:
        if args.dry_run:
            plan = apply_patch(root, data, dry_run=True)
        else:
            plan = _apply_journaled(root, data)
    except _NotApplied as exc:
        safe_print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    except AtomicWriteError as exc:  # its text says what is on disk (it may be written)
        safe_print(f"{PROG}: {exc}", file=sys.stderr)
        if args.dry_run:
            _say_pending(root)
        return 1
    except (PatchError, OSError) as exc:
        safe_print(f"{PROG}: nothing written: {exc}", file=sys.stderr)
        if args.dry_run:
            _say_pending(root)
        return 1
    summary = plan.summary()
    if summary:  # one write, not one a line (stdout may be unbuffered: PYTHONUNBUFFERED)
        safe_print("\n".join(summary))
    if plan.already_applied:
        names = ", ".join(plan.already[:10]) + (" …" if len(plan.already) > 10 else "")
        safe_print(f"already applied: every change is already in {names}; nothing written")
    elif not plan.changes:
        safe_print("no changes: the patch changes nothing in the files")
    if args.dry_run:
        safe_print("dry run: every hunk located; nothing written")
    return 0


def _journals() -> Path:
    """``<data dir>/patch-journals`` (``app.dirs``: found without importing the config
    module, which would add more to this command's start-up than the patch engine costs)."""
    from frontier.app.dirs import data_dir
    from frontier.tools.file_journal import JOURNALS

    return data_dir() / JOURNALS


def _apply_journaled(root: Path, data: bytes) -> PatchPlan:
    """Under the root's lock: finish what a killed run left, then plan and write ``data``
    with its intent journal (raises ``PatchError`` / ``OSError``: nothing of it written;
    ``_NotApplied`` when the journal cannot be kept or an earlier write put right)."""
    from frontier.tools.file_journal import (
        FileJournal,
        JournalBusy,
        JournalUnavailable,
        finish_open,
        journal_path,
        root_lock,
    )
    from frontier.tools.patch_engine import plan_patch, write_changes

    journals = _journals()
    journal = journal_path(journals, root)
    try:
        with root_lock(journals, root, _say_waiting):
            try:
                finished = finish_open(journals, root)
            except OSError as exc:
                raise _NotApplied(
                    f"an earlier run in {root} was killed between its renames, and its write "
                    f"could not be finished nor undone ({exc.strerror or exc}); its journal "
                    f"stays in {journal} for the next run to try again. This patch was not "
                    "applied"
                ) from exc
            if finished is not None:
                safe_print(f"{PROG}: {_finished_text(finished, root)}", file=sys.stderr)
            plan = plan_patch(root, data)
            write_changes(
                root, plan.changes, journal=FileJournal(journal, root), on_wait=_say_waiting
            )
    except JournalUnavailable as exc:
        raise _NotApplied(
            f"{exc.strerror}; point FRONTIER_DATA_DIR at a writable folder. Nothing written"
        ) from exc
    except JournalBusy as exc:
        raise _NotApplied(f"{exc.strerror}. Nothing written") from exc
    return plan


def _say_waiting(line: str) -> None:
    """A wait for a lock another process holds is said as it begins, on stderr (it used to
    be silent for up to 10 s, then said who held it)."""
    safe_print(f"{PROG}: {line}", file=sys.stderr, end="")
    sys.stderr.flush()


def _finished_text(done: Finished, root: Path) -> str:
    """What finishing an earlier run's journal did, for the person who ran this one."""
    if done.outcome == "invalid":
        return (
            f"the intent journal {done.journal} is not one Frontier writes ({done.problem}); "
            f"nothing was touched, and it was moved to {done.moved_to}"
        )
    names = ", ".join(done.paths[:10]) + (" …" if len(done.paths) > 10 else "")
    head = f"an earlier run in {root} was killed"
    renames = f"{head} between its renames"
    if done.outcome == "rolled forward":
        return f"{renames}; finished its write from the journal (rolled forward): {names}"
    if done.outcome.startswith("rolled back"):
        rest = done.outcome.removeprefix("rolled back").strip(" ()")
        tail = f"; {rest}" if rest else ""
        return f"{renames}; undid its write from the journal (rolled back): {names}{tail}"
    if done.outcome == "done":
        return f"{head} after its write was complete ({names}); closed its journal"
    return f"{head}; closed its journal: {done.outcome}"


def _say_pending(root: Path) -> None:
    """Why a dry run may have failed: a killed run's write is waiting to be finished.

    A dry run writes nothing, not even recovery, so it only says what the next run does.
    Asked only when the dry run failed (a half-applied patch is what a waiting journal
    looks like), so a dry run that succeeds loads nothing more than the patch engine."""
    from frontier.tools.file_journal import pending

    waiting = pending(_journals(), root)
    if waiting is not None:
        safe_print(
            f"{PROG}: an earlier run in {root} was killed between its renames (journal "
            f"{waiting}); a run without --dry-run finishes it first, which is why this dry "
            "run may find the patch half applied",
            file=sys.stderr,
        )
