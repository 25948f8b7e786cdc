"""The core runs headless: importing it must not load Textual (DESIGN §1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE_PACKAGES = {
    "app/cst": "frontier.app.cst",
    "app/agent": "frontier.app.agent",
    "app/session": "frontier.app.session",
    "app/providers": "frontier.app.providers",
    "tools": "frontier.tools",
}


def _core_modules() -> list[str]:
    """Every module of the core packages, found on disk so a new one is covered too."""
    names = ["frontier.app.events", "frontier.app.config", "frontier.app.cli"]
    for folder, package in CORE_PACKAGES.items():
        for path in sorted((ROOT / folder).glob("*.py")):
            names.append(package if path.stem == "__init__" else f"{package}.{path.stem}")
    return names


CORE_MODULES = _core_modules()


def test_core_modules_do_not_import_textual() -> None:
    """One interpreter per package keeps this fast; each module is imported in turn."""
    code = (
        "import importlib, sys\n"
        f"for name in {CORE_MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "    if 'textual' in sys.modules:\n"
        "        print(name); break\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{out.stdout.strip()} imports textual"
    assert len(CORE_MODULES) > 30


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
