"""httpx, imported without its command-line client.

``import httpx`` also imports ``httpx._main`` (its ``httpx`` CLI), which pulls in click,
rich and pygments whenever they happen to be installed — a tenth of a second of every
Frontier start spent on a tool Frontier never runs. Marking the module absent first
makes httpx fall back to its stub (it catches the ImportError), and nothing else of
httpx changes. Every module of Frontier imports httpx from here.
"""

from __future__ import annotations

import sys

sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import httpx  # noqa: E402

__all__ = ["httpx"]
