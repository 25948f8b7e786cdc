"""The one scrubber (``app/secrets.py``): whole strings, streams in any chunking, SSE events.

Properties run over random texts built from the secrets' own characters (the
hardest case: near-misses everywhere) and random chunkings.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier.app.model.registry import codec
from frontier.app.secrets import (
    SECRET_ENV,
    Scrubber,
    StreamScrubber,
    redact_url,
    url_secrets,
)
from frontier.app.secrets import SSEScrubber as _SSEScrubber
from frontier.app.session.record import Recording

KEY = "sk-frontier-TEST-9f2c1e7d4b3a"
SECRETS = (KEY, "abcabcab", "xyzzy-42-plugh")


def SSEScrubber(scrubber: Scrubber) -> _SSEScrubber:
    """The scrubber of a response on the chat wire (these events are chat chunks)."""
    return _SSEScrubber(scrubber, fields=codec("openai-chat").streamed_text)


def texts() -> st.SearchStrategy[str]:
    """Filler from the secrets' characters, with whole secrets spliced in."""
    alphabet = st.sampled_from(sorted(set("".join(SECRETS)) | {" ", "\n", "é", '"'}))
    piece = st.one_of(st.text(alphabet, max_size=12), st.sampled_from(SECRETS))
    return st.lists(piece, max_size=12).map("".join)


def chunkings(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(points)]


def masked_only(original: str, out: str) -> bool:
    """``out`` is ``original`` with some bytes replaced by ``*`` (a masked é is ``**``)."""
    a, b = original.encode(), out.encode()
    return len(a) == len(b) and all(x == y or y == ord("*") for x, y in zip(a, b, strict=True))


@given(texts(), st.lists(st.integers(0, 400), max_size=30))
def test_a_stream_in_any_chunking_never_shows_a_secret(text: str, cuts: list[int]) -> None:
    scrubber = Scrubber(SECRETS)
    stream = StreamScrubber(scrubber, same_length=True)
    out = "".join(stream.feed(p) for p in chunkings(text, cuts)) + stream.flush()
    for secret in SECRETS:
        assert secret not in out
    assert masked_only(text, out)
    # and the chunking does not matter: the same as the whole text in one piece
    whole = StreamScrubber(scrubber, same_length=True)
    assert out == whole.feed(text) + whole.flush()


@given(texts(), st.lists(st.integers(0, 400), max_size=30))
def test_a_stream_holds_back_less_than_the_longest_secret(text: str, cuts: list[int]) -> None:
    stream = StreamScrubber(Scrubber(SECRETS))
    shown = ""
    for piece in chunkings(text, cuts):
        shown += stream.feed(piece)
        assert len(stream._held) <= len(KEY) - 1
    shown += stream.flush()
    assert shown == Scrubber(SECRETS).scrub(text)  # ``[REDACTED]`` style, same decisions


def sse_content(text: str, ascii_only: bool) -> str:
    delta = {"content": text}
    return json.dumps({"choices": [{"index": 0, "delta": delta}]}, ensure_ascii=ascii_only)


@given(texts(), st.lists(st.integers(0, 400), max_size=30), st.booleans())
def test_sse_events_are_masked_in_place_across_events(
    text: str, cuts: list[int], ascii_only: bool
) -> None:
    events = [(float(i), sse_content(p, ascii_only)) for i, p in enumerate(chunkings(text, cuts))]
    events.append((99.0, "[DONE]"))
    sse = SSEScrubber(Scrubber(SECRETS))
    out = [e for t, d in events for e in sse.feed(t, d)] + sse.flush()
    assert [t for t, _ in out] == [t for t, _ in events]  # none lost, none reordered
    for (_, before), (_, after) in zip(events, out, strict=True):
        assert len(after.encode()) == len(before.encode())  # the SSE body keeps its bytes
    before = Recording("ctl", "m", "", tuple(events)).transducer_input()
    after = Recording("ctl", "m", "", tuple(out)).transducer_input()
    assert len(after) == len(before)  # ... and the text its offsets
    for secret in SECRETS:
        assert secret.encode() not in after
    stream = StreamScrubber(Scrubber(SECRETS), same_length=True)
    expected = "".join(stream.feed(p) for p in chunkings(text, cuts)) + stream.flush()
    assert after.decode() == expected


def tool_delta(index: int, args: str) -> str:
    call = {"index": index, "function": {"arguments": args}}
    return json.dumps({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})


def test_native_arguments_are_followed_per_tool_call_index() -> None:
    """Two calls' argument pieces interleave; each index is its own stream."""
    a, b = json.dumps({"command": f"echo {KEY}"}), json.dumps({"path": f"{KEY}.txt"})
    events = []
    for i in range(max(len(a), len(b))):
        if i < len(a):
            events.append((0.0, tool_delta(0, a[i])))
        if i < len(b):
            events.append((0.0, tool_delta(1, b[i])))
    sse = SSEScrubber(Scrubber([KEY]))
    out = [e for t, d in events for e in sse.feed(t, d)] + sse.flush()
    assert len(out) == len(events)
    joined = {0: "", 1: ""}
    for _, data in out:
        call = json.loads(data)["choices"][0]["delta"]["tool_calls"][0]
        joined[call["index"]] += call["function"]["arguments"]
    mask = "*" * len(KEY)
    assert json.loads(joined[0]) == {"command": f"echo {mask}"}
    assert json.loads(joined[1]) == {"path": f"{mask}.txt"}


def test_escaped_secret_characters_keep_both_lengths() -> None:
    secret = "p/ss-wörd-12"
    raw = '{"choices":[{"delta":{"content":"x p\\/ss-w\\u00f6rd-12 y"}}]}'
    (_, out), *_ = SSEScrubber(Scrubber([secret])).feed(0.0, raw) or [(0, "")]
    assert len(out.encode()) == len(raw.encode())
    text = json.loads(out)["choices"][0]["delta"]["content"]
    assert secret not in text
    assert len(text.encode()) == len(json.loads(raw)["choices"][0]["delta"]["content"].encode())


def test_an_event_is_held_only_while_it_may_start_a_secret() -> None:
    sse = SSEScrubber(Scrubber([KEY]))
    assert sse.feed(0.0, sse_content("ask", True)) == []  # "sk" may begin the key
    released = sse.feed(1.0, sse_content("ed", True))  # "sked": it does not
    assert [json.loads(d)["choices"][0]["delta"]["content"] for _, d in released] == ["ask", "ed"]
    assert sse.feed(2.0, "[DONE]") == [(2.0, "[DONE]")]


@pytest.mark.parametrize(
    "var", ["FRONTIER_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY"]
)
def test_every_wires_key_variable_is_a_secret(var: str) -> None:
    assert var in SECRET_ENV
    scrubber = Scrubber.from_env(environ={var: KEY, "UNRELATED_VALUE": "some-value-123"})
    assert scrubber.values == {KEY}
    assert scrubber.scrub(f"echo {KEY}") == "echo [REDACTED]"


def test_scrub_replaces_values_and_credential_shapes() -> None:
    s = Scrubber([KEY, "short"])  # under 8 characters: ignored
    text = (
        f"key {KEY} and {json.dumps(KEY)}; Authorization: Bearer ghp_Zx81Qw7Lm2Np5Rt9; "
        "https://h/v1?api_key=abc12345xyz&x=1; a short word; Bearer instrument; "
        "api_key=settings.API_KEY"
    )
    out = s.scrub(text)
    assert KEY not in out and "ghp_Zx81" not in out and "abc12345xyz" not in out
    assert "Authorization: Bearer [REDACTED]" in out and "api_key=[REDACTED]&x=1" in out
    assert "a short word" in out and "Bearer instrument" in out
    assert "api_key=settings.API_KEY" in out  # code, not a credential: no digit
    assert repr(s) == "Scrubber(1 secret(s))"


def test_a_credential_on_a_diffs_lines_is_scrubbed_as_on_a_files() -> None:
    """A line a patch adds (``+API_KEY=…``) kept its token: the shape wanted a blank, a
    quote or a separator before the name, and a diff puts ``+`` there (stop 62: a ``cp``
    of a key file would have been sent to the model as the patch adding it)."""
    diff = (
        "--- a/.env\n+++ b/.env\n@@ -1,2 +1,2 @@\n PORT=8000\n"
        "-API_KEY=sk-old-0123456789\n+API_KEY=sk-new-0123456789\n DB_TOKEN=tok-55555555\n"
    )
    out = Scrubber().scrub(diff)
    assert "0123456789" not in out and "55555555" not in out
    assert "+API_KEY=[REDACTED]" in out and "-API_KEY=[REDACTED]" in out
    assert " DB_TOKEN=[REDACTED]" in out and " PORT=8000" in out


@pytest.mark.parametrize(
    ("url", "shown", "stored"),
    [
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
        ("https://u:pw-123456@h/v1", "https://***@h/v1", "https://h/v1"),
        (
            "https://h/v1?api-version=2024-01&api_key=sk-abc12345",
            "https://h/v1?api-version=2024-01&api_key=[REDACTED]",
            "https://h/v1?api-version=2024-01&api_key=[REDACTED]",
        ),
        (  # a proxy whose URL scheme carries the key in the path
            "https://proxy.example/sk-ant-api03-abcdefghijklmnop/v1",
            "https://proxy.example/[REDACTED]/v1",
            "https://proxy.example/[REDACTED]/v1",
        ),
        (  # a path segment that only starts like a key is not one
            "https://h/sk-short/v1/skills-and-more-things",
            "https://h/sk-short/v1/skills-and-more-things",
            "https://h/sk-short/v1/skills-and-more-things",
        ),
    ],
)
def test_urls_lose_their_credentials(url: str, shown: str, stored: str) -> None:
    assert redact_url(url) == shown
    assert redact_url(url, userinfo="") == stored


def test_url_credentials_become_secrets() -> None:
    assert set(url_secrets("https://u:pw%2D123456@h/v1?key=k-1234567&v=2")) >= {
        "pw-123456",
        "k-1234567",
    }
    assert url_secrets("http://127.0.0.1/v1") == []
    assert url_secrets("https://p/gsk_0123456789abcdefghij/v1") == ["gsk_0123456789abcdefghij"] * 2


@given(texts(), st.lists(st.integers(0, 400), max_size=30), st.integers(0, 30))
def test_releasing_early_for_a_call_commit_still_never_shows_a_secret(
    text: str, cuts: list[int], release_at: int
) -> None:
    """The store releases every waiting event before it commits a call row (the bytes that
    prove a call are durable before it runs): the undecided tail is masked in advance and a
    secret continuing in later events is still masked there; lengths never change."""
    events = [(float(i), sse_content(p, True)) for i, p in enumerate(chunkings(text, cuts))]
    sse = SSEScrubber(Scrubber(SECRETS))
    out: list[tuple[float, str]] = []
    for i, (t, d) in enumerate(events):
        out += sse.feed(t, d)
        if i == release_at:
            out += sse.release_all()
            assert len(out) == i + 1  # nothing held back any more
    out += sse.flush()
    assert [t for t, _ in out] == [t for t, _ in events]
    after = Recording("ctl", "m", "", tuple(out)).transducer_input()
    assert len(after) == len(Recording("ctl", "m", "", tuple(events)).transducer_input())
    for secret in SECRETS:
        assert secret.encode() not in after


def test_a_call_commit_stores_the_event_that_proves_it(tmp_path: Path) -> None:
    """An event ending in what may start the key is held — until a call row is committed."""
    from frontier.app.events import ToolCall
    from frontier.app.session.store import SessionStore

    with SessionStore.open(tmp_path / "s.db", secrets=[KEY]) as store:
        sid = store.create_session(str(tmp_path), "m", None, "ctl")
        rid = store.begin_response(sid, "ctl", "m", 0)
        store.add_stream_event(rid, 0.0, sse_content("call c1 read\narg path a.txt\nend\nsk", True))
        store.add_call(sid, ToolCall("c1", "read", {"path": "a.txt"}), response_id=rid)
        stored = store.db.read("SELECT data FROM stream_events WHERE response_id = ?", (rid,))
        assert [json.loads(d)["choices"][0]["delta"]["content"] for (d,) in stored] == [
            "call c1 read\narg path a.txt\nend\n**"
        ]
        store.add_stream_event(rid, 1.0, sse_content(KEY[2:] + " done", True))
        store.end_response(rid, "stop")
        (response,) = store.recordings(sid)
        assert KEY.encode() not in response.to_recording().transducer_input()
        assert KEY[2:].encode() not in response.to_recording().transducer_input()


def test_a_named_tuple_is_scrubbed_field_by_field_and_keeps_its_type() -> None:
    """A session row (``SessionInfo``) is a named tuple: scrubbed like any record."""
    from frontier.app.session.catalogue import SessionInfo

    row = SessionInfo("s1", 0.0, "/w", "m", f"http://x/?key={KEY}", "ctl", "done", 1)
    scrubbed = Scrubber([KEY]).scrub_obj(row)
    assert type(scrubbed) is SessionInfo
    assert KEY not in repr(scrubbed) and scrubbed.workspace == "/w" and scrubbed.turns == 1


@given(texts())
def test_looking_for_the_forms_first_changes_nothing(text: str) -> None:
    """``scrub`` and ``mask`` look for each form with ``in`` before the regex runs (10×
    faster on output holding none): the result is the regex's, found or not, and a
    scrubber of more forms than ``LOOKED_FOR`` goes to the regex at once."""
    from frontier.app.secrets import LOOKED_FOR, MASK, REDACTED, _scrub_shapes

    many = Scrubber([*SECRETS, *(f"filler-secret-{n:03d}" for n in range(LOOKED_FOR))])
    for scrubber in (Scrubber(SECRETS), many):
        assert scrubber._any_re is not None
        assert scrubber.scrub(text) == _scrub_shapes(scrubber._any_re.sub(REDACTED, text))
        masked = scrubber._any_re.sub(lambda m: MASK * len(m.group().encode()), text)
        assert scrubber.mask(text) == masked


SHARED_HEADS = ("sk-proj-AAAA1111", "sk-proj-AAAA2222xyz", "sk-proj-", "sk-proj-AAAA1111-long")
"""Values sharing their first ``MIN_SECRET_LEN`` characters, one whole value the start of
another, one exactly that long: how a scrubber tells a start of a value by its head."""


@given(st.text(st.sampled_from(sorted(set("".join(SHARED_HEADS)))), max_size=24))
def test_a_start_of_a_value_is_told_as_every_start_would_tell_it(text: str) -> None:
    scrubber = Scrubber(SHARED_HEADS)
    starts = {v[:k] for v in SHARED_HEADS for k in range(1, len(v))}
    assert scrubber._starts_one(text) == (text in starts)


@given(
    st.lists(
        st.one_of(
            st.text(st.sampled_from("sk-proj-AB12xyzlong"), max_size=6), *map(st.just, SHARED_HEADS)
        ),
        max_size=10,
    ).map("".join),
    st.lists(st.integers(0, 400), max_size=30),
)
def test_values_sharing_a_head_are_masked_in_any_chunking(text: str, cuts: list[int]) -> None:
    scrubber = Scrubber(SHARED_HEADS)
    stream = StreamScrubber(scrubber, same_length=True)
    out = "".join(stream.feed(p) for p in chunkings(text, cuts)) + stream.flush()
    assert not any(v in out for v in SHARED_HEADS) and masked_only(text, out)
    whole = StreamScrubber(scrubber, same_length=True)
    assert out == whole.feed(text) + whole.flush()


def test_a_long_key_costs_memory_in_its_length_not_its_square() -> None:
    """Every start of every value was kept: a 60 KB key (an ``api_key_file`` pointing at
    the wrong file's long line) was a ``MemoryError`` at start-up; 20 KB took ~200 MB."""
    import tracemalloc

    key = "k" * 19_999 + "z"
    tracemalloc.start()
    try:
        stream = StreamScrubber(Scrubber([key]), same_length=True)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000, peak  # ~3 MB (the regexes of its forms); it was ~220 MB
    out = "".join(stream.feed(key[i : i + 7]) for i in range(0, len(key), 7)) + stream.flush()
    assert out == "*" * len(key)


def every_start_split(scrubber: Scrubber, text: str) -> tuple[list[tuple[int, int]], int]:
    """``Scrubber._split`` as it was: every start of every value in a set (quadratic in a
    value's length, and so obviously right)."""
    starts = {v[:k] for v in scrubber.values for k in range(1, len(v))}
    spans = [m.span() for m in scrubber._text_re.finditer(text)] if scrubber._text_re else []
    keep = len(text)
    while spans and text[spans[-1][0] :] in starts:
        keep = spans.pop()[0]
    floor = spans[-1][1] if spans else 0
    for k in range(min(scrubber.longest - 1, len(text) - floor), 0, -1):
        if text[-k:] in starts:
            return spans, min(keep, len(text) - k)
    return spans, keep


HEADY = st.sampled_from(["a", "b", "é", "\U0001f600"])


@st.composite
def heads_and_text(draw: st.DrawFn) -> tuple[list[str], str]:
    """Values sharing 8-character heads (one a prefix of another), and a text of their
    starts and repeated heads: where a head recurs more than ``HEAD_TRIES`` times."""
    heads = draw(st.lists(st.text(HEADY, min_size=8, max_size=8), min_size=1, max_size=3))
    values = [draw(st.sampled_from(heads)) + draw(st.text(HEADY, max_size=12)) for _ in range(4)]
    values.append(values[0][: draw(st.integers(8, len(values[0])))])
    pieces = st.one_of(
        st.sampled_from(values).flatmap(lambda v: st.integers(0, len(v)).map(lambda k: v[:k])),
        st.sampled_from(heads).map(lambda h: h * 3),
        st.text(HEADY, max_size=4),
    )
    return values, "".join(draw(st.lists(pieces, max_size=14)))


@pytest.mark.parametrize("tries", [0, 8], ids=["one-pass", "find-first"])
@given(case=heads_and_text())
def test_a_start_is_found_as_every_start_would_find_it(
    tries: int, case: tuple[list[str], str]
) -> None:
    """Both ways of finding the undecided end (trying each place a head occurs; past
    ``HEAD_TRIES`` of them, one KMP pass) decide as the set of every start did."""
    from unittest import mock

    from frontier.app import secrets

    values, text = case
    scrubber = Scrubber(values)
    with mock.patch.object(secrets, "HEAD_TRIES", tries):
        assert scrubber._split(text) == every_start_split(scrubber, text)
