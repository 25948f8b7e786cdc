"""Chromium for the browser tests (``frontier serve``, HAR captures): where it is, how
it runs here, and the module-level skip when it is absent. No tests here."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    # As root in this sandbox: no sandbox, no GPU, and nothing that phones home (the
    # closed network refuses those connections, and Chromium retries them).
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def require_chromium(what: str) -> None:
    """Skip the calling test module, naming ``what`` is skipped, without Chromium."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(
            "Debian's Chromium is not installed (apt-get install chromium; .ci/run "
            f"installs it), so {what} is skipped",
            allow_module_level=True,
        )
