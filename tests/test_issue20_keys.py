"""The API key follows the wire (issue 20 audit, item 4).

With no provider, the key variable is the endpoint's vendor's: the base URL's host when
it is a vendor's (api.openai.com, api.anthropic.com, openrouter.ai), else the wire's —
``--wire anthropic-messages`` reads ``ANTHROPIC_API_KEY`` and never sends
``OPENAI_API_KEY`` as ``x-api-key``; the OpenAI wires never read ``ANTHROPIC_API_KEY``.
``FRONTIER_API_KEY`` stays the explicit override, and a provider's ``key_env`` is read
whatever the wire (the person named that variable).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from wire_scripts import Text, WireServer, script, serve_wire, stream

from frontier.app import config as config_module
from frontier.app.agent.runtime import create_runtime
from frontier.app.config import config_path, load_config, resolve_api_key
from frontier.tools.policy import PolicyApprover

OPENAI = "sk-openai-0123456789abcdef"
ANTHROPIC = "sk-ant-api03-0123456789abcdef"
LOCAL = "http://127.0.0.1:8080/v1"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (
        "FRONTIER_WIRE",
        "FRONTIER_PROVIDER",
        "FRONTIER_API_KEY_COMMAND",
        "FRONTIER_API_KEY_FILE",
        "ANTHROPIC_API_KEY",
        "OPENROUTER_API_KEY",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(config_module, "_RESOLVED", {})


def both_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC)


def test_the_anthropic_wire_reads_anthropics_key_and_never_openais(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI)
    config = load_config(base_url=LOCAL, wire="anthropic-messages")
    assert config.api_key is None  # OPENAI_API_KEY is not Anthropic's
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC)
    config = load_config(base_url=LOCAL, wire="anthropic-messages")
    assert (config.api_key, config.api_key_from) == (ANTHROPIC, "$ANTHROPIC_API_KEY")


@pytest.mark.parametrize("wire", [None, "auto", "openai-chat", "openai-responses"])
def test_the_openai_wires_never_read_anthropics_key(
    wire: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC)
    assert load_config(base_url=LOCAL, wire=wire).api_key is None
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI)
    assert load_config(base_url=LOCAL, wire=wire).api_key == OPENAI


def test_the_wire_from_the_environment_or_the_file_counts_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    both_keys(monkeypatch)
    monkeypatch.setenv("FRONTIER_WIRE", "anthropic-messages")
    assert load_config(base_url=LOCAL).api_key == ANTHROPIC
    monkeypatch.delenv("FRONTIER_WIRE")
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text('wire = "anthropic-messages"\n', "utf-8")
    assert load_config(base_url=LOCAL).api_key == ANTHROPIC
    assert load_config(base_url=LOCAL, wire="openai-chat").api_key == OPENAI  # the flag wins


def test_a_vendors_host_decides_over_the_wire(monkeypatch: pytest.MonkeyPatch) -> None:
    both_keys(monkeypatch)
    openai = load_config(base_url="https://api.openai.com/v1", wire="anthropic-messages")
    assert openai.api_key == OPENAI
    anthropic = load_config(base_url="https://api.anthropic.com/v1", wire="openai-chat")
    assert anthropic.api_key == ANTHROPIC


def test_frontier_api_key_is_still_the_override(monkeypatch: pytest.MonkeyPatch) -> None:
    both_keys(monkeypatch)
    monkeypatch.setenv("FRONTIER_API_KEY", "sk-frontier-override-42")
    config = load_config(base_url=LOCAL, wire="anthropic-messages")
    assert (config.api_key, config.api_key_from) == ("sk-frontier-override-42", "$FRONTIER_API_KEY")


def test_a_provider_that_names_a_variable_gets_it_whatever_the_wire(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    both_keys(monkeypatch)
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(
        '[providers.proxy]\nbase_url = "http://127.0.0.1:4000/v1"\n'
        'wire = "anthropic-messages"\nkey_env = "OPENAI_API_KEY"\n',
        "utf-8",
    )
    config = resolve_api_key(load_config(provider="proxy"))[0]
    assert (config.api_key, config.api_key_from) == (OPENAI, "$OPENAI_API_KEY")


@pytest.mark.parametrize(
    ("wire", "header", "expected"),
    [
        ("anthropic-messages", "x-api-key", ANTHROPIC),
        ("openai-responses", "authorization", f"Bearer {OPENAI}"),
        ("openai-chat", "authorization", f"Bearer {OPENAI}"),
    ],
)
async def test_each_wire_sends_its_own_vendors_key(
    wire: str, header: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: the loopback server of each wire sees its vendor's key in its header,
    and the other vendor's key nowhere in the request."""
    both_keys(monkeypatch)
    other = OPENAI if wire == "anthropic-messages" else ANTHROPIC
    server = WireServer(wire)
    server.answer(stream(script(wire, [Text("Done.")])))
    async with serve_wire(server):
        config = load_config(
            base_url=server.url,
            wire=wire,
            model="test-model",
            protocol="native-inc",
            instructions=False,
            context_window=100_000,
        )
        session = create_runtime(config, approver=PolicyApprover("auto"), workspace=tmp_path)
        try:
            ended = await session.send("hello")
        finally:
            await session.close()
    assert ended.reason == "done", ended.message
    [seen] = server.requests
    headers = {k.lower(): v for k, v in seen.headers.items()}
    assert headers[header] == expected
    assert other not in repr(headers) and other not in seen.text


def test_a_base_url_naming_the_anthropic_api_reads_anthropics_key_under_wire_auto(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--wire auto`` speaks Messages at ``…/anthropic`` (Kimi's, z.ai's): the key is
    Anthropic's variable, as for ``--wire anthropic-messages``, never OpenAI's."""
    both_keys(monkeypatch)
    for url in ("https://api.moonshot.ai/anthropic", "https://api.z.ai/api/anthropic"):
        assert load_config(base_url=url).api_key == ANTHROPIC
    assert load_config(base_url="https://api.moonshot.ai/v1").api_key == OPENAI
