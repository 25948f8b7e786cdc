"""A model's regular expression, decided line by line without backtracking in the agent.

Python's ``re`` backtracks, and it holds the GIL for as long as one match runs: grep
``(a+)+$`` over a 35-byte line of ``a``s froze the whole agent — the tool's 60 s timeout,
Esc and SIGINT included (issue 21, item 3). So grep never runs the model's pattern with
``re`` in this process. It keeps ``re``'s *meaning* (the tool documents Python syntax, and
results must not change), and gets it from one of two places:

* **RE2** (``google-re2``, linear time, no backtracking), for every pattern it can express.
  The pattern is parsed with Python's own parser (``re._parser``) and written out again in
  RE2's syntax so that both mean the same on a line: the character classes (``\\w``,
  ``\\d``, ``\\s``, ``[^…]``) are spelled as explicit code-point ranges taken from Python's
  ``re`` itself (RE2's ``\\w`` is ASCII-only, its Unicode tables are a newer version), and
  a class under ``IGNORECASE`` as the exact ASCII characters Python's ``re`` accepts for
  it (Python folds a few characters RE2 does not, such as ``İ`` for ``i``).
* **Python's ``re`` in a child process** (``regex_worker``), which the call's timeout and Esc
  kill, for what RE2 cannot say: look-around, back-references, atomic groups, possessive
  repeats, counts over 1,000 — and for the lines where RE2's verdict could differ: a line
  holding a non-ASCII word character when the pattern has a Unicode ``\\b`` (RE2's word
  boundary is ASCII-only), a non-ASCII line when it matches case-insensitively. Only those
  lines are sent; the child starts at the first one.

Lines never hold ``\\n`` (files are split on it), so every class is written without ``\\n``
and ``^``/``$``/``\\A``/``\\Z`` as line anchors: a block of lines is then searched at once
(a match cannot run across lines). RE2 is asked for *runs* of consecutive matching lines
(``(?:^[^\\n]*(?:P)[^\\n]*(?:\\n|\\z))+``), so a block where every line matches costs one
call, not one per line (a call costs microseconds).
"""

from __future__ import annotations

import array
import functools
import importlib
import os
import re
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, Final

from frontier.app.record import record

sre: Any
sre_parse: Any
try:  # Python's own parser: the one reading of the pattern both engines are held to
    sre = importlib.import_module("re._constants")
    sre_parse = importlib.import_module("re._parser")
except ImportError:  # a Python without them (they are private): everything in the child
    sre = sre_parse = None

re2: Any
try:
    re2 = importlib.import_module("re2")
except ImportError:  # no wheel for this platform: the child decides every line
    re2 = None

MAX_CODE: Final = 0x10FFFF
RE2_MAX_REPEAT: Final = 1000
"""RE2 refuses a count above this (``a{1001}``): such a pattern goes to the child."""
RE2_MAX_MEM: Final = 64 << 20
"""RE2's budget for one pattern (its default is 8 MiB): a class spelled as ranges is long."""
RE2_MAX_SOURCE: Final = 1 << 20
"""Characters of RE2 syntax a translation may write (one Unicode ``\\w`` is ~11,600): past
this the child decides (translating and compiling 400 ``\\w`` took a second, in the agent)."""
WORKER: Final = Path(__file__).with_name("regex_worker.py")
WORKER_ENV: Final = ("PATH", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "SYSTEMROOT")
"""What the child keeps of the environment (enough to start the interpreter; no keys)."""
_INDEX: Final = "I" if array.array("I").itemsize == 4 else "L"

Ranges = tuple[tuple[int, int], ...]
"""Code points as sorted, disjoint, non-adjacent inclusive ranges."""


class PatternStopped(Exception):
    """The search was stopped (Esc, the timeout) while the child was deciding lines."""


class RegexUnavailable(Exception):
    """The child that runs Python's ``re`` could not be started."""


# ----------------------------------------------------------------------------- code points


def _norm(ranges: Iterable[tuple[int, int]]) -> Ranges:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(r for r in ranges if r[0] <= r[1]):
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


def _complement(ranges: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CODE:
        out.append((nxt, MAX_CODE))
    return tuple(out)


def _minus(ranges: Ranges, gone: Ranges) -> Ranges:
    return _complement(_norm([*_complement(ranges), *gone]))


_NEVER_IN_A_LINE: Final[Ranges] = ((0x0A, 0x0A), (0xD800, 0xDFFF))
"""``\\n`` (lines are split on it) and surrogates (a decoded line has none)."""
_ASCII: Final[Ranges] = ((0, 0x7F),)


@functools.cache
def _all_code_points() -> str:
    """Every code point, in order (surrogates included, so an index is its code point)."""
    n = MAX_CODE + 1  # 0x110000 = 17 * 65536
    buf = bytearray(4 * n)
    buf[0::4] = bytes(range(256)) * (n // 256)
    buf[1::4] = b"".join(bytes([b]) * 256 for b in range(256)) * (n // 65536)
    buf[2::4] = b"".join(bytes([b]) * 65536 for b in range(n // 65536))
    return bytes(buf).decode("utf-32-le", "surrogatepass")


@functools.cache
def _category(code: int, ascii_only: bool) -> Ranges:
    """The code points Python's ``re`` puts in ``\\w``/``\\d``/``\\s`` (``ascii_only``: under
    ``re.ASCII``), read from ``re`` itself so the two engines agree on every one of them.
    The first call for a class scans all code points once (~0.1 s)."""
    escape = {
        sre.CATEGORY_WORD: r"\w",
        sre.CATEGORY_DIGIT: r"\d",
        sre.CATEGORY_SPACE: r"\s",
    }[code]
    flags = re.ASCII if ascii_only else 0
    finder = re.compile(escape + "+", flags)
    text = _all_code_points()[:0x80] if ascii_only else _all_code_points()
    return _norm((m.start(), m.end() - 1) for m in finder.finditer(text))


_NEGATED_CATEGORY: Final = (
    {}
    if sre is None
    else {
        sre.CATEGORY_NOT_WORD: sre.CATEGORY_WORD,
        sre.CATEGORY_NOT_DIGIT: sre.CATEGORY_DIGIT,
        sre.CATEGORY_NOT_SPACE: sre.CATEGORY_SPACE,
    }
)
_CATEGORY_ESCAPE: Final = (
    {}
    if sre is None
    else {
        sre.CATEGORY_WORD: r"\w",
        sre.CATEGORY_NOT_WORD: r"\W",
        sre.CATEGORY_DIGIT: r"\d",
        sre.CATEGORY_NOT_DIGIT: r"\D",
        sre.CATEGORY_SPACE: r"\s",
        sre.CATEGORY_NOT_SPACE: r"\S",
    }
)


def _re2_set(ranges: Ranges) -> str:
    """``ranges`` in RE2's syntax (ASCII text: every member as ``\\x{…}``)."""
    if not ranges:
        return r"[^\x{0}-\x{10ffff}]"  # the empty set: matches nothing
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return f"\\x{{{ranges[0][0]:x}}}"
    body = "".join(
        f"\\x{{{lo:x}}}" if lo == hi else f"\\x{{{lo:x}}}-\\x{{{hi:x}}}" for lo, hi in ranges
    )
    return f"[{body}]"


# ----------------------------------------------------------------------------- translation


class _Unsupported(Exception):
    """RE2 cannot say what Python's ``re`` would (the child decides instead)."""


@record(frozen=False)
class Translation:
    """A Python pattern written for RE2, and when RE2's verdict on a line may differ."""

    source: str
    """RE2 syntax, ASCII only, every class without ``\\n``, anchors at line ends."""
    word_boundary: bool = False
    """A Unicode ``\\b``/``\\B``: lines with a non-ASCII word character go to the child."""
    ignore_case: bool = False
    """Case-insensitive somewhere: lines with any non-ASCII character go to the child."""
    non_boundary: bool = False
    """A ``\\B``: RE2's holds between the bytes of a multi-byte character (non-ASCII lines
    go to the child), and Python's ``re`` (before 3.14) never matches it in an empty string
    while RE2 does (the child decides empty lines, once: they all get the same answer)."""


def translate(pattern: str, flags: int = 0) -> Translation | None:
    """``pattern`` (Python syntax, valid) in RE2's syntax, or ``None`` if RE2 cannot express
    it exactly (or is not installed)."""
    if sre_parse is None or re2 is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed = sre_parse.parse(pattern, flags)
        out = Translation("")
        out.source = _Writer(out).seq(list(parsed), parsed.state.flags)
    except (_Unsupported, re.error, RecursionError):
        return None
    return out


class _Writer:
    """Python's parse tree → RE2 text; raises ``_Unsupported`` for what RE2 lacks."""

    def __init__(self, out: Translation) -> None:
        self.out = out
        self.size = 0
        """Characters written for classes so far (``RE2_MAX_SOURCE`` bounds them)."""

    def seq(self, items: Sequence[tuple[Any, Any]], flags: int) -> str:
        return "".join(self.node(op, av, flags) for op, av in items)

    def node(self, op: Any, av: Any, flags: int) -> str:
        if op in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN):
            return self.chars(op, av, flags)
        if op is sre.BRANCH:
            return "(?:" + "|".join(self.seq(alt, flags) for alt in av[1]) + ")"
        if op is sre.SUBPATTERN:
            _, add, remove, sub = av
            if (add | remove) & (re.ASCII | re.UNICODE):
                # (?a:…) scoped: CPython's search prefilter reads such a group's first class
                # with the outer flags ((?a:\W) never matches ß), a reading only re has
                raise _Unsupported("scoped ASCII/UNICODE")
            return "(?:" + self.seq(sub, (flags | add) & ~remove) + ")"
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):  # lazy or greedy: a line matches or not
            lo, hi, sub = av
            if lo > RE2_MAX_REPEAT or (hi != sre.MAXREPEAT and hi > RE2_MAX_REPEAT):
                raise _Unsupported("count")
            top = "" if hi == sre.MAXREPEAT else str(hi)
            return f"(?:{self.seq(sub, flags)}){{{lo},{top}}}"
        if op is sre.AT:
            return self.at(av, flags)
        # look-around, back-references, conditionals, atomic groups, possessive repeats
        raise _Unsupported(str(op))

    def at(self, code: Any, flags: int) -> str:
        if code in (sre.AT_BEGINNING, sre.AT_BEGINNING_STRING):
            return "(?m:^)"  # a line holds no \n: start of string == start of line
        if code in (sre.AT_END, sre.AT_END_STRING):
            return "(?m:$)"
        if code in (sre.AT_BOUNDARY, sre.AT_NON_BOUNDARY):
            if not flags & re.ASCII:
                self.out.word_boundary = True
            if code is sre.AT_NON_BOUNDARY:
                self.out.non_boundary = True
            return r"\b" if code is sre.AT_BOUNDARY else r"\B"
        raise _Unsupported(str(code))

    def chars(self, op: Any, av: Any, flags: int) -> str:
        """One character's test, as the exact set of code points it accepts."""
        if flags & re.IGNORECASE:
            self.out.ignore_case = True
            text = _re2_set(_folded(_python_text(op, av), flags))
        else:
            text = _re2_set(_minus(_members(op, av, flags), _NEVER_IN_A_LINE))
        self.size += len(text)
        if self.size > RE2_MAX_SOURCE:
            raise _Unsupported("too long for RE2")
        return text


def _members(op: Any, av: Any, flags: int) -> Ranges:
    ascii_only = bool(flags & re.ASCII)
    if op is sre.LITERAL:
        return ((av, av),)
    if op is sre.NOT_LITERAL:
        return _complement(((av, av),))
    if op is sre.ANY:
        return ((0, MAX_CODE),) if flags & re.DOTALL else _complement(((0x0A, 0x0A),))
    negate = False
    parts: list[tuple[int, int]] = []
    for item, value in av:
        if item is sre.NEGATE:
            negate = True
        elif item is sre.LITERAL:
            parts.append((value, value))
        elif item is sre.RANGE:
            parts.append(value)
        elif item is sre.CATEGORY and value in _NEGATED_CATEGORY:
            parts += _complement(_category(_NEGATED_CATEGORY[value], ascii_only))
        elif item is sre.CATEGORY and value in _CATEGORY_ESCAPE:
            parts += _category(value, ascii_only)
        else:
            raise _Unsupported(str(item))
    members = _norm(parts)
    return _complement(members) if negate else members


def _python_text(op: Any, av: Any) -> str:
    """One character's test written back in Python's syntax (to ask ``re`` about it)."""

    def char(code: int) -> str:
        return f"\\U{code:08x}"

    if op is sre.LITERAL:
        return char(av)
    if op is sre.NOT_LITERAL:
        return f"[^{char(av)}]"
    if op is sre.ANY:
        return "."
    body = ""
    for item, value in av:
        if item is sre.NEGATE:
            body += "^"
        elif item is sre.LITERAL:
            body += char(value)
        elif item is sre.RANGE:
            body += f"{char(value[0])}-{char(value[1])}"
        elif item is sre.CATEGORY and value in _CATEGORY_ESCAPE:
            body += _CATEGORY_ESCAPE[value]
        else:
            raise _Unsupported(str(item))
    return f"[{body}]"


@functools.lru_cache(maxsize=1024)
def _folded(text: str, flags: int) -> Ranges:
    """The ASCII characters (``\\n`` aside) that one case-insensitive character test
    accepts, asked of Python's ``re`` itself: only ASCII lines are decided by RE2 when a
    pattern ignores case. One character against one class cannot backtrack."""
    test = re.compile(text, flags & (re.IGNORECASE | re.ASCII | re.DOTALL)).fullmatch
    return _norm((c, c) for c in range(0x80) if c != 0x0A and test(chr(c)))


# ----------------------------------------------------------------------------- the matcher


class LinePattern:
    """A model's pattern; ``matching`` says which lines of a block match, as ``re.search``
    on each line would, with RE2 here and Python's ``re`` only in a child process.

    Thread use: one thread searches; ``close`` may come from any thread (it kills the child,
    and a search waiting on it raises ``PatternStopped``)."""

    def __init__(self, source: str, flags: int = 0, *, cpu_seconds: int = 0) -> None:
        self.source = source
        self.flags = flags & ~re.UNICODE
        self.cpu_seconds = cpu_seconds
        """CPU seconds the child may use (0: no limit of its own), so an orphan ends."""
        self._lock = threading.Lock()
        """Guards the child and ``_closed`` (``close`` never waits for a translation)."""
        self._prepare_lock = threading.Lock()
        self._ready = False
        self._re2: Any = None
        self._risky: Any = None
        self._non_boundary = False
        self._empty: bool | None = None
        """Whether an empty line matches (asked of the child once, for a ``\\B``)."""
        self._worker: _Worker | None = None
        self._closed = False
        self.children: list[int] = []
        """Process ids of the children started (for the tests and the benchmark)."""

    @classmethod
    def of(cls, pattern: re.Pattern[str] | LinePattern) -> LinePattern:
        return pattern if isinstance(pattern, LinePattern) else cls(pattern.pattern, pattern.flags)

    @property
    def engine(self) -> str:
        """``re2``, ``re2+child`` (some lines may go to the child) or ``child``."""
        self._prepare()
        if self._re2 is None:
            return "child"
        return "re2" if self._risky is None else "re2+child"

    def _prepare(self) -> None:
        """Translate and compile once, on the first search (in the searching thread: the
        first use of ``\\w`` reads Python's tables, ~0.1 s)."""
        with self._prepare_lock:
            if self._ready:
                return
            try:
                self._compile()
            finally:
                self._ready = True

    def _compile(self) -> None:
        found = translate(self.source, self.flags)
        if found is None:
            return
        try:
            self._re2 = _compiled(_RUNS.format(found.source))
        except re2.error:  # too big for RE2 (nested counts): the child decides
            return
        self._non_boundary = found.non_boundary
        if found.ignore_case or found.non_boundary:
            # RE2 folds case its own way; its \B holds between the bytes of one
            # multi-byte character. Only ASCII lines are decided by RE2 then.
            self._risky = _python_finder(re.compile(rb"[^\x00-\x7f]"))  # linear
        elif found.word_boundary:
            self._risky = _non_ascii_word()

    def matching(self, raw: bytes) -> list[int]:
        """Indices of the lines of ``raw`` (valid UTF-8, split on ``\\n``) that match."""
        self._prepare()
        if self._closed:
            raise PatternStopped
        if self._re2 is None:
            return self._child(raw)
        hits = _lines_found(self._re2, raw)
        if self._non_boundary:
            hits = self._empty_lines_decided(raw, hits)
        if self._risky is None or raw.isascii():
            return hits
        risky = _lines_found(self._risky, raw)
        if not risky:
            return hits
        lines = raw.split(b"\n")
        decided = self._child(b"\n".join(lines[i] for i in risky))
        kept = set(hits).difference(risky)
        kept.update(risky[k] for k in decided)
        return sorted(kept)

    def _empty_lines_decided(self, raw: bytes, hits: list[int]) -> list[int]:
        """``hits`` with every empty line's verdict the child's (see ``non_boundary``)."""
        empty = _lines_found(_EMPTY_LINE, raw)
        if not empty:
            return hits
        if self._empty is None:
            self._empty = bool(self._child(b""))
        kept = set(hits).difference(empty)
        if self._empty:
            kept.update(empty)
        return sorted(kept)

    def _child(self, raw: bytes) -> list[int]:
        with self._lock:
            if self._closed:
                raise PatternStopped
            if self._worker is None:
                self._worker = _Worker(self.source, self.flags, self.cpu_seconds)
                self.children.append(self._worker.proc.pid)
            worker = self._worker
        return worker.match(raw)

    @property
    def child_started(self) -> bool:
        """A child process was needed (for the tests and the benchmark)."""
        return bool(self.children)

    def close(self) -> None:
        """Stop: kill the child if one runs; later searches raise ``PatternStopped``."""
        with self._lock:
            self._closed = True
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.kill()


Finder = Callable[[bytes, int], "tuple[int, int] | None"]
"""The span of the first match at or after a position, or ``None``."""

_RUNS: Final = r"(?:(?m:^)[^\n]*(?:{})[^\n]*(?:\n|\z))+"
"""A run of consecutive whole lines each holding a match of the pattern (which matches
nothing across a line): one RE2 call finds a run, however many lines it holds."""


def _compiled(source: str) -> Finder:
    """RE2's search for ``source`` (ASCII), as a finder. The binding's own ``Match`` is used
    when it is there: the public ``search`` builds a match object and a generator per
    call, four times the cost of the search itself on short runs."""
    options = re2.Options()
    options.never_capture = True
    options.max_mem = RE2_MAX_MEM
    compiled = re2.compile(source.encode("ascii"), options)
    low = getattr(getattr(compiled, "_regexp", None), "Match", None)
    anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if low is not None and anchor is not None:

        def find(raw: bytes, pos: int) -> tuple[int, int] | None:
            span = low(anchor, raw, pos, len(raw))[0]
            return None if span[0] < 0 else (span[0], span[1])

        return find
    return _python_finder(compiled)


def _python_finder(compiled: Any) -> Finder:
    """A finder from any ``search(text, pos)`` (``re`` for our own linear patterns, or the
    public RE2 API)."""

    def find(raw: bytes, pos: int) -> tuple[int, int] | None:
        m = compiled.search(raw, pos)
        return None if m is None else m.span()

    return find


_EMPTY_LINE: Final = _python_finder(re.compile(rb"(?m)^$"))
"""An empty line (our pattern, not the model's: it cannot backtrack)."""


def _lines_found(find: Finder, raw: bytes) -> list[int]:
    """Indices of the lines where ``find`` finds a match: a match within one line, or a run
    of whole lines (``_RUNS``, ending in ``\\n`` or at the end). After each, the search goes on
    from the next line, so the cost is one call per match or run, each linear in what it
    scans."""
    out: list[int] = []
    line = counted = pos = 0
    end = len(raw)
    while pos <= end:
        span = find(raw, pos)
        if span is None:
            break
        start, stop = span
        line += raw.count(b"\n", counted, start)
        whole = stop > start and raw[stop - 1] == 0x0A  # a run ends with its line's \n
        last = line + raw.count(b"\n", start, stop) - whole
        out.extend(range(line, last + 1))
        if whole:
            pos = stop
        else:
            nl = raw.find(b"\n", stop)
            if nl < 0:
                break
            pos = nl + 1
        counted, line = pos, last + 1
    return out


@functools.cache
def _non_ascii_word() -> Finder:
    """RE2 search for a character Python's ``\\w`` accepts beyond ASCII."""
    word = _minus(_category(sre.CATEGORY_WORD, False), (*_ASCII, *_NEVER_IN_A_LINE))
    return _compiled(_re2_set(word))


class _Worker:
    """``regex_worker.py`` in its own process group: Python's ``re`` on the lines sent."""

    def __init__(self, source: str, flags: int, cpu_seconds: int) -> None:
        env = {k: v for k, v in os.environ.items() if k in WORKER_ENV}
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", str(WORKER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                cwd=WORKER.parent,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            raise RegexUnavailable(str(exc)) from exc
        _reaper_watch(self.proc.pid)
        text = source.encode("utf-8", "surrogatepass")
        head = flags.to_bytes(4, "little") + cpu_seconds.to_bytes(4, "little")
        try:
            self._send(head + len(text).to_bytes(4, "little") + text)
        except PatternStopped:  # it died at once: reaped, not left on the reaper's list
            self.kill()
            raise

    def _send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError) as exc:
            raise PatternStopped from exc

    def _read(self, size: int) -> bytes:
        assert self.proc.stdout is not None
        try:
            data = self.proc.stdout.read(size)
        except (ValueError, OSError) as exc:
            raise PatternStopped from exc
        if len(data) < size:  # killed (Esc, the timeout, its CPU limit)
            raise PatternStopped
        return data

    def match(self, raw: bytes) -> list[int]:
        self._send(len(raw).to_bytes(8, "little") + raw)
        count = int.from_bytes(self._read(4), "little")
        hits = array.array(_INDEX)
        hits.frombytes(self._read(4 * count) if count else b"")
        if sys.byteorder != "little":
            hits.byteswap()
        return hits.tolist()

    def kill(self) -> None:
        """SIGKILL (the child holds no state worth a grace period), then reap it."""
        try:
            self.proc.kill()
        except ProcessLookupError:
            pass
        self.proc.wait()
        _reaper_release(self.proc.pid)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:  # a broken pipe on flush: nothing left to say to it
                    continue


def _reaper_watch(pid: int) -> None:
    """Tell Frontier's reaper about the child, so it dies with Frontier even mid-match."""
    from frontier.tools.process import _GroupReaper

    _GroupReaper.watch(pid)


def _reaper_release(pid: int) -> None:
    from frontier.tools.process import _GroupReaper

    _GroupReaper.release(pid)
