"""After a denied call and a resume, the demo's story stays true: it offers the denied step
again and never claims work that was denied or never ran."""

from __future__ import annotations

from pathlib import Path

import pytest

from frontier.app.agent.runtime import create_runtime
from frontier.app.config import Config
from frontier.app.events import AssistantText, Event, ToolFinished
from frontier.app.model.demo_script import DECLINED, DEMO_TASK, SUMMARY, script
from frontier.app.model.wires.demo import RESUMED_PREFIX, pick_step, story_position
from frontier.tools.contract import Decision, Preview, ToolSpec

TASK = {"role": "user", "content": DEMO_TASK}


def frame(call_id: str, body: str, code: int = 0) -> str:
    return f"result {call_id} exit={code} {len(body.encode())}\n{body}\nend\n"


def test_a_denied_step_ends_the_turn_then_is_offered_again() -> None:
    steps = script("ctl-heredoc")
    denied = [
        TASK,
        {"role": "assistant", "content": "step 0"},
        {"role": "user", "content": frame("c1", "1 file")},
        {"role": "assistant", "content": "step 1"},
        {"role": "user", "content": frame("c2", "[denied] not now", 1)},
    ]
    assert pick_step("ctl-heredoc", denied).prose == DECLINED  # same turn: it stops
    later = [
        *denied,
        {"role": "assistant", "content": DECLINED},
        {"role": "user", "content": "go on"},
    ]
    assert story_position(later) == (1, True)
    step = pick_step("ctl-heredoc", later)
    assert step.calls == steps[1].calls  # the patch again, not the test run
    assert step.prose == RESUMED_PREFIX + steps[1].prose
    approved = [
        *later,
        {"role": "assistant", "content": "step 1 again"},
        {"role": "user", "content": frame("c2", "applied")},
    ]
    assert pick_step("ctl-heredoc", approved) == steps[2]


def test_a_step_whose_call_was_interrupted_is_offered_again_on_resume() -> None:
    """The process stopped while c3 ran: its response was never recorded, and the result
    reconciled on resume arrives in front of the next typed message."""
    steps = script("ctl-heredoc")
    messages = [
        TASK,
        {"role": "assistant", "content": "step 0"},
        {"role": "user", "content": frame("c1", "1 file")},
        {"role": "assistant", "content": "step 1"},
        {"role": "user", "content": frame("c2", "applied")},
        {
            "role": "user",
            "content": "(The session was interrupted before these results reached you...)\n"
            + frame("c3", "[interrupted] it was running", 1)
            + "\ngo on",
        },
    ]
    step = pick_step("ctl-heredoc", messages)
    assert step.calls == steps[2].calls and step.prose.startswith(RESUMED_PREFIX)


def test_a_truncated_call_is_part_of_the_story_not_a_redo() -> None:
    """Step 6 is cut off on purpose; its ``[truncated]`` result leads to the resend."""
    steps = script("ctl")
    messages: list[dict[str, str]] = [TASK]
    for i in range(7):
        messages.append({"role": "assistant", "content": f"step {i}"})
        body = "[truncated] not run" if i == 6 else "ok"
        messages.append({"role": "user", "content": frame(f"c{i}", body)})
    assert pick_step("ctl", messages) == steps[7]


def test_native_tool_messages_count_the_same() -> None:
    steps = script("native-inc")
    messages = [
        TASK,
        {"role": "assistant", "content": "reading", "tool_calls": []},
        {"role": "tool", "tool_call_id": "call_1", "content": "1 file"},
        {"role": "tool", "tool_call_id": "call_2", "content": "2 files"},
        {"role": "assistant", "content": "patching", "tool_calls": []},
        {"role": "tool", "tool_call_id": "call_3", "content": "[denied] no"},
        {"role": "assistant", "content": DECLINED.rstrip("\n")},
        {"role": "user", "content": "please continue"},
    ]
    step = pick_step("native-inc", messages)
    assert step.calls == steps[1].calls and step.prose.startswith(RESUMED_PREFIX)


class DenyPatches:
    """Denies apply_patch, approves everything else."""

    async def approve(self, call: object, spec: ToolSpec, preview: Preview) -> Decision:
        if spec.name == "apply_patch":
            return Decision(False, "not this change")
        return Decision(True)


class ApproveAll:
    async def approve(self, call: object, spec: ToolSpec, preview: Preview) -> Decision:
        return Decision(True)


@pytest.mark.parametrize("mode", ["ctl-heredoc", "native-inc"])
async def test_deny_then_resume_tells_a_true_story(mode: str) -> None:
    config = Config(protocol=mode)
    first = create_runtime(config, approver=DenyPatches(), demo=True, demo_rate=0)
    said: list[str] = []
    results: list[tuple[str, str]] = []

    def watch(event: Event) -> None:
        if isinstance(event, AssistantText):
            said.append(event.text)
        elif isinstance(event, ToolFinished):
            results.append((event.result.name, event.result.kind))

    first.subscribe(watch)
    await first.send(DEMO_TASK)
    session_id, workspace = first.session_id, Path(first.workspace)
    await first.close()
    assert ("apply_patch", "denied") in results
    assert "declined" in said[-1] and "tests pass" not in "".join(said)
    assert "--shout" not in (workspace / "greet" / "cli.py").read_text()

    said.clear()
    results.clear()
    again = create_runtime(config, approver=ApproveAll(), session_id=session_id, demo_rate=0)
    again.subscribe(watch)
    ended = await again.send("go on")
    await again.close()
    assert ended.reason == "done"
    assert said[0].startswith(RESUMED_PREFIX)  # the denied step comes back first
    assert results[0] == ("apply_patch", "ok")
    assert "--shout" in (workspace / "greet" / "cli.py").read_text()
    # the summary comes last, after every step it describes ran
    assert said[-1].startswith(SUMMARY[:20] if mode == "ctl-heredoc" else "Done.")
    assert all(kind in ("ok", "truncated") for _, kind in results), results


def test_a_carried_result_that_succeeded_moves_the_story_on() -> None:
    """The write finished, then the process died before its response was recorded: on
    resume its ``ok`` result is carried, and the write is not done a second time."""
    steps = script("ctl-heredoc")
    messages: list[dict[str, str]] = [TASK]
    for i in range(4):
        messages.append({"role": "assistant", "content": f"step {i}"})
        messages.append({"role": "user", "content": frame(f"c{i}", "ok")})
    carried = "(The session was interrupted before these results reached you...)\n"
    messages.append({"role": "user", "content": carried + frame("c4", "wrote NOTES.md") + "\nhi"})
    assert story_position(messages) == (5, False)
    assert pick_step("ctl-heredoc", messages) == steps[5]
    # no result at all (stopped during the review): the step is offered again
    messages[-1] = {"role": "user", "content": "go on"}
    assert pick_step("ctl-heredoc", messages) == steps[4]
