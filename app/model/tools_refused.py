"""A server that cannot take native tool calls says so in its own words; the words
decide what to tell the person.

A llama.cpp server started without ``--jinja`` answers a request with ``tools[]`` "HTTP 500
… tools param requires --jinja flag"; Frontier retried it four times over 8 s and then
said "The server is failing or overloaded: try again later". vLLM without
``--enable-auto-tool-choice`` and Ollama with a model whose template has no tools refuse
the same way (400). None of them will take the request however often it is sent: the
server must be started otherwise, or the session must run a protocol that writes its calls
in the text (``--protocol ctl-heredoc``), which needs no ``tools[]``.
"""

from __future__ import annotations

_SIGNS = (
    (
        "tools param requires --jinja",
        "this llama.cpp server was started without --jinja (newer builds turn it on by "
        "default): restart it with --jinja",
    ),
    (
        "--enable-auto-tool-choice",
        "this vLLM server was started without --enable-auto-tool-choice and "
        "--tool-call-parser: restart it with both",
    ),
    (
        "does not support tools",
        "the model has no tool calling on this server (its chat template has none): pick "
        "one that has",
    ),
)
"""``(words the server says, what to do)``; llama.cpp's, vLLM's and Ollama's own."""


def tools_refused(text: str) -> str | None:
    """What to do when ``text`` (an error body) says the server cannot take tools, else
    ``None``."""
    for sign, fix in _SIGNS:
        if sign in text:
            return (
                f"the server cannot take native tool calls: {fix}; or run a protocol that "
                "writes its calls in the text, which needs no tools: --protocol ctl-heredoc"
            )
    return None
