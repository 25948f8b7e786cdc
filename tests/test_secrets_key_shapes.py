"""Vendors' keys by their shape, bare in any text (``app/secret_shapes.KEY_SHAPES``).

``key=sk-proj-…`` was scrubbed (a credential's name before it), but a bare ``ghp_…``,
``AKIA…`` or ``sk-ant-api03-…`` — ``cat .env`` printing ``GH=ghp_…``, an MCP tool's answer —
reached the store, the export, the terminal and the model as written, although the project
knew these shapes (they hid them in a command line's words and a URL's path). Now the one
scrubber masks each such word wherever it is: whole strings (``scrub``, and ``redact`` for
what the model is sent), streams in any chunking, SSE events in place. A word only, with
each vendor's lengths, so ordinary names stay; found in linear time.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from loopback_http import serving

from frontier.app.cli import main
from frontier.app.config import data_dir
from frontier.app.secrets import REDACTED, Scrubber, StreamScrubber

KEYS = {
    "GitHub classic": "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "GitHub OAuth": "gho_16C7e42F292c6912E7710c838347Ae178B4a",
    "GitHub fine-grained": "github_pat_11ABCDEFG0123456789_"
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU",
    "AWS access key id": "AKIAIOSFODNN7EXAMPLE",
    "AWS temporary key id": "ASIAY34FZKBOKMUTVV7A",
    "Anthropic": "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG_hij-KLMN",
    "OpenAI project": "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH",
    "OpenRouter": "sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "Stripe": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "Hugging Face": "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh",
    "Groq": "gsk_0123456789abcdefghijABCDEFGHIJ0123456789abcdefghij",
    "Slack": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "Google": "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "GitLab": "glpat-AbCdEfGh1234IjKlMnOp",
    "npm": "npm_0123456789abcdefghijABCDEFGHIJ012345",
    "PyPI": "pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAAC",
}
"""One key of each shape, as each vendor writes them."""

NOT_KEYS = [
    "my_ghp_0123456789abcdefghijABCDEFGHIJ012345",  # inside a name: not a word's start
    "xghp_0123456789abcdefghijABCDEFGHIJ012345",
    "ghp_0123456789abcdefghij",  # too short for GitHub's
    "ghp_0123456789abcdefghijABCDEFGHIJ012345_suffix",  # a name that goes on
    "AKIAIOSFODNN7EXAMPL",  # one short
    "AKIAIOSFODNN7EXAMPLEX",  # one too many
    "AKIAiosfodnn7example",  # lower case: no AWS id
    "sk-learn-compatible-estimators-for-everyone",  # no digit: a word
    "task-runner-configuration-for-everyone-2",  # ``sk-`` inside a word
    "sk_learn_model_selection_cross_val_2024",  # ``_`` in the rest: a name
    "hf_model_name_for_llama_3_tokenizer_config",
    "npm_config_cache_folder_for_ci_builds_2024",
    "sk-" + "a1" * 200,  # longer than any key
    "AIzaShortOne123",
]
"""Words that start like a key but are not one (all of them hold a prefix)."""


def scrubbed_whole(text: str) -> str:
    return Scrubber().scrub(text)


def streamed(text: str, size: int, *, same_length: bool = False) -> str:
    stream = StreamScrubber(Scrubber(), same_length=same_length)
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    return "".join(stream.feed(piece) for piece in pieces) + stream.flush()


# --------------------------------------------------------------------------- each shape


@pytest.mark.parametrize("name", sorted(KEYS))
@pytest.mark.parametrize(
    "context",
    ["{}", "GH={}", "export TOKEN='{}'", '{{"k": "{}"}}', "line one\n{}\nline three", "({}).",
     # coloured output (git diff --color, grep --color=always): a colour code ends in a
     # letter, and a key right after one was no word's start (the stop's review)
     "\x1b[32m{}\x1b[0m", "\x1b[01;31m\x1b[K{}\x1b[m\x1b[K", "+\x1b[m{}", "\x1b[1;38;5;2m{}"],
)  # fmt: skip
def test_each_vendors_key_is_scrubbed_wherever_it_is(name: str, context: str) -> None:
    key = KEYS[name]
    text = context.format(key)
    for out in (scrubbed_whole(text), Scrubber().redact(text), streamed(text, 1)):
        assert key not in out, name
        assert out == context.format(REDACTED)
    assert streamed(text, 3, same_length=True) == context.format("*" * len(key))


@pytest.mark.parametrize("name", sorted(KEYS))
def test_a_key_in_a_json_body_is_redacted_after_an_escape(name: str) -> None:
    """What the model is sent is JSON text: a key at a line's start follows ``\\n``."""
    key = KEYS[name]
    body = json.dumps({"content": f"one\n{key}\ttab\u001b{key}"})
    out = Scrubber().redact(body)
    assert key not in out and json.loads(out)["content"] == f"one\n{REDACTED}\ttab\u001b{REDACTED}"


@pytest.mark.parametrize("word", NOT_KEYS, ids=lambda word: word[:24])
def test_a_word_that_only_starts_like_a_key_is_left_alone(word: str) -> None:
    text = f"see {word} and {word}\n"
    assert Scrubber().redact(text) == text
    assert streamed(text, 2) == text
    assert Scrubber().scrub(text) == text


def test_the_one_list_of_shapes_knows_every_example() -> None:
    """``KEY_SHAPES`` is the one home: the URL and command-line rules read its prefixes."""
    from frontier.app.secret_shapes import KEY_PREFIXES, KEY_SHAPES, key_shaped, key_spans

    prefixes = {shape[0] for shape in KEY_SHAPES}
    assert set(KEY_PREFIXES) == prefixes
    for name, key in KEYS.items():
        assert key_spans(key) == [(0, len(key))], name
        assert key_shaped(key), name


# --------------------------------------------------------------------------- properties

FILLER = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40) | st.text(
    st.sampled_from("skghpAKIA_-=\"' \n\\0123456789abcxyz"), max_size=40
)


@given(st.lists(FILLER, max_size=8).map("".join), st.lists(st.integers(0, 400), max_size=20))
def test_text_without_a_key_prefix_is_unchanged_whole_and_in_any_chunking(
    text: str, cuts: list[int]
) -> None:
    from frontier.app.secret_shapes import KEY_PREFIXES

    assume(not any(prefix in text for prefix in KEY_PREFIXES))
    assert Scrubber().redact(text) == text
    for same_length in (False, True):
        stream = StreamScrubber(Scrubber(), same_length=same_length)
        assert "".join(stream.feed(p) for p in chunkings(text, cuts)) + stream.flush() == text


def chunkings(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(points)]


NEAR = st.sampled_from(
    ["ghp_", "sk-", "sk_", "AKIA", "hf_", "github_pat_", "\\n", "\\u001b", " ", "=", "_", "-"]
)
BODY = st.text(st.sampled_from("aZ09_-QX7"), min_size=0, max_size=45)


@given(
    st.lists(st.one_of(NEAR, BODY, st.sampled_from(sorted(KEYS.values()))), max_size=12).map(
        "".join
    ),
    st.lists(st.integers(0, 600), max_size=30),
)
def test_keys_are_found_as_a_reference_finds_them_and_streams_agree(
    text: str, cuts: list[int]
) -> None:
    """Near-misses everywhere (prefixes glued to words, short and long runs, escapes):
    ``key_spans`` finds what a plain reading of the shapes finds, and a stream in any
    chunking masks what the whole string does."""
    from frontier.app.secret_shapes import key_spans

    assert key_spans(text) == reference_spans(text)
    whole = Scrubber().redact(text)
    stream = StreamScrubber(Scrubber())
    assert "".join(stream.feed(p) for p in chunkings(text, cuts)) + stream.flush() == whole
    masked = StreamScrubber(Scrubber(), same_length=True)
    out = "".join(masked.feed(p) for p in chunkings(text, cuts)) + masked.flush()
    assert len(out) == len(text)


KNOWN = ("sk-known-value-0123", "plain8ch")
"""Known values beside the shapes: a key's word ends at a masked value, as at ``[REDACTED]``."""


@given(
    st.lists(st.one_of(NEAR, BODY, st.sampled_from([*KEYS.values(), *KNOWN])), max_size=12).map(
        "".join
    ),
    st.lists(st.integers(0, 600), max_size=30),
)
def test_sse_events_mask_keys_in_place_as_a_stream_does(text: str, cuts: list[int]) -> None:
    """The stored raw stream (``SSEScrubber``, keys and values decided together) masks
    what a live stream (``StreamScrubber``, values then keys) does, in any chunking, every
    event keeping its length; neither shows a known value or a key; and a stream that writes
    ``[REDACTED]`` shows what the whole string's ``redact`` does."""
    from frontier.app.model.registry import codec
    from frontier.app.secrets import SSEScrubber

    pieces = chunkings(text, cuts)
    events = [
        (float(i), json.dumps({"choices": [{"index": 0, "delta": {"content": p}}]}))
        for i, p in enumerate(pieces)
    ]
    sse = SSEScrubber(Scrubber(KNOWN), fields=codec("openai-chat").streamed_text)
    out = [e for t, d in events for e in sse.feed(t, d)] + sse.flush()
    assert [t for t, _ in out] == [t for t, _ in events]
    after = "".join(json.loads(d)["choices"][0]["delta"]["content"] for _, d in out)
    for (_, before), (_, masked) in zip(events, out, strict=True):
        assert len(masked.encode()) == len(before.encode())  # the SSE body keeps its bytes
    stream = StreamScrubber(Scrubber(KNOWN), same_length=True)
    assert after == "".join(stream.feed(p) for p in pieces) + stream.flush()
    assert len(after) == len(text)
    assert not any(secret in after for secret in KNOWN)
    starred = re.sub("|".join(map(re.escape, KNOWN)), lambda m: "*" * len(m[0]), text)
    for start, end in reference_spans(starred):  # every key, as a plain reading finds them
        assert after[start:end] == "*" * (end - start)
    redacted = StreamScrubber(Scrubber(KNOWN))
    shown = "".join(redacted.feed(p) for p in pieces) + redacted.flush()
    assert shown == Scrubber(KNOWN).redact(text)


def reference_spans(text: str) -> list[tuple[int, int]]:
    """Each word of key characters, and the word after a JSON escape at its start, that is
    wholly one shape's prefix and characters: read word by word, no clever regex."""
    from frontier.app.secret_shapes import KEY_CHARS, KEY_SHAPES

    spans = []
    for run in re.finditer(r"[A-Za-z0-9_-]+", text):
        starts = [run.start()]
        if run.start() > 0 and text[run.start() - 1] == "\\":
            if text[run.start()] in "nrtbf":
                starts.append(run.start() + 1)
            elif re.match(r"u[0-9a-fA-F]{4}", text[run.start() :]):
                starts.append(run.start() + 5)
        for at in starts:
            word = text[at : run.end()]
            if any(_fits(word, shape) for shape in KEY_SHAPES):
                spans.append((at, run.end()))
                break
    assert all(c in KEY_CHARS for s, e in spans for c in text[s:e])
    return spans


def _fits(word: str, shape: tuple[str, str, int, int, bool]) -> bool:
    prefix, chars, fewest, most, digit = shape
    rest = word[len(prefix) :]
    return (
        word.startswith(prefix)
        and fewest <= len(rest) <= most
        and re.fullmatch(f"[{chars}]*", rest) is not None
        and (not digit or any(c.isdigit() for c in rest))
    )


@pytest.mark.parametrize(
    "hostile",
    [
        pytest.param("sk-" * 130_000, id="prefixes"),
        pytest.param("\\nsk-" * 80_000, id="escaped-prefixes"),
        pytest.param("\\u0041ghp_" * 40_000, id="unicode-escaped-prefixes"),
        pytest.param("ghp_" + "a" * 400_000, id="one-endless-word"),
        pytest.param("A" * 400_000, id="one-letter"),
    ],
)
def test_hostile_text_is_scrubbed_in_linear_time(hostile: str) -> None:
    """Runs of prefixes, escapes before each, one endless word: a quadratic search took
    minutes over these 400 KB; a linear one takes milliseconds (the bound is generous)."""
    start = time.perf_counter()
    Scrubber().scrub(hostile)
    streamed(hostile, 4096)
    assert time.perf_counter() - start < 5


# --------------------------------------------------------------------------- a session


ENV_FILE = "".join(f"{name.upper().replace(' ', '_')}={key}\n" for name, key in KEYS.items())
"""A workspace's ``.env``: every key bare after its name, which names no credential."""


def chat_events(index: int) -> list[dict[str, Any]]:
    """Response 0 runs ``cat .env``, response 1 reads it, response 2 ends the turn."""
    if index < 2:
        name, args = (
            ("shell", {"command": "cat .env"}) if index == 0 else ("read", {"path": ".env"})
        )
        call = {"index": 0, "id": f"call_{index}", "type": "function", "function": {"name": name}}
        call["function"]["arguments"] = json.dumps(args)
        return [
            {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        ]
    return [
        {"choices": [{"index": 0, "delta": {"content": "read them"}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]


@contextmanager
def model_server() -> Iterator[tuple[str, list[str]]]:
    """A chat endpoint on 127.0.0.1 answering :func:`chat_events`; yields its URL and the
    request bodies as received."""
    bodies: list[str] = []
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            return None

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers["Content-Length"])).decode("utf-8")
            with lock:
                bodies.append(raw)
                index = len(bodies) - 1
            data = b"".join(
                b"data: " + json.dumps(e).encode() + b"\n\n" for e in chat_events(index)
            )
            data += b"data: [DONE]\n\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    with serving(Handler) as url:
        yield url, bodies


def data_dir_hits(needle: str) -> list[str]:
    return [
        str(path)
        for path in data_dir().rglob("*")
        if path.is_file() and needle.encode() in path.read_bytes()
    ]


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_keys_a_tool_prints_reach_no_sink_and_no_request(
    capfd: pytest.CaptureFixture[str], tmp_path: Path, as_json: bool
) -> None:
    """``cat .env`` (live output, through the terminal's stream scrubber) and ``read .env``
    (a tool's result): the terminal, every file of the store, the export and both requests
    after the results say ``[REDACTED]`` for each key."""
    (tmp_path / ".env").write_text(ENV_FILE, "utf-8")
    with model_server() as (url, bodies):
        argv = ["run", "--base-url", url, "--model", "m", "--protocol", "native-inc"]
        argv += ["--approval", "auto", "--workspace", str(tmp_path), "--prompt", "read .env"]
        code = main([*argv, *(["--json"] if as_json else [])])
        out, err = capfd.readouterr()
    assert code == 0, out + err
    assert "read them" in out and len(bodies) == 3
    assert f"GITHUB_CLASSIC={REDACTED}" in out  # the output was shown: the search means something
    from frontier.app.session.store import SessionStore

    with SessionStore.open() as store:
        (session,) = store.list_sessions()
    assert main(["export", session.id, "--format", "jsonl"]) == 0
    exported = capfd.readouterr().out
    leaks = {}
    for name, key in KEYS.items():
        where = [
            sink
            for sink, text in [
                ("terminal", out + err),
                ("export", exported),
                ("request after cat", bodies[1]),
                ("request after read", bodies[2]),
            ]
            if key in text
        ]
        where += data_dir_hits(key)
        if where:
            leaks[name] = where
    assert leaks == {}
    for body in bodies[1:]:
        assert f"{ENV_FILE.split('=')[0]}={REDACTED}" in body
