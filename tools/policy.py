"""Approval policies (``--approval``): who says yes before a mutation or exec runs.

``ask``        every edit and exec goes to the interactive approver;
``auto-edit``  file edits (always inside the workspace: paths are resolved) are
               approved; shell/python are approved when they run inside the OS sandbox
               (``tools/sandbox.py``), else they ask;
``auto``       everything is approved;
``read-only``  every edit and exec is denied (reads still run).

Without an interactive approver (headless ``run``), what would be asked is
denied with a reason that says which flag allows it.

"Always allow" rules (``tools/approval_rules.py``) approve a matching call under
``ask`` and ``auto-edit`` before anyone is asked — headless too, so a command
remembered for the workspace runs in ``frontier run`` as in the TUI; they never
override ``read-only``.

Two things a person reviews under every policy, ``auto`` and the rules included
(issue 22):

- an edit of a *protected path* (:data:`~frontier.tools.sandbox.PROTECTED`:
  ``.git/config``, ``.git/hooks/``, ``.git/info/``, ``.frontier/``): git runs what they
  say (``core.fsmonitor``, a hook) and ``.frontier/instructions.md`` becomes the system
  prompt, so a file tool changes them only after a review; headless, it is refused;
- a command when the sandbox was asked for (``--sandbox`` not ``off``) but cannot start
  here: it would run unconfined, so every command is asked (headless: refused, saying
  why); ``--sandbox off`` keeps the policies above exactly.

An MCP server's tool (``ToolSpec.source == "mcp"``) is approved unasked only under
``auto`` or by an "always allow" rule naming it or its server; under ``ask`` and
``auto-edit`` a person is asked otherwise (headless: refused). A trusted server's
read-only tool is a read (``kind="read"``) and never asks.

After the sandbox stopped a command, :meth:`PolicyApprover.escalate` asks the person
whether to run it once outside (``ask`` and ``auto-edit`` with a person only; never under
``auto``, never headless).
"""

from __future__ import annotations

import posixpath

from frontier.app.events import ToolCall
from frontier.app.vocab import APPROVALS
from frontier.tools.approval_rules import ApprovalRules
from frontier.tools.contract import Approver, Decision, Preview, ToolSpec
from frontier.tools.sandbox import PROTECTED, Sandbox

POLICIES = APPROVALS
"""The policy names; ``frontier.app.vocab.APPROVALS`` is their home (CLI, config, TUI)."""

ESCALATING = ("ask", "auto-edit")
"""The policies under which a person may be asked to run a stopped command outside."""


def protected_paths(preview: Preview) -> list[str]:
    """The preview's files (and a move's source) that are protected paths, as shown.

    A path is compared normalised (``./``, ``a/../``, doubled slashes) and case-folded —
    ``.GIT/config`` is git's config on a case-insensitive disk — and a nested repository's
    ``.git`` counts too (git runs its hooks when someone commits there)."""
    out: list[str] = []
    for file in preview.files:
        for raw in (file.path, file.moved_from):
            if raw and is_protected(raw) and raw not in out:
                out.append(raw)
    return out


def is_protected(path: str) -> bool:
    """True for a workspace-relative path at or below a :data:`PROTECTED` one."""
    norm = posixpath.normpath(path.replace("\\", "/")).lstrip("/").casefold()
    parts = [p for p in norm.split("/") if p not in ("", ".")]
    for i, part in enumerate(parts):
        if part == ".frontier":
            return True
        if part == ".git" and i + 1 < len(parts):
            below = "/".join([".git", *parts[i + 1 :]])
            if any(below == p or below.startswith(p + "/") for p in PROTECTED):
                return True
    return False


def protected_reason(paths: list[str]) -> str:
    names = ", ".join(paths)
    what = "is a protected path" if len(paths) == 1 else "are protected paths"
    return (
        f"{names} {what} (git runs what it says): it is changed only after a person "
        "reviews it; nobody can be asked here (headless), so describe the change to the "
        "user instead"
    )


class PolicyApprover:
    def __init__(
        self,
        policy: str,
        ask: Approver | None = None,
        rules: ApprovalRules | None = None,
        *,
        sandbox: Sandbox | None = None,
    ) -> None:
        if policy not in POLICIES:
            raise ValueError(f"unknown approval policy {policy!r}; choose {', '.join(POLICIES)}")
        self.policy = policy
        self.ask = ask
        self.rules = rules
        """The session's "always allow" rules (``None``: none can be made)."""
        self.sandbox = sandbox
        """The session's sandbox (``None``: none, as ``--sandbox off``)."""

    @property
    def person(self) -> Approver | None:
        """``ask`` when a person answers it; ``None`` when nobody can be asked (no approver,
        or one that declares ``interactive = False``: headless without a terminal)."""
        if self.ask is None or getattr(self.ask, "interactive", True) is False:
            return None
        return self.ask

    @property
    def sandbox_active(self) -> bool:
        """Commands run inside the OS sandbox."""
        return self.sandbox is not None and self.sandbox.active

    @property
    def sandbox_missing(self) -> str | None:
        """Why the sandbox asked for cannot start (``None``: it runs, or it is off)."""
        sandbox = self.sandbox
        if sandbox is None or sandbox.settings.mode == "off" or sandbox.active:
            return None
        return sandbox.unavailable or "it cannot start here"

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        if spec.kind == "read" and not spec.mutates:
            return Decision(True, "read-only tool")
        if self.policy == "read-only":
            what = "file edits" if spec.kind == "edit" else "commands"
            return Decision(
                False,
                f"{what} are not allowed in this session; describe the change to the user instead",
                by="policy read-only",
            )
        protected = protected_paths(preview) if spec.kind == "edit" else []
        person = self.person
        if spec.source == "mcp":
            return await self._mcp(call, spec, preview, person)
        if protected:
            if person is None:
                return Decision(False, protected_reason(protected), by="frontier", unanswered="")
            return await person.approve(call, spec, preview)
        missing = self.sandbox_missing if spec.kind == "exec" else None
        if missing is not None:
            if person is None:
                return Decision(
                    False,
                    f"the sandbox is unavailable ({missing}), so every command needs a "
                    "person's approval and nobody can be asked (headless); the user can run "
                    "commands unconfined with --sandbox off",
                    by="frontier",
                    unanswered="--sandbox off",
                )
            return await person.approve(call, spec, preview)
        if self.policy == "auto":
            return Decision(True, "policy auto")
        rule = self.rules.match(call, spec, preview) if self.rules is not None else None
        if rule is not None:
            return Decision(True, f"always allowed: {rule.describe()}", by="an always-allow rule")
        if self.policy == "auto-edit" and spec.kind == "edit":
            return Decision(True, "policy auto-edit")
        if self.policy == "auto-edit" and spec.kind == "exec" and self.sandbox_active:
            return Decision(True, "policy auto-edit, inside the sandbox")
        if person is None:
            if spec.kind != "exec":
                flag = setting = "--approval auto-edit"
            elif self.sandbox_active:
                flag = "--approval auto-edit (inside the sandbox) or --approval auto"
                setting = "--approval auto-edit"
            else:
                flag = setting = "--approval auto"
            return Decision(
                False,
                f"{spec.name} needs approval and nobody can be asked "
                f"(headless); the user can allow it with {flag}",
                by=f"policy {self.policy}",
                unanswered=setting,
            )
        return await person.approve(call, spec, preview)

    async def _mcp(
        self, call: ToolCall, spec: ToolSpec, preview: Preview, person: Approver | None
    ) -> Decision:
        """An MCP server's tool (issue 26): it runs outside the sandbox and does whatever its
        server does, so only ``auto`` or an "always allow" rule for that tool or server
        approves it unasked (``auto-edit`` asks too)."""
        if self.policy == "auto":
            return Decision(True, "policy auto")
        rule = self.rules.match(call, spec, preview) if self.rules is not None else None
        if rule is not None:
            return Decision(True, f"always allowed: {rule.describe()}", by="an always-allow rule")
        if person is None:
            return Decision(
                False,
                f"{spec.name} is an MCP server's tool: it needs approval and nobody can be "
                "asked (headless); the user can allow it with --approval auto or "
                f"`frontier mcp allow {spec.name}`",
                by=f"policy {self.policy}",
                unanswered="--approval auto",
            )
        return await person.approve(call, spec, preview)

    @property
    def can_escalate(self) -> bool:
        """A person can be asked to run a command the sandbox stopped outside it."""
        return self.policy in ESCALATING and self.person is not None

    async def escalate(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision | None:
        """Ask the person to run ``call`` once outside the sandbox (``preview.escalation``
        says what the sandbox refused); ``None`` when nobody may be asked (``auto``,
        ``read-only``, headless): the sandboxed result stands."""
        person = self.person
        if self.policy not in ESCALATING or person is None:
            return None
        return await person.approve(call, spec, preview)
