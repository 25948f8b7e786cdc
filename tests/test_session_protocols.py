"""The store implements the Protocols the loop and the boundary call it through.

The loop and the boundary call the store directly through typed Protocols
(``agent.loop.SessionRecorder``, ``tools.contract.Persistence``): no string dispatch,
no ``getattr``. A type checker proves the match; this test keeps it honest where none
runs, comparing every Protocol method's parameters with the implementation's.
"""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from frontier.app.agent.loop import SessionRecorder
from frontier.app.session.journal import StoreJournal
from frontier.app.session.persistence import SessionPersistence
from frontier.app.session.store import SessionStore
from frontier.tools.contract import IntentJournal, Persistence


def protocol_methods(protocol: type) -> list[str]:
    return [
        name
        for name, value in vars(protocol).items()
        if callable(value) and not name.startswith("_")
    ]


@pytest.mark.parametrize(
    ("protocol", "implementation"),
    [
        (SessionRecorder, SessionStore),
        (Persistence, SessionPersistence),
        (IntentJournal, StoreJournal),
    ],
    ids=["loop-store", "boundary-persistence", "journal"],
)
def test_every_protocol_method_is_implemented_with_its_parameters(
    protocol: type, implementation: type
) -> None:
    for name in protocol_methods(protocol):
        wanted = inspect.signature(getattr(protocol, name)).parameters
        have = inspect.signature(getattr(implementation, name)).parameters
        for param in wanted.values():
            assert param.name in have, f"{implementation.__name__}.{name} lacks {param.name}"
            assert have[param.name].kind == param.kind, (implementation.__name__, name, param)
        extra = [p for p in have.values() if p.name not in wanted]
        assert all(p.default is not inspect.Parameter.empty for p in extra), (name, extra)


def test_the_store_modules_import_alone_without_a_cycle() -> None:
    """Each part imports on its own, in a fresh process (a cycle would fail one of them)."""
    parts = (
        "db",
        "timeline",
        "responses",
        "calls",
        "inflight",
        "journal",
        "persistence",
        "recover",
        "catalogue",
        "store",
        "export",
    )
    for part in parts:
        code = f"import frontier.app.session.{part}"
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, (part, proc.stderr)
