"""What an image file is, by its first bytes (its signature), whatever its name says.

One home for the signatures: ``@path`` attachments (``app/agent/attachments.py``) send an
image as an image, ``read`` shows one to the model, and an MCP server's image content is
shown only when its bytes are the picture it claims (:func:`image_from_base64`).
"""

from __future__ import annotations

import binascii

from frontier.app.image import IMAGE_READ_MAX, Image

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


def image_from_base64(data: object, name: str) -> Image | str:
    """An image a tool handed over base64-encoded (an MCP server's screenshot), scaled down
    when over what the APIs take (``app/image_fit.py``), or why it is not shown: a server
    is untrusted, and a request carrying bytes that are no image of
    the APIs' four kinds would be refused, and with it every later request of the session.
    The type is read from the bytes, not from what the server claimed."""
    if not isinstance(data, str) or not data:
        return "no image data"
    if len(data) > (IMAGE_READ_MAX + 2) // 3 * 4 + len(data) // 64:  # line breaks allowed
        return f"larger than {IMAGE_READ_MAX:,} bytes"
    try:
        raw = binascii.a2b_base64(data)  # other characters (line breaks) are passed over
    except (binascii.Error, ValueError):
        return "not valid base64"
    if len(raw) > IMAGE_READ_MAX:
        return f"larger than {IMAGE_READ_MAX:,} bytes"
    kind = image_kind(raw)
    if kind is None:
        return "not a PNG, JPEG, GIF or WebP image"
    from frontier.app.image_fit import fitted  # a full-page screenshot: scaled to fit

    fit = fitted(raw, kind)
    if isinstance(fit, str):
        return fit
    return Image(fit.media_type, binascii.b2a_base64(fit.data, newline=False).decode(), name)
