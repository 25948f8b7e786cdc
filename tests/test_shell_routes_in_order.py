"""A shell call read as a patch made from a file's content now (an append, ``sed -i``) is
made so only when no earlier call of its response is still to change the files: the
patch made before an earlier edit of the same file ran placed its lines wrong (``echo e
>> f`` after a patch adding ``d`` at the end wrote ``e`` before ``d``: bash writes it
after).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from scripted import ScriptedClient
from test_agent_loop import DONE, native_chunks
from test_tools_fakes import make_boundary

from frontier.app.agent.loop import AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.tools.registry import default_registry

ADD_D = "*** Begin Patch\n*** Update File: f.txt\n@@\n a\n b\n c\n+d\n*** End Patch"
END = {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}


async def run_response(root: Path, calls: list[tuple[str, str, str]], mode: str) -> ScriptedClient:
    """One response of ``calls`` through the real tools; the client, for what it was sent."""
    registry = default_registry()
    client = ScriptedClient([([*native_chunks(calls), END], "tool_calls"), DONE])
    loop = AgentLoop(
        client=client,
        boundary=make_boundary(root, registry=registry),
        registry=registry,
        mode=get_mode(mode),
        root=str(root),
    )
    ended = await loop.send("go")
    assert ended.reason == "done"
    return client


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize("mode", ["native-inc", "native-eos"])
async def test_an_append_after_an_edit_of_the_same_response_lands_last(
    tmp_path: Path, mode: str
) -> None:
    (tmp_path / "f.txt").write_text("a\nb\nc\n")
    client = await run_response(
        tmp_path,
        [
            ("p", "apply_patch", json.dumps({"patch": ADD_D})),
            ("s", "shell", json.dumps({"command": "echo e >> f.txt"})),
        ],
        mode,
    )
    assert (tmp_path / "f.txt").read_text() == "a\nb\nc\nd\ne\n"
    # not a command: `append`'s call, its change read when it starts (reviewed, undoable)
    sent = [c["function"]["name"] for c in client.requests[1][-3]["tool_calls"]]
    assert sent == ["apply_patch", "append"]


async def test_an_append_after_reads_only_is_still_the_patch(tmp_path: Path) -> None:
    """A read before it changes nothing: the append is still reviewed and undoable."""
    (tmp_path / "f.txt").write_text("a\nb\nc\n")
    calls = [
        ("r", "read", json.dumps({"path": "f.txt"})),
        ("s", "shell", json.dumps({"command": "echo e >> f.txt"})),
    ]
    client = await run_response(tmp_path, calls, "native-eos")
    sent = [c["function"]["name"] for c in client.requests[1][-3]["tool_calls"]]
    assert sent == ["read", "apply_patch"]
    assert (tmp_path / "f.txt").read_text() == "a\nb\nc\ne\n"


@pytest.mark.skipif(shutil.which("sed") is None, reason="sed is not installed")
@pytest.mark.parametrize("mode", ["native-inc", "native-eos"])
async def test_a_sed_after_an_edit_of_the_same_response_edits_the_edited_file(
    tmp_path: Path, mode: str
) -> None:
    """`sed -i s/a/A/g` after a patch adding a line with an `a`: the new line is edited
    too, as bash would have it (a patch made from the file before would have missed it,
    or put the old lines back)."""
    (tmp_path / "f.txt").write_text("a\nb\nc\n")
    await run_response(
        tmp_path,
        [
            ("p", "apply_patch", json.dumps({"patch": ADD_D.replace("+d", "+da")})),
            ("s", "shell", json.dumps({"command": "sed -i 's/a/A/g' f.txt"})),
        ],
        mode,
    )
    assert (tmp_path / "f.txt").read_text() == "A\nb\nc\ndA\n"


@pytest.mark.skipif(shutil.which("sed") is None, reason="sed is not installed")
async def test_the_model_s_command_is_shown_beside_the_call_it_became(tmp_path: Path) -> None:
    """A person reviewing "apply_patch" for a call the model wrote as `sed -i …` sees the
    command too: the confirmed call carries it (`origin`), the text and JSON lines say it,
    the Transcript's and Tools pane's row end with it (scrubbed as the row is)."""
    from frontier.app.events import CallReady, event_to_json
    from frontier.app.frontends.headless import describe
    from frontier.widgets.pane_state.tools import call_summary

    (tmp_path / "settings.py").write_text("PORT = 8000\n")
    command = "sed -i 's/8000/9000/' settings.py"
    registry = default_registry()
    events: list[object] = []
    loop = AgentLoop(
        client=ScriptedClient(
            [([*native_chunks([("s", "Bash", json.dumps({"command": command}))]), END],
              "tool_calls"), DONE]
        ),
        boundary=make_boundary(tmp_path, registry=registry),
        registry=registry,
        mode=get_mode("native-inc"),
        root=str(tmp_path),
        emit=events.append,
    )  # fmt: skip
    await loop.send("go")
    ready = next(e for e in events if isinstance(e, CallReady))
    assert (ready.call.name, ready.call.origin) == ("apply_patch", command)
    assert event_to_json(ready)["from"] == command
    assert f"from the model's command: {command}" in (describe(ready) or "")
    assert call_summary(ready.call)[0] == f"settings.py ← {command}"
    assert (tmp_path / "settings.py").read_text() == "PORT = 9000\n"


async def test_a_shell_call_is_read_off_the_event_loop(tmp_path: Path) -> None:
    """Reading a shell call as a file tool's may run sed or git (up to a second on a huge
    repository): it runs in a worker thread, so the screen (the event loop) goes on. Here
    the reading, once begun, waits for the loop to run a watcher; on the loop itself it
    would wait in vain (and give up after 10 s, the test failing)."""
    import threading

    registry = default_registry()
    real = registry.meant
    begun, loop_ran = threading.Event(), threading.Event()
    waited: list[bool] = []

    def meant(*args: object, **kwargs: object) -> object:
        if args[0] == "shell":
            begun.set()
            waited.append(loop_ran.wait(timeout=10))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    registry.meant = meant  # type: ignore[method-assign]

    async def watcher() -> None:
        await asyncio.to_thread(begun.wait, 30)
        loop_ran.set()  # the loop ran this while the reading was under way

    (tmp_path / "f.txt").write_text("a\n")
    client = ScriptedClient(
        [([*native_chunks([("s", "shell", json.dumps({"command": "echo b >> f.txt"}))]), END],
          "tool_calls"), DONE]
    )  # fmt: skip
    loop = AgentLoop(
        client=client,
        boundary=make_boundary(tmp_path, registry=registry),
        registry=registry,
        mode=get_mode("native-inc"),
        root=str(tmp_path),
    )
    watching = asyncio.create_task(watcher())
    await loop.send("go")
    await watching
    assert waited == [True]  # the loop ran the watcher while the call was being read
    assert client.requests[1][-2]["tool_calls"][0]["function"]["name"] == "apply_patch"
    assert (tmp_path / "f.txt").read_text() == "a\nb\n"


@pytest.mark.skipif(shutil.which("sed") is None, reason="sed is not installed")
@pytest.mark.parametrize("command", ["echo e >> f.txt", "sed -i 's/a/aa/' f.txt"])
async def test_a_copy_of_a_routed_call_in_the_same_reply_is_not_run(
    tmp_path: Path, command: str
) -> None:
    """A parser that re-emits a call (Qwen's, LocalAI's) sends the same command twice in
    one reply: the copy is a twin and is not run. Read as a patch, the first would leave
    the copy unsettled, a command again, no twin of it: appended or edited twice."""
    (tmp_path / "f.txt").write_text("a\n")
    calls = [(i, "shell", json.dumps({"command": command})) for i in ("x", "y")]
    client = await run_response(tmp_path, calls, "native-inc")
    results = [m["content"] for m in client.requests[1] if m.get("role") == "tool"]
    assert len(results) == 2 and "not run: the same call as x" in results[1]
    expected = "a\ne\n" if command.startswith("echo") else "aa\n"
    assert (tmp_path / "f.txt").read_text() == expected


@pytest.mark.skipif(shutil.which("sed") is None, reason="sed is not installed")
async def test_a_routed_sed_repeated_round_after_round_is_stopped(tmp_path: Path) -> None:
    """A model calling `sed -i 's/a/aa/' f.txt` every round, told `M f.txt` each time: the
    third is not run, as the command was before it ran as a patch (each round's patch
    differs, and the loop went on to max_turns), and the next ends the turn."""
    (tmp_path / "f.txt").write_text("a\n")
    call = json.dumps({"command": "sed -i 's/a/aa/' f.txt"})
    rounds = [([*native_chunks([(f"s{n}", "shell", call)]), END], "tool_calls") for n in range(6)]
    registry = default_registry()
    loop = AgentLoop(
        client=ScriptedClient([*rounds, DONE]),
        boundary=make_boundary(tmp_path, registry=registry),
        registry=registry,
        mode=get_mode("native-inc"),
        root=str(tmp_path),
    )
    ended = await loop.send("go")
    assert ended.reason == "repeating", ended.message
    assert (tmp_path / "f.txt").read_text() == "aaa\n"


@pytest.mark.parametrize("mode", ["native-inc", "native-eos"])
async def test_kimi_s_file_written_in_parts_in_one_reply_is_whole(
    tmp_path: Path, mode: str
) -> None:
    """Kimi CLI's prompt has a long file written in parts: `WriteFile {mode: overwrite}`
    then `{mode: append}`, one reply. Both were argument errors (`mode` unknown; the append,
    made before the first part was written, could not be its patch); now the first is
    `write`, the second `append`, read when it starts: the file is both parts, in order."""
    part1 = "def a():\n    return 1\n"
    part2 = "def b():\n    return 2"  # its last line without an end, as Kimi may send it
    calls = [
        ("w1", "WriteFile", json.dumps({"path": "big.py", "content": part1, "mode": "overwrite"})),
        ("w2", "WriteFile", json.dumps({"path": "big.py", "content": part2, "mode": "append"})),
    ]
    client = await run_response(tmp_path, calls, mode)
    assert (tmp_path / "big.py").read_text() == part1 + part2
    sent = [c["function"]["name"] for c in client.requests[1][-3]["tool_calls"]]
    assert sent == ["write", "append"]
    results = [m["content"] for m in client.requests[1][-2:]]
    assert "created big.py" in results[0] and "appended to big.py" in results[1], results
