"""``json.loads`` and ``json.dumps`` without importing the ``json`` package.

``import json`` costs ~2.1 ms (its decoder and encoder compile six regular expressions and
build their classes), 8 % of the interpreter's own start-up, on every command that reads
the store or writes a journal (issue 24). Both functions are the C accelerator's work
anyway: ``json.loads`` is ``_json``'s scanner plus whitespace and "extra data" checks, and
``json.dumps`` without ``indent`` is ``_json``'s encoder. This module builds the same two
objects from ``_json`` directly, with the same settings ``json``'s defaults give them, so a
value it returns is the one ``json`` would return.

Whatever it does not do the same way itself (``indent``, bytes in another encoding, and
every failure) it hands to the real ``json``: an invalid text raises the very
``json.JSONDecodeError`` (a ``ValueError``) with the very message, a value that cannot be
encoded the very ``TypeError``/``ValueError``. Catch ``ValueError``, not
``json.JSONDecodeError``, where ``json`` itself is not imported.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

try:
    import _json
except ImportError:  # a Python without the accelerator: the json package does it all
    _json = None  # type: ignore[assignment]

_WHITESPACE = " \t\n\r"
"""What ``json`` skips around a value (its ``WHITESPACE`` pattern)."""


class _Context:
    """The settings ``json.JSONDecoder()`` hands the C scanner by default."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {
        "-Infinity": float("-inf"),
        "Infinity": float("inf"),
        "NaN": float("nan"),
    }.__getitem__


class NotJson(ValueError):
    """``NaN``, ``Infinity`` or ``-Infinity`` in a text read as standard JSON (RFC 8259 has
    none of them; Python's ``json`` takes them): ``name`` is the one met first."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} is not a JSON value")
        self.name = name


def _refuse_constant(name: str) -> Any:
    raise NotJson(name)


class _Standard(_Context):
    """The same settings, but a constant JSON does not have is an error, not a float."""

    parse_constant = staticmethod(_refuse_constant)


_scan: Callable[[str, int], tuple[Any, int]] | None = (
    # typeshed asks for a scanner as the context; the C code reads only the six settings
    _json.make_scanner(_Context()) if _json is not None else None  # type: ignore[arg-type]
)
_scan_standard: Callable[[str, int], tuple[Any, int]] | None = (
    _json.make_scanner(_Standard()) if _json is not None else None  # type: ignore[arg-type]
)


def loads(text: str | bytes | bytearray, *, standard: bool = False) -> Any:
    """``json.loads(text)``. ``standard``: as RFC 8259 reads it, ``NaN`` and ``Infinity``
    raising :class:`NotJson` (a model's arguments ``{"n": NaN}`` were a runnable call, and
    ``transduce`` printed them as JSON lines no JSON reader takes)."""
    refuse = {"parse_constant": _refuse_constant} if standard else {}
    if isinstance(text, (bytes, bytearray)):
        head = bytes(text[:4])
        if b"\x00" in head or head.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
            return _json_module().loads(text, **refuse)  # UTF-16/32 or a BOM: json detects it
        text = text.decode("utf-8", "surrogatepass")  # as json.loads decodes UTF-8
    scan = _scan_standard if standard else _scan
    if scan is None or not isinstance(text, str) or text.startswith("\ufeff"):
        return _json_module().loads(text, **refuse)  # json's own TypeError for a non-string
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = scan(text, start)
    except StopIteration:
        return _json_module().loads(text)  # raises json's "Expecting value" error
    except SystemError:
        # Python 3.11's scanner raises its error class as ``sys.modules["json.decoder"]``
        # has it, and with json never imported it fails with no error set at all: json
        # itself then says what is wrong, as it would have
        if "json.decoder" in sys.modules:
            raise
        return _json_module().loads(text, **refuse)
    if end != len(text) and text[end:].strip(_WHITESPACE):
        return _json_module().loads(text)  # raises json's "Extra data" error
    return value


def dumps(
    value: object,
    *,
    ensure_ascii: bool = True,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
    indent: int | None = None,
) -> str:
    """``json.dumps(value, ensure_ascii=..., separators=..., sort_keys=..., indent=...)``."""
    if _json is None or indent is not None:
        return _json_module().dumps(
            value,
            ensure_ascii=ensure_ascii,
            separators=separators,
            sort_keys=sort_keys,
            indent=indent,
        )
    item, key = separators if separators is not None else (", ", ": ")
    quote = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    try:
        encode = _json.make_encoder({}, _refuse, quote, None, key, item, sort_keys, False, True)
        return "".join(encode(value, 0))
    except (TypeError, ValueError, RecursionError):
        return _json_module().dumps(  # raises json's own error for the value
            value, ensure_ascii=ensure_ascii, separators=separators, sort_keys=sort_keys
        )


def _refuse(value: object) -> object:
    """``JSONEncoder.default``: the value is not JSON (``json`` then says so, as it does)."""
    raise TypeError(type(value).__name__)


def _json_module() -> Any:
    import json

    return json


if TYPE_CHECKING:
    from json import JSONDecodeError as JSONDecodeError
else:

    def __getattr__(name: str) -> object:
        """``JSONDecodeError``, importing ``json`` only when it is asked for: an ``except
        fastjson.JSONDecodeError`` clause asks only once an error reaches it, and every
        error ``loads`` raises comes from ``json`` itself, which is imported by then."""
        if name == "JSONDecodeError":
            return _json_module().JSONDecodeError
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
