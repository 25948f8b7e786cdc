"""The layering contract (``[tool.importlinter]`` in pyproject.toml) holds and covers the core.

``.ci/run`` runs ``lint-imports`` too; running it here as well means a local ``pytest``
catches a sideways import before CI does, and the second test keeps the contract's list
of core packages in step with the import-hygiene test's.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from test_import_hygiene import CORE_PACKAGES, CORE_TOP

ROOT = Path(__file__).resolve().parent.parent


def _contracts() -> list[dict]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["importlinter"]["contracts"]


def _lint_imports() -> str | None:
    here = Path(sys.executable).parent / "lint-imports"
    return str(here) if here.exists() else shutil.which("lint-imports")


def test_lint_imports_keeps_every_contract() -> None:
    exe = _lint_imports()
    if exe is None:
        pytest.skip("import-linter is not installed (pip install -e '.[test]')")
    out = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert f"{len(_contracts())} kept, 0 broken" in out.stdout


def test_the_headless_contract_names_every_core_package() -> None:
    headless = next(c for c in _contracts() if c["name"].startswith("The core runs headless"))
    assert "textual" in headless["forbidden_modules"]
    assert set(CORE_PACKAGES.values()) | set(CORE_TOP) - {"frontier.app.cli"} <= set(
        headless["source_modules"]
    )


def test_every_ignored_import_says_why() -> None:
    """``ignore_imports`` is an exception to a layer rule: each contract that has one must
    say why in a comment inside its block (a known violation names the issue that removes
    it; a permanent exception names what the imported module is)."""
    lines = (ROOT / "pyproject.toml").read_text().splitlines()
    for contract in _contracts():
        for ignored in contract.get("ignore_imports", []):
            at = next(i for i, x in enumerate(lines) if ignored in x)
            start = max(
                i for i in range(at) if lines[i].strip() == "[[tool.importlinter.contracts]]"
            )
            block = lines[start:at]
            assert any(x.lstrip().startswith("#") for x in block), (
                f"{ignored!r} has no comment saying why"
            )
