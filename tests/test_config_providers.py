"""Named providers (``[providers.NAME]``, ``--provider``), the ``wire`` setting and the
``auto`` protocol default: config.toml < provider < environment < flags, each provider's
key source, and errors that name the setting and where it was set. Never the real home:
the suite's conftest points FRONTIER_CONFIG_DIR / FRONTIER_DATA_DIR at a temp dir."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from frontier.app import cli
from frontier.app import config as config_module
from frontier.app.commands._agent_args import config_from_args
from frontier.app.config import (
    BUILTIN_PROVIDERS,
    Config,
    ConfigError,
    config_path,
    load_config,
    load_providers,
    resolve_api_key,
    save_setting,
    secret_env_names,
)
from frontier.app.vocab import PROTOCOL_SETTINGS, WIRE_SETTINGS

KEY = "sk-provider-key-5f1e2d3c4b"
OTHER = "sk-someone-elses-9a8b7c6d"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The variables this file's settings read, beyond what conftest clears."""
    for var in (
        "FRONTIER_WIRE",
        "FRONTIER_PROVIDER",
        "FRONTIER_API_KEY_COMMAND",
        "FRONTIER_API_KEY_FILE",
        "FRONTIER_MAX_TOKENS",
        "FRONTIER_REASONING_EFFORT",
        "FRONTIER_PREFILL",
        "ANTHROPIC_API_KEY",
        "OPENROUTER_API_KEY",
        "DEEPSEEK_API_KEY",
        "WORK_KEY",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(config_module, "_RESOLVED", {})


def write_config(text: str) -> Path:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def toml(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --------------------------------------------------------------------- defaults


def test_defaults_protocol_and_wire_are_auto() -> None:
    config = load_config()
    assert (config.protocol, config.wire, config.provider, config.key_env) == (
        "auto",
        "auto",
        None,
        None,
    )
    assert (Config().protocol, Config().wire) == ("auto", "auto")


@pytest.mark.parametrize("value", PROTOCOL_SETTINGS)
def test_every_protocol_setting_is_accepted(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRONTIER_PROTOCOL", value)
    assert load_config().protocol == value


@pytest.mark.parametrize("value", WIRE_SETTINGS)
def test_every_wire_setting_is_accepted(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRONTIER_WIRE", value)
    assert load_config().wire == value


def test_wire_from_file_env_and_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    write_config('wire = "openai-chat"\n')
    assert load_config().wire == "openai-chat"
    monkeypatch.setenv("FRONTIER_WIRE", "openai-responses")
    assert load_config().wire == "openai-responses"
    assert load_config(wire="anthropic-messages").wire == "anthropic-messages"


def test_a_wire_by_its_short_name_is_that_wire(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--wire anthropic` was an argparse error listing `anthropic-messages`: a person
    types the API's short name; every place a wire is set reads it as the wire."""
    write_config('wire = "Anthropic"\n')
    assert load_config().wire == "anthropic-messages"
    monkeypatch.setenv("FRONTIER_WIRE", "responses")
    assert load_config().wire == "openai-responses"
    assert load_config(wire="chat").wire == "openai-chat"
    from frontier.app.cli import build_parser

    args = build_parser().parse_args(["--wire", "anthropic"])
    assert args.wire == "anthropic-messages"
    write_config('[providers.p]\nbase_url = "http://x/v1"\nwire = "responses"\n')
    assert load_config(provider="p").wire == "openai-responses"


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ({"FRONTIER_PROTOCOL": "json-whole"}, r"unknown protocol 'json-whole'; choose one of "
         r"auto, native-eos.*\(set by FRONTIER_PROTOCOL\)"),
        ({"FRONTIER_WIRE": "grpc"}, r"unknown wire 'grpc'; choose one of auto, openai-chat.*"
         r"\(set by FRONTIER_WIRE\)"),
    ],
)  # fmt: skip
def test_a_bad_protocol_or_wire_names_where_it_was_set(
    setup: dict[str, str], message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var, value in setup.items():
        monkeypatch.setenv(var, value)
    with pytest.raises(ConfigError, match=message):
        load_config()


def test_a_bad_wire_in_the_file_or_a_flag_names_it() -> None:
    path = write_config('wire = "soap"\n')
    with pytest.raises(ConfigError, match=rf"unknown wire 'soap'.*\(set by {path}\)"):
        load_config()
    write_config("")
    with pytest.raises(ConfigError, match=r"\(set by --protocol\)"):
        load_config(protocol="fast")


# --------------------------------------------------------------------- built-in providers


def test_builtin_providers() -> None:
    expected = {
        "openai": ("https://api.openai.com/v1", "openai-responses", "OPENAI_API_KEY"),
        "anthropic": ("https://api.anthropic.com/v1", "anthropic-messages", "ANTHROPIC_API_KEY"),
        "openrouter": ("https://openrouter.ai/api/v1", "openai-chat", "OPENROUTER_API_KEY"),
        "deepseek": ("https://api.deepseek.com/v1", "openai-chat", "DEEPSEEK_API_KEY"),
        "ollama": ("http://127.0.0.1:11434/v1", "openai-chat", None),
        "llamacpp": ("http://127.0.0.1:8080/v1", "openai-chat", None),
    }
    assert {
        name: (p.base_url, p.wire, p.key_env) for name, p in BUILTIN_PROVIDERS.items()
    } == expected
    for name, (base_url, wire, key_env) in expected.items():
        config = load_config(provider=name)
        assert (config.provider, config.base_url, config.wire, config.key_env) == (
            name,
            base_url,
            wire,
            key_env,
        )
        assert config.has_endpoint


def test_anthropic_reads_its_own_key_and_never_openais(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OTHER)
    config = load_config(provider="anthropic")
    assert config.api_key is None  # OPENAI_API_KEY is not Anthropic's
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    assert load_config(provider="anthropic").api_key == KEY
    assert resolve_api_key(load_config(provider="anthropic"))[0].api_key == KEY


def test_openai_provider_reads_openai_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert load_config(provider="openai").api_key == KEY


@pytest.mark.parametrize("name", ["ollama", "llamacpp"])
def test_local_providers_send_no_key(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OTHER)
    config, notes = resolve_api_key(load_config(provider=name))
    assert config.api_key is None and notes == []


def test_an_unset_key_env_is_an_error_when_the_session_needs_the_key() -> None:
    config = load_config(provider="anthropic")  # loading never fails for it: demo, replay
    with pytest.raises(ConfigError) as info:
        resolve_api_key(config)
    text = str(info.value)
    assert "provider 'anthropic' reads its API key from $ANTHROPIC_API_KEY, which is not set" in (
        text
    )
    assert "export ANTHROPIC_API_KEY=" in text and "[providers.anthropic]" in text


def test_the_key_env_is_read_again_when_the_key_is_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_config(provider="openrouter")
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    assert resolve_api_key(config)[0].api_key == KEY


def test_frontier_api_key_beats_every_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FRONTIER_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", OTHER)
    assert load_config(provider="anthropic").api_key == KEY


# --------------------------------------------------------------------- config.toml tables


def test_a_provider_table_sets_every_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_config(
        """
        provider = "work"

        [providers.work]
        base_url = "https://llm.example.com/v1"
        wire = "openai-responses"
        key_env = "WORK_KEY"
        connect_timeout = 3
        first_byte_timeout = "120s"
        idle_timeout = 20.5
        max_tokens = 4096
        context_window = 65536
        model = "work-coder"
        """
    )
    monkeypatch.setenv("WORK_KEY", KEY)
    config = load_config()
    assert config.provider == "work"
    assert (config.base_url, config.wire, config.model) == (
        "https://llm.example.com/v1",
        "openai-responses",
        "work-coder",
    )
    assert (config.connect_timeout, config.first_byte_timeout, config.idle_timeout) == (
        3.0,
        120.0,
        20.5,
    )
    assert (config.max_tokens, config.context_window) == (4096, 65536)
    assert (config.key_env, config.api_key) == ("WORK_KEY", KEY)
    assert "WORK_KEY" in secret_env_names(config)


def test_override_order_config_then_provider_then_env_then_flag(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_config(
        """
        model = "from-file"
        idle_timeout = 11
        base_url = "http://file.example/v1"

        [providers.p]
        base_url = "http://provider.example/v1"
        model = "from-provider"
        idle_timeout = 22
        """
    )
    config = load_config()
    assert (config.model, config.idle_timeout, config.base_url) == (
        "from-file",
        11.0,
        "http://file.example/v1",
    )  # not selected: the table does nothing
    config = load_config(provider="p")
    assert (config.model, config.idle_timeout, config.base_url) == (
        "from-provider",
        22.0,
        "http://provider.example/v1",
    )
    monkeypatch.setenv("FRONTIER_MODEL", "from-env")
    monkeypatch.setenv("FRONTIER_IDLE_TIMEOUT", "33")
    config = load_config(provider="p")
    assert (config.model, config.idle_timeout) == ("from-env", 33.0)
    config = load_config(provider="p", model="from-flag", idle_timeout=44.0)
    assert (config.model, config.idle_timeout) == ("from-flag", 44.0)


def test_a_top_level_value_the_provider_does_not_set_still_applies() -> None:
    write_config('model = "gpt-4.1"\nmax_tokens = 2000\n')
    config = load_config(provider="openai")
    assert (config.model, config.max_tokens, config.base_url) == (
        "gpt-4.1",
        2000,
        "https://api.openai.com/v1",
    )


def test_the_provider_is_chosen_by_file_env_or_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    write_config('provider = "ollama"\n')
    assert load_config().provider == "ollama"
    monkeypatch.setenv("FRONTIER_PROVIDER", "llamacpp")
    assert load_config().base_url == "http://127.0.0.1:8080/v1"
    config = load_config(provider="openrouter")
    assert (config.provider, config.base_url) == ("openrouter", "https://openrouter.ai/api/v1")


def test_a_table_overrides_a_builtin_key_by_key(tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    script = f"echo run >> {shlex.quote(str(counter))}; echo {KEY}"
    write_config(f"[providers.openai]\nkey_command = {toml(script)}\nidle_timeout = 90\n")
    providers = load_providers()
    openai = providers["openai"]
    assert (openai.base_url, openai.wire, openai.key_env) == (
        "https://api.openai.com/v1",
        "openai-responses",
        "OPENAI_API_KEY",
    )
    assert openai.defined_by.startswith("built in, overridden by [providers.openai] in ")
    config = load_config(provider="openai")
    assert config.api_key_command == script and config.idle_timeout == 90.0
    assert config.api_key is None  # nothing run until a session needs the key
    assert resolve_api_key(config)[0].api_key == KEY
    assert counter.read_text().count("run") == 1


def test_a_key_command_or_file_beats_the_key_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", OTHER)
    key = tmp_path / "anthropic.key"
    key.write_text(KEY + "\n")
    key.chmod(0o600)
    write_config(f"[providers.anthropic]\nkey_file = {toml(str(key))}\n")
    config = load_config(provider="anthropic")
    assert config.api_key is None and config.api_key_file == str(key)
    assert resolve_api_key(config) == (config_module.replace(config, api_key=KEY), [])


def test_the_provider_key_source_replaces_the_top_level_one(tmp_path: Path) -> None:
    """config.toml's api_key_command is for the default endpoint: selecting a provider
    never runs it (one vendor's key is never sent to another)."""
    ran = tmp_path / "ran"
    write_config(f"api_key_command = {toml(f'touch {ran}; echo {OTHER}')}\n")
    assert load_config().api_key_command  # the default endpoint still uses it
    config = load_config(provider="ollama")
    assert config.api_key_command is None
    assert resolve_api_key(config)[0].api_key is None
    assert not ran.exists()


def test_the_environment_key_command_beats_the_provider(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FRONTIER_API_KEY_COMMAND", f"echo {KEY}")
    config = load_config(provider="anthropic")
    assert resolve_api_key(config)[0].api_key == KEY  # ANTHROPIC_API_KEY is unset: no error


def test_an_empty_key_env_removes_the_builtin_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OTHER)
    write_config('[providers.openai]\nbase_url = "http://proxy.local/v1"\nkey_env = ""\n')
    config = load_config(provider="openai")
    assert (config.key_env, config.api_key) == (None, None)
    assert resolve_api_key(config)[0].api_key is None


# --------------------------------------------------------------------- no provider: today's rules


def test_without_a_provider_openai_api_key_is_still_the_fallback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert load_config(base_url="http://127.0.0.1:8080/v1").api_key == KEY
    assert load_config().api_key == KEY


def test_without_a_provider_anthropic_gets_only_its_own_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OTHER)
    assert load_config(base_url="https://api.anthropic.com/v1").api_key is None
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    assert load_config(base_url="https://api.anthropic.com/v1").api_key == KEY


def test_without_a_provider_openrouter_prefers_its_own_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OTHER)
    url = "https://openrouter.ai/api/v1"
    assert load_config(base_url=url).api_key == OTHER  # as before: OPENAI_API_KEY
    monkeypatch.setenv("OPENROUTER_API_KEY", KEY)
    assert load_config(base_url=url).api_key == KEY


def test_deepseeks_endpoint_gets_deepseeks_key_and_never_openais(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """DeepSeek's docs point the OpenAI SDK at it: a person with an OpenAI key exported
    and ``--base-url https://api.deepseek.com`` must not send that key to DeepSeek."""
    monkeypatch.setenv("OPENAI_API_KEY", OTHER)
    for url in ("https://api.deepseek.com", "https://api.deepseek.com/v1"):
        assert load_config(base_url=url).api_key is None
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)
    assert load_config(base_url="https://api.deepseek.com").api_key == KEY
    config = load_config(provider="deepseek", model="deepseek-v4-pro")
    assert (config.api_key, config.api_key_from) == (KEY, "$DEEPSEEK_API_KEY")
    assert "DEEPSEEK_API_KEY" in secret_env_names()


def test_openai_base_url_and_openai_api_key_go_together_whatever_the_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """DeepSeek's docs (and every OpenAI-SDK tool) pair ``OPENAI_BASE_URL`` with
    ``OPENAI_API_KEY``: the key set for that endpoint is sent there, after the host's own
    variable; typed with ``--base-url``, the host's variable only."""
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.deepseek.com")
    monkeypatch.setenv("OPENAI_API_KEY", OTHER)
    config = load_config()
    assert (config.base_url, config.api_key) == ("https://api.deepseek.com", OTHER)
    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)
    assert load_config().api_key == KEY
    monkeypatch.delenv("DEEPSEEK_API_KEY")
    assert load_config(base_url="https://api.deepseek.com").api_key is None


def test_secret_env_names() -> None:
    names = secret_env_names()
    for var in ("FRONTIER_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"):
        assert var in names
    assert len(names) == len(set(names))
    write_config(
        '[providers.w]\nbase_url = "http://w/v1"\nkey_env = "WORK_KEY"\n'
        '[providers.other]\nbase_url = "http://o/v1"\nkey_env = "OTHER_KEY"\n'
        'headers = { "X-Gw" = "Bearer ${GW_HDR}", "X-Plain" = "v" }\n'
    )
    names = secret_env_names(load_config(provider="w"))
    assert {"WORK_KEY", "OTHER_KEY", "GW_HDR"} <= set(names)  # any provider's, not only w's
    assert len(names) == len(set(names))


# --------------------------------------------------------------------- errors


def test_an_unknown_provider_lists_the_known_ones() -> None:
    path = write_config('[providers.mine]\nbase_url = "http://m/v1"\n')
    with pytest.raises(ConfigError) as info:
        load_config(provider="nope")
    text = str(info.value)
    assert "unknown provider 'nope' (set by --provider)" in text
    assert "known: anthropic, deepseek, llamacpp, mine, ollama, openai, openrouter" in text
    assert str(path) in text


def test_an_unknown_provider_in_the_environment_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FRONTIER_PROVIDER", "azure")
    with pytest.raises(ConfigError, match=r"unknown provider 'azure' \(set by FRONTIER_PROVIDER\)"):
        load_config()


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('base_url = "http://x/v1"\nenv_key = "X_KEY"',
         r"\[providers\.p\] in .*: unknown setting 'env_key' \(Frontier calls it key_env"),
        ('base_url = "http://x/v1"\nwire_api = "responses"',
         r"unknown setting 'wire_api' \(Frontier calls it wire"),
        ('base_url = "http://x/v1"\nextras = 1', r"unknown setting 'extras'; known: base_url"),
        ('base_url = "http://x/v1"\nhttp_headers = {}',
         r"'http_headers' \(Frontier calls it headers"),
        ('base_url = "http://x/v1"\nwire = "grpc"', r"\[providers\.p\] .*unknown wire 'grpc'"),
        ('base_url = "http://x/v1"\nidle_timeout = "soon"',
         r"idle_timeout must be a number of seconds > 0, got 'soon' \(set by \[providers\.p\]"),
        ('base_url = "http://x/v1"\ncontext_window = -5',
         r"context_window must be a whole number of tokens > 0.*\[providers\.p\]"),
        ('base_url = "http://x/v1"\nkey_command = "a"\nkey_file = "b"',
         r"\[providers\.p\] .*sets both key_command and key_file; keep one"),
        ('model = "m"', r'\[providers\.p\] .*needs base_url = "https://host/v1"'),
        ('base_url = "localhost:8080"', r"base_url must be a URL like https://host/v1"),
        ('base_url = "http://x/v1"\nmodel = 5', r"\[providers\.p\] .*model must be a string"),
    ],
)  # fmt: skip
def test_a_bad_table_names_the_table_and_the_setting(table: str, message: str) -> None:
    write_config(f"[providers.p]\n{table}\n")
    with pytest.raises(ConfigError, match=message):
        load_config()


def test_a_key_in_a_table_is_refused_without_echoing_it() -> None:
    write_config(f'[providers.p]\nbase_url = "http://x/v1"\napi_key = "{KEY}"\n')
    with pytest.raises(ConfigError, match=r"does not read a key from config\.toml") as info:
        load_config()
    assert KEY not in str(info.value)
    write_config(f'[providers.p]\nbase_url = "http://x/v1"\nkey_env = "{KEY}"\n')
    with pytest.raises(ConfigError, match="key_env must name an environment variable") as info:
        load_config()
    assert KEY not in str(info.value)


def test_providers_must_be_tables() -> None:
    write_config('providers = "openai"\n')
    with pytest.raises(ConfigError, match=r"providers must be tables \(\[providers\.NAME\]\)"):
        load_config()
    write_config('[providers]\nopenai = "x"\n')
    with pytest.raises(ConfigError, match=r"providers\.openai must be a table"):
        load_config()


def test_conflicting_key_sources_across_layers_name_both(monkeypatch: pytest.MonkeyPatch) -> None:
    write_config('[providers.p]\nbase_url = "http://x/v1"\nkey_command = "echo k"\n')
    monkeypatch.setenv("FRONTIER_API_KEY_FILE", "/k")
    with pytest.raises(ConfigError) as info:
        load_config(provider="p")
    text = str(info.value)
    assert "both api_key_command and api_key_file are set" in text
    assert "[providers.p]" in text and "FRONTIER_API_KEY_FILE" in text


# --------------------------------------------------------------------- saving a setting


def test_saving_the_theme_keeps_provider_tables_and_comments() -> None:
    text = """\
# my setup
model = "gpt-4.1"  # the default model
provider = "openai"

[providers.openai]
key_command = "pass show openai"  # never in the environment

[providers.box]
base_url = "http://box:8080/v1"
idle_timeout = 120.5
"""
    write_config(text)
    save_setting("theme", "frontier-light")
    saved = config_path().read_text("utf-8")
    assert saved.startswith("# my setup\n")
    assert 'key_command = "pass show openai"  # never in the environment' in saved
    assert 'provider = "openai"\ntheme = "frontier-light"\n\n[providers.openai]' in saved
    config = load_config()
    assert config.theme == "frontier-light" and config.api_key_command == "pass show openai"
    assert load_providers()["box"].idle_timeout == 120.5
    save_setting("theme", "frontier-contrast")  # replaced in place, not added twice
    saved = config_path().read_text("utf-8")
    assert saved.count("theme =") == 1 and load_config().theme == "frontier-contrast"


def test_saving_into_a_file_whose_line_cannot_be_edited_rewrites_it_whole() -> None:
    write_config('theme = """\nfrontier-dark"""\n[providers.box]\nbase_url = "http://b/v1"\n')
    save_setting("theme", "frontier-light")
    assert load_config().theme == "frontier-light"
    assert load_providers()["box"].base_url == "http://b/v1"


def test_saving_into_a_new_file() -> None:
    save_setting("theme", "frontier-light")
    assert config_path().read_text("utf-8") == 'theme = "frontier-light"\n'


# --------------------------------------------------------------------- the CLI


@pytest.mark.parametrize(
    "argv",
    [
        ["--provider", "openai", "--model", "gpt-4.1"],
        ["--wire", "openai-responses", "--base-url", "u", "--model", "m"],
        ["run", "--prompt", "x", "--provider", "anthropic", "--wire", "anthropic-messages"],
        ["resume", "abc", "--provider", "ollama"],
        ["--protocol", "auto"],
        ["transduce", "--protocol", "native-inc", "--wire", "openai-responses"],
    ],
)
def test_the_commands_that_talk_to_a_model_take_provider_and_wire(argv: list[str]) -> None:
    cli.parse_args(argv)


@pytest.mark.parametrize(
    ("argv", "flag", "command"),
    [
        (["demo", "--provider", "openai"], "--provider", "demo"),
        (["demo", "--wire", "openai-chat"], "--wire", "demo"),
        (["replay", "x.jsonl", "--provider", "openai"], "--provider", "replay"),
        (["--provider", "openai", "sessions"], "--provider", "sessions"),
    ],
)
def test_commands_that_do_not_talk_to_a_model_refuse_them(
    argv: list[str], flag: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        cli.parse_args(argv)
    assert info.value.code == 2
    assert f"{flag} does not apply to `frontier {command}`" in capsys.readouterr().err


def test_replay_takes_wire_as_the_captures_own() -> None:
    """``replay --wire`` names the wire a capture was spoken on (issue 25: a raw SSE body
    says it only by its events); it talks to no model, so ``--provider`` stays refused."""
    args = cli.parse_args(["replay", "body.sse", "--wire", "anthropic-messages"])
    assert args.wire == "anthropic-messages"


def test_flags_reach_the_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    args = cli.parse_args(["run", "--prompt", "x", "--provider", "anthropic", "--model", "c"])
    config = config_from_args(args)
    assert config is not None
    assert (config.provider, config.wire, config.api_key) == (
        "anthropic",
        "anthropic-messages",
        KEY,
    )
    args = cli.parse_args(["--wire", "openai-chat", "--provider", "openai", "run", "--prompt", "x"])
    config = config_from_args(args)
    assert config is not None and (config.provider, config.wire) == ("openai", "openai-chat")


def test_a_bad_provider_flag_is_reported_by_config_from_args(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = cli.parse_args(["run", "--prompt", "x", "--provider", "nope"])
    assert config_from_args(args) is None
    assert "frontier: unknown provider 'nope' (set by --provider)" in capsys.readouterr().err


def test_help_lists_provider_and_wire_and_stays_fast() -> None:
    help_text = cli.build_parser().format_help()
    assert "--provider NAME" in help_text and "--wire" in help_text
    assert "frontier --provider openai --model gpt-4.1" in help_text
    run_help = subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", "run", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "--provider NAME" in run_help and "--wire" in run_help
    code = (
        "import sys\nfrom frontier.app import cli\n"
        "try:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('textual', 'httpx', 'tomllib', 'frontier.app.model.catalogue',"
        " 'frontier.app.config') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


# ------------------------------------------------- the SDKs' base URL variables


async def test_openai_base_url_is_the_endpoint_when_nothing_names_one_and_is_said(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Set for the OpenAI SDK, Codex or aider (a proxy, a local server): Frontier asked
    for --base-url instead. The session says where its endpoint came from."""
    from frontier.app.agent.runtime import create_runtime
    from frontier.tools.policy import PolicyApprover

    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    config = load_config(model="m")
    assert (config.base_url, config.base_url_from) == ("http://127.0.0.1:9/v1", "$OPENAI_BASE_URL")
    assert config.api_key == KEY and config.api_key_from == "$OPENAI_API_KEY"
    runtime = create_runtime(config, approver=PolicyApprover("auto"), workspace=tmp_path)
    try:
        said = "endpoint http://127.0.0.1:9/v1 from $OPENAI_BASE_URL (--base-url names another)"
        assert said in runtime.notes
    finally:
        await runtime.aclose()
    assert load_config(base_url="http://127.0.0.1:8080/v1").base_url_from == ""
    monkeypatch.setenv("FRONTIER_BASE_URL", "http://127.0.0.1:9000/v1")
    assert load_config().base_url == "http://127.0.0.1:9000/v1"
    monkeypatch.delenv("FRONTIER_BASE_URL")
    write_config('base_url = "http://127.0.0.1:7000/v1"\n')
    assert load_config().base_url == "http://127.0.0.1:7000/v1"
    write_config('[providers.local]\nbase_url = "http://127.0.0.1:6000/v1"\n')
    assert load_config(provider="local").base_url == "http://127.0.0.1:6000/v1"
    assert load_config(provider="ollama").base_url == "http://127.0.0.1:11434/v1"


@pytest.mark.parametrize(
    ("name", "var"), [("openai", "OPENAI_BASE_URL"), ("anthropic", "ANTHROPIC_BASE_URL")]
)
def test_a_builtin_vendor_provider_reads_its_sdks_base_url(
    monkeypatch: pytest.MonkeyPatch, name: str, var: str
) -> None:
    """``--provider openai`` with OPENAI_BASE_URL pointing at a proxy sent the key past
    the proxy, to api.openai.com, as its SDK never would."""
    monkeypatch.setenv(var, "https://gateway.example/v1")
    config = load_config(provider=name)
    assert (config.base_url, config.base_url_from) == ("https://gateway.example/v1", f"${var}")
    assert load_config(provider=name, base_url="https://other.example/v1").base_url == (
        "https://other.example/v1"
    )
    write_config(f'[providers.{name}]\nbase_url = "https://mine.example/v1"\n')
    assert load_config(provider=name).base_url == "https://mine.example/v1"


def test_a_base_url_variable_that_is_no_url_is_left_to_its_tool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "localhost:1234")
    assert load_config().base_url is None  # the demo and the welcome screen still start
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "")
    assert load_config(provider="anthropic").base_url == "https://api.anthropic.com/v1"


# ------------------------------------------------------- a provider's headers


def test_a_providers_headers_are_read_with_variables_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Azure OpenAI takes its key as ``api-key``, a gateway its token in a header of its
    own: a provider could not send one."""
    write_config(
        "[providers.azure]\n"
        'base_url = "https://res.openai.azure.com/openai/v1"\n'
        'wire = "openai-responses"\n'
        'headers = { "api-key" = "${AZURE_OPENAI_API_KEY}", X-Team = "core" }\n'
    )
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", OTHER)
    config = load_config(provider="azure")
    assert config.headers == (("api-key", OTHER), ("X-Team", "core"))
    assert OTHER not in repr(config)
    monkeypatch.delenv("AZURE_OPENAI_API_KEY")
    with pytest.raises(ConfigError, match=r"api-key names \$\{AZURE_OPENAI_API_KEY\}, which is"):
        load_config(provider="azure")
    assert load_config().headers == ()  # only the provider that says so sends them


@pytest.mark.parametrize(
    ("table", "says"),
    [
        ('headers = "api-key: x"', "headers must be a table"),
        ('headers = { "bad name" = "x" }', "'bad name' is not a header name"),
        ('headers = { A = "one\\ntwo" }', "the value of A must be one line of text"),
        ("headers = { A = 3 }", "the value of A must be one line of text"),
    ],
)
def test_a_bad_header_is_refused_naming_it_never_its_value(table: str, says: str) -> None:
    write_config(f'[providers.gw]\nbase_url = "https://gw.example/v1"\n{table}\n')
    with pytest.raises(ConfigError, match=re.escape(says)) as caught:
        load_config(provider="gw")
    assert "two" not in str(caught.value)


def test_top_level_headers_go_to_the_endpoint_base_url_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With no provider, config.toml's own ``headers`` (a gateway in front of a local
    server); a selected provider's replace them, as its key source replaces the top level's."""
    write_config('base_url = "http://127.0.0.1:4000/v1"\nheaders = { X-Gw = "${GW_TOKEN}" }\n')
    monkeypatch.setenv("GW_TOKEN", OTHER)
    assert load_config().headers == (("X-Gw", OTHER),)
    assert load_config(provider="openai").headers == ()
    monkeypatch.delenv("GW_TOKEN")
    with pytest.raises(ConfigError, match=r"headers in config.toml: X-Gw names \$\{GW_TOKEN\}"):
        load_config()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('modle = "qwen"\n', "unknown setting 'modle' (did you mean model?)"),
        ("read_timeout = 5\n", "unknown setting 'read_timeout' (idle_timeout (in seconds;"),
        ('wire_api = "chat"\n', "unknown setting 'wire_api' (wire ("),
        ("zzz = 1\nyyy = 2\n", "unknown setting 'yyy' (and 1 more unknown); remove it"),
    ],
)
def test_an_unknown_top_level_setting_is_refused_naming_the_nearest(text: str, says: str) -> None:
    """It was ignored without a word: ``modle = "qwen"`` or an old ``read_timeout`` did
    nothing while the person believed it set."""
    write_config(text)
    with pytest.raises(ConfigError, match=re.escape(says)):
        load_config()


def test_reasoning_effort_is_set_like_any_setting_and_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert load_config().reasoning_effort == "auto"
    write_config('reasoning_effort = "low"\n[providers.think]\nbase_url = "http://t/v1"\n'
                 'reasoning_effort = "high"\n')  # fmt: skip
    assert load_config().reasoning_effort == "low"
    assert load_config(provider="think").reasoning_effort == "high"
    monkeypatch.setenv("FRONTIER_REASONING_EFFORT", "medium")
    assert load_config(provider="think").reasoning_effort == "medium"
    with pytest.raises(ConfigError) as info:
        load_config(reasoning_effort="extreme")
    text = str(info.value)
    assert "unknown reasoning_effort 'extreme'" in text and "auto, low, medium, high" in text
    assert "--reasoning-effort" in text


async def test_a_model_switched_without_a_provider_stays_at_the_endpoint_switched_to(
    tmp_path: Path,
) -> None:
    """``/model big --provider b`` then ``/model small``: the second switch went back to
    the endpoint the session *started* with, where ``small`` is not served."""
    from frontier.app.agent.runtime import create_runtime
    from frontier.tools.policy import PolicyApprover

    write_config('[providers.b]\nbase_url = "http://127.0.0.1:6000/v1"\nwire = "openai-chat"\n')
    config = load_config(base_url="http://127.0.0.1:9/v1", model="m", wire="openai-chat")
    session = create_runtime(config, approver=PolicyApprover("auto"), workspace=tmp_path)
    try:
        assert session.settings is not None and session.settings.base_url.endswith(":9/v1")
        first = await session.switch_model("big", "b")
        assert (first.base_url, first.provider) == ("http://127.0.0.1:6000/v1", "b")
        second = await session.switch_model("small")
        assert (second.base_url, second.provider) == ("http://127.0.0.1:6000/v1", "b")
        assert session.settings.base_url == "http://127.0.0.1:6000/v1"  # /doctor's endpoint
        assert session.settings.model == "small"
    finally:
        await session.aclose()
    auto = create_runtime(
        load_config(base_url="http://127.0.0.1:9/v1", model="m"),
        approver=PolicyApprover("auto"),
        workspace=tmp_path,
    )
    try:
        switched = await auto.switch_model("other")
        assert switched.wire == "openai-chat"  # resolved for this model
        assert auto.settings is not None and auto.settings.wire == "auto"  # and again next time
    finally:
        await auto.aclose()
