"""What the slash commands ask of a session, below the façade: switch the model, clear or
compact the context, the session's whole diff (issue 23).

``AgentSession`` keeps its methods thin (``switch_model``, ``clear_context``,
``compact``, ``diff``); the work is here, against small Protocols of the loop, so a
test's scripted loop offers only what it needs and a loop without a history (none
today) is told "not available" instead of failing at run time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from frontier.app.model.conversation import Item
from frontier.app.record import record

if TYPE_CHECKING:
    from frontier.app.agent.budget import ContextBudget
    from frontier.app.config import Config
    from frontier.app.model.request import ModelRequest
    from frontier.app.session.store import SessionStore
    from frontier.tools.contract import FilePreview


@runtime_checkable
class HistoryLoop(Protocol):
    """A loop whose conversation can be replaced (``/clear``)."""

    history: list[Item]

    def replace_history(self, items: Sequence[Item]) -> None: ...


@runtime_checkable
class CompactingLoop(Protocol):
    """A loop that can compact its history on request (``/compact``)."""

    async def compact_now(self) -> bool: ...


@runtime_checkable
class RequestingLoop(Protocol):
    """A loop that can say what its next request holds (``/context``)."""

    instructions: str
    """The project's instructions section of the system prompt."""

    def request(self) -> ModelRequest: ...


@record
class ModelSwitched:
    """What a model switch made: the session's new facts, and the new client's closer."""

    model: str
    wire: str
    provider: str | None = None
    base_url: str | None = None
    """Shown without credentials (the store's ``sanitize_url``)."""
    budget: ContextBudget | None = None
    """The new model's context budget (its window is the new model's)."""
    closer: Callable[[], Awaitable[None] | None] | None = None
    notes: tuple[str, ...] = ()
    settings: Config | None = None
    """The settings the new client was made from (``AgentSession.settings``)."""


ModelSwitcher = Callable[[str, str | None], Awaitable[ModelSwitched]]
"""``switch(model, provider) -> ModelSwitched``: given to the session by
``create_runtime`` (``runtime.py``); it builds the client through the wire registry,
gives it to the loop and records the model in the store. Raises ``ValueError`` /
``ConfigError`` with a message for the user, having changed nothing."""


@record
class Cleared:
    """``/clear``: how much the model forgot (the session's record keeps it all)."""

    items: int
    """History items the model no longer gets."""


@record
class SessionDiff:
    """Every file the session changed, from before its first change to now."""

    files: tuple[FilePreview, ...]
    notes: tuple[str, ...] = ()
    """Files that could not be shown, and why (their earlier content was not kept…)."""

    @property
    def text(self) -> str:
        """One unified diff (what is copied)."""
        return "".join(f.diff if f.diff.endswith("\n") else f.diff + "\n" for f in self.files)


def clear_history(loop: object, store: SessionStore | None, session_id: str) -> Cleared:
    """Give the model an empty conversation from the next request on, recorded as a
    compaction that replaces every stored item with none — so a resumed session sends
    the same (``Compactions.history``) and the timeline, the export and undo keep all."""
    if not isinstance(loop, HistoryLoop):
        raise ValueError("this session's loop keeps no history to clear")
    forgotten = len(loop.history)
    if store is not None:
        store.compactions.add(
            session_id,
            "summary",  # the schema's steps; detail.reason says it was /clear
            [],
            {"reason": "clear", "before": None, "after": 0, "rounds": 0, "items": forgotten},
        )
    loop.replace_history([])
    return Cleared(forgotten)


def session_diff(store: SessionStore, session_id: str, root: Path) -> SessionDiff:
    """Each file a call of the session wrote (the model's edits and undos alike), from its
    content before the session's first write to it (a kept pre-image, or absent) to the
    file as it is now. A file back to where it started is left out. Reads the store and
    the files: call it off the event loop."""
    from frontier.app.agent.undo import wrote_files
    from frontier.tools import beneath
    from frontier.tools.diffing import file_preview

    first: dict[str, str | None] = {}
    for call in store.ledger.calls(session_id):
        if not wrote_files(call):
            continue
        for target in call.targets:
            first.setdefault(target.path, target.pre)
    files: list[FilePreview] = []
    notes: list[str] = []
    for path, pre in first.items():
        before: bytes | None = None
        if pre is not None:
            before = store.preimages.get(pre)
            if before is None:
                status = store.preimages.status(pre)
                why = status.skipped if status is not None and status.skipped else "not kept"
                notes.append(f"{path}: its content before this session is not kept ({why})")
                continue
        try:
            now, _ = beneath.read_file(root, path)
        except (OSError, ValueError) as exc:
            notes.append(f"{path}: cannot be read now ({exc})")
            continue
        if now == before:
            continue
        files.append(file_preview(path, before, now))
    return SessionDiff(tuple(files), tuple(notes))


__all__ = [
    "Cleared",
    "CompactingLoop",
    "HistoryLoop",
    "ModelSwitched",
    "ModelSwitcher",
    "RequestingLoop",
    "SessionDiff",
    "clear_history",
    "session_diff",
]
