"""The file tools: read, write, append (not offered), replace, multi and apply_patch.

Every mutation is computed in full at prepare time as ``FileChange`` values
(the exact bytes to write plus the bytes they replace); the approver sees
their diff, and execute writes exactly those bytes after re-checking that the
file still has the reviewed content (``patch_engine.write_changes``: hash
check, atomic write, read-back).
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any, AnyStr, NamedTuple

from frontier.app.events import ToolCall
from frontier.app.image import Image
from frontier.app.record import replace as replace_record
from frontier.tools import arg_aliases, beneath
from frontier.tools.base import CancelToken, Outcome, Prepared, ToolError
from frontier.tools.contract import Preview, ToolContext, ToolSpec
from frontier.tools.diffing import file_preview
from frontier.tools.digest import sha256
from frontier.tools.escaped_text import escaped_twice
from frontier.tools.image_kind import image_kind
from frontier.tools.omission import omission
from frontier.tools.patch_docs import PatchDialect, apply_patch_spec
from frontier.tools.patch_engine import (
    EDIT_MAX_FILE,
    FileChange,
    PatchError,
    PatchPlan,
    os_message,
    plan_patch,
    too_large_to_edit,
    write_changes,
)
from frontier.tools.paths import PathError, WorkspacePath, new_name_problem, resolve
from frontier.tools.replace_match import (
    TooLongToAlign,
    first_difference,
    in_file_punctuation,
    tabs_for_spaces,
    typographic,
    whole_lines_loosely,
    with_tabs,
)
from frontier.tools.utf16 import cannot_edit, is_utf16, utf16_text

READ_MAX_FILE = 20 * 1024 * 1024
READ_BYTE_CAP = 24 * 1024
READ_LINE_CHARS = 2000


def _resolve(ctx: ToolContext, path: str, *, folder: bool = False) -> WorkspacePath:
    """``path`` beneath the root; a folder is refused unless ``folder`` (``read`` lists one)."""
    try:
        wp = resolve(ctx.root, path)
    except PathError as exc:
        raise ToolError(str(exc)) from exc
    except OSError as exc:
        raise ToolError(os_message(path, exc)) from exc
    if not folder and wp.real.is_dir():
        raise ToolError(f"{wp.rel} is a directory; give a file path (use glob to list files)")
    return wp


class _Folder(Exception):
    """``path`` is a folder, which the caller lists (``read``)."""

    def __init__(self, rel: str) -> None:
        super().__init__(rel)
        self.rel = rel


def _read(
    ctx: ToolContext, path: str, cap: int = EDIT_MAX_FILE, *, folder: bool = False
) -> tuple[WorkspacePath, bytes | None, int | None]:
    """The file's bytes and mode, read beneath the root now (``None`` if absent); a FIFO or
    other non-regular file is refused, never opened for reading, and so is a file over
    ``cap`` bytes (decided by its size, before it is read). ``folder``: a folder raises
    ``_Folder`` (else it is refused)."""
    wp = _resolve(ctx, path, folder=folder)
    try:
        if folder and wp.real.is_dir():
            raise _Folder(wp.rel)
        data, mode = beneath.read_file(ctx.root, wp.rel, cap)
    except IsADirectoryError:
        if folder:
            raise _Folder(wp.rel) from None
        raise ToolError(f"{wp.rel} is a directory; give a file path (use glob)") from None
    except beneath.TooLargeError as exc:
        raise ToolError(_too_large(wp.rel, exc.size, cap)) from None
    except PathError as exc:
        raise ToolError(str(exc)) from exc
    except OSError as exc:
        raise ToolError(os_message(wp.rel, exc)) from exc
    return wp, data, mode


def _too_large(rel: str, size: int, cap: int) -> str:
    """Why a file is not read: ``read``'s limit, or the editing tools'."""
    if cap == READ_MAX_FILE:
        return (
            f"{rel} is {size} bytes, over the {cap} byte read limit; "
            "use grep to find the part you need"
        )
    return too_large_to_edit(rel, size, cap)


def _existing(ctx: ToolContext, path: str) -> tuple[WorkspacePath, bytes, int | None]:
    """A file to change in place: there, and text the tools can write back as it was."""
    wp, data, mode = _read(ctx, path)
    if data is None:
        raise ToolError(_missing(wp))
    if is_utf16(data):
        raise ToolError(cannot_edit(wp.rel))
    return wp, data, mode


def _missing(wp: WorkspacePath) -> str:
    """What a tool says of a path that names no file; one with a line break or a space at
    an end shown quoted, as the model cannot see what it sent otherwise (``a.py\\n``)."""
    if wp.rel.isprintable() and all(p == p.strip() for p in wp.rel.split("/")):
        return f"{wp.rel}: no such file; check the path with glob, or use write"
    return (
        f"{wp.rel!r}: no such file (the path holds a line break, a control character or a "
        "space at an end); check the path with glob"
    )


def _change(wp: WorkspacePath, old: bytes | None, new: bytes, mode: int | None) -> FileChange:
    return FileChange(
        path=wp.rel,
        real=wp.real,
        old=old,
        new=new,
        old_mode=mode if old is not None else None,
        new_mode=mode if old is not None else None,
        action="create" if old is None else "modify",
    )


def _mutation(
    ctx: ToolContext,
    args: Mapping[str, Any],
    changes: list[FileChange],
    summary: str,
    *,
    needs_approval: bool = True,
) -> Prepared:
    _refuse_omission(changes)
    files = tuple(file_preview(c.path, c.old, c.new) for c in changes)
    counted = tuple(
        c._replace(added=f.added, removed=f.removed, hunks=len(f.hunks))
        for c, f in zip(changes, files, strict=True)
    )
    return Prepared(
        args=args,
        preview=Preview(kind="diff", files=files, summary=summary),
        needs_approval=needs_approval,
        plan=PatchPlan(counted, root=str(ctx.root)),
    )


def _refuse_omission(changes: Iterable[FileChange]) -> None:
    """A ``ToolError`` when the new text holds ``// ... existing code ...`` where the file
    had code (``tools/omission.py``): refused before the review, nothing written."""
    why = omission(changes)
    if why is not None:
        raise ToolError(why, kind="arg")


def change_meta(plan: PatchPlan, made: Sequence[str] = ()) -> dict[str, Any]:
    """What a finished mutation carries for the panes: the files and ``M path (+3 −1)`` rows;
    and the folders its write made (``made``: an undo removes them again once empty)."""
    meta: dict[str, Any] = {"files": [c.path for c in plan.changes], "changes": plan.meta()}
    if made:
        meta["made"] = list(made)
    return meta


def folders_made(root: str | os.PathLike[str], changes: Sequence[FileChange]) -> list[str]:
    """The folders a write of ``changes`` makes (a new file's missing parents), outermost
    first: read before the write, as ``meta["made"]`` records them."""
    out: dict[str, None] = {}
    for c in changes:
        if c.new is not None and c.old is None:
            try:
                out.update(dict.fromkeys(beneath.missing_folders(root, c.path)))
            except (OSError, ValueError):
                continue  # the write itself says what is wrong with the path
    return list(out)


async def write_plan(plan: PatchPlan, ctx: ToolContext) -> list[str]:
    """Write the plan beneath the workspace, off the event loop (fsyncs take milliseconds,
    and a slow disk must not freeze the stream and the TUI).

    The writer's thread runs in a copy of this task's context, so it sees the call's
    ``atomic.CALL_STOP`` (set by the boundary): at the deadline or on Esc it gives up
    before its point of no return, and the boundary waits for this await to end rather
    than cancelling it — a cancelled await would leave the thread writing after the call's
    result (issue 21, item 4). Returns the folders it made (:func:`folders_made`)."""

    def write() -> list[str]:
        made = folders_made(ctx.root, plan.changes)
        write_changes(ctx.root, plan.changes, ctx.journal)
        return made

    return await asyncio.to_thread(write)


async def _write(
    prepared: Prepared, ctx: ToolContext, done: str, *, whole: bool = False
) -> Outcome:
    plan: PatchPlan = prepared.plan
    try:
        made = await write_plan(plan, ctx)
    except PatchError as exc:
        return Outcome(kind="error", output=str(exc))
    _wrote(prepared, ctx, whole=whole)
    return Outcome(kind="ok", output=done, meta=change_meta(plan, made))


def _wrote(prepared: Prepared, ctx: ToolContext, *, whole: bool = False) -> None:
    """What the model knows of the files it changed: a file it wrote ``whole``, all of
    it; one it edited in part, what it knew before. Each file's new hash is the review's
    (hashed when the call was prepared), hashed again only for a file the preview lacks."""
    views = ctx.views
    if views is None:
        return
    hashes = {f.path: f.new_hash for f in prepared.preview.files}
    for change in prepared.plan.changes:
        digest = hashes[change.path] if change.path in hashes else sha256(change.new)
        if whole or change.new is None:
            views.saw(change.path, digest)
        else:
            lines = change.new.count(b"\n") + (not change.new.endswith(b"\n"))
            views.edited(change.path, digest, lines)


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


# ----------------------------------------------------------------------------- read


class ReadTool:
    spec = ToolSpec(
        name="read",
        description=(
            "Read a UTF-8 text file from the workspace as numbered lines. Long files are "
            "windowed: use offset/limit to page. A folder is listed; an image is shown."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "file path relative to the workspace"},
                "offset": {
                    "type": "integer",
                    "description": "first line to show (1-based)",
                    "default": 1,
                    "minimum": 0,
                },
                "limit": {
                    "type": "integer",
                    "description": "maximum number of lines to show",
                    "default": 500,
                    "minimum": 1,
                    "maximum": 5000,
                },
            },
            "required": ["path"],
        },
        aliases=arg_aliases.READ,
        timeout=30.0,
    )
    bytes_args: frozenset[str] = frozenset()

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        args = _at_line(ctx, args)
        _resolve(ctx, args["path"], folder=True)
        if args["offset"] == 0:  # Gemini CLI's read_file counts from 0: the first line
            args = {**args, "offset": 1}
        return Prepared(args=args)

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        args = prepared.args
        try:
            # Refused by its size: a 1.6 GB log was read whole (0.8 s, 1.6 GB of memory) first.
            wp, data, _ = _read(ctx, args["path"], READ_MAX_FILE, folder=True)
        except _Folder as folder:  # a folder: listed (the walk resolves it beneath the root)
            from frontier.tools.search import list_folder

            return await list_folder(ctx, folder.rel, cancel)
        if data is None:
            raise ToolError(_missing(wp) + await _as_glob(ctx, wp.rel, cancel))
        wide = utf16_text(data)
        if wide is not None:  # PowerShell's `>`, `reg export`: text, by its mark
            shown = render_window(wp.rel, wide, args["offset"], args["limit"])
            _saw(ctx, wp.rel, data, shown)
            text = f"{shown.text}\n[{wp.rel} is UTF-16 text, shown decoded]"
            return Outcome(kind="ok", output=text)
        picture = image_kind(data)
        if picture is not None:  # shown to the model after the results (the loop decides)
            _saw(ctx, wp.rel, data)  # scaling one down takes up to a second: off the loop
            return await asyncio.to_thread(_image, wp.rel, picture, data)
        if b"\x00" in data[:8192]:
            _saw(ctx, wp.rel, data)  # all it can be shown: a write of it replaces it knowingly
            raise ToolError(f"{wp.rel} looks binary (contains NUL bytes); read shows text only")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            _saw(ctx, wp.rel, data)
            raise ToolError(
                f"{wp.rel} is not UTF-8 text (invalid byte at offset {exc.start}); "
                "read shows UTF-8 text only"
            ) from exc
        shown = render_window(wp.rel, text, args["offset"], args["limit"])
        _saw(ctx, wp.rel, data, shown)
        return Outcome(kind="ok", output=shown.text)


_LINE_SUFFIX = re.compile(r"(.+?):(\d{1,9})(?:[-:](\d{1,9}))?")
"""``src/a.py:42``, ``src/a.py:42-60``, ``src/a.py:42:7``: a path as grep, a compiler or a
traceback names a place in it."""


def _at_line(ctx: ToolContext, args: Mapping[str, Any]) -> Mapping[str, Any]:
    """``read src/a.py:42`` (the model copied a place from grep's output, a compiler's or a
    traceback): no file has that name, so it was "no such file" and a round. When the
    path without its ``:line`` names a file, that file is read from the line (to the end
    of a ``42-60`` range), unless the call gave its own offset."""
    path = args["path"]
    place = _LINE_SUFFIX.fullmatch(path) if isinstance(path, str) else None
    if place is None or args["offset"] not in (0, 1):
        return args
    try:
        if resolve(ctx.root, path).real.exists() or not resolve(ctx.root, place[1]).real.is_file():
            return args
    except (PathError, OSError):
        return args
    first = max(int(place[2]), 1)
    out = {**args, "path": place[1], "offset": first}
    last = place[3]
    if last is not None and path[len(place[1]) + len(place[2]) + 1] == "-" and int(last) >= first:
        out["limit"] = min(int(last) - first + 1, 5000)
    return out


async def _as_glob(ctx: ToolContext, rel: str, cancel: CancelToken) -> str:
    """For a missing path that reads as a glob (``src/*.py``): the files it matches, so the
    model reads them by name without a ``glob`` round first."""
    if not any(c in rel for c in "*?["):
        return ""
    from frontier.tools.search import matching

    found = await matching(ctx, rel, cancel)
    if not found:
        return f" ({rel} reads as a glob, and matches no file)"
    shown = ", ".join(found[:20]) + (", …" if len(found) > 20 else "")
    return f" ({rel} reads as a glob, matching {len(found)}: {shown}; read each by its path)"


def _image(rel: str, media_type: str, data: bytes) -> Outcome:
    """``read`` of an image: the image itself, for the model to see (the loop shows it
    after the round's results, or says why it cannot: docs/decisions-tools.md)."""
    said = f"{rel} is an image ({media_type}, {len(data):,} bytes)"
    from frontier.app.image_fit import fitted  # scaled down when over the APIs' bounds

    fit = fitted(data, media_type)
    if isinstance(fit, str):
        raise ToolError(f"{said}; it cannot be shown: {fit}")
    if fit.done:
        said += f"; {fit.done} to fit what the models' APIs take"
    import base64

    image = Image(fit.media_type, base64.b64encode(fit.data).decode("ascii"), rel)
    return Outcome(kind="ok", output=said, images=(image,))


def _saw(ctx: ToolContext, path: str, data: bytes | None, shown: Shown | None = None) -> None:
    """The model has seen ``data`` at ``path`` (wrote it, or read it: ``shown``, the lines
    it read): ``ctx.views``."""
    if ctx.views is not None:
        window = None if shown is None else (shown.first, shown.last, shown.total)
        ctx.views.saw(path, sha256(data), window)


class Shown(NamedTuple):
    """A window of a file as ``read`` shows it, and which of its lines that is."""

    text: str
    first: int
    last: int
    total: int


def render_window(path: str, text: str, offset: int, limit: int) -> Shown:
    """Numbered lines ``offset..`` within ``limit`` lines and ``READ_BYTE_CAP`` bytes."""
    lines = text.splitlines()
    total = len(lines)
    if total == 0:
        return Shown(f"{path}: (empty file)", 1, 0, 0)
    if offset > total:
        raise ToolError(f"offset {offset} is past the end of {path}: it has {total} lines")
    out: list[str] = []
    size = 0
    last = offset - 1
    for n in range(offset, min(total, offset + limit - 1) + 1):
        line = lines[n - 1]
        if len(line) > READ_LINE_CHARS:
            line = line[:READ_LINE_CHARS] + f" … [line cut: {len(line)} chars]"
        row = f"{n:>6}\t{line}"
        size += len(row.encode()) + 1
        if size > READ_BYTE_CAP and out:
            break
        out.append(row)
        last = n
    if offset > 1 or last < total:
        more = f"; call read with offset={last + 1} to continue" if last < total else ""
        out.append(f"[showing lines {offset}–{last} of {total}{more}]")
    return Shown("\n".join(out), offset, last, total)


# ----------------------------------------------------------------------------- write


class WriteTool:
    spec = ToolSpec(
        name="write",
        description=(
            "Create a file or replace its whole content (parent folders are created); "
            "read an existing file first"
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "file path relative to the workspace"},
                "content": {
                    "type": "string",
                    "description": "the complete new file content, every line written out",
                },
            },
            "required": ["path", "content"],
        },
        sequential=True,
        mutates=True,
        kind="edit",
        aliases=arg_aliases.WRITE,
        timeout=30.0,
    )
    bytes_args = frozenset({"content"})

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        wp, old, mode = _read(ctx, args["path"])
        if old is None and (problem := new_name_problem(wp.rel)) is not None:
            raise ToolError(problem, kind="arg")
        content = args["content"]
        if isinstance(content, str) and (why := escaped_twice(wp.rel, content, "content")):
            raise ToolError(why, kind="arg")
        new = _as_the_file_was(old, content if isinstance(content, bytes) else content.encode())
        verb = "create" if old is None else "overwrite"
        prepared = _mutation(
            ctx, args, [_change(wp, old, new, mode)], f"{verb} {wp.rel} ({len(new)} bytes)"
        )
        _refuse_blind(ctx, wp.rel, old, prepared.preview.files[0].old_hash)
        return prepared

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        c = prepared.plan.changes[0]
        if c.old == c.new:
            return Outcome(kind="ok", output=f"{c.path} already has this content; nothing written")
        verb = "created" if c.old is None else "wrote"
        done = f"{verb} {c.path} ({len(c.new or b'')} bytes)"
        return await _write(prepared, ctx, done, whole=True)


class AppendTool:
    """Content added at the end of a file, byte for byte as ``>>`` adds it (the file made
    if missing). Not offered (``ToolSpec.offered``): ``Registry.meant`` makes it of Kimi
    CLI's ``WriteFile {mode: append}`` (its prompt has a long file written in parts, the
    first overwritten and the rest appended, often in one reply) and of a shell's ``echo
    … >> f`` when neither can be the patch adding the lines at confirmation: an earlier
    call of the reply still to change the files, or content without a last line end. Its
    change is read at its start, after the calls before it ran, so it lands after them;
    reviewed, written atomically and undone as ``write``'s."""

    spec = replace_record(
        WriteTool.spec,  # its parameters, but for what content says, and its class
        name="append",
        description="Add content at the end of a file (made if it does not exist)",
        parameters={
            **WriteTool.spec.parameters,
            "properties": {
                **WriteTool.spec.parameters["properties"],
                "content": {"type": "string", "description": "the bytes to add at its end"},
            },
        },
        offered=False,
    )
    bytes_args = frozenset({"content"})

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        wp, old, mode = _read(ctx, args["path"])
        if old is None and (problem := new_name_problem(wp.rel)) is not None:
            raise ToolError(problem, kind="arg")
        if old is not None and is_utf16(old):
            raise ToolError(cannot_edit(wp.rel))
        content = args["content"]
        added = content if isinstance(content, bytes) else content.encode()
        new = (old or b"") + added
        if len(new) > EDIT_MAX_FILE:
            raise ToolError(too_large_to_edit(wp.rel, len(new), EDIT_MAX_FILE))
        verb = "create" if old is None else "append to"
        return _mutation(
            ctx, args, [_change(wp, old, new, mode)], f"{verb} {wp.rel} ({len(added)} bytes)"
        )

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        c = prepared.plan.changes[0]
        if c.old == c.new:
            return Outcome(kind="ok", output=f"nothing to add to {c.path}; nothing written")
        added = len(c.new or b"") - len(c.old or b"")
        done = f"{'created' if c.old is None else 'appended to'} {c.path} ({added} bytes)"
        return await _write(prepared, ctx, done, whole=c.old is None)


def _refuse_blind(ctx: ToolContext, path: str, old: bytes | None, was: str | None) -> None:
    """A ``ToolError`` when writing ``path`` whole would replace a file the model never
    read, undo a change the model has not seen, or drop lines of it the model has not
    read (``tools/file_views.py``); ``was``: the file's hash, computed for the review
    already."""
    views = ctx.views
    if old is None or views is None:
        return
    if old and len(old) <= READ_MAX_FILE and not views.knows(path):  # larger: read refuses
        lines = old.count(b"\n") + (not old.endswith(b"\n"))
        raise ToolError(
            f"{path} exists ({lines:,} line{'s' if lines != 1 else ''}, {len(old):,} bytes) "
            "and you have not read it in this session: writing it whole would replace what "
            "you have not seen; nothing written. Read it first, then write it, or change "
            "only what you mean with replace (for a new file, choose a name not taken)"
        )
    if views.changed(path, was):
        raise ToolError(
            f"{path} changed since you last read it (the person edited it, or a command "
            "did): writing it whole would undo that change; nothing written. Read it "
            "again, then write it, or change only what you mean with replace"
        )
    unread = views.unread(path, was)
    if unread is not None:
        first, last, total = unread
        raise ToolError(
            f"you have not read lines {first}–{last} of {path} ({total} lines): writing it "
            f"whole would drop what you have not seen; nothing written. Read them (read "
            f"with offset={first}), or change only what you mean with replace"
        )


_UTF8_MARK = b"\xef\xbb\xbf"


def _as_the_file_was(old: bytes | None, new: bytes) -> bytes:
    """``new`` in the form of the file it replaces: CRLF line ends and UTF-8's byte order
    mark kept where the model's content has neither (models write ``\\n`` and no mark).
    Rewriting a Windows file whole changed every line's ending, a diff of the whole file in
    review and in git, and dropped the mark; ``replace`` already wrote in the file's line
    ends (``_crlf_adapt``)."""
    if old is not None and is_utf16(old) and (wide := utf16_text(old)) is not None:
        return _as_utf16(old[:2], wide, new)
    if old is None or b"\x00" in old[:8192]:  # nothing, or a binary file: no form to keep
        return new
    if old.startswith(_UTF8_MARK) and not new.startswith(_UTF8_MARK):
        new = _UTF8_MARK + new
    return _in_its_line_ends(old, new, b"\r\n", b"\n")


def _in_its_line_ends(old: AnyStr, new: AnyStr, crlf: AnyStr, lf: AnyStr) -> AnyStr:
    """``new`` with CRLF line ends when the file it replaces mostly has them and ``new``
    has none (models write ``\\n``); for the file's bytes or, UTF-16's, its text."""
    if crlf not in new and lf in new and old.count(crlf) * 2 > old.count(lf):
        return new.replace(lf, crlf)
    return new


def _as_utf16(mark: bytes, old: str, new: bytes) -> bytes:
    """``new`` (the model's UTF-8) as the UTF-16 file it replaces is written: its mark, its
    byte order, its CRLF. Written as UTF-8, a file that Windows tools read as UTF-16 (a
    ``.reg`` export, a resource script) no longer read. Content that is not UTF-8 is left
    as it came."""
    try:
        text = new.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return new
    text = _in_its_line_ends(old, text, "\r\n", "\n")
    return mark + text.encode("utf-16-le" if mark == b"\xff\xfe" else "utf-16-be")


# ----------------------------------------------------------------------------- replace


LOOSE = "ignoring whitespace at line ends"
"""Said of an ``old`` found only with its lines' trailing whitespace ignored."""
TABS = "its indenting spaces read as the file's tabs"
"""Said of an ``old`` found only with the file's leading tabs read as spaces."""
QUOTES = "its quotes, dashes and spaces read as the file's"
"""Said of an ``old`` found only with typographic punctuation read as ASCII."""


class _Located(NamedTuple):
    """Where ``old`` is, and how it was found: ``how`` is ``""`` (exactly), :data:`LOOSE`,
    :data:`TABS` or :data:`QUOTES`; ``width``: the tab width ``new`` is to be indented
    in, or 0; ``old`` and ``found``: ``old`` as the model sent it and as the file has it,
    when found by its punctuation."""

    at: int
    end: int
    how: str = ""
    width: int = 0
    old: str = ""
    found: str = ""

    def new(self, new: str) -> str:
        """``new`` as it goes into the file (in its tabs, when found by them; with the
        file's punctuation where it keeps ``old``'s, when found by that)."""
        if self.how == QUOTES:
            try:
                return in_file_punctuation(new, self.old, self.found)
            except TooLongToAlign as exc:
                raise ToolError(
                    f"`old` was found only with its quotes, dashes and spaces read as the "
                    f"file's, and is too long ({exc}) to keep the file's punctuation where "
                    "`new` keeps it: copy `old` with the file's characters, or edit a "
                    "smaller part"
                ) from exc
        return with_tabs(new, self.width) if self.width else new


def _locate_once(path: str, text: str, old: str, what: str, every: str = "") -> _Located:
    """Where ``old`` occurs in ``text``, the only time, exactly or else found by its whole
    lines (``tools/replace_match.py``: whitespace at line ends ignored, then a tab file's
    indentation read as spaces), or by its punctuation read as ASCII; else a
    ``ToolError`` saying how often it occurs
    (``every``: how to replace every one, when the tool can)."""
    count = text.count(old)
    if count == 1:
        at = text.index(old)
        return _Located(at, at + len(old))
    if count == 0:
        loose, width = whole_lines_loosely(text, old), 0
        how = LOOSE
        if not loose:
            (loose, width), how = tabs_for_spaces(text, old), TABS
        if not loose:
            loose, how = typographic(text, old), QUOTES
            if len(loose) == 1:
                at, end = loose[0]
                return _Located(at, end, how, 0, old, text[at:end])
        if len(loose) == 1:
            return _Located(*loose[0], how, width)
        if loose:
            lines = ", ".join(str(_line_of(text, at)) for at, _ in loose)
            raise ToolError(
                f"{path}: {what} is ambiguous ({how}): it matches at lines {lines}; include "
                "more surrounding lines so it occurs exactly once"
            )
        hint = ""
        if old.strip() and old.strip() in text:
            hint = " (it does occur with different leading/trailing whitespace)"
        elif (where := first_difference(text, old)) is not None:
            hint = f" ({where})"
        raise ToolError(
            f"{path}: {what} not found{hint}; the text must match the file exactly, "
            "including indentation — re-read the file and copy the lines"
        )
    starts: list[int] = []
    at = text.find(old)
    while at != -1 and len(starts) < 10:
        starts.append(_line_of(text, at))
        at = text.find(old, at + 1)
    raise ToolError(
        f"{path}: {what} is ambiguous: {count} matches at lines "
        f"{', '.join(map(str, starts))}{'…' if count > 10 else ''}; include more surrounding "
        f"lines so it occurs exactly once{every}"
    )


def _same_but_punctuation(path: str, what: str) -> str:
    return (
        f"{path}: {what} was found only with its quotes, dashes and spaces read as the "
        "file's, and `new` differs from it only in those, which are kept as the file has "
        "them: nothing would change. To change the punctuation itself, copy `old` with the "
        "file's characters"
    )


def _hows(hows: list[str]) -> str:
    """`` (1 ignoring whitespace at line ends)``: how many edits were found how."""
    if not hows:
        return ""
    counts = {how: hows.count(how) for how in dict.fromkeys(hows)}
    return " (" + "; ".join(f"{n} {how}" for how, n in counts.items()) + ")"


def _crlf_adapt(text: str, old: str, new: str) -> tuple[str, str]:
    """Models write ``\\n``; a CRLF file gets the edit in its own line ending."""
    if "\r\n" in text and "\n" in old and "\r\n" not in old and text.count(old) == 0:
        return old.replace("\n", "\r\n"), new.replace("\r\n", "\n").replace("\n", "\r\n")
    return old, new


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def _encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


class ReplaceTool:
    spec = ToolSpec(
        name="replace",
        description=(
            "Replace one exact occurrence of `old` with `new` in a file. `old` must occur exactly "
            "once (include surrounding lines to make it unique). dry_run=true only shows the diff."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "file path relative to the workspace"},
                "old": {"type": "string", "description": "exact text to replace (must be unique)"},
                "new": {"type": "string", "description": "replacement text, written out in full"},
                "all": {
                    "type": "boolean",
                    "description": "every occurrence, not exactly one",
                    "default": False,
                },
                "dry_run": {
                    "type": "boolean",
                    "description": "show the diff without writing",
                    "default": False,
                },
            },
            "required": ["path", "old", "new"],
        },
        sequential=True,
        mutates=True,
        kind="edit",
        aliases=arg_aliases.REPLACE,
        timeout=30.0,
    )
    bytes_args: frozenset[str] = frozenset()

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        wp, data, mode = _existing(ctx, args["path"])
        old, new = args["old"], args["new"]
        if old == "":
            raise ToolError("replace: `old` is empty; give the exact text to replace", kind="arg")
        if old == new:
            raise ToolError("replace: `old` and `new` are identical; nothing would change", "arg")
        if "\n" in old and (why := escaped_twice(wp.rel, new, "new")):
            raise ToolError(why, kind="arg")  # lines replaced by one escaped line
        text = _decode(data)
        old, new = _crlf_adapt(text, old, new)
        count = text.count(old)
        if args["all"] and count > 1:  # a rename: every one, counted
            updated = text.replace(old, new)
            first = _line_of(text, text.index(old))
            summary = f"replace {count} occurrences in {wp.rel} from line {first}"
        else:
            every = ", or all: true to replace every one"
            found = _locate_once(wp.rel, text, old, "`old`", every)
            written = found.new(new)
            if written == text[found.at : found.end]:  # it changed only the punctuation
                raise ToolError(_same_but_punctuation(wp.rel, "`old`"))
            updated = text[: found.at] + written + text[found.end :]
            summary = f"replace in {wp.rel} at line {_line_of(text, found.at)}"
            if found.how:
                summary += f" ({found.how})"
        return _mutation(
            ctx,
            args,
            [_change(wp, data, _encode(updated), mode)],
            summary,
            needs_approval=not args["dry_run"],
        )

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        if prepared.args["dry_run"]:
            diff = prepared.preview.files[0].diff
            return Outcome(kind="ok", output=f"dry run, nothing written:\n{diff}")
        return await _write(prepared, ctx, f"{prepared.preview.summary}: done")


# ----------------------------------------------------------------------------- multi


class MultiTool:
    spec = ToolSpec(
        name="multi",
        description=(
            "Apply several exact replacements to one file, all or nothing. Each `old` must occur "
            "exactly once in the ORIGINAL file and edits must not overlap."
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "file path relative to the workspace"},
                "edits": {
                    "type": "array",
                    "description": 'list of {"old": ..., "new": ...} replacements',
                    "items": {
                        "type": "object",
                        "properties": {
                            "old": {"type": "string", "description": "exact text (unique)"},
                            "new": {"type": "string", "description": "replacement"},
                        },
                        "required": ["old", "new"],
                    },
                },
            },
            "required": ["path", "edits"],
        },
        sequential=True,
        mutates=True,
        kind="edit",
        aliases=arg_aliases.MULTI,
        timeout=30.0,
    )
    bytes_args: frozenset[str] = frozenset()

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        wp, data, mode = _existing(ctx, args["path"])
        edits = args["edits"]
        if not edits:
            raise ToolError("multi: `edits` is empty; give at least one {old, new}", kind="arg")
        text = _decode(data)
        spans: list[tuple[int, int, str, int]] = []
        hows: list[str] = []
        for i, edit in enumerate(edits, 1):
            old, new = _crlf_adapt(text, edit["old"], edit["new"])
            if old == "":
                raise ToolError(f"multi: edit {i} has an empty `old`", kind="arg")
            try:
                found = _locate_once(wp.rel, text, old, f"edit {i}: `old`")
            except ToolError as exc:
                raise ToolError(f"{exc}; no edit was applied") from exc
            written = found.new(new)
            if written == text[found.at : found.end]:
                raise ToolError(
                    f"{_same_but_punctuation(wp.rel, f'edit {i}: `old`')}; no edit was applied"
                )
            spans.append((found.at, found.end, written, i))
            if found.how:
                hows.append(found.how)
        spans.sort()
        for (_, a1, _, ai), (b0, _, _, bi) in pairwise(spans):
            if b0 < a1:
                raise ToolError(
                    f"{wp.rel}: edits {min(ai, bi)} and {max(ai, bi)} overlap (line "
                    f"{_line_of(text, b0)}); merge them into one edit. No edit was applied"
                )
        pieces: list[str] = []
        cur = 0
        for start, end, new, _ in spans:
            pieces.append(text[cur:start])
            pieces.append(new)
            cur = end
        pieces.append(text[cur:])
        return _mutation(
            ctx,
            args,
            [_change(wp, data, _encode("".join(pieces)), mode)],
            f"{len(spans)} edits in {wp.rel}" + _hows(hows),
        )

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        return await _write(prepared, ctx, f"applied {prepared.preview.summary}")


# ----------------------------------------------------------------------------- apply_patch


class ApplyPatchTool:
    """A multi-file patch in either dialect (detected from the text); the spec teaches the
    one the model knows best (``patch_format``)."""

    bytes_args = frozenset({"patch"})

    def __init__(self, dialect: PatchDialect = "unified") -> None:
        self.spec: ToolSpec = apply_patch_spec(dialect)

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        try:
            plan = plan_patch(ctx.root, args["patch"], EDIT_MAX_FILE)
        except PatchError as exc:
            raise ToolError(f"apply_patch failed, nothing written: {exc}") from exc
        _refuse_omission(plan.changes)
        return Prepared(
            args=args,
            preview=plan.preview(),
            needs_approval=bool(plan.changes),
            plan=plan,
        )

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        plan: PatchPlan = prepared.plan
        if plan.already_applied:
            names = ", ".join(plan.already[:10])
            return Outcome(
                kind="ok",
                output=f"already applied: every change is already in {names}; nothing written",
                meta={"files": [], "changes": [], "already_applied": True},
            )
        if not plan.changes:
            return Outcome(kind="ok", output="the patch changes nothing: files already match")
        try:
            made = await write_plan(plan, ctx)
        except PatchError as exc:
            return Outcome(kind="error", output=f"apply_patch failed: {exc}")
        _wrote(prepared, ctx)
        meta = change_meta(plan, made)
        return Outcome(kind="ok", output="\n".join(plan.summary()), meta=meta)
