"""A project's own after-edit checks and formatters (``.frontier/checks.toml``) run only
once the person trusted each, exactly as it is, for this workspace; config.toml's win a
name both use; a file Frontier cannot use is a note, never a failed start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from frontier.app.checks_project import (
    MAX_PROJECT_BYTES,
    PROJECT_FILE,
    forget,
    named,
    project_checks,
    session_edit_settings,
    trust,
)
from frontier.app.config import approvals_path, config_path
from frontier.tools.after_edit import CheckSettings

PROJECT = """\
[checks.ruff]
run = "ruff check --quiet {files}"
files = ["*.py"]

[formatters.ruff]
run = "ruff format --stdin-filename {file} -"
files = ["*.py"]
"""


def project(ws: Path, text: str = PROJECT) -> None:
    (ws / ".frontier").mkdir(exist_ok=True)
    (ws / PROJECT_FILE).write_text(text, "utf-8")


def settings(ws: Path, configured: tuple[list[CheckSettings], list[CheckSettings]] = ([], [])):
    notes: list[str] = []
    checks, formatters = session_edit_settings(ws, configured, notes)
    return [c.name for c in checks], [f.name for f in formatters], notes


def test_a_project_check_runs_only_once_trusted_as_it_is(tmp_path: Path) -> None:
    project(tmp_path)
    checks, formatters, notes = settings(tmp_path)
    assert (checks, formatters) == ([], [])
    (note,) = notes
    assert "check ruff, formatter ruff" in note and "`frontier checks trust`" in note

    found, _ = project_checks(tmp_path)
    assert [p.state for p in found] == ["new", "new"]
    trust(tmp_path, found[:1])  # the check, not the formatter
    checks, formatters, notes = settings(tmp_path)
    assert (checks, formatters) == (["ruff"], [])
    assert "formatter ruff" in notes[0] and "check ruff," not in notes[0]
    trust(tmp_path, project_checks(tmp_path)[0])
    notes = []
    chosen, _ = session_edit_settings(tmp_path, ([], []), notes)
    assert notes == [] and chosen[0].project and chosen[0].whose == "the project's"

    # what runs changed: it waits again, said so; a longer timeout changes nothing that runs
    project(tmp_path, PROJECT.replace("--quiet ", "") + "timeout = 120\n")
    checks, formatters, notes = settings(tmp_path)
    assert (checks, formatters) == ([], ["ruff"])
    assert "check ruff (changed since you trusted it)" in notes[0]
    project(
        tmp_path, PROJECT.replace('"*.py"]\n\n[formatters', '"*.py"]\ntimeout = 9\n[formatters')
    )
    assert settings(tmp_path)[:2] == (["ruff"], ["ruff"])


def test_trust_is_kept_outside_the_workspace_and_per_workspace(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    for ws in (one, two):
        ws.mkdir()
        project(ws)
    trust(one, project_checks(one)[0])
    assert not approvals_path().is_relative_to(one)
    assert "checks.ruff sha256:" in approvals_path().read_text()
    assert settings(one)[:2] == (["ruff"], ["ruff"])
    assert settings(two)[:2] == ([], [])
    forget(one, ["checks.ruff"])
    assert settings(one)[:2] == ([], ["ruff"])


def test_config_toml_wins_a_name_both_use_even_turned_off_but_not_from_elsewhere(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    trust(tmp_path, project_checks(tmp_path)[0])
    mine = CheckSettings("ruff", "ruff check {files}")
    checks, formatters, notes = settings(tmp_path, ([mine], []))
    assert (checks, formatters) == (["ruff"], ["ruff"])
    assert notes == [f"{PROJECT_FILE}: [checks.ruff] is also in config.toml; config.toml's is used"]
    off = CheckSettings("ruff", "ruff check {files}", enabled=False)
    assert settings(tmp_path, ([off], []))[:2] == ([], ["ruff"])
    elsewhere = CheckSettings("ruff", "ruff check {files}", workspaces=(str(tmp_path / "x"),))
    notes = []
    chosen, _ = session_edit_settings(tmp_path, ([elsewhere], []), notes)
    assert [c.project for c in chosen] == [True] and notes == []


@pytest.mark.parametrize("case", ["big", "link", "toml", "key", "table", "workspaces", "deep"])
def test_a_project_file_frontier_cannot_use_is_a_note_never_a_failed_start(
    tmp_path: Path, case: str
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".frontier").mkdir()
    text = {
        "big": PROJECT + "#" * MAX_PROJECT_BYTES,
        "toml": "[checks.ruff\n",
        "key": PROJECT + 'shell = "rm -rf /"\n',
        "table": PROJECT + '[hooks.x]\nrun = "curl evil"\n',
        "workspaces": PROJECT + 'workspaces = ["/"]\n',
        "deep": "x = " + "[" * 5000 + "]" * 5000 + "\n",
    }
    if case == "link":
        outside = tmp_path / "elsewhere.toml"
        outside.write_text(PROJECT, "utf-8")
        os.symlink(outside, ws / PROJECT_FILE)
    else:
        (ws / PROJECT_FILE).write_text(text[case], "utf-8")
    checks, formatters, notes = settings(ws)
    assert (checks, formatters) == ([], [])
    assert len(notes) == 1 and PROJECT_FILE in notes[0] and "none of" in notes[0], notes
    if case == "workspaces":
        assert "workspaces belongs in config.toml" in notes[0]
    if case == "table":
        assert "unknown table 'hooks'" in notes[0]


def test_a_name_picks_the_check_and_the_formatter_so_named_or_one_of_them(
    tmp_path: Path,
) -> None:
    project(tmp_path, PROJECT + '[checks.types]\nrun = "mypy {files}"\n')
    found, _ = project_checks(tmp_path)
    assert [p.key for p in named(found, ["ruff"])[0]] == ["checks.ruff", "formatters.ruff"]
    assert [p.key for p in named(found, ["formatters.ruff", "types"])[0]] == [
        "formatters.ruff",
        "checks.types",
    ]
    assert named(found, ["ruff", "nope"])[1] == ["nope"]


def checks_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", "checks", *args],
        capture_output=True, text=True, input=stdin, timeout=120, env=os.environ,
    )  # fmt: skip


def test_frontier_checks_trust_shows_what_runs_and_never_trusts_without_an_answer(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    ws = str(tmp_path)
    asked = checks_cli("trust", "--workspace", ws, stdin="")
    assert asked.returncode == 3, asked
    assert "check ruff: on *.py, runs read-only:\n      ruff check --quiet {files}" in asked.stdout
    assert "formatter ruff: on *.py, reads each file on stdin" in asked.stdout
    assert "--yes" in asked.stderr and not approvals_path().exists()
    assert checks_cli("trust", "--workspace", ws, "nope", "--yes").returncode == 2
    done = checks_cli("trust", "--workspace", ws, "formatters.ruff", "--yes")
    assert done.returncode == 0 and "trusted in" in done.stdout, done
    assert [p.state for p in project_checks(tmp_path)[0]] == ["new", "trusted"]
    assert checks_cli("trust", "--workspace", ws, "-y").returncode == 0
    again = checks_cli("trust", "--workspace", ws)
    assert "trusted already" in again.stdout
    gone = checks_cli("trust", "--workspace", ws, "--forget", "ruff")
    assert gone.returncode == 0 and "no longer trusted here: ruff" in gone.stdout
    assert [p.state for p in project_checks(tmp_path)[0]] == ["new", "new"]


def test_frontier_checks_lists_each_with_where_it_comes_from_and_whether_it_runs(
    tmp_path: Path,
) -> None:
    project(tmp_path)
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(
        '[formatters.ruff]\nrun = "black -q -"\nreformat = true\n'
        f'[checks.api]\nrun = "make lint"\nworkspaces = ["{tmp_path / "api"}"]\n'
    )
    listed = checks_cli("--workspace", str(tmp_path))
    assert listed.returncode == 0, listed
    lines = listed.stdout.splitlines()
    assert lines[0].startswith("check api  not for this workspace (only in ")
    assert lines[2] == (
        "formatter ruff  runs here · config.toml · on every file · 60 s · reformats files not "
        "formatted before"
    )
    assert lines[4] == (
        "check ruff  waits for your trust (frontier checks trust) · .frontier/checks.toml · "
        "on *.py · 60 s"
    )
    assert lines[6].startswith("formatter ruff  not used: config.toml has one of this name")
    as_json = checks_cli("list", "--json", "--workspace", str(tmp_path))
    rows = json.loads(as_json.stdout)["commands"]
    assert [(r["kind"], r["source"], r["state"]) for r in rows] == [
        ("check", "config.toml", "other workspaces"),
        ("formatter", "config.toml", "runs"),
        ("check", PROJECT_FILE, "waiting"),
        ("formatter", PROJECT_FILE, "overridden"),
    ]
    assert rows[1]["reformat"] is True and "reformat" not in rows[0]
    config_path().write_text("[checks.bad]\n")
    broken = checks_cli("--workspace", str(tmp_path))
    assert broken.returncode == 2 and "[checks.bad]" in broken.stderr


def test_frontier_checks_test_runs_one_as_after_an_edit_and_writes_nothing(
    tmp_path: Path,
) -> None:
    """``frontier checks test NAME FILE…``: is my check right? Run as a session would after
    an edit of FILE (read-only, the words the model reads); a formatter's diff shown."""
    lint = f"{sys.executable} -c \"import sys; sys.exit('BAD' in open(sys.argv[1]).read())\""
    project(
        tmp_path,
        f'[checks.lint]\nrun = {json.dumps(lint + " {files}")}\nfiles = ["*.py"]\n'
        '[formatters.upper]\nrun = "tr a-z A-Z"\nfiles = ["*.py"]\n',
    )
    (tmp_path / "good.py").write_text("x = 1\n")
    (tmp_path / "bad.py").write_text("x = BAD\n")
    ws = str(tmp_path)
    untrusted = checks_cli("test", "lint", "good.py", "--workspace", ws)
    assert untrusted.returncode == 2 and "`frontier checks trust lint` first" in untrusted.stderr
    checks_cli("trust", "--yes", "--workspace", ws)
    good = checks_cli("test", "checks.lint", "good.py", "--workspace", ws)
    assert good.returncode == 0, good
    assert "[check lint (the project's after-edit check) on good.py: passed in" in good.stdout
    bad = checks_cli("test", "checks.lint", "bad.py", "--workspace", ws)
    assert bad.returncode == 1
    assert (
        "the model would read:\n[check lint (the project's after-edit check) on bad.py: exit 1"
        in (bad.stdout)
    )
    formatted = checks_cli("test", "upper", "good.py", "--workspace", ws)
    assert formatted.returncode == 0, formatted
    assert "-x = 1\n+X = 1" in formatted.stdout and "nothing written" in formatted.stdout
    assert (tmp_path / "good.py").read_text() == "x = 1\n"
    outside = checks_cli("test", "lint", "../elsewhere.py", "--workspace", ws)
    assert outside.returncode == 2 and "outside the workspace" in outside.stderr
    assert checks_cli("test", "nope", "good.py", "--workspace", ws).returncode == 2
    assert checks_cli("test", "lint", "--workspace", ws).returncode == 2  # no file named
