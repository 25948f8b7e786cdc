"""Secrets that leaked where Frontier echoes a URL, a command's words or a capture: a base
URL that does not parse, a flag written ``--api-key=…``, a port past 65535, a failing
``api_key_command``'s stderr, a HAR's own ``Authorization`` header (review of the secret
scrubbing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from frontier.app.cli import main
from frontier.app.config import ConfigError, config_path, load_config, resolve_api_key
from frontier.app.model.conversation import UserText
from frontier.app.model.errors import ModelError
from frontier.app.model.registry import codec
from frontier.app.model.request import ModelRequest
from frontier.app.model.stream import StreamEnd
from frontier.app.model.transport import ModelClient
from frontier.app.secrets import Scrubber, redact_url, url_secrets

PASSWORD = "BADPW12345678"
BROKEN = f"http://user:{PASSWORD}@[::1/v1"
"""A base URL neither ``urlsplit`` nor httpx parses (an IPv6 host never closed)."""


@pytest.mark.parametrize(
    ("url", "secret", "shown"),
    [
        pytest.param(BROKEN, PASSWORD, "http://***@[::1/v1", id="broken-ipv6-host"),
        pytest.param(
            "http://127.0.0.1:1880200/v1?api_key=QUERYKEY1234",
            "QUERYKEY1234",
            "http://127.0.0.1:1880200/v1?api_key=[REDACTED]",
            id="port-out-of-range",
        ),
        pytest.param(
            "https://h/cb#access_token=FRAGTOKEN12345&state=x",
            "FRAGTOKEN12345",
            "https://h/cb#access_token=[REDACTED]&state=x",
            id="fragment",
        ),
        pytest.param(
            "http://127.0.0.1:9/api/mcp;token=MATRIXTOK12345/v1",
            "MATRIXTOK12345",
            "http://127.0.0.1:9/api/mcp;token=[REDACTED]/v1",
            id="path-parameter",
        ),
    ],
)
def test_a_urls_credentials_are_found_and_hidden_even_when_it_does_not_parse(
    url: str, secret: str, shown: str
) -> None:
    assert secret in url_secrets(url)
    assert redact_url(url) == shown
    assert secret not in (redact_url(url, userinfo="") or "")


async def _said(url: str) -> str:
    """What a session's client says when asked to send one request to ``url``."""
    client = ModelClient(codec("openai-chat"), url, "m")
    request = ModelRequest("s", (UserText("hi"),), max_tokens=5)
    try:
        async for item in client.stream(request):
            if isinstance(item, StreamEnd):
                return item.error or item.detail or item.finish_reason
    except ModelError as exc:
        return str(exc)
    finally:
        await client.aclose()
    return ""


async def test_an_invalid_base_urls_error_never_quotes_its_password() -> None:
    said = await _said(BROKEN)
    assert "invalid base URL" in said
    assert PASSWORD not in said
    assert "http://***@[::1/v1" in said


async def test_a_port_past_65535_is_the_base_urls_mistake_named_not_a_traceback() -> None:
    said = await _said("http://127.0.0.1:1880200/v1")
    assert "invalid base URL" in said and "port 1880200 is out of range" in said
    assert "use e.g. http://127.0.0.1:8080/v1" in said


def test_a_credential_flag_written_with_dashes_is_scrubbed_by_its_shape() -> None:
    scrubber = Scrubber()
    assert scrubber.scrub("echo --api-key=SHAPE2ABCDEF1234") == "echo --api-key=[REDACTED]"
    assert scrubber.scrub("run --x-auth-token=ABCDEF12345678") == "run --x-auth-token=[REDACTED]"
    assert scrubber.scrub("my_app_api_key=ABCDEF12345678") == "my_app_api_key=[REDACTED]"
    assert scrubber.scrub("--tokenizer=gpt2abcdef12") == "--tokenizer=gpt2abcdef12"


def test_a_failing_key_commands_stderr_never_shows_a_key() -> None:
    key = "sk-CMDKEYabcdef0123456789"
    where = config_path()
    where.parent.mkdir(parents=True, exist_ok=True)
    command = f"printf 'error: key {key} expired\\n' >&2; exit 1"
    where.write_text(f"api_key_command = {json.dumps(command)}\n")
    with pytest.raises(ConfigError) as err:
        resolve_api_key(load_config())
    said = str(err.value)
    assert key not in said
    assert "failed (exit 1): error: key [REDACTED] expired" in said


HAR_KEY = "sk-HARKEY0123456789abcdefXYZ"
HAR_XKEY = "HARXAPI0123456789"
HAR_PASSWORD = "HARURLPASS1234"


def _har(text: str, body: str = "") -> dict[str, object]:
    """A HAR of one streamed Chat Completions response saying ``text`` (or whose SSE body is
    ``body``), sent with a key in its ``Authorization`` and ``x-api-key`` headers and a
    password in its URL."""
    chunks = [
        {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    body = body or "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return {
        "log": {
            "version": "1.2",
            "entries": [
                {
                    "request": {
                        "method": "POST",
                        "url": f"https://user:{HAR_PASSWORD}@api.example.com/v1/chat/completions",
                        "headers": [
                            {"name": "Authorization", "value": f"Bearer {HAR_KEY}"},
                            {"name": "x-api-key", "value": HAR_XKEY},
                        ],
                        "postData": {"text": json.dumps({"model": "m", "stream": True})},
                    },
                    "response": {
                        "status": 200,
                        "headers": [
                            {"name": "Content-Type", "value": "text/event-stream"},
                            {"name": "x-ratelimit-limit-tokens", "value": "30000000"},
                        ],
                        "content": {"mimeType": "text/event-stream", "text": body},
                    },
                }
            ],
        }
    }


def test_an_imported_har_masks_the_credentials_its_own_requests_carried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    har = tmp_path / "cap.har"
    said = f"your key is {HAR_KEY}, {HAR_XKEY} and {HAR_PASSWORD}; the rest stays: 30000000"
    har.write_text(json.dumps(_har(said)))
    out = tmp_path / "out.jsonl"
    assert main(["import", str(har), "-o", str(out)]) == 0
    written = out.read_text()
    for secret in (HAR_KEY, HAR_XKEY, HAR_PASSWORD):
        assert secret not in written
    assert "the rest stays: 30000000" in written  # a rate limit's count is no credential
    assert main(["check", str(out)]) == 0  # masked in place: still a valid recording
    capsys.readouterr()


def test_a_har_piped_in_is_masked_as_a_file_is(tmp_path: Path) -> None:
    """``frontier import -``: stdin cannot be read twice, and its credentials were not
    learned (only the environment's keys were masked)."""
    import subprocess
    import sys

    said = f"your key is {HAR_KEY}; the rest stays"
    out = tmp_path / "out.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "frontier.app.cli", "import", "-", "-o", str(out)],
        input=json.dumps(_har(said)).encode(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    written = out.read_text()
    assert HAR_KEY not in written and "the rest stays" in written


def test_a_raw_http_capture_masks_the_credentials_its_request_carried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A socket dump (``curl --trace``, a proxy's log) holds the request's headers too."""
    chunk = {"choices": [{"index": 0, "delta": {"content": f"key {HAR_XKEY} ok"}}]}
    stream = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"
    body = json.dumps({"model": "m", "stream": True})
    dump = (
        "POST /v1/chat/completions HTTP/1.1\r\nHost: api.example.com\r\n"
        f"x-api-key: {HAR_XKEY}\r\nContent-Length: {len(body)}\r\n\r\n{body}"
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + stream
    )
    capture = tmp_path / "cap.http"
    capture.write_text(dump)
    out = tmp_path / "out.jsonl"
    assert main(["import", str(capture), "-o", str(out)]) == 0
    written = out.read_text()
    assert HAR_XKEY not in written and " ok" in written
    capsys.readouterr()


def test_a_raw_http_capture_with_a_byte_order_mark_is_masked_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Read past its BOM for its responses, not for its credentials: none was masked."""
    chunk = {"choices": [{"index": 0, "delta": {"content": f"key {HAR_XKEY} ok"}}]}
    stream = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"
    dump = (
        "\ufeffPOST /v1/chat/completions HTTP/1.1\r\nHost: h\r\n"
        f"x-api-key: {HAR_XKEY}\r\nContent-Length: 2\r\n\r\n{{}}"
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + stream
    )
    capture = tmp_path / "bom.http"
    capture.write_text(dump, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["import", str(capture), "-o", str(out)]) == 0
    assert HAR_XKEY not in out.read_text()
    capsys.readouterr()


@pytest.mark.parametrize("form", [[], ["--json"]], ids=["text", "json"])
def test_a_har_replayed_masks_the_credentials_its_own_requests_carried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: list[str]
) -> None:
    """``frontier replay cap.har`` showed the HAR's own key where the model echoed it, which
    ``frontier import`` of the same file masked: only the environment's keys were known."""
    har = tmp_path / "cap.har"
    har.write_text(json.dumps(_har(f"keys {HAR_XKEY} and {HAR_PASSWORD}; the rest stays")))
    assert main(["replay", str(har), "--headless", *form]) == 0
    out = capsys.readouterr().out
    assert HAR_XKEY not in out and HAR_PASSWORD not in out
    assert "the rest stays" in out


def _late_key_stream(key: str) -> str:
    """A Chat Completions stream whose first call gets more argument bytes (``key``) after a
    second call began: the bytes ``frontier check``'s FAIL line quotes."""

    def chunk(calls: list[dict[str, object]], finish: str | None = None) -> str:
        delta = {"tool_calls": calls} if calls else {}
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return f"data: {json.dumps({'choices': [choice]})}\n\n"

    def call(n: int, args: str, ident: str | None = None) -> dict[str, object]:
        head = {"id": ident, "type": "function", "function": {"name": "shell"}} if ident else {}
        return {"index": n, **head, "function": {**head.get("function", {}), "arguments": args}}

    return (
        chunk([call(0, '{"command":"echo hi"}', "c1")])
        + chunk([call(1, '{"command":"x"}', "c2")])
        + chunk([call(0, f" more {key}")])
        + chunk([], "tool_calls")
        + "data: [DONE]\n\n"
    )


@pytest.mark.parametrize("explain", [[], ["--explain"]], ids=["fail-line", "explain"])
def test_a_failure_check_quotes_from_a_har_hides_the_hars_own_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], explain: list[str]
) -> None:
    """The same FAIL line for a HAR: the key the model put in its arguments is the one
    the HAR's ``x-api-key`` header carried, which no environment variable holds."""
    har = tmp_path / "late.har"
    har.write_text(json.dumps(_har("", body=_late_key_stream(HAR_XKEY))))
    assert main(["check", "--protocol", "native-inc", *explain, str(har)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "more [REDACTED]" in out and HAR_XKEY not in out


def test_a_failure_check_quotes_from_a_capture_hides_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``frontier check``'s FAIL line quotes the late bytes of a call: a model that put
    the key it was given in its arguments had it printed, into what goes in bug reports."""
    key = "sk-envkey-0123456789abcdefXYZ"
    monkeypatch.setenv("FRONTIER_API_KEY", key)

    capture = tmp_path / "late.sse"
    capture.write_text(_late_key_stream(key))
    assert main(["check", "--protocol", "native-inc", str(capture)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "more [REDACTED]" in out and key not in out
