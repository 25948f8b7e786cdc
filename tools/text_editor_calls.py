"""Anthropic's text editor tool, as OpenHands and the models trained in it call it:
``str_replace_editor {command, path, …}``, read as the built-in tool each command means.

Claude models learnt it as ``str_replace_based_edit_tool``; OpenHands offers it as
``str_replace_editor``, and models fine-tuned on its trajectories (Devstral, SWE-agent's
and SWE-smith's) reach for it whatever they are offered: one tool whose ``command``
chooses what it does. Each such call was ``unknown tool`` and a repair round. Now:

* ``view {path, view_range?}`` → ``read`` (a folder is listed; ``[first, last]`` is
  ``offset``/``limit``, ``last`` -1 to the end);
* ``create {path, file_text}`` → ``write``;
* ``str_replace {path, old_str, new_str}`` → ``replace`` (found and refused as
  ``replace`` does).

``insert`` (after a line number) and ``undo_edit`` have no tool of the same meaning here
(undo is the person's): the call stays unknown, and its error lists the tools. Cursor's
``delete_file`` is the patch that deletes the file (:func:`deletion`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from frontier.tools.arg_aliases import name_key

NAMES = ("strreplaceeditor", "strreplacebasededittool", "texteditor")
"""Its names, as ``arg_aliases.name_key`` reads them."""


def editor_call(name: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """``(tool, arguments)`` the call means, or ``None`` (not this tool, or a command
    with no tool of its meaning, or arguments that do not make one)."""
    if name_key(name) not in NAMES:
        return None
    command, path = args.get("command"), args.get("path")
    if not isinstance(path, str):
        return None
    if command == "view":
        return _view(path, args.get("view_range"))
    if command == "create" and isinstance(args.get("file_text"), str):
        return "write", {"path": path, "content": args["file_text"]}
    if command == "str_replace" and isinstance(args.get("old_str"), str):
        new = args.get("new_str")
        return "replace", {"path": path, "old": args["old_str"], "new": new or ""}
    return None


DELETING = ("deletefile", "removefile")
"""Cursor's tool to delete a file."""


def deletion(name: str, args: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """Cursor's ``delete_file {target_file}`` as the patch that deletes the file: reviewed
    as a diff, undone as any edit (it was ``unknown tool``, and the model then ran ``rm``,
    which no undo brings back)."""
    if name_key(name) not in DELETING:
        return None
    path = next((args[k] for k in ("target_file", "path", "file_path") if k in args), None)
    if (
        not isinstance(path, str)
        or not path.strip()
        or "\n" in path
        or set(args) - {"target_file", "path", "file_path", "explanation"}
    ):
        return None
    return "apply_patch", {
        "patch": f"*** Begin Patch\n*** Delete File: {path.strip()}\n*** End Patch"
    }


def editor_hint(name: str, args: Mapping[str, Any]) -> str:
    """What to do instead, for a call :func:`editor_call` could not read (``""``: not
    this tool): the unknown tool's error says it."""
    if name_key(name) not in NAMES:
        return ""
    if args.get("command") == "insert":
        return (
            f"{name}'s insert is not a tool here: use replace, with old the line to insert "
            "after and new that line followed by the new ones"
        )
    return f"{name} is not a tool here: read views a file, write creates one, replace edits"


def _view(path: str, window: object) -> tuple[str, dict[str, Any]] | None:
    if window is None:
        return "read", {"path": path}
    if not (
        isinstance(window, list)
        and len(window) == 2
        and all(isinstance(n, int) and not isinstance(n, bool) for n in window)
    ):
        return None
    first, last = window
    first = max(first, 1)
    if last == -1:
        return "read", {"path": path, "offset": first}
    if last < first:
        return None
    return "read", {"path": path, "offset": first, "limit": last - first + 1}


__all__ = ["DELETING", "NAMES", "deletion", "editor_call", "editor_hint"]
