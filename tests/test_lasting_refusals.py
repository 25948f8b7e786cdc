"""Answers no retry mends are told at once with what to do (``app/model/lasting_refusals.py``):
a server that cannot take native tool calls (llama.cpp without --jinja, vLLM without
--enable-auto-tool-choice, Ollama with a model that has none), and OpenAI's
``insufficient_quota`` (a 429). llama.cpp's 500 was retried four times over 8 s and then
read "The server is failing or overloaded: try again later"."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp import web
from model_failures import answering, failure
from sse_server import Sleeps

from frontier.app.model.lasting_refusals import refuses_tools


@pytest.fixture
async def refusing() -> AsyncIterator[tuple[str, list[tuple[int, str]], list[int]]]:
    """A server answering each request with ``(status, body)``; one entry in the last list
    for each request it got."""
    answers: list[tuple[int, str]] = []
    seen: list[int] = []

    async def answer(request: web.Request) -> web.Response:
        seen.append(1)
        status, body = answers[0]
        return web.Response(status=status, text=body, content_type="application/json")

    async with answering(answer) as url:
        yield url, answers, seen


@pytest.mark.parametrize(
    ("status", "body", "fix"),
    [
        (
            500,
            '{"error":{"code":500,"message":"tools param requires --jinja flag","type":'
            '"server_error"}}',
            "this llama.cpp server was started without --jinja",
        ),
        (
            400,
            '{"object":"error","message":"\\"auto\\" tool choice requires '
            '--enable-auto-tool-choice and --tool-call-parser to be set","code":400}',
            "this vLLM server was started without --enable-auto-tool-choice",
        ),
        (
            400,
            '{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools",'
            '"type":"api_error"}}',
            "the model has no tool calling on this server",
        ),
        (
            404,
            '{"error":{"message":"No endpoints found that support tool use. To learn more '
            'about provider routing, visit: https://openrouter.ai/docs/provider-routing",'
            '"code":404}}',
            "none of the providers OpenRouter routes this model to",
        ),
        (
            429,
            '{"error":{"message":"You exceeded your current quota, please check your plan and '
            'billing details.","type":"insufficient_quota","param":null,"code":'
            '"insufficient_quota"}}',
            "the account is out of credit (not a rate limit",
        ),
    ],
    ids=["llama.cpp", "vllm", "ollama", "openrouter", "quota"],
)
async def test_a_lasting_refusal_is_told_at_once_with_the_fix(
    refusing: tuple[str, list[tuple[int, str]], list[int]], status: int, body: str, fix: str
) -> None:
    url, answers, seen = refusing
    answers.append((status, body))
    sleeps = Sleeps()
    said = str(await failure(url, max_retries=4, sleeps=sleeps))
    assert fix in said
    assert "try again later" not in said
    assert len(seen) == 1 and sleeps == []  # asked once: it would refuse again


@pytest.mark.parametrize(
    "said",
    [
        '{"error":{"message":"deepseek-reasoner does not support Function Calling",'
        '"type":"invalid_request_error"}}',
        '{"error":{"message":"tools is not supported in this model. For a list of supported '
        'models, refer to https://platform.openai.com/docs/guides/function-calling",'
        '"type":"invalid_request_error","param":"tools"}}',
        '{"error":{"code":400,"message":"Functions are not supported for this API version or '
        'this model version."}}',
        '{"error":{"message":"Function call is not supported for this model. (request id: 1)"}}',
        '{"code":"InvalidParameter","message":"<400> InternalError.Algo.InvalidParameter: The '
        'tool call is not supported."}',
    ],
    ids=["deepseek", "openai", "azure", "gateway", "dashscope"],
)
async def test_a_model_without_tool_calling_is_told_at_once_in_any_vendors_words(
    refusing: tuple[str, list[tuple[int, str]], list[int]], said: str
) -> None:
    """Read as "HTTP 400" and the server's words before; a new ``--protocol auto`` session
    now goes on in the text protocol on them (``refuses_tools``)."""
    url, answers, seen = refusing
    answers.append((400, said))
    message = str(await failure(url, max_retries=4, sleeps=Sleeps()))
    assert "this model has no tool calling there" in message and len(seen) == 1
    assert refuses_tools(said)
