"""Always-allow rules: what a rule approves, and everything it must never approve."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.agent.modes import get_mode
from frontier.app.agent.session import AgentSession, EventHub
from frontier.app.config import approvals_path, load_approvals, save_approvals
from frontier.app.events import ToolCall
from frontier.tools.approval_rules import (
    AllowedRule,
    ApprovalRules,
    CommandRule,
    EditRule,
    RuleError,
    ToolRule,
    clean_folder,
    command_matches,
    command_rule,
    edit_matches,
    offer,
    rules_from_data,
    rules_to_data,
)
from frontier.tools.contract import Decision, FilePreview, Preview, ToolSpec
from frontier.tools.policy import PolicyApprover

SHELL = ToolSpec("shell", "run a command", {}, mutates=True, kind="exec")
PYTHON = ToolSpec("python", "run python", {}, mutates=True, kind="exec")
EDIT = ToolSpec("apply_patch", "apply a patch", {}, mutates=True, kind="edit")


def command(text: str) -> Preview:
    return Preview(kind="command", command=text)


def edit(*paths: str, moved_from: str | None = None) -> Preview:
    files = tuple(
        FilePreview(p, "a\n", "b\n", "", None, None, moved_from=moved_from if i == 0 else None)
        for i, p in enumerate(paths)
    )
    return Preview(kind="diff", files=files)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    return tmp_path


# ---------------------------------------------------------------------- commands
EXACT = CommandRule("shell", "git status")


@pytest.mark.parametrize(
    "text",
    ["git status", "  git status\n", "git status\t"],
    ids=["same", "surrounding-space", "trailing-tab"],
)
def test_an_exact_rule_matches_the_same_command(text: str) -> None:
    assert command_matches(EXACT, "shell", text)


@pytest.mark.parametrize(
    "text",
    [
        "git status; rm -rf /",
        "git status && rm -rf /",
        "git status || rm -rf /",
        "git status | sh",
        "git status\nrm -rf /",
        "git status $(rm -rf /)",
        "git status `rm -rf /`",
        "git status > /etc/passwd",
        "git status --porcelain",
        "git  status",
        "git statusx",
        "rm -rf /; git status",
    ],
)
def test_an_exact_rule_matches_nothing_else(text: str) -> None:
    assert not command_matches(EXACT, "shell", text)


def test_a_command_rule_is_for_its_own_tool() -> None:
    assert not command_matches(EXACT, "python", "git status")
    code = CommandRule("python", "print(1)")
    assert command_matches(code, "python", "print(1)")
    assert not command_matches(code, "shell", "print(1)")


PREFIX = CommandRule("shell", "pytest", prefix=True)


@pytest.mark.parametrize("text", ["pytest", "pytest -q", "pytest -q tests/test_x.py -k name"])
def test_a_prefix_rule_takes_plain_arguments(text: str) -> None:
    assert command_matches(PREFIX, "shell", text)


@pytest.mark.parametrize(
    "text",
    [
        "pytest; rm -rf /",
        "pytest -q && rm -rf /",
        "pytest | sh",
        "pytest $(rm -rf /)",
        "pytest `id`",
        "pytest > out.txt",
        "pytest < in",
        "pytest 'quoted'",
        'pytest "quoted"',
        "pytest *",
        "pytest tests/?",
        "pytest ~",
        "pytest ~/x",
        "pytest /etc",
        "pytest --rootdir=/etc",
        "pytest ../outside",
        "pytest tests/../../outside",
        "pytest -q\nrm -rf /",
        "pytest {a,b}",
        "pytest #comment",
        "pytestx",
        "pytest\trm",
    ],
)
def test_a_prefix_rule_refuses_anything_a_shell_would_expand_or_split(text: str) -> None:
    assert not command_matches(PREFIX, "shell", text)


@given(
    rest=st.text(min_size=1, max_size=30),
    metachar=st.sampled_from(list(";&|<>$`'\"\\\n*?[]{}()~!# \t")),
)
def test_no_metacharacter_after_a_prefix_is_ever_allowed(rest: str, metachar: str) -> None:
    text = f"pytest -q {rest}{metachar}x"
    if metachar == " " and command_matches(PREFIX, "shell", f"pytest -q {rest}"):
        return  # a space only separates plain words: `rest` alone was already allowed
    assert not command_matches(PREFIX, "shell", text)


@pytest.mark.parametrize("prefix", ["pytest;", "git $(x)", "cat /etc", "ls ..", "a|b", ""])
def test_an_unsafe_prefix_cannot_be_made(prefix: str) -> None:
    with pytest.raises(RuleError):
        command_rule("shell", prefix, prefix=True)


def test_prefix_rules_are_shell_only_and_tools_must_have_commands() -> None:
    with pytest.raises(RuleError):
        command_rule("python", "print", prefix=True)
    with pytest.raises(RuleError):
        command_rule("write", "x")


# ---------------------------------------------------------------------- edits
def test_an_edit_rule_covers_its_folder_and_nothing_beside_it(root: Path) -> None:
    rule = EditRule("src")
    assert edit_matches(rule, root, edit("src/a.py"))
    assert edit_matches(rule, root, edit("src/pkg/b.py", "src/new/c.py"))
    assert not edit_matches(rule, root, edit("srcx/a.py"))
    assert not edit_matches(rule, root, edit("a.py"))
    assert not edit_matches(rule, root, edit("src/a.py", "docs/b.md"))  # every path counts
    assert not edit_matches(rule, root, edit("src/a.py", moved_from="docs/a.py"))  # both ends


@pytest.mark.parametrize("path", ["../x.py", "/etc/passwd", "src/../../x.py", "~/x", ""])
def test_no_path_outside_the_workspace_is_ever_allowed(root: Path, path: str) -> None:
    assert not edit_matches(EditRule(""), root, edit(path))


def test_nothing_in_git_is_allowed_even_by_a_whole_workspace_rule(root: Path) -> None:
    assert edit_matches(EditRule(""), root, edit("README.md"))
    assert not edit_matches(EditRule(""), root, edit(".git/hooks/pre-commit"))
    assert not edit_matches(EditRule(""), root, edit("src/.git/config"))


def test_links_are_judged_by_where_they_point(root: Path, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("outside")
    os.symlink(outside, root / "src" / "out")
    os.symlink(root / "docs", root / "src" / "docs")
    rule = EditRule("src")
    assert not edit_matches(rule, root, edit("src/out/x.py"))  # leaves the workspace
    assert not edit_matches(rule, root, edit("src/docs/x.md"))  # really docs/, not src/
    assert edit_matches(EditRule("docs"), root, edit("src/docs/x.md"))


def test_only_edit_tools_are_matched_by_edit_rules(root: Path) -> None:
    rules = ApprovalRules(root, [AllowedRule(EditRule(""), False)])
    call = ToolCall("c1", "shell", {"command": "x"})
    assert rules.match(call, SHELL, command("x")) is None
    assert rules.match(ToolCall("c2", "apply_patch", {}), EDIT, edit("a.py")) == EditRule("")


@pytest.mark.parametrize(
    ("folder", "stored"),
    [("src", "src"), ("./src/", "src"), (".", ""), ("", ""), ("src/pkg/..", "src")],
)
def test_folders_are_stored_relative_to_the_root(root: Path, folder: str, stored: str) -> None:
    assert clean_folder(root, folder) == stored
    assert clean_folder(root, str(root / "src")) == "src"


@pytest.mark.parametrize("folder", ["..", "../other", "/etc", ".git", ".git/hooks"])
def test_a_folder_outside_the_workspace_or_in_git_is_refused(root: Path, folder: str) -> None:
    with pytest.raises(RuleError):
        clean_folder(root, folder)


# ---------------------------------------------------------------------- what a review offers
def test_a_review_offers_the_exact_command() -> None:
    call = ToolCall("c1", "shell", {"command": "git status\n"})
    assert offer(call, SHELL, command("git status\n")) == CommandRule("shell", "git status")


def test_a_review_offers_the_deepest_folder_holding_every_file() -> None:
    call = ToolCall("c1", "apply_patch", {})
    assert offer(call, EDIT, edit("src/pkg/a.py", "src/pkg/b.py")) == EditRule("src/pkg")
    assert offer(call, EDIT, edit("src/pkg/a.py", "src/b.py")) == EditRule("src")
    assert offer(call, EDIT, edit("src/a.py", "docs/b.md")) == EditRule("")
    assert offer(call, EDIT, edit("a.py")) == EditRule("")
    assert offer(call, EDIT, edit(".git/config")) is None
    assert offer(call, EDIT, edit("../x")) is None


# ---------------------------------------------------------------------- the policy
async def test_a_rule_approves_without_asking_under_ask(root: Path) -> None:
    asked: list[str] = []

    class Ask:
        async def approve(self, call: ToolCall, spec: ToolSpec, preview: Preview) -> Decision:
            asked.append(call.id)
            return Decision(False, "no")

    rules = ApprovalRules(root, [AllowedRule(EXACT, False)])
    policy = PolicyApprover("ask", Ask(), rules)
    ok = await policy.approve(ToolCall("c1", "shell", {}), SHELL, command("git status"))
    assert ok.approved and "git status" in ok.reason and asked == []
    bad = await policy.approve(ToolCall("c2", "shell", {}), SHELL, command("git status; id"))
    assert not bad.approved and asked == ["c2"]


async def test_a_rule_never_overrides_read_only(root: Path) -> None:
    rules = ApprovalRules(root, [AllowedRule(EXACT, False), AllowedRule(EditRule(""), False)])
    policy = PolicyApprover("read-only", None, rules)
    assert not (
        await policy.approve(ToolCall("c", "shell", {}), SHELL, command("git status"))
    ).approved
    assert not (await policy.approve(ToolCall("d", "apply_patch", {}), EDIT, edit("a.py"))).approved


async def test_a_remembered_rule_applies_headless_too(root: Path) -> None:
    policy = PolicyApprover("ask", None, ApprovalRules(root, [AllowedRule(EXACT, True)]))
    assert (await policy.approve(ToolCall("c", "shell", {}), SHELL, command("git status"))).approved
    other = await policy.approve(ToolCall("d", "shell", {}), SHELL, command("ls"))
    assert not other.approved and "headless" in other.reason


# ---------------------------------------------------------------------- the approvals file
def test_rules_round_trip_through_the_file_data(root: Path) -> None:
    rules = [
        EXACT,
        PREFIX,
        CommandRule("python", "print('a\\n')"),
        EditRule("src"),
        EditRule(""),
        ToolRule("tracker__*"),
    ]
    data = rules_to_data(rules)
    assert data == {
        "commands": ["git status"],
        "command_prefixes": ["pytest"],
        "python": ["print('a\\n')"],
        "edits": ["src", "."],
        "mcp_tools": ["tracker__*"],
    }
    back, notes = rules_from_data(root, data)
    assert back == [
        EXACT,
        PREFIX,
        CommandRule("python", "print('a\\n')"),
        EditRule("src"),
        EditRule(""),
        ToolRule("tracker__*"),
    ]
    assert notes == []


def test_rules_that_cannot_be_kept_are_refused_with_a_note(root: Path) -> None:
    data = {
        "edits": ["../elsewhere", "/etc", "src"],
        "command_prefixes": ["rm -rf /"],
        "commands": [3],
    }
    rules, notes = rules_from_data(root, data)
    assert rules == [EditRule("src")]
    assert len(notes) == 4 and all("ignored" in note for note in notes)


def test_the_approvals_file_keeps_other_workspaces_and_odd_text(
    root: Path, tmp_path_factory
) -> None:
    other = tmp_path_factory.mktemp("other")
    save_approvals(other, {"commands": ["make"]})
    odd = 'echo "a\\b"\n\tdone \x7f é'
    path = save_approvals(root, {"commands": [odd], "edits": ["src"], "python": []})
    assert path == approvals_path() and not str(path).startswith(
        str(root)
    )  # never in the workspace
    data = tomllib.loads(path.read_text("utf-8"))
    assert len(data["workspace"]) == 2
    assert load_approvals(root) == (
        {"root": str(root.resolve()), "commands": [odd], "edits": ["src"]},
        [],
    )
    assert load_approvals(other)[0]["commands"] == ["make"]
    save_approvals(root, {"commands": [], "edits": []})  # nothing left: the entry goes
    assert load_approvals(root) == ({}, [])
    assert load_approvals(other)[0]["commands"] == ["make"]


def test_a_broken_approvals_file_allows_nothing_and_says_so(root: Path) -> None:
    approvals_path().parent.mkdir(parents=True, exist_ok=True)
    approvals_path().write_text("[[workspace]\nroot = ", "utf-8")
    data, notes = load_approvals(root)
    assert data == {} and "invalid TOML" in notes[0]


# ---------------------------------------------------------------------- the session's ops
class _Loop:
    """Just enough of a loop for the session's rule operations."""

    frontier = 0

    def __init__(self) -> None:
        self.carried: list[object] = []
        self.mode = get_mode("ctl")
        self.mode_pending = False

    def pending_bound(self) -> int:
        return 0


def session_with_rules(root: Path, saved: list[dict[str, list[str]]]) -> AgentSession:
    policy = PolicyApprover("ask", None, ApprovalRules(root))
    return AgentSession(
        _Loop(),  # type: ignore[arg-type]
        EventHub(),
        session_id="s1",
        workspace=root,
        model="m",
        policy=policy,
        rules_saver=saved.append,
    )


def test_allowing_for_the_session_saves_nothing_and_remembering_saves(root: Path) -> None:
    saved: list[dict[str, list[str]]] = []
    session = session_with_rules(root, saved)
    assert session.can_allow_always
    allowed = session.allow_always(EXACT)
    assert allowed == AllowedRule(EXACT, False) and saved == []
    session.allow_always(EditRule("./src/"), remember=True)
    assert session.approval_rules == (AllowedRule(EXACT, False), AllowedRule(EditRule("src"), True))
    assert saved[-1]["edits"] == ["src"] and saved[-1]["commands"] == []
    assert session.revoke_rule(EditRule("src"))
    assert saved[-1]["edits"] == []
    assert session.revoke_rule(EXACT) and len(saved) == 2  # a session rule: nothing to save
    assert not session.revoke_rule(EXACT)
    with pytest.raises(RuleError):
        session.allow_always(EditRule("../outside"))
