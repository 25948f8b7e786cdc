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
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from frontier.app.wire import safejson
from frontier.tools.arg_aliases import DROPPED

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


class ArgError(ValueError):
    """An argument does not fit the schema; the message names it and the expected form."""


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def coerce_args(
    tool: str,
    schema: Mapping[str, Any],
    args: Mapping[str, Any],
    bytes_ok: frozenset[str] = frozenset(),
    aliases: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Validated, typed arguments (defaults filled in) or ``ArgError``. ``aliases``: other
    names a model sends for a parameter (``ToolSpec.aliases``), at every level."""
    if not isinstance(args, Mapping):
        raise ArgError(f"{tool}: arguments must be an object of named parameters")
    props: Mapping[str, Any] = schema.get("properties", {})
    if "timeout_ms" in args and "timeout" in props and "timeout" not in args:
        args = _from_millis(args)
    if tool == "read" and "limit" not in args:  # an MCP tool's ranges are its own
        args = _line_range(args)
    if aliases:
        args = _renamed(tool, props, args, aliases)
    required = list(schema.get("required", []))
    unknown = [k for k in args if k not in props]
    if unknown:
        raise ArgError(
            f"{tool}: unknown argument {unknown[0]!r}; parameters are: " + ", ".join(props)
        )
    out: dict[str, Any] = {}
    for name, prop in props.items():
        value = args.get(name)
        if value is None:
            if name in required:
                raise ArgError(f"{tool}: missing required argument {name!r} ({_describe(prop)})")
            if "default" in prop:
                out[name] = prop["default"]
            continue
        if tool == "shell" and name == "command" and _is_argv(value):
            value = _command_line(value)
        elif name == "timeout" and tool in ("shell", "python"):
            value = _seconds(value, prop)
        value = _coerce(f"{tool}: argument {name!r}", prop, value, name in bytes_ok, aliases)
        if name == "path" and isinstance(value, str) and value.endswith("\n"):
            value = value.rstrip("\r\n")  # a heredoc's line end (``arg path <<EOF``)
        out[name] = value
    return out


def _renamed(
    tool: str, props: Mapping[str, Any], args: Mapping[str, Any], aliases: Mapping[str, str]
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
    if type(ms) not in (int, float) or not ms > 0 or not math.isfinite(ms):
        return args
    out = {k: v for k, v in args.items() if k != "timeout_ms"}
    out["timeout"] = max(1, math.ceil(ms / 1000))
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
    most = prop.get("maximum")
    if type(value) is int and most is not None and value > most and value % 1000 == 0:
        return value // 1000
    return value


def _describe(prop: Mapping[str, Any]) -> str:
    kind = prop.get("type", "any")
    desc = prop.get("description")
    return f"{kind}: {desc}" if desc else str(kind)


def _coerce(
    where: str,
    prop: Mapping[str, Any],
    value: Any,
    bytes_ok: bool,
    aliases: Mapping[str, str] | None = None,
) -> Any:
    kind = prop.get("type")
    if kind == "string":
        if isinstance(value, bytes):
            if bytes_ok:
                return value
            try:
                return value.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ArgError(f"{where} is not valid UTF-8 (byte {exc.start}); send text") from exc
        if isinstance(value, str):
            enum = prop.get("enum")
            if enum and value not in enum:
                raise ArgError(f"{where} must be one of {', '.join(enum)}, got {_show(value)}")
            return value
        raise ArgError(f"{where} must be a string, got {type(value).__name__} {_show(value)}")
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
    if kind in ("array", "object"):
        if isinstance(value, str):
            try:
                value = safejson.loads(value)
            except safejson.JsonLimitError as exc:
                raise ArgError(f"{where} must be a JSON {kind}; it is {exc}") from exc
            except json.JSONDecodeError as exc:
                raise ArgError(
                    f"{where} must be a JSON {kind}; parsing failed at character {exc.pos}: "
                    f"{exc.msg}"
                ) from exc
        if kind == "array":
            if not isinstance(value, list):
                raise ArgError(f"{where} must be a JSON array, got {type(value).__name__}")
            items = prop.get("items")
            if items:
                return [
                    _coerce(f"{where}[{i}]", items, v, False, aliases) for i, v in enumerate(value)
                ]
            return value
        if not isinstance(value, dict):
            raise ArgError(f"{where} must be a JSON object, got {type(value).__name__}")
        if "properties" in prop:
            return coerce_args(where, prop, value, aliases=aliases)
        return value
    return value


def _integer(where: str, value: Any) -> int:
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


def _number(where: str, value: Any) -> float:
    if isinstance(value, bool):
        raise ArgError(f"{where} must be a number, got a boolean")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            return number
    raise ArgError(f"{where} must be a number, got {_show(value)}")


def _bounded(where: str, prop: Mapping[str, Any], value: float) -> Any:
    lo, hi = prop.get("minimum"), prop.get("maximum")
    if lo is not None and value < lo:
        raise ArgError(f"{where} must be >= {lo}, got {value:g}")
    if hi is not None and value > hi:
        raise ArgError(f"{where} must be <= {hi}, got {value:g}")
    return value
