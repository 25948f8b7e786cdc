"""The MCP SDK's client modules, imported without the SDK's package ``__init__`` modules.

Why: ``mcp/__init__.py`` imports ``mcp/client/__init__.py``, which imports the SDK's
in-process client and with it the SDK's whole server (starlette, uvicorn, sse_starlette,
the auth routes): ~0.35 s of CPU at the start of every session with an MCP server (issue
24), for code Frontier never runs. Frontier uses ``ClientSession`` and the two transports,
from their own modules. While those are imported, the two packages are stood in for by
bare module objects (the trick ``app/pathlib_lean.py`` plays on pathlib); then the stand-ins
are taken out, so a later ``import mcp`` anywhere gets the real package, which reuses the
modules already loaded. Where the SDK's layout is not what this expects, the modules are
imported the ordinary way. The rest of a start's ~1.1 s is the protocol's pydantic models
(``mcp_types``), which the client needs.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from collections.abc import Sequence
from types import ModuleType

PACKAGES = ("mcp", "mcp.client")
"""The packages whose ``__init__`` is skipped."""
STDIO = ("mcp.client.session", "mcp.client.stdio")
HTTP = ("mcp.client.session", "mcp.client.streamable_http", "mcp.shared._httpx_utils")

_lock = threading.Lock()
"""Two sessions' servers may start on two threads: one stand-in at a time."""


def load(modules: Sequence[str]) -> list[ModuleType]:
    """``modules`` imported (once), their packages' ``__init__`` skipped when it can be."""
    with _lock:
        if all(name in sys.modules for name in modules):
            return [sys.modules[name] for name in modules]
        stand_ins = _stand_in() if "mcp" not in sys.modules else {}
        try:
            return [importlib.import_module(name) for name in modules]
        except ImportError:
            if not stand_ins:
                raise
            _take_out(stand_ins)
            stand_ins = {}
            return [importlib.import_module(name) for name in modules]  # the ordinary way
        finally:
            _take_out(stand_ins)


def _stand_in() -> dict[str, ModuleType]:
    """Bare module objects for :data:`PACKAGES` in ``sys.modules`` (none if the SDK is not
    laid out as packages)."""
    made: dict[str, ModuleType] = {}
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.submodule_search_locations is None:
            _take_out(made)
            return {}
        made[name] = sys.modules[name] = importlib.util.module_from_spec(spec)
    return made


def _take_out(stand_ins: dict[str, ModuleType]) -> None:
    for name, module in stand_ins.items():
        if sys.modules.get(name) is module:
            del sys.modules[name]
