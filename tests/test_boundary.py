"""The tool-round experiments and the prepare→gate→persist→execute→commit path."""

from __future__ import annotations

from pathlib import Path

from test_tools_fakes import Approver, FakeStore, ProbeTool, call, make_boundary

from frontier.app.events import ToolCall, ToolFinished, ToolStarted
from frontier.tools.registry import Registry, default_registry


async def test_batch_with_valid_read_and_unknown_tool_pairs_both(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    store = FakeStore()
    events: list = []
    b = make_boundary(tmp_path, store=store, events=events)
    results = await b.run_batch([call("read", 1, path="a.txt"), call("frobnicate", 2, x="1")])
    assert [(r.call_id, r.kind) for r in results] == [("c1", "ok"), ("c2", "unknown_tool")]
    assert "1\thello" in results[0].output
    assert "Available tools: read, grep" in results[1].output
    assert "plan" not in results[1].output  # callable, never offered: not taught here
    assert "finish" not in results[1].output and "think" not in results[1].output
    committed = [v.call_id for k, v in store.log if k == "commit_result"]
    assert committed == ["c1", "c2"]
    assert [e.result.call_id for e in events if isinstance(e, ToolFinished)] == ["c1", "c2"]
    assert [e.call.id for e in events if isinstance(e, ToolStarted)] == ["c1"]


async def test_persistence_failure_before_execute_never_fires_the_tool(tmp_path: Path) -> None:
    probe = ProbeTool()
    b = make_boundary(tmp_path, registry=Registry([probe]), store=FakeStore("persist_call"))
    result = await b.run(call("probe", 1, n=1))
    assert result.kind == "session_persistence_failed"
    assert "database or disk is full" in result.output
    assert probe.fired == []
    assert b.persistence_failed


async def test_mark_started_failure_also_blocks_execution(tmp_path: Path) -> None:
    probe = ProbeTool()
    b = make_boundary(tmp_path, registry=Registry([probe]), store=FakeStore("mark_started"))
    assert (await b.run(call("probe", n=1))).kind == "session_persistence_failed"
    assert probe.fired == []


async def test_commit_failure_withholds_the_result(tmp_path: Path) -> None:
    probe = ProbeTool()
    b = make_boundary(tmp_path, registry=Registry([probe]), store=FakeStore("commit_result"))
    result = await b.run(call("probe", n=7))
    assert probe.fired == [{"n": 7}]
    assert result.kind == "session_persistence_failed"
    assert "probe 7" not in result.output and "ran (outcome ok)" in result.output


async def test_batch_stops_after_persistence_failure_and_pairs_the_rest(tmp_path: Path) -> None:
    probe = ProbeTool(sequential=True)
    store = FakeStore("persist_call")
    b = make_boundary(tmp_path, registry=Registry([probe]), store=store)
    results = await b.run_batch([call("probe", 1, n=1), call("probe", 2, n=2)])
    assert [r.kind for r in results] == ["session_persistence_failed", "not_executed"]
    assert probe.fired == []


async def test_timeout_gives_a_paired_timeout_result(tmp_path: Path) -> None:
    b = make_boundary(tmp_path, store=FakeStore())
    results = await b.run_batch(
        [
            call("shell", 1, command="echo started; sleep 30", timeout=1),
            call("glob", 2, pattern="*"),
        ]
    )
    assert [r.kind for r in results] == ["timeout", "ok"]
    assert "started" in results[0].output and "timed out after 1s" in results[0].output
    assert results[0].exit_code == 124


async def test_invalid_call_in_a_parallel_batch_never_executes(tmp_path: Path) -> None:
    probe = ProbeTool()
    b = make_boundary(tmp_path, registry=Registry([probe]), store=FakeStore())
    results = await b.run_batch(
        [call("probe", 1, n=1), call("probe", 2, n="two"), call("probe", 3, n="3")]
    )
    assert [r.kind for r in results] == ["ok", "arg", "ok"]
    assert "argument 'n' must be an integer, got 'two'" in results[1].output
    assert sorted(a["n"] for a in probe.fired) == [1, 3]


async def test_terminating_tool_ends_the_batch(tmp_path: Path) -> None:
    done, after = ProbeTool("done", sequential=True, terminates=True), ProbeTool("after")
    b = make_boundary(tmp_path, registry=Registry([done, after]), store=FakeStore())
    results = await b.run_batch([call("done", 1), call("after", 2)])
    assert [r.kind for r in results] == ["ok", "not_executed"]
    assert after.fired == []


async def test_denied_mutation_writes_nothing_and_says_why(tmp_path: Path) -> None:
    approver = Approver(approve_all=False, reason="not that file")
    b = make_boundary(tmp_path, approver=approver)
    result = await b.run(call("write", path="x.txt", content="hi"))
    assert result.kind == "denied" and "not that file" in result.output
    assert not (tmp_path / "x.txt").exists()


async def test_approval_is_bound_to_content(tmp_path: Path) -> None:
    """A file changed between review and write fails the call; nothing written."""
    target = tmp_path / "f.txt"
    target.write_text("a\nb\nc\n")

    class Meddler(Approver):
        async def approve(self, call: ToolCall, spec, preview):  # type: ignore[no-untyped-def]
            target.write_text("a\nb\nc\nsomeone else\n")
            return await super().approve(call, spec, preview)

    store = FakeStore()
    b = make_boundary(tmp_path, approver=Meddler(), store=store)
    patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
    result = await b.run(call("apply_patch", patch=patch))
    assert result.kind == "error"
    assert "file changed since review: f.txt" in result.output
    assert target.read_text() == "a\nb\nc\nsomeone else\n"
    persisted = next(v for k, v in store.log if k == "persist_call")[1]
    assert persisted.files[0].old_hash is not None and persisted.files[0].new_hash is not None


async def test_preview_is_the_exact_diff_and_hashes(tmp_path: Path) -> None:
    import hashlib

    (tmp_path / "f.txt").write_text("one\ntwo\n")
    approver = Approver()
    b = make_boundary(tmp_path, approver=approver)
    result = await b.run(call("replace", path="f.txt", old="two", new="2"))
    assert result.kind == "ok"
    ((_, preview),) = approver.seen
    fp = preview.files[0]
    assert fp.diff.splitlines()[-2:] == ["-two", "+2"]
    assert fp.old_hash == hashlib.sha256(b"one\ntwo\n").hexdigest()
    assert fp.new_hash == hashlib.sha256((tmp_path / "f.txt").read_bytes()).hexdigest()


async def test_hooks_can_deny_and_rewrite(tmp_path: Path) -> None:
    from frontier.tools.contract import Decision

    async def before(c, spec):  # type: ignore[no-untyped-def]
        return Decision(False, "hook says no") if c.id == "c2" else None

    async def after(c, result, cancel):  # type: ignore[no-untyped-def]
        from dataclasses import replace

        return replace(result, output=result.output + "\n[checked]")

    store = FakeStore()
    b = make_boundary(tmp_path, store=store, before_hook=before, after_hook=after)
    r1 = await b.run(call("glob", 1, pattern="*"))
    r2 = await b.run(call("glob", 2, pattern="*"))
    assert r1.output.endswith("[checked]")
    assert r2.kind == "denied" and "hook says no" in r2.output
    committed = [v for k, v in store.log if k == "commit_result"]
    assert committed[0].output.endswith("[checked]")


async def test_text_mode_string_args_are_coerced(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("".join(f"{i}\n" for i in range(1, 11)))
    b = make_boundary(tmp_path)
    r = await b.run(call("read", path="f.txt", offset="3", limit="2"))
    assert r.kind == "ok"
    assert r.output.splitlines()[0] == "     3\t3"
    assert "showing lines 3–4 of 10; call read with offset=5" in r.output
    multi = '[{"old": "1\\n", "new": "one\\n"}, {"old": "10\\n", "new": "ten\\n"}]'
    r = await b.run(call("multi", path="f.txt", edits=multi))
    assert r.kind == "ok", r.output
    assert (tmp_path / "f.txt").read_text().startswith("one\n2\n")
    r = await b.run(call("replace", path="f.txt", old="2\n", new="two\n", dry_run="true"))
    assert r.kind == "ok" and "dry run" in r.output
    assert "two" not in (tmp_path / "f.txt").read_text()


async def test_bytes_content_is_written_verbatim(tmp_path: Path) -> None:
    b = make_boundary(tmp_path)
    r = await b.run(call("write", path="bin.dat", content=b"\xff\x00raw"))
    assert r.kind == "ok"
    assert (tmp_path / "bin.dat").read_bytes() == b"\xff\x00raw"


async def test_policy_read_only_denies_and_auto_edit_asks_for_shell(tmp_path: Path) -> None:
    b = make_boundary(tmp_path, policy="read-only")
    r = await b.run(call("write", path="x", content="y"))
    assert r.kind == "denied" and "read-only" in r.output
    asker = Approver(approve_all=False, reason="no shell today")
    b = make_boundary(tmp_path, approver=asker, policy="auto-edit")
    assert (await b.run(call("write", 1, path="x", content="y"))).kind == "ok"
    assert (await b.run(call("shell", 2, command="true"))).kind == "denied"
    assert [c.name for c, _ in asker.seen] == ["shell"]


async def test_registry_generates_native_tools_and_prompt_list() -> None:
    reg = default_registry()
    native = reg.native_tools()
    names = [name for name, _, _ in native]
    assert names == [
        "read",
        "grep",
        "glob",
        "write",
        "replace",
        "multi",
        "apply_patch",
        "shell",
        "python",
        "job",
    ]
    assert native[0][2]["required"] == ["path"]
    text = reg.prompt_tool_list()
    assert "apply_patch:" in text and "  - patch (string, required)" in text
    assert "  - offset (integer, default 1)" in text
