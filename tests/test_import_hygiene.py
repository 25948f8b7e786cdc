"""The core runs headless: importing it must not load Textual (DESIGN §1)."""

from __future__ import annotations

import subprocess
import sys

import pytest

CORE_MODULES = [
    "frontier.app.events",
    "frontier.app.config",
    "frontier.app.cli",
    "frontier.tools.contract",
]


def _loaded_after_import(module: str) -> set[str]:
    code = f"import sys, {module}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_module_does_not_import_textual(module: str) -> None:
    loaded = _loaded_after_import(module)
    assert "textual" not in loaded


def test_cli_help_is_fast_path() -> None:
    """``frontier --help`` parses arguments without importing Textual or httpx."""
    code = (
        "import sys\nfrom frontier.app import cli\n"
        "try:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('textual' in sys.modules, 'httpx' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False False"
