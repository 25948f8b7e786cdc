"""Answers no retry mends, told at once with what to do, in the words the server uses.

Retried, each cost the person up to a minute and ended in "The server is failing or
overloaded: try again later", which sent them to wait for nothing:

- a server that cannot take native tool calls: a llama.cpp server started without
  ``--jinja`` answers a request with ``tools[]`` "HTTP 500 … tools param requires --jinja
  flag" (retried four times over 8 s on the rig); vLLM without
  ``--enable-auto-tool-choice`` and Ollama with a model whose template has no tools refuse
  the same way (400), and OpenRouter when no provider of the model takes tools (a 404,
  which read as a wrong base URL). The server must be started otherwise, or the session
  must run a protocol that writes its calls in the text (``--protocol ctl-heredoc``),
  which sends no ``tools[]``;
- an account out of credit: OpenAI's ``insufficient_quota`` comes as HTTP 429, the
  status of a rate limit, and was retried as one;
- a model that takes no images, sent one (stop 56): llama.cpp without a vision projector
  answers "HTTP 500 … image input is not supported" (retried four times on the rig).
"""

from __future__ import annotations

_TEXT_PROTOCOL = (
    "; or run a protocol that writes its calls in the text, which needs no tools: "
    "--protocol ctl-heredoc"
)

_NO_TOOLS_MODEL = (
    "the server cannot take native tool calls: this model has no tool calling there: pick "
    "one that has" + _TEXT_PROTOCOL
)

_TOOLS_SIGNS = (
    (
        "tools param requires --jinja",
        "the server cannot take native tool calls: this llama.cpp server was started without "
        "--jinja (newer builds turn it on by default): restart it with --jinja" + _TEXT_PROTOCOL,
    ),
    (
        "--enable-auto-tool-choice",
        "the server cannot take native tool calls: this vLLM server was started without "
        "--enable-auto-tool-choice and --tool-call-parser: restart it with both" + _TEXT_PROTOCOL,
    ),
    (
        "does not support tools",
        "the server cannot take native tool calls: the model has no tool calling on this "
        "server (its chat template has none): pick one that has" + _TEXT_PROTOCOL,
    ),
    (
        "No endpoints found that support tool use",
        "the server cannot take native tool calls: none of the providers OpenRouter routes "
        "this model to (as this account's provider settings allow) takes tools: pick a "
        "model whose OpenRouter page lists tools" + _TEXT_PROTOCOL,
    ),
    *(
        (sign, _NO_TOOLS_MODEL)
        for sign in (
            "does not support function calling",  # DeepSeek's deepseek-reasoner (2025)
            "tools is not supported in this model",  # OpenAI's gpt-5-chat-latest
            "functions are not supported for this api version or this model",  # Azure OpenAI
            "function call is not supported for this model",  # one-api and other gateways
            "the tool call is not supported",  # Alibaba's DashScope
        )
    ),
)
"""``(words the server says, what to do)`` when it takes no ``tools[]``: llama.cpp's,
vLLM's, Ollama's, OpenRouter's (a 404, which read "check --base-url"), and the words of
vendors and gateways for a model without tool calling (matched whatever their case;
sources in the comments). A session on
``--protocol auto`` that has had no reply yet falls back to the text protocol on these
(:func:`refuses_tools`)."""

_NO_IMAGES = (
    "the model takes no images (no vision on this server or model): the image is taken out "
    "of the conversation, so send the message again without it, or use a model that reads "
    "images (llama.cpp: --mmproj)"
)
_IMAGE_SIGNS = tuple(
    (sign, _NO_IMAGES)
    for sign in (
        "image input is not supported",  # llama.cpp without --mmproj
        "is only supported by certain models",  # OpenAI: "image_url is only supported by…"
        "missing data required for image input",  # Ollama, a model without vision
        "image(s) may be provided in one",  # vLLM, a text model: "At most 0 image(s) …"
        "does not support images",  # LM Studio
        "does not support image input",
        "no endpoints found that support image input",  # OpenRouter
        "unknown variant `image_url`",  # DeepSeek's API (text only)
        "unknown variant `input_image`",
        "not a multimodal model",
    )
)
"""``(words the server says, what to do)`` when a request carried an image the model
cannot read: the image is taken out of the history (``AgentLoop``), or every later
request of the session would be refused the same way."""

_SIGNS = (
    *_TOOLS_SIGNS,
    *_IMAGE_SIGNS,
    (
        "insufficient_quota",
        "the account is out of credit (not a rate limit: waiting does not help): check the "
        "plan and billing on the provider's page, or use another key",
    ),
)
"""Every refusal no retry mends: the tool refusals and OpenAI's out of credit."""


def lasting_refusal(text: str) -> str | None:
    """What to do when ``text`` (an error body) is a refusal no retry mends, else ``None``."""
    said = text.lower()
    for sign, fix in _SIGNS:
        if sign.lower() in said:
            return fix
    return None


def refuses_images(text: str) -> bool:
    """Whether ``text`` (an error body) says the model takes no images."""
    said = text.lower()
    return any(sign.lower() in said for sign, _ in _IMAGE_SIGNS)


def refuses_tools(text: str) -> bool:
    """Whether ``text`` (an error body) says the server takes no native tool calls."""
    said = text.lower()
    return any(sign.lower() in said for sign, _ in _TOOLS_SIGNS)
