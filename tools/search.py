"""grep and glob over the workspace, respecting ``.gitignore``.

grep uses ripgrep when it is on PATH (fast on big trees) and a pure-Python walk
otherwise; both produce the same sorted ``path:line:text`` rows and the same
cap. glob always uses the Python walk so its pattern semantics are ours:
matched against the workspace-relative path, ``**`` spans folders.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from frontier.app.events import ToolCall
from frontier.tools.base import CancelToken, Outcome, Prepared, ToolError
from frontier.tools.contract import ToolContext, ToolSpec
from frontier.tools.gitignore import glob_to_regex, walk_files
from frontier.tools.paths import PathError, real_root, resolve

MAX_MATCHES = 500
MAX_FILES = 1000
LINE_CHARS = 300


def _glob_filter(glob: str | None) -> re.Pattern[str] | None:
    if not glob:
        return None
    return re.compile(glob_to_regex(glob.lstrip("/")) + r"\Z", re.DOTALL)


def _glob_ok(rx: re.Pattern[str] | None, glob: str | None, rel: str) -> bool:
    if rx is None or glob is None:
        return True
    target = rel if "/" in glob.strip("/") else rel.rsplit("/", 1)[-1]
    return rx.match(target) is not None


def _cut(text: str) -> str:
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS] + "…"


def grep_python(root: Path, start: Path, pattern: re.Pattern[str], glob: str | None) -> list[str]:
    """Every matching line as ``path:line:text``, sorted by path then line."""
    rx = _glob_filter(glob)
    rows: list[tuple[str, int, str]] = []
    for rel, real in walk_files(root, start):
        if not _glob_ok(rx, glob, rel):
            continue
        try:
            data = real.read_bytes()
        except OSError:
            continue
        if b"\x00" in data[:8192]:
            continue
        text = data.decode("utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                rows.append((rel, n, f"{rel}:{n}:{_cut(line)}"))
    rows.sort(key=lambda r: (r[0], r[1]))
    return [r[2] for r in rows]


async def grep_rg(rg: str, root: Path, start: Path, pattern: str, glob: str | None) -> list[str]:
    rel_start = os.path.relpath(start, root)
    cmd = [rg, "--no-heading", "--line-number", "--color=never", "--no-messages", "--hidden"]
    cmd += ["--no-require-git", "-g", "!.git", "--no-config"]
    if glob:
        cmd += ["-g", glob]
    cmd += ["-e", pattern, "--", rel_start]
    proc = await asyncio.create_subprocess_exec(
        *cmd, cwd=root, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
    )
    out, _ = await proc.communicate()
    rows = []
    for line in out.decode("utf-8", errors="replace").splitlines():
        path, _, rest = line.partition(":")
        num, _, text = rest.partition(":")
        path = path[2:] if path.startswith("./") else path
        rows.append((path, int(num) if num.isdigit() else 0, f"{path}:{num}:{_cut(text)}"))
    rows.sort(key=lambda r: (r[0], r[1]))
    return [r[2] for r in rows]


class GrepTool:
    spec = ToolSpec(
        name="grep",
        description=(
            "Search file contents with a regular expression (Python/ripgrep syntax). Skips "
            ".gitignore'd and binary files. Results are path:line:text, sorted."
        ),
        parameters={
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "regular expression"},
                "path": {
                    "type": "string",
                    "description": "file or folder to search (default: the workspace)",
                    "default": ".",
                },
                "glob": {
                    "type": "string",
                    "description": "only files matching this glob, e.g. *.py or src/**/*.ts",
                },
            },
            "required": ["pattern"],
        },
        timeout=60.0,
    )
    bytes_args: frozenset[str] = frozenset()
    use_ripgrep = True

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        try:
            re.compile(args["pattern"])
        except re.error as exc:
            raise ToolError(f"grep: invalid regular expression: {exc}", kind="arg") from exc
        try:
            resolve(ctx.root, args["path"])
        except PathError as exc:
            raise ToolError(str(exc)) from exc
        return Prepared(args=args)

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        args = prepared.args
        root = real_root(ctx.root)
        start = resolve(ctx.root, args["path"])
        if not start.real.exists():
            raise ToolError(f"grep: {start.rel} does not exist")
        rg = shutil.which("rg") if self.use_ripgrep else None
        if rg:
            rows = await grep_rg(rg, root, start.real, args["pattern"], args.get("glob"))
        else:
            pattern = re.compile(args["pattern"])
            rows = await asyncio.to_thread(grep_python, root, start.real, pattern, args.get("glob"))
        return Outcome(kind="ok", output=render_rows(rows, args["pattern"], start.rel))


def render_rows(rows: list[str], pattern: str, where: str) -> str:
    if not rows:
        return f"no matches for /{pattern}/ in {where}"
    files = len({r.partition(":")[0] for r in rows})
    shown = rows[:MAX_MATCHES]
    tail = f"[{len(rows)} matches in {files} files]"
    if len(rows) > MAX_MATCHES:
        tail = (
            f"[showing the first {MAX_MATCHES} of {len(rows)} matches in {files} files; "
            "narrow the pattern, path or glob]"
        )
    return "\n".join([*shown, tail])


class GlobTool:
    spec = ToolSpec(
        name="glob",
        description=(
            "List workspace files whose relative path matches a glob ('*' stays within a folder, "
            "'**' spans folders: **/*.py). Skips .gitignore'd files. Sorted."
        ),
        parameters={
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "glob, e.g. src/**/*.py"},
            },
            "required": ["pattern"],
        },
        timeout=60.0,
    )
    bytes_args: frozenset[str] = frozenset()

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        pattern = args["pattern"].strip()
        if not pattern:
            raise ToolError("glob: empty pattern; e.g. **/*.py", kind="arg")
        if pattern.startswith("/") or ".." in pattern.split("/"):
            raise ToolError(
                f"glob: pattern {pattern!r} must be relative to the workspace (no leading / or ..)"
            )
        return Prepared(args={"pattern": pattern})

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        pattern = prepared.args["pattern"]
        files = await asyncio.to_thread(glob_files, real_root(ctx.root), pattern)
        if not files:
            return Outcome(kind="ok", output=f"no files match {pattern!r}")
        shown = files[:MAX_FILES]
        lines = [*shown, f"[{len(files)} files]"]
        if len(files) > MAX_FILES:
            lines[-1] = f"[showing the first {MAX_FILES} of {len(files)} files; narrow the pattern]"
        return Outcome(kind="ok", output="\n".join(lines))


def glob_files(root: Path, pattern: str) -> list[str]:
    if pattern.startswith("./"):
        pattern = pattern[2:]
    full = re.compile(glob_to_regex(pattern) + r"\Z", re.DOTALL)
    return sorted(rel for rel, _ in walk_files(root, root) if full.match(rel))
