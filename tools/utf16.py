"""UTF-16 text, told by its byte order mark: shown and searched, never edited.

Windows writes it where a person does not choose: PowerShell 5's ``>`` and ``Out-File``,
``reg export``, SQL Server's scripts, some Visual Studio files. Every second byte of
ASCII text is then NUL, so ``read`` called such a file binary and ``grep`` passed over
it; ripgrep, which Frontier's search imitates, reads it by its mark. The file tools change
UTF-8 text only: an edit would have to write the file back in UTF-16, byte for byte, and
a patch's "context not found" on such a file said nothing of why.
"""

from __future__ import annotations

MARKS = (b"\xff\xfe", b"\xfe\xff")
"""UTF-16's byte order marks, little- and big-endian."""


def is_utf16(data: bytes) -> bool:
    """Whether ``data`` starts with a UTF-16 byte order mark."""
    return data[:2] in MARKS


def utf16_text(data: bytes) -> str | None:
    """``data`` decoded, when it is UTF-16 by its mark and decodes whole into characters
    that are not NUL (UTF-32's mark starts as UTF-16's does); else ``None``."""
    if not is_utf16(data):
        return None
    try:
        text = data.decode("utf-16")
    except UnicodeDecodeError:
        return None
    return None if "\x00" in text else text


def cannot_edit(rel: str) -> str:
    """Why an editing tool leaves a UTF-16 file alone, and what to do instead."""
    return (
        f"{rel} is UTF-16 text (its byte order mark says so); the file tools change UTF-8 "
        "text only: change it with a command, or convert it to UTF-8 first (iconv -f UTF-16 "
        "-t UTF-8)"
    )
