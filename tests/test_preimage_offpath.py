"""Pre-images off the confirm → start path (issue 24): the call row carries a placeholder,
the bytes are scanned and kept after the tool started, before its result commits — and a
file holding a secret is still never kept, whatever its size or when the secret came.

Every call runs through a real ``ToolBoundary`` on a real ``SessionStore`` (WAL, fsync).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from frontier.app.events import Event, ToolCall, ToolResult, ToolStarted
from frontier.app.session import preimages
from frontier.app.session.db import StoreError
from frontier.app.session.store import SessionStore
from frontier.tools.boundary import ToolBoundary
from frontier.tools.contract import Decision, FilePreview, Preview, ToolSpec
from frontier.tools.registry import default_registry

SECRET = "api_key=sk12345678secretvalue"
MIB = 1024 * 1024


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Person:
    """Approves every call; ``meanwhile`` runs while the review is open."""

    def __init__(self) -> None:
        self.meanwhile: Callable[[], None] | None = None

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        if self.meanwhile is not None:
            self.meanwhile()
        return Decision(True)


class Session:
    """A stored session whose calls run through the real boundary."""

    def __init__(self, store: SessionStore, ws: Path) -> None:
        self.store = store
        self.ws = ws
        self.sid = store.create_session(str(ws), "test-model", None, "ctl")
        self.person = Person()
        self.at_start: Callable[[ToolCall], object] | None = None
        self.boundary = ToolBoundary(
            default_registry(), ws, self.person, store.persistence(self.sid), emit=self._seen
        )
        self._n = 0

    def _seen(self, event: Event) -> None:
        if isinstance(event, ToolStarted) and self.at_start is not None:
            self.at_start(event.call)

    async def run(self, name: str, **args: Any) -> ToolResult:
        self._n += 1
        return await self.boundary.run(ToolCall(f"c{self._n}", name, args))

    def row(self, digest: str) -> tuple[bytes | None, str | None] | None:
        found = self.store.db.read("SELECT body, skipped FROM preimages WHERE hash = ?", (digest,))
        if not found:
            return None
        body, skipped = found[0]
        return (bytes(body) if body is not None else None), skipped

    def blobs(self) -> bytes:
        rows = self.store.db.read("SELECT body FROM preimages WHERE body IS NOT NULL")
        return b"".join(bytes(r[0]) for r in rows)


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    ws = tmp_path / "ws"
    ws.mkdir()
    with SessionStore.open(tmp_path / "sessions.db") as store:
        yield Session(store, ws)


def big_text(size: int, *, secret_at: int | None = None) -> bytes:
    """``size`` bytes of source-like lines; ``SECRET`` on its own line near ``secret_at``."""
    line = b"value = compute(alpha, beta, gamma)  # an ordinary line of code\n"
    body = bytearray(line * (size // len(line) + 1))
    if secret_at is not None:
        start = body.index(b"\n", secret_at) + 1
        body[start : start + len(SECRET) + 1] = SECRET.encode() + b"\n"
    return bytes(body[: size - 6]) + b"first\n"


async def test_the_call_row_carries_no_bytes_and_the_result_comes_after_they_are_kept(
    session: Session,
) -> None:
    data = big_text(4 * MIB)
    (session.ws / "big.py").write_bytes(data)
    seen_at_start: list[Any] = []
    session.at_start = lambda call: seen_at_start.append(session.row(sha(data)))

    result = await session.run("replace", path="big.py", old="first\n", new="FIRST\n")

    assert result.ok, result.output
    # when the tool started, the store had only a placeholder: nothing read, scanned or
    # written that grows with the file sat between the confirmation and the start
    assert seen_at_start == [(None, preimages.PENDING)]
    # by the time the result was committed, the 4 MiB version was kept, byte for byte
    assert session.row(sha(data)) == (data, None)
    assert session.store.preimages.get(sha(data)) == data


async def test_a_secret_in_a_4_mib_file_is_never_kept(session: Session) -> None:
    data = big_text(4 * MIB, secret_at=3 * MIB)
    assert len(data) == 4 * MIB == preimages.FILE_CAP  # at the cap: scanned, not skipped
    (session.ws / "config.py").write_bytes(data)

    result = await session.run("replace", path="config.py", old="first\n", new="FIRST\n")

    assert result.ok, result.output
    status = session.store.preimages.status(sha(data))
    assert status is not None and not status.kept
    assert "holds a secret" in (status.skipped or "")
    assert SECRET.encode() not in session.blobs()


async def test_a_file_that_gains_a_secret_during_the_review_is_not_kept(
    session: Session,
) -> None:
    path = session.ws / "settings.py"
    clean = big_text(MIB)
    path.write_bytes(clean)

    def add_secret() -> None:  # someone edits the file while the diff is on screen
        path.write_bytes(clean + SECRET.encode() + b"\n")

    session.person.meanwhile = add_secret

    result = await session.run("replace", path="settings.py", old="first\n", new="FIRST\n")

    assert not result.ok and "changed since review" in result.output
    assert path.read_bytes() == clean + SECRET.encode() + b"\n"  # nothing written
    assert SECRET.encode() not in session.blobs()  # the file as it is now was never read in
    # what may be kept is what was scanned: the reviewed bytes, secret-free
    assert session.row(sha(clean + SECRET.encode() + b"\n")) is None


async def test_a_file_that_gains_a_secret_between_the_scan_and_the_write_keeps_the_scanned_bytes(
    session: Session,
) -> None:
    """The write gets past its own check, then the file on disk gains a secret (after the
    start, while the pre-image is being kept): the store holds the bytes scanned, never
    the file's newer content."""
    path = session.ws / "app.py"
    clean = big_text(MIB)
    path.write_bytes(clean)
    dirty = clean + SECRET.encode() + b"\n"
    session.at_start = lambda call: path.write_bytes(dirty)

    result = await session.run("replace", path="app.py", old="first\n", new="FIRST\n")

    # the writer re-checks the reviewed hash under its lock: the changed file is not
    # overwritten, and the pre-image kept is the reviewed content, byte for byte
    assert not result.ok and "changed since review" in result.output
    assert session.row(sha(clean)) == (clean, None)
    assert session.row(sha(dirty)) is None
    assert SECRET.encode() not in session.blobs()


async def test_a_secret_the_store_learns_after_the_call_row_still_keeps_the_file_out(
    session: Session,
) -> None:
    """The verdict is made when the bytes are stored, with every secret known by then (a
    key resolved while the call was starting), not with what was known at the call row."""
    token = "zq-Opaque-Token-0042"
    data = big_text(MIB) + f"token for the staging box: {token}\n".encode()
    (session.ws / "notes.py").write_bytes(data)
    session.at_start = lambda call: session.store.db.scrubber.add(token)

    result = await session.run("replace", path="notes.py", old="first\n", new="FIRST\n")

    assert result.ok, result.output
    status = session.store.preimages.status(sha(data))
    assert status is not None and not status.kept and "holds a secret" in (status.skipped or "")
    assert token.encode() not in session.blobs()


async def test_a_secret_the_model_wrote_is_not_kept_by_the_next_edit(session: Session) -> None:
    path = session.ws / "env.py"
    path.write_bytes(b"HOST = 'x'\n")
    assert (await session.run("replace", path="env.py", old="HOST", new=SECRET + "\nHOST")).ok
    with_secret = path.read_bytes()

    assert (await session.run("replace", path="env.py", old="HOST", new="NAME")).ok

    status = session.store.preimages.status(sha(with_secret))
    assert status is not None and not status.kept and "holds a secret" in (status.skipped or "")
    assert session.store.preimages.get(sha(b"HOST = 'x'\n")) == b"HOST = 'x'\n"
    assert SECRET.encode() not in session.blobs()


def preview_of(path: str, old: bytes, *, digest: str | None = None) -> Preview:
    f = FilePreview(
        path=path,
        old_text=old.decode(),
        new_text="",
        diff="",
        old_hash=digest or sha(old),
        new_hash=sha(b""),
        old_bytes=old,
    )
    return Preview(kind="diff", files=(f,))


def edit_spec() -> ToolSpec:
    tool = default_registry().get("write")
    assert tool is not None and tool.spec.mutates
    return tool.spec


def test_bytes_that_do_not_match_their_hash_are_not_kept(session: Session) -> None:
    persistence = session.store.persistence(session.sid)
    claimed = sha(b"what the review showed\n")
    preview = preview_of("a.py", b"something else\n", digest=claimed)

    persistence.persist_and_start(ToolCall("c1", "write", {}), edit_spec(), preview)
    persistence.keep_preimages("c1")

    assert session.row(claimed) == (None, "its bytes did not match the hash the call recorded")


def test_a_crash_before_the_bytes_are_kept_leaves_a_row_that_says_so(session: Session) -> None:
    persistence = session.store.persistence(session.sid)
    old = b"print('before')\n"
    preview = preview_of("a.py", old)

    persistence.persist_and_start(ToolCall("c1", "write", {}), edit_spec(), preview)
    # Frontier dies here: the call row is durable, keep_preimages never ran
    status = session.store.preimages.status(sha(old))
    assert status is not None and not status.kept and status.skipped == preimages.PENDING

    # a later call that has the same version keeps it then
    later = session.store.persistence(session.sid)
    later.persist_and_start(ToolCall("c2", "write", {}), edit_spec(), preview)
    later.keep_preimages("c2")
    assert session.store.preimages.get(sha(old)) == old


def test_the_result_never_commits_before_the_pre_images(session: Session) -> None:
    """A caller that does not run ``keep_preimages`` itself (a wrapper, a test, another
    frontend) still gets them kept: ``commit_result`` keeps them first."""
    persistence = session.store.persistence(session.sid)
    old = b"x = 1\n"
    persistence.persist_and_start(ToolCall("c1", "write", {}), edit_spec(), preview_of("a", old))

    persistence.commit_result(ToolResult("c1", "write", "ok", "wrote a"))

    assert session.store.preimages.get(sha(old)) == old


async def test_a_store_that_cannot_keep_them_ends_the_turn_saying_the_tool_ran(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(files: object) -> None:
        raise StoreError("disk I/O error while saving preimages")

    monkeypatch.setattr(session.store.preimages, "keep", broken)
    (session.ws / "a.py").write_bytes(b"first\n")

    result = await session.run("replace", path="a.py", old="first\n", new="FIRST\n")

    assert result.kind == "session_persistence_failed"
    assert "could not keep the files' earlier content" in result.output
    assert "the tool ran (outcome ok)" in result.output
    assert (session.ws / "a.py").read_bytes() == b"FIRST\n"  # it did run: said, not hidden
