"""``@path`` in a typed message: workspace files attached to it, capped (issue 14).

A person writes ``look at @app/cli.py`` and the model gets the message followed by
the file's content, so it need not spend a request on ``read``. The rules:

* A mention is ``@`` at the start of the message or after whitespace, then a path
  (``@"a path with spaces"`` quoted); trailing ``.,;:!?)`` are not part of it when
  the path without them names a file (``see @a.py.`` attaches ``a.py``).
* The path is resolved **beneath the workspace root** by directory descriptors
  (``tools/beneath.py``: a link that leaves the workspace, ``..`` above the root,
  a FIFO or a device are refused), exactly as the ``read`` tool resolves it. A file
  named explicitly is attached even when ``.gitignore`` hides it from completion.
* Caps (the context window of a local model is small): each file at most
  :data:`FILE_MAX` bytes (cut at a line break, and the message says how much was
  left out), at most :data:`FILES_MAX` files and :data:`TOTAL_MAX` bytes per
  message; a file that is not UTF-8 text is not attached. A mention that names
  nothing attachable stays in the text as typed, and :attr:`Prepared.problems`
  says why, for the front end to show.

An image (PNG, JPEG, GIF, WebP: known by its first bytes, not its name) is attached as an
image: the model sees it (every wire sends it as its API's image part) and the text keeps
the mention. One over what the models' APIs take (5 MB once base64-encoded, 8,000 pixels
a side) is scaled down to fit (``app/image_fit.py``; files up to ``IMAGE_READ_MAX`` are
read for it); :data:`IMAGES_MAX` a message; a model that takes no images says so as an error of
its server.

Completion offers :func:`workspace_files`: the ``.gitignore``-aware walk of the
``grep``/``glob`` tools (``tools/gitignore.walk``: links never followed, ``.git``
skipped), at most :data:`COMPLETION_MAX` paths.
"""

from __future__ import annotations

import base64
import codecs
import os
import re
import stat
from bisect import bisect_right
from pathlib import Path

from frontier.app.agent.path_query import in_order
from frontier.app.hashes import sha256_hex
from frontier.app.image import IMAGE_READ_MAX, Image
from frontier.app.record import record
from frontier.tools import beneath
from frontier.tools.gitignore import walk
from frontier.tools.image_kind import image_kind
from frontier.tools.utf16 import is_utf16

TYPE_CHECKING = False  # typing is not imported at run time
if TYPE_CHECKING:
    import threading

    from frontier.tools.file_views import FileViews

FILE_MAX = 32 * 1024
"""Bytes of one attached file sent to the model (the rest is cut, and said so)."""
TOTAL_MAX = 128 * 1024
"""Bytes of attached files in one message."""
FILES_MAX = 8
"""Files attached to one message."""
IMAGES_MAX = 4
"""Images attached to one message."""

COMPLETION_MAX = 100_000
"""Workspace paths ``@`` completion looks through (a huge tree is cut, not walked whole)."""
SEARCH_MAX = 20_000
"""Paths a search past the cut listing returns at most (:func:`search_files`)."""

_MENTION = re.compile(r'(?<!\S)@(?:"([^"\n]+)"|([^\s"]+))')
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.MULTILINE)


def _fenced(text: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets of ``text``'s fenced blocks, in order: a fence of N
    backticks (or tildes) closes at the next fence of the same character at least N long
    (Markdown's rule: ``fenced`` makes its fence longer than any run inside, so a piped
    file's own fences stay inside); one left open runs to the end. One pass."""
    spans: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    for match in _FENCE.finditer(text):
        fence = match.group(1)
        if opened is None:
            opened = (match.start(), fence)
        elif fence[0] == opened[1][0] and len(fence) >= len(opened[1]):
            spans.append((opened[0], match.end()))
            opened = None
    if opened is not None:
        spans.append((opened[0], len(text)))
    return spans


_TRAILING = ".,;:!?)]}'"


@record
class Attachment:
    """One file attached to a message."""

    path: str
    """Workspace-relative, as typed (``./`` and such removed)."""
    size: int
    """The file's size in bytes."""
    sent: int
    """Bytes of it in the message (``< size`` when cut at :data:`FILE_MAX`)."""
    media_type: str = ""
    """An image's type (``image/png``); empty for a text file."""
    digest: str = ""
    """The sha256 of the whole file when all of it went with the message (the model has
    then seen it: ``tools/file_views.py``); empty when it was cut, and for an image."""
    scaled: str = ""
    """An image made fit for the APIs: what was done (``scaled to 853×8000``)."""

    @property
    def cut(self) -> bool:
        return self.sent < self.size

    def label(self) -> str:
        """``app/cli.py (2,345 bytes)`` / ``big.log (first 32,700 of 1,048,576 bytes)`` /
        ``shot.png (image/png, 123,456 bytes)``."""
        if self.media_type:
            done = f", {self.scaled} to fit what the models' APIs take" if self.scaled else ""
            return f"{self.path} ({self.media_type}, {self.size:,} bytes{done})"
        if self.cut:
            return f"{self.path} (first {self.sent:,} of {self.size:,} bytes)"
        return f"{self.path} ({self.size:,} byte{'s' if self.size != 1 else ''})"


@record
class Prepared:
    """A typed message made ready for the model."""

    typed: str
    """What the person wrote (what the transcript and the prompt history show)."""
    text: str
    """What the model gets: ``typed``, then each attached file in a fenced block."""
    attachments: tuple[Attachment, ...] = ()
    problems: tuple[str, ...] = ()
    """One line per mention that was not attached, and why."""
    images: tuple[Image, ...] = ()
    """The attached images, sent beside ``text``."""

    def notes(self) -> list[str]:
        """The transcript lines that say what went with the message."""
        return [f"attached {a.label()}" for a in self.attachments] + list(self.problems)


def mentions(text: str) -> list[str]:
    """The paths ``text`` mentions with ``@``, in order, each once (as written); none
    inside a fenced block: code and piped input are content, not mentions (a diff piped to
    ``frontier run`` made ``@@`` a mention, and a context line `` @index.html`` attached
    the file)."""
    found: list[str] = []
    spans = _fenced(text)
    starts = [start for start, _ in spans]
    for match in _MENTION.finditer(text):
        at = bisect_right(starts, match.start()) - 1
        if at >= 0 and match.start() < spans[at][1]:  # inside a fenced block
            continue
        path = match.group(1) or match.group(2)
        if path and path not in found:
            found.append(path)
    return found


def prepare(root: Path, text: str) -> Prepared:
    """``text`` with the files it mentions attached (see the module docstring)."""
    attached: list[Attachment] = []
    blocks: list[str] = []
    problems: list[str] = []
    images: list[Image] = []
    seen: set[str] = set()
    total = 0
    for mention in mentions(text):
        read = _read_mention(root, mention)
        if isinstance(read, str):
            problems.append(f"@{mention}: {read}; sent as typed")
            continue
        rel, size, data = read
        if rel in seen:
            continue
        seen.add(rel)
        kind = image_kind(data)
        if kind is not None:
            image = _image(rel, size, data, kind, len(images))
            if isinstance(image, str):
                problems.append(f"@{mention}: {image}")
            else:
                images.append(image[0])
                attached.append(Attachment(rel, size, size, kind, scaled=image[1]))
            continue
        if len(attached) >= FILES_MAX:
            problems.append(f"@{mention}: not attached, {FILES_MAX} files per message at most")
            continue
        room = min(FILE_MAX, TOTAL_MAX - total)
        if room <= 0:
            problems.append(
                f"@{mention}: not attached, the message already carries "
                f"{TOTAL_MAX // 1024} KiB of files"
            )
            continue
        body = _text(data, room, size)
        if body is None:
            problems.append(f"@{mention}: not attached, it is not UTF-8 text")
            continue
        content, sent = body
        total += sent
        whole = len(data) == size <= room
        attachment = Attachment(rel, size, sent, digest=sha256_hex(data) if whole else "")
        attached.append(attachment)
        blocks.append(_block(attachment, content))
    full = text if not blocks else text.rstrip("\n") + "\n\n" + "\n\n".join(blocks)
    return Prepared(text, full, tuple(attached), tuple(problems), tuple(images))


def mark_seen(prepared: Prepared, views: FileViews | None) -> Prepared:
    """``prepared``, each file it sends whole now counted as read by the model, so a
    whole-file ``write`` of it is judged as after a ``read`` (``tools/file_views.py``)."""
    if views is not None:
        for attached in prepared.attachments:
            if attached.digest:
                views.saw(attached.path, attached.digest)
    return prepared


def _image(rel: str, size: int, data: bytes, kind: str, count: int) -> tuple[Image, str] | str:
    """The image to send (scaled down when over what the models' APIs take:
    ``app/image_fit.py``) and what was done to it, or why it is not attached."""
    if count >= IMAGES_MAX:
        return f"not attached, {IMAGES_MAX} images per message at most"
    if size > IMAGE_READ_MAX or len(data) > IMAGE_READ_MAX:
        return (
            f"not attached, the image is {size:,} bytes; at most {IMAGE_READ_MAX:,} are read "
            "to be made fit for the models' APIs: make it smaller (a lower resolution, or JPEG)"
        )
    if len(data) < size:  # it grew while it was read: what was read is not the image
        return "not attached, it changed while it was read"
    from frontier.app.image_fit import fitted

    fit = fitted(data, kind)
    if isinstance(fit, str):
        return f"not attached, {fit}"
    return Image(fit.media_type, base64.b64encode(fit.data).decode("ascii"), rel), fit.done


def _read_mention(root: Path, mention: str) -> tuple[str, int, bytes] | str:
    """``(relative path, size, up to FILE_MAX + 1 bytes)``, or why it cannot be attached.

    A mention with trailing punctuation is tried as written first, then without it."""
    candidates = [mention]
    stripped = mention.rstrip(_TRAILING)
    if stripped and stripped != mention:
        candidates.append(stripped)
    why = "no such file in the workspace"
    for candidate in candidates:
        try:
            with beneath.parent(root, candidate) as found:
                opened = beneath.open_regular(found.fd, found.name)
                if opened is None:
                    continue
                fd, st = opened
                try:
                    data = os.read(fd, FILE_MAX + 1)
                    if image_kind(data) is not None and st.st_size <= IMAGE_READ_MAX:
                        data += _rest(fd, IMAGE_READ_MAX + 1 - len(data))
                finally:
                    os.close(fd)
                return _shown(candidate), st.st_size, data
        except FileNotFoundError:
            if candidate.startswith("~") and (image := _outside_image(root, candidate)):
                return image
            continue
        except IsADirectoryError:
            why = "a folder, not a file (name a file inside it)"
        except beneath.PathError:
            if (image := _outside_image(root, candidate)) is not None:
                return image
            why = "outside the workspace (from outside it only an image is attached)"
        except OSError as exc:
            why = (exc.strerror or str(exc)).lower()
    return why


def dropped_image(text: str) -> str | None:
    """The ``@`` mention of an image whose path ``text`` is, as a terminal pastes a file
    dropped on it (``/tmp/shot.png``, ``'/home/me/Screen Shot.png'``, ``/a/Screen\\
    Shot.png``, ``file:///…``); ``None`` for anything else. Dropping a screenshot sent its
    path to the model as text, which cannot see it; Claude Code attaches one."""
    path = text.strip()
    if not path or "\n" in path or len(path) > 4096:
        return None
    if path.startswith("file://"):
        from urllib.parse import unquote, urlsplit

        path = unquote(urlsplit(path).path)
    elif len(path) >= 2 and path[0] == path[-1] and path[0] in "'\"":
        path = path[1:-1]
    elif "\\" in path:
        path = re.sub(r"\\(.)", r"\1", path)
    if not (path.startswith("/") or path.startswith("~")) or '"' in path:
        return None
    if _image_file(os.path.expanduser(path), whole=False) is None:
        return None
    return f'@"{path}"' if any(c.isspace() for c in path) else f"@{path}"


def _outside_image(root: Path, path: str) -> tuple[str, int, bytes] | None:
    """An image the person named outside the workspace (``@~/Pictures/shot.png``, a
    screenshot tool's ``/tmp/…``): read, as its path was typed; anything else there, a
    text file above all, is ``None`` and never read past its first bytes. The person
    names it; the model never can (a mention is the person's message, not a tool call)."""
    full = os.path.join(root, os.path.expanduser(path))  # an absolute path stays itself
    found = _image_file(full, whole=True)
    return None if found is None else (path, *found)


def _image_file(path: str, *, whole: bool) -> tuple[int, bytes] | None:
    """``(size, bytes)`` of the regular file at ``path`` when it is an image (its first
    64 bytes, or with ``whole`` all of it up to :data:`IMAGE_READ_MAX` + 1), else ``None``.
    Opened without blocking (a FIFO named so must not hang) and never read past its
    first bytes unless it is an image."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        data = os.read(fd, 64)
        if image_kind(data) is None:
            return None
        if whole and st.st_size <= IMAGE_READ_MAX:
            data += _rest(fd, IMAGE_READ_MAX + 1 - len(data))
        return st.st_size, data
    except OSError:
        return None
    finally:
        os.close(fd)


def _rest(fd: int, most: int) -> bytes:
    """Up to ``most`` more bytes of ``fd`` (an image: its whole file, bounded)."""
    parts: list[bytes] = []
    while most > 0:
        chunk = os.read(fd, min(most, 1 << 20))
        if not chunk:
            break
        parts.append(chunk)
        most -= len(chunk)
    return b"".join(parts)


def _shown(path: str) -> str:
    """The path as the transcript and the model see it (no ``./``, POSIX separators)."""
    return os.path.normpath(path).replace(os.sep, "/")


def _text(data: bytes, room: int, size: int) -> tuple[str, int] | None:
    """The part of ``data`` that fits in ``room`` bytes, cut at a line break when cut,
    decoded; ``None`` for a file that is not text (a NUL byte, invalid UTF-8). A file with a
    UTF-16 byte order mark is decoded as UTF-16 (``tools/utf16.py``)."""
    whole = len(data) <= room and size <= room
    part = data if whole else data[:room]
    if not whole:
        newline = part.rfind(b"\n")
        if newline >= room // 2:
            part = part[: newline + 1]
    encoding = "utf-16" if is_utf16(part) else "utf-8"  # PowerShell's `>` writes UTF-16
    if b"\0" in part and encoding == "utf-8":
        return None
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    try:
        text = decoder.decode(part, final=whole)
    except UnicodeDecodeError:
        return None
    if "\0" in text:
        return None
    return text, len(text.encode("utf-8"))


def _block(attachment: Attachment, content: str) -> str:
    """One attached file as the model reads it (:func:`fenced`)."""
    if attachment.cut:
        head = (
            f"Attached file {attachment.path} (the first {attachment.sent:,} of "
            f"{attachment.size:,} bytes; read the file for the rest):"
        )
    else:
        head = f"Attached file {attachment.path} ({attachment.size:,} bytes):"
    return fenced(head, content)


TYPED_TRIES = 64
"""Places :func:`split_attached` tries as the end of what was typed (a message quoting
block headers of its own is taken as typed past these)."""
_BLOCK_HEAD = re.compile(
    r"Attached file (?P<path>[^\n]+) \((?:the first (?P<sent>[\d,]+) of )?(?P<size>[\d,]+) "
    r"bytes(?:; read the file for the rest)?\):\n(?P<fence>`{3,})\n"
)


def split_attached(sent: str) -> tuple[str, tuple[str, ...]]:
    """``(what the person typed, each attached file's label)`` from a message as the model
    got it (:func:`prepare`'s ``text``): the text before the attached files' blocks —
    only when everything after it is such blocks and it mentions a file with ``@``.
    A resumed Transcript shows the message as it was shown live (the typed text, then
    ``attached a.py (6 bytes)``), and ``/rewind`` gives it back to send again: its
    mentions attach the files anew, as they are then."""
    at = sent.find("\n\nAttached file ")
    for _ in range(TYPED_TRIES):  # each try reads to the end at most: bounded, not n²
        if at == -1:
            break
        head = sent[:at]
        labels = _blocks(sent, at + 2) if "@" in head else None
        if labels is not None:
            return head, labels
        at = sent.find("\n\nAttached file ", at + 1)
    return sent, ()


def typed_of(sent: str) -> str:
    """What the person typed (:func:`split_attached`)."""
    return split_attached(sent)[0]


def _blocks(sent: str, at: int) -> tuple[str, ...] | None:
    """The labels of the :func:`fenced` blocks of attached files ``sent[at:]`` is made of,
    or ``None`` when it holds anything else (a fence is longer than any run of backticks
    inside, so its first recurrence closes it). Linear: each block is read once."""
    labels: list[str] = []
    while True:
        head = _BLOCK_HEAD.match(sent, at)
        if head is None:
            return None
        fence, body = head["fence"], head.end()
        close = sent.find(fence, body)
        if close == -1 or (close != body and sent[close - 1] != "\n"):
            return None
        cut = f"first {head['sent']} of " if head["sent"] else ""
        labels.append(f"{head['path']} ({cut}{head['size']} bytes)")
        at = close + len(fence)
        if at == len(sent):
            return tuple(labels)
        if not sent.startswith("\n\n", at):
            return None
        at += 2


def fenced(head: str, content: str) -> str:
    """Text attached to a message as the model reads it: a header line, then a fence
    longer than any run of backticks inside (so the content cannot close it)."""
    longest = max((len(m) for m in re.findall(r"`+", content)), default=0)
    fence = "`" * max(3, longest + 1)
    body = content if content.endswith("\n") or not content else content + "\n"
    return f"{head}\n{fence}\n{body}{fence}"


def workspace_files(root: Path, limit: int | None = None, under: str = ".") -> list[str]:
    """Workspace-relative paths for ``@`` completion: not ignored by ``.gitignore``, no
    links, beneath the root; at most ``limit`` (:data:`COMPLETION_MAX` by default; sorted,
    folders walked in name order). ``under``: only that folder's (a path the person typed,
    so held to the rules: none for a folder outside the root, ``.git``, a link, or one
    ``.gitignore`` leaves out)."""
    limit = COMPLETION_MAX if limit is None else limit
    parts = [p for p in under.split("/") if p not in ("", ".")]
    if under.startswith("/") or any(p in ("..", ".git") for p in parts):
        return []
    out: list[str] = []
    try:
        for entry in walk(root, "/".join(parts) or ".", unignored_start=True):
            out.append(entry.rel)
            if len(out) >= limit:
                break
    except OSError:
        return out
    return out


def search_files(
    root: Path, query: str, stop: threading.Event | None = None, limit: int = SEARCH_MAX
) -> tuple[list[str], bool]:
    """Every path :func:`workspace_files` would list from the whole tree, uncut, that holds
    ``query``'s characters in order (``path_query.in_order``), at most ``limit``; and
    whether that is all of them (not when cut at ``limit`` or ended by ``stop``). For ``@``
    completion past a cut listing: a path beyond the first ``COMPLETION_MAX`` is found by
    what is typed of it, without keeping the whole tree's listing."""
    matches = in_order(query)
    out: list[str] = []
    try:
        for entry in walk(root, ".", unignored_start=True, stop=stop):
            if matches(entry.rel.casefold()) is not None:
                out.append(entry.rel)
                if len(out) >= limit:
                    return out, False
    except OSError:
        return out, False
    return out, stop is None or not stop.is_set()
