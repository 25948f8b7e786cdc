"""A HAR made by a real Chromium (issue 25, "How it is checked"): a page on a loopback
server ``fetch``es a streamed response from each wire's endpoint with an
``Authorization: Bearer`` and an ``x-api-key`` header and reads it to the end; Playwright
saves the context's HAR (``record_har_path``, bodies embedded); :func:`har_responses`
reads one response per wire with exactly the events the server sent; ``frontier check``,
``import`` and ``replay --headless`` read the same HAR; and no secret of the request is
anywhere in what any of them returns, prints or writes.

The servers are ``tests/wire_scripts.py``'s scripted ones (one per wire, behind one port
so the page's fetches are same-origin), run on an event loop in a thread while Playwright's
sync API drives Chromium from the test's. Chromium as in ``test_serve_browser.py``
(Debian's, through ``executable_path``; skipped when absent)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from aiohttp import web
from browser_helpers import CHROMIUM, CHROMIUM_ARGS, require_chromium
from wire_scripts import PATHS, WIRES, Call, Part, Text, WireServer, args, script, stream

from frontier.app.session.capture_har import har_responses
from frontier.app.wire.sse import SSEDecoder

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install -e '.[test]')"
)

require_chromium("the browser test of HAR captures")

pytestmark = pytest.mark.slow

KEY = "sk-secret-browser-0123456789abcdefXYZ"
XKEY = "xk-secret-browser-fedcba9876543210"
WAIT = 30.0

PAGE = """<!doctype html><title>wires</title><script>
async function ask(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: {"Content-Type": "application/json", "Authorization": "Bearer %s",
              "x-api-key": "%s"},
    body: JSON.stringify(body),
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const {done, value} = await reader.read();
    if (done) return text;
    text += decoder.decode(value, {stream: true});
  }
}
</script>""" % (KEY, XKEY)  # noqa: UP031 (the JS braces would need doubling in a format)

PARTS: list[Part] = [
    Text("Reading the notes."),
    Call("call_1", "read_file", args(path="notes.txt")),
]


def body_of(wire: str) -> bytes:
    return b"".join(c for c in script(wire, PARTS) if isinstance(c, bytes))


def request_of(wire: str) -> dict[str, object]:
    return {
        "model": f"model-of-{wire}",
        "stream": True,
        "tools": [{"type": "function", "name": "read_file"}],
    }


@contextmanager
def wires_and_page() -> Iterator[tuple[str, dict[str, WireServer]]]:
    """The page at ``/`` and the three wires' paths on one loopback port, served from a
    thread; yields the origin and the servers."""
    servers = {wire: WireServer(wire, [stream(script(wire, PARTS))]) for wire in WIRES}
    loop = asyncio.new_event_loop()
    started: asyncio.Future[tuple[web.AppRunner, str]] = loop.create_future()

    async def page(request: web.Request) -> web.Response:
        return web.Response(text=PAGE, content_type="text/html")

    async def start() -> None:
        app = web.Application()
        app.router.add_get("/", page)
        for wire, server in servers.items():
            app.router.add_post(PATHS[wire], server.dispatch)
        runner = web.AppRunner(app, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        started.set_result((runner, f"http://127.0.0.1:{port}"))

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(start(), loop).result(WAIT)
    runner, origin = asyncio.run_coroutine_threadsafe(_done(started), loop).result(WAIT)
    try:
        yield origin, servers
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(WAIT)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(WAIT)
        loop.close()


async def _done(
    future: asyncio.Future[tuple[web.AppRunner, str]],
) -> tuple[web.AppRunner, str]:
    return await future


def test_a_chromium_har_holds_one_response_per_wire_and_no_secret(tmp_path: Path) -> None:
    har_path = tmp_path / "wires.har"
    with wires_and_page() as (origin, servers), sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(record_har_path=har_path, record_har_content="embed")
            page = context.new_page()
            page.goto(origin + "/", timeout=WAIT * 1000)
            read = {
                wire: page.evaluate("([p, b]) => ask(p, b)", [PATHS[wire], request_of(wire)])
                for wire in WIRES
            }
            context.close()  # writes the HAR
        finally:
            browser.close()
        # the server saw the secrets, so the HAR had them to leak
        assert all(s.requests[0].headers.get("x-api-key") == XKEY for s in servers.values())

    for wire in WIRES:
        assert read[wire].encode() == body_of(wire)  # the page read the whole stream
    data = har_path.read_bytes()
    assert KEY.encode() in data and XKEY.encode() in data

    found = har_responses(data)
    assert sorted(r.endpoint or "" for r in found) == sorted(PATHS.values())
    for response in found:
        wire = next(w for w, p in PATHS.items() if p == response.endpoint)
        sent = SSEDecoder().feed_events(body_of(wire))
        assert [(e.event or "message", e.data) for e in response.events] == sent
        assert response.request == request_of(wire)
        assert response.model == f"model-of-{wire}"
        assert not response.torn
        assert isinstance(response.entry, int)
        times = [e.t for e in response.events]
        assert all(t is not None for t in times) and times == sorted(times)  # type: ignore[type-var]
    shown = repr(found) + json.dumps([r.notes for r in found])
    assert KEY not in shown and XKEY not in shown
    assert "Bearer" not in shown

    checked = frontier("check", "--explain", str(har_path))
    assert sum(line.startswith("ok ") for line in checked.splitlines()) == len(WIRES), checked
    for wire in WIRES:
        assert wire in checked
    imported = frontier("import", str(har_path), "-o", str(tmp_path / "lesson.jsonl"))
    written = sorted(tmp_path.glob("lesson*.jsonl"))
    assert len(written) == len(WIRES), imported
    replayed = frontier("replay", str(written[0]), "--headless")
    assert "read_file" in replayed
    for text in (checked, imported, replayed, *(p.read_text() for p in written)):
        assert KEY not in text and XKEY not in text and "Bearer" not in text


def frontier(*argv: str) -> str:
    """Run the CLI (as a person would) and return everything it printed; it must succeed."""
    done = subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", *argv],
        capture_output=True,
        text=True,
        timeout=WAIT * 2,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr
