"""The model catalogue (``app/model/catalogue.py`` + ``catalogue.toml``): lookups by the
names users and servers write, the data's soundness, and the pure resolution helpers
(window, ``--protocol auto``, ``--wire auto``). No network, no files outside tmp."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from frontier.app.model import catalogue
from frontier.app.model.catalogue import (
    ASSUMED_WINDOW,
    CatalogueError,
    ModelInfo,
    WindowChoice,
    assumed_window_text,
    load_catalogue,
    lookup,
    normalize_model_name,
    resolve_protocol,
    resolve_window,
    resolve_wire,
    validate_catalogue,
)
from frontier.app.vocab import AGENT_MODES, DEFAULT_MODE, WIRES

# --------------------------------------------------------------------- the data


def test_the_shipped_catalogue_has_no_problems() -> None:
    """A broken entry fails here, in CI, and never at a user's start-up."""
    assert validate_catalogue() == []
    entries = load_catalogue()
    assert len(entries) > 60
    assert len({e.id for e in entries}) == len(entries)


def test_the_common_hosted_families_are_covered() -> None:
    for name in (
        "gpt-4.1",
        "gpt-4o",
        "gpt-5",
        "gpt-5-mini",
        "gpt-5-nano",
        "o1",
        "o3",
        "o4-mini",
        "gpt-5-codex",
        "codex-mini-latest",
        "claude-3-5-sonnet-20241022",
        "claude-3-7-sonnet-20250219",
        "claude-sonnet-4-20250514",
        "claude-sonnet-4-5",
        "claude-haiku-4-5",
        "claude-opus-4-1",
        "gemini-1.5-pro",
        "gemini-2.0-flash",
        "gemini-2.5-pro",
        "deepseek-chat",
        "deepseek-reasoner",
        "qwen2.5-coder:7b",
        "qwen3:8b",
        "mistral-large-latest",
        "codestral-latest",
        "devstral:24b",
        "llama3.3:70b",
        "llama4:scout",
    ):
        assert lookup(name) is not None, name


def test_every_entry_is_self_consistent() -> None:
    for info in load_catalogue():
        assert info.context_window > 0
        assert info.max_output_tokens is None or 0 < info.max_output_tokens <= info.context_window
        assert info.wire is None or info.wire in WIRES
        assert not info.wire_only or info.wire is not None
        assert info.source == f"catalogue ({info.id})"
        for pattern in info.patterns:  # every pattern finds its own entry
            if info.family:  # a family is what `known` gives the family's other names
                assert lookup(pattern) is None and catalogue.known(f"{pattern}-x-9") == info
            elif "*" not in pattern:
                assert lookup(pattern) == info, pattern


def test_every_entry_is_listed_in_the_docs() -> None:
    """docs/models.md has the table users read; an entry added here is added there."""
    docs = (Path(__file__).resolve().parent.parent / "docs" / "models.md").read_text("utf-8")
    missing = [e.id for e in load_catalogue() if f"\n| {e.id} | " not in docs]
    assert not missing, f"add these to docs/models.md's table: {missing}"


def test_gpt_4_1_has_its_published_figures() -> None:
    info = lookup("gpt-4.1")
    assert info is not None
    assert (info.context_window, info.max_output_tokens) == (1_047_576, 32_768)
    assert info.tools and not info.prefill and not info.reasoning


@pytest.mark.parametrize(
    ("name", "prefill", "wire"),
    [
        ("claude-sonnet-4-5", True, "anthropic-messages"),
        ("claude-3-5-haiku-latest", True, "anthropic-messages"),
        ("gpt-4.1", False, "openai-responses"),
        ("o3", False, "openai-responses"),
    ],
)
def test_prefill_and_preferred_wire(name: str, prefill: bool, wire: str) -> None:
    info = lookup(name)
    assert info is not None
    assert (info.prefill, info.wire) == (prefill, wire)
    assert not info.can_prefill(thinking=True)  # never with extended thinking
    assert info.can_prefill() == prefill


@pytest.mark.parametrize(
    "name", ["gpt-5-codex", "gpt-5.1-codex", "gpt-5.1-codex-mini", "codex-mini-latest"]
)
def test_codex_models_are_served_over_responses_only(name: str) -> None:
    info = lookup(name)
    assert info is not None
    assert info.wire == "openai-responses" and info.wire_only


# --------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("name", "entry"),
    [
        # provider prefixes
        ("openai/gpt-4.1", "gpt-4.1"),
        ("anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"),
        ("models/gemini-2.5-pro", "gemini-2.5-pro"),
        ("Qwen/Qwen2.5-Coder-32B-Instruct", "qwen2.5-coder"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3"),
        ("deepseek/deepseek-chat-v3-0324", "deepseek-chat"),
        ("us.anthropic.claude-3-7-sonnet-20250219-v1:0", "claude-3-7-sonnet"),
        ("claude-3-5-sonnet-v2@20241022", "claude-3-5-sonnet"),
        # case
        ("GPT-4.1", "gpt-4.1"),
        ("  Claude-Opus-4-5  ", "claude-opus-4-5"),
        # dated suffixes match their family
        ("gpt-4.1-2025-04-14", "gpt-4.1"),
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
        ("gpt-4o-2024-08-06", "gpt-4o"),
        ("gpt-4-0613", "gpt-4"),
        ("o3-2025-04-16", "o3"),
        ("claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("claude-opus-4-1-20250805", "claude-opus-4-1"),
        ("claude-haiku-4-5-20251001", "claude-haiku-4-5"),
        ("gemini-2.0-flash-001", "gemini-2.0-flash"),
        ("mistral-large-2411", "mistral-large"),
        # Ollama tags and local files
        ("qwen2.5-coder:7b", "qwen2.5-coder"),
        ("qwen2.5-coder:1.5b-instruct-q4_K_M", "qwen2.5-coder"),
        ("qwen3:0.6b", "qwen3"),
        ("llama3.1:8b", "llama-3.1"),
        ("llama3:8b", "llama-3"),
        ("llama4:maverick", "llama-4-maverick"),
        ("codestral:22b", "codestral-22b"),
        ("deepseek-r1:7b", "deepseek-r1"),
        ("gemma3:27b", "gemma-3"),
        ("hf.co/bartowski/Qwen2.5-Coder-7B-Instruct-GGUF:Q4_K_M", "qwen2.5-coder"),
        ("/models/qwen2.5-coder-7b-instruct-q4_k_m.gguf", "qwen2.5-coder"),
        ("Meta-Llama-3.1-8B-Instruct", "llama-3.1"),
        # OpenRouter variants
        ("deepseek/deepseek-r1:free", "deepseek-r1"),
        ("anthropic/claude-3.7-sonnet:thinking", "claude-3-7-sonnet"),
        # globs
        ("gpt-5.2-codex", "gpt-5-codex"),
        ("gpt-5.2-pro", "gpt-5-pro"),
        ("qwen3-30b-a3b-instruct-2507", "qwen3-2507"),
        ("qwen3-235b-a22b-thinking-2507", "qwen3-thinking-2507"),
    ],
)
def test_lookup_by_the_names_users_and_servers_write(name: str, entry: str) -> None:
    info = lookup(name)
    assert info is not None, name
    assert info.id == entry


@pytest.mark.parametrize(
    ("name", "entry"),
    [
        ("gpt-4o-mini", "gpt-4o-mini"),  # not gpt-4o
        ("gpt-4.1-nano", "gpt-4.1-nano"),  # not gpt-4.1
        ("o1-mini", "o1-mini"),  # not o1
        ("gpt-5.1-codex-mini", "gpt-5-codex"),  # the codex glob beats the gpt-5.1 pattern
        ("gemini-2.5-flash-lite", "gemini-2.5-flash-lite"),  # not gemini-2.5-flash
        ("deepseek-r1-distill-qwen-7b", "deepseek-r1-distill"),  # not deepseek-r1
        ("codestral-latest", "codestral-2508"),  # not the open 22B "codestral"
    ],
)
def test_the_longest_match_wins(name: str, entry: str) -> None:
    info = lookup(name)
    assert info is not None
    assert info.id == entry


@pytest.mark.parametrize(
    "name",
    [
        "",
        "   ",
        "unknown-model",
        "qwen",  # llama.cpp's README-style alias: nothing to go by
        "my-finetune",
        "gpt-4x",  # not a new part after gpt-4
        "gpt-5.7",  # another version of gpt-5 is not gpt-5
        "claude-opus-4-9",  # nor is another minor version of claude-opus-4
        "llama-3.9-8b",
        "mistral-large-3",  # not the 7B "mistral" either
        "mistral-medium-3.5",
        "qwen3.5-coder",
    ],
)
def test_unknown_names_are_none_never_a_distant_relative(name: str) -> None:
    assert lookup(name) is None


def test_none_is_none() -> None:
    assert lookup(None) is None


def test_a_minor_version_never_falls_back_to_the_older_entry() -> None:
    """claude-sonnet-4-5 is not claude-sonnet-4 with a suffix: its own entry, and a
    version the catalogue does not know is unknown rather than the older model."""
    info = lookup("claude-sonnet-4-5-20250929")
    assert info is not None and info.id == "claude-sonnet-4-5"
    assert lookup("gpt-4.5-preview") is not None
    assert lookup("gpt-4.5-preview").id == "gpt-4.5-preview"  # type: ignore[union-attr]


def test_claude_4_6_and_later_do_not_prefill() -> None:
    for name in ("claude-opus-4-6", "claude-sonnet-4-6"):
        info = lookup(name)
        assert info is not None and not info.prefill


def test_normalize_model_name() -> None:
    assert normalize_model_name("OpenAI/GPT-4.1") == "gpt-4.1"
    assert normalize_model_name("qwen2.5-coder:7b") == "qwen2.5-coder-7b"
    assert normalize_model_name("eu.anthropic.claude-sonnet-4-5") == "claude-sonnet-4-5"
    assert normalize_model_name("C:\\models\\Qwen3-8B.gguf") == "qwen3-8b"


# --------------------------------------------------------------------- validation

GOOD = """
[[model]]
id = "a"
vendor = "v"
patterns = ["alpha"]
context_window = 1000
max_output_tokens = 100
tools = true
prefill = false
reasoning = false
"""


def test_a_sound_file_validates() -> None:
    assert validate_catalogue(GOOD) == []
    (entry,) = load_catalogue(GOOD)
    assert entry == ModelInfo(
        id="a",
        vendor="v",
        context_window=1000,
        max_output_tokens=100,
        tools=True,
        prefill=False,
        reasoning=False,
        patterns=("alpha",),
        source="catalogue (a)",
    )


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (("context_window = 1000", "context_window = 0"), "context_window must be > 0"),
        (("context_window = 1000", 'context_window = "big"'), "context_window must be a int"),
        (("tools = true\n", ""), "tools is missing"),
        (("tools = true", "tools = true\nspeed = 3"), "unknown key 'speed'"),
        (('["alpha"]', '["Alpha"]'), "pattern 'Alpha' must be lower case"),
        (('["alpha"]', '["openai-alpha:1"]'), "pattern 'openai-alpha:1' must be lower case"),
        (("max_output_tokens = 100", "max_output_tokens = 5000"), "at most the window"),
        (("tools = true", 'tools = true\nwire = "grpc"'), "wire 'grpc' is not one of"),
        (("tools = true", "tools = true\nwire_only = true"), "wire_only needs a wire"),
        (('["alpha"]', "[]"), "patterns is empty"),
    ],
)
def test_a_broken_entry_is_a_clear_error_in_tests(change: tuple[str, str], problem: str) -> None:
    text = GOOD.replace(*change)
    problems = validate_catalogue(text)
    assert any(problem in p and "model #1 (a)" in p for p in problems), problems
    with pytest.raises(CatalogueError, match="model #1"):
        load_catalogue(text)


def test_duplicates_and_bad_toml_are_reported() -> None:
    twice = GOOD + GOOD.replace('id = "a"', 'id = "b"')
    assert any("pattern 'alpha' is already 'a'" in p for p in validate_catalogue(twice))
    assert any("the id is used twice" in p for p in validate_catalogue(GOOD + GOOD))
    assert any("invalid TOML" in p for p in validate_catalogue("[[model]\n"))
    assert any("no [[model]] entries" in p for p in validate_catalogue(""))


def test_at_run_time_a_broken_entry_is_skipped_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = GOOD + GOOD.replace('id = "a"', 'id = "b"').replace('["alpha"]', '["beta"]').replace(
        "context_window = 1000", "context_window = -1"
    )
    monkeypatch.setattr(catalogue, "_read_data", lambda: broken)
    catalogue._catalogue.cache_clear()
    catalogue.lookup.cache_clear()
    try:
        assert lookup("alpha-2025-01-01") is not None
        assert lookup("beta") is None  # skipped, and nothing raised
        assert validate_catalogue() != []
    finally:
        catalogue._catalogue.cache_clear()
        catalogue.lookup.cache_clear()


def test_an_unreadable_file_is_an_empty_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail() -> str:
        raise OSError("gone")

    monkeypatch.setattr(catalogue, "_read_data", fail)
    catalogue._catalogue.cache_clear()
    catalogue.lookup.cache_clear()
    try:
        assert lookup("gpt-4.1") is None
        assert "cannot read it" in validate_catalogue()[0]
    finally:
        catalogue._catalogue.cache_clear()
        catalogue.lookup.cache_clear()


def test_importing_the_module_does_not_read_the_data() -> None:
    """Loaded lazily: ``frontier --help`` (which never imports it) and any importer pay
    nothing until the first lookup."""
    code = (
        "import frontier.app.model.catalogue as c\n"
        "print(c._catalogue.cache_info().currsize, 'tomllib' in __import__('sys').modules)\n"
        "c.lookup('gpt-4.1')\n"
        "print(c._catalogue.cache_info().currsize)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "False", "1"]


# --------------------------------------------------------------------- the window

GPT41 = lookup("gpt-4.1")


def test_window_order_flag_then_server_then_catalogue_then_assumed() -> None:
    assert resolve_window(50_000, 32_768, "GET /props n_ctx", GPT41) == (50_000, "config", False)
    assert resolve_window(None, 32_768, "GET /props n_ctx", GPT41) == WindowChoice(
        32_768, "GET /props n_ctx", False
    )
    assert resolve_window(None, None, "", GPT41) == (1_047_576, "catalogue (gpt-4.1)", False)
    choice = resolve_window(None, None, "", None)
    assert choice == (ASSUMED_WINDOW, "assumed", True)
    assert choice.assumed and choice.tokens == 8192


def test_window_ignores_nonsense_values() -> None:
    assert resolve_window(0, -1, "x", None).assumed
    assert resolve_window(None, 0, "x", GPT41).source == "catalogue (gpt-4.1)"
    assert resolve_window(None, 4096, "", None) == (4096, "server", False)


def test_the_assumed_window_text() -> None:
    assert assumed_window_text() == "context window assumed: 8,192 — set --context-window"
    assert assumed_window_text(16384) == "context window assumed: 16,384 — set --context-window"


def test_the_assumed_window_matches_the_budget_default() -> None:
    from frontier.app.agent import budget

    assert budget.DEFAULT_WINDOW == ASSUMED_WINDOW


# --------------------------------------------------------------------- --protocol auto


def test_protocol_auto_is_native_inc_where_the_catalogue_says_tools() -> None:
    assert resolve_protocol("auto", lookup("gpt-4.1"), None) == "native-inc"
    assert resolve_protocol("auto", lookup("claude-sonnet-4-5"), False) == "native-inc"


def test_protocol_auto_is_native_inc_where_the_server_says_tools() -> None:
    assert resolve_protocol("auto", None, True) == "native-inc"
    assert resolve_protocol("auto", lookup("gemma3:4b"), True) == "native-inc"


def test_protocol_auto_is_ctl_heredoc_otherwise() -> None:
    assert resolve_protocol("auto", None, None) == DEFAULT_MODE == "ctl-heredoc"
    assert resolve_protocol("auto", None, False) == "ctl-heredoc"
    assert resolve_protocol("auto", lookup("gemma3:4b"), None) == "ctl-heredoc"
    assert resolve_protocol("auto", lookup("o1-mini"), None) == "ctl-heredoc"


@pytest.mark.parametrize("mode", AGENT_MODES)
def test_a_concrete_protocol_is_kept(mode: str) -> None:
    assert resolve_protocol(mode, lookup("gpt-4.1"), True) == mode
    assert resolve_protocol(mode, None, None) == mode


def test_an_unknown_protocol_setting_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown protocol 'json-whole'; choose auto"):
        resolve_protocol("json-whole", None, None)


# --------------------------------------------------------------------- --wire auto


@pytest.mark.parametrize(
    ("base_url", "model", "wire"),
    [
        ("https://api.anthropic.com/v1", "claude-sonnet-4-5", "anthropic-messages"),
        ("https://API.ANTHROPIC.COM/v1", None, "anthropic-messages"),
        ("https://api.openai.com/v1", "gpt-4.1", "openai-responses"),
        ("https://api.openai.com/v1", None, "openai-responses"),
        ("https://my-gateway.example/v1", "gpt-5-codex", "openai-responses"),  # codex: only
        ("https://my-gateway.example/v1", "gpt-4.1", "openai-chat"),  # preferred, not only
        ("https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4.5", "openai-chat"),
        ("http://127.0.0.1:8080/v1", "qwen2.5-coder", "openai-chat"),
        ("http://127.0.0.1:8080/v1", None, "openai-chat"),
        (None, None, "openai-chat"),
        ("http://[bad", None, "openai-chat"),
        ("https://api.deepseek.com/anthropic", "deepseek-v4-pro", "anthropic-messages"),
        ("https://api.z.ai/api/anthropic", "glm-4.6", "anthropic-messages"),
        ("https://api.moonshot.ai/anthropic/", None, "anthropic-messages"),
        ("https://api.deepseek.com", "deepseek-v4-pro", "openai-chat"),
        ("https://anthropic.example/v1", None, "openai-chat"),  # a host name, not the path
    ],
)
def test_wire_auto(base_url: str | None, model: str | None, wire: str) -> None:
    assert resolve_wire("auto", base_url, lookup(model)) == wire


@pytest.mark.parametrize("wire", WIRES)
def test_a_concrete_wire_is_kept(wire: str) -> None:
    assert resolve_wire(wire, "https://api.anthropic.com/v1", lookup("gpt-5-codex")) == wire


def test_an_unknown_wire_setting_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown wire 'grpc'"):
        resolve_wire("grpc", None, None)


@pytest.mark.parametrize(
    ("name", "family", "window"),
    [
        ("claude-opus-5", "claude-family", 200_000),
        ("anthropic/claude-sonnet-5", "claude-family", 200_000),
        ("claude-opus-4-9", "claude-family", 200_000),  # a version lookup does not list
        ("gemini-4-pro", "gemini-family", 1_048_576),
        # Grok was not in the catalogue at all: text protocol, 8,192 tokens, and 45 s for a
        # first byte Grok 4 may take minutes to think before (it streams no reasoning)
        ("grok-4", "grok-family", 131_072),
        ("x-ai/grok-4.5", "grok-family", 131_072),
        ("grok-code-fast-1", "grok-family", 131_072),
        ("moonshotai/kimi-k2-instruct", "kimi-family", 131_072),
        ("kimi-k2.6", "kimi-family", 131_072),
    ],
)
def test_a_newer_model_of_a_family_gets_the_familys_figures(
    name: str, family: str, window: int
) -> None:
    """A Claude released after the catalogue was taught the text protocol (``--protocol
    auto``: ctl-heredoc) and budgeted at the assumed 8,192 tokens."""
    from frontier.app.model.catalogue import known

    assert lookup(name) is None  # never a distant relative's figures
    info = known(name)
    assert info is not None and info.id == family and info.family
    assert info.context_window == window and info.tools
    assert resolve_protocol("auto", info, None) == "native-inc"
    assert resolve_window(None, None, "", info).tokens == window


@pytest.mark.parametrize(
    ("name", "entry", "window"),
    [
        ("glm-4.6", "glm-4.6", 202_752),
        ("z-ai/glm-4.6", "glm-4.6", 202_752),  # OpenRouter's name
        ("zai-org/GLM-4.5-Air", "glm-4.5", 131_072),  # the Hugging Face repository
        ("glm-4.5:free", "glm-4.5", 131_072),
        ("glm-4.7-flash", "glm-4.7", 202_752),
    ],
)
def test_glm_is_known_with_tools_thinking_and_its_window(
    name: str, entry: str, window: int
) -> None:
    """GLM on Z.ai's own endpoints (neither says the window) was unknown: the text
    protocol, 8,192 tokens (a compaction every few reads), and 45 s for a first byte it
    may spend thinking. The older GLM-4 models (32K, vision) are not these."""
    info = lookup(name)
    assert info is not None and info.id == entry and info.tools and info.reasoning
    assert resolve_protocol("auto", info, None) == "native-inc"
    assert resolve_window(None, None, "", info).tokens == window
    assert lookup("glm-4-32b-0414") is None and lookup("glm-4.6v") is None


@pytest.mark.parametrize(
    "name", ["claudex", "my-claude-finetune", "gemma3:4b-x", "gpt-6", "my-grok-finetune"]
)
def test_only_a_familys_own_names_get_its_figures(name: str) -> None:
    from frontier.app.model.catalogue import known

    assert known(name) is lookup(name)


def test_a_family_is_not_offered_as_a_model_to_switch_to() -> None:
    from frontier.app.model.catalogue import entries

    families = [info.id for info in entries() if info.family]
    assert families == ["claude-family", "gemini-family", "grok-family", "kimi-family"]


def test_a_vendors_own_api_says_its_unknown_models_take_tools() -> None:
    """``gpt-6`` on api.openai.com was taught the text protocol; a gateway or a local
    server says nothing by its host."""
    from frontier.app.model.catalogue import host_has_tools

    assert host_has_tools("https://api.openai.com/v1") is True
    assert host_has_tools("https://API.Anthropic.com") is True
    assert host_has_tools("https://generativelanguage.googleapis.com/v1beta/openai") is True
    assert host_has_tools("https://openrouter.ai/api/v1") is None
    assert host_has_tools("http://127.0.0.1:8080/v1") is None
    assert host_has_tools(None) is None and host_has_tools("http://[::1") is None
    assert resolve_protocol("auto", None, host_has_tools("https://api.openai.com/v1")) == (
        "native-inc"
    )
