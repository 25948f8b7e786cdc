"""The third identical call in a row, after two equal results, is not run."""

from __future__ import annotations

from frontier.app.agent.repeats import ALLOWED, Repeats
from frontier.app.events import ToolCall, ToolResult


def call(n: int, path: str = "a.py", **more: object) -> ToolCall:
    return ToolCall(f"c{n}", "read", {"path": path, **more})  # type: ignore[arg-type]


def ok(c: ToolCall, output: str = "1 x") -> ToolResult:
    return ToolResult(c.id, c.name, "ok", output)


def test_a_third_identical_call_after_two_equal_results_is_not_run() -> None:
    repeats = Repeats()
    for n in range(ALLOWED):
        assert repeats.refused(call(n)) is None
        repeats.ran(call(n), ok(call(n)))
    refused = repeats.refused(call(9))
    assert refused is not None and refused.kind == "not_executed" and refused.call_id == "c9"
    assert 'the same call (read {"path": "a.py"}) ran 2 times in a row' in refused.output
    # a refusal is not a run: the next identical call is refused as well
    assert repeats.refused(call(10)) is not None


def test_a_repeat_whose_result_changed_runs_and_another_call_starts_again() -> None:
    repeats = Repeats()
    repeats.ran(call(1), ok(call(1), "waiting"))
    repeats.ran(call(2), ok(call(2), "done"))  # a poll: its result changed
    assert repeats.refused(call(3)) is None
    repeats.ran(call(3), ok(call(3), "done"))
    assert repeats.refused(call(4)) is not None  # "done" twice now
    repeats.ran(call(5, "b.py"), ok(call(5, "b.py")))  # another call
    assert repeats.refused(call(6)) is None
    repeats.clear()
    assert repeats.refused(call(7)) is None


def test_arguments_are_compared_whatever_their_order() -> None:
    repeats = Repeats()
    first = ToolCall("c1", "grep", {"pattern": "x", "path": "."})
    again = ToolCall("c2", "grep", {"path": ".", "pattern": "x"})
    repeats.ran(first, ok(first))
    repeats.ran(again, ok(again))
    assert repeats.refused(ToolCall("c3", "grep", {"path": ".", "pattern": "x"})) is not None
    assert repeats.refused(ToolCall("c4", "grep", {"path": ".", "pattern": "y"})) is None


def test_a_shell_call_run_as_a_patch_is_compared_by_the_model_s_command() -> None:
    """`sed -i 's/a/aa/' f` run as the patch it makes: each round's patch differs (the
    file changed), the model's call does not; the third is refused as the command was."""
    repeats = Repeats()
    command = "sed -i 's/a/aa/' f.txt"
    for n in range(ALLOWED):
        routed = ToolCall(f"c{n}", "apply_patch", {"patch": "a" * (n + 1)}, 0, command)
        assert repeats.refused(routed) is None
        repeats.ran(routed, ok(routed, "M f.txt (+1 −1)"))
    third = ToolCall("c9", "apply_patch", {"patch": "aaa"}, 0, command)
    refused = repeats.refused(third)
    assert refused is not None and f"the same call (shell `{command}`)" in refused.output
    other = ToolCall("c10", "apply_patch", {"patch": "aaa"}, 0, "sed -i 's/b/bb/' f.txt")
    assert repeats.refused(other) is None
