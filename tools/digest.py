"""The one content hash of the tools: what previews show, approvals bind and journals record."""

from __future__ import annotations

from frontier.app.hashes import sha256_hex


def sha256(data: bytes | None) -> str | None:
    """sha256 hex of ``data``; ``None`` for an absent file."""
    return None if data is None else sha256_hex(data)
