"""Suite-wide settings: isolated data/config dirs, hypothesis profiles, and bytecode for
the processes the tests start."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import textual.constants
from hypothesis import HealthCheck, settings

# Textual's animations off for the apps the tests make (each App reads this when it is
# made; a user's TEXTUAL_ANIMATIONS=none does the same): an animated scroll is ~1 s of
# frames that Pilot waits for, and the README's command took 200-238 s with them, 169 s
# without (stop 42). The one test about what a person sees while a long command scrolls
# turns them back on (test_tui_hostile_review.py).
textual.constants.TEXTUAL_ANIMATIONS = "none"  # type: ignore[misc]


def _quicker_idle_waits() -> None:
    """Pilot's idle waits in 5 ms steps, not 20 ms, and never before a repaint is due.

    ``pilot.press`` waits for the process to look idle twice after every key, and
    ``pilot.pause`` once: Textual sleeps in steps of ``SLEEP_GRANULARITY`` (1/50 s) until a
    step used under 1/20 of it in CPU, so a key cost at least 40 ms asleep and a typed
    ``/approval never`` 0.6 s; the Pilot tests spent ~200 s of the suite's ~900 s of test
    time there. The 20 ms also covered one frame: a screen lays out and paints on a timer
    (1/60 s) after what changed it, so a shorter step alone could end before the layout a
    test then reads (a pane's width: it happened). Here a step is 5 ms, with Textual's
    CPU ratio, and the wait also goes on while the app's screen has a layout, scroll,
    repaint or recompose pending (what that timer would do). The TUI files took 90 s, 63 s
    with 5 ms steps (stop 69). Private to Textual (pinned below 9 in pyproject.toml): the
    screen's flags are read as its ``_on_idle`` reads them; a name gone fails loudly. A
    closing or closed app paints no more, so its screen's flags stay set: the wait looked
    for a repaint that never came and ran its whole 1 s, twice for a quitting key (every
    test ending in ctrl+q took 2 s more, stop 74)."""
    import asyncio
    from time import monotonic, process_time

    import textual.app
    import textual.pilot
    from textual._context import active_app

    step = 1 / 200

    def repaint_due() -> bool:
        app = active_app.get(None)
        if app is None or app._closing or app._closed or not app._screen_stack:
            return False  # a closing app paints no more: its dirty screen stays dirty
        screen = app.screen
        return bool(
            screen._layout_required
            or screen._scroll_required
            or screen._repaint_required
            or screen._recompose_required
            or screen._dirty_widgets
        )

    async def wait_for_idle(min_sleep: float = step, max_sleep: float = 1) -> None:
        start = monotonic()
        while True:
            cpu = process_time()
            await asyncio.sleep(step)
            quiet = process_time() - cpu < step / 20
            elapsed = monotonic() - start
            if elapsed >= max_sleep or (elapsed > min_sleep and quiet and not repaint_due()):
                return

    textual.app.wait_for_idle = wait_for_idle  # type: ignore[assignment]
    textual.pilot.wait_for_idle = wait_for_idle  # type: ignore[assignment]


_quicker_idle_waits()

settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("dev", max_examples=100, deadline=None, print_blob=True)
settings.register_profile("soak", max_examples=20_000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


WORKERS_PER_CORE = 2
"""xdist workers a core (``-n auto``). A Pilot test spends about half its time asleep:
``pilot.pause()`` and ``press`` wait for the process to look idle (short sleeps while its
CPU is quiet), and the CLI tests wait on child processes. Two workers a core fill those
gaps (issue 24: the README's command went from ~5.9 to ~5.0 min on 2 cores); more than two
bought little and loaded the box. With Pilot's shorter idle steps (below) still so: 213 s at
four workers on two cores, 284 s at two (stop 69)."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``slow`` tests (a browser, a server stopped by ctrl+c, crash and soak runs)
    first, the rest in their order: started last, a 20 s test was the suite's last 20 s
    while the other workers sat idle."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def _collect_once_at_the_end(config: pytest.Config) -> None:
    """pytest's unraisable-exception plugin runs ``gc.collect()`` five times when a
    process ends, to surface ``__del__`` errors from cycles. In a worker after ~800 tests
    that took 4.8-7.0 s of wall (2.4-4.0 s of CPU) here; past 5 s execnet sends the
    worker a SIGINT, which landed in hypothesis's gc callback as the ``KeyboardInterrupt``
    some runs ended with. One collection still finds every unreachable cycle; what a
    finalizer frees in turn is left for the interpreter's exit. ``gc_collect_iterations_key``
    is pytest's own knob for this (private; pytest is pinned below 9)."""
    from _pytest.unraisableexception import gc_collect_iterations_key

    config.stash[gc_collect_iterations_key] = 1


def pytest_configure(config: pytest.Config) -> None:
    """Compile Frontier's modules once, before any test starts a ``frontier`` process.

    Hundreds of tests run the real CLI in a child process, and a child imports Frontier
    from source when no bytecode was written — always, where ``PYTHONDONTWRITEBYTECODE`` is
    set (as on the machines CI runs on): 0.5 s more per start. Compiling costs seconds
    once (mtime checks afterwards); the controller does it, not each xdist worker."""
    _collect_once_at_the_end(config)
    if hasattr(config, "workerinput") or not sys.dont_write_bytecode:
        return
    import compileall
    import re

    package = Path(__file__).resolve().parents[1]
    sample = re.compile(r"demo_project")  # the demo's sample project is data, not Frontier
    for folder in ("app", "tools", "widgets", "themes"):
        compileall.compile_dir(package / folder, quiet=1, rx=sample)
    _rewrite_test_modules(config)


def _rewrite_test_modules(config: pytest.Config) -> None:
    """Write pytest's assertion-rewritten bytecode of every test module, once, for the
    xdist workers to read.

    pytest rewrites each test module's ``assert`` statements when it imports it and keeps
    the result in ``__pycache__``, but writes nothing when ``PYTHONDONTWRITEBYTECODE`` is
    set: then every worker rewrote all ~200 modules itself, ~9 s of CPU each of the ~13 s
    a worker spends collecting (four workers on two cores: ~20 s before the first test).
    Workers read a rewritten pyc whether or not they may write one, and check it against
    the source's mtime and size as for any pyc; this writes them as pytest itself would
    (its own functions, so the bytes are the same), on every core. Only with assertion
    rewriting on (``--assert=plain`` leaves nothing to write)."""
    from _pytest.assertion.rewrite import assertstate_key

    if config.getoption("assertmode") != "rewrite" or assertstate_key not in config.stash:
        return
    tests = Path(__file__).resolve().parent
    sources = [tests / "conftest.py", *sorted(tests.glob("test_*.py")), *_plugin_sources(config)]
    global _REWRITE_CONFIG
    _REWRITE_CONFIG = config
    import multiprocessing

    processes = min(os.cpu_count() or 1, 8)
    if processes == 1:
        for source in sources:
            _rewrite_one(source)
        return
    # forked, so each process has this config (what the rewrite reads of it) without pickling
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        pool.map(_rewrite_one, sources, chunksize=4)


def _plugin_sources(config: pytest.Config) -> list[Path]:
    """The modules of pytest plugins the controller has imported so far (hypothesis,
    anyio, syrupy, xdist, …): pytest rewrites their asserts as it does a test module's,
    in every process, and under ``PYTHONDONTWRITEBYTECODE`` keeps nothing: ~2.7 s of CPU
    per worker for ~140 modules. A module was rewritten when its loader is pytest's
    rewriting hook."""
    from _pytest.assertion.rewrite import assertstate_key

    hook = config.stash[assertstate_key].hook
    found = set()
    for module in list(sys.modules.values()):
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.loader is hook and spec.origin:
            origin = Path(spec.origin)
            if origin.suffix == ".py" and origin.parent != Path(__file__).resolve().parent:
                found.add(origin)
    return sorted(found)


_REWRITE_CONFIG: pytest.Config | None = None


def _rewrite_one(source: Path) -> None:
    from _pytest.assertion.rewrite import (
        PYC_TAIL,
        _read_pyc,
        _rewrite_test,
        _write_pyc,
        assertstate_key,
        get_cache_dir,
        try_makedirs,
    )

    config = _REWRITE_CONFIG
    assert config is not None
    cache = get_cache_dir(source)
    pyc = cache / (source.name[:-3] + PYC_TAIL)
    if _read_pyc(source, pyc) is not None or not try_makedirs(cache):
        return  # up to date (mtime and size as pytest checks them), or nowhere to write
    stat, code = _rewrite_test(source, config)
    _write_pyc(config.stash[assertstate_key], code, stat, pyc)


def _share_parsed_css() -> None:
    """Parse each piece of Textual CSS once per test process, not once per App.

    Textual keeps parsed rules per ``Stylesheet``, and ``Stylesheet.reparse`` (a theme
    set, a screen with CSS of its own pushed) parses every source again in a fresh one: a
    Pilot test's App parsed all of Frontier's and Textual's CSS several times, ~60 ms of
    CPU per test. Parsing is a pure function of the text, where it was read from, its
    flags and the CSS variables (the theme), so that is the key here; the parsed rules
    are only read afterwards, as Textual's own cache already shares them between parses.
    A parse that fails is not kept (it raises each time, as before)."""
    from textual.css.stylesheet import Stylesheet

    parse = Stylesheet._parse_rules
    if getattr(parse, "shared", False):
        return
    parsed: dict[tuple[object, ...], Any] = {}

    def shared_parse(self: Stylesheet, css: str, read_from: Any, *args: Any, **kwargs: Any) -> Any:
        key = (css, read_from, args, tuple(sorted(kwargs.items())), tuple(self._variables.items()))
        try:
            return parsed[key]
        except KeyError:
            rules = parsed[key] = parse(self, css, read_from, *args, **kwargs)
            return rules

    shared_parse.shared = True  # type: ignore[attr-defined]
    Stylesheet._parse_rules = shared_parse  # type: ignore[method-assign]


_share_parsed_css()


@pytest.fixture(autouse=True)
def _isolated_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never touch the developer's home: data and config go to a per-test temp dir."""
    base = tmp_path_factory.mktemp("frontier-home")
    monkeypatch.setenv("FRONTIER_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("FRONTIER_CONFIG_DIR", str(base / "config"))
    # the environment section (OS, date, git) differs by machine and day: tests that want
    # it turn it on (tests/test_environment_context.py)
    monkeypatch.setenv("FRONTIER_ENVIRONMENT", "0")
    # the welcome screen offers the model servers running on this machine: none is asked
    # (tests that want one name their own, tests/test_served_models.py)
    monkeypatch.setenv("FRONTIER_LOCAL_SERVERS", "")
    # A review that opens while keys are being typed takes none of them as answers
    # (TYPED_THROUGH): a rule of wall-clock gaps between keys, which Pilot's presses do not
    # control. Off here; tests/test_tui_typed_through.py sets it per app.
    monkeypatch.setattr("frontier.app.frontends.tui.app.TYPED_THROUGH", 0.0)
    for var in (
        "FRONTIER_API_KEY",
        "OPENAI_API_KEY",
        "FRONTIER_BASE_URL",
        "FRONTIER_MODEL",
        "FRONTIER_PROTOCOL",
        "FRONTIER_APPROVAL",
        "FRONTIER_THEME",
        "FRONTIER_LAYOUT",
        "FRONTIER_WORKSPACE",
        "FRONTIER_PATCH_FORMAT",
        "FRONTIER_CONNECT_TIMEOUT",
        "FRONTIER_FIRST_BYTE_TIMEOUT",
        "FRONTIER_IDLE_TIMEOUT",
        "FRONTIER_INSTRUCTIONS",
        "FRONTIER_CONTEXT_WINDOW",
        "FRONTIER_COMPACT_THRESHOLD",
        "FRONTIER_TOOL_ENV_ALLOW",
        "FRONTIER_WIRE",
        "FRONTIER_PROVIDER",
        "FRONTIER_API_KEY_COMMAND",
        "FRONTIER_API_KEY_FILE",
        "FRONTIER_PREFILL",
        "FRONTIER_MAX_TOKENS",
        "FRONTIER_REASONING_EFFORT",
        "ANTHROPIC_API_KEY",
        "OPENROUTER_API_KEY",
        "DEEPSEEK_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def _stop_signals_given_back() -> Iterator[None]:
    """A front end installs the process's SIGTERM/SIGHUP handlers while it runs
    (``stop_signals.py``) and must give them back: one left installed would take a later
    test's signals (two apps under Pilot left theirs until stop 48's review)."""
    yield
    from frontier.app.frontends import stop_signals

    left = list(stop_signals._ACTIVE)
    for stop in left:
        stop.uninstall()
    assert not left, "a front end left its SIGTERM/SIGHUP handlers installed"
