"""grep and glob over the workspace, respecting ``.gitignore``.

The workspace is untrusted input. Which files are searched is decided by one walk
(``gitignore.walk``: beneath the root by directory descriptors, links never followed,
only regular files, ``.gitignore`` read safely), whichever searcher then reads them:

* the pure-Python searcher reads each file by descriptor (``O_NONBLOCK | O_NOFOLLOW``,
  ``S_ISREG`` checked on the descriptor), so a FIFO swapped in cannot block it; a single
  file named as the path is always searched this way;
* ripgrep, when it is on PATH, walks the folder itself but reads none of the workspace's
  ignore files (``--no-ignore``: a ``.gitignore`` FIFO would hang it): what our walk left
  out is handed to it as an ignore file of our own, so it sees exactly the same files.
  ``--json`` gives paths and lines exactly, whatever characters they hold, and says which
  files held a NUL byte; ``--encoding none`` turns off BOM transcoding. Its matching lines
  are decided again as Python's ``re`` reads the pattern (``regex_guard``), and a pattern
  whose meaning differs between the two dialects (or that ripgrep cannot compile) is
  searched in Python instead. The model's glob is never handed to ripgrep: its files are
  filtered here, and the ignore file written for it holds only escaped literal paths.

The model's pattern and glob are untrusted too (issue 21, item 3): a regex is never run as a
backtracking match in this process — ``regex_guard.LinePattern`` decides lines with RE2, or
with Python's ``re`` in a child process that Esc and the timeout kill — and a glob is matched
by ``globmatch`` in linear time. Esc (the call's ``CancelToken``) stops a search or a listing
at once: the walk's thread is told to stop, ripgrep and the regex child are killed.

Both produce the same sorted ``path:line:text`` rows: lines split on ``\\n`` only, a file
with a NUL byte anywhere is binary and skipped, a CR before the newline is matched (as
ripgrep does) but not shown, undecodable bytes show as U+FFFD. glob uses the same walk, so
it lists exactly the files grep would search: a symlink (to a file or a folder, inside the
workspace or out of it) is never listed.
"""

from __future__ import annotations

import asyncio
import base64
import codecs
import contextlib
import errno
import os
import re
import stat
import tempfile
import threading
import warnings
from collections.abc import Awaitable, Callable, Mapping
from itertools import groupby
from pathlib import Path
from typing import Any, TypeVar

from frontier.app import fastjson
from frontier.app.events import ToolCall
from frontier.app.listing import listing
from frontier.app.programs import find_program
from frontier.app.record import record
from frontier.tools import beneath
from frontier.tools.arg_aliases import GLOB, GREP
from frontier.tools.base import CancelToken, Outcome, Prepared, ToolError
from frontier.tools.beneath import NotRegularFileError, open_regular
from frontier.tools.contract import ToolContext, ToolSpec
from frontier.tools.file_types import TypeFilter, UnknownType, type_globs
from frontier.tools.gitignore import Entry, Skipped, walk
from frontier.tools.glob_braces import Alternatives, braced
from frontier.tools.globmatch import Glob, GlobError
from frontier.tools.paths import PathError, real_root, resolve
from frontier.tools.regex_guard import LinePattern, PatternStopped, RegexUnavailable
from frontier.tools.utf16 import is_utf16, utf16_text

MAX_MATCHES = 500
MAX_CONTEXT = 10
"""Lines of context grep shows around a match, at most (``context``, ``-C``)."""
CONTEXT_FILE_MAX = 16 << 20
"""A file is read again for its context lines up to this size (a larger one keeps its
matching rows alone)."""
CONTEXT_BYTES = 64 << 20
"""The files read again for one grep's context lines, in all: 500 matches in 500 files of
16 MiB would have read 8 GB."""
MAX_FOUND = 20_000
"""Matching lines a search keeps: past it the search stops and says so. The model is shown
``MAX_MATCHES`` and the count; keeping every match of a common letter (``e`` in 33,623
files: 4.6 million lines) took 78 s and 7 GB to show it 500."""
MAX_FILES = 1000
LINE_CHARS = 300
READ_BLOCK = 1 << 20
SKIPPED_SHOWN = 5

_RG_CLASS_DIGRAPHS = ("[:", "&&", "~~", "--")
"""Inside a ``[...]``, text whose meaning differs between Python's ``re`` and ripgrep's regex
(a POSIX class, a set operation); with ``{,n}``, such a pattern is searched in Python."""

_ACCESS_AT = os.access in os.supports_dir_fd
T = TypeVar("T")


@record
class Found:
    """What a search or a listing produced: sorted rows and what could not be read."""

    rows: list[str]
    skipped: tuple[tuple[str, str], ...] = ()
    stopped: bool = False
    """The search stopped at ``MAX_FOUND`` matching lines: there may be more than ``rows``."""
    at: tuple[tuple[str, int], ...] = ()
    """A search's ``(workspace path, line number)`` of each row, in order (context lines
    are read by them: a row's shown path may be escaped)."""
    ignored: tuple[str, ...] = ()
    """Folders the walk left out by ``.gitignore`` (the nearest the start first, at most
    :data:`IGNORED_SHOWN`): a search that found nothing names them."""


# ----------------------------------------------------------------------------- arguments


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """The model's regex, checked (compiled, never matched here: ``line_pattern`` matches);
    a warning (``[[`` "possible nested set") is not printed over the TUI."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return re.compile(pattern)
    except re.error as exc:
        raise ToolError(
            f"grep: invalid regular expression {_quote(pattern)}: {_re_reason(exc)}. The "
            r"pattern is Python `re` syntax: escape a literal ( [ { * + ? . | \ with a "
            r"backslash (\( or \.).",
            kind="arg",
        ) from exc
    except (RecursionError, OverflowError, MemoryError) as exc:  # thousands of nested groups
        raise ToolError(
            f"grep: the regular expression {_quote(pattern)} is too deeply nested or too large "
            "to compile; write a simpler pattern.",
            kind="arg",
        ) from exc


def line_pattern(pattern: re.Pattern[str], timeout: float) -> LinePattern:
    """``pattern`` as grep runs it: RE2 here, else Python's ``re`` in a child process whose
    CPU time is bounded a little past the call's ``timeout`` (so an orphan ends too)."""
    return LinePattern(pattern.pattern, pattern.flags, cpu_seconds=int(timeout) + 5)


def compile_glob(glob: str, tool: str) -> Glob | Alternatives:
    """The model's glob, matched in linear time (``globmatch``, never a regex), its brace
    alternatives expanded (``glob_braces``)."""
    try:
        return braced(glob)
    except GlobError as exc:
        cause = exc.__cause__
        ranged = isinstance(cause, re.error) and cause.msg.startswith("bad character range")
        reason = _re_reason(cause) if ranged and isinstance(cause, re.error) else str(exc)
    raise ToolError(
        f"{tool}: invalid glob {_quote(glob)}: {reason}. Globs take * (within a "
        "folder), ** (across folders), ?, [abc] / [a-z] character sets and {a,b} choices.",
        kind="arg",
    )


def _re_reason(exc: re.error) -> str:
    msg = exc.msg
    if msg.startswith("bad character range"):
        rng = msg.removeprefix("bad character range").strip()
        return (
            f"the range {rng} in [...] goes backwards; a range goes from the lower character "
            "to the higher, e.g. [a-z]"
        )
    return msg if exc.pos is None else f"{msg} at position {exc.pos}"


def _quote(text: str) -> str:
    return repr(text if len(text) <= 120 else text[:100] + "…")


def _glob_ok(matcher: Glob | Alternatives | None, glob: str | None, rel: str) -> bool:
    if matcher is None or glob is None:
        return True
    target = rel if "/" in glob.strip("/") else rel.rsplit("/", 1)[-1]
    return matcher.match(target)


class Names:
    """Which files grep reads: those its glob and its file type (``tools/file_types.py``)
    both keep, decided on the walk's names for both searchers alike. A glob with a ``/``
    matches the path from the workspace or from the folder searched (``path: src``,
    ``glob: components/*.tsx``, as ripgrep reads a glob below the folder it searches:
    it matched nothing here, and the model concluded there was nothing)."""

    def __init__(self, glob: str | None = None, kind: str | None = None, start: str = ".") -> None:
        self.glob = glob or None
        self.matcher = compile_glob(glob.lstrip("/"), "grep") if glob else None
        self.kind = TypeFilter(kind) if kind else None
        self.below = "" if start in ("", ".") else start.rstrip("/") + "/"

    @classmethod
    def of(cls, names: str | Names | None) -> Names:
        return names if isinstance(names, Names) else cls(names)

    def keeps(self, rel: str) -> bool:
        if self.kind is not None and not self.kind.keeps(rel):
            return False
        if _glob_ok(self.matcher, self.glob, rel):
            return True
        below = self.below
        return (
            bool(below)
            and rel.startswith(below)
            and _glob_ok(self.matcher, self.glob, rel[len(below) :])
        )


def _start(ctx: ToolContext, path: str, tool: str) -> tuple[Path, str, str]:
    """``(real root, real rel of the start, the name as given)`` or a plain ``ToolError``."""
    try:
        wp = resolve(ctx.root, path)
    except PathError as exc:
        raise ToolError(str(exc)) from exc
    except OSError as exc:
        raise path_problem(tool, path, exc) from exc
    root = real_root(ctx.root)
    rel = "." if wp.real == root else wp.real.relative_to(root).as_posix()
    return root, rel, wp.rel


def path_problem(tool: str, path: str, exc: OSError) -> ToolError:
    """A start path that cannot be searched, said plainly with what to do instead."""
    name = _quote(path)
    code = exc.errno
    if isinstance(exc, NotRegularFileError):
        what = exc.strerror if exc.strerror and exc.strerror.startswith("a ") else "special"
        return ToolError(
            f"{tool}: {name} is {what}, not a regular file; {tool} reads regular files only "
            "(a pipe or device could block forever). Search its folder or a real file."
        )
    if code == errno.ENAMETOOLONG:
        return ToolError(
            f"{tool}: the path {name} is too long for the file system (a name over 255 bytes "
            "or a path over 4096); give a shorter path.",
            kind="arg",
        )
    if code == errno.ELOOP:
        return ToolError(
            f"{tool}: {name} is a symbolic link loop (too many levels of symbolic links); it "
            "leads nowhere. Search another path, or the workspace (walks never follow links)."
        )
    if code in (errno.EACCES, errno.EPERM):
        return ToolError(
            f"{tool}: permission denied for {name}: Frontier's user may not read it. Search "
            "another path, or ask the user to fix its permissions."
        )
    if code == errno.ENOENT:
        return ToolError(f"{tool}: {name} does not exist; list the files with glob.")
    if code == errno.ENOTDIR:
        return ToolError(f"{tool}: {name}: a part of the path is a file, not a folder.")
    return ToolError(f"{tool}: cannot search {name}: {exc.strerror or exc}.")


# ----------------------------------------------------------------------------- searchers


def _shown(rel: str) -> str:
    """A name as the model reads it (undecodable bytes of a file name as U+FFFD)."""
    if rel.isascii():
        return rel
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _row(rel: str, n: int, line: str, sep: str = ":") -> tuple[str, int, str, str]:
    """``(shown path, n, the row, rel)``: ``path:n:text`` (``path-n-text`` for a line of
    context, as grep writes it)."""
    text = line[:-1] if line.endswith("\r") else line
    if len(text) > LINE_CHARS:
        text = text[:LINE_CHARS] + "…"
    shown = _shown(rel)
    return shown, n, f"{shown}{sep}{n}{sep}{text}", rel


def _sorted(rows: list[tuple[str, int, str, str]]) -> tuple[list[str], tuple[tuple[str, int], ...]]:
    """The rows in path and line order, and each one's ``(rel, n)``."""
    rows.sort(key=lambda r: (r[0], r[1]))
    return [r[2] for r in rows], tuple((r[3], r[1]) for r in rows)


def search_fd(
    fd: int, pattern: LinePattern, most: int | None = None
) -> list[tuple[int, str]] | None:
    """``(line number, line)`` of every matching line of an open file (read no further once
    there are ``most``), ``None`` if it holds a NUL byte (binary). Lines are split on ``\\n``
    only, decoded as UTF-8 (U+FFFD for bad bytes); read in blocks, so a large file is never
    held whole, and each block of whole lines is decided at once (``LinePattern.matching``).
    A file that starts with a UTF-16 byte order mark is searched as its text
    (``tools/utf16.py``): every second byte of its ASCII is NUL, and it was passed over;
    UTF-8's mark is dropped (``^using`` matches line 1). ripgrep reads both the same way."""
    out: list[tuple[int, str]] = []
    n = 0
    rest: list[bytes] = []  # the unfinished last line, in pieces (a long line stays linear)
    wide: Any = None  # a UTF-16 file's decoder: its text searched as UTF-8, as ripgrep does
    first = True
    while (most is None or len(out) < most) and (block := os.read(fd, READ_BLOCK)):
        if first:
            first = False
            if is_utf16(block):
                wide = codecs.getincrementaldecoder("utf-16")("replace")
            elif block.startswith(b"\xef\xbb\xbf"):  # UTF-8's mark: not part of line 1
                block = block[3:]
        if wide is not None:
            block = wide.decode(block).encode("utf-8")
        if b"\x00" in block:
            return None
        cut = block.rfind(b"\n")
        if cut < 0:
            rest.append(block)
            continue
        data = b"".join([*rest, block[:cut]]) if rest else block[:cut]
        rest = [block[cut + 1 :]] if cut + 1 < len(block) else []
        n = _decide(pattern, data, n, out)
    if rest:
        _decide(pattern, b"".join(rest), n, out)
    return out


def _decide(pattern: LinePattern, data: bytes, n: int, out: list[tuple[int, str]]) -> int:
    """Append the matching lines of ``data`` (whole lines; the first is line ``n + 1``) to
    ``out``; the number of the last line."""
    text = data.decode("utf-8", "replace")
    raw = data if data.isascii() else text.encode("utf-8")  # valid UTF-8, as decoded
    hits = pattern.matching(raw)
    if hits:
        lines = text.split("\n")
        out.extend((n + 1 + i, lines[i]) for i in hits)
    return n + 1 + raw.count(b"\n")


def _search_entry(
    entry: Entry, pattern: LinePattern, skipped: Skipped, most: int
) -> list[tuple[int, str]]:
    try:
        opened = open_regular(entry.dir_fd, entry.name)
    except (NotRegularFileError, IsADirectoryError):
        return []  # swapped since the listing: not a file any more
    except OSError as exc:
        skipped.add(entry.rel, exc)
        return []
    if opened is None:
        return []
    fd, _ = opened
    try:
        return search_fd(fd, pattern, most) or []
    except OSError as exc:
        skipped.add(entry.rel, exc)
        return []
    finally:
        os.close(fd)


def grep_python(
    root: Path,
    start: str,
    pattern: re.Pattern[str] | LinePattern,
    names: str | Names | None,
    stop: threading.Event | None = None,
) -> Found:
    """Every matching line under ``start`` (workspace-relative) as ``path:line:text``.

    ``pattern`` is decided by ``LinePattern`` (a compiled ``re`` pattern is wrapped, and its
    child, if one was needed, ended here); ``PatternStopped`` if it was closed meanwhile."""
    lines = LinePattern.of(pattern)
    keep = Names.of(names)
    skipped = Skipped()
    rows: list[tuple[str, int, str, str]] = []
    ignored: list[str] = []
    try:
        for entry in walk(root, start, skipped=skipped, stop=stop, ignored=ignored):
            if (stop is not None and stop.is_set()) or len(rows) > MAX_FOUND:
                break
            if keep.keeps(entry.rel):
                left = MAX_FOUND + 1 - len(rows)
                for n, line in _search_entry(entry, lines, skipped, left):
                    rows.append(_row(entry.rel, n, line))
    finally:
        if lines is not pattern:
            lines.close()
    stopped = len(rows) > MAX_FOUND
    shown, at = _sorted(rows[:MAX_FOUND])
    return Found(shown, tuple(sorted(skipped.items)), stopped, at, _folders(ignored))


IGNORED_SHOWN = 5
"""Ignored folders a search that found nothing names."""


def _folders(ignored: list[str]) -> tuple[str, ...]:
    """The ignored folders nearest the start (fewest ``/``), at most :data:`IGNORED_SHOWN`."""
    folders = (rel for rel in ignored if rel.endswith("/") and rel != "./")
    return tuple(sorted(folders, key=lambda rel: (rel.count("/"), rel))[:IGNORED_SHOWN])


@record
class RgPlan:
    """What ripgrep must leave out to search exactly the walk's files (``rg_plan``)."""

    exclude: list[str]
    """Workspace-relative entries (folders end in ``/``): ignored, too deep, unreadable, or
    files the model's glob leaves out."""
    skipped: Skipped
    expressible: bool
    """Every entry can be written as an ignore-file line (UTF-8, no line break)."""
    ignored: tuple[str, ...] = ()
    """``Found.ignored``."""


def rg_plan(
    root: Path, start: str, names: str | Names | None, stop: threading.Event | None = None
) -> RgPlan:
    """The walk, for ripgrep: what it ignores and what cannot be read (checked with
    ``faccessat``, so ripgrep skips exactly the files the Python searcher reports)."""
    keep = Names.of(names)
    skipped = Skipped()
    exclude: list[str] = []
    for entry in walk(root, start, skipped=skipped, stop=stop, ignored=exclude):
        if not keep.keeps(entry.rel):
            # left out for ripgrep too: its matches would count towards MAX_FOUND and stop
            # the search before the files the glob keeps (34,000 such lines: 0.4 s of rg)
            exclude.append(entry.rel)
            continue
        if _ACCESS_AT and not os.access(entry.name, os.R_OK, dir_fd=entry.dir_fd):
            skipped.add(entry.rel, "permission denied")
            exclude.append(entry.rel)
    left_out = _folders(exclude)  # the ignored ones: before the unlistable ones join
    listed = set(exclude)  # folders that could not be listed: ripgrep leaves them too
    exclude += [r for r, _ in skipped.items if r.endswith("/") and r != "./" and r not in listed]
    ok = all(rel.isascii() or _utf8(rel) for rel in exclude)
    ok = ok and not any("\n" in rel or "\r" in rel for rel in exclude)
    # A start the walk did not go into (its rules are too slow) is named to ripgrep, which
    # applies no ignore file to a path it is given: the Python searcher says why instead.
    here = "./" if start in ("", ".") else start.rstrip("/") + "/"
    ok = ok and not any(r == "./" or here.startswith(r) for r, _ in skipped.items)
    return RgPlan(exclude, skipped, ok, left_out)


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a name with undecodable bytes (surrogates)
        return False
    return True


_IGNORE_SPECIAL = re.compile(r"([\\*?\[\]{}!# ])")


def ignore_line(rel: str) -> str:
    """``rel`` as an anchored ignore-file pattern matching only that entry."""
    return "/" + _IGNORE_SPECIAL.sub(r"\\\1", rel)


def rg_dialect_ok(pattern: str) -> bool:
    """ripgrep reads ``pattern`` as Python's ``re`` does (else the Python searcher runs).

    A plain scan, linear in the pattern (it was a regex, ``\\[[^\\]]*(?:\\[:|&&|~~|--)``,
    quadratic in a pattern of many ``[``): in each stretch between two ``]``, a digraph after
    that stretch's first ``[``."""
    if "\n" in pattern or "{," in pattern:
        return False
    for stretch in pattern.split("]"):
        first = stretch.find("[")
        if first >= 0 and any(stretch.find(d, first + 1) >= 0 for d in _RG_CLASS_DIGRAPHS):
            return False
    return True


async def grep_rg(
    rg: str,
    root: Path,
    start: str,
    pattern: re.Pattern[str] | LinePattern,
    names: str | Names | None,
    stop: threading.Event | None = None,
) -> Found | None:
    """The same rows as ``grep_python``, searched by ripgrep; ``None`` if ripgrep cannot do
    this search exactly (the caller then searches in Python). The lines ripgrep found are
    decided again by ``pattern`` as Python reads it (``LinePattern``, off the event loop).

    ripgrep walks ``start`` itself (its walk is parallel, and a walked file that holds a NUL
    is reported binary at once; an explicitly named one would be searched to its end), but
    reads no ignore file of the workspace (``--no-ignore``): the entries our walk left out
    are given as an ignore file of our own, one anchored line each. It follows no link and
    searches only regular files, as the walk."""
    keep = Names.of(names)
    plan = await _threaded(rg_plan, root, start, keep, stop=stop)
    if not plan.expressible:
        return None
    lines = LinePattern.of(pattern)
    try:
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".ignore") as rules:
            rules.write("".join(ignore_line(rel) + "\n" for rel in plan.exclude))
            rules.flush()
            found = await _run_rg(rg, root, lines, start, rules.name, stop)
            if found is not None and found[1]:  # stopped: which ones depends on the threads
                found = await _run_rg(rg, root, lines, start, rules.name, stop, by_path=True)
        if found is None:
            return None
        matches, stopped = found
        rows, at = await _threaded(_kept, lines, matches, keep, stop=stop)
    finally:
        if lines is not pattern:
            lines.close()
    return Found(rows, tuple(sorted(plan.skipped.items)), stopped, at, plan.ignored)


RgMatch = tuple[str, int, str, str, str]
"""``(shown path, line number, row, rel, the whole line)`` of a line ripgrep found."""


def _kept(
    pattern: LinePattern,
    found: list[RgMatch],
    keep: Names,
    *,
    stop: threading.Event | None = None,
) -> tuple[list[str], tuple[tuple[str, int], ...]]:
    """The rows of the lines ripgrep found in files ``keep`` keeps and that ``pattern``
    matches as Python reads it, sorted, with each one's ``(rel, n)``: in the worker thread,
    as the reading of ripgrep's output is (a common word's 130,000 rows, sorted on the
    event loop before ``MAX_FOUND``, held it)."""
    found = [r for r in found if keep.keeps(r[3])]
    return _sorted([r[:4] for r in _agreed(pattern, found, stop=stop)])


def _agreed(
    pattern: LinePattern, found: list[RgMatch], *, stop: threading.Event | None = None
) -> list[RgMatch]:
    """The lines ripgrep found that ``pattern`` matches as Python reads it (the two dialects
    agree on them), decided at once; never a backtracking ``re`` match in this process."""
    if not found:
        return []
    hits = pattern.matching("\n".join(r[4] for r in found).encode("utf-8", "replace"))
    return [found[i] for i in hits]


async def _run_rg(
    rg: str,
    root: Path,
    pattern: re.Pattern[str] | LinePattern,
    start: str,
    ignore_file: str,
    stop: threading.Event | None = None,
    *,
    by_path: bool = False,
) -> tuple[list[RgMatch], bool] | None:
    """Every line ripgrep found (not yet decided by Python's reading: ``_agreed``), up to
    ``MAX_FOUND`` (then ripgrep is stopped: ``True``), or ``None`` if ripgrep did not run
    the search (a pattern it cannot compile: no summary). Its output is parsed in a worker
    thread: a common word's 160,000 lines of JSON held the event loop (the TUI's keys,
    Esc) for over a second. ``by_path``: in path order (ripgrep then walks on one thread),
    so that a stopped search keeps the same matches each time."""
    source = pattern.source if isinstance(pattern, LinePattern) else pattern.pattern
    cmd = [rg, "--json", "--line-number", "--no-config", "--no-ignore", "--hidden"]
    # --encoding auto: a byte order mark decides (UTF-16 read as its text, UTF-8's mark
    # dropped), as search_fd does; other bytes are searched as they are
    cmd += ["--ignore-file", ignore_file, "-g", "!.git", "--encoding", "auto", "--no-messages"]
    cmd += ["--sort=path"] if by_path else []
    cmd += ["-e", source, "--", start]
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        cwd=root,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    pieces: list[bytes] = []
    matches = 0
    stopped = False
    ended = False
    unbroken = 0  # bytes of the JSON line being read
    try:
        while piece := await proc.stdout.read(1 << 16):
            pieces.append(piece)
            matches += piece.count(_RG_MATCH)  # a match line's start (a piece may cut one)
            if matches > 2 * MAX_FOUND:  # binary files' matches are dropped later: room
                stopped = True  # enough to show, and to say there may be more: stop it
                break
            at = piece.rfind(b"\n")
            unbroken = unbroken + len(piece) if at < 0 else len(piece) - at - 1
            if unbroken > RG_LINE_MAX:
                break  # one line matched all over: its JSON is not read (below)
        ended = not stopped and unbroken <= RG_LINE_MAX
    finally:
        # Stopped, cancelled or timed out: never left running. Not after its own end of
        # output: ripgrep has exited and asyncio's watcher thread is about to reap it, and
        # ``kill`` polls (reaps) it first, so the watcher printed "Unknown child process
        # pid …, will report returncode 255" on stderr (a headless run's output).
        if not ended and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        # asyncio reports the exit only once the pipe is closed: a reader that stopped
        # reading waited for ever. What is left is read and dropped (ripgrep is dead).
        while await proc.stdout.read(1 << 16):
            pass
        await proc.wait()
    if unbroken > RG_LINE_MAX:
        return None  # searched in Python instead: linear, no JSON per match
    out = b"".join(pieces)
    if stopped:
        out = out[: out.rfind(b"\n") + 1]  # whole lines: the last may be cut
    rows = await _threaded(_rg_rows, out, stopped, stop=stop)
    if rows is None:
        return None
    return rows[:MAX_FOUND], stopped or len(rows) > MAX_FOUND


RG_LINE_MAX = 1 << 20
"""The longest line of ripgrep's JSON read. ``--json`` gives every match in a line its own
object (``submatches``), ~50 bytes each: a 2 MB minified line matching ``x`` everywhere was
105 MB of JSON, 3.2 s and 1.3 GB of memory to read (Python's search: 12 ms, 33 MB). Past
it ripgrep is stopped and the search is done in Python, whose cost follows the text."""
_RG_MATCH = b'{"type":"match"'


def _rg_rows(out: bytes, stopped: bool, *, stop: threading.Event) -> list[RgMatch] | None:
    """The matches of ripgrep's ``--json`` output, binary files' left out, read no further
    once there are more than ``MAX_FOUND``; ``None`` without its summary (ripgrep did not
    run the search) unless it was ``stopped`` before the end, or when the caller gave up."""
    rows: list[RgMatch] = []
    pending: dict[str, list[RgMatch]] = {}
    summary = False
    for raw in out.split(b"\n"):
        if not raw:
            continue
        if stop.is_set():
            return None
        if len(rows) > MAX_FOUND:
            break
        msg = fastjson.loads(raw.decode("utf-8", "surrogatepass"))  # ripgrep's own JSON
        data = msg.get("data", {})
        kind = msg.get("type")
        if kind == "match":
            rel = _rg_text(data["path"], path=True).removeprefix("./")
            line = _rg_text(data["lines"]).removesuffix("\n")
            row = (*_row(rel, data["line_number"], line), line)
            pending.setdefault(rel, []).append(row)
        elif kind == "end":
            rel = _rg_text(data["path"], path=True).removeprefix("./")
            found = pending.pop(rel, [])
            if data.get("binary_offset") is None:  # a NUL byte anywhere: binary, skipped
                rows.extend(found)
        elif kind == "summary":
            summary = True
    if stopped:  # the files cut by the stop: their matches so far (a NUL later is unseen)
        for found in pending.values():
            rows.extend(found)
    return rows if summary or stopped else None


def _rg_text(value: Mapping[str, Any], *, path: bool = False) -> str:
    """ripgrep's JSON text, or its base64 ``bytes`` (a name or line that is not UTF-8)."""
    if "text" in value:
        return value["text"]
    data = base64.b64decode(value["bytes"])
    return os.fsdecode(data) if path else data.decode("utf-8", "replace")


async def _threaded(fn: Callable[..., T], *args: Any, stop: threading.Event | None) -> T:
    """``fn(*args, stop=stop)`` in a worker thread; cancelling the caller (Esc, the
    boundary's timeout) sets ``stop`` so the walk ends instead of running on unseen."""
    stop = stop if stop is not None else threading.Event()
    try:
        return await asyncio.to_thread(fn, *args, stop=stop)
    except asyncio.CancelledError:
        stop.set()
        raise


def _single_file(root: Path, rel: str) -> bool:
    try:
        st = os.stat(root / rel, follow_symlinks=False)
    except OSError:
        return False
    return not stat.S_ISDIR(st.st_mode)


# ----------------------------------------------------------------------------- tools


class GrepTool:
    spec = ToolSpec(
        name="grep",
        description=(
            "Search file contents with a regular expression (Python/ripgrep syntax). Skips "
            ".gitignore'd and binary files. Results are path:line:text, sorted."
        ),
        parameters={
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "regular expression"},
                "path": {
                    "type": "string",
                    "description": "file or folder to search (default: the workspace)",
                    "default": ".",
                },
                "glob": {
                    "type": "string",
                    "description": "only files matching this glob, e.g. *.py or src/**/*.ts",
                },
                "type": {
                    "type": "string",
                    "description": "only files of this language, e.g. py, js, ts, go, rust",
                },
                "ignore_case": {"type": "boolean", "default": False},
                "context": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": MAX_CONTEXT,
                    "description": "lines shown before and after each match",
                },
                "output_mode": {
                    "type": "string",
                    "enum": ["content", "files_with_matches", "count"],
                    "description": "matching lines, only the files, or a count per file",
                    "default": "content",
                },
            },
            "required": ["pattern"],
        },
        timeout=60.0,
        aliases=GREP,
    )
    bytes_args: frozenset[str] = frozenset()
    use_ripgrep = True

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        # a CTL heredoc's value ends with its line end (``arg pattern <<EOF``): a pattern
        # holding one matches no line (lines are searched one by one), a glob no name
        args = {**args, "pattern": args["pattern"].rstrip("\r\n")}
        if args.get("ignore_case") and not args["pattern"].startswith("(?i)"):
            args["pattern"] = "(?i)" + args["pattern"]  # one flag both engines read
        if args.get("glob"):
            args["glob"] = args["glob"].strip()
        compile_pattern(args["pattern"])
        if args.get("glob"):
            compile_glob(args["glob"].lstrip("/"), "grep")
        if args.get("type"):
            try:
                type_globs(args["type"])
            except UnknownType as exc:
                raise ToolError(f"grep: {exc}", kind="arg") from exc
        _start(ctx, args["path"], "grep")
        return Prepared(args=args)

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        args = prepared.args
        pattern = compile_pattern(args["pattern"])
        root, start, shown = _start(ctx, args["path"], "grep")
        names = Names(args.get("glob") or None, args.get("type") or None, start)
        rg = find_program("rg", ctx.root) if self.use_ripgrep else None
        lines = line_pattern(pattern, self.spec.timeout)
        try:
            search = self._search(rg, root, start, lines, names)
            found = await _unless_cancelled(search, cancel, lines.close)
        except OSError as exc:
            raise path_problem("grep", shown, exc) from exc
        except RegexUnavailable as exc:
            raise ToolError(
                f"grep: the pattern {_quote(pattern.pattern)} needs Python's re for some lines "
                "(RE2 has no look-around, back-references or atomic groups, and reads \\b and "
                "(?i) differently beyond ASCII), and the process that runs it could not be "
                f"started ({exc}). Re-issue the call; if it fails again, write the pattern "
                "without those or search with the shell."
            ) from exc
        except PatternStopped as exc:
            if not cancel.cancelled:
                raise ToolError(
                    f"grep: the process running the pattern {_quote(pattern.pattern)} with "
                    "Python's re ended before it finished (it ran out of CPU time or memory: "
                    "the pattern backtracks catastrophically, like (a+)+$). Write a simpler "
                    "pattern: no nested repeats, no look-around or back-references."
                ) from exc
            found = None
        finally:
            lines.close()
        if found is None:
            return Outcome(kind="cancelled", output=_cancelled("grep"))
        mode = args.get("output_mode", "content")
        around = int(args.get("context") or 0)
        lines_of: list[str] | None = None
        if around and mode == "content" and found.rows:
            reading = _threaded(with_context, root, found, around, stop=None)
            lines_of = await _unless_cancelled(reading, cancel)
            if lines_of is None:
                return Outcome(kind="cancelled", output=_cancelled("grep"))
        text = render_rows(found, pattern.pattern, shown, mode, lines_of)
        return Outcome(kind="ok", output=text)

    @staticmethod
    async def _search(
        rg: str | None, root: Path, start: str, lines: LinePattern, names: Names
    ) -> Found:
        stop = threading.Event()
        found: Found | None = None
        if rg and rg_dialect_ok(lines.source) and not _single_file(root, start):
            found = await grep_rg(rg, root, start, lines, names, stop)
        if found is None:
            found = await _threaded(grep_python, root, start, lines, names, stop=stop)
        return found


async def _unless_cancelled(
    work: Awaitable[T], cancel: CancelToken, on_cancel: Callable[[], None] | None = None
) -> T | None:
    """``work``'s result, or ``None`` once Esc set ``cancel`` first. Either way a stopped
    ``work`` is cancelled (a walk's thread told to stop, ripgrep killed) and waited for
    until it has unwound, after ``on_cancel`` (which kills the regex child); the boundary's
    timeout (cancelling this) does the same, then re-raises."""
    task = asyncio.ensure_future(work)
    esc = asyncio.ensure_future(cancel.event.wait())
    try:
        done, _ = await asyncio.wait({task, esc}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        await _stop(task, on_cancel)
        raise
    finally:
        esc.cancel()
    if task in done:
        return task.result()
    await _stop(task, on_cancel)
    return None


async def _stop(task: asyncio.Future[Any], on_cancel: Callable[[], None] | None) -> None:
    if on_cancel is not None:
        on_cancel()
    task.cancel()
    await asyncio.wait({task})
    if not task.cancelled():
        task.exception()  # seen: what a stopped search raised (PatternStopped) says nothing


def _cancelled(tool: str) -> str:
    return f"{tool}: cancelled by the user; nothing was returned."


def with_context(
    root: Path, found: Found, around: int, *, stop: threading.Event | None = None
) -> list[str]:
    """The first ``MAX_MATCHES`` matching rows with ``around`` lines before and after each
    (``path-n-text``, as grep writes a line of context), runs of them apart by ``--``.
    Each file is read again beneath the root (the rows say where, ``Found.at``), at most
    ``CONTEXT_BYTES`` in all; one that can no longer be read, or past that, keeps its
    matching rows alone."""
    out: list[str] = []
    budget = CONTEXT_BYTES
    pairs = list(zip(found.rows[:MAX_MATCHES], found.at[:MAX_MATCHES], strict=False))
    for rel, group in groupby(pairs, key=lambda pair: pair[1][0]):
        if stop is not None and stop.is_set():
            break
        rows = {at[1]: row for row, at in group}
        lines = _lines_of(root, rel, budget)
        budget -= sum(map(len, lines)) if lines is not None else 0
        if lines is None:
            out += [*(["--"] if out else []), *rows.values()]
            continue
        spans: list[list[int]] = []
        for n in rows:
            first, last = max(1, n - around), min(len(lines), n + around)
            if spans and first <= spans[-1][1] + 1:
                spans[-1][1] = max(spans[-1][1], last)
            else:
                spans.append([first, last])
        for first, last in spans:
            out += ["--"] if out else []
            for k in range(first, last + 1):
                out.append(rows[k] if k in rows else _row(rel, k, lines[k - 1], "-")[2])
    return out


def _lines_of(root: Path, rel: str, budget: int) -> list[str] | None:
    """A file's lines as the searchers number them (UTF-16 read as its text), or ``None``
    (gone, unreadable, or over ``budget`` bytes or ``CONTEXT_FILE_MAX``)."""
    if budget <= 0:
        return None
    try:
        data, _ = beneath.read_file(root, rel, min(CONTEXT_FILE_MAX, budget))
    except (OSError, beneath.PathError):
        return None
    if data is None:
        return None
    text = utf16_text(data)
    if text is None:
        text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the last line's break starts no line
    return lines


def render_rows(
    found: Found,
    pattern: str,
    where: str,
    mode: str = "content",
    lines_of: list[str] | None = None,
) -> str:
    """The matching lines (``path:line:text``), or with ``mode`` only the files that match
    (``files_with_matches``: a broad search without every line in the context) or each
    one's count (``count``), as Claude Code's Grep offers and the models it taught ask."""
    rows = found.rows
    note = _skipped_note(found.skipped)
    if not rows:
        left = ""
        if "\\|" in pattern:  # GNU grep's alternation, a literal bar in these regexes
            left += "\n[\\| is a literal | here (not grep -G's alternation): write a|b]"
        if found.ignored:
            named = ", ".join(found.ignored)
            left += f"\n[not searched, .gitignore'd: {named}; name one as path to search it]"
        return f"no matches for /{pattern}/ in {where}{left}" + (f"\n{note}" if note else "")
    if mode != "content":
        return _per_file(found, mode, note)
    files = len({r.partition(":")[0] for r in rows})
    shown = rows[:MAX_MATCHES] if lines_of is None else lines_of
    in_files = f"in {files} file{'s' * (files != 1)}"
    tail = f"[{len(rows)} match{'es' * (len(rows) != 1)} {in_files}]"
    if found.stopped:
        tail = (
            f"[showing the first {len(shown)} of the first {len(rows)} matches found, "
            f"{in_files}; the search stopped there, so there may be more: narrow the "
            "pattern, path or glob]"
        )
    elif len(rows) > MAX_MATCHES:
        tail = (
            f"[showing the first {MAX_MATCHES} of {len(rows)} matches {in_files}; "
            "narrow the pattern, path or glob]"
        )
    return "\n".join([*shown, tail, *([note] if note else [])])


def _per_file(found: Found, mode: str, note: str) -> str:
    counts: dict[str, int] = {}
    paths = [_shown(rel) for rel, _ in found.at] if found.at else None
    for i, row in enumerate(found.rows):  # by its path, which may itself hold a ":"
        path = paths[i] if paths is not None else row.partition(":")[0]
        counts[path] = counts.get(path, 0) + 1
    names = list(counts)[:MAX_MATCHES]
    shown = names if mode == "files_with_matches" else [f"{n}:{counts[n]}" for n in names]
    total = len(found.rows)
    tail = (
        f"[{len(counts)} file{'s' * (len(counts) != 1)}, {total} matching line{'s' * (total != 1)}"
    )
    if found.stopped:
        tail += "; the search stopped there, so there may be more"
    if len(counts) > len(names):
        tail += f"; showing the first {len(names)} files"
    return "\n".join([*shown, tail + "]", *([note] if note else [])])


def _skipped_note(skipped: tuple[tuple[str, str], ...]) -> str:
    if not skipped:
        return ""
    names = [f"{_shown(rel)} ({why})" for rel, why in skipped[:SKIPPED_SHOWN]]
    return f"[not searched, could not be read: {listing(names, SKIPPED_SHOWN, total=len(skipped))}]"


def _within(ctx: ToolContext, pattern: str) -> str:
    """An absolute pattern inside the workspace (``/home/me/proj/src/*.py``, as models
    taught to name files absolutely write it) made relative to it; anything else as is."""
    if not pattern.startswith("/"):
        return pattern
    for root in (str(real_root(ctx.root)), os.path.abspath(str(ctx.root))):
        if pattern.startswith(root.rstrip("/") + "/"):
            return pattern[len(root.rstrip("/")) + 1 :]
    return pattern


class GlobTool:
    spec = ToolSpec(
        name="glob",
        description=(
            "List workspace files whose relative path matches a glob ('*' stays within a folder, "
            "'**' spans folders: **/*.py). Skips .gitignore'd files. Sorted."
        ),
        parameters={
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "glob, e.g. src/**/*.py"},
                "path": {"type": "string", "description": "folder the pattern starts in"},
            },
            "required": ["pattern"],
        },
        timeout=60.0,
        aliases=GLOB,
    )
    bytes_args: frozenset[str] = frozenset()

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        pattern = args["pattern"].strip()
        if not pattern:
            raise ToolError("glob: empty pattern; e.g. **/*.py", kind="arg")
        pattern = _within(ctx, pattern)
        folder = (args.get("path") or "").strip()
        if folder:  # Claude Code's Glob takes one: models send it, often absolute
            try:
                wp = resolve(ctx.root, folder)
            except PathError as exc:
                raise ToolError(f"glob: {exc}") from exc
            except OSError as exc:
                raise path_problem("glob", folder, exc) from exc
            rel = wp.rel
            if not wp.real.is_dir():  # "no files match 'nope/*'" hid a folder not there
                what = "is a file, not a folder" if wp.real.exists() else "does not exist"
                raise ToolError(f"glob: path {folder!r} {what}; list from '.', or read it")
            if rel != ".":
                pattern = f"{rel}/{pattern.removeprefix('./')}"
        if pattern.startswith("/") or ".." in pattern.split("/"):
            raise ToolError(
                f"glob: pattern {pattern!r} must be relative to the workspace (no leading / or ..)"
            )
        compile_glob(pattern.removeprefix("./"), "glob")
        return Prepared(args={"pattern": pattern})

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        pattern = prepared.args["pattern"]
        try:
            listing = _threaded(glob_files, real_root(ctx.root), pattern, stop=None)
            found = await _unless_cancelled(listing, cancel)
        except OSError as exc:
            raise path_problem("glob", ".", exc) from exc
        if found is None:
            return Outcome(kind="cancelled", output=_cancelled("glob"))
        files = found.rows
        note = _skipped_note(found.skipped).replace("not searched", "not listed")
        if not files:
            deeper = await _deeper(ctx, pattern, cancel)
            return Outcome(
                kind="ok",
                output=f"no files match {pattern!r}{deeper}" + (f"\n{note}" if note else ""),
            )
        shown = files[:MAX_FILES]
        lines = [*shown, f"[{len(files)} file{'s' * (len(files) != 1)}]"]
        if len(files) > MAX_FILES:
            lines[-1] = f"[showing the first {MAX_FILES} of {len(files)} files; narrow the pattern]"
        return Outcome(kind="ok", output="\n".join([*lines, *([note] if note else [])]))


async def _deeper(ctx: ToolContext, pattern: str, cancel: CancelToken) -> str:
    """For a pattern that matched nothing, what it may have meant: a folder's name
    (``src``, ``src/``: glob lists files) says how to list it; a pattern without ``/``
    (``*.py``: ``*`` stays within a folder) says how many files it matches in every
    folder, so the model does not conclude there are none (ripgrep's ``-g *.py`` matches
    at any depth, and models trained on it write so)."""
    bare = pattern.rstrip("/")
    if _literal(bare) and _is_folder(real_root(ctx.root), bare):
        return f": {bare} is a folder (glob matches files): read lists it, '{bare}/**' its files"
    if "/" in pattern or pattern.startswith("**"):
        return ""
    wider = "**/" + pattern
    found = await matching(ctx, wider, cancel)
    if not found:
        return ""
    count = len(found)
    files = f"{count} file{'s' * (count != 1)}"
    return f" at the top of the workspace; {wider!r} matches {files} in its folders"


def folder_rows(root: Path, rel: str, stop: threading.Event | None = None) -> Found:
    """One level of a folder as ``read`` shows it: each subfolder (``src/``, with how many
    files are below it) then each file, sorted, from the same walk as ``glob`` (so what
    ``.gitignore`` leaves out is left out here too; a folder holding only ignored files
    is not shown)."""
    prefix = "" if rel in ("", ".") else rel.rstrip("/") + "/"
    skipped = Skipped()
    files: list[str] = []
    folders: dict[str, int] = {}
    for entry in walk(root, rel, skipped=skipped, stop=stop):
        head, sep, _ = entry.rel[len(prefix) :].partition("/")
        if sep:
            folders[head] = folders.get(head, 0) + 1
        else:
            files.append(head)
    rows = [
        f"{_shown(name)}/  ({count} file{'s' * (count != 1)})"
        for name, count in sorted(folders.items())
    ]
    rows += sorted(_shown(name) for name in files)
    return Found(rows, tuple(sorted(skipped.items)))


async def list_folder(ctx: ToolContext, rel: str, cancel: CancelToken) -> Outcome:
    """``read`` of a folder: its listing (:func:`folder_rows`) rather than an error and a
    round trip to ``glob``; Anthropic's text editor, which models learnt on, lists a
    folder it is asked to view."""
    try:
        found = await _unless_cancelled(
            _threaded(folder_rows, real_root(ctx.root), rel, stop=None), cancel
        )
    except OSError as exc:
        raise path_problem("read", rel, exc) from exc
    if found is None:
        return Outcome(kind="cancelled", output=_cancelled("read"))
    name = "." if rel in ("", ".") else _shown(rel.rstrip("/")) + "/"
    rows = found.rows[:MAX_FILES]
    more = len(found.rows) - len(rows)
    head = f"{name} is a folder: {len(found.rows)} entr{'ies' if len(found.rows) != 1 else 'y'}"
    lines = [head + " (.gitignore'd left out)", *(f"  {row}" for row in rows)]
    if more:
        lines.append(f"[{more} more not shown; glob narrows it]")
    if not found.rows:
        lines = [f"{name} is a folder with no files (or only .gitignore'd ones)"]
    lines.append("[read a file by its path; glob lists the files below a folder: src/**/*]")
    note = _skipped_note(found.skipped).replace("not searched", "not listed")
    return Outcome(kind="ok", output="\n".join([*lines, *([note] if note else [])]))


def glob_files(root: Path, pattern: str, stop: threading.Event | None = None) -> Found:
    """Workspace files whose whole relative path matches ``pattern``, sorted (matched by
    ``globmatch``: linear in each path, runs of ``**/`` merged). The walk starts at the
    folder the pattern names before its first wildcard (``node_modules/react/**/*.js``: a
    folder named so is walked whatever ``.gitignore`` says of it, as ``grep``'s ``path``
    is; it listed nothing), and only that subtree is read."""
    pattern = pattern.removeprefix("./")
    full = compile_glob(pattern, "glob")
    skipped = Skipped()
    start = _literal_folder(root, pattern)
    try:
        entries = walk(root, start, skipped=skipped, stop=stop)
        names = [_shown(e.rel) for e in entries if full.match(e.rel)]
    except OSError:  # the folder went away meanwhile: the whole walk, as before
        names = [
            _shown(e.rel) for e in walk(root, ".", skipped=skipped, stop=stop) if full.match(e.rel)
        ]
    return Found(sorted(names), tuple(sorted(skipped.items)))


async def matching(ctx: ToolContext, pattern: str, cancel: CancelToken) -> list[str]:
    """The workspace files ``pattern`` matches (:func:`glob_files`, off the event loop, Esc
    ending the walk); ``[]`` for none, an invalid pattern, or a stopped walk: what a hint
    on a miss needs (``glob``'s, ``read``'s)."""
    listing = _threaded(glob_files, real_root(ctx.root), pattern, stop=None)
    try:
        found = await _unless_cancelled(listing, cancel)
    except (OSError, ToolError):
        return []
    return [] if found is None else found.rows


def _literal(part: str) -> bool:
    """``part`` names itself: no wildcard, brace or escape, not ``.`` or ``..``."""
    return bool(part) and not any(c in part for c in "*?[{\\") and part not in (".", "..")


def _is_folder(root: Path, rel: str) -> bool:
    """``rel`` is a folder of the workspace (its last part not a link)."""
    try:
        return stat.S_ISDIR(os.stat(root / rel, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _literal_folder(root: Path, pattern: str) -> str:
    """The folder ``pattern``'s leading segments without a wildcard name (``src/app`` of
    ``src/app/**/*.py``), when it is a folder of the workspace (not a link); else ``.``."""
    literal: list[str] = []
    for part in pattern.split("/")[:-1]:
        if not _literal(part):
            break
        literal.append(part)
    folder = "/".join(literal)
    return folder if literal and _is_folder(root, folder) else "."
