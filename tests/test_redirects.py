"""A redirect from the model's server is said with where it points and the base URL that
goes there: "HTTP 307 Temporary Redirect" alone sent the person to read the server's
logs. Not followed, as before: the request carries the API key."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from model_failures import answering, failure


@pytest.fixture
async def redirecting() -> AsyncIterator[tuple[str, list[str]]]:
    """A server answering each request with the next of ``answers`` ("status Location")."""
    answers: list[str] = []

    async def answer(request: web.Request) -> web.Response:
        status, _, location = answers.pop(0).partition(" ")
        headers = {"Location": location} if location else {}
        return web.Response(status=int(status), headers=headers)

    async with answering(answer) as url:
        yield url, answers


@pytest.mark.parametrize(
    ("location", "says"),
    [
        (
            "https://api.example.com/v1/chat/completions",
            "to https://api.example.com/v1/chat/completions; Frontier does not follow a "
            "redirect with the API key: use --base-url https://api.example.com/v1",
        ),
        ("/v2/chat/completions", "use --base-url http://127.0.0.1:{port}/v2"),
        ("https://login.example.com/portal", "check --base-url (the redirect is not to this"),
        ("https://u:pw@x.example/v1/chat/completions", "to https://***@x.example/v1/chat"),
    ],
    ids=["to https", "relative", "elsewhere", "credentials masked"],
)
async def test_a_redirect_says_where_and_the_base_url_to_use(
    redirecting: tuple[str, list[str]], location: str, says: str
) -> None:
    url, answers = redirecting
    answers.append(f"307 {location}")
    error = await failure(url, api_key="sk-test-0123456789abcdef")
    port = url.split(":")[2].split("/")[0]
    assert error.status == 307 and "HTTP 307 Temporary Redirect" in str(error)
    assert says.format(port=port) in str(error)
    assert "sk-test" not in str(error)


async def test_a_redirect_without_a_location_is_an_ordinary_status(
    redirecting: tuple[str, list[str]],
) -> None:
    url, answers = redirecting
    answers.append("302 ")
    error = await failure(url)
    assert error.status == 302 and "does not follow" not in str(error)
