"""A hostile tool schema: an MCP server's tool may declare any JSON as its ``inputSchema``,
and the model's arguments are coerced with it (``tools/schema.py``). A ``true``
subschema, an ``enum`` holding ``null`` and a ``"minimum": "5"`` each raised out of the
boundary and ended the turn (headless ``frontier run`` printed a traceback and left the
session interrupted), and again on every later call of that tool. Now any JSON value
anywhere in a schema gives a coercion or an argument error for that one call, and the
boundary turns anything else unexpected while checking arguments into that call's error.

No timings: the depth limit is asserted by its error (and by finishing at all with 10^4
levels), the bound on work by the error a large schema times large arguments gets.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tools_fakes import call, make_boundary

from frontier.app.events import ToolCall
from frontier.tools import boundary as boundary_module
from frontier.tools import schema as schema_module
from frontier.tools.base import CancelToken, Outcome, Prepared
from frontier.tools.boundary import ToolBoundary
from frontier.tools.contract import ToolContext, ToolSpec
from frontier.tools.registry import Registry, default_registry
from frontier.tools.schema import MAX_DEPTH, ArgError, coerce_args

BOOL_PROP = {"type": "object", "properties": {"a": True}}
ENUM_NULL = {"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "y", None]}}}
MIN_TEXT = {"type": "object", "properties": {"n": {"type": "integer", "minimum": "5"}}}
ECHO = {"type": "object", "properties": {"text": {"type": "string"}}}


class ServerTool:
    """An MCP server's tool as the boundary sees one (``source="mcp"``), with the schema
    the server declared; running it records the arguments it was given."""

    bytes_args: frozenset[str] = frozenset()

    def __init__(self, name: str, schema: Any) -> None:
        self.spec = ToolSpec(name=name, description="d", parameters=schema, source="mcp")
        self.ran: list[Mapping[str, Any]] = []

    def prepare(self, args: Mapping[str, Any], ctx: ToolContext) -> Prepared:
        return Prepared(args=args)

    async def execute(
        self, call: ToolCall, prepared: Prepared, ctx: ToolContext, cancel: CancelToken
    ) -> Outcome:
        self.ran.append(prepared.args)
        return Outcome(kind="ok", output=f"ran {dict(prepared.args)}")


def served(tmp_path: Path, schema: Any) -> tuple[ToolBoundary, ServerTool, ServerTool]:
    """A boundary holding the built-in tools, ``srv__odd`` with ``schema`` and a
    well-formed ``srv__echo``."""
    registry: Registry = default_registry()
    odd, echo = ServerTool("srv__odd", schema), ServerTool("srv__echo", ECHO)
    registry.extend([odd, echo])
    return make_boundary(tmp_path, registry=registry), odd, echo


async def then_a_good_call_runs(boundary: ToolBoundary, echo: ServerTool) -> None:
    result = await boundary.run(call("srv__echo", 9, text="hi"))
    assert result.kind == "ok", result.output
    assert echo.ran == [{"text": "hi"}]


# --------------------------------------------------------------------------- the audit's three


async def test_a_true_subschema_takes_any_value_and_the_call_runs(tmp_path: Path) -> None:
    b, odd, echo = served(tmp_path, BOOL_PROP)
    result = await b.run(call("srv__odd", 1, a={"any": [1, "thing"]}))
    assert result.kind == "ok", result.output
    assert odd.ran == [{"a": {"any": [1, "thing"]}}]
    await then_a_good_call_runs(b, echo)


async def test_a_false_subschema_is_an_argument_error_naming_the_tool(tmp_path: Path) -> None:
    b, odd, echo = served(tmp_path, {"type": "object", "properties": {"a": False}})
    for num in (1, 2):  # the next call of that tool gets its own result too
        result = await b.run(call("srv__odd", num, a=1))
        assert result.kind == "arg"
        assert "srv__odd: argument 'a' is not accepted" in result.output
    assert odd.ran == []
    await then_a_good_call_runs(b, echo)


async def test_an_enum_holding_null_refuses_other_text_naming_the_tool(tmp_path: Path) -> None:
    b, odd, echo = served(tmp_path, ENUM_NULL)
    result = await b.run(call("srv__odd", 1, a="z"))
    assert result.kind == "arg"
    assert "srv__odd: argument 'a' must be one of x, y, null, got 'z'" in result.output
    assert (await b.run(call("srv__odd", 2, a="y"))).kind == "ok"
    assert odd.ran == [{"a": "y"}]
    await then_a_good_call_runs(b, echo)


async def test_a_minimum_that_is_text_is_no_bound(tmp_path: Path) -> None:
    b, odd, echo = served(tmp_path, MIN_TEXT)
    assert (await b.run(call("srv__odd", 1, n="3"))).kind == "ok"
    assert odd.ran == [{"n": 3}]  # still typed: the schema's "integer" is read
    result = await b.run(call("srv__odd", 2, n="many"))
    assert result.kind == "arg"
    assert "srv__odd: argument 'n' must be an integer, got 'many'" in result.output
    await then_a_good_call_runs(b, echo)


async def test_an_unexpected_failure_checking_arguments_is_that_calls_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defence in depth: whatever else coercion raises is the call's result, naming the
    tool and saying its schema could not be applied; the turn goes on."""
    b, odd, echo = served(tmp_path, ECHO)
    real = boundary_module.coerce_args

    def broken(tool: str, *rest: Any) -> dict[str, Any]:
        if tool == "srv__odd":
            raise AttributeError("'bool' object has no attribute 'get'")
        return real(tool, *rest)

    monkeypatch.setattr(boundary_module, "coerce_args", broken)
    result = await b.run(call("srv__odd", 1, text="hi"))
    assert result.kind == "error"
    assert result.call_id == "c1"
    assert result.output.startswith(
        "srv__odd: the tool's argument schema (its MCP server's) could not be applied: "
        "AttributeError: 'bool' object has no attribute 'get'."
    )
    assert odd.ran == []
    await then_a_good_call_runs(b, echo)


# --------------------------------------------------------------------------- schema values


@pytest.mark.parametrize(
    ("schema", "args", "expected"),
    [
        (BOOL_PROP, {"a": 1}, {"a": 1}),
        (ENUM_NULL, {"a": "x"}, {"a": "x"}),
        (MIN_TEXT, {"n": 3}, {"n": 3}),
        (True, {}, {}),
        ([1, 2], {}, {}),  # no schema at all: nothing to check
        ({"properties": [{"a": 1}]}, {}, {}),
        ({"properties": {"a": {"type": "integer", "maximum": True}}}, {"a": 7}, {"a": 7}),
        ({"properties": {"a": {"enum": 3, "type": "string"}}}, {"a": "q"}, {"a": "q"}),
        ({"properties": {"a": {"type": ["string", "null"]}}}, {"a": 5}, {"a": 5}),
        ({"properties": {"a": {"type": "array", "items": True}}}, {"a": "[1]"}, {"a": [1]}),
        (
            {"properties": {"a": {"type": "array", "items": [{"type": "integer"}]}}},
            {"a": ["1", "2"]},
            {"a": [1, "2"]},  # the tuple form: one schema a position
        ),
        (
            {"properties": {"o": {"type": "object", "properties": 7}}},
            {"o": {"k": 1}},
            {"o": {"k": 1}},
        ),
        ({"properties": {"a": {"default": None}}, "required": "a"}, {}, {"a": None}),
        ({"properties": {"a": {}}, "required": [["a"], {"b": 1}, 3]}, {}, {}),
    ],
)
def test_odd_schema_values_are_read_as_json_schema_means_them_or_as_absent(
    schema: Any, args: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert coerce_args("t", schema, args) == expected


@pytest.mark.parametrize(
    ("schema", "args", "message"),
    [
        (False, {}, "t: the tool's argument schema is false: it accepts no call"),
        (
            {"properties": {"a": {"type": "array", "items": False}}},
            {"a": [1]},
            "t: argument 'a'[0] is not accepted",
        ),
        (
            {"properties": {"a": False}, "required": ["a"]},
            {},
            "t: missing required argument 'a' (the tool's schema allows no value for it)",
        ),
        (
            {"properties": {"a": {"type": "string", "enum": [{"k": [1]}, 2.5, True]}}},
            {"a": "z"},
            "t: argument 'a' must be one of {'k': [1]}, 2.5, true, got 'z'",
        ),
        (
            {"properties": {"n": {"type": "number", "minimum": 1, "maximum": 2}}},
            {"n": 10**400},
            "t: argument 'n' is too large a number",
        ),
        (
            {"properties": {"n": {"type": "integer", "maximum": 2}}},
            {"n": 10**400},
            "t: argument 'n' must be <= 2, got 1000000",
        ),
        (
            {
                "properties": {
                    "a": {"type": "array", "items": {"type": "object", "properties": {"b": {}}}}
                }
            },
            {"a": [{}, {}, {"b": 1, "c": 2}]},
            "t: argument 'a'[2]: unknown argument 'c'; parameters are: b",
        ),
    ],
)
def test_what_a_schema_refuses_is_an_argument_error(
    schema: Any, args: dict[str, Any], message: str
) -> None:
    with pytest.raises(ArgError) as raised:
        coerce_args("t", schema, args)
    assert str(raised.value).startswith(message)


def test_an_items_less_array_in_an_object_array_names_the_element() -> None:
    item = {"type": "object", "properties": {"b": {"type": "integer"}}}
    schema = {"properties": {"a": {"type": "array", "items": item}}}
    with pytest.raises(ArgError, match=r"^t: argument 'a'\[1\]: argument 'b' must be an integer"):
        coerce_args("t", schema, {"a": [{"b": 1}, {"b": "x"}]})


def test_shells_timeout_in_milliseconds_too_large_for_a_float_is_an_argument_error() -> None:
    shell = default_registry().get("shell")
    assert shell is not None
    with pytest.raises(ArgError, match="shell: argument 'timeout' must be <= 3600"):
        coerce_args("shell", shell.spec.parameters, {"command": "ls", "timeout_ms": 10**400})


def _nested(levels: int, inner: Any, wrap: Any) -> Any:
    """``inner`` wrapped ``levels`` times, built without recursion."""
    for _ in range(levels):
        inner = wrap(inner)
    return inner


def test_a_schema_and_value_nested_past_the_limit_are_an_argument_error() -> None:
    """10^4 levels of ``properties`` (and of ``items``) with a value as deep: refused at
    :data:`MAX_DEPTH`, never a ``RecursionError``."""
    levels = 10_000
    schema = _nested(levels, {}, lambda s: {"type": "object", "properties": {"a": s}})
    value = _nested(levels, 1, lambda v: {"a": v})
    with pytest.raises(ArgError, match=f"nests deeper than {MAX_DEPTH} levels"):
        coerce_args("t", schema, value)
    items = _nested(levels, {}, lambda s: {"type": "array", "items": s})
    with pytest.raises(ArgError, match=f"nests deeper than {MAX_DEPTH} levels"):
        coerce_args("t", {"properties": {"a": items}}, {"a": _nested(levels, 1, lambda v: [v])})


def test_as_deep_as_arguments_may_nest_is_still_followed() -> None:
    levels = MAX_DEPTH - 1  # the arguments' object is level 1
    schema = {"properties": {"a": _nested(levels, {"type": "integer"}, _array_of)}}
    value = _nested(levels, "7", lambda v: [v])
    assert coerce_args("t", schema, {"a": value}) == {"a": _nested(levels, 7, lambda v: [v])}


def _array_of(items: Any) -> dict[str, Any]:
    return {"type": "array", "items": items}


def test_a_deep_description_in_a_message_is_shown_short() -> None:
    deep = _nested(100_000, [], lambda v: [v])  # repr() of it raises RecursionError
    schema = {"properties": {"a": {"type": deep, "description": deep}}, "required": ["a"]}
    with pytest.raises(ArgError, match="missing required argument 'a' \\(a list too large"):
        coerce_args("t", schema, {})


def test_a_schemas_size_times_the_arguments_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each object of an array is checked against every parameter (defaults filled in) and
    ``required`` name, each text against every ``enum`` member: past ``MAX_CHECKS`` (10^6,
    about half a second of work; 10^4 here) the call is refused, not its product of
    dictionary entries made."""
    monkeypatch.setattr(schema_module, "MAX_CHECKS", 10_000)
    props = {f"p{i}": {"default": i} for i in range(200)}
    schema = {
        "properties": {"rows": {"type": "array", "items": {"type": "object", "properties": props}}}
    }
    with pytest.raises(ArgError, match="too much to check against the tool's schema"):
        coerce_args("t", schema, {"rows": [{}] * 100})
    enum = {"type": "string", "enum": [f"v{i}" for i in range(1_000)]}
    schema = {"properties": {"tags": {"type": "array", "items": enum}}}
    with pytest.raises(ArgError, match="too much to check against the tool's schema"):
        coerce_args("t", schema, {"tags": ["v999"] * 100})
    item = {"type": "object", "properties": {}, "required": [f"r{i}" for i in range(1_000)]}
    schema = {"properties": {"rows": {"type": "array", "items": item}}}
    with pytest.raises(ArgError, match="too much to check against the tool's schema"):
        coerce_args("t", schema, {"rows": [{}] * 100})


# --------------------------------------------------------------------------- any schema at all

KEYWORDS = [
    "type",
    "properties",
    "items",
    "enum",
    "minimum",
    "maximum",
    "minLength",
    "required",
    "anyOf",
    "oneOf",
    "additionalProperties",
    "default",
    "$ref",
    "description",
]
NAMES = ["a", "b", "path", "command", "timeout", "timeout_ms"]
TYPES = ["string", "integer", "number", "boolean", "array", "object", "null"]

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**400), max_value=10**400)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=6)
    | st.sampled_from(TYPES + NAMES)
)
JSONISH = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYWORDS + NAMES), inner, max_size=5)
    ),
    max_leaves=30,
)
"""Any JSON value, its objects' keys JSON Schema's keywords and parameter names."""


def _keywords(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A schema object: each keyword, when there, as JSON Schema has it or any JSON."""
    return st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(TYPES) | st.lists(st.sampled_from(TYPES)) | JSONISH,
            "properties": st.dictionaries(st.sampled_from(NAMES), inner, max_size=3) | JSONISH,
            "items": inner | st.lists(inner, max_size=2),
            "enum": st.lists(SCALARS, max_size=4) | JSONISH,
            "minimum": SCALARS,
            "maximum": SCALARS,
            "minLength": SCALARS,
            "required": st.lists(st.sampled_from(NAMES) | SCALARS, max_size=3) | JSONISH,
            "anyOf": st.lists(inner, max_size=2) | JSONISH,
            "oneOf": st.lists(inner, max_size=2) | JSONISH,
            "additionalProperties": inner,
            "default": JSONISH,
            "$ref": st.sampled_from(["#", "#/properties/a", "#/$defs/x"]) | JSONISH,
            "description": JSONISH,
        },
    )


SUBSCHEMAS = st.recursive(
    SCALARS,
    lambda inner: _keywords(inner) | _keywords(inner) | st.lists(inner, max_size=3) | JSONISH,
    max_leaves=12,
)
TOOL_SCHEMAS = st.fixed_dictionaries(
    {
        "type": st.just("object"),
        "properties": st.dictionaries(st.sampled_from(NAMES), SUBSCHEMAS, min_size=1, max_size=4),
    },
    optional={"required": st.lists(st.sampled_from(NAMES)) | JSONISH, "$ref": JSONISH},
)
SCHEMAS = TOOL_SCHEMAS | TOOL_SCHEMAS | SUBSCHEMAS | JSONISH
"""What a server may declare: mostly an object of parameters, each any schema or any JSON."""
VALUES = (
    JSONISH
    | st.binary(max_size=6)
    | st.sampled_from(["7", " -3 ", "2.5", "1e400", "nan", "yes", "[1, 2]", '{"a": "x"}', "[", "x"])
)


@st.composite
def calls(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    """A schema and arguments named as its parameters, now and then with one more name
    (else nearly every call is only an unknown argument)."""
    schema: Any = draw(SCHEMAS)
    props: Any = schema.get("properties") if isinstance(schema, dict) else None
    names: list[str] = sorted(props) if isinstance(props, dict) and props else []
    keys = st.sampled_from(names or NAMES)
    args = draw(st.dictionaries(keys, VALUES, max_size=4 if names else 1))
    if draw(st.sampled_from([False] * 9 + [True])):
        extra = st.sampled_from([*NAMES, "x", "file_path", "cmd", "view_range", "end_line"])
        args[draw(extra)] = draw(VALUES)
    return schema, args


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["t", "shell", "read", "python"]),
    calls(),
    st.frozensets(st.sampled_from(NAMES)),
    st.sampled_from([None, {"file_path": "path", "cmd": "command"}]),
)
def test_any_schema_and_arguments_give_a_coercion_or_an_argument_error(
    tool: str,
    call_: tuple[Any, dict[str, Any]],
    bytes_ok: frozenset[str],
    aliases: dict[str, str] | None,
) -> None:
    schema, args = call_
    try:
        out = coerce_args(tool, schema, args, bytes_ok, aliases)
    except ArgError as exc:
        assert str(exc).startswith(f"{tool}: ")
    else:
        assert isinstance(out, dict)


def test_an_open_object_takes_the_arguments_its_properties_do_not_name() -> None:
    """An MCP tool declared as ``{"type": "object"}``, or with ``additionalProperties``,
    refused every argument as unknown: uncallable with any."""
    assert coerce_args("srv__free", {"type": "object"}, {"q": "x", "n": 2}) == {"q": "x", "n": 2}
    typed = {
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "additionalProperties": {"type": "integer"},
    }
    assert coerce_args("srv__t", typed, {"q": "x", "n": "2"}) == {"q": "x", "n": 2}
    with pytest.raises(ArgError, match="must be an integer"):
        coerce_args("srv__t", typed, {"n": "two"})
    loose = {
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "additionalProperties": True,
    }
    assert coerce_args("srv__l", loose, {"q": "x", "z": [1]}) == {"q": "x", "z": [1]}
    closed = {"type": "object", "properties": {"q": {"type": "string"}}}
    with pytest.raises(ArgError, match="unknown argument 'z'"):  # as every built-in's
        coerce_args("srv__c", closed, {"z": 1})
    with pytest.raises(ArgError, match="unknown argument 'z'"):
        coerce_args("srv__c", {**closed, "additionalProperties": False}, {"z": 1})
