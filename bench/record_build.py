"""What ``@record`` costs a class at declaration, beside ``@dataclass`` and a plain class.

    .venv/bin/python bench/record_build.py [--rounds N] [--classes N] [--ops N]
    .venv/bin/python bench/record_build.py --baseline /tmp/old_record.py  # + another record.py

Start-up (issue 24): a command pays for every record class it imports (``frontier check``
builds ~57). Each kind below is one 5-field class body (string annotations, as every
module here writes them), executed ``--classes`` times a round: a plain class; ``@record``
(two required fields, three defaults); the same with ``field(...)`` defaults (a factory,
``repr=False``, ``compare=False``); ``@record(slots=True)``; ``@record`` on a record base
(three fields inherited, two added); ``@record(frozen=False)``; the module's ``NamedTuple``
base (``class A(NamedTuple)``, as ``app/`` declares them) and ``typing.NamedTuple``; and
``@dataclass(frozen=True)``. The kinds take turns within each round, so the machine's noise
hits them alike; the classes made are kept until the clock stops (a module keeps its own),
then collected outside it. Printed: min and median per class over the rounds (µs), the
ratio of the medians to the plain class's, and what the decorator adds to it.

Then the instances' operations (``__init__`` by position, by keyword and with defaults,
``==``, ``repr``, ``hash``) of the plain ``@record`` and the ``slots=True`` one, beside the
same ``@dataclass``: the classes take turns within each round; best of the rounds, ns an
operation.

``--baseline FILE`` loads another copy of ``app/record.py`` (an older tree's, say) as a
module of its own and measures its records in the same rounds, for a before/after on a noisy
machine. Nothing is asserted: the machine is shared, the numbers are ratios to read.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import importlib.util
import os
import statistics
import sys
import time
import typing
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

BODIES = {
    "plain class": """
def make():
    class A:
        a: int
        b: str
        c: float = 0.0
        d: tuple[int, ...] = ()
        e: str | None = None
    return A
""",
    "@record": """
def make():
    @record
    class A:
        a: int
        b: str
        c: float = 0.0
        d: tuple[int, ...] = ()
        e: str | None = None
    return A
""",
    "@record, field()s": """
def make():
    @record
    class A:
        a: int
        b: str
        c: list[int] = field(default_factory=list)
        d: tuple[int, ...] = field(default=(), repr=False)
        e: str | None = field(default=None, compare=False)
    return A
""",
    "@record(slots=True)": """
def make():
    @record(slots=True)
    class A:
        a: int
        b: str
        c: float = 0.0
        d: tuple[int, ...] = ()
        e: str | None = None
    return A
""",
    "@record, record base": """
def make():
    @record
    class A(BASE):
        d: tuple[int, ...] = ()
        e: str | None = None
    return A
""",
    "@record(frozen=False)": """
def make():
    @record(frozen=False)
    class A:
        a: int
        b: str
        c: float = 0.0
        d: tuple[int, ...] = ()
        e: str | None = None
    return A
""",
    "NamedTuple": """
def make():
    class A(NamedTuple):
        a: int
        b: str
        c: float = 0.0
        d: tuple[int, ...] = ()
        e: str | None = None
    return A
""",
    "typing.NamedTuple": """
def make():
    class A(typing.NamedTuple):
        a: int
        b: str
        c: float = 0.0
        d: tuple[int, ...] = ()
        e: str | None = None
    return A
""",
    "@dataclass(frozen=True)": """
def make():
    @dataclass(frozen=True)
    class A:
        a: int
        b: str
        c: float = 0.0
        d: tuple[int, ...] = ()
        e: str | None = None
    return A
""",
}

BASE = """
@record
class Base:
    a: int
    b: str
    c: float = 0.0
"""


def maker(body: str, module: ModuleType | None) -> Callable[[], type]:
    """The body's ``make``, compiled as a module here is (``from __future__ import
    annotations``), with ``record``/``field`` from ``module``."""
    home = ModuleType(f"bench_records_{len(sys.modules)}")  # dataclass reads the module
    sys.modules[home.__name__] = home
    ns: dict[str, Any] = home.__dict__
    ns.update(dataclass=dataclasses.dataclass, typing=typing)
    if module is not None:
        ns.update(record=module.record, field=module.field, NamedTuple=module.NamedTuple)
        exec(compile("from __future__ import annotations\n" + BASE, "<base>", "exec"), ns)
        ns["BASE"] = ns["Base"]
    exec(compile("from __future__ import annotations\n" + body, "<bench>", "exec"), ns)
    make: Callable[[], type] = ns["make"]
    return make


def per_class(make: Callable[[], type], count: int) -> float:
    """µs a class; the classes are kept until the clock stops, as a module keeps its own
    (else the time would include freeing them), then collected outside it."""
    kept = []
    t0 = time.perf_counter()
    for _ in range(count):
        kept.append(make())
    took = (time.perf_counter() - t0) / count * 1e6
    del kept
    gc.collect()
    return took


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("baseline_record", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def op_calls(made: type) -> dict[str, Callable[[], object]]:
    x, y = made(1, "s", 2.0, (1,), None), made(1, "s", 2.0, (1,), None)
    calls: dict[str, Callable[[], object]] = {
        "init, by position": lambda: made(1, "s", 2.0, (1,), None),
        "init, by keyword": lambda: made(a=1, b="s", c=2.0, d=(), e=None),
        "init, defaults": lambda: made(1, "s"),
        "==": lambda: x == y,
        "repr": lambda: repr(x),
        "hash": lambda: hash(x),
    }
    return calls


def instance_ops(classes: dict[str, type], ops: int, rounds: int) -> dict[str, dict[str, float]]:
    """Best ns an operation for each class and operation; the classes take turns within
    each round (the machine's noise hits them alike)."""
    calls = {label: op_calls(made) for label, made in classes.items()}
    best = {label: dict.fromkeys(row, float("inf")) for label, row in calls.items()}
    for _ in range(rounds):
        for op in next(iter(calls.values())):
            for label, row in calls.items():
                fn = row[op]
                t0 = time.perf_counter()
                for _ in range(ops):
                    fn()
                took = (time.perf_counter() - t0) / ops * 1e9
                best[label][op] = min(best[label][op], took)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--classes", type=int, default=300, help="classes per kind per round")
    ap.add_argument("--ops", type=int, default=20000, help="instance operations per round")
    ap.add_argument("--baseline", type=Path, help="another record.py, measured alongside")
    args = ap.parse_args()

    from frontier.app import record as current

    modules: list[tuple[str, ModuleType]] = [("", current)]
    if args.baseline:
        modules.append((" (baseline)", load(args.baseline)))
    kinds: list[tuple[str, Callable[[], type]]] = []
    for label, body in BODIES.items():
        if "@record" in label or label == "NamedTuple":
            kinds += [(label + suffix, maker(body, module)) for suffix, module in modules]
        else:
            kinds.append((label, maker(body, None)))
    times: dict[str, list[float]] = {label: [] for label, _ in kinds}
    for _label, make in kinds:  # warm-up
        per_class(make, max(1, args.classes // 10))
    load_before = os.getloadavg()
    for _ in range(args.rounds):
        for label, make in kinds:
            times[label].append(per_class(make, args.classes))
    load_after = os.getloadavg()
    plain = statistics.median(times["plain class"])
    print(
        f"class creation: {args.classes} classes a kind a round, {args.rounds} rounds, "
        f"Python {sys.version.split()[0]}; load {load_before[0]:.2f} -> {load_after[0]:.2f}"
    )
    print(f"{'kind':36} {'min µs':>8} {'p50 µs':>8} {'x plain':>8} {'added µs':>9}")
    for label, _ in kinds:
        p50 = statistics.median(times[label])
        added = f"{p50 - plain:9.1f}" if label != "plain class" else f"{'-':>9}"
        print(f"{label:36} {min(times[label]):8.1f} {p50:8.1f} {p50 / plain:8.2f} {added}")

    gc.collect()
    classes: dict[str, type] = {}
    for suffix, module in modules:
        for kind in ("@record", "@record(slots=True)"):
            classes[kind + suffix] = maker(BODIES[kind], module)()
    classes["@dataclass(frozen=True)"] = maker(BODIES["@dataclass(frozen=True)"], None)()
    rows = instance_ops(classes, args.ops, args.rounds)
    ops = list(rows["@record"])
    print(f"\ninstance operations: best of {args.rounds} rounds of {args.ops}, ns an operation")
    print(f"{'class':36} " + " ".join(f"{op:>17}" for op in ops))
    for label, row in rows.items():
        print(f"{label:36} " + " ".join(f"{row[op]:17.0f}" for op in ops))


if __name__ == "__main__":
    main()
