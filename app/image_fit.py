"""An image made fit for every model API: at most 8,000 pixels a side and
:data:`~frontier.app.image.IMAGE_MAX` bytes.

Anthropic's API refuses an image over 8,000 pixels on a side, or over 5 MB once
base64-encoded; a full-page browser screenshot (an MCP server's: 1280 × 12,000), a
phone's photo (12 MP, 6 MB) or a long diagram was refused — by Frontier before sending
(the bytes), or by the server (the pixels), and a refusal by the server made the session
stop showing images to that model (``app/agent/shown_images.py``). Such an image is
scaled down to fit, with Pillow (imported only for an image, ~25 ms): in its own format
when that fits, else as JPEG (transparency on white), smaller again until it fits. An
image within both bounds is sent byte for byte, as before.

The image is untrusted input (the workspace's, a server's): its size is read from its
header before anything is decoded, and one over :data:`MAX_PIXELS` is refused, not
decoded (a "decompression bomb" of a few KB that decodes to gigabytes).
"""

from __future__ import annotations

import io

from frontier.app.image import IMAGE_MAX
from frontier.app.record import field, record

MAX_SIDE = 8000
"""The most pixels on a side every API takes (Anthropic's limit)."""
MAX_PIXELS = 100_000_000
"""The most pixels decoded to scale an image down (a 10,000 × 10,000 image: 400 MB as
RGBA while it is scaled); larger is refused from its header."""
_OWN = {"image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WEBP", "image/gif": "PNG"}
"""The format an image is written back in when scaled: its own (a GIF as PNG: one frame)."""
_STEPS = 6
"""Times an image is made smaller still (each to 3/4 a side) before it is given up."""


@record
class Fitted:
    """The image as it may be sent."""

    data: bytes = field(repr=False)
    media_type: str
    done: str = ""
    """``""``: the file as it was; else what was done (``scaled to 1280×8000``)."""


def fitted(data: bytes, media_type: str) -> Fitted | str:
    """``data`` (an image of ``media_type``) as every API takes it, or why it cannot be.
    Within the bytes and with a header that says it is within the sides, it is the file
    as it is, Pillow never imported. A header this does not read is Pillow's to read: a
    PNG signature and 100 zero bytes passed as an image, and a request carrying a
    non-image is refused by the server, and with it every later request of the session."""
    size = header_size(data, media_type)
    if size is not None and min(size) == 0:
        return "not an image that can be read (its header says it has no pixels)"
    if len(data) <= IMAGE_MAX and size is not None and max(size) <= MAX_SIDE:
        return Fitted(data, media_type)
    if size is not None and size[0] * size[1] > MAX_PIXELS:
        return _too_many(*size)
    try:
        from PIL import Image as Pil
        from PIL import UnidentifiedImageError
    except ImportError:  # pragma: no cover - Pillow is a dependency
        if len(data) <= IMAGE_MAX:
            return Fitted(data, media_type)
        return f"{len(data):,} bytes, over the {IMAGE_MAX:,} the models' APIs take"
    try:
        with Pil.open(io.BytesIO(data)) as image:  # the header only, until load()
            width, height = image.size
            if len(data) <= IMAGE_MAX and max(width, height) <= MAX_SIDE:
                return Fitted(data, media_type)
            if width * height > MAX_PIXELS:
                return _too_many(width, height)
            return _scaled(image, media_type)
    except Pil.DecompressionBombError:
        return f"more than {MAX_PIXELS:,} pixels, too many to scale down"
    except (OSError, ValueError, UnidentifiedImageError):
        return "not an image that can be read (damaged, or a kind Pillow does not know)"


def _too_many(width: int, height: int) -> str:
    return f"{width:,}×{height:,} pixels, too large to scale down (at most {MAX_PIXELS:,} pixels)"


def _scaled(image: object, media_type: str) -> Fitted | str:
    from PIL import Image as Pil

    assert isinstance(image, Pil.Image)
    width, height = image.size
    factor = min(1.0, MAX_SIDE / max(width, height))
    if image.format == "JPEG":  # decoded at a fraction of its size already, when it can
        image.draft("RGB", (round(width * factor), round(height * factor)))
    image.load()
    from PIL import ImageOps

    image = ImageOps.exif_transpose(image)  # a phone's photo stands as it was taken
    if image.mode not in ("RGB", "RGBA", "L", "LA"):
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
    factor = min(1.0, MAX_SIDE / max(image.size))
    own = _OWN.get(media_type, "PNG")
    for _ in range(_STEPS):
        size = (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
        smaller = image.resize(size, Pil.Resampling.LANCZOS) if factor < 1 else image
        for kind in dict.fromkeys((own, "JPEG")):
            data = _encoded(smaller, kind)
            if len(data) <= IMAGE_MAX:
                mime = "image/jpeg" if kind == "JPEG" else f"image/{kind.lower()}"
                return Fitted(data, mime, f"scaled to {size[0]}×{size[1]}")
        factor *= 0.75
    return f"still over {IMAGE_MAX:,} bytes at {width}×{height}, scaled down {_STEPS} times"


def _encoded(image: object, kind: str) -> bytes:
    from PIL import Image as Pil

    assert isinstance(image, Pil.Image)
    if kind == "JPEG" and image.mode != "RGB":
        flat = Pil.new("RGB", image.size, "white")
        rgba = image.convert("RGBA")
        flat.paste(rgba, mask=rgba.getchannel("A"))
        image = flat
    out = io.BytesIO()
    image.save(out, kind, **({"quality": 85} if kind in ("JPEG", "WEBP") else {}))
    return out.getvalue()


_SOF = frozenset({*range(0xC0, 0xC4), *range(0xC5, 0xC8), *range(0xC9, 0xCC), *range(0xCD, 0xD0)})
"""JPEG's start-of-frame markers (the ones that say the image's size)."""


def header_size(data: bytes, media_type: str) -> tuple[int, int] | None:
    """``(width, height)`` as the image's header says them, read without decoding it
    (PNG's IHDR, GIF's screen, WebP's VP8/VP8L/VP8X, JPEG's frame marker: linear, bounded
    by the bytes); ``None`` when the header is not one this reads."""
    if media_type == "image/png" and data[12:16] == b"IHDR" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if media_type == "image/gif" and len(data) >= 10:
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    if media_type == "image/webp" and len(data) >= 30:
        chunk = data[12:16]
        if chunk == b"VP8X":
            width = int.from_bytes(data[24:27], "little") + 1
            return width, int.from_bytes(data[27:30], "little") + 1
        if chunk == b"VP8L":
            bits = int.from_bytes(data[21:25], "little")
            return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        if chunk == b"VP8 ":
            width = int.from_bytes(data[26:28], "little") & 0x3FFF
            return width, int.from_bytes(data[28:30], "little") & 0x3FFF
        return None
    if media_type == "image/jpeg":
        return _jpeg_size(data)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 4 <= len(data):
        if data[at] != 0xFF:
            return None
        marker = data[at + 1]
        if marker == 0xFF:  # fill
            at += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:  # no length
            at += 2
            continue
        if marker in _SOF and at + 9 <= len(data):
            height = int.from_bytes(data[at + 5 : at + 7], "big")
            return int.from_bytes(data[at + 7 : at + 9], "big"), height
        at += 2 + int.from_bytes(data[at + 2 : at + 4], "big")
    return None
