"""The processes below one process, read from ``/proc``.

A stop that must reach whatever a process started (a sandbox's command, the sessions a
browser server ran) cannot rely on the process group: ``setsid`` leaves it. The parent
links in ``/proc/<pid>/stat`` are the one record of who started whom.
"""

from __future__ import annotations

import os
from collections.abc import Mapping


def process_tree(*, live: bool = False) -> dict[int, list[int]]:
    """Each process's children (empty where there is none). ``live``: leave out zombies,
    which have ended and wait only to be reaped."""
    children: dict[int, list[int]] = {}
    try:
        entries = list(os.scandir("/proc"))
    except OSError:
        return children
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
            fields = stat.rsplit(b")", 1)[1].split()
            state, ppid = fields[0], int(fields[1])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
        if live and state == b"Z":
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    return children


def descendants(pid: int, tree: Mapping[int, list[int]]) -> list[int]:
    """Every process below ``pid`` in ``tree``, parents before their children."""
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in tree.get(todo.pop(), ()):
            out.append(child)
            todo.append(child)
    return out
