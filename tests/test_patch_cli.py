"""``frontier apply-patch``: exit codes, messages, dry run, and a fast import path."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from frontier.tools.registry import default_registry

PATCH = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"


def run_cli(root: Path, patch: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", "apply-patch", "--root", str(root), *extra],
        input=patch,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_apply_dry_run_and_failure_exit_codes(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    target.write_text("a\nb\nc\n")
    res = run_cli(tmp_path, PATCH, "--dry-run")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        "M f.txt (+1 −1)",
        "dry run: every hunk located; nothing written",
    ]
    assert target.read_text() == "a\nb\nc\n"
    res = run_cli(tmp_path, PATCH)
    assert res.returncode == 0 and res.stdout == "M f.txt (+1 −1)\n"
    assert target.read_text() == "a\nB\nc\n"
    res = run_cli(tmp_path, PATCH)
    assert res.returncode == 0
    assert res.stdout == "already applied: every change is already in f.txt; nothing written\n"
    res = run_cli(tmp_path, PATCH.replace(" a\n", " x\n"))
    assert res.returncode == 1
    assert res.stderr.startswith("frontier apply-patch: nothing written: f.txt hunk 1/1")
    assert target.read_text() == "a\nB\nc\n"


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run_cli(tmp_path / "missing", PATCH).returncode == 2
    res = run_cli(tmp_path, "")
    assert res.returncode == 2 and "empty" in res.stderr
    res = subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", "apply-patch"], capture_output=True, text=True
    )
    assert res.returncode == 2


def test_apply_patch_does_not_import_textual_or_httpx(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\nc\n")
    code = (
        "import sys, io\n"
        "from frontier.app import cli\n"
        f"sys.stdin = io.TextIOWrapper(io.BytesIO({PATCH.encode()!r}))\n"
        "sys.stdin.isatty = lambda: False\n"
        f"rc = cli.main(['apply-patch', '--root', {str(tmp_path)!r}, '--dry-run'])\n"
        "print(rc, 'textual' in sys.modules, 'httpx' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "0 False False"


def test_tools_core_does_not_import_textual() -> None:
    code = (
        "import sys, frontier.tools.boundary, frontier.tools.registry\n"
        "frontier.tools.registry.default_registry()\n"
        "print('textual' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_docs_tools_md_is_in_sync_with_the_registry() -> None:
    doc = Path(__file__).resolve().parents[1] / "docs" / "tools.md"
    assert doc.read_text("utf-8") == default_registry().tools_markdown(), (
        "docs/tools.md is stale: run `python -m frontier.tools.docgen > docs/tools.md`"
    )
