"""An image over what the models' APIs take (5 MB base64, 8,000 pixels a side) is scaled
down to fit (``app/image_fit.py``) wherever one is shown to the model — attached by the
person, read by the model, handed over by an MCP server — where it was refused (by
Frontier, or by the server, which then turned images off for the session). One within the
bounds is sent byte for byte; one whose header claims more pixels than can be decoded
safely is refused before it is decoded.
"""

from __future__ import annotations

import base64
import io
import os
import struct
import zlib
from pathlib import Path

from PIL import Image as Pil
from test_tools_fakes import call, make_boundary

from frontier.app.image import IMAGE_MAX
from frontier.app.image_fit import MAX_PIXELS, MAX_SIDE, Fitted, fitted, header_size


def encoded(image: Pil.Image, kind: str) -> bytes:
    out = io.BytesIO()
    image.save(out, kind)
    return out.getvalue()


def size_of(data: bytes) -> tuple[int, int]:
    with Pil.open(io.BytesIO(data)) as image:
        return image.size


def test_an_image_within_the_bounds_is_sent_as_it_is() -> None:
    data = encoded(Pil.new("RGB", (1920, 1080), "navy"), "PNG")
    fit = fitted(data, "image/png")
    assert fit == Fitted(data, "image/png", "")


def test_a_full_page_screenshot_is_scaled_to_8000_pixels() -> None:
    """1280 × 12,000 (a browser's full page): under 5 MB, over the 8,000 pixels Anthropic
    takes; in its own format, scaled to fit."""
    data = encoded(Pil.new("RGB", (1280, 12_000), "white"), "PNG")
    fit = fitted(data, "image/png")
    assert isinstance(fit, Fitted) and fit.media_type == "image/png"
    assert size_of(fit.data) == (853, MAX_SIDE) and fit.done == "scaled to 853×8000"


def test_a_photo_over_the_bytes_becomes_a_jpeg_that_fits() -> None:
    noise = Pil.frombytes("RGB", (1600, 1200), os.urandom(1600 * 1200 * 3))  # ~5.8 MB as PNG
    data = encoded(noise, "PNG")
    assert len(data) > IMAGE_MAX
    fit = fitted(data, "image/png")
    assert isinstance(fit, Fitted) and len(fit.data) <= IMAGE_MAX
    assert fit.media_type in ("image/png", "image/jpeg") and fit.done.startswith("scaled to ")
    transparent = Pil.frombytes("RGBA", (1600, 1200), os.urandom(1600 * 1200 * 4))
    fit = fitted(encoded(transparent, "PNG"), "image/png")
    assert isinstance(fit, Fitted) and len(fit.data) <= IMAGE_MAX


def bomb(width: int, height: int) -> bytes:
    """A valid PNG header claiming ``width`` × ``height``, a few bytes of data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b""))
        + (chunk(b"IEND", b""))
    )


def test_a_header_claiming_too_many_pixels_is_refused_before_decoding() -> None:
    data = bomb(50_000, 50_000)
    assert header_size(data, "image/png") == (50_000, 50_000)
    why = fitted(data, "image/png")
    assert isinstance(why, str) and f"at most {MAX_PIXELS:,} pixels" in why
    assert isinstance(fitted(bomb(9_000, 10), "image/png"), str)  # claims, but holds nothing


def test_header_sizes_of_the_four_kinds() -> None:
    for kind, mime in (("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"),
                       ("WEBP", "image/webp")):  # fmt: skip
        data = encoded(Pil.new("RGB", (321, 7_001), "red"), kind)
        assert header_size(data, mime) == (321, 7_001), kind
    assert header_size(b"\xff\xd8\xff" + b"\x00" * 20, "image/jpeg") is None


async def test_every_way_an_image_reaches_the_model_scales_it(tmp_path: Path) -> None:
    """Read by the model, attached by the person, handed over by an MCP server."""
    from frontier.app.agent.attachments import prepare
    from frontier.tools.image_kind import image_from_base64

    tall = encoded(Pil.new("RGB", (1000, 9_000), "white"), "PNG")
    (tmp_path / "page.png").write_bytes(tall)
    read = await make_boundary(tmp_path).run(call("read", 1, path="page.png"))
    assert read.kind == "ok" and "scaled to 889×8000 to fit" in read.output, read.output
    (shown,) = read.images
    assert size_of(base64.b64decode(shown.data)) == (889, 8000)

    prepared = prepare(tmp_path, "look at @page.png")
    (attached,) = prepared.images
    assert size_of(base64.b64decode(attached.data)) == (889, 8000) and not prepared.problems
    assert prepared.notes() == [  # the person is told, in the transcript
        f"attached page.png (image/png, {len(tall):,} bytes, scaled to 889×8000 to fit what "
        "the models' APIs take)"
    ]

    from_server = image_from_base64(base64.b64encode(tall).decode(), "shot")
    assert not isinstance(from_server, str)
    assert size_of(base64.b64decode(from_server.data)) == (889, 8000)


def test_a_phone_photo_keeps_the_way_it_stands() -> None:
    """A JPEG whose EXIF says "rotate": written again without EXIF, it is turned as it was
    taken, not as its pixels lie."""
    noise = Pil.frombytes("RGB", (3000, 1000), os.urandom(3000 * 1000 * 3))
    exif = Pil.Exif()
    exif[0x0112] = 6  # orientation: rotate 90° clockwise to view
    out = io.BytesIO()
    noise.save(out, "JPEG", quality=100, exif=exif)
    data = out.getvalue()
    assert len(data) > IMAGE_MAX
    fit = fitted(data, "image/jpeg")
    assert isinstance(fit, Fitted)
    width, height = size_of(fit.data)
    assert height > width  # standing, as the phone showed it


def test_a_signature_without_an_image_is_refused() -> None:
    """A PNG signature and 100 zero bytes passed as an image (an MCP server's), and a
    request carrying a non-image is refused, with every later one of the session."""
    for junk, kind in ((b"\x89PNG\r\n\x1a\n" + bytes(100), "image/png"),
                       (b"GIF89a" + bytes(4), "image/gif"),
                       (b"\xff\xd8\xff" + bytes(40), "image/jpeg")):  # fmt: skip
        said = fitted(junk, kind)
        assert isinstance(said, str) and said.startswith("not an image that can be read"), kind
    small = encoded(Pil.new("RGB", (4, 3), "red"), "PNG")
    assert fitted(small, "image/png") == Fitted(small, "image/png", "")  # a real one still is
