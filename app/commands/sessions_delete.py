"""``frontier sessions delete ID... | --older-than DAYS [--yes]`` — remove stored sessions
(``app/session/forget.py``: what goes, and how it is overwritten).

Asks first on a terminal, listing what will go; without one it refuses unless ``--yes``
(exit 3, as ``frontier mcp trust`` does), since a script that deletes by mistake cannot be
undone. Exit 0 when deleted (or nothing matched ``--older-than``), 1 when not confirmed
or refused, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import sys
import time

from frontier.app.frontends.terminal_text import safe_print, terminal_safe
from frontier.app.session.catalogue import Catalogue, SessionInfo, one_line
from frontier.app.session.db import Database, StoreError, existing_store


def delete(args: argparse.Namespace) -> int:
    ids: list[str] = list(args.ids or [])
    days: float | None = args.older_than
    if bool(ids) == (days is not None):
        safe_print(
            "frontier sessions delete: give session ids, or --older-than DAYS (not both)",
            file=sys.stderr,
        )
        return 2
    if days is not None and days < 0:
        safe_print("frontier sessions delete: --older-than takes days >= 0", file=sys.stderr)
        return 2
    path = existing_store()
    if path is None:
        safe_print("no sessions are stored yet: nothing to delete")
        return 0 if days is not None else 1
    from frontier.app.session import forget

    try:
        db = Database.open(path)
    except StoreError as exc:
        safe_print(f"frontier sessions delete: {exc}", file=sys.stderr)
        return 1
    try:
        if days is not None:
            chosen = forget.older_than(db, days, time.time())
            if not chosen:
                safe_print(f"no session was last used more than {days:g} days ago")
                return 0
        else:
            catalogue = Catalogue(db)
            chosen = list({s.id: s for s in (catalogue.get_session(i) for i in ids)}.values())
        for info in chosen:
            why = forget.refusal(db, info)
            if why is not None:
                safe_print(f"frontier sessions delete: {why}", file=sys.stderr)
                return 1
        if not args.yes and not _confirmed(chosen):
            return 1 if sys.stdin.isatty() else 3
        done = forget.delete_sessions(db, chosen)
    except StoreError as exc:
        safe_print(f"frontier sessions delete: {exc}", file=sys.stderr)
        return 1
    finally:
        db.close()
    for gone in done:
        kept = f", {gone.preimages} kept file version(s)" if gone.preimages else ""
        typed = f", {gone.prompts} prompt(s) from the ↑ history" if gone.prompts else ""
        safe_print(f"deleted {_line(gone.info)}{kept}{typed}")
    return 0


def _line(info: SessionInfo) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.started))
    prompt = one_line(terminal_safe(info.first_prompt), 50) if info.first_prompt else "—"
    turns = f"{info.turns} turn{'s' if info.turns != 1 else ''}"
    return f"{terminal_safe(info.id)} ({when}, {turns}, {terminal_safe(info.workspace)}): {prompt}"


def _confirmed(chosen: list[SessionInfo]) -> bool:
    """The person's yes, on a terminal; without one, a refusal naming ``--yes``."""
    if not sys.stdin.isatty():
        safe_print(
            f"frontier sessions delete: {len(chosen)} session(s) would be deleted and no "
            "terminal can confirm it; run again with --yes",
            file=sys.stderr,
        )
        return False
    for info in chosen:
        safe_print(f"  {_line(info)}")
    n = len(chosen)
    answer = input(f"delete {'this session' if n == 1 else f'these {n} sessions'}? [y/N] ")
    if answer.strip().lower() in ("y", "yes"):
        return True
    safe_print("nothing deleted")
    return False
