"""An image shown to the model: one the person attached, or one a tool read.

Its own module because both sides hold it: the conversation (``model/conversation.py``)
sends it, and a tool's result (``tools/base.Outcome``, ``events.ToolResult``) carries the
one ``read`` found, and tools never import the model layer.
"""

from __future__ import annotations

from frontier.app.record import field, record

IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
"""The image formats every wire's API takes (OpenAI's and Anthropic's common set)."""
IMAGES_SHOWN = 4
"""Images a round's tools show the model (and one result holds): each goes again with every
later request, up to 5 MB each."""
IMAGE_MAX = 3_750_000
"""Bytes of one image shown to the model: base64 makes it 5,000,000, Anthropic's limit per
image."""
IMAGE_READ_MAX = 32 * 1024 * 1024
"""The largest image file read to be made fit (scaled down: ``app/image_fit.py``)."""


@record
class Image:
    """An image for the model (a screenshot, a diagram)."""

    media_type: str
    """One of :data:`IMAGE_TYPES`."""
    data: str = field(repr=False)
    """The image's bytes, base64-encoded (as every API takes them); left out of the
    repr (a log line or a failed assertion would print megabytes)."""
    name: str = ""
    """The workspace path it came from (shown, never sent as the image)."""

    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.data}"

    def size(self) -> int:
        """The image's bytes (base64's length says them exactly)."""
        padding = len(self.data) - len(self.data.rstrip("="))
        return len(self.data) * 3 // 4 - padding


__all__ = ["IMAGES_SHOWN", "IMAGE_MAX", "IMAGE_READ_MAX", "IMAGE_TYPES", "Image"]
