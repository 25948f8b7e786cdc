"""``connect_timeout`` / ``first_byte_timeout`` / ``idle_timeout``: config.toml < env <
flags, validated with the source named, and kept when another setting is saved."""

from __future__ import annotations

from pathlib import Path

import pytest

from frontier.app.agent.runtime import create_runtime
from frontier.app.cli import build_parser
from frontier.app.commands._agent_args import config_from_args
from frontier.app.config import (
    TIMEOUTS,
    Config,
    ConfigError,
    config_path,
    load_config,
    save_setting,
)

ENV = {
    "connect_timeout": "FRONTIER_CONNECT_TIMEOUT",
    "first_byte_timeout": "FRONTIER_FIRST_BYTE_TIMEOUT",
    "idle_timeout": "FRONTIER_IDLE_TIMEOUT",
}


@pytest.fixture(autouse=True)
def _no_timeout_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ENV.values():
        monkeypatch.delenv(var, raising=False)


def write_config(text: str) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")


def test_defaults() -> None:
    """Unset, the first-byte and idle waits are the model's (below)."""
    config = load_config()
    assert (config.connect_timeout, config.first_byte_timeout, config.idle_timeout) == (
        10.0,
        None,
        None,
    )
    assert set(TIMEOUTS) == set(ENV)


@pytest.mark.parametrize(
    ("base_url", "model", "settings", "waits"),
    [
        # a reasoning model may think silently for minutes before its first byte (OpenAI's
        # without summaries, DeepSeek V4 Pro, Gemini, Grok): 45 s cut those turns off
        ("https://api.openai.com/v1", "gpt-5", {}, (300.0, 300.0)),
        ("https://api.deepseek.com/v1", "deepseek-v4-pro", {}, (300.0, 300.0)),
        ("https://api.openai.com/v1", "gpt-7-new", {}, (300.0, 300.0)),  # a vendor's, new
        ("https://api.openai.com/v1", "gpt-4.1", {}, (45.0, 30.0)),  # no reasoning
        ("http://127.0.0.1:9/v1", "a-local-model", {}, (45.0, 30.0)),  # not known to reason
        # a gateway's new model (OpenRouter's comments while it thinks are not content)
        ("https://openrouter.ai/api/v1", "openai/gpt-7-new", {}, (300.0, 300.0)),
        ("https://openrouter.ai/api/v1", "openai/gpt-4.1", {}, (45.0, 30.0)),  # known
        ("https://api.openai.com/v1", "gpt-5", {"first_byte_timeout": 60.0}, (60.0, 300.0)),
        ("http://127.0.0.1:9/v1", "a-local-model", {"idle_timeout": 90.0}, (45.0, 90.0)),
    ],
)
async def test_a_model_that_may_reason_silently_is_waited_for_longer(
    tmp_path: Path,
    base_url: str,
    model: str,
    settings: dict[str, float],
    waits: tuple[float, float],
) -> None:
    config = Config(base_url=base_url, model=model, api_key="sk-test-0123456789", **settings)  # type: ignore[arg-type]
    session = create_runtime(config, workspace=tmp_path)
    try:
        timeouts = session._loop.client.timeouts  # type: ignore[attr-defined]
        assert (timeouts.connect, timeouts.first_byte, timeouts.idle) == (10.0, *waits)
    finally:
        await session.close()


def test_file_then_env_then_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    write_config("connect_timeout = 5\nfirst_byte_timeout = 300.5\nidle_timeout = 20\n")
    config = load_config()
    assert (config.connect_timeout, config.first_byte_timeout, config.idle_timeout) == (
        5.0,
        300.5,
        20.0,
    )
    monkeypatch.setenv("FRONTIER_FIRST_BYTE_TIMEOUT", "120")
    assert load_config().first_byte_timeout == 120.0
    assert load_config(first_byte_timeout=7.5).first_byte_timeout == 7.5


def test_flags_reach_the_config() -> None:
    args = build_parser().parse_args(
        ["run", "--prompt", "x", "--connect-timeout", "3", "--first-byte-timeout", "240"]
    )
    config = config_from_args(args)
    assert config is not None
    assert config.connect_timeout == 3.0 and config.first_byte_timeout == 240.0
    assert config.idle_timeout == Config().idle_timeout
    top = build_parser().parse_args(["--idle-timeout", "12", "run", "--prompt", "x"])
    assert (config_from_args(top) or Config()).idle_timeout == 12.0


@pytest.mark.parametrize("value", ["0", "-1", "soon", "nan", "inf"])
def test_invalid_env_value_names_the_variable(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("FRONTIER_IDLE_TIMEOUT", value)
    with pytest.raises(ConfigError) as info:
        load_config()
    assert "idle_timeout must be a number of seconds > 0" in str(info.value)
    assert "FRONTIER_IDLE_TIMEOUT" in str(info.value)


def test_invalid_file_and_flag_values_name_their_source() -> None:
    write_config('connect_timeout = true\nfirst_byte_timeout = "2m"\n')
    with pytest.raises(ConfigError, match=r"connect_timeout .* \(set by .*config.toml\)"):
        load_config()
    write_config("")
    with pytest.raises(ConfigError, match=r"\(set by --first-byte-timeout\)"):
        load_config(first_byte_timeout=-5.0)


def test_seconds_written_as_strings_are_accepted() -> None:
    write_config('first_byte_timeout = "90"\nidle_timeout = "15s"\n')
    config = load_config()
    assert config.first_byte_timeout == 90.0 and config.idle_timeout == 15.0


def test_saving_the_theme_keeps_a_fractional_timeout() -> None:
    write_config("first_byte_timeout = 120.5\n")
    save_setting("theme", "frontier-light")
    config = load_config()
    assert config.first_byte_timeout == 120.5 and config.theme == "frontier-light"
