"""Value classes declared like dataclasses, built without ``dataclasses``.

Why: ``@dataclass`` compiles every method it generates (``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``) from source at import, ~1 ms a
class on this project's machines, and importing ``dataclasses`` pulls in ``inspect``
(~15 ms). The core declares ~190 such classes, and a command such as ``frontier check``
imported 60 of them before it did any work: most of its start-up (issue 24). ``@record``
takes the same declarations and gives the same behaviour from methods written once, here,
that read a per-class tuple of fields: nothing is compiled at import. Declaring one is
itself kept cheap (~12 µs over the bare class for five fields; ``bench/record_build.py``).

What it does, as ``@dataclass`` does (``tests/test_record.py`` holds the two side by side):
fields from the class's annotations in order, inherited from record bases first,
``ClassVar`` excluded; defaults and ``field(default=, default_factory=, repr=, compare=)``;
``__init__`` (positional or keyword; ``__post_init__`` after), ``__repr__``, ``__eq__``,
``__hash__`` (frozen and eq: the fields' hash; eq and not frozen: unhashable),
``__match_args__``, ``frozen`` (assignment raises ``dataclasses.FrozenInstanceError``) and
``slots``. A method the class body defines itself is kept. ``fields``, ``replace``,
``asdict`` and ``is_record`` are this module's; the standard ones also work on a record
(its ``__dataclass_fields__`` and ``__signature__`` are made on first use, importing
``dataclasses`` and ``inspect`` then), so a test or a library that uses them sees a
dataclass. Not supported (refused at declaration): ``order``, ``kw_only``,
``unsafe_hash``, ``field(init=False)``.

The type checker sees ``@record`` as a dataclass transform, so constructors are checked.
Nothing here imports beyond ``sys`` and ``abc`` (both loaded before any program runs), not
even ``typing``.
"""

from __future__ import annotations

import sys
from abc import update_abstractmethods

TYPE_CHECKING = False
"""``typing`` is not imported at run time (~3 ms): every annotation here is a string."""
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform, overload

    _T = TypeVar("_T")


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()

_set = object.__setattr__


class Field:
    """One field of a record: its name, default or default factory, and whether it is
    shown by ``repr`` and compared by ``==`` (and so hashed)."""

    __slots__ = ("compare", "default", "default_factory", "name", "repr", "type")

    def __init__(
        self,
        default: Any = MISSING,
        default_factory: Any = MISSING,
        repr: bool = True,
        compare: bool = True,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.type: object = None
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare

    init = True
    """Every field is an ``__init__`` parameter (``field(init=False)`` is not supported);
    here so code written for ``dataclasses.Field`` reads a record's the same way."""

    def __repr__(self) -> str:
        return (
            f"Field(name={self.name!r}, default={self.default!r}, "
            f"default_factory={self.default_factory!r}, repr={self.repr}, compare={self.compare})"
        )


if TYPE_CHECKING:

    @overload
    def field(*, default: _T, repr: bool = ..., compare: bool = ...) -> _T: ...
    @overload
    def field(
        *, default_factory: Callable[[], _T], repr: bool = ..., compare: bool = ...
    ) -> _T: ...
    @overload
    def field(*, repr: bool = ..., compare: bool = ...) -> Any: ...


def field(  # type: ignore[misc]  # the overloads above are what callers see
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    """A field's options, as ``dataclasses.field`` takes them (the subset records use)."""
    return Field(default, default_factory, repr, compare)


_FIELDS = "__record_fields__"
_CLASSVAR = ("ClassVar", "typing.ClassVar")
_MUTABLE = (list, dict, set, bytearray)
_PLAIN = frozenset({int, str, float, bool, bytes, tuple, frozenset, type(None), _Missing})
"""Default types that are neither a ``Field`` nor mutable: the exact type tells."""


if TYPE_CHECKING:
    _Found = dict[str, Field]
    """A class's fields by name."""
    _Fill = tuple[str, frozenset[str], tuple[tuple[str, Any, Any], ...]]
    """An ``__init__``'s title (for messages), its keywords, and each field's
    (name, default, default factory)."""


def _is_classvar(annotation: object) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(_CLASSVAR)
    return str(annotation).startswith("typing.ClassVar")


def _collect(
    cls: type,
) -> tuple[_Found, tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The fields of ``cls``: its record bases' first (a redeclared one keeps its place),
    then its own annotations, by name. Each class attribute that held a ``field()`` is set
    to its plain default, as ``dataclasses`` leaves it. With them, what the methods read:
    the fields' names, those ``repr`` shows and those ``==`` compares (the names themselves
    when every field is shown and compared, as most are).

    Each record class pays this at import (issue 24), so the common case takes the fewest
    steps: the MRO is walked only when the class has a base, a string annotation is looked
    at twice only if it mentions ``ClassVar``, a default of a plain immutable type skips the
    mutability check, and the order of defaults is checked as the fields come unless some
    were inherited."""
    found: _Found = {}
    every = True  # every field shown and compared
    mro = cls.__mro__
    if len(mro) > 2:  # a base other than object (a record, maybe): cheaper than a getattr
        for base in reversed(mro[1:]):  # from the furthest base
            for f in base.__dict__.get(_FIELDS, ()):
                found[f.name] = f
                every = every and f.repr and f.compare
    inherited = bool(found)
    own = cls.__dict__
    annotations = own.get("__annotations__", {})  # the class's own (inspect costs ~10 ms)
    seen_default = ""  # the last field with a default, so far
    late = ""  # the first without one after one with: raised after the loop, so that a
    # mutable default's ValueError comes first, as it always did
    for name, annotation in annotations.items():
        if annotation.__class__ is str:
            if "ClassVar" in annotation and annotation.startswith(_CLASSVAR):
                continue
        elif _is_classvar(annotation):
            continue
        value = own.get(name, MISSING)
        try:
            plain = value.__class__ in _PLAIN
        except TypeError:  # a class its metaclass makes unhashable: not a plain one
            plain = False
        if plain:
            f = found[name] = Field(value)
            f.name = name
            f.type = annotation
            if value is not MISSING:
                seen_default = name
            elif seen_default and not late:
                late = name
            continue
        if isinstance(value, Field):
            f = value
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
            every = every and f.repr and f.compare
        else:
            f = Field(value)
        if isinstance(f.default, _MUTABLE):
            raise ValueError(
                f"mutable default {type(f.default)} for field {name} is not allowed: "
                "use default_factory"
            )
        f.name = name
        f.type = annotation
        found[name] = f
        if f.default is not MISSING or f.default_factory is not MISSING:
            seen_default = name
        elif seen_default and not late:
            late = name
    if late and not inherited:
        raise _order_error(late)
    if inherited:  # a redeclared field keeps its place: check the order as it ends up
        seen_default = ""
        for name, f in found.items():
            if f.default is not MISSING or f.default_factory is not MISSING:
                seen_default = name
            elif seen_default:
                raise _order_error(name)
    names = tuple(found)
    if every:
        return found, names, names, names
    shown = tuple([n for n, f in found.items() if f.repr])
    compared = tuple([n for n, f in found.items() if f.compare])
    return found, names, shown, compared


def _order_error(name: str) -> TypeError:
    return TypeError(f"non-default argument {name!r} follows default argument")


def _make_init(
    cls: type, found: _Found, names: tuple[str, ...], slots: bool
) -> Callable[..., None]:
    count = len(names)
    qualname = cls.__qualname__
    post_init = hasattr(cls, "__post_init__")  # decided at declaration, as dataclasses does
    spec: _Fill | None = None  # what binding reads: made by the first call that binds

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        nonlocal spec
        if spec is None:
            spec = (
                f"{qualname}.__init__()",
                frozenset(names),
                tuple((n, f.default, f.default_factory) for n, f in found.items()),
            )
        title, known, fill = spec
        if len(args) > count:
            raise TypeError(
                f"{title} takes {count + 1} positional arguments but {len(args) + 1} were given"
            )
        given = dict(zip(names, args, strict=False))  # fewer args than names
        for key, value in kwargs.items():
            if key not in known:
                raise TypeError(f"{title} got an unexpected keyword argument {key!r}")
            if key in given:
                raise TypeError(f"{title} got multiple values for argument {key!r}")
            given[key] = value
        values: dict[str, Any] = {}
        missing = []
        for name, default, factory in fill:
            if name in given:
                values[name] = given[name]
            elif default is not MISSING:
                values[name] = default
            elif factory is not MISSING:
                values[name] = factory()
            else:
                missing.append(repr(name))
        if missing:
            raise TypeError(
                f"{title} missing {len(missing)} required positional argument"
                f"{'s' if len(missing) > 1 else ''}: {', '.join(missing)}"
            )
        return values

    if slots:

        def init_slots(self: Any, *args: Any, **kwargs: Any) -> None:
            values = (
                zip(names, args, strict=True)
                if not kwargs and len(args) == count
                else bind(args, kwargs).items()
            )
            for name, value in values:
                _set(self, name, value)
            if post_init:
                self.__post_init__()

        return init_slots

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        if not kwargs and len(args) == count:
            self.__dict__.update(zip(names, args, strict=True))
        elif not args and tuple(kwargs) == names:  # every field by name, in order
            self.__dict__.update(kwargs)
        else:
            self.__dict__.update(bind(args, kwargs))
        if post_init:
            self.__post_init__()

    return init


def _make_repr(shown: tuple[str, ...]) -> Callable[[Any], str]:
    active: set[int] = set()

    def __repr__(self: Any) -> str:
        key = id(self)
        if key in active:  # a record that holds itself, as reprlib.recursive_repr guards
            return "..."
        active.add(key)
        try:
            body = ", ".join(f"{n}={getattr(self, n)!r}" for n in shown)
        finally:
            active.discard(key)
        return f"{type(self).__qualname__}({body})"

    return __repr__


def _make_eq(compared: tuple[str, ...]) -> Callable[[Any, object], bool]:
    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return tuple(getattr(self, n) for n in compared) == tuple(
            getattr(other, n) for n in compared
        )

    return __eq__


def _make_hash(compared: tuple[str, ...]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(tuple(getattr(self, n) for n in compared))

    return __hash__


def _frozen_error(name: str) -> AttributeError:
    from dataclasses import FrozenInstanceError  # only on a bug: assigning to a record

    return FrozenInstanceError(f"cannot assign to field {name!r}")


def _make_frozen(
    home: list[type], names: tuple[str, ...]
) -> tuple[Callable[..., None], Callable[..., None]]:
    """``home`` holds the class the two are set on (with ``slots``, the class is made
    after them, with them in its namespace)."""

    def __setattr__(self: Any, name: str, value: Any) -> None:
        cls = home[0]
        if type(self) is cls or name in names:
            raise _frozen_error(name)
        super(cls, self).__setattr__(name, value)  # type: ignore[arg-type]  # cls is a class

    def __delattr__(self: Any, name: str) -> None:
        cls = home[0]
        if type(self) is cls or name in names:
            raise _frozen_error(name)
        super(cls, self).__delattr__(name)  # type: ignore[arg-type]  # cls is a class

    return __setattr__, __delattr__


class _DataclassFields:
    """``__dataclass_fields__`` made on first use, so ``dataclasses.fields``,
    ``replace``, ``asdict`` and ``is_dataclass`` work on a record (tests, libraries)."""

    def __get__(self, obj: object, cls: type) -> dict[str, Any]:
        made = cls.__dict__.get("_dataclass_fields_made")
        if made is None:
            import dataclasses

            made = {}
            for f in getattr(cls, _FIELDS):
                options: dict[str, Any] = {"repr": f.repr, "compare": f.compare}
                if f.default is not MISSING:
                    options["default"] = f.default
                if f.default_factory is not MISSING:
                    options["default_factory"] = f.default_factory
                spec: Any = dataclasses.field(**options)
                spec.name = f.name
                spec.type = f.type
                spec._field_type = dataclasses._FIELD  # type: ignore[attr-defined]
                made[f.name] = spec
            type.__setattr__(cls, "_dataclass_fields_made", made)
        return made


class _Factory:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


class _Signature:
    """``__signature__`` made on first use (``inspect.signature``, hypothesis'
    ``builds``): the written ``__init__`` takes ``*args, **kwargs``."""

    def __get__(self, obj: object, cls: type) -> Any:
        if obj is not None:
            raise AttributeError("__signature__")
        import inspect

        params = [
            inspect.Parameter(
                f.name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=(
                    f.default
                    if f.default is not MISSING
                    else _FACTORY
                    if f.default_factory is not MISSING
                    else inspect.Parameter.empty
                ),
                annotation=f.type,
            )
            for f in getattr(cls, _FIELDS)
        ]
        return inspect.Signature(params, return_annotation=None)


_DATACLASS_FIELDS = _DataclassFields()
_SIGNATURE = _Signature()
"""Both read the class they are looked up on: one of each serves every record."""


def _add_slots(cls: type, names: tuple[str, ...], frozen: bool, added: dict[str, Any]) -> type:
    """``cls`` made again with ``__slots__`` for its fields, and with ``added`` (its
    methods) in the namespace: one class creation, not a ``setattr`` for each."""
    body = dict(cls.__dict__)
    mro = cls.__mro__
    if len(mro) > 2:  # a base's slots are not made again
        inherited = {s for base in mro[1:-1] for s in base.__dict__.get("__slots__", ())}
        body["__slots__"] = tuple(n for n in names if n not in inherited)
    else:
        body["__slots__"] = names
    for name in names:
        body.pop(name, None)
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    if frozen:

        def __getstate__(self: Any) -> list[Any]:
            return [getattr(self, n) for n in names]

        def __setstate__(self: Any, state: list[Any]) -> None:
            for name, value in zip(names, state, strict=True):
                _set(self, name, value)

        body["__getstate__"] = __getstate__
        body["__setstate__"] = __setstate__
    body.update(added)
    body["__qualname__"] = cls.__qualname__
    made: type = type(cls)(cls.__name__, cls.__bases__, body)
    return made


def _build(cls: type, frozen: bool, init: bool, repr: bool, eq: bool, slots: bool) -> type:
    """The methods are made first, then set on the class (or, with ``slots``, put in the
    namespace of the one class made again): each attribute set on a class costs ~0.2 µs
    (it updates the class's slots and invalidates the type cache), a record sets ~10."""
    found, names, shown, compared = _collect(cls)
    own = cls.__dict__
    if frozen and ("__setattr__" in own or "__delattr__" in own):
        raise TypeError(f"cannot overwrite __setattr__ or __delattr__ in frozen {cls.__name__}")
    added: dict[str, Any] = {
        _FIELDS: tuple(found.values())
    }  # in the order the class's __dict__ has them
    if init and "__init__" not in own:
        added["__init__"] = _make_init(cls, found, names, slots)
    if repr and "__repr__" not in own:
        added["__repr__"] = _make_repr(shown)
    if eq and "__eq__" not in own:
        added["__eq__"] = _make_eq(compared)
    # The body's __hash__ is kept unless it is None (a body's __eq__ sets it so; an
    # explicit ``__hash__ = None`` is replaced too, as it always was here).
    if eq and own.get("__hash__") is None:
        added["__hash__"] = _make_hash(compared) if frozen else None
    home = [cls]  # the class the methods are on: another one with ``slots``
    if frozen:
        added["__setattr__"], added["__delattr__"] = _make_frozen(home, names)
    if "__match_args__" not in own:
        added["__match_args__"] = names
    if "__dataclass_fields__" not in own:
        added["__dataclass_fields__"] = _DATACLASS_FIELDS
    if init and "__signature__" not in own:
        added["__signature__"] = _SIGNATURE
    if slots:
        cls = home[0] = _add_slots(cls, names, frozen, added)
    else:
        # ``setattr`` is ~40% cheaper than ``type.__setattr__`` (no slot wrapper), and the
        # same unless the metaclass has its own ``__setattr__``, which is bypassed
        put = setattr if type(cls).__setattr__ is type.__setattr__ else type.__setattr__
        for name, value in added.items():
            put(cls, name, value)
    if getattr(cls, "__abstractmethods__", None):
        update_abstractmethods(cls)
    return cls


def _record(
    cls: type | None = None,
    /,
    *,
    frozen: bool = True,
    init: bool = True,
    repr: bool = True,
    eq: bool = True,
    slots: bool = False,
    order: bool = False,
    kw_only: bool = False,
    unsafe_hash: bool = False,
) -> Any:
    """``@record`` (frozen) or ``@record(frozen=False, slots=True, ...)``."""
    if order or kw_only or unsafe_hash:
        refuse = _refuser({"order": order, "kw_only": kw_only, "unsafe_hash": unsafe_hash})
        return refuse if cls is None else refuse(cls)
    if cls is None:
        return _decorator(frozen, init, repr, eq, slots)
    return _build(cls, frozen, init, repr, eq, slots)  # no closure: ``@record`` is the most used


def _decorator(
    frozen: bool, init: bool, repr: bool, eq: bool, slots: bool
) -> Callable[[type], type]:
    def wrap(c: type) -> type:
        return _build(c, frozen, init, repr, eq, slots)

    return wrap


def _refuser(options: dict[str, bool]) -> Callable[[type], type]:
    def refuse(c: type) -> type:  # at declaration, as before
        raise TypeError(f"@record does not support {', '.join(k for k, v in options.items() if v)}")

    return refuse


if TYPE_CHECKING:

    @overload
    def record(cls: type[_T], /) -> type[_T]: ...
    @overload
    def record(
        *,
        frozen: bool = True,
        init: bool = True,
        repr: bool = True,
        eq: bool = True,
        slots: bool = False,
    ) -> Callable[[type[_T]], type[_T]]: ...
    @dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
    def record(*args: Any, **kwargs: Any) -> Any: ...

else:
    record = _record


def is_record(obj: object) -> bool:
    """True for a record class or instance."""
    return hasattr(obj if isinstance(obj, type) else type(obj), _FIELDS)


def fields(obj: Any) -> tuple[Field, ...]:
    """The fields of a record (class or instance), in declaration order."""
    try:
        return getattr(obj if isinstance(obj, type) else type(obj), _FIELDS)  # type: ignore[no-any-return]
    except AttributeError:
        raise TypeError(f"{obj!r} is not a record") from None


def replace(obj: _T, /, **changes: Any) -> _T:
    """A copy of the record ``obj`` with ``changes`` (as ``dataclasses.replace``)."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return type(obj)(**changes)


def asdict(obj: Any) -> Any:
    """A record as nested dicts (records and dataclasses within it too), lists and tuples
    rebuilt, everything else as it is (as ``dataclasses.asdict``, without its deep copy
    of other values: the callers serialize the result at once)."""
    if is_record(obj) and not isinstance(obj, type):
        return {f.name: asdict(getattr(obj, f.name)) for f in fields(obj)}
    stdlib = sys.modules.get("dataclasses")  # no dataclass exists unless it was imported
    if stdlib is not None and stdlib.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: asdict(getattr(obj, f.name)) for f in stdlib.fields(obj)}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*[asdict(v) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)(asdict(v) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((asdict(k), asdict(v)) for k, v in obj.items())
    return obj


# --------------------------------------------------------------------------- named tuples

_NT_PROHIBITED = frozenset(
    {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults"}
    | {"_make", "_replace", "_asdict", "_source"}
)
_NT_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})
_NT_NAMESPACE = frozenset({"__qualname__", "__doc__"})


_TUPLEGETTER: Any = None
"""``collections``' C accessor of a named tuple's field, looked up on first use."""


def _tuplegetter() -> Any:
    global _TUPLEGETTER  # a cache: looked up once, not per class
    try:
        from _collections import _tuplegetter  # type: ignore[import-not-found]  # C, no stub
    except ImportError:  # another Python: collections' own fallback
        from collections import _tuplegetter  # type: ignore[attr-defined]
    _TUPLEGETTER = _tuplegetter
    return _tuplegetter


def _named_tuple(
    name: str,
    names: tuple[str, ...],
    defaults: tuple[Any, ...],
    extra: dict[str, Any] | None = None,
) -> Any:
    """``collections.namedtuple(name, names, defaults=defaults)``, without its ``eval``;
    ``extra`` goes into the class's namespace too (``__module__``, ``__qualname__``, ...:
    set there, not on the class made, they cost nothing more).

    ``namedtuple`` compiles each class's ``__new__`` from source (~0.1 ms a class; twelve
    on ``apply-patch``'s path: issue 24). Here ``__new__`` is one function for all: a call
    with every field by position (what Frontier's code does) is a length check and a
    ``tuple.__new__``; any other is bound by :func:`_bind_fields`, with the messages the
    compiled ``__new__`` gives."""
    getter = _TUPLEGETTER or _tuplegetter()
    count = len(names)
    field_defaults = dict(zip(names[count - len(defaults) :], defaults, strict=True))
    tuple_new = tuple.__new__
    repr_fmt = "(" + ", ".join(f"{n}=%r" for n in names) + ")"
    arg_list = ", ".join(names) + ("," if count == 1 else "")

    def __new__(_cls: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != count:
            args = _bind_fields(name, names, field_defaults, args, kwargs)
        return tuple_new(_cls, args)

    def _make(cls: Any, iterable: Any) -> Any:
        result = tuple_new(cls, iterable)
        if len(result) != count:
            raise TypeError(f"Expected {count} arguments, got {len(result)}")
        return result

    def _replace(self: Any, /, **kwds: Any) -> Any:
        result = self._make(map(kwds.pop, names, self))
        if kwds:
            raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
        return result

    def __repr__(self: Any) -> str:
        """Return a nicely formatted representation string"""
        return self.__class__.__name__ + repr_fmt % self

    def _asdict(self: Any) -> dict[str, Any]:
        """Return a new dict which maps field names to their values."""
        return dict(zip(self._fields, self, strict=True))

    def __getnewargs__(self: Any) -> tuple[Any, ...]:
        """Return self as a plain tuple.  Used by copy and pickle."""
        return tuple(self)

    __new__.__doc__ = f"Create new instance of {name}({arg_list})"
    _make.__doc__ = f"Make a new {name} object from a sequence or iterable"
    _replace.__doc__ = f"Return a new {name} object replacing specified fields with new values"
    __new__.__qualname__ = f"{name}.__new__"
    _make.__qualname__ = f"{name}._make"
    _replace.__qualname__ = f"{name}._replace"
    __repr__.__qualname__ = f"{name}.__repr__"
    _asdict.__qualname__ = f"{name}._asdict"
    __getnewargs__.__qualname__ = f"{name}.__getnewargs__"
    namespace: dict[str, Any] = {
        "__doc__": f"{name}({arg_list})",
        "__slots__": (),
        "_fields": names,
        "_field_defaults": field_defaults,
        "__new__": __new__,
        "_make": classmethod(_make),
        "_replace": _replace,
        "__repr__": __repr__,
        "_asdict": _asdict,
        "__getnewargs__": __getnewargs__,
        "__match_args__": names,
    }
    for index, field_name in enumerate(names):
        namespace[field_name] = getter(index, f"Alias for field number {index}")
    if extra:
        namespace.update(extra)
    return type(name, (tuple,), namespace)


def _bind_fields(
    name: str,
    names: tuple[str, ...],
    defaults: dict[str, Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> tuple[Any, ...]:
    """The field values of a ``__new__`` call given other than all by position; a wrong
    call raises the ``TypeError`` Python raises for ``def __new__(_cls, a, b=0)``."""
    where = f"{name}.__new__()"
    count = len(names)
    if len(args) > count:
        low = count - len(defaults) + 1
        takes = f"from {low} to {count + 1}" if defaults else f"{count + 1}"
        given = len(args) + 1
        were = "was" if given == 1 else "were"
        raise TypeError(f"{where} takes {takes} positional arguments but {given} {were} given")
    values = dict(zip(names, args, strict=False))
    for key, value in kwargs.items():
        if key in values:
            raise TypeError(f"{where} got multiple values for argument {key!r}")
        if key not in names:
            raise TypeError(f"{where} got an unexpected keyword argument {key!r}")
        values[key] = value
    missing = [n for n in names if n not in values and n not in defaults]
    if missing:
        quoted = [repr(n) for n in missing]
        if len(quoted) == 1:
            listed = quoted[0]
        elif len(quoted) == 2:
            listed = f"{quoted[0]} and {quoted[1]}"
        else:
            listed = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
        s = "" if len(missing) == 1 else "s"
        raise TypeError(f"{where} missing {len(missing)} required positional argument{s}: {listed}")
    return tuple(values[n] if n in values else defaults[n] for n in names)


class _NamedTupleMeta(type):
    """``class Row(NamedTuple): a: int`` made as ``typing.NamedTuple`` makes it (a
    named tuple, :func:`_named_tuple`, with the class body's defaults, methods and docstring),
    without importing ``typing`` (~3 ms of a patch command's start-up)."""

    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> Any:
        if ns.get("_root", False):
            return super().__new__(mcls, name, bases, ns)
        annotations = ns.get("__annotations__", {})
        names = list(annotations)
        defaults = []
        for field_name in names:
            if field_name in ns:
                defaults.append(ns[field_name])
            elif defaults:
                raise TypeError(
                    f"Non-default namedtuple field {field_name} cannot follow default fields"
                )
        # the class's name, module, docstring and annotations go into its namespace; the
        # rest of the body (methods, ...) is set on the class made, as typing does
        extra = {"__module__": ns["__module__"], "__annotations__": dict(annotations)}
        later = []
        for key, value in ns.items():
            if key in _NT_PROHIBITED:
                raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
            if key in _NT_NAMESPACE:
                extra[key] = value
            elif key not in _NT_SPECIAL and key not in names:
                later.append((key, value))
        made: Any = _named_tuple(name, tuple(names), tuple(defaults), extra)
        for key, value in later:
            setattr(made, key, value)
        return made


class _NamedTuple(metaclass=_NamedTupleMeta):
    _root = True


if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    NamedTuple = _NamedTuple
    """The base a typed named tuple names: ``typing.NamedTuple`` to the type checker."""
