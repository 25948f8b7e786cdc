"""``--protocol auto`` for a model the catalogue does not know: the server (llama.cpp's
``GET /props``) says before the first request whether its template renders tools. Until
it has, the session's mode is ``auto`` (it was shown as ctl-heredoc, and the first
response came in native-inc), and a mode the person chose (``/mode``) before the first
request is kept (the server's answer replaced it)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from wire_scripts import Text, WireServer, script, serve_wire, status, stream

from frontier.app.agent.runtime import create_runtime
from frontier.app.agent.session import AgentSession
from frontier.app.config import Config
from frontier.app.events import Event, Notice, ResponseStarted
from frontier.app.session.db import StoreError
from frontier.app.session.store import SessionStore
from frontier.tools.policy import PolicyApprover

TOOLS = {"chat_template_caps": {"supports_tools": True}, "default_generation_settings": {}}


@contextlib.asynccontextmanager
async def session_on(
    tmp_path: Path, server: WireServer, model: str, **settings: object
) -> AsyncIterator[tuple[AgentSession, list[Event]]]:
    """A ``--protocol auto`` session of ``model`` against ``server`` (served on loopback,
    answering "Hello."), and the events it emits."""
    server.answer(stream(script(server.wire, [Text("Hello.")])))
    async with serve_wire(server) as url:
        root = tmp_path / "ws"
        root.mkdir()
        config = Config(
            base_url=url, model=model, wire=server.wire, protocol="auto", approval="auto",
            api_key="sk-test-0123456789", instructions=False,
            **settings,  # type: ignore[arg-type]
        )  # fmt: skip
        session = create_runtime(config, approver=PolicyApprover("auto"), workspace=root)
        seen: list[Event] = []
        session.subscribe(seen.append)
        try:
            yield session, seen
        finally:
            await session.close()


@contextlib.asynccontextmanager
async def auto_session(
    tmp_path: Path, props: dict[str, object] | None, ollama: list[str] | None = None
) -> AsyncIterator[tuple[WireServer, AgentSession, list[Event]]]:
    server = WireServer("openai-chat", props=props, ollama=ollama)
    model = "an-unknown-local-model"
    async with session_on(tmp_path, server, model, context_window=100_000) as (session, seen):
        yield server, session, seen


def stored_mode(session: AgentSession) -> str:
    with SessionStore.open() as store:
        return store.get_session(session.session_id).mode


async def test_the_mode_is_auto_until_the_server_says_then_what_it_said(tmp_path: Path) -> None:
    async with auto_session(tmp_path, TOOLS) as (server, session, seen):
        assert session.mode == "auto"  # not the ctl-heredoc assumed until the answer
        await session.send("hi")
        started = [e.mode for e in seen if isinstance(e, ResponseStarted)]
        assert started == ["native-inc"] and session.mode == "native-inc"
        assert server.requests[-1].body.get("tools")  # native calls: tools[] sent
        assert stored_mode(session) == "native-inc"  # a resume keeps it


async def test_a_server_that_says_nothing_leaves_ctl_heredoc(tmp_path: Path) -> None:
    async with auto_session(tmp_path, {"default_generation_settings": {}}) as (_, session, seen):
        assert session.mode == "auto"
        await session.send("hi")
        assert [e.mode for e in seen if isinstance(e, ResponseStarted)] == ["ctl-heredoc"]
        assert session.mode == "ctl-heredoc" == stored_mode(session)


@pytest.mark.parametrize("chosen", ["ctl", "xml"])
async def test_a_mode_chosen_before_the_first_request_is_kept(tmp_path: Path, chosen: str) -> None:
    async with auto_session(tmp_path, TOOLS) as (server, session, seen):
        session.set_mode(chosen)  # /mode before the first prompt
        assert session.mode == chosen
        await session.send("hi")
        assert [e.mode for e in seen if isinstance(e, ResponseStarted)] == [chosen]
        assert session.mode == chosen
        assert not server.requests[-1].body.get("tools")  # a text protocol: no tools[]


async def test_a_mode_switched_is_what_a_resume_continues_in(tmp_path: Path) -> None:
    """``/mode`` was kept only in the running session: ``frontier -c`` went back to the
    mode the session started in (``/model`` was stored; ``/mode`` was not)."""
    async with auto_session(tmp_path, TOOLS) as (server, session, _):
        await session.send("hi")
        session.set_mode("ctl")
        sid, url = session.session_id, server.url
        assert stored_mode(session) == "ctl"
        await session.close()  # quit: the session is free to resume
        config = Config(base_url=url, model="an-unknown-local-model", api_key="sk-test-0123456789")
        resumed = create_runtime(config, approver=PolicyApprover("auto"), session_id=sid)
        try:
            assert resumed.resumed and resumed.mode == "ctl"
        finally:
            await resumed.close()


async def test_a_mode_the_store_cannot_record_is_not_switched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with auto_session(tmp_path, TOOLS) as (_, session, _seen):
        await session.send("hi")

        def full(self: object, session_id: str, mode: str) -> None:
            raise StoreError("database or disk is full")

        monkeypatch.setattr(SessionStore, "set_mode", full)
        with pytest.raises(ValueError, match="the mode is unchanged: database or disk is full"):
            session.set_mode("xml")
        assert session.mode == "native-inc"


@pytest.mark.parametrize(
    ("capabilities", "mode"),
    [(["completion", "tools"], "native-inc"), (["completion", "vision"], "ctl-heredoc")],
)
async def test_ollama_says_whether_the_model_takes_tools(
    tmp_path: Path, capabilities: list[str], mode: str
) -> None:
    """Ollama has no ``/props``: a model the catalogue does not know (a new one, a
    fine-tune, a Modelfile of one's own) was always taught the text protocol, though
    Ollama lists ``tools`` among its capabilities (``POST /api/show``)."""
    async with auto_session(tmp_path, None, ollama=capabilities) as (server, session, seen):
        await session.send("hi")
        assert [e.mode for e in seen if isinstance(e, ResponseStarted)] == [mode]
        assert server.shown == ["an-unknown-local-model"]
        assert bool(server.requests[-1].body.get("tools")) == (mode == "native-inc")


async def test_a_claude_newer_than_the_catalogue_gets_native_tools_and_thinks(
    tmp_path: Path,
) -> None:
    """``--model claude-opus-5``: unknown by name, it was taught the text protocol and its
    window assumed 8,192 tokens; it is a Claude (``catalogue.known``)."""
    server = WireServer("anthropic-messages")
    async with session_on(tmp_path, server, "claude-opus-5", reasoning_effort="high") as (
        session,
        _,
    ):
        assert session.mode == "native-inc"
        await session.send("hi")
        assert session.context_window == 200_000
    body = server.requests[-1].body
    assert body.get("tools") and body.get("thinking") == {"type": "adaptive"}


async def test_an_unknown_model_on_a_vendors_own_api_runs_native_tools(tmp_path: Path) -> None:
    """``--model gpt-6`` on api.openai.com: nothing is asked of the vendor (no /props),
    the mode is native-inc from the start. Nothing is sent: the session is only built."""
    root = tmp_path / "ws"
    root.mkdir()
    config = Config(
        base_url="https://api.openai.com/v1", model="gpt-6", protocol="auto",
        api_key="sk-test-0123456789", instructions=False,
    )  # fmt: skip
    session = create_runtime(config, approver=PolicyApprover("auto"), workspace=root)
    try:
        assert session.mode == "native-inc"
        assert stored_mode(session) == "native-inc"
    finally:
        await session.close()


@pytest.mark.parametrize(("parameters", "mode"), [(["tools", "max_tokens"], "native-inc"),
                                                   (["max_tokens"], "ctl-heredoc")])  # fmt: skip
async def test_a_models_own_page_says_its_window_and_whether_it_takes_tools(
    tmp_path: Path, parameters: list[str], mode: str
) -> None:
    """OpenRouter: its listing of 400 models is past what a look-up reads, so a model the
    catalogue does not know got the text protocol and an assumed 8,192 tokens; the
    model's own page (``GET /models/{id}``) says both."""
    server = WireServer("openai-chat")
    name = "vendor/new-model-2"
    server.pages[name] = {"data": {
        "id": name, "canonical_slug": name, "context_length": 262_144,
        "supported_parameters": parameters}}  # fmt: skip
    async with session_on(tmp_path, server, name) as (session, seen):
        await session.send("hi")
        assert session.context_window == 262_144
    assert [e.mode for e in seen if isinstance(e, ResponseStarted)] == [mode]
    assert server.paged == [name]  # asked once, by the window and the mode alike


def lm_studio(tools: bool, loaded: int | None) -> dict[str, object]:
    """LM Studio's ``GET /api/v1/models`` for one model, loaded with ``loaded`` tokens."""
    instances = [{"id": "qwen/qwen3.5-9b", "config": {"context_length": loaded}}] if loaded else []
    return {"models": [
        {"type": "llm", "key": "google/gemma-3-4b", "max_context_length": 131072,
         "capabilities": {"vision": True, "trained_for_tool_use": False},
         "loaded_instances": []},
        {"type": "llm", "key": "qwen/qwen3.5-9b", "max_context_length": 262144,
         "capabilities": {"vision": False, "trained_for_tool_use": tools},
         "loaded_instances": instances, "variants": ["qwen/qwen3.5-9b@q4_k_m"]},
    ]}  # fmt: skip


@pytest.mark.parametrize(
    ("tools", "loaded", "mode", "window"),
    [(True, 4096, "native-inc", 4096), (False, None, "ctl-heredoc", 8192)],
)
async def test_lm_studio_says_what_it_runs_a_model_with(
    tmp_path: Path, tools: bool, loaded: int | None, mode: str, window: int
) -> None:
    """LM Studio's ``/v1/models`` lists names only: a session took the catalogue's (or an
    assumed) window while LM Studio ran the model with 4,096 tokens and cut the rest, and
    the text protocol was taught to a model LM Studio says was trained for tools. A model
    not loaded says no window (it is loaded with settings the listing does not give)."""
    server = WireServer("openai-chat", lmstudio=lm_studio(tools, loaded))
    server.models = [{"id": "qwen/qwen3.5-9b"}, {"id": "google/gemma-3-4b"}]
    async with session_on(tmp_path, server, "qwen/qwen3.5-9b") as (session, seen):
        await session.send("hi")
        assert session.context_window == window
    assert [e.mode for e in seen if isinstance(e, ResponseStarted)] == [mode]


VLLM_REFUSAL = {
    "object": "error", "code": 400, "type": "BadRequestError", "param": None,
    "message": '"auto" tool choice requires --enable-auto-tool-choice and '
    "--tool-call-parser to be set",
}  # fmt: skip


OPENROUTER_REFUSAL = {
    "error": {"code": 404, "message": "No endpoints found that support tool use. To learn "
              "more about provider routing, visit: https://openrouter.ai/docs/provider-routing"}
}  # fmt: skip


@pytest.mark.parametrize(
    ("code", "refusal"),
    [(400, VLLM_REFUSAL), (404, OPENROUTER_REFUSAL)],
    ids=["vllm", "openrouter"],
)
async def test_a_server_that_refuses_tools_gets_the_text_protocol(
    tmp_path: Path, code: int, refusal: dict[str, object]
) -> None:
    """vLLM started without ``--enable-auto-tool-choice`` refuses any request with
    ``tools[]``; the catalogue says Qwen takes tools, so ``auto`` chose native-inc and
    every message ended in the refusal. Before any reply, auto's choice was only a guess:
    the same request goes again in ctl-heredoc, which sends none, and the session stays
    there (stored, and said)."""
    server = WireServer("openai-chat")
    async with session_on(tmp_path, server, "Qwen/Qwen2.5-7B-Instruct") as (session, seen):
        server.replies[:] = [status(code, refusal), stream(script(server.wire, [Text("Hi.")]))]
        assert session.mode == "native-inc"
        ended = await session.send("hi")
        assert ended.reason == "done"
        assert [e.mode for e in seen if isinstance(e, ResponseStarted)] == [
            "native-inc",
            "ctl-heredoc",
        ]
        assert [bool(r.body.get("tools")) for r in server.requests] == [True, False]
        assert session.mode == "ctl-heredoc" == stored_mode(session)
        said = [e.text for e in seen if isinstance(e, Notice)]
        assert len(said) == 1 and "goes on in ctl-heredoc" in said[0]


async def test_after_a_reply_or_a_chosen_mode_a_tools_refusal_ends_the_turn(
    tmp_path: Path,
) -> None:
    """A refusal of tools once the server has answered with them (or once the person chose
    the mode) is not auto's guess failing: it is told, and the mode is the same."""
    server = WireServer("openai-chat")
    async with session_on(tmp_path, server, "Qwen/Qwen2.5-7B-Instruct") as (session, _seen):
        assert (await session.send("hi")).reason == "done"
        server.answer(status(400, VLLM_REFUSAL))
        ended = await session.send("again")
        assert ended.reason == "provider_error" and "--enable-auto-tool-choice" in ended.message
        assert session.mode == "native-inc" == stored_mode(session)
    server = WireServer("openai-chat")
    (tmp_path / "b").mkdir()
    async with session_on(tmp_path / "b", server, "Qwen/Qwen2.5-7B-Instruct") as (session, _):
        session.set_mode("native-eos")
        server.replies[:] = [status(400, VLLM_REFUSAL)]
        assert (await session.send("hi")).reason == "provider_error"
        assert session.mode == "native-eos"
