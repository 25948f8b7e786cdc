"""Untrusted text made display text: the one conversion every TUI sink goes through.

What a pane or a modal shows often came from somewhere Frontier does not control:
the model (a command, a call id, prose), a file (a diff line), a file name, a
workspace name, a stored session (a first prompt, a model name) or a remembered
rule. Rich draws such a string cell by cell, so an ``ESC[1K ESC[1G`` in a command,
a C1 ``CSI`` (``\\x9b``) in a diff line or a bidi override (U+202E) in a file name
reaches the terminal and is *obeyed*: the person approving sees ``echo safe`` where
``touch PWNED; echo safe`` runs. And rich wraps a line by walking it character by
character, so one 20 MB line (a minified file, a generated fixture) froze the event
loop in ``Text.wrap`` for tens of seconds before the review could open.

So every such string becomes display text through :func:`display_preview`, at the
point where it becomes a rich ``Text`` (never earlier: the clipboard and the store
keep the exact text):

- each line longer than ``2 × LINE_KEEP`` characters keeps its first and last
  ``LINE_KEEP`` characters with ``… N characters …`` between (cut first, so the rest
  of the work is bounded by what is shown);
- every character a terminal acts on (C0 but newline and tab, DEL, C1, the bidi
  marks and overrides) is shown as its control picture (``␛``) or as an escape
  (``\\x9b``, ``\\u202e``) — ``terminal_text.pictured``, the TUI twin of the CLI's
  ``terminal_safe``, so the two cannot disagree about what is unsafe;
- ``one_line=True`` (a head, a label, a file name, a rule) also shows newlines and
  tabs as ``⏎`` and ``→``, so a file name or a command cannot grow a row into many,
  and ``limit`` cuts the result with ``…``.

An always-allow rule made from a many-line command is named by :func:`rule_text`: its
first and last lines and how many there are (:func:`command_gist`), never the command
joined into one row that runs off the screen.

Two sinks must not cut a line to its ends, because the middle is what is being approved:

- a command or code under review (``widgets/command_view.py``) is never cut — ``echo safe``,
  3,000 spaces, ``; touch PWNED;``, 3,000 spaces, ``echo done`` hid the ``touch`` in the
  ``… N characters …``. It is wrapped whole, and a run of ``BLANK_RUN`` or more blank
  characters is one visible ``⋯ 3,000 spaces ⋯`` (:func:`fold_blank_runs`), so blanks
  cannot push a payload out of view;
- a changed line of a diff too long to show whole keeps the part around what changed
  (:func:`cut_around`, :func:`changed_span`), with how much is cut on each side: a
  20 MB line whose middle ``checkAuth(user);`` is replaced showed neither text.

The module imports neither Textual nor rich: the stream state (``widgets/state.py``)
and the headless-safe helpers can use it too.
"""

from __future__ import annotations

import re

from frontier.app.frontends.terminal_text import pictured
from frontier.tools.approval_rules import CommandRule, Rule

LINE_KEEP = 2_000
"""Characters kept at each end of a long line (issue 21, item 10)."""
CUT_SLACK = 64
"""A line is cut only when longer than ``2 × keep + CUT_SLACK``: a line already cut (its
``… N characters …`` included) is never cut again, so the count stays true."""
NEWLINE = "⏎"
TAB = "→"


def cut_line(line: str, keep: int | None = None) -> str:
    """``line`` whole, or its first and last ``keep`` (``LINE_KEEP``) characters with
    ``… N characters …`` between: what any widget may render of one line (rich's wrapping
    is per character). ``LINE_KEEP`` is read at each call, so ``bench/review_long_line.py``
    can set it huge to time the review as it was before lines were cut."""
    keep = LINE_KEEP if keep is None else keep
    if len(line) <= 2 * keep + CUT_SLACK:
        return line
    hidden = len(line) - 2 * keep
    return f"{line[:keep]} … {hidden:,} characters … {line[-keep:]}"


def cut_lines(text: str, keep: int | None = None) -> str:
    """``text`` with every line cut by :func:`cut_line` (linear: one split, no regex)."""
    keep = LINE_KEEP if keep is None else keep
    if len(text) <= 2 * keep + CUT_SLACK:
        return text
    lines = text.split("\n")
    cut = cut_each(lines, keep)
    return text if cut is lines else "\n".join(cut)


def cut_each(lines: list[str], keep: int | None = None) -> list[str]:
    """``lines`` each cut by :func:`cut_line`: the same list when none is long, found in one
    C-speed pass (a command's output streams millions of short lines)."""
    keep = LINE_KEEP if keep is None else keep
    if not lines or max(map(len, lines)) <= 2 * keep + CUT_SLACK:
        return lines
    return [cut_line(line, keep) for line in lines]


def fold_lines(text: str, head: int, tail: int) -> str:
    """``text`` with the lines between its first ``head`` and last ``tail`` replaced by
    one ``… N more lines …`` line, when that hides more than a few (else ``text``). In
    C-speed passes (a count, then ``head + tail`` finds): a message can be a pasted log
    of 20,000 lines, and each line wrapped on the screen costs a render."""
    lines = text.count("\n") + 1
    hidden = lines - head - tail
    if hidden <= FOLD_SLACK:
        return text
    start = -1
    for _ in range(head):
        start = text.find("\n", start + 1)
    end = len(text)
    for _ in range(tail):
        end = text.rfind("\n", 0, end)
    return f"{text[:start]}\n… {hidden:,} more lines …{text[end:]}"


FOLD_SLACK = 5
"""Lines :func:`fold_lines` shows rather than fold (a marker for three lines hides
nothing worth it)."""
MESSAGE_HEAD = 20
MESSAGE_TAIL = 20
"""Lines of a long message shown at its start and at its end (a pasted log's error is
often at the end), by the TUI's Transcript and by ``frontier run``'s echo on a terminal;
the rest is one ``… N more lines …`` line. The message goes to the model whole: after a
20,000-line paste, drawing all of it held the screen 1.4 s when it was sent."""


def message_ends(text: str) -> str:
    """A person's message as it is shown: its first and last lines (:data:`MESSAGE_HEAD`,
    :data:`MESSAGE_TAIL`), each long line by its ends (:func:`cut_lines`)."""
    return cut_lines(fold_lines(text, MESSAGE_HEAD, MESSAGE_TAIL))


def _note(count: int) -> str:
    return f"… {count:,} characters …"


CONTEXT = 200
"""Characters kept on each side of the changed part of a long diff line: enough to tell
where it is, few enough that the change is on the first screen of the hunk."""


def cut_around(
    line: str, start: int, end: int, keep: int | None = None, context: int = CONTEXT
) -> str:
    """``line`` cut like :func:`cut_line`, but what is kept is ``line[start:end]`` — the
    part of a diff line that changed — with ``context`` characters on either side, and
    each cut says how many characters it hides: ``… 9,999,800 characters … var a=1;
    checkAuth(user); … 9,999,784 characters …``.

    A change longer than ``2 × keep`` keeps ``keep`` characters from where it begins and
    ``keep`` up to where it ends (``… N characters …`` between): where it begins and ends
    is what a person needs to see. A line no longer than :func:`cut_line` cuts is whole,
    and the whole line changed (``start == 0``, ``end == len(line)``) is its two ends,
    as :func:`cut_line` has them."""
    keep = LINE_KEEP if keep is None else keep
    size = len(line)
    if size <= 2 * keep + CUT_SLACK:
        return line
    start = max(0, min(start, size))
    end = max(start, min(end, size))
    first = max(0, start - context)
    last = min(size, end + context)
    if end - start <= 2 * keep:
        windows = [(first, last)]
    else:
        windows = [(first, start + keep), (end - keep, last)]
    parts: list[str] = []
    at = 0
    for a, b in windows:
        if a > at:
            parts.append(_note(a - at))
        parts.append(line[a:b])
        at = b
    if at < size:
        parts.append(_note(size - at))
    return " ".join(parts)


def display_change(old: str, new: str) -> tuple[str, str]:
    """A removed line and the added line that replaces it as a diff shows them: each
    :func:`display_preview`'s, but when one is too long to show whole, each keeps what is
    around its changed part (:func:`changed_span`, :func:`cut_around`)."""
    limit = 2 * LINE_KEEP + CUT_SLACK
    if len(old) <= limit and len(new) <= limit:
        return display_preview(old), display_preview(new)
    prefix, suffix = changed_span(old, new)
    return (
        pictured(cut_around(old, prefix, len(old) - suffix)),
        pictured(cut_around(new, prefix, len(new) - suffix)),
    )


CHUNK = 65_536
"""Characters compared at once when two long lines are matched (C comparisons, not a
Python loop per character)."""


def common_prefix(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share (chunked: linear, fast on 20 MB)."""
    n = min(len(a), len(b))
    at = 0
    while at < n:
        end = min(n, at + CHUNK)
        if a[at:end] != b[at:end]:
            return next(k for k in range(at, end) if a[k] != b[k])
        at = end
    return n


def changed_span(old: str, new: str) -> tuple[int, int]:
    """``(prefix, suffix)``: the characters ``old`` and ``new`` share at their start and
    at their end (never overlapping), so ``old[prefix:len(old) - suffix]`` became
    ``new[prefix:len(new) - suffix]``."""
    prefix = common_prefix(old, new)
    room = min(len(old), len(new)) - prefix
    if room <= 0:
        return prefix, 0
    suffix = common_prefix(old[prefix:][::-1], new[prefix:][::-1])
    return prefix, min(suffix, room)


BLANK_CHARS = (
    " \t\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u200b\u200c\u200d\u2028\u2029\u202f\u205f\u2060\u3000\u180e\ufeff"
    "\u2800\u3164\uffa0\u115f\u1160"
)
"""Characters a terminal draws as blank or as nothing (after the controls are pictured):
spaces and tabs, Unicode spaces, zero-width ones, and the fillers (braille blank, Hangul
fillers) that are letters to Unicode but blank on screen."""
BLANK_RUN = 40
"""Blank characters in a row shown as one ``⋯ N spaces ⋯`` (shorter runs — indentation,
alignment — stay as they are)."""
_BLANK_RUN = re.compile(f"[{re.escape(BLANK_CHARS)}]{{{BLANK_RUN},}}")


def is_blank(line: str) -> bool:
    """Nothing on ``line`` a terminal draws (it may still hold blank characters)."""
    return not line.strip(BLANK_CHARS)


def blank_run_note(run: str) -> str:
    """``⋯ 3,000 spaces ⋯``: a folded run of blank characters, saying what and how many."""
    count = len(run)
    if not run.strip(" "):
        what = "space"
    elif not run.strip("\t"):
        what = "tab"
    else:
        what = "blank character"
    return f"⋯ {count:,} {what}{'s' * (count != 1)} ⋯"


def _expand(segment: str, column: int, tab_size: int | None) -> str:
    """``segment`` with tabs expanded as if it started at ``column``."""
    if tab_size is None or "\t" not in segment:
        return segment
    pad = column % tab_size
    return (" " * pad + segment).expandtabs(tab_size)[pad:]


def fold_blank_runs(
    line: str, *, tab_size: int | None = None
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``line`` (one line, controls pictured) with each run of ``BLANK_RUN`` or more blank
    characters shown as :func:`blank_run_note`, and where those notes are in the result
    (``(start, end)``, for the view to style them apart from the text). Tabs outside the
    runs are expanded to ``tab_size`` when given.

    Every other character stays: a command's ``; touch PWNED;`` between 3,000 spaces on
    each side is on the same row as ``echo safe``, not 40 blank rows below it."""
    if len(line) < BLANK_RUN or _BLANK_RUN.search(line) is None:
        return _expand(line, 0, tab_size), ()
    out: list[str] = []
    notes: list[tuple[int, int]] = []
    column = at = 0
    for match in _BLANK_RUN.finditer(line):
        text = _expand(line[at : match.start()], column, tab_size)
        out.append(text)
        column += len(text)
        note = blank_run_note(match.group())
        notes.append((column, column + len(note)))
        out.append(note)
        column += len(note)
        at = match.end()
    out.append(_expand(line[at:], column, tab_size))
    return "".join(out), tuple(notes)


def display_preview(
    text: str, *, one_line: bool = False, limit: int | None = None, keep: int | None = None
) -> str:
    """``text`` as a widget may show it: long lines cut, terminal controls pictured.

    ``one_line``: newlines and tabs shown as ``⏎`` / ``→`` too (heads, labels, file
    names, rules: one row each). ``limit``: at most that many characters, the last
    one ``…`` when cut (after the pictures, so an escape is never split in two).
    """
    shown = pictured(cut_lines(text, keep))
    if one_line:
        shown = shown.replace("\n", NEWLINE).replace("\t", TAB)
    if limit is not None and len(shown) > limit:
        shown = shown[: max(0, limit - 1)] + "…"
    return shown


def is_displayable(text: str) -> bool:
    """``text`` shows as itself: nothing to picture and no line to cut."""
    return display_preview(text) == text


def line_count(text: str) -> int:
    """Lines of ``text`` as a shell or Python reads them (split at ``\\n`` only; a final
    newline ends the last line rather than starting another)."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def more_lines(count: int) -> str:
    """`` (+41 lines)``: what a one-row summary of a many-line value does not show."""
    return f" (+{count:,} line{'s' * (count != 1)})" if count > 0 else ""


GIST_LINE = 40
"""Characters of a line a one-row gist of a command shows (each end, when many lines)."""


def command_gist(command: str, *, limit: int = GIST_LINE) -> str:
    """A command (or code) in one bounded row that says what it does not show.

    A rule made from a command names *exactly* that text, and the row that names the rule
    (the review's "always allow …", a toast, the palette's "Revoke") cannot hold it all.
    Joined with ``⏎``, ``echo safe``, 40 blank lines and ``touch PWNED`` ran off the screen's
    edge as ``echo safe⏎⏎⏎⏎…``. Here:

    - one line: `` `ls -la` ``, or cut with ``…`` and its length said:
      `` `echo xxx…` (20,000,019 characters)``, a long run of blanks folded first
      (`` `echo safe⋯ 3,000 spaces ⋯; touch…` ``);
    - many lines: the first and the last line with something on them and how many lines
      there are, blank ones counted: `` `echo safe` … `touch PWNED` (42 lines, 40 blank)``.

    Every piece is display text (:func:`display_preview`, one row each).
    """
    lines = command.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # a final newline ends the last line (as a shell reads it)

    def quoted(line: str) -> str:
        folded = fold_blank_runs(line)[0]  # 3,000 spaces cannot fill the row the gist has
        return f"`{display_preview(folded, one_line=True, limit=limit)}`"

    if len(lines) == 1:
        line = lines[0]
        more = f" ({len(line):,} characters)" if len(line) > limit else ""
        return quoted(line) + more
    filled = [n for n, line in enumerate(lines) if line.strip(" \t")]
    blank = len(lines) - len(filled)
    count = f"{len(lines):,} lines" + (f", {blank:,} blank" if blank else "")
    if not filled:
        return f"({len(lines):,} blank lines)"
    first, last = filled[0], filled[-1]
    ends = (
        quoted(lines[first]) if first == last else f"{quoted(lines[first])} … {quoted(lines[last])}"
    )
    return f"{ends} ({count})"


def rule_text(rule: Rule, limit: int = GIST_LINE) -> str:
    """An always-allow rule as one row of display text: a command rule's command as its
    :func:`command_gist` (``limit`` characters of each line shown), an edit rule's folder
    pictured."""
    if isinstance(rule, CommandRule):
        gist = command_gist(rule.command, limit=limit)
        if rule.prefix:
            return f"commands starting {gist} (plain arguments)"
        return f"{'python code' if rule.tool == 'python' else 'the command'} {gist}"
    return display_preview(rule.describe(), one_line=True)
