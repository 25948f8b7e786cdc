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

The module imports neither Textual nor rich: the stream state (``widgets/state.py``)
and the headless-safe helpers can use it too.
"""

from __future__ import annotations

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
    limit = 2 * keep + CUT_SLACK
    if len(text) <= limit:
        return text
    lines = text.split("\n")
    if all(len(line) <= limit for line in lines):
        return text
    return "\n".join(cut_line(line, keep) for line in lines)


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
      `` `echo xxx…` (20,000,019 characters)``;
    - many lines: the first and the last line with something on them and how many lines
      there are, blank ones counted: `` `echo safe` … `touch PWNED` (42 lines, 40 blank)``.

    Every piece is display text (:func:`display_preview`, one row each).
    """
    lines = command.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # a final newline ends the last line (as a shell reads it)

    def quoted(line: str) -> str:
        return f"`{display_preview(line, one_line=True, limit=limit)}`"

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
