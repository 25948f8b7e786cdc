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

Only envelopes that begin a line outside a fenced code block count (a model explaining a
format writes it in a fence or mid-sentence). One pass over the text.
"""

from __future__ import annotations

import re
from bisect import bisect_left

ENVELOPES = re.compile(
    r"^[ \t]*("
    r"<tool_call>"  # Hermes, Qwen2.5/3, GLM
    r"|<function=[A-Za-z0-9_.:-]+>"  # Qwen3-Coder's XML
    r"|<\|tool_calls?_(?:section_)?begin\|>"  # Kimi K2
    r"|<｜tool▁calls?▁begin｜>"  # DeepSeek V3
    r"|\[TOOL_CALLS\]"  # Mistral
    r"|<\|python_tag\|>"  # Llama 3.1
    r"|<minimax:tool_call>"  # MiniMax
    r")",
    re.MULTILINE,
)
"""How the families' own call syntax begins, at the start of a line."""
FENCE = re.compile(r"^[ \t]*(```|~~~)", re.MULTILINE)
QUOTED = 300
"""Characters of the envelope quoted (to the model and the person)."""


def text_call(text: str) -> str | None:
    """The first tool-call envelope that begins a line of ``text`` outside a fenced code
    block, with what follows it (at most :data:`QUOTED` characters), or ``None``."""
    fences = [m.start() for m in FENCE.finditer(text)]
    for match in ENVELOPES.finditer(text):
        if bisect_left(fences, match.start()) % 2 == 0:  # an even number of fences before
            start = match.start(1)
            said = text[start : start + QUOTED]
            return said + ("…" if len(text) - start > QUOTED else "")
    return None
