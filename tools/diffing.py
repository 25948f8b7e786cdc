"""Previews: the unified diff and hashes of one file as a mutation will change it.

Every mutation (apply_patch, write, replace, multi) is shown to the approver
the same way, computed from the exact bytes that will be written, so what is
reviewed is what lands on disk (DESIGN §5: approval is bound to content).

The preview sits between the confirming byte and the tool starting, so it must
be cheap. It is built from *opcodes* (difflib's ``(tag, i1, i2, j1, j2)`` over
the old and new lines) in one of two ways:

* ``blocks`` given (apply_patch: the changed line ranges of the hunks as the
  engine located them) — the opcodes come from them in O(changed lines), plus
  one C-speed comparison of every unchanged run, so no diff search runs. Which
  lines are paired inside a change is the patch's own choice (e.g. git's), only
  narrowed by lines a hunk removes and adds back unchanged; the lines shown are
  always the real old and new text (context as the file has it, not as the
  patch wrote it). Blocks that do not describe the texts fall back to:
* a diff of the changed middle (``text_opcodes``): the common prefix and suffix lines
  are stripped first (slice compares, C speed), offsets added back; a small middle goes to
  difflib, a large one to ``bounded_opcodes`` (anchored on lines unique to both sides,
  Myers for the gaps, all within a work budget linear in the size), so no input makes the
  preview quadratic — a costly one only gets a coarser, still exact, diff.

The caller may also pass both sides' line keys (the patch engine has split the
files already); they are checked against the texts with one join, not trusted.

Either way the diff is rendered from the opcodes exactly as ``difflib.unified_diff``
renders them (3 lines of context, hunks whose context would overlap or touch are
merged, the same ``@@`` ranges), and every ``' '``/``'-'`` line is the old text's line
at its position and every ``'+'`` line the new text's, so applying the diff to the
old text gives the new text byte for byte.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from typing import Literal

from frontier.tools.contract import DiffLine, FilePreview, PreviewHunk
from frontier.tools.digest import sha256
from frontier.tools.patch_model import NO_NEWLINE_MARKER
from frontier.tools.utf16 import MARKS, utf16_text

NO_NEWLINE = NO_NEWLINE_MARKER + "\n"
"""The marker line as a rendered diff carries it."""
CONTEXT = 3

Op = tuple[str, int, int, int, int]
"""A difflib opcode: ``(tag, i1, i2, j1, j2)``, tag ``equal``/``replace``/``delete``/``insert``."""
Block = tuple[int, int, int, int]
"""A changed region: old lines ``[i1, i2)`` become new lines ``[j1, j2)``."""


def decode(data: bytes | None) -> str | None:
    """Text for display; undecodable bytes show as U+FFFD (the write uses the bytes). A
    UTF-16 file (by its mark: ``write`` keeps one so) reads as its text, not as NULs."""
    if data is None:
        return None
    wide = utf16_text(data) if data[:2] in MARKS else None
    return wide if wide is not None else data.decode("utf-8", errors="replace")


def line_keys(text: str | None) -> list[str]:
    """The text's lines without their ``\\n`` (a CRLF line keeps its ``\\r``), for comparing.

    Split on ``\\n`` only, as the patch engine does, so line *k* here is line *k* there.
    When the text does not end with a newline its last line gets a ``\\n`` appended — no
    other line can contain one — so equal keys mean equal bytes, line ending included.
    """
    if not text:
        return []
    parts = text.split("\n")
    last = parts.pop()
    if last:
        parts.append(last + "\n")
    return parts


# ----------------------------------------------------------------------------- opcodes


def _common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common prefix, by halving slice compares (O(n) at C speed)."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n  # a[:lo] == b[:lo] and a[:hi] != b[:hi]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def _common_suffix(a: Sequence[str], b: Sequence[str], limit: int) -> int:
    """Length of the longest common suffix, at most ``limit`` lines."""
    la, lb = len(a), len(b)
    if a[la - limit :] == b[lb - limit :]:
        return limit
    lo, hi = 0, limit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[la - mid : la - lo] == b[lb - mid : lb - lo]:
            lo = mid
        else:
            hi = mid
    return lo


def _tag(i1: int, i2: int, j1: int, j2: int) -> str:
    if i1 < i2:
        return "replace" if j1 < j2 else "delete"
    return "insert"


def text_opcodes(a: Sequence[str], b: Sequence[str]) -> list[Op]:
    """Opcodes of ``a`` → ``b`` at a cost linear in their size (``write``/``replace``/``multi``,
    and any change without located hunks).

    The common prefix and suffix lines are stripped first (slice compares, C speed). A changed
    middle of at most ``DIFFLIB_MAX`` old × new lines goes to ``difflib.SequenceMatcher``, as it
    always did, so small edits show the alignment difflib (and the tests) know. A larger
    middle — where SequenceMatcher is quadratic (a ``write`` changing every other line of
    80,000 lines took over 300 s) — goes to ``bounded_opcodes``."""
    la, lb = len(a), len(b)
    p = _common_prefix(a, b)
    s = _common_suffix(a, b, min(la, lb) - p)
    ops: list[Op] = []
    if p:
        ops.append(("equal", 0, p, 0, p))
    ma, mb = la - s - p, lb - s - p
    if ma and mb and ma * mb <= DIFFLIB_MAX:
        from difflib import SequenceMatcher

        matcher = SequenceMatcher(None, a[p : la - s], b[p : lb - s])
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            ops.append((tag, i1 + p, i2 + p, j1 + p, j2 + p))
    elif ma and mb:
        ops.extend(bounded_opcodes(a, b, p, la - s, p, lb - s))
    elif ma or mb:
        ops.append((_tag(p, la - s, p, lb - s), p, la - s, p, lb - s))
    if s:
        ops.append(("equal", la - s, la, lb - s, lb))
    return ops


def changed_lines(ops: Iterable[Op]) -> int:
    """Lines removed plus lines added by ``ops``."""
    return sum(i2 - i1 + j2 - j1 for tag, i1, i2, j1, j2 in ops if tag != "equal")


DIFFLIB_MAX = 40_000
"""Largest changed middle (old lines × new lines) given to difflib: its worst case there is a
few milliseconds (``bench/preview.py``)."""
WORK_PER_LINE = 16
"""``bounded_opcodes``' budget, in line comparisons and hash-table steps per line of input."""
WORK_MIN = 50_000
MYERS_MAX_D = 400
"""Myers' search stops at this many inserted + deleted lines in one region."""
MYERS_SMALL = 64
"""Regions of at most this many lines (old + new) skip the anchor search."""


class _Budget:
    __slots__ = ("left",)

    def __init__(self, left: int) -> None:
        self.left = left


def bounded_opcodes(
    a: Sequence[str],
    b: Sequence[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    *,
    work: int | None = None,
    max_d: int | None = None,
) -> list[Op]:
    """Opcodes for ``a[alo:ahi]`` → ``b[blo:bhi]`` (offsets kept) in O(lines) work.

    Patience-style: lines occurring exactly once on each side are paired, the longest run of
    pairs in order on both sides anchors the alignment, and each gap between anchors is
    aligned the same way (its common ends first); a gap without such lines gets a Myers
    search bounded by ``max_d`` edits. Every step is charged to one budget (``work``,
    default ``WORK_PER_LINE`` per line); a region left when it runs out, or that Myers cannot
    align within its bound, is shown as replaced whole. The result is always exact (every
    ``equal`` run is equal); a costly input only gets a coarser diff.
    """
    if work is None:
        work = max(WORK_MIN, WORK_PER_LINE * (ahi - alo + bhi - blo))
    if max_d is None:
        max_d = MYERS_MAX_D
    budget = _Budget(work)
    blocks: list[tuple[int, int, int]] = []
    stack = [(alo, ahi, blo, bhi)]
    while stack:
        i1, i2, j1, j2 = stack.pop()
        i, j = i1, j1
        while i < i2 and j < j2 and a[i] == b[j]:
            i, j = i + 1, j + 1
        if i > i1:
            blocks.append((i1, j1, i - i1))
        k = 0
        while i2 - k > i and j2 - k > j and a[i2 - k - 1] == b[j2 - k - 1]:
            k += 1
        if k:
            blocks.append((i2 - k, j2 - k, k))
        budget.left -= (i - i1) + k + 1
        i1, j1, i2, j2 = i, j, i2 - k, j2 - k
        if i1 == i2 or j1 == j2 or budget.left <= 0:
            continue
        if i2 - i1 == 1 or j2 - j1 == 1:  # one line against several: is it among them?
            budget.left -= i2 - i1 + j2 - j1
            at = _find(b, a[i1], j1, j2) if i2 - i1 == 1 else _find(a, b[j1], i1, i2)
            if at >= 0:
                blocks.append((i1, at, 1) if i2 - i1 == 1 else (at, j1, 1))
            continue
        if i2 - i1 + j2 - j1 > MYERS_SMALL:
            anchors, common = _anchors(a, b, i1, i2, j1, j2, budget)
            if anchors:
                pi, pj = i1, j1
                for ai, bj in anchors:
                    stack.append((pi, ai, pj, bj))
                    blocks.append((ai, bj, 1))
                    pi, pj = ai + 1, bj + 1
                stack.append((pi, i2, pj, j2))
                continue
            if i2 - i1 + j2 - j1 - 2 * common > max_d:
                continue  # Myers would need more edits than it may make: replaced whole
        found = _myers(a, b, i1, i2, j1, j2, budget, max_d)
        if found:
            blocks.extend(found)
    return _block_ops(blocks, alo, ahi, blo, bhi)


def _find(seq: Sequence[str], line: str, lo: int, hi: int) -> int:
    """Index of ``line`` in ``seq[lo:hi]`` (C speed), or -1."""
    try:
        return seq.index(line, lo, hi)
    except ValueError:
        return -1


def _anchors(
    a: Sequence[str], b: Sequence[str], i1: int, i2: int, j1: int, j2: int, budget: _Budget
) -> tuple[list[tuple[int, int]], int]:
    """``(anchors, common)``: the longest chain, increasing on both sides, of lines that occur
    exactly once on each side; and how many lines the two sides could share at most (each
    line counted as often as its rarer side has it), which bounds the edit distance below."""
    budget.left -= 2 * (i2 - i1 + j2 - j1)
    count_a, count_b = Counter(a[i1:i2]), Counter(b[j1:j2])
    common = 0
    for line, n in count_a.items():
        if line in count_b:
            common += min(n, count_b[line])
    if not common:
        return [], 0
    only_b = {b[j]: j for j in range(j1, j2) if count_b[b[j]] == 1}
    pairs: list[tuple[int, int]] = []  # in order of i
    for i in range(i1, i2):
        line = a[i]
        if count_a[line] == 1:
            j = only_b.get(line, -1)
            if j >= 0:
                pairs.append((i, j))
    if not pairs:
        return [], common
    budget.left -= len(pairs) * 2
    # the longest chain increasing in j too (patience sorting)
    tails: list[int] = []  # j of the smallest tail of each chain length
    tail_at: list[int] = []  # index into pairs of that tail
    back = [-1] * len(pairs)
    for n, (_, j) in enumerate(pairs):
        k = bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_at.append(n)
        else:
            tails[k] = j
            tail_at[k] = n
        back[n] = tail_at[k - 1] if k else -1
    chain: list[tuple[int, int]] = []
    n = tail_at[-1]
    while n >= 0:
        chain.append(pairs[n])
        n = back[n]
    chain.reverse()
    return chain, common


def _myers(
    a: Sequence[str],
    b: Sequence[str],
    i1: int,
    i2: int,
    j1: int,
    j2: int,
    budget: _Budget,
    max_d: int,
) -> list[tuple[int, int, int]] | None:
    """Matching blocks of a shortest edit script (Myers 1986, forward greedy), or ``None`` when
    it needs more than ``max_d`` edits or more work than the budget has left."""
    n, m = i2 - i1, j2 - j1
    limit = min(max_d, n + m)
    off = limit + 1
    v = [0] * (2 * limit + 3)
    trace: list[list[int]] = []
    left = budget.left
    for d in range(limit + 1):
        trace.append(v.copy())
        left -= 2 * d + 1 + len(v) // 8
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[off + k - 1] < v[off + k + 1]):
                x = v[off + k + 1]
            else:
                x = v[off + k - 1] + 1
            y = x - k
            x0 = x
            while x < n and y < m and a[i1 + x] == b[j1 + y]:
                x, y = x + 1, y + 1
            left -= x - x0
            v[off + k] = x
            if x >= n and y >= m:
                budget.left = left
                return _myers_blocks(trace, off, n, m, i1, j1)
        if left <= 0:
            break
    budget.left = left
    return None


def _myers_blocks(
    trace: list[list[int]], off: int, x: int, y: int, i1: int, j1: int
) -> list[tuple[int, int, int]]:
    """Walk Myers' trace back from ``(x, y)``: the diagonal runs, as ``(i, j, size)`` blocks."""
    out: list[tuple[int, int, int]] = []
    for d in range(len(trace) - 1, -1, -1):
        v = trace[d]
        k = x - y
        down = k == -d or (k != d and v[off + k - 1] < v[off + k + 1])
        pk = k + 1 if down else k - 1
        px = v[off + pk]
        py = px - pk
        run = min(x - px, y - py) if d else min(x, y)
        if run > 0:
            out.append((i1 + x - run, j1 + y - run, run))
        x, y = (px, py) if d else (x - run, y - run)
    return out


def _block_ops(
    blocks: list[tuple[int, int, int]], alo: int, ahi: int, blo: int, bhi: int
) -> list[Op]:
    """difflib's ``get_opcodes`` from matching blocks (disjoint, in order on both sides)."""
    ops: list[Op] = []
    i, j = alo, blo
    for bi, bj, size in [*sorted(blocks), (ahi, bhi, 0)]:
        if bi < i or bj < j:
            raise AssertionError("matching blocks out of order")  # a bug, never user input
        if i < bi or j < bj:
            ops.append((_tag(i, bi, j, bj), i, bi, j, bj))
        if size:
            if ops and ops[-1][0] == "equal" and ops[-1][2] == bi:
                _, e1, _, f1, _ = ops.pop()
                ops.append(("equal", e1, bi + size, f1, bj + size))
            else:
                ops.append(("equal", bi, bi + size, bj, bj + size))
        i, j = bi + size, bj + size
    return ops


def block_opcodes(a: Sequence[str], b: Sequence[str], blocks: Iterable[Block]) -> list[Op] | None:
    """Opcodes from known changed regions (sorted, non-overlapping), or ``None`` if they do not
    describe ``a`` → ``b`` (the caller then diffs the text).

    Each block is narrowed by the lines it leaves unchanged at either end (a patch may remove
    and re-add a line); every run between blocks is checked to be equal, line endings included.
    Only the last line of either side can differ in its ending alone (a final newline added or
    removed, see ``line_keys``); such a pair is moved into the change that follows it.
    """
    la, lb = len(a), len(b)
    ops: list[Op] = []
    i = j = 0  # ops (plus ``pending``) describe a[:i] -> b[:j]
    pending: Block | None = None  # the last change, kept open to merge an adjacent one
    for i1, i2, j1, j2 in [*blocks, (la, la, lb, lb)]:
        if i1 < i or i1 - i != j1 - j or i2 < i1 or j2 < j1 or i2 > la or j2 > lb:
            return None
        while i1 < i2 and j1 < j2 and a[i1] == b[j1]:
            i1, j1 = i1 + 1, j1 + 1
        while i2 > i1 and j2 > j1 and a[i2 - 1] == b[j2 - 1]:
            i2, j2 = i2 - 1, j2 - 1
        if i1 > i and a[i:i1] != b[j:j1]:
            if (i1 < la and j1 < lb) or a[i : i1 - 1] != b[j : j1 - 1]:
                return None
            i1, j1 = i1 - 1, j1 - 1  # the last line's ending changed: part of the change
        if i1 == i2 and j1 == j2:
            continue  # the block changes nothing
        if pending is not None and (i1, j1) == (i, j):
            i1, j1 = pending[0], pending[2]
        else:
            if pending is not None:
                ops.append((_tag(*pending), *pending))
            if i1 > i:
                ops.append(("equal", i, i1, j, j1))
        pending = (i1, i2, j1, j2)
        i, j = i2, j2
    if pending is not None:
        ops.append((_tag(*pending), *pending))
    if i < la:
        ops.append(("equal", i, la, j, lb))
    return ops


# ----------------------------------------------------------------------------- rendering


def _grouped(ops: list[Op], n: int) -> Iterator[list[Op]]:
    """``difflib.SequenceMatcher.get_grouped_opcodes`` for opcodes we already have."""
    codes = list(ops) or [("equal", 0, 1, 0, 1)]
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    nn = n + n
    group: list[Op] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > nn:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> str:
    """difflib's ``_format_range_unified``."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if not length else start + 1},{length}"


def _marked(prefix: str, keys: Sequence[str]) -> list[str]:
    """Diff lines for ``keys`` (see ``line_keys``): only a file's last line can lack its newline."""
    out = [f"{prefix}{k}\n" for k in keys]
    if keys and keys[-1][-1:] == "\n":
        out[-1] = prefix + keys[-1] + NO_NEWLINE
    return out


_new_line = partial(tuple.__new__, DiffLine)
"""``DiffLine`` from a 5-tuple without the Python-level ``__new__`` (tens of thousands a patch)."""
_FALSE = (False,)


def _lines(sign: Literal[" ", "-", "+"], keys: Sequence[str], a0: int, b0: int) -> list[DiffLine]:
    """Review lines for ``keys`` numbered from old line ``a0`` / new line ``b0`` (0-based)."""
    n = len(keys)
    olds = [None] * n if sign == "+" else range(a0 + 1, a0 + n + 1)
    news = [None] * n if sign == "-" else range(b0 + 1, b0 + n + 1)
    texts = [k[:-1] if k[-1:] == "\r" else k for k in keys]
    out = list(map(_new_line, zip([sign] * n, texts, olds, news, _FALSE * n, strict=True)))
    if keys and keys[-1][-1:] == "\n":  # the file's last line, without a newline
        text = keys[-1][:-1]
        out[-1] = out[-1]._replace(text=text[:-1] if text[-1:] == "\r" else text, no_newline=True)
    return out


def render(
    path: str, old: str | None, new: str | None, a: list[str], b: list[str], ops: list[Op]
) -> tuple[str, list[PreviewHunk], int, int]:
    """``(diff, hunks, added, removed)`` of line keys ``a`` → ``b`` in ``difflib.unified_diff``
    form with ``--- a/path`` / ``+++ b/path`` headers (``/dev/null`` sides)."""
    texts: list[str] = []
    hunks: list[PreviewHunk] = []
    added = removed = 0
    for group in _grouped(ops, CONTEXT):
        first, last = group[0], group[-1]
        i1, i2, j1, j2 = first[1], last[2], first[3], last[4]
        out = [f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@\n"]
        rows: list[DiffLine] = []
        for tag, o1, o2, n1, n2 in group:
            if tag == "equal":
                out += _marked(" ", a[o1:o2])
                rows += _lines(" ", a[o1:o2], o1, n1)
                continue
            if o1 < o2:
                out += _marked("-", a[o1:o2])
                rows += _lines("-", a[o1:o2], o1, n1)
                removed += o2 - o1
            if n1 < n2:
                out += _marked("+", b[n1:n2])
                rows += _lines("+", b[n1:n2], o2, n1)
                added += n2 - n1
        texts.append("".join(out))
        hunks.append(
            PreviewHunk(
                index=len(hunks) + 1,
                old_start=_start(i1, i2),
                old_count=i2 - i1,
                new_start=_start(j1, j2),
                new_count=j2 - j1,
                lines=tuple(rows),
                span=(i1, i2, j1, j2),
            )
        )
    if not hunks:
        return "", [], 0, 0
    src = "/dev/null" if old is None else f"a/{path}"
    dst = "/dev/null" if new is None else f"b/{path}"
    return f"--- {src}\n+++ {dst}\n" + "".join(texts), hunks, added, removed


def _start(start: int, stop: int) -> int:
    """difflib's 1-based start of a range (the line before it when the range is empty)."""
    return start if start == stop else start + 1


def unified(path: str, old: str | None, new: str | None) -> tuple[str, list[PreviewHunk]]:
    """``(diff, hunks)`` of two texts (difflib on the changed middle)."""
    a, b = line_keys(old), line_keys(new)
    diff, hunks, _, _ = render(path, old, new, a, b, text_opcodes(a, b))
    return diff, hunks


def _joins_to(keys: list[str], text: str | None) -> bool:
    """``keys == line_keys(text)``, checked with one join and compare (no split). (The patch
    engine's lines keep undecodable bytes as surrogates; shown text has U+FFFD: not equal.)"""
    if not keys:
        return not text
    if text is None:
        return False
    joined = "\n".join(keys)
    if keys[-1][-1:] == "\n":  # no final newline
        return len(joined) == len(text) + 1 and joined.startswith(text)
    return len(text) == len(joined) + 1 and text.startswith(joined) and text[-1] == "\n"


def file_preview(
    path: str,
    old: bytes | None,
    new: bytes | None,
    blocks: Iterable[Block] | None = None,
    keys: tuple[list[str], list[str]] | None = None,
) -> FilePreview:
    """The preview of ``old`` → ``new``.

    ``blocks`` (changed line ranges, e.g. located patch hunks) skip the diff search when they
    describe the change, and are ignored otherwise. ``keys`` (the caller's ``line_keys`` of both
    texts, e.g. the patch engine's own lines) skip splitting the texts; they are checked
    against the texts and ignored if they differ.
    """
    old_text, new_text = decode(old), decode(new)
    if keys is not None and _joins_to(keys[0], old_text) and _joins_to(keys[1], new_text):
        a, b = keys
    else:
        a, b = line_keys(old_text), line_keys(new_text)
    ops = block_opcodes(a, b, blocks) if blocks is not None else None
    if ops is None:
        ops = text_opcodes(a, b)
    diff, hunks, added, removed = render(path, old_text, new_text, a, b, ops)
    return FilePreview(
        path=path,
        old_text=old_text,
        new_text=new_text,
        diff=diff,
        old_hash=sha256(old),
        new_hash=sha256(new),
        added=added,
        removed=removed,
        hunks=tuple(hunks),
        old_bytes=old,
    )
