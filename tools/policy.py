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

- an edit of a *protected path* (:data:`~frontier.tools.sandbox.PROTECTED`: anything
  in a ``.git`` folder or a ``.git`` file, at any depth, and ``.frontier/``): git runs
  what they say (``core.fsmonitor``, a hook, a filter, a ``commondir`` or ``gitdir:``
  pointing at another config) and ``.frontier/instructions.md`` becomes the system
  prompt, so a file tool changes them only after a review; headless, it is refused.
  The path is judged by the file it reaches, not only by the name typed: with the
  workspace known (:meth:`PolicyApprover.bind_root`, done by the tool boundary) each
  path is resolved beneath the root as the write will resolve it, so ``notes.cfg``, a
  link to ``.git/config``, is protected too (the write refuses a path that resolves
  elsewhere than at review: ``atomic.FileWrite.expect``);
- a command when the sandbox was asked for (``--sandbox`` not ``off``) but cannot start
  here: it would run unconfined, so every command is asked (headless: refused, saying
  why); ``--sandbox off`` keeps the policies above exactly.

An MCP server's tool (``ToolSpec.source == "mcp"``) is approved unasked only under
``auto`` or by an "always allow" rule naming it or its server; under ``ask`` and
``auto-edit`` a person is asked otherwise (headless: refused). A trusted server's
read-only tool is a read (``kind="read"``) and never asks.

A command that destroys work no undo brings back (``rm -rf src``, ``git clean -fd``,
``git reset --hard``: ``tools/destructive.py``, ``Preview.destroys``) is asked under
``auto-edit`` even inside the sandbox (headless: refused, saying why); ``auto`` and an
"always allow" rule for that very command still run it unasked.

After the sandbox stopped a command, :meth:`PolicyApprover.escalate` asks the person
whether to run it once outside (``ask`` and ``auto-edit`` with a person only; never under
``auto``, never headless).
"""

from __future__ import annotations

import os
import posixpath
import re

from frontier.app.events import ToolCall
from frontier.app.record import replace
from frontier.app.vocab import APPROVALS
from frontier.tools import beneath
from frontier.tools.approval_rules import ApprovalRules
from frontier.tools.contract import Approver, Decision, Preview, ToolSpec
from frontier.tools.sandbox import PROTECTED, Sandbox

POLICIES = APPROVALS
"""The policy names; ``frontier.app.vocab.APPROVALS`` is their home (CLI, config, TUI)."""

ESCALATING = ("ask", "auto-edit")
"""The policies under which a person may be asked to run a stopped command outside."""


def protected_paths(preview: Preview, root: str | os.PathLike[str] | None = None) -> list[str]:
    """The preview's files (and a move's source) that are protected paths, as shown.

    A path is compared normalised (``./``, ``a/../``, doubled slashes) and case-folded —
    ``.GIT/config`` is git's config on a case-insensitive disk — and a nested repository's
    ``.git`` counts too (git runs its hooks when someone commits there). With ``root``,
    each is also resolved beneath it as the write will be (:func:`reached`): a name whose
    file is protected is shown with it (``notes.cfg (reaches .git/config)``)."""
    return _shown(protected_files(preview, root))


def _shown(protected: list[tuple[str, str | None]]) -> list[str]:
    return [name if how is None else f"{name} ({how})" for name, how in protected]


def protected_files(
    preview: Preview, root: str | os.PathLike[str] | None
) -> list[tuple[str, str | None]]:
    """``(name, None)`` for a protected name, ``(name, "reaches …")`` for a name whose file
    is protected (or cannot be resolved now, which is reviewed too)."""
    out: list[tuple[str, str | None]] = []
    for file in preview.files:
        for raw in (file.path, file.moved_from):
            if not raw or any(raw == name for name, _ in out):
                continue
            if is_protected(raw):
                out.append((raw, None))
            elif root is not None:
                try:
                    real = reached(root, raw)
                except (OSError, ValueError) as exc:  # changed since the tool resolved it
                    out.append((raw, f"cannot be resolved now: {exc}"))
                    continue
                if is_protected(real):
                    out.append((raw, f"reaches {real}"))
    return out


def reached(root: str | os.PathLike[str], path: str) -> str:
    """The real workspace-relative path a write of ``path`` touches, resolved beneath
    ``root`` now exactly as the writer resolves it (``beneath``: links inside the workspace
    followed, folders not yet made taken as written). Its temp file, pre-image and new
    folders all live in that real parent, so this one path stands for all of them."""
    return beneath.resolve_rel(root, path)


def is_protected(path: str) -> bool:
    """True for a workspace-relative path in a ``.git`` folder, a ``.git`` file, or
    ``.frontier`` — at any depth (a nested repository's hooks run too)."""
    norm = posixpath.normpath(path.replace("\\", "/")).lstrip("/")
    return any(_git_name(part) in PROTECTED for part in norm.split("/") if part not in ("", "."))


_IGNORABLE = re.compile(r"[\u200b-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")
"""Code points HFS+ ignores in names (git's ``is_hfs_dotgit``): ``.git`` with a zero-width
character inside is ``.git`` there."""


def _git_name(part: str) -> str:
    """A name as a case-insensitive, HFS+ or NTFS disk sees it: case-folded, ignorable code
    points dropped, trailing dots and spaces cut (``.GIT``, ``.git.`` are ``.git``)."""
    return _IGNORABLE.sub("", part).casefold().rstrip(". ") or part


def protected_reason(paths: list[str]) -> str:
    names = ", ".join(paths)
    what = "is a protected path" if len(paths) == 1 else "are protected paths"
    return (
        f"{names} {what} (git runs what it says): it is changed only after a person "
        "reviews it; nobody can be asked here (headless), so describe the change to the "
        "user instead"
    )


def naming_protected(preview: Preview, protected: list[tuple[str, str | None]]) -> Preview:
    """``preview`` with its protected files (:attr:`Preview.protected`) and its summary
    naming those reached through another name (a link), so the person sees that
    ``notes.cfg`` writes ``.git/config``."""
    if not protected:
        return preview
    preview = replace(preview, protected=tuple(_shown(protected)))
    linked = [f"{name} {how}" for name, how in protected if how is not None]
    if not linked:
        return preview
    return replace(preview, summary=f"{preview.summary} — protected: {'; '.join(linked)}")


class PolicyApprover:
    def __init__(
        self,
        policy: str,
        ask: Approver | None = None,
        rules: ApprovalRules | None = None,
        *,
        sandbox: Sandbox | None = None,
        root: str | os.PathLike[str] | None = None,
    ) -> None:
        if policy not in POLICIES:
            raise ValueError(f"unknown approval policy {policy!r}; choose {', '.join(POLICIES)}")
        self.policy = policy
        self.ask = ask
        self.rules = rules
        """The session's "always allow" rules (``None``: none can be made)."""
        self.sandbox = sandbox
        """The session's sandbox (``None``: none, as ``--sandbox off``)."""
        self.root = root
        """The workspace edits are resolved beneath (``None``: only the names typed are
        judged); the tool boundary binds its pinned root (:meth:`bind_root`)."""

    def bind_root(self, root: str | os.PathLike[str]) -> None:
        """Judge protected paths by the file each edit reaches beneath ``root`` (the tool
        boundary's pinned workspace), unless a root was given already."""
        if self.root is None:
            self.root = root

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
        person = self.person
        if spec.source == "mcp":
            return await self._mcp(call, spec, preview, person)
        danger = preview.destroys if spec.kind == "exec" else None
        protected = protected_files(preview, self.root) if spec.kind == "edit" else []
        if protected:
            if person is None:
                reason = protected_reason(_shown(protected))
                return Decision(False, reason, by="frontier", unanswered="")
            return await person.approve(call, spec, naming_protected(preview, protected))
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
            if danger is None:
                return Decision(True, "policy auto-edit, inside the sandbox")
            if person is None:
                return Decision(
                    False,
                    f"{danger}, and no undo brings that back: under --approval auto-edit a "
                    "person approves such a command and nobody can be asked (headless); do "
                    "it another way (remove a file with apply_patch, which can be undone), "
                    "or the user can allow it with --approval auto",
                    by="policy auto-edit",
                    unanswered="--approval auto",
                )
            return await person.approve(call, spec, preview)
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
