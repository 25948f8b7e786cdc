"""The words for where a finished command ran, read from its result's ``meta`` (issue 22).

``tools/process.py`` puts ``meta["sandbox"] = {"mode": ..., "network": ...}`` on every
``shell`` and ``python`` result, and ``meta["sandbox_stopped"]`` (what was refused) when
the sandbox stopped the command. The Transcript's finished-call line shows these lines
under the call (as it shows a mutation's files), and the inspector shows them for the
call a repair confirmed. The label itself is ``SandboxRecord.label``'s, so the status
bar, the review, the store and the export say the same words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from frontier.tools.sandbox import SandboxRecord

ESCALATED = "escalated"


def ran_under(meta: Mapping[str, Any] | None) -> list[str]:
    """``["sandbox: workspace-write · net off"]``, ``["outside the sandbox (approved)"]``,
    ``["sandbox: off"]`` …, and ``stopped by the sandbox: <what>`` after it when it was;
    ``[]`` for a result that ran no command (no ``sandbox`` in its meta)."""
    if not meta:
        return []
    if meta.get("by") == "person":  # `!COMMAND` (app/agent/person_command.py)
        return ["run by you, outside the sandbox"]
    record = meta.get("sandbox")
    lines: list[str] = []
    if isinstance(record, Mapping) and isinstance(record.get("mode"), str):
        sandbox = SandboxRecord(record["mode"], bool(record.get("network", False)))
        label = sandbox.label
        lines.append(label if sandbox.mode == ESCALATED else f"sandbox: {label}")
    stopped = meta.get("sandbox_stopped")
    if isinstance(stopped, str) and stopped:
        lines.append(f"stopped by the sandbox: {stopped}")
    return lines
