"""Messages typed while the agent works: held for the loop's next request boundary.

The front end adds and edits them through ``AgentSession`` (``queue``, ``edit_queued``,
``remove_queued``); the loop takes them all at once, as one user message, between a
round's results and the next request (``AgentLoop.inbox``). One object owned by neither,
so the loop gets it at construction (docs/decisions-tui.md, "Queued messages").
"""

from __future__ import annotations

import itertools
from pathlib import Path

from frontier.app.agent.attachments import mark_seen, prepare
from frontier.app.events import QueuedDelivered
from frontier.app.model.conversation import Image
from frontier.app.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from frontier.tools.file_views import FileViews


class NotQueued(LookupError):
    """A queued message that is no longer queued: it was delivered (or removed) meanwhile."""


@record
class QueuedMessage:
    """A message typed while the agent works, waiting for the next request."""

    id: int
    """Stable for the session (1, 2, ...): what ``edit_queued`` / ``remove_queued`` name."""
    text: str
    """As typed; ``@path`` mentions are attached when it is delivered."""


@record
class Delivery:
    """Everything queued, as one user message: its text, its images, and the event that
    tells the front ends."""

    content: str
    images: tuple[Image, ...]
    event: QueuedDelivered


class MessageQueue:
    """What waits for the next request, oldest first (see the module doc)."""

    def __init__(self, workspace: Path, views: FileViews | None = None) -> None:
        self.workspace = workspace
        """Where ``@path`` mentions are read from when the messages are delivered."""
        self.views = views
        """What the model has seen of each file, which a file sent whole joins."""
        self._items: list[QueuedMessage] = []
        self._ids = itertools.count(1)

    def add(self, text: str) -> QueuedMessage:
        message = QueuedMessage(next(self._ids), text)
        self._items.append(message)
        return message

    def items(self) -> tuple[QueuedMessage, ...]:
        return tuple(self._items)

    def edit(self, message_id: int, text: str) -> QueuedMessage:
        for i, message in enumerate(self._items):
            if message.id == message_id:
                self._items[i] = QueuedMessage(message_id, text)
                return self._items[i]
        raise NotQueued(f"queued message {message_id} was already delivered")

    def remove(self, message_id: int) -> QueuedMessage:
        for i, message in enumerate(self._items):
            if message.id == message_id:
                return self._items.pop(i)
        raise NotQueued(f"queued message {message_id} was already delivered")

    # ------------------------------------------------------------------ the loop's side

    def waiting(self) -> bool:
        return bool(self._items)

    def take(self) -> Delivery | None:
        """Everything queued as one user message (files attached as of now); ``None``
        when nothing was queued."""
        taken, self._items = self._items, []
        if not taken:
            return None
        prepared = [mark_seen(prepare(self.workspace, m.text), self.views) for m in taken]
        content = "\n\n".join(p.text for p in prepared)
        notes = tuple(note for p in prepared for note in p.notes())
        images = tuple(image for p in prepared for image in p.images)
        return Delivery(content, images, QueuedDelivered(tuple(m.text for m in taken), notes))


__all__ = ["Delivery", "MessageQueue", "NotQueued", "QueuedMessage"]
