"""A reader of OpenAI Codex's patch envelope, the dialect OpenAI's models are trained on.

```
*** Begin Patch
*** Add File: PATH        then '+' lines (the whole content)
*** Delete File: PATH
*** Update File: PATH     then optional '*** Move to: PATH', then chunks:
@@ optional context line  (one or more: each is found in order before the chunk)
 context / -removed / +added lines
*** End of File           (optional: the chunk's old lines end the file)
*** End Patch
```

As lenient as Codex's own parser where models are sloppy: markers and file
headers are matched trimmed, the first chunk may omit its ``@@``, blank lines
between chunks are skipped and a blank line inside one is an empty context
line; unlike Codex, several ``@@`` lines in a row narrow the location step by
step (Codex's own instructions teach that). Cost is one pass over the lines.
"""

from __future__ import annotations

from frontier.tools.patch_model import FilePatch, Hunk, PatchParseError, split_patch_lines

BEGIN = "*** Begin Patch"
END = "*** End Patch"
ADD = "*** Add File: "
DELETE = "*** Delete File: "
UPDATE = "*** Update File: "
MOVE = "*** Move to: "
EOF_MARKER = "*** End of File"
_HEADERS = (ADD, DELETE, UPDATE)


def parse_codex(text: str) -> tuple[FilePatch, ...]:
    lines = split_patch_lines(text)
    first = 0
    while first < len(lines) and not lines[first].strip():
        first += 1
    last = len(lines) - 1
    while last > first and not lines[last].strip():
        last -= 1
    if first >= len(lines) or lines[first].strip() != BEGIN:
        raise PatchParseError("the first line of the patch must be '*** Begin Patch'")
    if last == first or lines[last].strip() != END:
        raise PatchParseError(
            "the last line of the patch must be '*** End Patch'; add it after the last change"
        )
    reader = _Reader(lines, first + 1, last)
    files = reader.files()
    if not files:
        raise PatchParseError(
            "the patch changes nothing: add '*** Add File:', '*** Update File:' or "
            "'*** Delete File:' sections between '*** Begin Patch' and '*** End Patch'"
        )
    return tuple(files)


class _Reader:
    def __init__(self, lines: list[str], start: int, stop: int) -> None:
        self.lines = lines
        self.i = start
        self.stop = stop

    def _where(self, i: int) -> str:
        return f"patch line {i + 1}"

    def files(self) -> list[FilePatch]:
        out: list[FilePatch] = []
        lines = self.lines
        while self.i < self.stop:
            raw = lines[self.i]
            head = raw.strip()
            if not head:
                self.i += 1
                continue
            line_no = self.i + 1
            if head.startswith(ADD):
                path = _path(head[len(ADD) :], line_no)
                self.i += 1
                out.append(self._add(path, line_no))
            elif head.startswith(DELETE):
                path = _path(head[len(DELETE) :], line_no)
                self.i += 1
                out.append(
                    FilePatch(path, None, (), dialect="codex", line_no=line_no),
                )
            elif head.startswith(UPDATE):
                path = _path(head[len(UPDATE) :], line_no)
                self.i += 1
                move = None
                if self.i < self.stop and lines[self.i].strip().startswith(MOVE):
                    move = _path(lines[self.i].strip()[len(MOVE) :], self.i + 1)
                    self.i += 1
                hunks = self._chunks(path, line_no)
                out.append(
                    FilePatch(
                        path,
                        move or path,
                        hunks,
                        dialect="codex",
                        rename=move is not None and move != path,
                        line_no=line_no,
                    )
                )
            else:
                raise PatchParseError(
                    f"{self._where(self.i)}: {head[:80]!r} is not a valid file header; use "
                    "'*** Add File: PATH', '*** Delete File: PATH' or '*** Update File: PATH'"
                )
        return out

    def _add(self, path: str, line_no: int) -> FilePatch:
        lines = self.lines
        texts: list[str] = []
        while self.i < self.stop:
            line = lines[self.i]
            if line.startswith("+"):
                texts.append(line[1:])
            elif not line.strip() and self._more_added(self.i + 1):
                texts.append("")  # a blank line the model wrote without its '+'
            else:
                break
            self.i += 1
        hunk = Hunk(
            index=1,
            tags="+" * len(texts),
            texts=tuple(texts),
            eols=("\n",) * len(texts),
            header="*** Add File",
            line_no=line_no,
        )
        return FilePatch(None, path, (hunk,) if texts else (), dialect="codex", line_no=line_no)

    def _more_added(self, i: int) -> bool:
        while i < self.stop and not self.lines[i].strip():
            i += 1
        return i < self.stop and self.lines[i].startswith("+")

    def _chunks(self, path: str, line_no: int) -> tuple[Hunk, ...]:
        lines = self.lines
        hunks: list[Hunk] = []
        while self.i < self.stop:
            line = lines[self.i]
            if not line.strip():
                self.i += 1
                continue
            if line.lstrip().startswith("*** ") and line.strip() != EOF_MARKER:
                break
            hunks.append(self._chunk(path, len(hunks) + 1, first=not hunks))
        if not hunks:
            raise PatchParseError(
                f"patch line {line_no}: '*** Update File: {path}' has no changes; add an @@ "
                "chunk with ' ' context, '-' removed and '+' added lines, or drop the section"
            )
        return tuple(hunks)

    def _chunk(self, path: str, index: int, *, first: bool) -> Hunk:
        lines = self.lines
        start = self.i
        anchors: list[str] = []
        headers: list[str] = []
        while self.i < self.stop and lines[self.i].startswith("@@"):
            header = lines[self.i].rstrip()
            headers.append(header)
            anchor = header[2:].strip()
            if anchor.endswith("@@"):  # "@@ def f(): @@", as unified-diff habits write it
                anchor = anchor[:-2].strip()
            if anchor:
                anchors.append(anchor)
            self.i += 1
        if not headers and not first:
            raise PatchParseError(
                f"patch line {start + 1}: {lines[start][:80]!r} is not a patch line; every line "
                "of an update must start with ' ' (context), '-' (removed) or '+' (added), and "
                "each further chunk with '@@'"
            )
        tags: list[str] = []
        texts: list[str] = []
        blank: list[bool] = []
        """Which body lines had nothing on them (not even the context line's space)."""
        at_eof = False
        while self.i < self.stop:
            line = lines[self.i]
            c = line[:1]
            if line.strip() == EOF_MARKER:
                at_eof = True
                self.i += 1
                break
            if c in (" ", "-", "+"):
                tags.append(c)
                texts.append(line[1:])
                blank.append(False)
            elif not line.strip():
                tags.append(" ")
                texts.append("")
                blank.append(True)
            elif line.startswith("@@") or line.lstrip().startswith("*** "):
                break
            else:
                raise PatchParseError(
                    f"patch line {self.i + 1}: {path}: {line[:80]!r} is not a patch line; every "
                    "line of a chunk must start with ' ' (context), '-' (removed) or '+' (added)"
                )
            self.i += 1
        while blank and blank[-1]:
            blank.pop()  # blank lines before the next header separate, they are not context
            tags.pop()
            texts.pop()
        if not tags:
            raise PatchParseError(
                f"patch line {start + 1}: {path}: chunk {index} has no lines; add ' ', '-' or "
                "'+' lines after its @@ line"
            )
        return Hunk(
            index=index,
            tags="".join(tags),
            texts=tuple(texts),
            eols=("\n",) * len(tags),
            header=headers[0] if len(headers) == 1 else " / ".join(headers) or "@@",
            anchors=tuple(anchors),
            at_eof=at_eof,
            line_no=start + 1,
        )


def _path(raw: str, line_no: int) -> str:
    path = raw.strip()
    if not path:
        raise PatchParseError(f"patch line {line_no}: the file header names no path")
    return path
