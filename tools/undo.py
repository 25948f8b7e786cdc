"""The ``undo`` tool: put back the files an earlier mutation changed, as a mutation itself.

Internal: never offered to the model (it is not in ``default_registry``). The agent
layer (``app/agent/undo.py``) chooses the call to undo and builds this tool's
arguments from its call row — per file the hash it must have *now* (what the undone
call left, ``expect``) and the hash to put back (what that call found, ``restore``;
absent: the call created the file, so the undo deletes it) — then runs the call
through a :class:`~frontier.tools.boundary.ToolBoundary` like any other. So an undo is

- **reviewed**: the approver sees the diff from the files as they are to the files as
  they were (hunk by hunk, as for a patch);
- **content-bound**: ``prepare`` refuses unless every file still has the hash the
  undone call left, naming the first that does not (and nothing is written); the
  writer re-checks under its lock that nothing changed since the review;
- **recorded**: its call row carries pre/post hashes and its own pre-images, so an
  undo can itself be undone and a crash mid-undo is reconciled like any mutation;
- **atomic**: written by the same journaled multi-file writer as ``apply_patch``
  (``atomic.commit_files``), so a SIGKILL between its commit and its renames is
  finished or undone by recovery, never a torn file.

The bytes to restore come from the session store's pre-images, passed in as a
:class:`PreimageSource` (the tools never import the store).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol

from frontier.app.events import ToolCall
from frontier.app.listing import listing
from frontier.tools import beneath
from frontier.tools.base import CancelToken, Outcome, Prepared, ToolError
from frontier.tools.contract import Preview, ToolContext, ToolSpec
from frontier.tools.digest import sha256
from frontier.tools.edit import change_meta, write_plan
from frontier.tools.patch_engine import (
    FileChange,
    PatchError,
    PatchPlan,
    file_change_preview,
    os_message,
)
from frontier.tools.paths import PathError, resolve

UNDO_TOOL = "undo"


class PreimageSource(Protocol):
    """Where the bytes behind a pre-image hash are kept (the session store's
    ``preimages``)."""

    def get(self, digest: str) -> bytes | None:
        """The kept bytes whose sha256 is ``digest``; ``None`` when they were not kept."""
        ...


UNDO_SPEC = ToolSpec(
    name=UNDO_TOOL,
    description=(
        "Put back the files an earlier file mutation (write, replace, multi, apply_patch, "
        "a shell command's changes to the files its line names, or an undo) changed, "
        "exactly as they were before it — only if each file still has "
        "the content that call left; otherwise nothing is written and the changed file is "
        "named. A file the call created is deleted; one it deleted is recreated. Run by the "
        "user (`/undo`, the palette, `frontier undo SESSION [CALL]`), never by the model: "
        "the model is told about it with its next message."
    ),
    parameters={
        "type": "object",
        "properties": {
            "call": {"type": "string", "description": "the id of the call undone"},
            "name": {"type": "string", "description": "that call's tool"},
            "ref": {"type": "integer", "description": "that call's row in the session store"},
            "undid": {
                "type": "string",
                "description": "when that call is an undo: the call it undid (`c4 write`)",
            },
            "rewind": {
                "type": "object",
                "description": "a rewind's undo (`/rewind`): every file change after one of "
                "the person's messages at once",
                "properties": {
                    "to": {"type": "integer", "description": "the message's number"},
                    "message": {"type": "string", "description": "its first line"},
                    "calls": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "the calls undone (`c4 write`)",
                    },
                    "refs": {
                        "type": "array",
                        "items": {"type": "integer"},
                        "description": "their rows in the session store",
                    },
                    "conversation": {
                        "type": "boolean",
                        "description": "the conversation was rewound too",
                    },
                },
            },
            "files": {
                "type": "array",
                "description": "every file the call changed",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": "workspace-relative path"},
                        "expect": {
                            "type": "string",
                            "description": "sha256 the call left (absent: it deleted the file)",
                        },
                        "restore": {
                            "type": "string",
                            "description": "sha256 to put back (absent: the call created the "
                            "file, which is deleted)",
                        },
                        "mode": {
                            "type": "integer",
                            "description": "permission bits before the call, when recorded",
                        },
                        "by": {
                            "type": "string",
                            "description": "the call that left `expect` (a rewind's file)",
                        },
                    },
                    "required": ["path"],
                },
            },
            "folders": {
                "type": "array",
                "items": {"type": "string"},
                "description": "folders the call made (workspace-relative), removed once the "
                "files are put back if they are empty",
            },
        },
        "required": ["call", "files"],
    },
    sequential=True,
    mutates=True,
    kind="edit",
    timeout=60.0,
    internal=True,
)


def short_hash(digest: str | None) -> str:
    """``sha256:`` and 12 hex digits, or ``absent``: how a refusal names a version."""
    if digest is None:
        return "absent"
    if digest.startswith("<"):
        return digest  # a marker: "<not a regular file>", "<unreadable>"
    return f"sha256:{digest[:12]}"


def changed_since(path: str, call: str, now: str | None, expect: str | None) -> str:
    """The refusal for a file that no longer has what ``call`` left."""
    if expect is None:
        return (
            f"refused: {path} exists again since {call} deleted it (now {short_hash(now)}); "
            "nothing written"
        )
    return (
        f"refused: {path} changed since {call} wrote it (now {short_hash(now)}, {call} left "
        f"{short_hash(expect)}); nothing written"
    )


class UndoTool:
    """``undo``: its arguments name the files and hashes; ``source`` has the old bytes."""

    spec = UNDO_SPEC
    bytes_args: frozenset[str] = frozenset()

    def __init__(self, source: PreimageSource) -> None:
        self.source = source

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        call = str(args["call"])
        if not args["files"]:
            raise ToolError(f"undo {call}: it changed no file; nothing to undo")
        changes: list[FileChange] = []
        for entry in args["files"]:
            change = self._change(ctx, call, entry)
            if change is not None:
                changes.append(change)
        if not changes:
            raise ToolError(f"undo {call}: every file already has its earlier content")
        files = tuple(file_change_preview(c) for c in changes)
        counted = tuple(
            c._replace(added=f.added, removed=f.removed, hunks=len(f.hunks))
            for c, f in zip(changes, files, strict=True)
        )
        plan = PatchPlan(counted, root=str(ctx.root))
        summary = f"undo {_what(args)}: " + "; ".join(_verbs(plan.changes))
        folders = args.get("folders")
        if isinstance(folders, list) and folders:
            named = listing([str(f) for f in folders], 5)
            summary += f"; then the folders it made, if left empty: {named}"
        return Prepared(
            args=args,
            preview=Preview(kind="diff", files=files, summary=summary),
            needs_approval=True,
            plan=plan,
        )

    def _change(self, ctx: ToolContext, call: str, entry: Mapping[str, Any]) -> FileChange | None:
        path = str(entry["path"])
        try:
            wp = resolve(ctx.root, path)
            now, mode = beneath.read_file(ctx.root, wp.rel)
        except PathError as exc:
            raise ToolError(f"undo {call}: {exc}; nothing written") from exc
        except IsADirectoryError:
            raise ToolError(
                f"refused: {path} is a folder now, not the file {call} wrote; nothing written"
            ) from None
        except OSError as exc:
            raise ToolError(f"undo {call}: {os_message(path, exc)}; nothing written") from exc
        expect = entry.get("expect")
        if sha256(now) != expect:
            by = entry.get("by")
            raise ToolError(
                changed_since(wp.rel, by if isinstance(by, str) else call, sha256(now), expect)
            )
        restore = entry.get("restore")
        new: bytes | None = None
        if restore is not None:
            new = self.source.get(restore)
            if new is None:
                raise ToolError(
                    f"undo unavailable: {call}'s earlier content of {wp.rel} "
                    f"({short_hash(restore)}) was not kept; nothing written"
                )
            if sha256(new) != restore:
                raise ToolError(
                    f"undo unavailable: the kept content of {wp.rel} does not match its hash "
                    f"{short_hash(restore)} (the session store is damaged); nothing written"
                )
        old_mode = entry.get("mode")
        new_mode = old_mode if old_mode is not None else (mode if now is not None else None)
        if new == now and new_mode == mode:
            return None  # nothing to put back here (a mode change already reverted…)
        action: Literal["create", "modify", "delete"]
        if new is None:
            action = "delete"
        elif now is None:
            action = "create"
        else:
            action = "modify"
        return FileChange(
            path=wp.rel,
            real=wp.real,
            old=now,
            new=new,
            old_mode=mode,
            new_mode=new_mode if new is not None else None,
            action=action,
        )

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        plan: PatchPlan = prepared.plan
        args = prepared.args
        undone = str(args["call"])
        try:
            made = await write_plan(plan, ctx)
        except PatchError as exc:
            return Outcome(kind="error", output=f"undo of {undone} failed: {exc}")
        removed = await asyncio.to_thread(_remove_emptied, ctx.root, args.get("folders"))
        verbs = _verbs(plan.changes)
        if removed:  # up to FOLDERS_MAX of them: the rest counted
            plural = "s" if len(removed) > 1 else ""
            verbs.append(f"removed the emptied folder{plural} {listing(removed, SHOWN_FOLDERS)}")
        name = args.get("name") or "mutation"
        lines = [f"undid {_what(args)}: " + "; ".join(verbs), *plan.summary()]
        meta = {
            **change_meta(plan, made),
            "undo": {
                "call": undone,
                "name": name,
                "ref": args.get("ref"),
                "undid": args.get("undid"),
                **({"rewind": args["rewind"]} if isinstance(args.get("rewind"), dict) else {}),
                **_grouped(plan.changes),
                **({"folders": removed} if removed else {}),
            },
        }
        return Outcome(kind="ok", output="\n".join(lines), meta=meta)


FOLDERS_MAX = 10_000
"""Folders an undo removes at most (the names come from the store: untrusted)."""
SHOWN_FOLDERS = 20
"""Removed folders its result names; the rest are counted."""


def _remove_emptied(root: str | os.PathLike[str], folders: object) -> list[str]:
    """Remove each of ``folders`` (the undone call's made folders, from its recorded
    arguments: untrusted) that the undo left empty, deepest first, beneath the root; the
    ones removed, outermost first. A folder holding anything — another call's file, the
    person's — stays."""
    if not isinstance(folders, list):
        return []
    named = {f for f in folders[:FOLDERS_MAX] if isinstance(f, str) and f}
    removed = [
        f
        for f in sorted(named, key=lambda f: (-f.count("/"), f))
        if beneath.remove_empty_folder(root, f)
    ]
    return removed[::-1]


def _what(args: Mapping[str, Any]) -> str:
    """``c4 write``, or for an undo of an undo ``u1 (the undo of c4 write)``."""
    name = args.get("name") or "mutation"
    rewind = args.get("rewind")
    if isinstance(rewind, dict):
        calls = [c for c in rewind.get("calls") or () if isinstance(c, str)]
        shown = listing(calls, 6)
        return f"the changes since message {rewind.get('to')} ({shown or 'no call'})"
    if name == UNDO_TOOL and args.get("undid"):
        return f"{args['call']} (the undo of {args['undid']})"
    return f"{args['call']} {name}"


def _grouped(changes: Sequence[FileChange]) -> dict[str, list[str]]:
    """``restored`` / ``deleted`` / ``recreated`` paths (what the model is told)."""
    out: dict[str, list[str]] = {"restored": [], "deleted": [], "recreated": []}
    for c in changes:
        key = {"modify": "restored", "delete": "deleted", "create": "recreated"}[c.action]
        out[key].append(c.path)
    return out


def _verbs(changes: Sequence[FileChange]) -> list[str]:
    """``restored a.py, b.py`` / ``deleted new.py`` / ``recreated gone.py``."""
    return [f"{verb} {', '.join(paths)}" for verb, paths in _grouped(changes).items() if paths]


def internal_tools_markdown() -> list[str]:
    """The ``docs/tools.md`` section for the tools run for the user, never by the model."""
    return [
        "",
        "## Internal tools",
        "",
        "Run through the same boundary (review, call row with pre/post hashes, atomic write, "
        "committed result) but never offered to the model.",
        "",
        f"### `{UNDO_SPEC.name}`",
        "",
        UNDO_SPEC.description,
        "",
        "The bytes put back are the pre-images the session store kept when the undone call "
        "was recorded (`app/session/preimages.py`: deduplicated by hash; a file over 4 MiB, "
        "a call's pre-images past 32 MiB, or a file holding a secret are not kept, and the "
        'undo of such a call says so). See docs/decisions-tools.md, "Undo".',
    ]
