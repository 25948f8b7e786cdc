"""A small ``.gitignore`` matcher so grep/glob skip what git would skip.

Semantics kept: ``#`` comments, ``!`` negation (last match wins), trailing
``/`` for directories only, patterns with a ``/`` anchored to their
``.gitignore``'s folder, ``*``/``?``/``[...]``/``**``; an ignored directory is
not descended into (git cannot re-include files below it). ``.git`` is always
skipped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Rule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    anchored: bool
    base: str
    """Folder of the ``.gitignore`` (workspace-relative, ``""`` for the root)."""


def glob_to_regex(pattern: str) -> str:
    """Translate a git-style glob (``**`` spans folders, ``*`` does not) to a regex."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == n:
            out.append("/.*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 2)
            if j == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = pattern[i + 1 : j].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def parse_rules(text: str, base: str) -> list[Rule]:
    rules: list[Rule] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        if line.startswith("\\"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        regex = re.compile(glob_to_regex(line) + r"\Z", re.DOTALL)
        rules.append(Rule(regex, negate, dir_only, anchored, base))
    return rules


def _ignored(rel: str, is_dir: bool, rules: list[Rule]) -> bool:
    verdict = False
    name = rel.rsplit("/", 1)[-1]
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        if rule.base:
            if not rel.startswith(rule.base + "/"):
                continue
            sub = rel[len(rule.base) + 1 :]
        else:
            sub = rel
        target = sub if rule.anchored else name
        if rule.regex.match(target):
            verdict = not rule.negate
    return verdict


def walk_files(root: Path, start: Path) -> Iterator[tuple[str, Path]]:
    """Yield ``(workspace-relative path, real path)`` of non-ignored files under ``start``.

    ``.gitignore`` files from the root down to ``start`` apply, then those found
    while walking. Symlinked folders are not followed (they may leave the workspace).
    """
    rules: list[Rule] = []
    start_rel = "" if start == root else start.relative_to(root).as_posix()
    parts = start_rel.split("/") if start_rel else []
    for depth in range(len(parts) + 1):
        base = "/".join(parts[:depth])
        rules.extend(_load(root, base))
    if start.is_file():
        if not _ignored(start_rel, False, rules):
            yield start_rel, start
        return
    yield from _walk(root, start_rel, rules)


def _load(root: Path, base: str) -> list[Rule]:
    path = root / base / ".gitignore" if base else root / ".gitignore"
    try:
        return parse_rules(path.read_text("utf-8", errors="replace"), base)
    except OSError:
        return []


def _walk(root: Path, base: str, rules: list[Rule]) -> Iterator[tuple[str, Path]]:
    folder = root / base if base else root
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    dirs: list[str] = []
    for entry in entries:
        rel = f"{base}/{entry.name}" if base else entry.name
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
            is_file = entry.is_file()
        except OSError:
            continue
        if is_dir:
            if entry.name != ".git" and not _ignored(rel, True, rules):
                dirs.append(rel)
        elif is_file and not _ignored(rel, False, rules):
            yield rel, Path(entry.path)
    for d in dirs:
        yield from _walk(root, d, rules + _load(root, d))
