"""Approval policies (``--approval``): who says yes before a mutation or exec runs.

``ask``        every edit and exec goes to the interactive approver;
``auto-edit``  file edits (always inside the workspace: paths are resolved) are
               approved, shell/python still ask;
``auto``       everything is approved;
``read-only``  every edit and exec is denied (reads still run).

Without an interactive approver (headless ``run``), what would be asked is
denied with a reason that says which flag allows it.

"Always allow" rules (``tools/approval_rules.py``) approve a matching call under
``ask`` and ``auto-edit`` before anyone is asked — headless too, so a command
remembered for the workspace runs in ``frontier run`` as in the TUI; they never
override ``read-only``.
"""

from __future__ import annotations

from frontier.app.events import ToolCall
from frontier.app.vocab import APPROVALS
from frontier.tools.approval_rules import ApprovalRules
from frontier.tools.contract import Approver, Decision, Preview, ToolSpec

POLICIES = APPROVALS
"""The policy names; ``frontier.app.vocab.APPROVALS`` is their home (CLI, config, TUI)."""


class PolicyApprover:
    def __init__(
        self, policy: str, ask: Approver | None = None, rules: ApprovalRules | None = None
    ) -> None:
        if policy not in POLICIES:
            raise ValueError(f"unknown approval policy {policy!r}; choose {', '.join(POLICIES)}")
        self.policy = policy
        self.ask = ask
        self.rules = rules
        """The session's "always allow" rules (``None``: none can be made)."""

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        if spec.kind == "read" and not spec.mutates:
            return Decision(True, "read-only tool")
        if self.policy == "auto":
            return Decision(True, "policy auto")
        if self.policy == "read-only":
            what = "file edits" if spec.kind == "edit" else "commands"
            return Decision(
                False,
                f"{what} are not allowed in this session; describe the change to the user instead",
                by="policy read-only",
            )
        rule = self.rules.match(call, spec, preview) if self.rules is not None else None
        if rule is not None:
            return Decision(True, f"always allowed: {rule.describe()}", by="an always-allow rule")
        if self.policy == "auto-edit" and spec.kind == "edit":
            return Decision(True, "policy auto-edit")
        if self.ask is None:
            flag = "--approval auto" if spec.kind == "exec" else "--approval auto-edit"
            return Decision(
                False,
                f"{spec.name} needs approval and nobody can be asked "
                f"(headless); the user can allow it with {flag}",
                by=f"policy {self.policy}",
            )
        return await self.ask.approve(call, spec, preview)
