"""What an image file is, by its first bytes (its signature), whatever its name says.

One home for the signatures: ``@path`` attachments (``app/agent/attachments.py``) send an
image as an image, and ``read`` names one rather than calling it binary.
"""

from __future__ import annotations

_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_kind(data: bytes) -> str | None:
    """The image type ``data`` begins as (``image/png``, ``image/jpeg``, ``image/gif``,
    ``image/webp``: every model API's set), or ``None``."""
    for magic, kind in _SIGNATURES:
        if data.startswith(magic):
            return kind
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None
