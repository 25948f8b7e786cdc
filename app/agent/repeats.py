"""A call the model repeats unchanged after it returned the same result twice.

A model that loses its way calls the same tool with the same arguments round after
round — the same ``read``, the same ``git status``, an edit that no longer applies —
and each round costs a request until ``max_turns`` (100 in the TUI) ends the turn. The
third identical call in a row, after two that returned the same result, is not run: its
result says so and points to the result above (the agent loops of opencode, Kilo Code
and Hermes stop the same way). A repeat whose result changed (a poll that is still
waiting, a test run after an edit) is not one: only two equal results make the third
pointless. The count starts again with each message of the person.

A shell call the loop ran as a file tool's (``sed -i 's/a/aa/' f`` as the patch it makes:
``ToolCall.origin``) is compared by the command the model wrote: each round's patch
differs, the file having changed, and the model's call does not.

A model told so and calling it once more is stuck (pi, opencode and Mistral's vibe users
watched one loop on the refusal until they pressed Esc, each round a paid request): the
second refusal in a row ends the turn (:meth:`Repeats.stuck`), so the person can steer.
"""

from __future__ import annotations

from frontier.app import fastjson
from frontier.app.events import ToolCall, ToolResult
from frontier.app.hashes import blake2b_digest

ALLOWED = 2
"""Identical calls in a row that run, their results equal, before the next is refused."""
STUCK = 2
"""Refusals in a row after which the turn ends: the model was told and called it again."""


class Repeats:
    """The latest calls run in this turn, in the order they ran, as far as telling a
    repeat needs: the call's name, digests of its arguments and of its result.

    :meth:`refused` is asked as each call is about to start: it reads the arguments (whose
    size is the model's: a whole file written) only when the calls before it already
    repeat each other by name, arguments and result; :meth:`ran` digests them after the
    call. Digests keep the memory flat whatever the calls carried."""

    def __init__(self) -> None:
        self._last: list[tuple[str, bytes, bytes]] = []
        """``(name, arguments digest, result digest)`` of the latest run of identical calls."""
        self._refusals = 0
        self._refused = ""
        """The call refused last, as its refusal shows it."""

    def clear(self) -> None:
        self._last = []
        self._refusals = 0

    def stuck(self) -> str | None:
        """Why the turn should end: the same call was refused :data:`STUCK` times in a row
        (the model was told, and called it again); else ``None``."""
        if self._refusals < STUCK:
            return None
        return (
            f"the model kept calling {self._refused} after it was told the call returns the "
            "same result each time; the turn is stopped so you can steer it"
        )

    def refused(self, call: ToolCall) -> ToolResult | None:
        """The result of ``call`` when it repeats :data:`ALLOWED` identical calls whose
        results were equal, else ``None`` (it runs)."""
        last = self._last[-ALLOWED:]
        said = _said(call)[0]
        if len(last) < ALLOWED or any(name != said for name, _, _ in last):
            return None
        if len({(args, result) for _, args, result in last}) != 1:
            return None
        name, text = _said(call)
        if _digest(text) != last[0][1]:
            return None
        shown = f"{name} {text}"
        shown = shown if len(shown) <= 200 else shown[:200] + "…"
        self._refusals += 1
        self._refused = shown
        return ToolResult(
            call.id,
            call.name,
            "not_executed",
            f"not run: the same call ({shown}) ran {ALLOWED} times in a row and returned "
            "the same result each time; a third run would return it again. Use the result "
            "above, or change what you call.",
        )

    def ran(self, call: ToolCall, result: ToolResult) -> None:
        """``call`` ran with ``result``: the run of identical calls grows or starts again.
        (A refused repeat is not recorded: the next identical call is refused too.)"""
        self._refusals = 0
        name, text = _said(call)
        args = _digest(text)
        done = _digest(f"{result.kind}\0{result.output}")
        if self._last and self._last[-1][:2] != (name, args):
            self._last = []
        self._last.append((name, args, done))
        del self._last[:-ALLOWED]


def shape(call: ToolCall) -> tuple[object, ...]:
    """What two identical calls share, cheap to take whatever they carry (each argument's
    name and length, not its bytes): a call of a response is compared in full only with
    an earlier one of the same shape, so a 4 MiB ``write`` costs no hash between its
    confirmation and its start."""
    return (call.name, *sorted((k, _size(v)) for k, v in call.args.items()))


def _size(value: object) -> object:
    if isinstance(value, (str, bytes, list, dict)):
        return (type(value).__name__, len(value))
    return value if isinstance(value, (int, float, bool)) or value is None else repr(value)


def twin(call: ToolCall, earlier: ToolCall) -> ToolResult:
    """The result of ``call``, the same call as ``earlier`` in one response (same tool,
    same arguments): not run. LocalAI streamed one call at several indices under new ids,
    and Qwen parsers re-emitted calls; each copy ran (a command appending to a file
    appended twice)."""
    return ToolResult(
        call.id,
        call.name,
        "not_executed",
        f"not run: the same call as {earlier.id} earlier in this response (same tool, same "
        f"arguments) would do the same again; {earlier.id}'s result says what it did",
    )


def _said(call: ToolCall) -> tuple[str, str]:
    """What the model called, as a repeat compares it: the command it wrote, for a shell
    call run as a file tool's; else the call's name and its arguments."""
    if call.origin:
        return "shell", f"`{call.origin}`"
    return call.name, _args_text(call)


def _args_text(call: ToolCall) -> str:
    """The call's arguments as JSON, in one canonical key order."""
    values = call.json_args()
    return fastjson.dumps({k: values[k] for k in sorted(values)}, ensure_ascii=False)


def _digest(text: str) -> bytes:
    return blake2b_digest(text.encode("utf-8", "surrogatepass"), 16)
