"""OpenAI Codex's own apply_patch scenarios, replayed through ``frontier apply-patch``.

The fixtures and their runner live in ``../shared/conformance/`` (Apache-2.0, source in
its README); they are read from there, never copied here. ``--atomic`` is stricter than
Codex: where Codex fails half way (scenario 015 keeps a file it added before the failing
step), Frontier must leave the input tree untouched and exit non-zero.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
RUNNER = SHARED / "codex_apply_patch.py"


@pytest.mark.skipif(
    not RUNNER.is_file(), reason=f"the Codex scenarios are not here ({RUNNER} is absent)"
)
def test_codex_scenarios_pass_atomically(tmp_path: Path) -> None:
    cmd = f"{shlex.quote(sys.executable)} -m frontier.app.cli apply-patch --root {{root}}"
    res = subprocess.run(
        [sys.executable, str(RUNNER), "--atomic", "--cmd", cmd],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    failures = [line for line in res.stdout.splitlines() if line.startswith("FAIL")]
    assert res.returncode == 0 and not failures, res.stdout + res.stderr
    assert res.stdout.splitlines()[-1] == "codex scenarios: 23/23 passed"
