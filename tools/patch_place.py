"""Placing one file entry's hunks: where each hunk goes, why there, and what it depends on.

Hunks are applied in order to the text the earlier hunks left (git's semantics),
each found at or after where the previous hunk starts, so a hunk may use lines
an earlier one wrote as its context; that makes it *depend* on the earlier one
(declining that one in the review declines this one too). Every line keeps its
origin (an original line number, or the hunk that added it), so the changed
regions of the result are known exactly, without a diff search.

How a hunk is located (DESIGN §5), at the first level of the matching ladder
(``patch_match``) where its old lines, or its new lines, occur:

* only the new lines occur (or every occurrence of the old lines sits inside an
  occurrence of the new ones): the hunk is already applied;
* ``@@ context`` anchors (Codex, or a unified header without numbers): the
  occurrence that follows an anchor; anchors leading to different places are
  ambiguous;
* one occurrence: there, wherever the header says;
* several: the one nearest the header's line (shifted by how far earlier hunks
  moved) when that line is inside the file and strictly nearer to one of them;
  otherwise ambiguous, naming every place.

The view is the text before the previous hunk (final, never searched again), the
previous hunk's output, and the untouched rest of the original: only the last is
large, and it is searched through one precomputed ``Haystack`` per level.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from frontier.tools.patch_match import LEVEL_NOTES, LEVELS, Haystack, bare, bisect_left, keys
from frontier.tools.patch_model import Hunk

TYPE_CHECKING = False  # typing is not imported at run time (~3 ms of start-up)
if TYPE_CHECKING:
    from typing import Literal, NamedTuple
else:
    from frontier.app.record import NamedTuple

if TYPE_CHECKING:
    Status = Literal["placed", "present"]


class HunkPlaceError(ValueError):
    """A hunk could not be placed; the message says why (the caller adds file and hunk)."""


class Placement(NamedTuple):
    hunk: Hunk
    status: Status
    """``placed``: applied here; ``present``: its result is already in the file here."""
    line: int
    """1-based line of the original file where it starts (for messages)."""
    why: str
    """How it was located, for the review and the model (``""`` when exactly at its header)."""
    depends_on: frozenset[int]
    """Indices (``Hunk.index``) of earlier hunks of this entry whose lines it matched."""


class Placed(NamedTuple):
    """One entry's result: the new lines, where each came from, and each hunk's placement."""

    lines: list[str]
    runs: list[tuple[int, int, int]]
    """Origin runs covering ``lines`` in order: ``(0, i, n)`` original lines ``i..i+n``,
    ``(1, k, n)`` ``n`` lines added by hunk ``k``."""
    deleted_by: dict[int, int]
    """Original line index → the hunk that removed it."""
    placements: list[Placement]
    last_newline: bool
    """Whether the new text ends with a newline."""


class Placer:
    """Applies hunks one by one (mutable; one per file entry)."""

    def __init__(self, lines: list[str], final_newline: bool, crlf: bool, path: str = "") -> None:
        self.path = path or "the file"
        self.orig = lines
        self.final_newline = final_newline
        self.cr = "\r" if crlf else ""
        self.hay = Haystack(lines)
        self.done: list[str] = []
        self.runs: list[tuple[int, int, int]] = []
        self.region: list[str] = []
        self.region_org: list[int] = []
        """Origin per region line: ``>= 0`` original index, ``< 0`` ``-(hunk index)``."""
        self.prev_len = 0
        """How many of the region's first lines are the previous hunk's output."""
        self.c = 0
        """Original lines ``[c:]`` are untouched and follow the region."""
        self.deleted_by: dict[int, int] = {}
        self.placements: list[Placement] = []
        self.drift = 0
        """How far the previous hunk landed from where its header (and growth) put it."""
        self.growth = 0
        """Lines added minus lines removed by the hunks placed so far."""
        self.unterminated: set[int] = set()
        """Hunks whose last added line is marked ``\\ No newline at end of file``."""

    # -------------------------------------------------------------- the view

    @property
    def base(self) -> int:
        return len(self.done)

    def __len__(self) -> int:
        return len(self.done) + len(self.region) + len(self.orig) - self.c

    def _line(self, p: int) -> tuple[str, int]:
        """The view's line at position ``p >= base`` and its origin."""
        r = p - self.base
        if r < len(self.region):
            return self.region[r], self.region_org[r]
        q = self.c + r - len(self.region)
        return self.orig[q], q

    def line_no(self, p: int) -> int:
        """1-based line for messages: original numbering in the untouched part."""
        r = p - self.base
        if r >= len(self.region):
            return self.c + r - len(self.region) + 1
        return p + 1

    def _find(self, needle: Sequence[str], level: str, start: int) -> list[int]:
        """View positions ``>= start`` (``start >= base``) where ``needle`` matches."""
        m = len(needle)
        if m == 0:
            return []
        out: list[int] = []
        rlen = len(self.region)
        r0 = start - self.base
        if r0 < rlen:
            tail = self.orig[self.c : self.c + m - 1]
            small = Haystack([*self.region[r0:], *tail])
            out.extend(self.base + r0 + s for s in small.find(needle, level) if s < rlen - r0)
            r0 = rlen
        q0 = self.c + r0 - rlen
        shift = self.base + rlen - self.c
        out.extend(q + shift for q in self.hay.find(needle, level, q0))
        return out

    # -------------------------------------------------------------- locating

    def locate(self, hunk: Hunk) -> Placement:
        """Place ``hunk`` (or find it already applied); raises ``HunkPlaceError``."""
        old, new = hunk.old, hunk.new
        hint = self._hint(hunk)
        after_prev = self.base + self.prev_len
        if not old:
            return self._insert(hunk, hint)
        found = self._at_hint(old, new, hint, after_prev)
        if found is None:
            found = self._search(hunk, old, new, hint, after_prev)
        if found is None and after_prev > self.base:
            found = self._search(hunk, old, new, hint, self.base)  # context written by hunk k-1
        if found is None:
            raise HunkPlaceError(self._not_found(hunk, old, new, hint))
        status, p, level, why = found
        if status == "placed":
            return self._apply(hunk, p, level, why)
        return self._apply(hunk, p, level, why, present=True)

    def _hint(self, hunk: Hunk) -> int | None:
        """Where the header says the hunk starts in the current view, shifted by the drift
        of the hunks before it; ``None`` without numbers or beyond the file."""
        if hunk.old_start is None:
            return None
        start = hunk.old_start - 1 if hunk.tags.strip("+") else hunk.old_start
        hint = max(0, start) + self.growth + self.drift
        return hint if 0 <= hint <= len(self) else None

    def _at_hint(
        self, old: list[str], new: list[str], hint: int | None, start: int
    ) -> tuple[Status, int, str, str] | None:
        """A header that is right wins at any level of the ladder (as in git and GNU patch,
        the header's own line is tried first): the old lines there, even with whitespace
        retyped, beat an exact copy elsewhere. Not when the new lines are there too."""
        if hint is None or hint < start or hint + len(old) > len(self):
            return None
        here = self._slice(hint, len(old))
        level = next((lv for lv in LEVELS if _same(here, old, lv)), None)
        if level is None:
            return None
        if new and len(new) > len(old) and hint + len(new) <= len(self):
            # The new lines here too (lines added at the hunk's edge): maybe applied already.
            # New lines no longer than the old ones lie inside the old lines found: no sign.
            there = self._slice(hint, len(new))
            upto = LEVELS[: LEVELS.index(level) + 1]
            if any(_same(there, new, lv) for lv in upto):
                return None
        loose = LEVEL_NOTES[level]
        return "placed", hint, level, f"matched {loose}" if loose else ""

    def _slice(self, p: int, n: int) -> list[str]:
        """The view's lines ``[p, p + n)`` (``p >= base``), sliced, not visited one by one."""
        r = p - self.base
        rlen = len(self.region)
        if r >= rlen:
            q = self.c + r - rlen
            return self.orig[q : q + n]
        head = self.region[r : r + n]
        return head + self.orig[self.c : self.c + n - len(head)]

    def _search(
        self, hunk: Hunk, old: list[str], new: list[str], hint: int | None, start: int
    ) -> tuple[Status, int, str, str] | None:
        """Forward (the old lines) or already applied (the new lines), at the first level of
        the ladder where either occurs."""
        n_old, n_new = len(old), len(new)
        for level in LEVELS:
            forward = self._find(keys(old, level), level, start)
            reverse = self._find(keys(new, level), level, start) if new and new != old else []
            if forward and reverse:  # the new lines inside an occurrence of the old ones: not
                reverse = [r for r in reverse if not _inside(forward, r, r + n_new, n_old)]
            elif reverse:  # ... even where the old lines only match at a looser level
                reverse = self._not_inside_looser(old, reverse, n_new, level, start)
            if not forward and not reverse:
                continue
            if forward and reverse:  # old lines inside an occurrence of the result: applied
                forward = [f for f in forward if not _inside(reverse, f, f + n_old, n_new)]
            status: Status = "placed" if forward else "present"
            if forward and reverse and hint is not None:
                status = self._forward_or_present(hunk, forward, reverse, hint)
            loose = LEVEL_NOTES[level]
            if status == "placed":
                p, why = self._choose(hunk, forward, n_old, hint, start)
                return "placed", p, level, _join(why, f"matched {loose}" if loose else "")
            p, why = self._choose(hunk, reverse, n_new, hint, start)
            return "present", p, level, _join(why, f"found {loose}" if loose else "")
        return None

    def _not_inside_looser(
        self, old: list[str], reverse: list[int], n_new: int, level: str, start: int
    ) -> list[int]:
        """``reverse`` without the occurrences that lie inside an occurrence of the old lines
        at a looser level (the file's whitespace retyped: the old lines are there)."""
        n_old = len(old)
        for looser in LEVELS[LEVELS.index(level) + 1 :]:
            forward = self._find(keys(old, looser), looser, start)
            if forward:
                return [r for r in reverse if not _inside(forward, r, r + n_new, n_old)]
        return reverse

    def _forward_or_present(
        self, hunk: Hunk, forward: list[int], reverse: list[int], hint: int
    ) -> Status:
        """Both the old and the new lines occur: the header decides. A hunk with less
        context after than before its change ends the file (diff -u and git write fewer
        context lines only at a file's edge; so at its start); then the occurrence nearest
        the header's line (a tie applies it: old lines lying inside an occurrence of the new
        ones were already taken as applied by the caller)."""
        n_old, n_new = len(hunk.tags) - hunk.added, len(hunk.tags) - hunk.removed
        fits = self._fits_edge
        cands = [(p, "placed", fits(hunk, p, n_old)) for p in forward]
        cands += [(p, "present", fits(hunk, p, n_new)) for p in reverse]
        if any(ok for _, _, ok in cands):
            cands = [c for c in cands if c[2]]
        best = min(abs(p - hint) for p, _, _ in cands)
        if any(kind == "placed" and abs(p - hint) == best for p, kind, _ in cands):
            return "placed"
        return "present"

    def _choose(
        self, hunk: Hunk, found: list[int], size: int, hint: int | None, start: int
    ) -> tuple[int, str]:
        why = ""
        if hunk.at_eof:
            end = [p for p in found if p + size == len(self)]
            if end:
                found = end
            else:
                why = "not at the end of the file, despite '*** End of File'"
        if hunk.anchors:
            marks = self._anchor_positions(hunk.anchors, start)
            if marks:
                picked = sorted(
                    {found[i] for i in (bisect_left(found, a + 1) for a in marks) if i < len(found)}
                )
                if len(picked) == 1:
                    return picked[0], why
                if len(picked) > 1:
                    raise HunkPlaceError(self._ambiguous(picked, "after its @@ context line"))
                why = _join(why, f"its lines do not follow @@ {hunk.anchors[-1]!r}")
            else:
                why = _join(why, f"@@ {hunk.anchors[-1]!r} not found; located by its own lines")
        if len(found) == 1:
            return found[0], why
        edge = [p for p in found if self._fits_edge(hunk, p, size)]
        if hunk.old_start is not None and len(edge) == 1:
            return edge[0], why
        if hint is not None:
            ranked = sorted(found, key=lambda p: abs(p - hint))
            if abs(ranked[0] - hint) < abs(ranked[1] - hint):
                return ranked[0], why
            raise HunkPlaceError(
                self._ambiguous(found, "and the @@ line number is not nearer to one of them")
            )
        reason = "and its header has no line numbers to choose by"
        if hunk.old_start is not None:
            reason = "and its @@ line number lies outside the file"
        raise HunkPlaceError(self._ambiguous(found, reason))

    def _fits_edge(self, hunk: Hunk, p: int, size: int) -> bool:
        """Whether ``size`` lines at ``p`` sit where the hunk's context says: diff -u and git
        write fewer context lines after a change than before it only at the end of a file,
        and fewer before only at its start."""
        tags = hunk.tags
        lead = len(tags) - len(tags.lstrip(" "))
        trail = len(tags) - len(tags.rstrip(" "))
        if trail < lead:
            return p + size == len(self)
        if lead < trail and (hunk.old_start or 0) <= 1:
            return p == 0
        return True

    def _anchor_positions(self, anchors: Sequence[str], start: int) -> list[int]:
        """Positions of the last anchor line, each reached through the earlier anchors in
        order (first occurrence after the previous one), at the loosest level needed."""
        for level in LEVELS:
            marks = self._find(keys([anchors[0]], level), level, start)
            for anchor in anchors[1:]:
                later = self._find(keys([anchor], level), level, start)
                marks = sorted(
                    {later[i] for i in (bisect_left(later, a + 1) for a in marks) if i < len(later)}
                )
            if marks:
                return marks
        return []

    def _ambiguous(self, found: list[int], reason: str) -> str:
        at = ", ".join(str(self.line_no(p)) for p in sorted(found)[:8])
        more = f" (and {len(found) - 8} more)" if len(found) > 8 else ""
        return (
            f"ambiguous — its context matches {len(found)} places (lines {at}{more}) {reason}; "
            "add more context lines (or an @@ line naming the enclosing function) so the hunk "
            "is unique"
        )

    def _insert(self, hunk: Hunk, hint: int | None) -> Placement:
        """A hunk with no old lines: at its anchor, at its header's line, else at the end;
        already applied when it would add lines that already start or end the file."""
        why = ""
        p = len(self)
        if hunk.anchors:
            marks = self._anchor_positions(hunk.anchors, self.base)
            if len(marks) > 1:
                raise HunkPlaceError(self._ambiguous(marks, "for its @@ context line"))
            if marks and not hunk.at_eof:
                p = marks[0] + 1
            elif not marks:
                why = f"@@ {hunk.anchors[-1]!r} not found; appended at the end of the file"
        elif hint is not None:
            p = max(hint, self.base + self.prev_len)
        p = min(p, len(self))
        new = hunk.new
        size = len(self)
        # At a file's edge, lines already there are this hunk, applied before; in the
        # middle an equal neighbour proves nothing (a blank line added next to another).
        if (
            p == size
            and size - len(new) >= self.base
            and self._slice(size - len(new), len(new)) == new
        ):
            return self._apply(hunk, size - len(new), "exact", why, present=True)
        if p == 0 and self.base == 0 and self._slice(0, len(new)) == new:
            return self._apply(hunk, 0, "exact", why, present=True)
        return self._apply(hunk, p, "exact", why)

    # -------------------------------------------------------------- applying

    def _apply(
        self, hunk: Hunk, p: int, level: str, why: str, *, present: bool = False
    ) -> Placement:
        line = self.line_no(p)
        expected = None
        if hunk.old_start is not None:
            start = hunk.old_start - 1 if hunk.tags.strip("+") else hunk.old_start
            expected = max(0, start) + self.growth
        if expected is not None and p != expected:
            where = f"at line {line} (header said {hunk.old_start})"
        elif expected is None:
            where = f"at line {line}"
        else:
            where = ""
        why = _join(where, why)
        self._finalize_to(p)
        deps: set[int] = set()
        out: list[str] = []
        org: list[int] = []
        if present:
            tags, texts = " " * len(hunk.new), tuple(hunk.new)
        else:
            tags, texts = hunk.tags, hunk.texts
            if hunk.eols and hunk.eols[-1] == "" and tags[-1] == "+":
                self.unterminated.add(hunk.index)
        r = 0  # lines consumed from the view
        consumed: list[int] = []
        rlen = len(self.region)
        orig, cr, c = self.orig, self.cr, self.c
        for run in re.finditer(_RUNS, tags):
            a, b = run.span()
            tag, k = tags[a], b - a
            if tag == "+":
                added = texts[a:b]
                out.extend([t + cr for t in added] if cr else added)
                org.extend([-hunk.index] * k)
                continue
            while k and r < rlen:  # lines of the previous hunk's output: one by one
                o = self.region_org[r]
                consumed.append(o)
                if o < 0:
                    deps.add(-o)
                if tag == " ":
                    out.append(self.region[r])
                    org.append(o)
                elif o >= 0:
                    self.deleted_by[o] = hunk.index
                r += 1
                k -= 1
            if k:  # the untouched original: whole slices
                q = c + r - rlen
                consumed.extend((q, q + k - 1))
                if tag == " ":
                    out.extend(orig[q : q + k])
                    org.extend(range(q, q + k))
                else:
                    self.deleted_by.update(dict.fromkeys(range(q, q + k), hunk.index))
                r += k
        deps |= self._gaps(consumed)
        deps.discard(hunk.index)
        # The new region: the hunk's output, then what is left of the old region.
        if r < rlen:
            self.region = out + self.region[r:]
            self.region_org = org + self.region_org[r:]
        else:
            self.c += r - rlen
            self.region, self.region_org = out, org
        self.prev_len = len(out)
        if expected is not None:
            self.drift = p - expected
        if not present:
            self.growth += len(out) - (len(tags) - tags.count("+"))
        placement = Placement(hunk, "present" if present else "placed", line, why, frozenset(deps))
        self.placements.append(placement)
        return placement

    def _gaps(self, consumed: list[int]) -> set[int]:
        """Hunks that removed original lines between two lines this hunk matched as adjacent."""
        deps: set[int] = set()
        prev = None
        for o in consumed:
            if o >= 0:
                if prev is not None and o > prev + 1:
                    for k in range(prev + 1, min(o, prev + 1 + 10_000)):
                        hunk = self.deleted_by.get(k)
                        if hunk is not None:
                            deps.add(hunk)
                prev = o
        return deps

    def _finalize_to(self, p: int) -> None:
        """Everything before view position ``p`` becomes final."""
        r = p - self.base
        rlen = len(self.region)
        if r <= rlen:
            self._emit_region(r)
            return
        self._emit_region(rlen)
        k = r - rlen
        self.done.extend(self.orig[self.c : self.c + k])
        _add_run(self.runs, 0, self.c, k)
        self.c += k

    def _emit_region(self, r: int) -> None:
        if r <= 0:
            return
        self.done.extend(self.region[:r])
        for o in self.region_org[:r]:
            if o >= 0:
                _add_run(self.runs, 0, o, 1)
            else:
                _add_run(self.runs, 1, -o, 1)
        del self.region[:r]
        del self.region_org[:r]
        self.prev_len = max(0, self.prev_len - r)

    def finish(self) -> Placed:
        """The new text. Its last line decides the final newline: an original line keeps the
        file's state if it was the file's last (else it had one); an added line has one unless
        the patch marked it ``\\ No newline at end of file``."""
        self._finalize_to(len(self))
        newline = True
        if self.runs:
            kind, x, n = self.runs[-1]
            if kind == 0:
                newline = x + n < len(self.orig) or self.final_newline
            else:
                newline = x not in self.unterminated
                if not newline and self.cr and self.done and self.done[-1].endswith(self.cr):
                    # a CRLF file's added last line without its end: no \r of one either
                    # ("a\r\nb" patched to end in "c" was "a\r\nc\r", git's "a\r\nc")
                    self.done[-1] = self.done[-1][: -len(self.cr)]
        return Placed(self.done, self.runs, self.deleted_by, self.placements, newline)

    # -------------------------------------------------------------- errors

    def _not_found(self, hunk: Hunk, old: list[str], new: list[str], hint: int | None) -> str:
        if hunk.anchors and not self._anchor_positions(hunk.anchors, self.base):
            lead = (
                f"neither its @@ context line {_short(hunk.anchors[-1])} nor its lines were found"
            )
        else:
            lead = "context not found"
        shown = "\n".join(f"      {_short(t, 100)[1:-1]}" for t in old[:4])
        more = f"\n      … ({len(old) - 4} more)" if len(old) > 4 else ""
        return (
            f"{lead} — {self._closest(old, hint)}.\n    the hunk expects:\n{shown}{more}\n"
            f"    Re-read {self.path} and regenerate the hunk against its current content"
        )

    def _closest(self, old: list[str], hint: int | None) -> str:
        lines = self.orig
        want = keys(old, "trailing")
        first = want[0]
        starts = self.hay.find([first], "trailing", self.c)
        if not starts:
            return _similar(lines, old[0])
        target = hint if hint is not None else 0
        best_q, best_k = starts[0], -1
        for q in starts[:2000]:
            k = 0
            while k < len(want) and q + k < len(lines) and lines[q + k].rstrip() == want[k]:
                k += 1
            if k > best_k or (k == best_k and abs(q - target) < abs(best_q - target)):
                best_q, best_k = q, k
        at = best_q + best_k
        if at >= len(lines):
            return (
                f"closest match starts at line {best_q + 1}: the first {best_k} of {len(old)} "
                "old lines match, then the file ends"
            )
        return (
            f"closest match starts at line {best_q + 1}: the first {best_k} of {len(old)} old "
            f"lines match; at line {at + 1} the file has {_short(bare(lines[at]))} but the "
            f"patch expects {_short(old[best_k])}"
        )


def _similar(lines: list[str], wanted: str) -> str:
    """The lines most like the hunk's first line (bounded scan), to show the model."""
    from difflib import SequenceMatcher

    target = wanted.strip()
    scored: list[tuple[float, int]] = []
    matcher = SequenceMatcher(autojunk=False)
    matcher.set_seq2(target)
    for i, line in enumerate(lines[:20_000]):
        text = line.strip()
        if not text or abs(len(text) - len(target)) > max(8, len(target)):
            continue
        matcher.set_seq1(text)
        if matcher.real_quick_ratio() < 0.6 or matcher.quick_ratio() < 0.6:
            continue
        ratio = matcher.ratio()
        if ratio >= 0.6:
            scored.append((ratio, i))
    if not scored:
        return f"the hunk's first old line {_short(wanted)} does not occur in the file"
    scored.sort(key=lambda s: (-s[0], s[1]))
    near = "; ".join(f"line {i + 1}: {_short(bare(lines[i]))}" for _, i in scored[:3])
    return f"the hunk's first old line {_short(wanted)} does not occur; most similar: {near}"


_RUNS = r" +|-+|\++"
"""Runs of one tag in ``Hunk.tags``: spliced with one slice each (compiled on first use, by
``re``'s cache: start-up, issue 24)."""


def _same(lines: list[str], want: list[str], level: str) -> bool:
    """The file's ``lines`` equal the patch's ``want`` at ``level`` (exact: a C-speed compare,
    a CR at a line end never counting)."""
    if level == "exact":
        if lines == want:
            return True
        return any(line.endswith("\r") for line in lines) and keys(lines, "exact") == want
    return keys(lines, level) == keys(want, level)


def _inside(reverse: list[int], f: int, f_end: int, n_new: int) -> bool:
    """Whether ``[f, f_end)`` lies inside some occurrence ``[r, r + n_new)`` in ``reverse``."""
    i = bisect_left(reverse, f + 1) - 1  # the last r <= f
    while i >= 0 and reverse[i] + n_new >= f_end:
        if reverse[i] <= f:
            return True
        i -= 1
    return False


def _add_run(runs: list[tuple[int, int, int]], kind: int, x: int, n: int) -> None:
    if n <= 0:
        return
    if runs:
        k, a, m = runs[-1]
        if k == kind and ((kind == 0 and a + m == x) or (kind == 1 and a == x)):
            runs[-1] = (k, a, m + n)
            return
    runs.append((kind, x, n))


def _join(a: str, b: str) -> str:
    return f"{a}; {b}" if a and b else a or b


def _short(text: str, n: int = 80) -> str:
    return repr(text if len(text) <= n else text[:n] + "…")
