"""Images attached to a message (`look at @shot.png`): known by their first bytes, capped,
kept in the store with the message, named in the export and in a summary request, and
sent headless as in the TUI (the wires' shapes: test_wires_loopback)."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from PIL import Image as Pil
from sse_server import serve, sse, start_sse

from frontier.app.agent import attachments
from frontier.app.agent.attachments import IMAGES_MAX, prepare
from frontier.app.agent.queue import MessageQueue
from frontier.app.config import Config
from frontier.app.frontends.headless import run_headless
from frontier.app.image import IMAGE_MAX
from frontier.app.model.conversation import (
    Image,
    UserText,
    item_from_json,
    item_to_json,
    text_items,
)

SIGNATURES = {
    "shot.png": (b"\x89PNG\r\n\x1a\n", "image/png"),
    "photo.jpg": (b"\xff\xd8\xff\xe0", "image/jpeg"),
    "anim.gif": (b"GIF89a", "image/gif"),
    "pic.webp": (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"),
}


def real(kind: str) -> bytes:
    """A 2×2 image of ``kind`` (``PNG``, ``JPEG``, ``GIF``, ``WEBP``): a signature and
    padding is refused as no image (app/image_fit.py), as the model's server would."""
    out = io.BytesIO()
    Pil.new("RGB", (2, 2), "red").save(out, kind)
    return out.getvalue()


PNG = real("PNG")
REAL = {
    "shot.png": PNG,
    "photo.jpg": real("JPEG"),
    "anim.gif": real("GIF"),
    "pic.webp": real("WEBP"),
}


def test_an_image_is_known_by_its_bytes_not_its_name(tmp_path: Path) -> None:
    for name in SIGNATURES:
        assert REAL[name].startswith(SIGNATURES[name][0][:4])
        (tmp_path / name).write_bytes(REAL[name])
    (tmp_path / "notes.png").write_text("a text file named like an image\n")
    (tmp_path / "raw.txt").write_bytes(SIGNATURES["shot.png"][0] + b"\x01" * 50)
    mentioned = " ".join(f"@{name}" for name in [*SIGNATURES, "notes.png", "raw.txt"])
    prepared = prepare(tmp_path, f"compare {mentioned}")
    assert [(i.name, i.media_type) for i in prepared.images] == [
        (name, kind) for name, (_, kind) in SIGNATURES.items()
    ][:IMAGES_MAX] + [("raw.txt", "image/png")][: max(0, IMAGES_MAX - len(SIGNATURES))]
    first = prepared.images[0]
    assert base64.b64decode(first.data) == (tmp_path / "shot.png").read_bytes()
    assert "Attached file notes.png" in prepared.text  # text, whatever its name says
    assert "Attached file shot.png" not in prepared.text  # an image is not pasted as text
    assert "@raw.txt: not attached, 4 images per message at most" in prepared.problems


def test_an_image_too_large_to_read_or_to_fit_is_not_attached_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over what is read to be made fit: said, with what to do; over what the APIs take
    and unreadable (so not to be scaled down: tests/test_image_fit.py): said."""
    (tmp_path / "big.png").write_bytes(SIGNATURES["shot.png"][0] + b"\x00" * (IMAGE_MAX + 10))
    prepared = prepare(tmp_path, "see @big.png")
    assert prepared.images == () and prepared.attachments == ()
    (problem,) = prepared.problems
    assert "not attached, not an image that can be read" in problem
    monkeypatch.setattr(attachments, "IMAGE_READ_MAX", 1000)
    (tmp_path / "big.png").write_bytes(SIGNATURES["shot.png"][0] + b"\x00" * 2000)
    (problem,) = prepare(tmp_path, "see @big.png").problems
    assert "the image is 2,008 bytes; at most 1,000 are read" in problem
    assert "make it smaller" in problem
    assert IMAGE_MAX * 4 // 3 <= 5_000_000  # what the APIs take, once base64-encoded


def test_an_image_is_stored_with_its_message_and_named_where_only_text_goes() -> None:
    image = Image("image/png", base64.b64encode(b"\x89PNG\r\n\x1a\n" * 10).decode(), "shot.png")
    item = UserText("what is wrong here?", "person", (image,))
    stored = json.loads(json.dumps(item_to_json(item)))
    assert item_from_json(stored) == item
    hostile = {**stored, "images": [{"media_type": "text/html", "data": "x"}, "junk", {}]}
    assert item_from_json(hostile).images == ()  # only the types every API takes
    assert "[image shot.png, image/png, 80 bytes]" in text_items([item])


def test_queued_messages_carry_their_images(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(PNG)
    queue = MessageQueue(tmp_path)
    queue.add("and this one: @shot.png")
    queue.add("thanks")
    taken = queue.take()
    assert taken is not None
    assert [i.name for i in taken.images] == ["shot.png"]
    assert taken.event.notes == (f"attached shot.png (image/png, {len(PNG)} bytes)",)


async def test_a_headless_run_attaches_what_the_prompt_mentions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`frontier run "what is wrong in @shot.png"` sent the mention as text: the TUI
    attached files and images, the headless run nothing."""
    bodies: list[dict[str, Any]] = []

    async def dispatch(request: web.Request) -> web.StreamResponse:
        bodies.append(await request.json())
        resp = await start_sse(request)
        await resp.write(sse({"choices": [{"index": 0, "delta": {"content": "Red."}}]}))
        await resp.write(sse({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}))
        await resp.write(b"data: [DONE]\n\n")
        await resp.write_eof()
        return resp

    (tmp_path / "shot.png").write_bytes(PNG)
    (tmp_path / "a.py").write_text("x = 1\n")
    async with serve(dispatch) as url:
        config = Config(
            base_url=url, model="m", protocol="native-inc", approval="auto",
            instructions=False, sandbox="off", context_window=100_000,
        )  # fmt: skip
        prompt = "what is wrong in @shot.png and @a.py?"
        assert await run_headless(config, prompts=[prompt], workspace=tmp_path) == 0
    out = capsys.readouterr().out
    assert f"note attached shot.png (image/png, {len(PNG)} bytes)" in out
    assert "note attached a.py (6 bytes)" in out
    user = [m for m in bodies[0]["messages"] if m["role"] == "user"][-1]
    url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert user["content"][0] == {"type": "image_url", "image_url": {"url": url}}
    assert "Attached file a.py" in user["content"][1]["text"]


def test_the_export_names_the_images_a_message_carried(tmp_path: Path) -> None:
    from frontier.app.session.export import read_session, to_markdown
    from frontier.app.session.store import SessionStore

    image = Image("image/png", base64.b64encode(b"\x89PNG\r\n\x1a\n").decode(), "shot.png")
    with SessionStore.open(tmp_path / "s.db") as store:
        sid = store.create_session(str(tmp_path), "m", "http://127.0.0.1:9/v1", "native-inc")
        store.append_items(sid, [UserText("what is wrong in @shot.png?", "person", (image,))])
        info, records = read_session(store.db, sid)
    assert records[0]["images"] == ["shot.png"]
    assert "_image attached: shot.png_" in to_markdown(info, records)


def test_a_screenshot_outside_the_workspace_is_attached_nothing_else_from_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Screenshots live in ~/Pictures or /tmp, not in the project: an image the person
    names there is attached; a text file there stays refused and unread, a FIFO too."""
    import os

    root, home = tmp_path / "ws", tmp_path / "home"
    (home / "Pictures").mkdir(parents=True)
    root.mkdir()
    (home / "Pictures" / "shot.png").write_bytes(PNG)
    (home / "secret.txt").write_text("the-secret-value\n")
    os.mkfifo(home / "pipe")
    monkeypatch.setenv("HOME", str(home))
    text = f"see @~/Pictures/shot.png @{home}/secret.txt @{home}/pipe @../home/Pictures/shot.png"
    prepared = prepare(root, text)
    assert [i.name for i in prepared.images] == ["~/Pictures/shot.png", "../home/Pictures/shot.png"]
    assert base64.b64decode(prepared.images[0].data) == PNG
    assert "the-secret-value" not in prepared.text
    refused = [p for p in prepared.problems if "only an image is attached" in p]
    assert len(refused) == 2  # the text file and the FIFO


def test_a_resumed_session_shows_the_images_its_messages_carried(tmp_path: Path) -> None:
    from frontier.app.agent.history_events import read_tail
    from frontier.app.events import Notice, UserMessage
    from frontier.app.session.store import SessionStore

    image = Image("image/png", base64.b64encode(b"\x89PNG\r\n\x1a\n").decode(), "shot.png")
    with SessionStore.open(tmp_path / "s.db") as store:
        sid = store.create_session(str(tmp_path), "m", "http://127.0.0.1:9/v1", "native-inc")
        store.append_items(sid, [UserText("what is wrong in @shot.png?", "person", (image,))])
        events = read_tail(store, sid, None).events
    assert events[:2] == [
        UserMessage("what is wrong in @shot.png?"),
        Notice("attached image shot.png"),
    ]


def test_the_forms_a_terminal_pastes_a_dropped_file_in(tmp_path: Path) -> None:
    import os

    from frontier.app.agent.attachments import dropped_image

    shot = tmp_path / "Screen Shot 1.png"
    shot.write_bytes(SIGNATURES["shot.png"][0] + b"\x00")
    (tmp_path / "a.txt").write_text("text\n")
    os.mkfifo(tmp_path / "pipe.png")
    mention = f'@"{shot}"'
    for pasted in (
        f"'{shot}'",
        f'"{shot}"',
        str(shot).replace(" ", "\\ "),
        "file://" + str(shot).replace(" ", "%20"),
        f"  '{shot}'\n",
    ):
        assert dropped_image(pasted) == mention, pasted
    for pasted in (f"{tmp_path}/a.txt", "hello there", f"{shot}\n{shot}", "relative.png"):
        assert dropped_image(pasted) is None, pasted
    assert dropped_image(f"{tmp_path}/pipe.png") is None  # a FIFO: not opened to block
