"""The images a request carries: the newest ones, at most :data:`IMAGES_SENT`.

Every image of the history went with every request: a browser session's screenshots (an
MCP server's, four a round) piled up, each a thousand tokens or more again and again, and
past 20 images in one request Anthropic's API takes none over 2,000 pixels a side, so a
request carrying a full-page screenshot was refused — and a refused image turns images off
for the session (``AgentLoop._respond_without_images``). A request carries the newest
images only; each older one stays in the history and the store, named in its item's text
with why it is not sent (as Anthropic's computer-use reference keeps the newest
screenshots). Images are let go :data:`STEP` at a time, so the request's beginning — what
a provider's prompt cache holds — changes once every ten new images, not at each.
"""

from __future__ import annotations

from collections.abc import Sequence

from frontier.app.model.conversation import Item, UserText, image_note

IMAGES_SENT = 20
"""The most images one request carries (Anthropic's API: more, and none may be over
2,000 pixels a side)."""
STEP = 10
"""Images let go at a time (the prompt cache's prefix changes once per ten)."""
NOT_SENT = "no longer sent: only the newest images go with a request; read it again to see it"


def newest_images(items: Sequence[Item]) -> tuple[Item, ...]:
    """``items`` with every image but the newest (at most :data:`IMAGES_SENT`) named in its
    item's text instead of sent. The history itself is not changed."""
    total = sum(len(i.images) for i in items if isinstance(i, UserText))
    if total <= IMAGES_SENT:
        return tuple(items)
    drop = -(-(total - IMAGES_SENT) // STEP) * STEP  # a multiple of STEP
    out: list[Item] = []
    for item in items:
        if drop and isinstance(item, UserText) and item.images:
            gone, kept = item.images[:drop], item.images[drop:]
            drop -= len(gone)
            said = "\n".join(f"{image_note(image)}: {NOT_SENT}" for image in gone)
            item = UserText(f"{item.text}\n{said}" if item.text else said, item.origin, kept)
        out.append(item)
    return tuple(out)


__all__ = ["IMAGES_SENT", "NOT_SENT", "STEP", "newest_images"]
