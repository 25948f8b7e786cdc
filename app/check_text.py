"""The after-edit checks of a finished call (``meta["checks"]``, ``tools/after_edit.py``),
what the person's formatters did to it (``meta["formatted"]``, ``tools/formatting.py``) and
a command whose changes were not recorded (``meta["unwatched"]``,
``tools/command_changes.py``), in a line each, for the person: the Transcript's row and the
Markdown export."""

from __future__ import annotations

from collections.abc import Mapping

TYPE_CHECKING = False  # typing is not imported at run time: the export reads these lines
if TYPE_CHECKING:
    from typing import Any

FORMAT_KEYS = ("formatted", "formatted_by", "format_failed", "format_left")
"""What a result's meta says of the person's formatters (``tools/formatting.py``): kept by
``run --json`` and the export as they are."""
CHECK_OPENING = "\n[check "
"""Where the checks' verdicts start in a result's output (``tools/after_edit.py``)."""
CHANGED_OPENING = "\n[the command changed "
"""Where the note of what a command changed starts in its output (``tools/command_changes``):
what the model reads; the person's rows list the files themselves."""


def own_output(output: str) -> str:
    """A result's output before the notes Frontier appended for the model (what a command
    changed, the checks' verdicts): the command's own, which a row folds."""
    cut = min((i for i in (output.find(CHANGED_OPENING), output.find(CHECK_OPENING)) if i >= 0),
              default=len(output))  # fmt: skip
    return output[:cut]


_SAID = {
    "passed": "passed",
    "timeout": "timed out",
    "cancelled": "stopped",
    "not_found": "command not found",
    "not_run": "could not be started",
}


def check_lines(meta: Mapping[str, Any] | None) -> list[tuple[str, bool]]:
    """``("✗ check ruff: exit 1 · 0.2 s · F821 Undefined name `os`", True)`` per check
    that ran (the flag: it did not pass; the seconds are the check's, which the call's own
    time leaves out); ``[]`` when none ran."""
    if not meta:
        return []
    out: list[tuple[str, bool]] = []
    formatted = meta.get("formatted")
    if isinstance(formatted, list) and formatted:  # tools/formatting.py, before the review
        by = meta.get("formatted_by")  # absent in sessions stored before stop 66
        names = ", ".join(map(str, by)) if isinstance(by, list) and by else "your formatter"
        out.append((f"✎ formatted by {names}: {', '.join(map(str, formatted))}", False))
    failed = meta.get("format_failed")
    if isinstance(failed, list):
        out += [(f"✗ not formatted: {why}", True) for why in failed if isinstance(why, str)]
    left = meta.get("format_left")  # on purpose: not formatted before the edit
    if isinstance(left, list):
        out += [(f"· not formatted: {why}", False) for why in left if isinstance(why, str)]
    unwatched = meta.get("unwatched")  # tools/command_changes.py: past its bounds
    if isinstance(unwatched, str):
        out.append(
            (f"· its changes were not recorded, so /undo cannot put them back: {unwatched}", False)
        )
    checks = meta.get("checks")
    if not isinstance(checks, list):
        return out
    for check in checks:
        if not isinstance(check, Mapping):
            continue
        name, outcome = str(check.get("name", "?")), str(check.get("outcome", "?"))
        passed = outcome == "passed"
        said = _SAID.get(outcome) or f"exit {check.get('exit')}"
        seconds = check.get("seconds")
        took = f" · {seconds:.1f} s" if isinstance(seconds, int | float) else ""
        first = check.get("first")
        tail = f" · {first}" if isinstance(first, str) and first and not passed else ""
        out.append((f"{'✓' if passed else '✗'} check {name}: {said}{took}{tail}", not passed))
    return out
