"""``@record`` behaves as ``@dataclass`` does: the same declaration, both ways, compared.

Random declarations (fields with and without defaults and factories, ``repr=`` and
``compare=`` options, frozen or not, ``slots``, ``eq``/``repr`` off, a record base class)
are built by ``dataclasses.dataclass`` and by ``frontier.app.record.record`` from the same
source text, then driven the same way: construction (positional, keyword, missing and
unexpected arguments), ``repr``, ``==``, ``hash``, ``__match_args__``, assignment,
``replace``, ``asdict``, ``fields`` and ``inspect.signature``."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import sys
import types
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.app import record as rec

NAMES = ["a", "b", "c", "d", "e"]


@st.composite
def declarations(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=5))
    fields = []
    seen_default = False
    for name in names:
        kind = draw(st.sampled_from(["plain", "default", "factory"]))
        if seen_default and kind == "plain":
            kind = "default"
        seen_default = seen_default or kind != "plain"
        fields.append(
            {
                "name": name,
                "kind": kind,
                "repr": draw(st.booleans()),
                "compare": draw(st.booleans()),
                "default": draw(st.integers(-3, 3)),
            }
        )
    split = draw(st.integers(0, len(fields)))
    return {
        "fields": fields,
        "split": split if draw(st.booleans()) else 0,
        "frozen": draw(st.booleans()),
        "eq": draw(st.booleans()),
        "repr": draw(st.booleans()),
        "slots": draw(st.booleans()),
    }


def _field_line(f: dict[str, Any], field_name: str) -> str:
    opts = f"repr={f['repr']}, compare={f['compare']}"
    if f["kind"] == "plain":
        return f"    {f['name']}: int = {field_name}({opts})"
    if f["kind"] == "default":
        return f"    {f['name']}: int = {field_name}(default={f['default']}, {opts})"
    return f"    {f['name']}: list = {field_name}(default_factory=list, {opts})"


def build(decl: dict[str, Any], deco: str, field_name: str) -> type:
    """The declaration as source, executed: a base class with the first ``split`` fields
    (when ``split``), the class itself with the rest."""
    opts = f"frozen={decl['frozen']}, eq={decl['eq']}, repr={decl['repr']}"
    base, own = decl["fields"][: decl["split"]], decl["fields"][decl["split"] :]
    lines = ["from __future__ import annotations", "from typing import ClassVar"]
    parent = ""
    if decl["split"]:
        lines += [f"@{deco}({opts})", "class Base:", "    kind: ClassVar[str] = 'k'"]
        lines += [_field_line(f, field_name) for f in base]
        parent = "(Base)"
    lines += [f"@{deco}({opts}, slots={decl['slots']})", f"class Made{parent}:", "    '''doc'''"]
    lines += [_field_line(f, field_name) for f in own] or ["    pass"]
    module = types.ModuleType(f"made_{deco}")
    module.__dict__.update(dataclass=dataclasses.dataclass, dfield=dataclasses.field)
    module.__dict__.update(record=rec.record, rfield=rec.field)
    sys.modules[module.__name__] = module  # pickle finds the class by its module
    exec("\n".join(lines), module.__dict__)
    made: type = module.__dict__["Made"]
    return made


def both(decl: dict[str, Any]) -> tuple[type, type]:
    return build(decl, "dataclass", "dfield"), build(decl, "record", "rfield")


def outcome(fn: Any) -> tuple[str, Any]:
    """What calling ``fn`` did: its value's repr, or the type of what it raised."""
    try:
        return "ok", fn()
    except Exception as exc:  # the comparison is of which error, both ways
        return "raised", type(exc).__name__


def args_for(decl: dict[str, Any], draw: st.DrawFn) -> tuple[list[Any], dict[str, Any]]:
    names = [f["name"] for f in decl["fields"]]
    required = [f["name"] for f in decl["fields"] if f["kind"] == "plain"]
    given_names = required + [n for n in names if n not in required and draw(st.booleans())]
    given_names = [n for n in names if n in given_names]
    cut = draw(st.integers(0, len(given_names)))
    positional = [draw(st.integers(-5, 5)) for _ in given_names[:cut]]
    keywords = {n: draw(st.integers(-5, 5)) for n in given_names[cut:]}
    return positional, keywords


@settings(max_examples=300, deadline=None)
@given(decl=declarations(), data=st.data())
def test_a_record_behaves_as_the_same_dataclass(decl: dict[str, Any], data: st.DataObject) -> None:
    dc, rc = both(decl)
    assert dc.__match_args__ == rc.__match_args__
    assert [(f.name, f.repr, f.compare) for f in dataclasses.fields(dc)] == [
        (f.name, f.repr, f.compare) for f in rec.fields(rc)
    ]
    assert str(inspect.signature(dc)) == str(inspect.signature(rc))
    assert ("__hash__" in dc.__dict__ and dc.__hash__ is None) == (
        "__hash__" in rc.__dict__ and rc.__hash__ is None
    )
    made = []
    for _ in range(3):
        pos, kw = args_for(decl, data.draw)
        d, r = dc(*pos, **kw), rc(*pos, **kw)
        made.append((d, r))
        if decl["repr"]:
            assert repr(d).replace("Made(", "X(") == repr(r).replace("Made(", "X(")
        assert outcome(lambda d=d: hash(d) == hash(d)) == outcome(lambda r=r: hash(r) == hash(r))
        assert dataclasses.asdict(d) == rec.asdict(r) == dataclasses.asdict(r)
        names = [f["name"] for f in decl["fields"]]
        if names:
            first = names[0]
            assert outcome(lambda d=d, first=first: setattr(d, first, 9)) == outcome(
                lambda r=r, first=first: setattr(r, first, 9)
            )
            changed_d = dataclasses.replace(d, **{names[-1]: 7})
            changed_r = rec.replace(r, **{names[-1]: 7})
            assert rec.asdict(changed_r) == dataclasses.asdict(changed_d)
            assert rec.asdict(dataclasses.replace(r, **{names[-1]: 7})) == rec.asdict(changed_r)
        assert rec.asdict(pickle.loads(pickle.dumps(r))) == rec.asdict(r)
        assert rec.asdict(copy.deepcopy(r)) == rec.asdict(r)
    (d1, r1), (d2, r2) = made[0], made[1]
    assert (d1 == d2) == (r1 == r2)
    assert (d1 == d1) == (r1 == r1)
    assert (d1 == 5) == (r1 == 5)
    if decl["frozen"] and decl["eq"] and d1 == d2:
        assert outcome(lambda: hash(r1) == hash(r2)) in (("ok", True), ("raised", "TypeError"))
    assert hasattr(d1, "__dict__") == hasattr(r1, "__dict__")
    # wrong calls fail the same way
    assert outcome(lambda: dc(*range(9))) == outcome(lambda: rc(*range(9)))
    assert outcome(lambda: dc(zz=1)) == outcome(lambda: rc(zz=1))
    if any(f["kind"] == "plain" for f in decl["fields"]):
        assert outcome(dc) == outcome(rc)


def test_a_body_method_is_kept_and_post_init_runs() -> None:
    seen = []

    @rec.record
    class Point:
        x: int
        y: int = 0

        def __repr__(self) -> str:
            return f"<{self.x},{self.y}>"

        def __post_init__(self) -> None:
            seen.append(self.x)

    assert repr(Point(1, 2)) == "<1,2>"
    assert seen == [1]
    assert Point(1, y=2) == Point(1, 2)
    match Point(3, 4):
        case Point(x, y):
            assert (x, y) == (3, 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Point(1).x = 3  # type: ignore[misc]


def test_what_a_record_does_not_support_is_refused_at_declaration() -> None:
    with pytest.raises(TypeError, match="order"):

        @rec.record(order=True)  # type: ignore[call-overload]
        class Ordered:
            x: int

    with pytest.raises(ValueError, match="default_factory"):

        @rec.record
        class Shared:
            x: list[int] = []  # noqa: RUF012

    with pytest.raises(TypeError, match="non-default"):

        @rec.record
        class Order:
            x: int = 0
            y: int  # type: ignore[misc]


def test_declaring_a_record_imports_neither_dataclasses_nor_typing() -> None:
    """The point of the module: checked in a fresh interpreter."""
    import subprocess

    code = (
        "import sys\n"
        "from frontier.app.record import record, field\n"
        "@record\n"
        "class A:\n"
        "    x: int\n"
        "    y: list = field(default_factory=list)\n"
        "A(1) == A(1); hash(A(1, ())); repr(A(2))\n"
        "print(sorted(m for m in ('dataclasses', 'inspect', 'typing') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_named_tuple_base_makes_what_typings_makes() -> None:
    import typing

    def declare(base: Any) -> Any:
        class Row(base):  # type: ignore[misc, valid-type]
            """A row."""

            name: str
            size: int = 0
            tags: tuple[str, ...] = ()

            def label(self) -> str:
                return f"{self.name}:{self.size}"

        return Row

    ours, theirs = declare(rec.NamedTuple), declare(typing.NamedTuple)
    for made in (ours("a"), ours("a", 2, ("x",)), ours(name="b", size=3)):
        same = theirs(*made)
        assert tuple(made) == tuple(same)
        assert repr(made) == repr(same)
        assert made.label() == same.label()
        assert made._asdict() == same._asdict()
        assert tuple(made._replace(size=9)) == tuple(same._replace(size=9))
    assert ours._fields == theirs._fields
    assert ours._field_defaults == theirs._field_defaults
    assert ours.__doc__ == theirs.__doc__ == "A row."
    # typing wraps each string annotation in a ForwardRef; the hints they resolve to agree
    assert typing.get_type_hints(ours) == typing.get_type_hints(theirs)
    assert ours.__qualname__ == theirs.__qualname__
    assert ours.__module__ == theirs.__module__ == __name__
    assert ours.__annotations__ == {"name": "str", "size": "int", "tags": "tuple[str, ...]"}
    for method in ("__new__", "_make", "_replace", "__repr__", "_asdict", "__getnewargs__"):
        mine, typings = getattr(ours, method), getattr(theirs, method)
        assert (mine.__qualname__, mine.__doc__) == (typings.__qualname__, typings.__doc__)
    assert ours.size.__doc__ == theirs.size.__doc__ == "Alias for field number 1"
    assert "label" in vars(ours) and "label" in vars(theirs)
    with pytest.raises(TypeError, match="cannot follow default"):

        class Bad(rec.NamedTuple):  # type: ignore[misc, valid-type]
            a: int = 0
            b: int  # type: ignore[misc]


class _Kept(rec.NamedTuple):  # type: ignore[misc, valid-type]
    """Module level, so pickle finds it by name."""

    name: str
    size: int = 0


def _outcome(make: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> object:
    try:
        return tuple(make(*args, **kwargs))
    except TypeError as exc:
        return f"TypeError: {exc}"


def test_named_tuple_construction_binds_and_fails_as_typings() -> None:
    """Without ``namedtuple``'s compiled ``__new__`` (start-up, issue 24): the same values
    for every way of calling it, the same ``TypeError`` text for every wrong one."""
    import copy
    import pickle
    import typing

    def declare(base: Any) -> tuple[Any, Any]:
        class Row(base):  # type: ignore[misc, valid-type]
            name: str
            size: int = 0
            tags: tuple[str, ...] = ()

        class Pair(base):  # type: ignore[misc, valid-type]
            left: int
            right: int

        return Row, Pair

    (row, pair), (row_t, pair_t) = declare(rec.NamedTuple), declare(typing.NamedTuple)
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
        ((), {}),
        (("a",), {}),
        (("a", 1), {}),
        (("a", 1, ("t",)), {}),
        (("a", 1, ("t",), 4), {}),
        (("a", 1, ("t",), 4, 5), {}),
        (("a",), {"name": "b"}),
        (("a",), {"size": 2, "tags": ("x",)}),
        ((), {"size": 2}),
        ((), {"nope": 1}),
        ((), {"name": "x", "size": 1, "tags": (), "extra": 1}),
        ((1,), {}),
        ((1, 2, 3), {}),
        ((), {"left": 1}),
        ((1,), {"right": 2}),
        ((1,), {"left": 2}),
    ]
    for args, kwargs in calls:
        for ours, theirs in ((row, row_t), (pair, pair_t)):
            assert _outcome(ours, args, kwargs) == _outcome(theirs, args, kwargs), (args, kwargs)
    made = row("a", 2, ("x",))
    assert copy.deepcopy(made) == made and copy.copy(made) == made
    kept = _Kept("a", 2)
    assert (
        pickle.loads(pickle.dumps(kept)) == kept and type(pickle.loads(pickle.dumps(kept))) is _Kept
    )
    assert row._make(["b", 3, ()]) == row("b", 3) and row.__match_args__ == row_t.__match_args__
    with pytest.raises(TypeError, match="Expected 3 arguments, got 2"):
        row._make(["b", 3])
    with pytest.raises(ValueError, match="unexpected field names"):
        made._replace(nope=1)
    assert row.name.__doc__ == row_t.name.__doc__ and row.__new__.__doc__ == row_t.__new__.__doc__


# --------------------------------------------------------------------------- the cheap paths
# ``@record`` takes short cuts at declaration (start-up, issue 24): a default's exact type
# can skip the checks, ``setattr``
# stands for ``type.__setattr__``, and with ``slots`` the methods go into the namespace of
# the class made again. Each is held here to what the long way gives.


def test_fields_stand_on_the_class_once_and_are_read_through_a_subclass() -> None:
    @rec.record
    class Base:
        a: int
        b: str = "x"

    class Plain(Base):  # not a record: reads its base's fields
        pass

    made = rec.fields(Plain(1))
    assert [(f.name, f.type, f.default, f.default_factory) for f in made] == [
        ("a", "int", rec.MISSING, rec.MISSING),
        ("b", "str", "x", rec.MISSING),
    ]
    assert vars(Base)["__record_fields__"] is made is rec.fields(Base) is rec.fields(Base(2))
    assert rec.is_record(Base) and rec.is_record(Plain(1)) and not rec.is_record(1)


def test_a_subclass_of_a_base_never_read_redeclares_a_field_in_its_place() -> None:
    @rec.record
    class Base:
        a: int
        b: int = 1
        c: int = 2

    @rec.record
    class Sub(Base):
        b: int = 10  # redeclared: keeps its place, takes the new default
        d: int = 4

    @dataclasses.dataclass(frozen=True)
    class DBase:
        a: int
        b: int = 1
        c: int = 2

    @dataclasses.dataclass(frozen=True)
    class DSub(DBase):
        b: int = 10
        d: int = 4

    assert [(f.name, f.default) for f in rec.fields(Sub)][1:] == [
        (f.name, f.default) for f in dataclasses.fields(DSub)
    ][1:]
    assert rec.fields(Sub)[0].default is rec.MISSING
    assert repr(Sub(0)).replace("Sub", "D") == repr(DSub(0)).replace("DSub", "D")
    assert Sub(0) == Sub(0, 10, 2, 4) and Sub(0) != Sub(0, 1) and hash(Sub(0)) == hash(Sub(0))
    assert Sub.__match_args__ == DSub.__match_args__ == ("a", "b", "c", "d")
    assert str(inspect.signature(Sub)) == str(inspect.signature(DSub))
    assert rec.fields(Base)[1].default == 1  # the base's own are untouched
    with pytest.raises(TypeError, match="non-default argument 'e'"):

        @rec.record
        class Bad(Base):
            e: int  # type: ignore[misc]


def test_repr_and_compare_options_through_a_base_and_field_defaults() -> None:
    @rec.record
    class Base:
        a: int
        hidden: int = rec.field(default=0, repr=False)

    @rec.record
    class Sub(Base):
        loose: int = rec.field(default=0, compare=False)
        tags: list[int] = rec.field(default_factory=list)

    assert repr(Sub(1, 2, 3)) == f"{Sub.__qualname__}(a=1, loose=3, tags=[])"
    assert Sub(1, 2, 3) == Sub(1, 2, 4) and Sub(1, 2) != Sub(1, 3)
    assert Sub.hidden == 0 and Sub.loose == 0 and "tags" not in vars(Sub)  # as dataclasses
    assert Sub(1).tags == [] and Sub(1).tags is not Sub(1).tags


def test_defaults_that_skip_the_checks_and_those_that_do_not() -> None:
    import enum

    class Kind(enum.Enum):
        A = "a"

    class Items(list):  # type: ignore[type-arg]
        pass

    @rec.record
    class Point:
        flag: bool = False
        kind: Kind = Kind.A
        raw: bytes = b""
        none: None = None
        shape: frozenset[int] = frozenset()

    class Unhashable(type):  # its classes are unhashable: a default of one is no plain type
        def __eq__(cls, other: object) -> bool:
            return cls is other

    class Odd(metaclass=Unhashable):
        pass

    odd = Odd()

    @rec.record
    class Holder:
        thing: object = odd

    assert Point() == Point(False, Kind.A, b"", None, frozenset())
    assert rec.fields(Point)[1].default is Kind.A
    assert Holder().thing is odd and rec.fields(Holder)[0].default is odd
    with pytest.raises(ValueError, match="mutable default"):

        @rec.record
        class Shared:
            items: Items = Items()  # refused, as a list is


def test_class_variables_are_not_fields_whichever_way_annotated() -> None:
    source = (
        "import typing\n"
        "from typing import ClassVar\n"
        "@record\n"
        "class A:\n"
        "    a: int\n"
        "    k: ClassVar[int] = 1\n"
        "    t: typing.ClassVar[str] = 's'\n"
        "    c: list[ClassVar] = ()\n"  # mentions ClassVar, is not one
    )
    for prefix in ("", "from __future__ import annotations\n"):
        ns: dict[str, Any] = {"record": rec.record}
        exec(prefix + source, ns)
        made = ns["A"]
        assert [f.name for f in rec.fields(made)] == ["a", "c"], prefix
        assert (made.k, made.t) == (1, "s")


def test_a_metaclass_setattr_is_bypassed_and_abstract_methods_are_updated() -> None:
    import abc

    seen: list[str] = []

    class Watching(type):
        def __setattr__(cls, name: str, value: Any) -> None:
            seen.append(name)
            super().__setattr__(name, value)

    @rec.record
    class Watched(metaclass=Watching):
        a: int

    assert seen == [] and Watched(1) == Watched(1) and repr(Watched(1)).endswith(".Watched(a=1)")

    class Shape(abc.ABC):
        @abc.abstractmethod
        def area(self) -> int: ...

    @rec.record
    class Square(Shape):
        side: int

        def area(self) -> int:
            return self.side**2

    assert Square.__abstractmethods__ == frozenset() and Square(3).area() == 9


def test_slots_frozen_methods_name_the_class_made_again() -> None:
    @rec.record(slots=True)
    class Cell:
        a: int
        b: int = 0

    class Extra(Cell):  # not a record: may set what is not a field, as a dataclass
        pass

    cell, extra = Cell(1), Extra(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cell.a = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del cell.b
    with pytest.raises(dataclasses.FrozenInstanceError):
        extra.a = 2  # type: ignore[misc]
    extra.note = "kept"  # type: ignore[attr-defined]
    assert extra.note == "kept"  # type: ignore[attr-defined]
    del extra.note  # type: ignore[attr-defined]
    assert not hasattr(cell, "__dict__") and Cell.__slots__ == ("a", "b")
    assert [f.name for f in rec.fields(Cell)] == ["a", "b"]
    assert vars(Cell)["__record_fields__"] is rec.fields(Cell)  # on the class made again
    assert copy.deepcopy(cell) == cell and cell.__getstate__() == [1, 0]  # type: ignore[attr-defined]
    blank = object.__new__(Cell)
    blank.__setstate__([3, 4])  # type: ignore[attr-defined]
    assert blank == Cell(3, 4)


def test_unsupported_options_are_refused_when_applied() -> None:
    deco = rec.record(unsafe_hash=True, kw_only=True)  # type: ignore[call-overload]

    class Later:
        x: int

    with pytest.raises(TypeError, match="does not support kw_only, unsafe_hash"):
        deco(Later)
    with pytest.raises(TypeError, match="does not support order"):
        rec.record(Later, order=True)  # type: ignore[call-overload]


ORDER_CASES = {
    "required after a default": ("", "    a: int = 0\n    b: int\n"),
    "mutable default after the order error": ("", "    a: int = 0\n    b: int\n    c: list = []\n"),
    "appended after a base's default": ("    a: int = 0\n", "    b: int\n"),
    "redeclared with a default": ("    a: int\n    b: int = 1\n", "    a: int = 2\n    c: int\n"),
    "appended with defaults": ("    a: int\n    b: int = 1\n", "    c: int = 2\n    d: int = 3\n"),
    "a class variable named as a base's field": (
        "    a: int = 0\n",
        "    a: ClassVar[int] = 1\n    b: int = 2\n",
    ),
}


@pytest.mark.parametrize("case", list(ORDER_CASES))
def test_the_order_of_defaults_is_checked_as_dataclasses_checks_it(case: str) -> None:
    """The order is checked as fields come, unless a field is redeclared or bases merge:
    each way, the same verdict and message as ``dataclasses``, and a mutable default's
    ``ValueError`` before any order error, as the module always gave."""
    base, own = ORDER_CASES[case]

    def declare(deco: str) -> tuple[str, Any]:
        lines = ["from __future__ import annotations", "from typing import ClassVar"]
        lines += [f"@{deco}", "class Base:", base or "    pass"]
        lines += [f"@{deco}", "class Made(Base):", own]
        ns: dict[str, Any] = {"dataclass": dataclasses.dataclass(frozen=True)}
        ns["record"] = rec.record
        try:
            exec("\n".join(lines), ns)
        except (TypeError, ValueError) as exc:
            return type(exc).__name__, str(exc) if isinstance(exc, TypeError) else ""
        return "ok", [f.name for f in dataclasses.fields(ns["Made"])]

    assert declare("record") == declare("dataclass")


def test_a_field_redeclared_without_a_default_has_none() -> None:
    """Where a record differs from a dataclass (as it always has): ``dataclasses`` takes a
    redeclared field's default from the base's class attribute (``getattr``), a record
    reads the class's own body, so here ``a`` is required and the order is valid."""

    @rec.record
    class Base:
        a: int = 0

    @rec.record
    class Made(Base):
        b: int
        a: int  # type: ignore[misc]

    assert [(f.name, f.default) for f in rec.fields(Made)] == [
        ("a", rec.MISSING),
        ("b", rec.MISSING),
    ]
    assert Made(1, 2) == Made(a=1, b=2)


def test_merged_bases_are_checked_once_all_are_known() -> None:
    @rec.record
    class Left:
        a: int = 0

    @rec.record
    class Right:
        b: int

    with pytest.raises(TypeError, match="non-default argument 'b'"):

        @rec.record
        class Both(Right, Left):  # fields a (from Left, the furthest), then b
            pass

    @rec.record
    class Fine(Left, Right):
        c: int = 1

    assert [f.name for f in rec.fields(Fine)] == ["b", "a", "c"]
