"""The prompts a person typed, per workspace: what ↑/↓ and ctrl+r recall in the TUI.

Kept apart from the session store on purpose. The store records *sessions* (and a
resumed one shows its own conversation); recall is about the *workspace* — the
prompt typed yesterday in this project, in another session, is the one wanted
today. So each workspace has one small JSON-lines file under the data dir:

    <data dir>/prompt-history/<folder name>-<sha256 of the path, 16 hex>.jsonl

one ``{"t": unix time, "text": ...}`` object per line, appended as prompts are
sent (``O_APPEND``: two Frontiers in one workspace interleave whole lines), the
file ``0600`` in a ``0700`` folder. The demo's scratch workspaces are new on every
run, so they share one history (key ``"demo"``).

Bounds, so a long life or a hostile file costs nothing: the newest
:data:`HISTORY_MAX` prompts are kept (the file is rewritten with just those once
it holds twice as many); a prompt over :data:`ENTRY_MAX` characters (a big paste)
is not remembered; at most :data:`READ_MAX` bytes are read from the end of the
file, and a line that is not a JSON object with a string ``text`` is skipped.

Every prompt passes the session's :class:`~frontier.app.secrets.Scrubber` before it
is kept — in memory too, so what ↑ recalls now is what it recalls after a
restart: a key pasted into a prompt never reaches the disk.

A history that cannot be written (a read-only data dir) keeps working in memory
and says why once in :attr:`PromptHistory.problem`; it never fails a send.
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from frontier.app.files import write_atomic
from frontier.app.hashes import sha256_hex
from frontier.app.secrets import Scrubber

HISTORY_DIR = "prompt-history"
"""Under the data dir."""
HISTORY_MAX = 500
"""Prompts kept per workspace (the newest)."""
ENTRY_MAX = 64 * 1024
"""Characters: a longer prompt (a pasted log) is sent but not remembered."""
READ_MAX = 4 * 1024 * 1024
"""Bytes read from the end of a history file when it is loaded."""
DEMO_KEY = "demo"
"""The key every demo workspace shares (each run gets a fresh scratch copy)."""

_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def history_path(key: str, directory: Path | None = None) -> Path:
    """Where the history of workspace ``key`` (its resolved path, or ``"demo"``) lives."""
    if directory is None:
        from frontier.app.config import data_dir

        directory = data_dir() / HISTORY_DIR
    digest = sha256_hex(key.encode("utf-8", "surrogateescape"))[:16]
    name = _SLUG.sub("_", Path(key).name or "root").strip("._")[:40] or "workspace"
    return directory / f"{name}-{digest}.jsonl"


class PromptHistory:
    """A workspace's typed prompts, oldest first; ``path=None`` keeps them in memory only."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        scrubber: Scrubber | None = None,
        cap: int = HISTORY_MAX,
    ) -> None:
        self.path = path
        self.scrubber = scrubber if scrubber is not None else Scrubber()
        self.cap = cap
        self.problem: str | None = None
        """Why the file could not be read or written (the history then lives in memory)."""
        self._entries: list[str] = []
        self._lines = 0
        """Lines in the file now (compaction rewrites it once this reaches ``2 * cap``)."""
        if path is not None:
            self._load(path)

    @classmethod
    def for_workspace(
        cls, key: str, *, scrubber: Scrubber | None = None, directory: Path | None = None
    ) -> PromptHistory:
        """The history of the workspace at ``key`` (a resolved path, or :data:`DEMO_KEY`)."""
        return cls(history_path(key, directory), scrubber=scrubber)

    # ------------------------------------------------------------------ reading
    def entries(self) -> list[str]:
        """Every remembered prompt, oldest first (↑ walks it from the end)."""
        return list(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def search(self, query: str) -> list[str]:
        """Prompts containing ``query`` (case-insensitive), newest first, each once:
        what ctrl+r lists."""
        needle = query.casefold()
        seen: set[str] = set()
        found: list[str] = []
        for text in reversed(self._entries):
            if text in seen or needle not in text.casefold():
                continue
            seen.add(text)
            found.append(text)
        return found

    def _load(self, path: Path) -> None:
        try:
            with path.open("rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                if size > READ_MAX:
                    handle.seek(size - READ_MAX)
                    handle.readline()  # a partial first line is not an entry
                data = handle.read(READ_MAX)
        except FileNotFoundError:
            return
        except OSError as exc:
            self.problem = f"cannot read the prompt history {path}: {exc.strerror or exc}"
            return
        entries: list[str] = []
        for line in data.splitlines():
            self._lines += 1
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):  # not JSON, or nested past the stack
                continue
            if isinstance(obj, dict) and isinstance(obj.get("text"), str) and obj["text"]:
                entries.append(obj["text"])
        self._entries = entries[-self.cap :]

    # ------------------------------------------------------------------ writing
    def add(self, text: str) -> str | None:
        """Remember ``text`` (scrubbed); returns what was kept, or ``None`` when nothing
        was: blank, over :data:`ENTRY_MAX`, or the same as the newest entry."""
        if not text.strip() or len(text) > ENTRY_MAX:
            return None
        kept = self.scrubber.scrub(text)
        if self._entries and self._entries[-1] == kept:
            return None
        self._entries.append(kept)
        del self._entries[: -self.cap]
        if self.path is not None and self.problem is None:
            self._append(self.path, kept)
        return kept

    def forget(self, texts: set[str]) -> int:
        """Drop every entry equal to one of ``texts`` (a deleted session's prompts) and
        rewrite the file without them; how many went."""
        kept = [e for e in self._entries if e not in texts]
        gone = len(self._entries) - len(kept)
        if gone:
            self._entries = kept
            if self.path is not None and self.problem is None:
                self._compact(self.path)
        return gone

    def _append(self, path: Path, text: str) -> None:
        line = json.dumps({"t": round(time.time(), 3), "text": text}, ensure_ascii=False) + "\n"
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                os.write(fd, line.encode("utf-8", "surrogateescape"))
            finally:
                os.close(fd)
            self._lines += 1
            if self._lines >= 2 * self.cap:
                self._compact(path)
        except OSError as exc:
            self.problem = f"cannot write the prompt history {path}: {exc.strerror or exc}"

    def _compact(self, path: Path) -> None:
        """Rewrite the file with the newest ``cap`` entries (``app/files.write_atomic``:
        a crash leaves the old file or the new one, never half of one; private, 0600)."""
        now = round(time.time(), 3)
        body = "".join(
            json.dumps({"t": now, "text": text}, ensure_ascii=False) + "\n"
            for text in self._entries
        )
        write_atomic(path, body, mode=0o600)
        self._lines = len(self._entries)
