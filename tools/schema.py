"""Argument coercion and validation against a tool's JSON schema.

CTL carries every argument as text, native modes as typed JSON, and a non-UTF-8
CTL body as ``bytes``; this one function turns all three into the schema's
types or says exactly which argument is wrong and what was expected. An
array/object sent as text is model output: it is parsed by ``safejson``, so
1,000 levels of ``[`` are an ``ArgError`` (an ``arg`` result), not a
``RecursionError`` escaping the boundary. A ``path`` loses the line end a CTL heredoc
gives every value (``arg path <<EOF``): no file name ends with one, and ``write`` made a
file named ``"a.py\\n"``. ``shell``'s ``command`` sent as an argv array is joined into the
command line that runs it (:func:`_command_line`).

The schema is untrusted too: an MCP server's tool declares whatever JSON it likes as its
``inputSchema``, and a ``true`` subschema, an ``enum`` holding ``null`` or a ``minimum`` of
``"5"`` crashed the turn of every call of that tool. Here any JSON value anywhere in a
schema is read as JSON Schema means it (``true``: anything, ``false``: nothing) or, where
it is no schema or no keyword value, as absent (the server checks what it is sent); the
walk stops at :data:`MAX_DEPTH` levels and after :data:`MAX_CHECKS` checks; what does not
fit is an ``ArgError`` for that call.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, TypeAlias

from frontier.app.wire import safejson
from frontier.tools.arg_aliases import DROPPED

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}

MAX_DEPTH = safejson.MAX_DEPTH
"""Levels of objects and arrays coercion follows a value and its schema into: as deep as a
call's arguments may nest (``{"a": [1]}`` is 2). A schema nested deeper is an ``ArgError``
at that level, never a ``RecursionError`` ending the turn."""
MAX_CHECKS = 1_000_000
"""Parameters looked at and ``enum`` members compared in one call: each object of an array
is checked against every parameter of its schema, so a schema's size times the arguments'
could make one call's coercion take minutes; bounded, it takes at most about a second. A
model's real call makes a few thousand."""

_ANY: Mapping[str, Any] = MappingProxyType({})
"""The schema ``true`` (and a value that is no schema): nothing to check."""


class ArgError(ValueError):
    """An argument does not fit the schema; the message names it and the expected form."""


class _Where:
    """Where a value is in a call's arguments, put into words only when a message names it:
    each element of a long array would otherwise copy its whole path (the walk's cost
    would grow with the elements times the path's length)."""

    __slots__ = ("_step", "_up")

    def __init__(self, up: _Place, step: str | int) -> None:
        self._up = up
        self._step = step

    def __str__(self) -> str:
        steps: list[str] = []
        node: _Place = self
        while isinstance(node, _Where):
            step = node._step
            steps.append(f"[{step}]" if isinstance(step, int) else f": argument {_show(step)}")
            node = node._up
        return node + "".join(reversed(steps))


_Place: TypeAlias = "str | _Where"
"""The tool's name, or a place in its arguments (``shell: argument 'command'``)."""


class _Walk:
    """One call's coercion: the checks it may still make (:data:`MAX_CHECKS`)."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_CHECKS

    def spend(self, where: _Place, checks: int) -> None:
        """Count ``checks`` more; past the bound the call is refused, not slowly coerced."""
        self.left -= checks
        if self.left < 0:
            raise ArgError(
                f"{where}: too much to check against the tool's schema (over {MAX_CHECKS:,} "
                "checks); send fewer or smaller values"
            )


def _show(value: Any) -> str:
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # nested past the stack; an int of 4,300+ digits
        return f"a {type(value).__name__} too large to show"
    return text if len(text) <= 60 else text[:57] + "..."


def _schema(node: Any) -> Mapping[str, Any] | None:
    """A subschema as coercion reads it: ``None`` for ``false`` (no value fits), an object
    as it is, and anything else (``true``, or a value that is no schema) as ``{}``: nothing
    here to check, and the server checks what it is sent."""
    if node is False:
        return None
    return node if isinstance(node, Mapping) else _ANY


def _keyword(schema: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    """``schema[key]`` when it is of the JSON type the keyword takes, else ``None``: a
    ``"minimum": "5"`` or an ``"enum": 3`` is read as absent, never compared or iterated."""
    value = schema.get(key)
    return value if isinstance(value, kind) else None


def _bound(schema: Mapping[str, Any], key: str) -> int | float | None:
    """A numeric keyword (``minimum``, ``maximum``); a boolean is no number here."""
    value = _keyword(schema, key, (int, float))
    return None if isinstance(value, bool) else value


def _required(names: Sequence[Any]) -> frozenset[str]:
    """The names in ``required`` (a set: looked up once a parameter, in constant time)."""
    return frozenset(name for name in names if isinstance(name, str))


def coerce_args(
    tool: str,
    schema: Mapping[str, Any],
    args: Mapping[str, Any],
    bytes_ok: frozenset[str] = frozenset(),
    aliases: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Validated, typed arguments (defaults filled in) or ``ArgError``. ``aliases``: other
    names a model sends for a parameter (``ToolSpec.aliases``), at every level. ``schema``
    may be any JSON value (an MCP server's); only ``ArgError`` leaves here."""
    if not isinstance(args, Mapping):
        raise ArgError(f"{tool}: arguments must be an object of named parameters")
    whole = _schema(schema)
    if whole is None:
        raise ArgError(f"{tool}: the tool's argument schema is false: it accepts no call")
    return _object(tool, whole, args, bytes_ok, aliases, _Walk(), 1)


def _object(
    tool: _Place,
    schema: Mapping[str, Any],
    args: Mapping[str, Any],
    bytes_ok: frozenset[str],
    aliases: Mapping[str, str] | None,
    walk: _Walk,
    depth: int,
) -> dict[str, Any]:
    """One object's parameters against ``schema``'s ``properties``; ``depth``: the
    object's own level (the call's arguments are 1)."""
    props: Mapping[str, Any] = _keyword(schema, "properties", Mapping) or _ANY
    names: Sequence[Any] = _keyword(schema, "required", (list, tuple)) or ()
    walk.spend(tool, len(props) + len(names))
    if "timeout_ms" in args and "timeout" in props and "timeout" not in args:
        args = _from_millis(args)
    if tool == "read" and "limit" not in args:  # an MCP tool's ranges are its own
        args = _line_range(args)
    if aliases:
        args = _renamed(tool, props, args, aliases)
    required = _required(names)
    unknown = [k for k in args if k not in props]
    extra = schema.get("additionalProperties")
    if unknown and not _open(schema, extra):
        raise ArgError(
            f"{tool}: unknown argument {unknown[0]!r}; parameters are: "
            + ", ".join(str(name) for name in props)
        )
    out: dict[str, Any] = {}
    for name, node in props.items():
        prop = _schema(node)
        value = args.get(name)
        if value is None:
            if name in required:
                raise ArgError(f"{tool}: missing required argument {name!r} ({_describe(prop)})")
            if prop is not None and "default" in prop:
                out[name] = prop["default"]
            continue
        if tool == "shell" and name == "command" and _is_argv(value):
            value = _command_line(value)
        elif name == "timeout" and tool in ("shell", "python") and prop is not None:
            value = _seconds(value, prop)
        value = _coerce(_Where(tool, name), prop, value, name in bytes_ok, aliases, walk, depth)
        if name == "path" and isinstance(value, str) and value.endswith("\n"):
            value = value.rstrip("\r\n")  # a heredoc's line end (``arg path <<EOF``)
        out[name] = value
    if unknown:  # an open object's other members: as its additionalProperties types them
        walk.spend(tool, len(unknown))
        each = _schema(extra) if isinstance(extra, Mapping) else _ANY
        for name in unknown:
            out[name] = _coerce(_Where(tool, name), each, args[name], False, aliases, walk, depth)
    return out


def _open(schema: Mapping[str, Any], extra: Any) -> bool:
    """Whether an object takes members its ``properties`` do not name: one that names
    none (an MCP tool's ``{"type": "object"}``: any arguments), or whose
    ``additionalProperties`` is ``true`` or a schema. Otherwise an unknown name is an
    error (a typo the model is told of), as for every built-in tool."""
    return "properties" not in schema or extra is True or isinstance(extra, Mapping)


def _renamed(
    tool: _Place, props: Mapping[str, Any], args: Mapping[str, Any], aliases: Mapping[str, str]
) -> Mapping[str, Any]:
    """``args`` with each alias a model sent under its parameter's name (``file_path`` →
    ``path``); the alias and the name both given is an error, not a guess. An alias to
    ``DROPPED`` (``shell``'s ``description``) is taken and left out."""
    if not any(key in aliases and key not in props for key in args):
        return args
    out: dict[str, Any] = {}
    for key, value in args.items():
        name = aliases.get(key, key) if key not in props else key
        if name == DROPPED:
            continue
        if name in out or (name != key and name in args):
            raise ArgError(
                f"{tool}: {key!r} and {name!r} are the same argument; give {name!r} once"
            )
        out[name] = value
    return out


def _is_argv(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _command_line(argv: list[str]) -> str:
    """``shell``'s ``command`` sent as an array: Codex's shell takes an argv
    (``["bash", "-lc", "ls -la"]``) and models trained on it, or local ones (qwen2.5 on
    Ollama), send one where the schema says a string; each such call came back as an
    argument error. Several words are an argv, quoted back into the command line that
    runs exactly it (the review shows that line); one is the command line itself
    (``["ls -la"]``)."""
    if len(argv) == 1:
        return argv[0]
    import shlex

    return shlex.join(argv)


def _from_millis(args: Mapping[str, Any]) -> Mapping[str, Any]:
    """Codex's shell takes ``timeout_ms``: read as ``timeout``, in whole seconds (rounded
    up, at least one). A value that is not a positive number stays as sent (an error)."""
    ms = args["timeout_ms"]
    if type(ms) is int and ms > 0:  # whole: no float to overflow (``1e400`` written out)
        seconds = -(-ms // 1000)
    elif type(ms) is float and ms > 0 and math.isfinite(ms):
        seconds = math.ceil(ms / 1000)
    else:
        return args
    out = {k: v for k, v in args.items() if k != "timeout_ms"}
    out["timeout"] = max(1, seconds)
    return out


LINE_RANGES = (
    ("start_line", "end_line"),
    ("start_line_one_indexed", "end_line_one_indexed_inclusive"),  # Cursor's read_file
)
"""``(first, last)`` argument names other agents' reads take a range of lines by."""


def _line_range(args: Mapping[str, Any]) -> Mapping[str, Any]:
    """A range of lines as ``offset``/``limit``: ``[first, last]`` in ``view_range``
    (Anthropic's text editor; ``-1``: to the end), or a pair of :data:`LINE_RANGES`
    (inclusive, from 1). A range that is not one (not whole numbers, the last before the
    first) stays as sent, and is refused as an unknown argument naming the parameters."""
    window = args.get("view_range")
    if isinstance(window, list) and len(window) == 2:
        keys: tuple[str, ...] = ("view_range",)
        first, last, to_end = window[0], window[1], -1
    else:
        pair = next(((a, b) for a, b in LINE_RANGES if b in args), None)
        if pair is None:
            return args
        keys = pair
        first, last, to_end = args.get(pair[0], args.get("offset", 1)), args[pair[1]], None
    if type(first) is not int or type(last) is not int or first < 0:
        return args
    first = max(first, 1)
    out = {k: v for k, v in args.items() if k not in keys} | {"offset": first}
    if last == to_end:
        return out
    if last < first:
        return args
    return out | {"limit": last - first + 1}


def _seconds(value: Any, prop: Mapping[str, Any]) -> Any:
    """A command's ``timeout`` in milliseconds, read as seconds: Claude Code's Bash takes
    milliseconds (``120000``), and the models it taught send them to ``shell`` (read as
    ``Bash``), where every such call was an argument error ("at most 3600"). Only where it
    cannot mean seconds: over the maximum and a whole number of thousands."""
    most = _bound(prop, "maximum")
    if type(value) is int and most is not None and value > most and value % 1000 == 0:
        return value // 1000
    return value


def _describe(prop: Mapping[str, Any] | None) -> str:
    """A parameter's type and description for a message; a server's odd values are shown
    short (a ``description`` may be any JSON, as long or as deep as it likes)."""
    if prop is None:
        return "the tool's schema allows no value for it"
    kind = prop.get("type", "any")
    desc = prop.get("description")
    kind_text = kind if isinstance(kind, str) else _show(kind)
    if not desc:
        return kind_text
    return f"{kind_text}: {desc if isinstance(desc, str) else _show(desc)}"


def _member(value: Any) -> str:
    """An ``enum`` member as a message lists it: a string as it is, any other as JSON."""
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    return _show(value)


def _coerce(
    where: _Place,
    prop: Mapping[str, Any] | None,
    value: Any,
    bytes_ok: bool,
    aliases: Mapping[str, str] | None,
    walk: _Walk,
    depth: int,
) -> Any:
    """``value`` as ``prop`` types it (``None``: the schema ``false``); ``depth``: the
    levels of objects and arrays around it."""
    if prop is None:
        raise ArgError(f"{where} is not accepted: {_describe(prop)}")
    kind = prop.get("type")
    if kind == "string":
        return _string(where, prop, value, bytes_ok, walk)
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ArgError(f"{where} is not valid UTF-8 (byte {exc.start})") from exc
    if kind == "integer":
        return _bounded(where, prop, _integer(where, value))
    if kind == "number":
        return _bounded(where, prop, _number(where, value))
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        raise ArgError(f"{where} must be true or false, got {_show(value)}")
    if kind == "array":
        return _array(where, prop, _parsed(where, kind, value), aliases, walk, depth)
    if kind == "object":
        value = _parsed(where, kind, value)
        if not isinstance(value, dict):
            raise ArgError(f"{where} must be a JSON object, got {type(value).__name__}")
        if _keyword(prop, "properties", Mapping) is not None:
            _deeper(where, depth)
            return _object(where, prop, value, frozenset(), aliases, walk, depth + 1)
        return value
    return value


def _string(
    where: _Place, prop: Mapping[str, Any], value: Any, bytes_ok: bool, walk: _Walk
) -> str | bytes:
    """Text, or the bytes of a parameter that takes them (``bytes_ok``); one of ``enum``'s
    strings when it has one (its other members, any JSON, never match text)."""
    if isinstance(value, bytes):
        if bytes_ok:
            return value
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ArgError(f"{where} is not valid UTF-8 (byte {exc.start}); send text") from exc
    if isinstance(value, str):
        enum = _keyword(prop, "enum", (list, tuple))
        if enum:
            walk.spend(where, len(enum))
            if value not in enum:
                shown = ", ".join(_member(m) for m in enum)
                raise ArgError(f"{where} must be one of {shown}, got {_show(value)}")
        return value
    raise ArgError(f"{where} must be a string, got {type(value).__name__} {_show(value)}")


def _parsed(where: _Place, kind: str, value: Any) -> Any:
    """An array or object sent as text, parsed (``safejson``: bounded); any other value as
    it came."""
    if not isinstance(value, str):
        return value
    try:
        return safejson.loads(value, standard=True)
    except safejson.JsonLimitError as exc:
        raise ArgError(f"{where} must be a JSON {kind}; it is {exc}") from exc
    except json.JSONDecodeError as exc:
        raise ArgError(
            f"{where} must be a JSON {kind}; parsing failed at character {exc.pos}: {exc.msg}"
        ) from exc


def _array(
    where: _Place,
    prop: Mapping[str, Any],
    value: Any,
    aliases: Mapping[str, str] | None,
    walk: _Walk,
    depth: int,
) -> list[Any]:
    """Each element as ``items`` types it: one schema for all, ``false`` for none, or (the
    older tuple form, a list) one a position, the elements past it as they came."""
    if not isinstance(value, list):
        raise ArgError(f"{where} must be a JSON array, got {type(value).__name__}")
    items = prop.get("items")
    if not items and items is not False:
        return value
    _deeper(where, depth)
    if isinstance(items, list):
        return [
            _coerce(_Where(where, i), _schema(items[i]), v, False, aliases, walk, depth + 1)
            if i < len(items)
            else v
            for i, v in enumerate(value)
        ]
    each = _schema(items)
    return [
        _coerce(_Where(where, i), each, v, False, aliases, walk, depth + 1)
        for i, v in enumerate(value)
    ]


def _deeper(where: _Place, depth: int) -> None:
    """Refuse to follow a value and its schema a level past :data:`MAX_DEPTH`: a server's
    schema may nest as deep as it likes, and each level is a few frames of the stack."""
    if depth >= MAX_DEPTH:
        raise ArgError(
            f"{where} nests deeper than {MAX_DEPTH} levels of objects and arrays; "
            "send it less deeply nested"
        )


def _integer(where: _Place, value: Any) -> int:
    if isinstance(value, bool):
        raise ArgError(f"{where} must be an integer, got a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise ArgError(f"{where} must be an integer, got {_show(value)}")


def _number(where: _Place, value: Any) -> float:
    if isinstance(value, bool):
        raise ArgError(f"{where} must be a number, got a boolean")
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError as exc:  # an integer of 309+ digits
            raise ArgError(f"{where} is too large a number, got {_show(value)}") from exc
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            return number
    raise ArgError(f"{where} must be a number, got {_show(value)}")


def _bounded(where: _Place, prop: Mapping[str, Any], value: float) -> Any:
    """``value`` within ``minimum``/``maximum``; a bound that is no number is not one."""
    lo, hi = _bound(prop, "minimum"), _bound(prop, "maximum")
    if lo is not None and value < lo:
        raise ArgError(f"{where} must be >= {_show(lo)}, got {_figure(value)}")
    if hi is not None and value > hi:
        raise ArgError(f"{where} must be <= {_show(hi)}, got {_figure(value)}")
    return value


def _figure(value: float) -> str:
    """A number as a bound's message shows it (``%g``); an integer too large for a float
    in its digits (``%g`` of one raises ``OverflowError``)."""
    try:
        return f"{value:g}"
    except OverflowError:
        return _show(value)
