"""``remove``: files and folders taken out of the workspace, every file's content kept.

``rm -r src/legacy`` as a command keeps nothing: the folder and the person's work in it
were gone for good (asked under ``--approval auto-edit`` as destroying work, headless
refused; unasked under ``auto``), and the person asked saw only the command's line. A
plain ``rm -r PATH…`` is this tool's call (``delete_via_shell.removed_tree_in_command``),
so it is reviewed as the deletion of each file in it (a person keeps one by declining its
hunk), written by the journaled writer, and **undone as any edit** (each file's content
kept); the folders it emptied are removed after the files, as ``rm -r`` leaves nothing.

Not offered (``ToolSpec.offered``): made of a model's ``rm -r``; a model that calls it by
name gets it. What it takes is bounded as the call's reading was (:func:`tree`): regular
files and folders only (a link, a FIFO: refused, nothing removed), at most
:data:`MAX_FILES` files of at most :data:`~frontier.tools.delete_via_shell.KEPT_MAX`
bytes, :data:`MAX_BYTES` in all. Undo puts the files back, with the folders they are in;
a folder that was empty is not made again.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from typing import Any, NamedTuple

from frontier.app.events import ToolCall
from frontier.tools import beneath
from frontier.tools.base import CancelToken, Outcome, Prepared, ToolError
from frontier.tools.contract import Preview, ToolContext, ToolSpec
from frontier.tools.delete_via_shell import KEPT_MAX
from frontier.tools.diffing import file_preview
from frontier.tools.edit import change_meta, write_plan
from frontier.tools.patch_engine import FileChange, PatchError, PatchPlan
from frontier.tools.paths import PathError, resolve

REMOVE_TOOL = "remove"
MAX_FILES = 100
"""The most files one call removes (their content kept for undo)."""
MAX_FOLDERS = 100
MAX_BYTES = 16 * 1024 * 1024
"""The most bytes of content one call keeps for undo."""
LISTED = 20
"""Files the result names one by one (the panes show them all: its ``changes``)."""


class Tree(NamedTuple):
    """What removing a path takes: its files (workspace paths) and its folders, deepest
    first (the path itself last when it is one)."""

    files: tuple[str, ...]
    folders: tuple[str, ...]


def tree(root: str, rel: str) -> Tree | None:
    """The files and folders of ``rel`` (a file, or a folder and everything in it), read
    beneath ``root`` without following a link; ``None`` when it holds anything but regular
    files and folders, or more than the bounds. Linear in what it lists, and stopped at
    the bounds."""
    files: list[str] = []
    folders: list[str] = []
    size = 0
    try:
        with beneath.parent(root, rel, follow_final=False) as found:
            top = os.stat(found.name, dir_fd=found.fd, follow_symlinks=False)
            if stat.S_ISREG(top.st_mode):
                return Tree((rel,), ()) if top.st_size <= KEPT_MAX else None
            if not stat.S_ISDIR(top.st_mode):
                return None
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(found.name, flags, dir_fd=found.fd)
        try:
            for folder, dirs, names, dir_fd in os.fwalk(
                ".", dir_fd=fd, topdown=False, follow_symlinks=False
            ):
                here = rel if folder == "." else f"{rel}/{folder[2:]}"
                for name in names:
                    st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                    size += st.st_size
                    if not stat.S_ISREG(st.st_mode) or st.st_size > KEPT_MAX:
                        return None  # a link, a FIFO, a socket; a file too large to keep
                    if len(files) >= MAX_FILES or size > MAX_BYTES:
                        return None
                    files.append(f"{here}/{name}")
                for name in dirs:  # a link to a folder is listed here, not followed
                    if not stat.S_ISDIR(
                        os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
                    ):
                        return None
                folders.append(here)
                if len(folders) > MAX_FOLDERS:
                    return None
        finally:
            os.close(fd)
    except (OSError, PathError, ValueError):
        return None
    return Tree(tuple(sorted(files)), tuple(folders))  # the review lists them in order


class RemoveTool:
    spec = ToolSpec(
        name=REMOVE_TOOL,
        description="Remove files and folders (with everything in them)",
        parameters={
            "type": "object",
            "properties": {
                "paths": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "files or folders, relative to the workspace",
                },
            },
            "required": ["paths"],
        },
        sequential=True,
        mutates=True,
        kind="edit",
        timeout=30.0,
        offered=False,
    )
    bytes_args: frozenset[str] = frozenset()

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        root = str(ctx.root)
        changes: list[FileChange] = []
        folders: list[str] = []
        for path in args["paths"]:
            try:
                wp = resolve(root, path)
            except (OSError, PathError) as exc:
                raise ToolError(str(exc), kind="arg") from exc
            if wp.rel in ("", "."):
                raise ToolError("the workspace itself is not removed", kind="arg")
            found = tree(root, wp.rel)
            if found is None:
                raise ToolError(
                    f"{wp.rel} is missing, a link, holds something other than files and "
                    f"folders, or more than {MAX_FILES} files or {MAX_BYTES >> 20} MiB; "
                    "nothing removed. Remove it with a command (rm -r)"
                )
            folders += [f for f in found.folders if f not in folders]
            for rel in found.files:
                if any(c.path == rel for c in changes):
                    continue
                changes.append(_deletion(root, rel))
        files = tuple(file_preview(c.path, c.old, None) for c in changes)
        counted = tuple(
            c._replace(added=f.added, removed=f.removed, hunks=len(f.hunks))
            for c, f in zip(changes, files, strict=True)
        )
        shown = ", ".join(args["paths"][:5]) + (" …" if len(args["paths"]) > 5 else "")
        return Prepared(
            args={**args, "folders": folders},
            preview=Preview(
                kind="diff", files=files, summary=f"remove {shown} ({len(changes)} files)"
            ),
            needs_approval=bool(changes),  # empty folders alone: nothing to keep or ask
            plan=PatchPlan(counted, root=root),
        )

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        plan: PatchPlan = prepared.plan
        if plan.changes:
            try:
                await write_plan(plan, ctx)
            except PatchError as exc:
                return Outcome(kind="error", output=f"remove failed: {exc}")
        kept = _prune(str(ctx.root), prepared.args["folders"])
        lines = plan.summary()
        if len(lines) > LISTED:  # the model reads the result: a count past the first ones
            lines = [*lines[:LISTED], f"… and {len(lines) - LISTED} more files"]
        if kept:
            lines.append(f"kept (not empty): {', '.join(kept[:10])}")
        gone = len(prepared.args["folders"]) - len(kept)
        files = len(plan.changes)
        lines.append(
            f"removed {files} file{'s' * (files != 1)} and {gone} folder{'s' * (gone != 1)}"
        )
        return Outcome(kind="ok", output="\n".join(lines), meta=change_meta(plan))


def _deletion(root: str, rel: str) -> FileChange:
    try:
        data, mode = beneath.read_file(root, rel, KEPT_MAX)
        real = resolve(root, rel).real
    except (OSError, ValueError, PathError) as exc:
        raise ToolError(f"{rel}: {exc}; nothing removed") from exc
    if data is None:
        raise ToolError(f"{rel} is gone; nothing removed")
    from frontier.tools.patch_via_shell import holds_secret

    if holds_secret(data.decode("utf-8", "surrogateescape")):  # the store keeps no copy
        raise ToolError(
            f"{rel} holds a secret (a key, or something shaped like a credential): its "
            "content would not be kept for undo; nothing removed. Remove it with a command "
            "(rm), which the person is asked for"
        )
    return FileChange(
        path=rel, real=real, old=data, new=None, old_mode=mode, new_mode=None, action="delete"
    )


def _prune(root: str, folders: list[str]) -> list[str]:
    """Remove each folder (deepest first) that is empty now; the ones kept: still holding
    something (a file whose deletion the person declined, one made meanwhile), or not
    removable (permissions) — the files are gone already, and the result says which."""
    kept: list[str] = []
    for folder in folders:
        try:
            with beneath.parent(root, folder, follow_final=False) as found:
                os.rmdir(found.name, dir_fd=found.fd)
        except FileNotFoundError:
            continue
        except (OSError, PathError):  # not empty; or one the files' removal cannot take
            kept.append(folder)
    return kept
