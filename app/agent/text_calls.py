"""A native-mode reply whose tool call came back as text: the server did not read it.

In the native modes the server turns the model's own call syntax into API tool calls
(vLLM's ``--tool-call-parser``, llama.cpp's templates, a gateway). When its parser does
not recognise what the model wrote (a template without tools, a parser for another
family, an envelope the model left unclosed), the call arrives as the reply's *text*,
``<tool_call>{"name": "read", …}`` or ``<function=read><parameter=path>…``, with
``finish_reason: stop``. The turn then ended ``done``: the person saw the model "call" a
tool that never ran, and the model believed it had. A reply with no call whose text
holds such an envelope is a ``bad_call``: the model is asked to write the call again,
and the person is told, once, what to check on the server.

A bare JSON object that begins a line as a call does (``{"name": "read", "arguments"``,
``{"tool_calls": [...]}``: Devstral on llama.cpp, Llama 3.1's template) counts as well, by
the same rules. Only envelopes that begin a line outside a fenced code block and name a
tool the session offers count (a model explaining a format writes it in a fence or
mid-sentence, and for a tool of its example). gpt-oss's Harmony markup (``<|channel|>commentary
to=functions.read <|constrain|>json<|message|>{…}``, from a server with no Harmony parser)
counts anywhere outside a fence: its special tokens follow the thought on the same line,
and prose never holds them. One pass over the text.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Container

ENVELOPES = re.compile(
    r"^[ \t]*("
    r"<tool_call>"  # Hermes, Qwen2.5/3, GLM
    r"|<function=[A-Za-z0-9_.:-]+>"  # Qwen3-Coder's XML
    r"|<\|tool_calls?_(?:section_)?begin\|>"  # Kimi K2
    r"|<｜tool▁calls?▁begin｜>"  # DeepSeek V3
    r"|\[TOOL_CALLS\]"  # Mistral
    r"|<\|python_tag\|>"  # Llama 3.1
    r"|<minimax:tool_call>"  # MiniMax
    r"|<\|tool_call>call:"  # Gemma 4
    r"|<\|python_start\|>"  # Llama 4
    r'|\{\s*"(?:tool_calls|name|type)"\s*:'  # bare JSON: Devstral's, Llama 3.1's
    r")"
    # gpt-oss's Harmony: a message to a recipient, often after the thought on one line
    r"|(<\|channel\|>[a-z]+ to=functions\.)",
    re.MULTILINE,
)
"""How the families' own call syntax begins, at the start of a line."""
NAMED = re.compile(
    r'"name"\s*:\s*"([^"\n]{1,128})"'  # Hermes, Llama, Mistral's JSON
    r"|<function=([^>\s]{1,128})>"  # Qwen3-Coder
    r"|functions\.([A-Za-z0-9_.-]{1,128}):"  # Kimi K2
    r"|name=\"([^\"\n]{1,128})\""  # MiniMax's invoke
    r"|<tool_call>[ \t]*([A-Za-z0-9_.-]{1,128})[ \t]*\n"  # GLM
    r"|<｜tool▁sep｜>([^\s<]{1,128})"  # DeepSeek V3
    r"|\[TOOL_CALLS\][ \t]*([A-Za-z0-9_.-]{1,128})\[ARGS\]"  # Mistral's newer form
    r"|to=functions\.([A-Za-z0-9_-]{1,128})"  # gpt-oss (Harmony)
    r"|<\|tool_call>call:([A-Za-z0-9_.-]{1,128})\{"  # Gemma 4
)
"""Where each family's syntax names the tool."""
FENCE = re.compile(r"^[ \t]*(```|~~~)", re.MULTILINE)
QUOTED = 300
"""Characters of the envelope quoted (to the model and the person)."""


def text_call(text: str, offered: Container[str]) -> str | None:
    """The first tool-call envelope that begins a line of ``text`` outside a fenced code
    block and names one of the ``offered`` tools, with what follows it (at most
    :data:`QUOTED` characters), or ``None``. An envelope naming no offered tool is a
    model showing the syntax (``get_weather``), not a call of this session."""
    fences = [m.start() for m in FENCE.finditer(text)]
    for match in ENVELOPES.finditer(text):
        if bisect_left(fences, match.start()) % 2 == 0:  # an even number of fences before
            start = match.start(1) if match.group(1) is not None else match.start(2)
            said = text[start : start + QUOTED]
            names = {g for m in NAMED.finditer(said) for g in m.groups() if g}
            if any(name in offered for name in names):
                return said + ("…" if len(text) - start > QUOTED else "")
    return None
