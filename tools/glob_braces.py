"""Brace alternatives in the model's globs: ``**/*.{ts,tsx}``, ``{src,lib}/**/*.py``.

ripgrep's, minimatch's and Claude Code's globs take them, and models write them; here they
matched nothing (``no files match '**/*.{ts,tsx}'``, a grep with nothing found) and the
model concluded there were no such files. A pattern is expanded into its alternatives
(braces inside braces too; a brace without a comma, one inside ``[...]`` or escaped is
literal), at most :data:`MAX_ALTERNATIVES`, each matched in linear time by ``globmatch``;
a path matches when any does. A ``.gitignore`` pattern has no braces (git reads ``{`` as
itself) and is never expanded here.
"""

from __future__ import annotations

from frontier.tools.globmatch import Glob, GlobError, Work

MAX_ALTERNATIVES = 64


def expand(pattern: str) -> list[str]:
    """``pattern``'s alternatives, in order (``[pattern]`` when it has no braces);
    ``GlobError`` past :data:`MAX_ALTERNATIVES`."""
    done: list[str] = []
    todo = [pattern]
    while todo:
        current = todo.pop()
        group = _first_group(current)
        if group is None:
            done.append(current)
        else:
            start, end, parts = group
            todo.extend(current[:start] + part + current[end + 1 :] for part in reversed(parts))
        if len(done) + len(todo) > MAX_ALTERNATIVES:
            raise GlobError(f"its braces make more than {MAX_ALTERNATIVES} alternatives")
    return done


def _first_group(pattern: str) -> tuple[int, int, list[str]] | None:
    """``(start, end, alternatives)`` of the first ``{…,…}`` of ``pattern`` (its
    outermost braces), or ``None``. One pass: escapes and ``[...]`` sets skipped."""
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            close = pattern.find("]", i + 2)  # "[]" and "[!]" hold a literal "]" first
            i = n if close == -1 else close + 1
            continue
        if c == "{":
            found = _group_at(pattern, i)
            if found is not None:
                return found
        i += 1
    return None


def _group_at(pattern: str, start: int) -> tuple[int, int, list[str]] | None:
    depth, piece, parts = 0, start + 1, []
    i = start + 1
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}" and depth:
            depth -= 1
        elif c == "}":
            parts.append(pattern[piece:i])
            return (start, i, parts) if len(parts) > 1 else None
        elif c == "," and not depth:
            parts.append(pattern[piece:i])
            piece = i + 1
        i += 1
    return None


class Alternatives:
    """A glob with braces: matches a path when one of its alternatives does."""

    __slots__ = ("globs", "pattern")

    def __init__(self, pattern: str, alternatives: list[str]) -> None:
        self.pattern = pattern
        self.globs = [Glob(alternative) for alternative in alternatives]

    def match(self, path: str, work: Work | None = None) -> bool:
        return any(glob.match(path, work) for glob in self.globs)


def braced(pattern: str) -> Glob | Alternatives:
    """``pattern`` compiled, its braces expanded (``GlobError`` as ``Glob``'s, or for too
    many alternatives)."""
    alternatives = expand(pattern)
    if alternatives == [pattern]:
        return Glob(pattern)
    return Alternatives(pattern, alternatives)


__all__ = ["MAX_ALTERNATIVES", "Alternatives", "braced", "expand"]
