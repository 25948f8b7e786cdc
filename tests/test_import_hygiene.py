"""The core runs headless: importing it must not load Textual (DESIGN §1)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE_PACKAGES = {
    "app/wire": "frontier.app.wire",
    "app/cst": "frontier.app.cst",
    "app/agent": "frontier.app.agent",
    "app/session": "frontier.app.session",
    "app/model": "frontier.app.model",
    "app/model/wires": "frontier.app.model.wires",
    "app/evaluation": "frontier.app.evaluation",
    "tools": "frontier.tools",
}
CORE_TOP = [
    "frontier.app.events",
    "frontier.app.stream_events",
    "frontier.app.vocab",
    "frontier.app.secrets",
    "frontier.app.config",
    "frontier.app.cli",
    "frontier.app.replay_player",
]


def _core_modules() -> list[str]:
    """Every module of the core packages, found on disk so a new one is covered too."""
    names = list(CORE_TOP)
    for folder, package in CORE_PACKAGES.items():
        for path in sorted((ROOT / folder).glob("*.py")):
            names.append(package if path.stem == "__init__" else f"{package}.{path.stem}")
    return names


CORE_MODULES = _core_modules()

# Each module is imported in a process of its own: forked from a parent that has imported
# nothing of Frontier, so a module that loads Textual is caught by name, and one that only
# imports because an earlier module prepared the ground is caught too. Forking keeps the
# ~100 checks under a second or two, where one interpreter each would take ~15 s.
_PER_MODULE = """
import importlib, os, sys
bad = []
for name in sys.argv[1:]:
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(name)
        except BaseException as exc:
            print(f"{name}: import failed: {exc!r}", flush=True)
            os._exit(2)
        os._exit(1 if "textual" in sys.modules else 0)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code == 1:
        print(f"{name}: imports textual", flush=True)
    elif code != 0 and code != 2:
        print(f"{name}: exit {code}", flush=True)
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="per-module processes are forked")
def test_core_modules_do_not_import_textual() -> None:
    """No core module loads Textual on its own (DESIGN §1: the core runs headless)."""
    out = subprocess.run(
        [sys.executable, "-c", _PER_MODULE, *CORE_MODULES],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    assert out.stdout.strip() == "", out.stdout
    assert len(CORE_MODULES) > 30


def test_core_imported_together_does_not_import_textual() -> None:
    """All of the core in one interpreter, as the headless front end loads it."""
    code = (
        "import importlib, sys\n"
        f"for name in {CORE_MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "print('textual' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_vocabulary_imports_nothing_of_frontier() -> None:
    """``events``, ``vocab`` and ``wire`` are the bottom layer: importing any of them loads
    no other Frontier module (the CLI reads its choices from ``vocab`` before any command)
    but ``record``, the way the layer declares its classes, and ``fastjson`` (``json``
    without the package), which import nothing."""
    bottom = [
        "frontier.app.record",
        "frontier.app.fastjson",
        "frontier.app.events",
        "frontier.app.stream_events",
        "frontier.app.vocab",
        "frontier.app.wire.sse",
        "frontier.app.wire.safejson",
    ]
    allowed = {"frontier", "frontier.app", "frontier.app.wire", *bottom}
    for name in bottom:
        code = (
            f"import sys, {name}\nprint(sorted(m for m in sys.modules if m.startswith('frontier')))"
        )
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        loaded = set(ast.literal_eval(out.stdout))
        assert loaded <= allowed, f"{name} loads {sorted(loaded - allowed)}"


def test_the_neutral_stream_imports_only_the_vocabulary() -> None:
    """``app.model.stream`` (the deltas ``app.cst`` reads, where the chat chunk reader
    ``wire.chunks`` was) loads nothing of Frontier but the vocabulary (``events``,
    ``vocab``): no wire adapter, no transport, no httpx."""
    code = (
        "import sys, frontier.app.model.stream\n"
        "print(sorted(m for m in sys.modules if m.startswith('frontier')), 'httpx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded_text, _, httpx_loaded = out.stdout.strip().rpartition(" ")
    loaded = set(ast.literal_eval(loaded_text))
    allowed = {
        "frontier",
        "frontier.app",
        "frontier.app.events",
        "frontier.app.record",
        "frontier.app.stream_events",
        "frontier.app.vocab",
        "frontier.app.model",
        "frontier.app.model.stream",
    }
    assert loaded <= allowed, f"loads {sorted(loaded - allowed)}"
    assert httpx_loaded == "False"


def test_no_module_names_the_removed_provider_layer() -> None:
    """``app/providers`` and ``app/wire/chunks`` are gone (issue 20): the module lists
    above name ``app/model`` and its wires instead (an import of the old ones would fail
    the per-module check)."""
    assert not (ROOT / "app" / "providers").exists()
    assert not (ROOT / "app" / "wire" / "chunks.py").exists()
    assert not any(
        name.startswith(("frontier.app.providers", "frontier.app.wire.chunks"))
        for name in CORE_MODULES
    )
    assert "frontier.app.model.transport" in CORE_MODULES
    assert "frontier.app.model.wires.openai_chat" in CORE_MODULES


def test_cli_help_is_fast_path() -> None:
    """``frontier --help`` parses arguments without importing Textual or httpx."""
    code = (
        "import sys\nfrom frontier.app import cli\n"
        "try:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('textual' in sys.modules, 'httpx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False False"


def test_version_prints_the_installed_version_on_stdout() -> None:
    from importlib.metadata import version

    out = subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert out.stdout == f"frontier {version('frontier-agent')}\n"
