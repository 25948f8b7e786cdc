"""Known secrets never reach a TUI pane: ``UiState`` masks stream bytes in place (same
length, across any chunking) and scrubs every string it shows or copies."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.app.events import (
    CallReady,
    CallStarted,
    Confirmed,
    ContractError,
    ReasoningText,
    ResponseStarted,
    StreamBytes,
    ToolCall,
    ToolFinished,
    ToolOutput,
    ToolResult,
    ToolStarted,
    TurnEnded,
)
from frontier.app.frontends.tui.screens.copy import copy_items
from frontier.app.secrets import Scrubber
from frontier.widgets.pane_state.shared import LiveScrub, PaneContext
from frontier.widgets.state import ResponseBuffer, UiState

KEY = "zq-test-0123456789abcdef"
"""A secret the scrubber knows by its value (no vendor's shape: those are masked unknown)."""
PROSE = f"Here is the key: {KEY} and more text.\n\nDone.\n".encode()


def _texts(state: UiState) -> list[str]:
    """Everything a pane (or the copy picker) can show, as strings."""
    out: list[str] = []
    for buf in state.responses:
        out += [bytes(buf.data).decode("utf-8", "replace"), buf.reasoning]
    out.append(state.pending().decode("utf-8", "replace"))
    out.append(state.pending_tail(4096).decode("utf-8", "replace"))
    for row in state.confirmed:
        out += [row.label, row.preview, row.tail.decode("utf-8", "replace")]
    for entry in state.transcript:
        out.append(entry.text)
        if entry.prose is not None:
            out += [block.text for block in entry.prose.blocks()]
    for tool in state.tools.values():
        out += [tool.summary, tool.message, tool.output, tool.partial, *tool.tail, *tool.changes]
    for error in state.errors:
        out.append(error.message)
    out += [item.text for item in copy_items(state, [])]
    out += [item.label for item in copy_items(state, [])]
    return out


def _assert_clean(state: UiState) -> None:
    leaked = [text for text in _texts(state) if KEY in text]
    assert not leaked, leaked


def _cuts(n: int) -> list[list[int]]:
    """Every way to split ``PROSE`` into 2 chunks, and 3 chunks around the key."""
    at = PROSE.index(KEY.encode())
    two = [[c] for c in range(1, n)]
    three = [[a, b] for a in range(at, at + len(KEY)) for b in range(a + 1, at + len(KEY) + 1)]
    return two + three


def _feed(state: UiState, data: bytes, cuts: list[int]) -> None:
    done = 0
    for cut in [*cuts, len(data)]:
        state.apply(StreamBytes(done, data[done:cut]))
        done = cut


def test_stream_bytes_split_anywhere_are_masked_same_length() -> None:
    for cuts in _cuts(len(PROSE)):
        state = UiState(scrubber=Scrubber([KEY]))
        state.apply(ResponseStarted("ctl"))
        _feed(state, PROSE, cuts)
        buf = state.current
        assert buf is not None
        assert len(buf.data) == len(PROSE) and buf.end == len(PROSE), cuts
        assert state.pending_size == len(PROSE) and state.frontier == 0
        assert bytes(buf.data) == PROSE.replace(KEY.encode(), b"*" * len(KEY)), cuts
        # confirmed in pieces too (the prose is decoded from these), cut the same way
        done = 0
        for cut in [*cuts, len(PROSE)]:
            state.apply(Confirmed(done, "text", PROSE[done:cut]))
            done = cut
        assert state.frontier == len(PROSE) and state.consumed == len(PROSE)
        assert state.confirmed[-1].nbytes == len(PROSE)
        _assert_clean(state)


def test_tools_errors_reasoning_and_notes_are_scrubbed() -> None:
    state = UiState(scrubber=Scrubber([KEY]))
    state.apply(ResponseStarted("ctl"))
    for piece in ("thinking about zq-test-0123", "456789abcdef now"):
        state.apply(ReasoningText(piece))
    call = ToolCall("c1", "shell", {"command": f"echo {KEY}"})
    state.apply(CallStarted("c1", "shell", 0))
    state.apply(CallReady(call))
    state.apply(ToolStarted(call))
    for piece in ("out: zq-te", "st-0123456789", "abcdef\nsecond line ", KEY[:5], KEY[5:]):
        state.apply(ToolOutput("c1", piece))
    state.apply(ToolFinished(ToolResult("c1", "shell", "ok", f"{KEY}\nout: {KEY}", 0)))
    state.apply(ContractError("bad_arg", f"argument carried {KEY}", 12))
    state.note(f"a note with {KEY}")
    state.apply(TurnEnded("error", f"failed: {KEY}"))
    _assert_clean(state)
    assert any("[REDACTED]" in text for text in _texts(state))


SHAPED = "Authorization: Bearer abcdef0123456789"
"""A credential known by its shape only: what a session with no key of its own (a local
model) still hides."""


@pytest.mark.parametrize("scrubber", [Scrubber(), None], ids=["knows-no-value", "none"])
def test_a_credentials_shape_is_scrubbed_when_no_value_is_known(scrubber: Scrubber | None) -> None:
    """Stop 63: panes scrubbed only when the session knew a secret value (``if scrubber``
    on a scrubber that knew none): with a local model and no key, a command's ``Bearer
    <token>`` and a ``cat .env``'s ``API_KEY=…`` were shown in the Transcript, its tool
    rows, the reasoning and the copy picker."""
    state = UiState(scrubber=scrubber)
    state.apply(ResponseStarted("ctl"))
    for piece in ("checking Authorization: Bea", "rer abcdef0123456789 now\n"):
        state.apply(ReasoningText(piece))
    call = ToolCall("c1", "shell", {"command": f"curl -H '{SHAPED}' x"})
    state.apply(CallStarted("c1", "shell", 0))
    state.apply(CallReady(call))
    state.apply(ToolStarted(call))
    for piece in ("API_KEY=abc", "def0123456789\nnext ", "line\n"):
        state.apply(ToolOutput("c1", piece))
    state.apply(ToolFinished(ToolResult("c1", "shell", "ok", "API_KEY=abcdef0123456789\n", 0)))
    state.note(f"a note with {SHAPED}")
    leaked = [text for text in _texts(state) if "abcdef0123456789" in text]
    assert not leaked, leaked
    assert any("[REDACTED]" in text for text in _texts(state))


def test_without_a_scrubber_nothing_changes() -> None:
    state = UiState()
    state.apply(ResponseStarted("ctl"))
    _feed(state, PROSE, [20, 30])
    assert state.current is not None and bytes(state.current.data) == PROSE


def test_a_retroactive_mask_bumps_the_buffer() -> None:
    buf = ResponseBuffer(1, "ctl")
    scrubber = Scrubber([KEY])
    data = PROSE
    at = data.index(KEY.encode()) + 5
    assert not buf.append(0, data[:at], scrubber=scrubber)
    assert buf.append(at, data[at:], scrubber=scrubber)
    assert buf.masked == 1 and KEY.encode() not in buf.data


def test_mask_buffer_is_same_length_and_starts_where_told() -> None:
    scrubber = Scrubber([KEY])
    buf = bytearray(f"{KEY} x {KEY}".encode())
    assert scrubber.mask_buffer(buf, len(KEY))
    assert buf == f"{KEY} x {'*' * len(KEY)}".encode()
    assert not Scrubber().mask_buffer(buf)


def test_the_checks_see_a_leak() -> None:
    state = UiState()
    state.apply(ResponseStarted("ctl"))
    _feed(state, PROSE, [])
    assert any(KEY in text for text in _texts(state))


def test_every_copy_is_scrubbed() -> None:
    from frontier.app.config import Config
    from frontier.app.frontends.tui.app import FrontierApp
    from frontier.app.replay_player import ReplayPlayer, source_from_recording
    from frontier.app.session.record import synthesize

    source = source_from_recording(synthesize("hi\n", "ctl-heredoc", sizes=(16,)), name="t")
    app = FrontierApp(Config(), player=ReplayPlayer(source), remember_theme=False)
    app.state.scrubber = Scrubber([KEY])
    app.copy_to_clipboard(f"copied {KEY}")
    assert KEY not in app.clipboard and "[REDACTED]" in app.clipboard


async def test_the_live_session_and_the_panes_mask_the_same_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The TUI's session is built with the app's scrubber (the environment's key included),
    so what the store keeps and what the panes show are masked alike."""
    from pilot_wait import until

    from frontier.app.config import Config
    from frontier.app.frontends.tui.app import FrontierApp

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    app = FrontierApp(Config(), demo=True, demo_rate=0, remember_theme=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(
            pilot, lambda: app.live is not None and app.live.session is not None, "the session"
        )
        session = app.live.session
        assert session is not None and session.scrubber is app.state.scrubber
        assert KEY not in session.scrubber.scrub(f"echo {KEY}")
        app.state.apply(StreamBytes(0, f"the key is {KEY}\n".encode()))
        assert all(KEY not in text for text in _texts(app.state))


TOKEN = "ghp_Zx9Qw8Lm2Rt5Yp1Ks7Vb3"
"""A token Frontier does not know, hidden by its shape (``api_key=<token>``)."""


def test_reasoning_cut_inside_a_token_a_shape_hid_is_not_shown_in_part() -> None:
    """``api_key=ghp_Zx9Qw8Lm2`` was scrubbed to ``api_key=[REDACTED]`` and kept so; the
    token's rest, the next piece, then matched nothing and stayed on screen."""
    state = UiState(scrubber=Scrubber([KEY]))
    state.apply(ResponseStarted("ctl"))
    for piece in ("Found api_key=ghp_Zx9Qw8Lm2", "Rt5Yp1Ks7Vb3 in", " it.\n"):
        state.apply(ReasoningText(piece))
    (entry,) = state.transcript
    assert entry.text == state.responses[-1].reasoning == "Found api_key=[REDACTED] in it.\n"


PEM = "-----BEGIN KEY-----\nMIIEv9Q\n-----END KEY-----"
"""A known secret of several lines."""
shown_text = st.lists(
    st.sampled_from(
        [
            "a",
            " ",
            "\n",
            "\x1b",
            KEY,
            KEY[:7],
            PEM,
            f"api_key={TOKEN}",
            "Bearer ",
            TOKEN,
            "secret",
            "=z9",
            "secret=" + "z" * 300,
            '"api_key": "',
            "x" * 50,
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(text=shown_text, cuts=st.lists(st.integers(0, 2_000), max_size=10))
def test_text_grown_in_any_pieces_shows_what_it_shows_whole(text: str, cuts: list[int]) -> None:
    """``LiveScrub``: grown in pieces, the text is the whole text scrubbed (a token under
    ``FORCED_SETTLE``), so no piece boundary leaks a key (of one line or several), a
    token a shape hides (its name cut from it, or it cut in two) or a control."""
    ctx = PaneContext(lambda: 0.0, Scrubber([KEY, PEM]))
    live, shown = LiveScrub(), ""
    marks = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    for start, end in itertools.pairwise(marks):
        shown = live.append(shown, text[start:end], ctx.scrub, ctx.scrub_window())
    assert shown == ctx.scrub(text)


def test_long_reasoning_cut_to_its_end_keeps_a_key_split_at_the_cut_hidden() -> None:
    """The thinking entry keeps its last 32,000 characters once past 64,000; a token a
    shape hides, split by the piece that crossed the limit, stays hidden."""
    from frontier.widgets.pane_state.transcript import ASSISTANT_TEXT_CAP

    state = UiState(scrubber=Scrubber([KEY]))
    state.apply(ResponseStarted("ctl"))
    state.apply(ReasoningText("x" * (ASSISTANT_TEXT_CAP - 10) + " api_key=ghp_Zx9Q"))
    state.apply(ReasoningText("w8Lm2Rt5Yp1Ks7Vb3 then more.\n"))
    (entry,) = state.transcript
    assert entry.text.startswith("…") and len(entry.text) < ASSISTANT_TEXT_CAP
    assert entry.text.endswith(" api_key=[REDACTED] then more.\n")


GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
"""A GitHub token's shape, known to no scrubber: a vendor's key, masked by its shape."""


@given(st.lists(st.integers(1, 120), max_size=6))
def test_a_vendors_key_no_scrubber_knows_is_masked_in_the_raw_and_pending_panes(
    cuts: list[int],
) -> None:
    """The Transcript scrubbed ``ghp_…`` by its shape; the Raw stream, Pending and Confirmed
    panes masked known values only, so the key the model echoed showed there whole."""
    prose = f"cat .env said GH={GITHUB} and TOKEN=x\n".encode()
    state = UiState(scrubber=Scrubber())  # a local model: no key known
    state.apply(ResponseStarted("ctl"))
    _feed(state, prose, sorted({min(c, len(prose) - 1) for c in cuts}))
    buf = state.current
    assert buf is not None and len(buf.data) == len(prose)
    assert GITHUB.encode() not in bytes(buf.data)
    assert b"GH=" + b"*" * len(GITHUB) + b" and" in bytes(buf.data)
    leaked = [text for text in _texts(state) if GITHUB in text or GITHUB[:30] in text]
    assert not leaked, leaked


def test_a_vendors_key_ending_the_response_is_masked_when_it_ends() -> None:
    """Held while its word could still grow (masked early, a split key kept its last
    characters in sight), a key that is the response's last bytes is masked at its end."""
    from frontier.app.events import ResponseEnded

    state = UiState(scrubber=Scrubber())
    state.apply(ResponseStarted("ctl"))
    _feed(state, f"token: {GITHUB}".encode(), [10, 20])
    state.apply(ResponseEnded("stop"))
    buf = state.current
    assert buf is not None and bytes(buf.data) == b"token: " + b"*" * len(GITHUB)


def test_a_key_of_the_longest_shape_held_at_a_chunks_end_is_masked_by_the_next() -> None:
    """Off by one: a key of the longest allowed length, ending a chunk, was held (its word
    could grow) and the next append re-scanned from one byte after its start."""
    from frontier.app.secret_shapes import KEY_LONGEST

    key = "sk_live_" + "a1" * ((KEY_LONGEST - len("sk_live_")) // 2)
    key += "b" * (KEY_LONGEST - len(key))
    state = UiState(scrubber=Scrubber())
    state.apply(ResponseStarted("ctl"))
    head = f"key {key}".encode()
    state.apply(StreamBytes(0, head))
    state.apply(StreamBytes(len(head), b" done\n"))
    buf = state.current
    assert buf is not None and key.encode() not in bytes(buf.data)
    assert bytes(buf.data) == b"key " + b"*" * len(key) + b" done\n"
