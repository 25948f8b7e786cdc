"""The content hashes (sha256, blake2b) without importing ``hashlib`` where it is not needed.

``import hashlib`` initialises OpenSSL: ~6 ms, as much as everything else
``frontier apply-patch`` imports of its own. The interpreter's built-in sha256 gives
the same digest at ~5 ms a MiB against OpenSSL's ~0.7, so it is used while
``hashlib`` is not loaded and the data is under :data:`BIG` (what the import would
cost); a long-running process (the agent, whose HTTP stack loads ``hashlib``) and big
data take OpenSSL's. ``hashlib``'s blake2b is the built-in one anyway.
"""

from __future__ import annotations

import sys

BIG = 1 << 20
"""Bytes from which importing ``hashlib`` pays for itself (~6 ms of import against
~4 ms a MiB saved)."""


def sha256_hex(data: bytes) -> str:
    """sha256 hex digest of ``data``."""
    lib = sys.modules.get("hashlib")
    if lib is None and len(data) < BIG:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found, unused-ignore]
        except ImportError:  # 3.12+ names it _sha2; a build may leave it out
            try:
                from _sha2 import sha256  # type: ignore[import-not-found, unused-ignore]
            except ImportError:
                sha256 = None
        if sha256 is not None:
            return str(sha256(data).hexdigest())
    import hashlib

    return hashlib.sha256(data).hexdigest()


def blake2b_digest(data: bytes, digest_size: int) -> bytes:
    """blake2b digest of ``data``, ``digest_size`` bytes (``hashlib``'s is this one)."""
    try:
        from _blake2 import blake2b  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        from hashlib import blake2b
    return bytes(blake2b(data, digest_size=digest_size).digest())
