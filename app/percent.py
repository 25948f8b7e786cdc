"""Percent-encoding (RFC 3986), byte for byte as ``urllib.parse.quote`` does it.

Not ``quote`` itself: importing ``urllib.parse`` imports ``ipaddress`` too, ~3 ms of every
command that reads the store or scrubs a key (issue 24), for a dozen lines of work. Two
callers: the store's read-only ``file:`` URI (``session/db.py``) and the URL-quoted form of
a secret the scrubbers also look for (``secrets.py``). ``tests/test_percent.py`` holds it to
``quote`` on random text.
"""

from __future__ import annotations

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")


def percent_encode(raw: bytes, safe: bytes = b"") -> str:
    """``raw`` with every byte but the unreserved ones and ``safe`` written ``%HH``
    (``quote(raw, safe=safe)``; for a path, ``safe=b"/"``)."""
    keep = _UNRESERVED | frozenset(safe) if safe else _UNRESERVED
    return "".join(chr(b) if b in keep else f"%{b:02X}" for b in raw)
