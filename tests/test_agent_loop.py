"""The turn state machine against a scripted provider and a recording boundary."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from inline_boundary import InlineBoundary
from scripted import ScriptedClient, chat_event

from frontier.app.agent.loop import EMPTY_REPLY, AgentLoop
from frontier.app.agent.modes import get_mode
from frontier.app.events import (
    CallStarted,
    ContractError,
    Event,
    Notice,
    StreamStopped,
    ToolCall,
    ToolFinished,
    ToolResult,
    TurnEnded,
)
from frontier.app.model.stream import StreamEnd
from frontier.tools.registry import default_registry
from frontier.widgets.state import UiState


def text_chunks(text: str, size: int = 7) -> list[dict[str, Any]]:
    return [
        {"choices": [{"delta": {"content": text[i : i + size]}, "finish_reason": None}]}
        for i in range(0, len(text), size)
    ]


class RecordingBoundary(InlineBoundary):
    def __init__(self, log: list[str], kind: str = "ok") -> None:
        self.log = log
        self.calls: list[ToolCall] = []
        self.kind = kind

    async def run(self, call: ToolCall) -> ToolResult:
        self.log.append(f"run {call.id}")
        self.calls.append(call)
        return ToolResult(call.id, call.name, self.kind, f"output of {call.id}", exit_code=0)


def make_loop(responses, mode="ctl-heredoc", kind="ok"):  # type: ignore[no-untyped-def]
    log: list[str] = []
    events: list[Event] = []
    provider = ScriptedClient(responses, log)
    boundary = RecordingBoundary(log, kind)
    loop = AgentLoop(
        client=provider,
        boundary=boundary,
        registry=default_registry(),
        mode=get_mode(mode),
        emit=events.append,
    )
    return loop, provider, boundary, events, log


READ = "call c1 read\narg path a.txt\nend\n"
DONE = (text_chunks("All done."), "stop")


async def test_ctl_call_runs_before_the_stream_ends() -> None:
    """Eager execution: the call starts while later chunks are still to be read."""
    first = text_chunks("Looking.\n" + READ + "\n" * 20, size=5)
    loop, _provider, boundary, _events, log = make_loop([(first, "stop"), DONE])
    ended = await loop.send("read a.txt")
    assert ended.reason == "done"
    run_at = log.index("run c1")
    assert run_at < log.index(f"chunk {len(first) - 1}"), log
    assert [c.id for c in boundary.calls] == ["c1"]


async def test_result_frame_goes_back_with_exact_byte_count() -> None:
    loop, provider, *_ = make_loop([(text_chunks(READ), "stop"), DONE])
    await loop.send("go")
    feedback = provider.requests[1][-1]
    assert feedback["role"] == "user"
    assert feedback["content"] == "result c1 exit=0 12\noutput of c1\nend\n"


async def test_text_after_a_call_stops_the_stream_and_is_not_kept() -> None:
    hallucinated = READ + "result c1 exit=0 5\nhello\nend\nMore text the model invented.\n"
    chunks = text_chunks(hallucinated, size=3)
    loop, provider, _boundary, events, _log = make_loop([(chunks, "stop"), DONE])
    await loop.send("go")
    stops = [e for e in events if isinstance(e, StreamStopped)]
    assert len(stops) == 1 and stops[0].offset == len(READ)
    assert provider.served_chunks < len(chunks) + len(DONE[0])
    assistant = provider.requests[1][-2]
    assert assistant == {"role": "assistant", "content": READ}


async def test_contract_error_is_fed_back_and_earlier_calls_stand() -> None:
    bad = READ + "call c2 write\narg path b.txt\narg content 3\nhello\nend\n"
    loop, provider, boundary, _events, _log = make_loop([(text_chunks(bad), "stop"), DONE])
    ended = await loop.send("go")
    assert ended.reason == "done"
    assert [c.id for c in boundary.calls] == ["c1"]
    feedback = provider.requests[1][-1]["content"]
    assert feedback.startswith("result c1 exit=0")
    assert "error contract (unexpected_line)" in feedback
    assert "declared 3 bytes" in feedback


async def test_repairs_are_bounded() -> None:
    bad = (text_chunks("call c1 read\narg path 2\nabc\nend\n"), "stop")
    loop, provider, *_ = make_loop([bad, bad, bad, bad, DONE])
    ended = await loop.send("go")
    assert ended.reason == "repair_limit"
    assert len(provider.requests) == 4


async def test_truncated_ctl_frame_keeps_completed_calls() -> None:
    cut = READ + "call c2 read\narg path b."
    loop, provider, boundary, events, _log = make_loop([(text_chunks(cut), "length"), DONE])
    await loop.send("go")
    assert [c.id for c in boundary.calls] == ["c1"]
    truncated = [
        e.result for e in events if isinstance(e, ToolFinished) and e.result.kind == "truncated"
    ]
    assert [r.call_id for r in truncated] == ["c2"]
    feedback = provider.requests[1][-1]["content"]
    assert "error truncated" in feedback and "c2" in feedback


def native_chunks(calls: list[tuple[str, str, str]], pieces: int = 3) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for index, (call_id, name, args) in enumerate(calls):
        out.append(
            {
                "choices": [
                    {
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": index,
                                    "id": call_id,
                                    "type": "function",
                                    "function": {"name": name, "arguments": ""},
                                }
                            ]
                        }
                    }
                ]
            }
        )
        step = max(1, len(args) // pieces)
        for i in range(0, len(args), step):
            out.append(
                {
                    "choices": [
                        {
                            "delta": {
                                "tool_calls": [
                                    {"index": index, "function": {"arguments": args[i : i + step]}}
                                ]
                            }
                        }
                    ]
                }
            )
    return out


@pytest.mark.parametrize("mode", ["ctl", "ctl-heredoc", "xml"])
async def test_a_native_call_in_a_text_protocol_is_a_contract_error_not_a_silent_done(
    mode: str,
) -> None:
    """A text protocol's request offers no native tools, but a server (or its chat
    template) may send ``tool_calls`` anyway: the call does not run, and the turn no
    longer ends "done" with an empty reply; the model is asked to write it as a frame."""
    chunks = [
        *text_chunks("Let me look. "),
        *native_chunks([("x1", "shell", '{"command": "rm -rf /tmp/x"}')]),
    ]
    loop, provider, boundary, events, _log = make_loop([(chunks, "tool_calls"), DONE], mode)
    ended = await loop.send("go")
    assert boundary.calls == []
    errors = [e for e in events if isinstance(e, ContractError)]
    assert [(e.kind, e.offset) for e in errors] == [("bad_call", len(b"Let me look. "))]
    assert "native tool call ('shell')" in errors[0].message
    feedback = provider.requests[1][-1]["content"]
    assert "error contract (bad_call)" in feedback and f"as {mode} frames it" in feedback
    assert ended.reason == "done"  # the model wrote prose the second time


async def test_an_empty_reply_is_said_when_the_turn_ends() -> None:
    """A reply of nothing (a server or template that swallowed it) ended the turn "done"
    and the screen showed nothing after the prompt: the turn's end now says so."""
    empty = ([{"choices": [{"delta": {"role": "assistant"}}]}], "stop")
    loop, *_ = make_loop([empty])
    ended = await loop.send("go")
    assert (ended.reason, ended.message) == ("done", EMPTY_REPLY)
    loop, *_ = make_loop([(text_chunks("  \n"), "stop")])
    assert (await loop.send("go")).message == EMPTY_REPLY  # only whitespace: nothing
    loop, *_ = make_loop([DONE])
    assert (await loop.send("go")).message == ""
    state = UiState()
    state.apply(TurnEnded("done", EMPTY_REPLY))
    assert [(e.role, e.text) for e in state.transcript][-1] == ("note", EMPTY_REPLY)


HEREDOC_WRITE = "call c1 write\narg path a.txt\narg content <<EOF\nline1\nline2\nEOF\nend\n"


async def test_an_unreadable_event_inside_a_frame_fails_the_call_and_never_writes() -> None:
    """A server event that is not JSON in the middle of a frame is a hole in the call's
    bytes: skipping it ran ``write`` with ``line1`` missing. Now the call does not run."""
    chunks = text_chunks(HEREDOC_WRITE, size=6)
    at = 8  # "ine1\nl": without it the frame is still whole, and writes "line2\n" alone
    assert chunks[at]["choices"][0]["delta"]["content"] == "ine1\nl"
    holed = [*chunks[:at], "{not json", *chunks[at + 1 :]]
    loop, provider, boundary, events, _log = make_loop([(holed, "stop"), DONE])
    await loop.send("go")
    assert boundary.calls == []
    (error,) = [e for e in events if isinstance(e, ContractError)]
    assert error.kind == "bad_json" and "'{not json'" in error.message
    assert "error contract (bad_json)" in provider.requests[1][-1]["content"]


async def test_an_unreadable_event_between_calls_is_told_and_the_call_still_runs() -> None:
    chunks = ["{not json", *text_chunks("Writing.\n" + HEREDOC_WRITE), "[1, 2]"]
    loop, _provider, boundary, events, _log = make_loop([(chunks, "stop"), DONE])
    ended = await loop.send("go")
    assert ended.reason == "done" and [c.id for c in boundary.calls] == ["c1"]
    assert boundary.calls[0].args["content"] == "line1\nline2\n"
    notes = [e.text for e in events if isinstance(e, Notice)]
    assert notes == [  # said once, after the reply: mid-reply it split the reply in two
        "the server sent 2 events it could not read (the first not JSON: '{not json'): "
        "skipped, no call was arriving"
    ]


@pytest.mark.parametrize("mode", ["native-eos", "native-inc"])
async def test_an_unreadable_event_inside_native_arguments_fails_the_call(mode: str) -> None:
    chunks = native_chunks([("a", "write", '{"path": "a.txt", "content": "line1 line2"}')], 4)
    holed = [chunks[0], chunks[1], "{not json", *chunks[3:]]
    final = {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}
    loop, _provider, boundary, events, _log = make_loop(
        [([*holed, final], "tool_calls"), DONE], mode
    )
    await loop.send("go")
    assert boundary.calls == []
    assert [e.kind for e in events if isinstance(e, ContractError)] == ["bad_json"]
    clean = ["{not json", *native_chunks([("b", "read", '{"path": "a.txt"}')]), final]
    loop, _provider, boundary, events, _log = make_loop([(clean, "tool_calls"), DONE], mode)
    await loop.send("go")
    assert [c.id for c in boundary.calls] == ["b"]
    assert len([e for e in events if isinstance(e, Notice)]) == 1


async def test_native_eos_truncation_runs_nothing() -> None:
    chunks = native_chunks([("a", "read", '{"path": "a.txt"}'), ("b", "read", '{"path": "b')])
    responses = [(chunks, "length"), DONE]
    loop, provider, boundary, _events, _log = make_loop(responses, mode="native-eos")
    await loop.send("go")
    assert boundary.calls == []
    assert "error truncated" in provider.requests[1][-1]["content"]


async def test_native_inc_runs_complete_index_before_stream_end() -> None:
    chunks = native_chunks([("a", "read", '{"path": "a.txt"}'), ("b", "read", '{"path": "b.txt"}')])
    final = {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}
    loop, provider, boundary, _events, log = make_loop(
        [([*chunks, final], "tool_calls"), DONE], mode="native-inc"
    )
    ended = await loop.send("go")
    assert ended.reason == "done"
    assert [c.id for c in boundary.calls] == ["a", "b"]
    assert log.index("run a") < log.index(f"chunk {len(chunks)}")
    history = provider.requests[1]
    assert history[-3]["tool_calls"][0]["function"]["name"] == "read"
    assert [m["tool_call_id"] for m in history[-2:]] == ["a", "b"]


async def test_persistence_failure_ends_the_turn() -> None:
    loop, provider, _boundary, events, _log = make_loop(
        [(text_chunks(READ), "stop"), DONE], kind="session_persistence_failed"
    )
    ended = await loop.send("go")
    assert ended.reason == "session_persistence_failed"
    assert len(provider.requests) == 1
    assert isinstance(events[-1], TurnEnded)


@pytest.mark.parametrize("mode", ["ctl", "ctl-heredoc", "xml", "native-eos", "native-inc"])
def test_every_mode_has_a_prompt_or_tools(mode: str) -> None:
    m = get_mode(mode)
    registry = default_registry()
    prompt = m.system_prompt(registry)
    if m.native:
        assert m.tools(registry)
    else:
        assert "apply_patch" in prompt and m.tools(registry) == ()


@pytest.mark.parametrize("mode", ["ctl", "ctl-heredoc"])
def test_the_prompt_example_is_valid_ctl(mode: str) -> None:
    """The example that teaches the model must itself parse to one call, no error."""
    from frontier.app.agent.prompts import CTL_HEREDOC, CTL_LENGTH
    from frontier.app.cst.factory import make_transducer

    teach = CTL_HEREDOC if mode == "ctl-heredoc" else CTL_LENGTH
    example = teach.split("\n", teach.count("\n"))
    start = next(i for i, line in enumerate(example) if line.startswith("Example"))
    text = "\n".join(example[start + 1 :])
    transducer = make_transducer(mode)
    events = transducer.feed(text.encode()) + transducer.finish(True)
    assert [e.type for e in events if e.type in ("call", "error")] == ["call"]


async def test_a_number_written_as_the_prompt_teaches_reaches_the_tool_as_an_int() -> None:
    """`arg limit 4` + `200` (a one-line body) is how CTL carries a number."""
    from frontier.tools.schema import coerce_args

    text = "call c1 read\narg path a.txt\narg limit 4\n200\nend\n"
    loop, _provider, boundary, _events, _log = make_loop([(text_chunks(text), "stop"), DONE])
    await loop.send("go")
    call = boundary.calls[0]
    spec = default_registry().get("read").spec
    assert coerce_args("read", spec.parameters, call.args)["limit"] == 200


async def test_cancelling_the_turn_stops_queued_calls() -> None:
    """Esc while the model is still streaming: a call still waiting (e.g. for approval)
    never runs, even though the stream was cancelled elsewhere."""
    import asyncio

    gate = asyncio.Event()
    hang = asyncio.Event()

    class SlowBoundary(RecordingBoundary):
        async def run(self, call: ToolCall) -> ToolResult:
            self.log.append(f"waiting {call.id}")
            await gate.wait()
            return await super().run(call)

    class HangingProvider:
        wire = "openai-chat"
        model = "test"

        async def stream(self, request: Any) -> AsyncIterator[Any]:
            for chunk in text_chunks(READ):
                yield chat_event(chunk)
            await hang.wait()  # the model goes quiet mid-response
            yield StreamEnd("stop")

        async def aclose(self) -> None:
            return None

    log: list[str] = []
    loop = AgentLoop(
        client=HangingProvider(),
        boundary=SlowBoundary(log),
        registry=default_registry(),
        mode=get_mode("ctl-heredoc"),
    )
    turn = asyncio.create_task(loop.send("go"))
    while "waiting c1" not in log:
        await asyncio.sleep(0)
    loop.cancel_turn()
    ended = await turn
    gate.set()
    for _ in range(5):
        await asyncio.sleep(0)
    assert ended.reason == "cancelled"
    assert "run c1" not in log


@pytest.mark.parametrize("mode", ["native-inc", "native-eos", "ctl", "xml"])
def test_raw_stream_bytes_line_up_with_the_transducer_offsets(mode: str) -> None:
    """The loop's StreamBytes and the transducer's Confirmed/Call offsets share one axis,
    so the Raw stream pane's frontier marker sits on the byte the transducer means."""
    from frontier.app.model.demo_script import script
    from frontier.app.model.wires.demo import stream_chunks
    from frontier.app.model.wires.openai_chat import ChatDecoder

    for step in script(mode):
        adapter = get_mode(mode).adapter()
        fed = 0
        decoder = ChatDecoder()
        for chunk, _ in stream_chunks(step, mode):
            data, _events = adapter.feed(chat_event(chunk, decoder=decoder).deltas)
            fed += len(data)
            assert fed == adapter.transducer.consumed


def test_the_last_failure_is_read_back_from_the_history_sent_to_the_model() -> None:
    """A resumed session says why its last turn failed from the marker the model was sent
    (``failed_cut``): only the last reply counts, and an interrupted one is no failure."""
    from frontier.app.agent.loop import INTERRUPTED, last_failure
    from frontier.app.model.conversation import (
        AssistantTurn,
        ResultEntry,
        ToolResults,
        UserText,
        failed_cut,
    )

    why = "HTTP 413 Request Entity Too Large —\n the server says: too big"
    failed = AssistantTurn("I'll read it", cut=failed_cut(why))
    results = ToolResults((ResultEntry("c1", "read", "ok", 0, "x"),))
    assert last_failure([UserText("go"), failed, results]) == " ".join(why.split())
    assert last_failure([UserText("go"), failed, UserText("again"), AssistantTurn("Done.")]) is None
    assert last_failure([UserText("go"), AssistantTurn("cut", cut=INTERRUPTED)]) is None
    assert last_failure([UserText("go")]) is None
    # a long error is cut where the model is told it, and says so
    long = "HTTP 400 Bad Request — the server says: " + "request exceeds the window " * 20
    said = last_failure([UserText("go"), AssistantTurn("", cut=failed_cut(long))])
    assert said is not None and len(said) == 300 and said.endswith("…")
    assert said[:-1] == " ".join(long.split())[:299]


async def test_a_call_under_another_agents_tool_name_runs_as_the_tool_it_means() -> None:
    """Qwen3 calls ``bash`` (Qwen Code offers run_shell_command), a model on LM Studio
    ``Glob``, GPT-5.x ``functions.read``: each was ``unknown tool`` and a repair round,
    every call. The front ends, the boundary and the history see the registered name."""
    chunks = native_chunks(
        [
            ("a", "Bash", '{"command": "ls", "description": "list"}'),
            ("b", "functions.read", '{"path": "a.txt"}'),
            ("c", "read<|channel|>commentary", '{"path": "b.txt"}'),
            ("d", "edit_file", '{"path": "c.txt"}'),  # Cursor's: other arguments
        ]
    )
    final = {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}
    loop, provider, boundary, events, _log = make_loop(
        [([*chunks, final], "tool_calls"), DONE], mode="native-inc"
    )
    await loop.send("go")
    assert [(c.id, c.name) for c in boundary.calls] == [
        ("a", "shell"),
        ("b", "read"),
        ("c", "read"),
        ("d", "edit_file"),
    ]
    started = [e.name for e in events if isinstance(e, CallStarted)]
    assert started == ["shell", "read", "read", "edit_file"]
    history = provider.requests[1]
    sent = [c["function"]["name"] for c in history[-5]["tool_calls"]]
    assert sent == ["shell", "read", "read", "edit_file"]


def thought_chunks(thought: str, answer: str = "") -> list[dict[str, Any]]:
    chunks = [{"choices": [{"delta": {"reasoning_content": thought}, "finish_reason": None}]}]
    if answer:
        chunks += text_chunks(answer)
    return chunks


CALL_IN_THOUGHT = (
    "I should read the file first.\n<tool_call>\n"
    '{"name": "read", "arguments": {"path": "a.txt"}}\n</tool_call>'
)


async def test_a_call_left_in_the_reasoning_of_an_empty_reply_is_asked_for_not_dropped() -> None:
    """Qwen3 behind vLLM's reasoning parser: the call written before ``</think>`` stayed
    thought, the reply had no call and no text, and the turn ended "the model's reply was
    empty" with nothing run. It is never run from the thought: the model is asked."""
    loop, provider, boundary, events, _log = make_loop(
        [(thought_chunks(CALL_IN_THOUGHT), "stop"), DONE], mode="native-inc"
    )
    ended = await loop.send("go")
    assert ended.reason == "done" and boundary.calls == []
    assert len(provider.requests) == 2
    assert "your tool call was inside your reasoning" in provider.requests[1][-1]["content"]
    told = [e.text for e in events if isinstance(e, Notice)]
    assert any("inside its reasoning" in t for t in told), told


@pytest.mark.parametrize(
    ("thought", "answer"),
    [
        (CALL_IN_THOUGHT, "The file says hello."),  # it answered: the draft was dropped
        ("A call looks like:\n```\n" + CALL_IN_THOUGHT + "\n```\n", ""),  # an example
        (CALL_IN_THOUGHT.replace('"read"', '"fetch"'), ""),  # no such tool offered
    ],
)
async def test_a_call_drafted_in_reasoning_of_a_reply_that_answered_is_left_alone(
    thought: str, answer: str
) -> None:
    loop, provider, boundary, _events, _log = make_loop(
        [(thought_chunks(thought, answer), "stop"), DONE], mode="native-inc"
    )
    await loop.send("go")
    assert len(provider.requests) == 1 and boundary.calls == []


async def test_a_call_back_as_text_under_another_agents_name_is_caught_too() -> None:
    """Qwen3 behind a server without its parser writes ``<tool_call>{"name": "bash"…``: a
    call of ``shell`` the model means, come back as text, not a finished turn."""
    text = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>'
    loop, provider, boundary, _events, _log = make_loop(
        [(text_chunks(text), "stop"), DONE], mode="native-inc"
    )
    await loop.send("go")
    assert len(provider.requests) == 2 and boundary.calls == []
    assert "came back as text" in provider.requests[1][-1]["content"]


APPEND = '{"command": "echo hi >> log.txt"}'


@pytest.mark.parametrize("mode", ["native-inc", "native-eos", "ctl-heredoc"])
async def test_the_same_call_twice_in_one_response_runs_once(mode: str) -> None:
    """LocalAI streamed one call at several indices, Qwen parsers re-emitted calls: each
    copy ran (an append appended twice). A copy (same tool, same arguments, another id)
    is not run and says whose result to read; a call after it still waits its turn."""
    if mode == "ctl-heredoc":
        shell = "call {id} shell\narg command <<E\necho hi >> log.txt\nE\nend\n"
        text = (
            "".join(shell.format(id=i) for i in ("a", "b"))
            + READ.replace("c1", "c")
            + (shell.format(id="d"))
        )
        first = (text_chunks(text), "stop")
    else:
        chunks = native_chunks(
            [
                ("a", "shell", APPEND),
                ("b", "shell", APPEND),
                ("c", "read", '{"path": "a"}'),
                ("d", "shell", APPEND.replace(">>", ">> ")),
            ]
        )
        end = {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}
        first = ([*chunks, end], "tool_calls")
    loop, _provider, boundary, events, log = make_loop([first, DONE], mode=mode)
    await loop.send("go")
    ran = [c.id for c in boundary.calls]
    finished = {e.result.call_id: e.result for e in events if isinstance(e, ToolFinished)}
    if mode == "ctl-heredoc":
        assert ran == ["a", "c"], ran
        assert finished["d"].kind == "not_executed"
    else:
        assert ran == ["a", "c", "d"], ran  # "d" differs by a space: another call
    assert finished["b"].kind == "not_executed"
    assert "the same call as a earlier in this response" in finished["b"].output
    assert log.index("run a") < log.index("run c")


PATCH = "*** Begin Patch\n*** Add File: hi.txt\n+hi\n*** End Patch"


async def test_a_patch_run_as_a_shell_command_is_the_patch_tools_call() -> None:
    """Codex's models run apply_patch as a command (an argv, or a heredoc through bash):
    "command not found", again and again. Such a call is apply_patch's (a diff review,
    an atomic write); a command that does more than that stays a command."""
    heredoc = f"apply_patch <<'EOF'\n{PATCH}\nEOF\n"
    more = f"cd src && {heredoc}"
    chunks = native_chunks(
        [
            ("a", "shell", json.dumps({"command": ["apply_patch", PATCH]})),
            ("b", "shell", json.dumps({"command": ["bash", "-lc", heredoc], "timeout": 5})),
            ("c", "Bash", json.dumps({"command": more})),
        ]
    )
    end = {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}
    loop, provider, boundary, _events, _log = make_loop(
        [([*chunks, end], "tool_calls"), DONE], mode="native-inc"
    )
    await loop.send("go")
    ran = [(c.id, c.name, dict(c.args)) for c in boundary.calls]
    assert ran[0] == ("a", "apply_patch", {"patch": PATCH})
    assert ran[1] == ("b", "apply_patch", {"patch": PATCH + "\n"})
    assert ran[2] == ("c", "shell", {"command": more})
    sent = [c["function"]["name"] for c in provider.requests[1][-4]["tool_calls"]]
    assert sent == ["apply_patch", "apply_patch", "shell"]


def test_a_heredoc_that_bash_would_end_early_is_a_command() -> None:
    """A delimiter line inside the body ends bash's heredoc there, and what follows runs:
    not a patch and nothing else, so it stays a command."""
    from frontier.tools.patch_via_shell import patch_in_command

    assert patch_in_command(f"apply_patch <<'EOF'\n{PATCH}\nEOF\nrm -rf x\nEOF") is None
    assert patch_in_command(f"apply_patch <<'EOF'\n{PATCH}\nEOF") == PATCH + "\n"


def test_a_patch_after_cd_is_the_patch_tools_with_that_folders_paths(tmp_path: Path) -> None:
    """Codex's models write `cd pkg && apply_patch <<'EOF'` (Codex reads it so); it ran as
    a command: "apply_patch: command not found". Its files are that folder's, from the
    workdir when there is one; a folder the shell would expand, or outside the workspace,
    or a command after the patch, leaves the call a command."""
    from frontier.tools.registry import default_registry

    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    root = str(tmp_path)
    registry = default_registry()
    patch = "*** Begin Patch\n*** Add File: n.txt\n+hi\n*** End Patch"

    def meant(line: str, **more: object) -> tuple[str, dict[str, object]]:
        name, args = registry.meant("shell", {"command": line, **more}, root)
        return name, dict(args)

    heredoc = f"<<'EOF'\n{patch}\nEOF"
    assert meant(f"cd pkg && apply_patch {heredoc}") == (
        "apply_patch", {"patch": patch.replace("Add File: ", "Add File: pkg/") + "\n"}
    )  # fmt: skip
    name, args = meant(f"cd 'sub' && apply_patch {heredoc}", workdir=str(tmp_path / "pkg"))
    assert name == "apply_patch" and "*** Add File: pkg/sub/n.txt" in str(args["patch"])
    name, args = meant(f'cd "{tmp_path}/pkg" && apply_patch {heredoc}')
    assert name == "apply_patch" and "*** Add File: pkg/n.txt" in str(args["patch"])
    for line in (
        f"cd ~/pkg && apply_patch {heredoc}",
        f"cd $HOME && apply_patch {heredoc}",
        f"cd /etc && apply_patch {heredoc}",
        f"cd pkg && apply_patch {heredoc}\nrm -rf x",
        f"cd pkg; apply_patch {heredoc}",
    ):
        assert meant(line)[0] == "shell", line


def test_clines_search_replace_blocks_are_multis_edits() -> None:
    """Cline's replace_in_file and Roo's apply_diff edit with SEARCH/REPLACE blocks in one
    `diff`: `unknown tool` every time. Whole blocks are multi's edits (both marker styles,
    Roo's line hints); anything else stays unknown."""
    from frontier.tools.registry import default_registry
    from frontier.tools.search_replace_blocks import blocks

    registry = default_registry()
    diff = (
        "------- SEARCH\nx = 1\n=======\nx = 2\n+++++++ REPLACE\n\n"
        "<<<<<<< SEARCH\n:start_line:9\n-------\ndef f():\n    pass\n=======\n"
        "def f():\n    return 3\n>>>>>>> REPLACE\n"
    )
    name, args = registry.meant("replace_in_file", {"path": "a.py", "diff": diff}, None)
    assert (name, dict(args)) == (
        "multi",
        {
            "path": "a.py",
            "edits": [
                {"old": "x = 1", "new": "x = 2"},
                {"old": "def f():\n    pass", "new": "def f():\n    return 3"},
            ],
        },
    )
    assert registry.meant("apply_diff", {"path": "a.py", "diff": diff}, None)[0] == "multi"
    assert blocks("------- SEARCH\nx\n=======\ny\n") is None  # no end
    assert blocks("x = 1\n------- SEARCH\nx\n=======\ny\n+++++++ REPLACE") is None
    assert blocks("------- SEARCH\n\n=======\ny\n+++++++ REPLACE") is None  # empty search
    assert blocks("------- SEARCH\nx\n=======\n+++++++ REPLACE") == [{"old": "x", "new": ""}]
    name, _ = registry.meant("replace_in_file", {"path": "a.py", "diff": "x"}, None)
    assert name == "replace_in_file"


def test_the_text_editor_tools_commands_are_the_tools_they_mean() -> None:
    """OpenHands' str_replace_editor (Devstral and SWE-agent's models reach for it) and
    Claude's str_replace_based_edit_tool: one tool whose command chooses; each call was an
    unknown tool. view, create and str_replace are read, write and replace; insert and
    undo_edit stay unknown."""
    from frontier.tools.registry import default_registry

    registry = default_registry()

    def meant(name: str, **args: object) -> tuple[str, dict[str, object]]:
        tool, taken = registry.meant(name, args, None)
        return tool, dict(taken)

    assert meant("str_replace_editor", command="view", path="a.py") == ("read", {"path": "a.py"})
    assert meant("str_replace_editor", command="view", path="a.py", view_range=[10, 19]) == (
        "read", {"path": "a.py", "offset": 10, "limit": 10}
    )  # fmt: skip
    assert meant("str_replace_based_edit_tool", command="view", path="a", view_range=[5, -1]) == (
        "read", {"path": "a", "offset": 5}
    )  # fmt: skip
    assert meant("str_replace_editor", command="create", path="n.py", file_text="x\n") == (
        "write", {"path": "n.py", "content": "x\n"}
    )  # fmt: skip
    swap = meant("str_replace_editor", command="str_replace", path="a", old_str="x", new_str="y")
    assert swap == ("replace", {"path": "a", "old": "x", "new": "y"})
    for args in (
        {"command": "insert", "path": "a.py", "insert_line": 3, "new_str": "z"},
        {"command": "undo_edit", "path": "a.py"},
        {"command": "view", "path": "a.py", "view_range": [9, 2]},
        {"command": "view", "path": 7},
    ):
        assert meant("str_replace_editor", **args)[0] == "str_replace_editor", args
    hint = registry.unknown_hint("str_replace_editor", {"command": "insert", "path": "a"})
    assert "use replace, with old the line to insert after" in hint
    assert "must be whole blocks" in registry.unknown_hint("replace_in_file", {"diff": "x"})
    assert registry.unknown_hint("frobnicate", {}) == ""
    assert "no web access here" in registry.unknown_hint("WebFetch", {"url": "x"})
    assert "no subagents here" in registry.unknown_hint("Task", {})
    assert "call read once per file" in registry.unknown_hint("read_many_files", {})
    assert "edit with replace" in registry.unknown_hint("edit_file", {"code_edit": "x"})
    from frontier.app.record import replace
    from frontier.tools.registry import Registry
    from frontier.tools.think import ThinkTool

    served = ThinkTool()
    served.spec = replace(served.spec, name="web__fetch", source="mcp")  # type: ignore[misc]
    with_mcp = Registry([*(registry.get(n) for n in registry.names()), served])  # type: ignore[misc]
    assert with_mcp.unknown_hint("fetch", {}) == "did you mean web__fetch?"


def test_a_tool_name_is_read_whatever_its_case_and_underscores() -> None:
    """Kimi CLI's `ReadFile`, `WriteFile`, a model's `Read-File` or `LIST_DIR`: the names
    of TOOLS and of the built-ins compared without case, `_` and `-`; a name that means
    nothing stays as sent."""
    from frontier.tools.registry import default_registry

    registry = default_registry()
    assert [registry.named(n) for n in ("ReadFile", "WriteFile", "Read-File", "LIST_DIR")] == [
        "read", "write", "read", "read"
    ]  # fmt: skip
    assert registry.named("Apply-Patch") == "apply_patch"
    assert registry.named("RunShellCommand") == "shell"
    assert registry.named("read_files_now") == "read_files_now"


async def test_kimi_clis_tools_read_and_edit_as_ours(tmp_path: Path) -> None:
    """Kimi K2's own agent: ReadFile {path, line_offset, n_lines}, StrReplaceFile {path,
    edit: {old, new} or a list}: each an unknown tool, every call."""
    from test_tools_fakes import call, make_boundary

    from frontier.tools.registry import default_registry

    registry = default_registry()
    (tmp_path / "a.py").write_text("x = 1\ny = 2\nz = 3\n")
    name, args = registry.meant(
        "StrReplaceFile", {"path": "a.py", "edit": {"old": "x = 1", "new": "x = 9"}}, None
    )
    assert name == "multi"
    b = make_boundary(tmp_path)
    r = await b.run(call(name, 1, **args))
    assert r.kind == "ok" and (tmp_path / "a.py").read_text().startswith("x = 9\n"), r.output
    edits = [{"old": "y = 2", "new": "y = 8"}, {"old": "z = 3", "new": "z = 7"}]
    name, args = registry.meant("StrReplaceFile", {"path": "a.py", "edit": edits}, None)
    assert (await b.run(call(name, 2, **args))).kind == "ok"
    assert (tmp_path / "a.py").read_text() == "x = 9\ny = 8\nz = 7\n"
    name = registry.named("ReadFile")
    r = await b.run(call(name, 3, path="a.py", line_offset=2, n_lines=1))
    assert r.kind == "ok" and "y = 8" in r.output and "z = 7" not in r.output, r.output
    # WriteFile {mode: append}: the patch adding the lines (was an argument error; never
    # an overwrite); a new file is made; content without a final line break: `append`
    added = {"path": "a.py", "content": "w = 6\n", "mode": "append"}
    name, args = registry.meant("WriteFile", added, str(tmp_path))
    assert name == "apply_patch", (name, args)
    assert (await b.run(call(name, 4, **args))).kind == "ok"
    assert (tmp_path / "a.py").read_text() == "x = 9\ny = 8\nz = 7\nw = 6\n"
    made = {"path": "log.txt", "content": "one\n", "mode": "append"}
    assert registry.meant("WriteFile", made, str(tmp_path)) == (
        "write", {"path": "log.txt", "content": "one\n"}
    )  # fmt: skip
    partial = {"path": "a.py", "content": "no break", "mode": "append"}
    name, args = registry.meant("WriteFile", partial, str(tmp_path))
    assert (name, args) == ("append", {"path": "a.py", "content": "no break"})
    r = await b.run(call(name, 5, **args))
    assert r.kind == "ok" and (tmp_path / "a.py").read_text().endswith("w = 6\nno break"), r
    # {mode: overwrite}, Kimi's default said out loud: write's call (an unknown argument)
    whole = {"path": "b.py", "content": "b = 1\n", "mode": "overwrite"}
    assert registry.meant("WriteFile", whole, str(tmp_path)) == (
        "write", {"path": "b.py", "content": "b = 1\n"}
    )  # fmt: skip


def test_another_model_may_read_images_again() -> None:
    """Images stop being sent once a server refused one; /model to another model sends
    them again (it may read them)."""
    loop, provider, _boundary, _events, _log = make_loop([DONE], mode="native-inc")
    loop.takes_images = False
    loop.use_client(provider, signals_call_done=True, can_prefill=False, prefill=None)
    assert loop.takes_images


def test_cursors_delete_file_is_a_patch_and_openhands_cell_is_python() -> None:
    """Cursor's delete_file was an unknown tool (the model then ran `rm`, which no undo
    brings back): it is the patch that deletes the file, reviewed and undone as any edit.
    OpenHands' execute_ipython_cell is `python`, SWE-agent's submit `finish`."""
    from frontier.tools.registry import default_registry

    registry = default_registry()
    name, args = registry.meant("delete_file", {"target_file": "old.py", "explanation": "x"}, None)
    assert (name, dict(args)) == (
        "apply_patch", {"patch": "*** Begin Patch\n*** Delete File: old.py\n*** End Patch"}
    )  # fmt: skip
    assert registry.meant("delete_file", {"target_file": "a\nb"}, None)[0] == "delete_file"
    assert registry.named("execute_ipython_cell") == "python"
    assert registry.named("submit") == "finish"


async def test_claude_codes_background_shell_tools_read_and_stop_a_job() -> None:
    """Its models start a job with run_in_background (taken), then read it with
    BashOutput and stop it with KillShell: each was `unknown tool`, the job unreachable."""
    chunks = native_chunks(
        [
            ("a", "BashOutput", json.dumps({"bash_id": "call_7", "filter": "tick"})),
            ("b", "KillShell", json.dumps({"shell_id": "call_7"})),
        ]
    )
    end = {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}
    loop, _provider, boundary, _events, _log = make_loop(
        [([*chunks, end], "tool_calls"), DONE], mode="native-inc"
    )
    await loop.send("go")
    ran = [(c.name, dict(c.args)) for c in boundary.calls]
    assert ran == [
        ("job", {"bash_id": "call_7", "filter": "tick"}),  # read as job's id by its aliases
        ("job", {"id": "call_7", "stop": True}),
    ]


def test_a_patch_run_in_a_workdir_names_its_files_from_the_root(tmp_path: Path) -> None:
    """Codex's models run their patch with a workdir (most often the root's own absolute
    path): its paths are the folder's, so they gain the folder; one outside the
    workspace, or a root not known, leaves the call a command."""
    from frontier.tools.patch_via_shell import rebased

    (tmp_path / "pkg").mkdir()
    patch = "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n*** End Patch"
    root = str(tmp_path)
    assert rebased(patch, {"workdir": root}, root) == patch
    assert rebased(patch, {}, None) == patch
    moved = rebased(patch, {"workdir": str(tmp_path / "pkg")}, root)
    assert moved is not None and "*** Update File: pkg/a.py\n*** Move to: pkg/b.py" in moved
    assert rebased(patch, {"cwd": "pkg"}, root) == moved
    assert rebased(patch, {"workdir": "/etc"}, root) is None
    assert rebased(patch, {"workdir": "pkg"}, None) is None


async def test_a_file_written_with_a_heredoc_is_the_write_tools_call() -> None:
    """Shell-trained models write a file whole with `cat > f <<'EOF'`: as a command it had
    no review, no undo and none of write's refusals. It is write's call now, and the model
    is shown its call as write; anything more stays a command."""
    heredoc = "cat > notes.md <<'EOF'\n# Notes\nEOF"
    chunks = native_chunks(
        [
            ("a", "shell", json.dumps({"command": heredoc})),
            ("b", "Bash", json.dumps({"command": heredoc + "\ngit add notes.md"})),
        ]
    )
    end = {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}
    loop, provider, boundary, _events, _log = make_loop(
        [([*chunks, end], "tool_calls"), DONE], mode="native-inc"
    )
    await loop.send("go")
    ran = [(c.id, c.name, dict(c.args)) for c in boundary.calls]
    assert ran[0] == ("a", "write", {"path": "notes.md", "content": "# Notes\n"})
    assert ran[1][1] == "shell"
    sent = [c["function"]["name"] for c in provider.requests[1][-3]["tool_calls"]]
    assert sent == ["write", "shell"]
