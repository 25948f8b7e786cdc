"""Glob matching in linear time, for the model's globs and a repository's ``.gitignore``.

Both are untrusted. They used to be translated to a Python regex (``gitignore.glob_to_regex``)
and matched with ``re``, which backtracks: ``*a*a*a*a*a*a*a*b`` against one long file name,
or ``**/`` twelve times over a deep tree, ran for hours inside ``re``'s C loop, which holds
the GIL, so neither the tool's timeout nor Esc nor SIGINT could stop it (issue 21, item 3).

Here a glob is matched without a regex engine, with the same meaning the regex had (the
translation is kept to validate globs and to test this module against it):

* ``*``, ``?`` and ``[...]`` stay within a folder, so a path is split on ``/`` and each
  segment is matched on its own: the pattern segment is cut at its ``*``s into fixed-width
  chunks; the first must match at the start, the last at the end, and every chunk between
  is placed at its leftmost fit — a later ``*`` can absorb whatever an earlier, later fit
  would have left, so the leftmost fit is never wrong and nothing is retried. That is the
  classic greedy wildcard match, O(len(segment) × len(pattern segment)) at worst.
* ``**`` as a whole segment (``**/`` anywhere, ``/**`` at the end) is a run of zero or more
  segments (one or more at the end: ``a/**`` is ``a/.*``); consecutive ones are merged first.
  The segments around them are matched at the segment level by the same argument: the
  segments before the first ``**`` head the path, those after the last one end it, and each
  run of segments between two ``**`` is placed at its leftmost fit. Every (pattern segment,
  path segment) pair is compared at most once, so a match costs O(len(path) × len(pattern)).
* A glob the segment view cannot express exactly (``**`` inside a segment, ``a**b``, which
  the old regex let cross folders; a ``[...]`` that matches ``/``) is matched by simulating
  its automaton on the whole path: the set of pattern positions reachable after each
  character, never a choice to undo. Also O(len(path) × len(pattern)).

``Work`` counts the steps either way, which is how the tests show the cost is linear
without timing anything.
"""

from __future__ import annotations

import operator
import re
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Final

from frontier.app.record import record

SEP: Final = "/"

# token kinds (small ints: compared in the inner loops)
_CHAR: Final = 0
"""A literal character."""
_ANY: Final = 1
"""``?``: any character but ``/``."""
_SET: Final = 2
"""``[...]``: one character of a class."""
_STAR: Final = 3
"""``*``: any run of characters without ``/``."""
_DSTAR: Final = 4
"""``**`` not followed by ``/``: any run of characters, ``/`` included (``.*``)."""
_GLOBSTAR: Final = 5
"""``**/``: nothing, or any run of characters ending in ``/`` (``(?:.*/)?``)."""

Token = tuple[int, Any]


class GlobError(ValueError):
    """A glob that is not valid (the caller says so to the model, or skips the rule)."""


@record(frozen=False)
class Work:
    """Steps a match took (characters compared or scanned, segment pairs tried)."""

    steps: int = 0


# ----------------------------------------------------------------------------- tokens


def _tokens(pattern: str) -> list[Token]:
    """The glob read exactly as ``gitignore.glob_to_regex`` reads it, one token per regex
    piece it would write (so both mean the same), with runs of stars merged."""
    out: list[Token] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append((_GLOBSTAR, None))
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == n:
            out += [(_CHAR, SEP), (_DSTAR, None)]
            i += 3
        elif pattern.startswith("**", i):
            out.append((_DSTAR, None))
            i += 2
        elif c == "*":
            out.append((_STAR, None))
            i += 1
        elif c == "?":
            out.append((_ANY, None))
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 2)
            if j == -1:
                out.append((_CHAR, c))
                i += 1
            else:
                out.append((_SET, _char_class(pattern, i, j)))
                i = j + 1
        elif c == "\\" and i + 1 < n:
            out.append((_CHAR, pattern[i + 1]))
            i += 2
        else:
            out.append((_CHAR, c))
            i += 1
    return _merge(out)


def _char_class(pattern: str, i: int, j: int) -> re.Pattern[str]:
    """``pattern[i:j+1]`` (a ``[...]``) as a one-character regex, written as
    ``glob_to_regex`` writes it. Matching one character against one class cannot
    backtrack, so ``re`` is safe here and keeps every detail of the class's meaning."""
    body = pattern[i + 1 : j].replace("\\", "\\\\").replace("[", "\\[")
    if body.startswith("!"):
        body = "^" + body[1:]
    if body == "^":
        # In a regex, ``[^]`` takes the ``]`` as a member and runs on to a later ``]``;
        # the old translation then gave a set that swallowed the rest of the glob.
        raise GlobError(f"the set {pattern[i : j + 1]} excludes nothing; write [!x] or [^x]")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set" for [[:alpha:]]
            return re.compile(f"[{body}]")
    except re.error as exc:
        raise GlobError(f"the set {pattern[i : j + 1]} is not valid: {exc.msg}") from exc


def _merge(tokens: list[Token]) -> list[Token]:
    """Runs of stars that mean the same as one: ``**/**/`` is ``**/``, and ``**/**``,
    ``***`` or ``*/**``'s ``.*`` next to another star is that ``.*``."""
    out: list[Token] = []
    for tok in tokens:
        kind = tok[0]
        prev = out[-1][0] if out else None
        if kind == _GLOBSTAR and prev in (_GLOBSTAR, _DSTAR):
            continue  # (?:.*/)?(?:.*/)? == (?:.*/)?, .*(?:.*/)? == .*
        if kind == _DSTAR:
            while out and out[-1][0] in (_GLOBSTAR, _DSTAR, _STAR):
                out.pop()  # (?:.*/)?.* == [^/]*.* == .*
        elif kind == _STAR and prev == _DSTAR:
            continue  # .*[^/]* == .*
        out.append(tok)
    return out


# ----------------------------------------------------------------------------- segments


@record
class _Chunk:
    """Fixed-width piece of a segment pattern between two ``*``: literal text, or tokens."""

    text: str | None
    """The chunk when it is literal (matched with ``str`` methods, in C)."""
    tokens: tuple[Token, ...]
    size: int

    def at(self, s: str, k: int, work: Work | None) -> bool:
        """Does the chunk match ``s`` at ``k`` (which leaves room for it)?"""
        if work is not None:
            work.steps += self.size or 1
        if self.text is not None:
            return s.startswith(self.text, k)
        for kind, value in self.tokens:
            ch = s[k]
            if kind == _CHAR:
                if ch != value:
                    return False
            elif kind == _SET and value.match(ch) is None:
                return False
            k += 1
        return True

    def find(self, s: str, start: int, end: int, work: Work | None) -> int:
        """The leftmost ``k >= start`` where the chunk fits in ``s[:end]``, or ``-1``."""
        if self.text is not None:
            k = s.find(self.text, start, end)
            if work is not None:
                work.steps += (k if k >= 0 else end) - start + self.size + 1
            return k
        for k in range(start, end - self.size + 1):
            if self.at(s, k, work):
                return k
        return -1


class _Segment:
    """One segment of a glob (no ``/``, no ``**``): ``chunks`` separated by ``*``."""

    __slots__ = ("chunks", "fast")

    def __init__(self, tokens: list[Token]) -> None:
        chunks: list[_Chunk] = []
        piece: list[Token] = []
        for tok in [*tokens, (_STAR, None)]:
            if tok[0] != _STAR:
                piece.append(tok)
                continue
            literal = all(kind == _CHAR for kind, _ in piece)
            text = "".join(value for _, value in piece) if literal else None
            chunks.append(_Chunk(text, tuple(piece), len(piece)))
            piece = []
        self.chunks = tuple(chunks)
        self.fast: Callable[[str], bool] = self._fast() or (lambda s: self.match(s, None))

    def _fast(self) -> Callable[[str], bool] | None:
        """The common literal shapes (``name``, ``*.py``, ``test_*``) as ``str`` methods;
        the same answer as ``match``, without counting."""
        texts = [c.text for c in self.chunks if c.text is not None]
        if len(texts) != len(self.chunks) or len(texts) > 2:
            return None
        if len(texts) == 1:
            return texts[0].__eq__
        a, b = texts
        least = len(a) + len(b)
        return lambda s: len(s) >= least and s.startswith(a) and s.endswith(b)

    def match(self, s: str, work: Work | None) -> bool:
        chunks = self.chunks
        first, last = chunks[0], chunks[-1]
        if len(chunks) == 1:
            return len(s) == first.size and first.at(s, 0, work)
        end = len(s) - last.size
        if end < first.size or not first.at(s, 0, work) or not last.at(s, end, work):
            return False
        pos = first.size
        for chunk in chunks[1:-1]:
            k = chunk.find(s, pos, end, work)
            if k < 0:
                return False
            pos = k + chunk.size
        return True


def _fits(run: Sequence[_Segment], parts: list[str], k: int, work: Work | None) -> bool:
    """Each segment of ``run`` matches ``parts`` from ``k`` on (which leaves room for it)."""
    if work is None:
        return all(seg.fast(parts[k + i]) for i, seg in enumerate(run))
    for i, seg in enumerate(run):
        work.steps += 1
        if not seg.match(parts[k + i], work):
            return False
    return True


@record
class _Plan:
    """A glob at the segment level: ``head``, then (when there is any ``**``) runs of
    segments between ``**``s, then ``tail``; the last ``**`` takes at least ``least``."""

    head: tuple[_Segment, ...]
    stars: bool
    runs: tuple[tuple[_Segment, ...], ...] = ()
    tail: tuple[_Segment, ...] = ()
    least: int = 0

    def match(self, parts: list[str], work: Work | None) -> bool:
        head, tail = self.head, self.tail
        if not self.stars:
            return len(parts) == len(head) and _fits(head, parts, 0, work)
        lo, hi = len(head), len(parts) - len(tail)
        if hi < lo or not _fits(head, parts, 0, work) or not _fits(tail, parts, hi, work):
            return False
        end = hi - self.least
        pos = lo
        for run in self.runs:  # each at its leftmost fit: a later ** absorbs the rest
            for k in range(pos, end - len(run) + 1):
                if _fits(run, parts, k, work):
                    pos = k + len(run)
                    break
            else:
                return False
        return pos <= end


def _plan(tokens: list[Token]) -> _Plan | None:
    """The pattern at the segment level, or ``None`` when a ``**`` sits inside a segment or
    a ``[...]`` could match ``/`` (the automaton matches those)."""
    groups: list[list[_Segment]] = [[]]  # segments between ** (consecutive ones are merged)
    least = 0
    current: list[Token] = []
    fresh = True  # at the start of a segment
    for index, (kind, value) in enumerate(tokens):
        if kind == _CHAR and value == SEP:
            groups[-1].append(_Segment(current))
            current, fresh = [], True
        elif kind == _GLOBSTAR:
            if not fresh:
                return None  # a**/b: the ** runs on from a character of a segment
            groups.append([])
        elif kind == _DSTAR:
            if not fresh or index != len(tokens) - 1:
                return None  # a**b, **.py: .* inside a segment crosses folders
            groups.append([])
            least = 1  # a/** is a/.*: at least one more segment
            break
        else:
            if kind == _SET and value.match(SEP) is not None:
                return None
            current.append((kind, value))
            fresh = False
    else:
        groups[-1].append(_Segment(current))
    if len(groups) == 1:
        return _Plan(tuple(groups[0]), stars=False)
    runs = tuple(tuple(g) for g in groups[1:-1] if g)
    return _Plan(tuple(groups[0]), True, runs, tuple(groups[-1]), least)


# ----------------------------------------------------------------------------- automaton

_OPT: Final = 6
"""Automaton only: skip to ``value`` or go on (the start of ``(?:.*/)?``)."""
_INSIDE: Final = 7
"""Automaton only: inside ``(?:.*/)?``: any character stays, ``/`` may also leave."""
DFA_CACHE = 4096
"""Sets of positions the automaton numbers and remembers moves between; past this a match
steps the sets themselves (the same answer, slower): a bound on memory, not on time."""


class _Automaton:
    """The glob's automaton, run on sets of positions (Thompson's construction): each
    character moves every live position at once, so there is never a choice to undo.
    Sets already met are numbered and their moves remembered (a lazily built DFA), so a
    listing of many similar paths costs a dictionary look-up per character."""

    def __init__(self, tokens: list[Token]) -> None:
        states: list[Token] = []
        for kind, value in tokens:
            if kind == _GLOBSTAR:  # (?:.*/)? is: skip, or any characters then a /
                states += [(_OPT, len(states) + 2), (_INSIDE, None)]
            else:
                states.append((kind, value))
        self.states = states
        self.closures = [self._closure(p) for p in range(len(states) + 1)]
        self._lock = threading.Lock()
        self._ids: dict[frozenset[int], int] = {self.closures[0]: 0}
        self._sets: list[frozenset[int]] = [self.closures[0]]
        self._moves: dict[tuple[int, str], int] = {}

    def _closure(self, p: int) -> frozenset[int]:
        """``p`` and the positions reachable from it without reading a character."""
        seen, todo = {p}, [p]
        while todo:
            q = todo.pop()
            if q == len(self.states):
                continue
            kind, value = self.states[q]
            nxt = [q + 1] if kind in (_STAR, _DSTAR) else [q + 1, value] if kind == _OPT else []
            for r in nxt:
                if r not in seen:
                    seen.add(r)
                    todo.append(r)
        return frozenset(seen)

    def step(self, current: frozenset[int], ch: str, work: Work | None) -> frozenset[int]:
        """The positions live after reading ``ch`` from ``current``."""
        final = len(self.states)
        closures = self.closures
        nxt: set[int] = set()
        for p in current:
            if p == final:
                continue
            kind, value = self.states[p]
            if kind == _CHAR:
                if ch == value:
                    nxt |= closures[p + 1]
            elif kind == _ANY:
                if ch != SEP:
                    nxt |= closures[p + 1]
            elif kind == _SET:
                if value.match(ch) is not None:
                    nxt |= closures[p + 1]
            elif kind == _STAR:
                if ch != SEP:
                    nxt |= closures[p]
            elif kind != _OPT:  # _DSTAR, _INSIDE: any character stays; / may leave (?:.*/)?
                nxt |= closures[p]
                if kind == _INSIDE and ch == SEP:
                    nxt |= closures[p + 1]
        if work is not None:
            work.steps += len(current) + 1
        return frozenset(nxt)

    def match(self, path: str, work: Work | None) -> bool:
        final = len(self.states)
        state, moves = 0, self._moves
        for i, ch in enumerate(path):
            nxt = moves.get((state, ch)) if work is None else None
            if nxt is None:
                nxt = self._remember(state, ch) if work is None else None
            if nxt is None:  # counted, or the cache is full: step the sets themselves
                current = self._sets[state]
                for later in path[i:]:
                    current = self.step(current, later, work)
                    if not current:
                        return False
                return final in current
            state = nxt
        return final in self._sets[state]

    def _remember(self, state: int, ch: str) -> int | None:
        """The number of the set ``state`` moves to on ``ch``, remembered; ``None`` once
        ``DFA_CACHE`` sets are known. Numbers are never reused (a lock keeps two threads
        from giving one number twice), so a match in another thread stays right."""
        positions = self.step(self._sets[state], ch, None)
        with self._lock:
            ident = self._ids.get(positions)
            if ident is None:
                if len(self._sets) >= DFA_CACHE:
                    return None
                ident = self._ids[positions] = len(self._sets)
                self._sets.append(positions)
            self._moves[state, ch] = ident
        return ident


# ----------------------------------------------------------------------------- the glob


class Glob:
    """A compiled glob; ``match`` says whether a whole relative path matches it."""

    __slots__ = ("_automaton", "_plan", "_quick", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        tokens = _tokens(_composed(pattern))
        self._plan = _plan(tokens)
        self._automaton = _Automaton(tokens) if self._plan is None else None
        self._quick = _quick(self._plan) if self._plan is not None else None

    @property
    def segmentwise(self) -> bool:
        """Matched segment by segment (else by the automaton); for tests and the benchmark."""
        return self._plan is not None

    def match(self, path: str, work: Work | None = None) -> bool:
        """``path`` (``/``-separated, relative) matches the whole glob. Both are compared
        composed (NFC): a name macOS wrote decomposed (``café`` as ``e`` + U+0301) matches
        the ``café*`` a model writes composed."""
        path = _composed(path)
        if work is None and self._quick is not None:
            return self._quick(path)
        if self._plan is not None:
            parts = path.split(SEP)
            if work is not None:
                work.steps += len(parts)  # the split: one step a segment
            return self._plan.match(parts, work)
        assert self._automaton is not None
        return self._automaton.match(path, work)

    def __repr__(self) -> str:
        return f"Glob({self.pattern!r})"


def _composed(text: str) -> str:
    """``text`` in Unicode's composed form (NFC); ASCII as it is, without a lookup."""
    if text.isascii():
        return text
    import unicodedata

    return unicodedata.normalize("NFC", text)


def _quick(plan: _Plan) -> Callable[[str], bool] | None:
    """The shapes nearly every glob and ``.gitignore`` rule has, with fewer calls: one
    segment (``*.log``, ``build``), ``**/`` then one (``**/*.py``), and segments around
    one ``**`` (``src/**/*.ts``, ``a/**``). The same answers as ``_Plan.match``."""
    head = [seg.fast for seg in plan.head]
    tail = [seg.fast for seg in plan.tail]
    if not plan.stars and len(head) == 1:
        one = head[0]
        return lambda path: SEP not in path and one(path)
    if not plan.stars or plan.runs:
        return None
    if not head and len(tail) == 1 and not plan.least:
        last = tail[0]
        return lambda path: last(path[path.rfind(SEP) + 1 :])
    least = len(head) + len(tail) + plan.least
    if not head and not tail:
        return lambda path: path.count(SEP) + 1 >= least

    tests = head + tail
    nh, nt = len(head), len(tail)

    def around(path: str) -> bool:
        parts = path.split(SEP)
        if len(parts) < least:
            return False
        return all(map(operator.call, tests, parts[:nh] + parts[len(parts) - nt :]))

    return around


def compile_glob(pattern: str) -> Glob:
    """``pattern`` compiled; ``GlobError`` if a ``[...]`` in it is not valid."""
    return Glob(pattern)
