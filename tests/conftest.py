"""Suite-wide settings: isolated data/config dirs, hypothesis profiles, and bytecode for
the processes the tests start."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

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
bought little and loaded the box."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    return WORKERS_PER_CORE * (os.cpu_count() or 1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The ``slow`` tests (a browser, a server stopped by ctrl+c, crash and soak runs)
    first, the rest in their order: started last, a 20 s test was the suite's last 20 s
    while the other workers sat idle."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_configure(config: pytest.Config) -> None:
    """Compile Frontier's modules once, before any test starts a ``frontier`` process.

    Hundreds of tests run the real CLI in a child process, and a child imports Frontier
    from source when no bytecode was written — always, where ``PYTHONDONTWRITEBYTECODE`` is
    set (as on the machines CI runs on): 0.5 s more per start. Compiling costs seconds
    once (mtime checks afterwards); the controller does it, not each xdist worker."""
    if hasattr(config, "workerinput") or not sys.dont_write_bytecode:
        return
    import compileall
    import re

    package = Path(__file__).resolve().parents[1]
    sample = re.compile(r"demo_project")  # the demo's sample project is data, not Frontier
    for folder in ("app", "tools", "widgets", "themes"):
        compileall.compile_dir(package / folder, quiet=1, rx=sample)


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
        "ANTHROPIC_API_KEY",
        "OPENROUTER_API_KEY",
    ):
        monkeypatch.delenv(var, raising=False)
