"""What the person typed, read back from a message as the model got it (``typed_of``, the
inverse of ``prepare``'s join): ``/rewind`` gives the message back to send again, and a
message that attached ``@a.py`` came back with the file's whole content under it."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from frontier.app.agent.attachments import TYPED_TRIES, prepare, typed_of

CONTENT = st.text(alphabet="ab`\n @:()Attached file", max_size=80)
TYPED = st.text(alphabet="xy `\n@:Attached file()", max_size=60)


@settings(max_examples=300, deadline=None)
@given(TYPED, st.lists(CONTENT, min_size=1, max_size=3))
def test_what_was_typed_comes_back_whatever_the_files_hold(typed: str, contents: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        names = []
        for i, content in enumerate(contents):
            (root / f"f{i}.txt").write_text(content)
            names.append(f"@f{i}.txt")
        text = f"{typed} {' '.join(names)}"
        prepared = prepare(root, text)
        assert prepared.attachments  # every file attached: the case under test
        assert typed_of(prepared.text) == text.rstrip("\n")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_a_message_with_no_attached_file_is_itself(text: str) -> None:
    if "\n\nAttached file " not in text:
        assert typed_of(text) == text


def test_a_typed_block_header_without_a_mention_is_kept() -> None:
    sent = "see this:\n\nAttached file a.py (3 bytes):\n```\nx\n```"
    assert typed_of(sent) == sent  # no @: the person wrote all of it


def test_many_typed_headers_cost_a_bounded_number_of_tries(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x\n")
    noise = "\n\nAttached file z (1 bytes):\n````\n" * (TYPED_TRIES * 4)
    prepared = prepare(tmp_path, f"@a.py {noise}")
    assert typed_of(prepared.text) == prepared.text  # past the tries: sent as it is
    prepared = prepare(tmp_path, "fix @a.py")
    assert typed_of(prepared.text) == "fix @a.py"


def test_a_resumed_session_shows_a_message_as_typed_and_its_files_as_notes(
    tmp_path: Path,
) -> None:
    """The resumed Transcript showed the whole attached file under "you"; live it was the
    typed text and ``attached a.py (6 bytes)``."""
    from frontier.app.agent.history_events import read_tail
    from frontier.app.events import Notice, UserMessage
    from frontier.app.model.conversation import UserText
    from frontier.app.session.store import SessionStore

    (tmp_path / "a.py").write_text("x = 1\n")
    sent = prepare(tmp_path, "look at @a.py").text
    with SessionStore.open(tmp_path / "s.db") as store:
        sid = store.create_session(str(tmp_path), "m", "http://127.0.0.1:9/v1", "native-inc")
        store.append_items(sid, [UserText(sent, "person")])
        events = read_tail(store, sid, None).events
    assert events[:2] == [UserMessage("look at @a.py"), Notice("attached a.py (6 bytes)")]
