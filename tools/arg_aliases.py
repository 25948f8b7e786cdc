"""Other names models send for the built-in tools' parameters (``ToolSpec.aliases``).

A model reaches for the names of the tools it was trained with: Claude Code's
``file_path``, ``old_string`` and ``run_in_background``, opencode's ``filePath``, pi's
``oldText``, Anthropic's text editor's ``old_str`` and ``file_text``, Codex's
``apply_patch`` ``input``. Each was an argument error and a repair round, and some
models loop on it (GLM with ``filePath``, Kimi K2 with ``path``/``file_path``; others'
issue trackers). Taken as the parameter they mean only where the meaning is the same:
Claude Code's ``timeout`` is in milliseconds, so no alias maps it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (``frontier apply-patch`` starts)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

PATH = {"file_path": "path", "filePath": "path", "filepath": "path"}
REPLACE = {
    **PATH,
    "replace_all": "all",  # Claude Code's Edit
    **dict.fromkeys(("old_string", "oldString", "old_str", "oldText", "old_text"), "old"),
    **dict.fromkeys(("new_string", "newString", "new_str", "newText", "new_text"), "new"),
}
MULTI = {alias: name for alias, name in REPLACE.items() if name != "all"}
"""``multi``'s edits replace exactly one occurrence each."""
WRITE = {**PATH, "contents": "content", "file_text": "content"}
PATCH = {"input": "patch"}
GREP = dict.fromkeys(("-i", "case_insensitive", "caseInsensitive"), "ignore_case")
SHELL = {"cmd": "command", "run_in_background": "background"}

EVERY = {**PATH, **REPLACE, **WRITE, **PATCH, **SHELL, **GREP}
"""Every alias → its parameter, for a front end summing up a call as the model sent it."""


def named(args: Mapping[str, Any]) -> Mapping[str, Any]:
    """``args`` under the parameters' own names (a front end's one-line summary of a call
    the model sent with ``cmd`` shows its command as it would ``command``'s); ``args``
    itself when no alias is in it, and an alias beside its own name stays as sent."""
    if not any(key in EVERY for key in args):
        return args
    out: dict[str, Any] = {}
    for key, value in args.items():
        name = EVERY.get(key, key)
        out[name if name not in args else key] = value
    return out
