"""Bounded repair (DESIGN §6): framing and truncation failures go back to the
model with what broke and how to resend; at most ``MAX_REPAIRS`` in a row.

A truncation's text says, call by call, what happened to the response's calls: which
ran (their results are in the same message), which were complete but did not run and
why — quoted, because the history keeps only the calls that ran, so the model could not
otherwise see what to resend unchanged — and which were cut off mid-arguments."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from frontier.app.record import record
from frontier.app.vocab import EAGER_MODES, is_clean

MAX_REPAIRS = 3
TOKEN_LIMIT_HINT = (
    " — every reply was cut by the output token limit: if max_tokens is set (--max-tokens "
    "N, max_tokens in config.toml or a provider's table), raise it"
)
"""Said at the repair limit when each reply in a row ended ``length``: what the person can
change (a small ``--max-tokens`` cuts every reply, and four requests went on it)."""

QUOTE_CALL = 2_000
"""Characters of one held call's arguments quoted in a truncation's text; longer ones
are described, not quoted (the model writes them again)."""
QUOTE_TOTAL = 6_000
"""Characters of arguments one truncation's text quotes in all."""
MAX_LISTED = 12
"""Calls one truncation's text names or quotes per kind; the rest are counted (a
hostile response may cut off thousands)."""


@record
class HeldCall:
    """A call whose arguments had all arrived (they parse) but which did not run because
    its response was cut off: ``arguments`` is its JSON text as the model wrote it."""

    id: str
    name: str
    arguments: str


@record
class Failure:
    """Why a response could not be used whole: ``contract`` or ``truncated``."""

    kind: str
    message: str
    offset: int | None = None
    call_ids: tuple[str, ...] = ()
    """The calls the failure cut (truncated: not complete when the response ended)."""
    held: tuple[HeldCall, ...] = ()
    """Calls that were complete but did not run because the response was cut off
    (native-eos runs no call of a cut-off response; native-inc runs no call its wire
    had not proven complete): they may be resent unchanged."""
    ran: tuple[str, ...] = ()
    """Calls of the response that ran before the cut: their results go back with the
    repair text."""
    names: tuple[tuple[str, str], ...] = ()
    """``(id, name)`` of the calls above, to name the tool beside the id."""
    cause: str = ""
    """What cut the response, in words (``the output token limit``): empty when unknown."""
    wire_proves: bool = False
    """The wire says when a call is complete (Responses, Anthropic); Chat Completions
    proves a call only by the next call's arguments or a clean end (native-inc)."""

    @property
    def resend(self) -> bool:
        """The repair asks for a call again; not for a cut that cut or held back no call
        (the model is asked to go on from where it stopped)."""
        return self.kind != "truncated" or bool(self.held or self.call_ids)


CUT_BY = {
    "length": "the output token limit",
    "disconnect": "a dropped connection",
    "error": "an error the server reported (it may pass)",
}
"""What cut a response off, by its normalised ``finish_reason``, in words."""


def cut_words(finish_reason: str, detail: str = "") -> str:
    """What a response cut off with no call open is said to have ended with: the loop's
    words, and the inspector's for the same response."""
    why = f" ({detail})" if detail else ""
    return f"the response ended with finish_reason={finish_reason}{why}"


def recorded_cut(finish_reason: str) -> str:
    """What a recorded response that ended this way is said to have ended with, when it
    was cut off as the loop reads it (:func:`cut_words`); empty for a clean end, the
    person's stop, or the server's error (which ends the turn, unless the live loop saw it
    pass: the recording does not say)."""
    if is_clean(finish_reason) or finish_reason in ("stopped", "error"):
        return ""
    return cut_words(finish_reason)


def truncation(
    message: str,
    offset: int,
    *,
    mode: str,
    finish_reason: str,
    cut: Sequence[tuple[str, str, bool]],
    held_arguments: Mapping[str, str],
    open_calls: Sequence[tuple[str, str]],
    confirmed: Sequence[tuple[str, str]],
    wire_proves: bool,
) -> Failure:
    """The failure of a response cut off, built the same way by the loop and by the
    inspector (``check --explain``), so both tell the model the same thing.

    ``cut``: the native accumulator's ``truncated_calls`` (``(id, name, complete)``),
    with ``held_arguments`` the arguments of the complete ones; empty for the text
    protocols, whose cut call is among ``open_calls`` (started, never ready).
    ``confirmed``: the calls that became ready before the cut (they ran in the eager
    modes, and never in the others)."""
    if cut:
        incomplete = tuple(i for i, _, whole in cut if not whole)
        held = tuple(HeldCall(i, n, held_arguments.get(i, "")) for i, n, whole in cut if whole)
        named = [(i, n) for i, n, _ in cut]
    else:
        incomplete, held, named = tuple(i for i, _ in open_calls), (), list(open_calls)
    return Failure(
        "truncated",
        message,
        offset,
        incomplete,
        held=held,
        ran=tuple(i for i, _ in confirmed) if mode in EAGER_MODES else (),
        names=(*confirmed, *named),
        cause=CUT_BY.get(finish_reason, ""),
        wire_proves=wire_proves,
    )


QUOTE_REFUSED = 1_500
"""Characters of a refused call's words quoted back to the model."""


def refused_reply(words: str) -> Failure:
    """The failure of a reply whose call the server itself could not read (Groq's
    ``tool_use_failed``): the model wrote a call in its own dialect or broke its JSON,
    and the server refused the reply instead of streaming it. What it wrote is quoted,
    so it can see what to write again (the server's own words name a field the model
    never sees, ``failed_generation``, and are left to the person's screen)."""
    quoted = words if len(words) <= QUOTE_REFUSED else words[:QUOTE_REFUSED] + "…"
    wrote = f"; you wrote: {quoted!r}" if quoted else ""
    return Failure(
        "bad_call",
        "the server could not read your tool call as a call of an offered tool and "
        f"refused the whole reply{wrote}",
    )


def call_as_text(words: str) -> Failure:
    """The failure of a native-mode reply whose call came back as its text
    (``text_calls.py``): the server's parser did not read it, so it never ran."""
    return Failure(
        "bad_call",
        f"your tool call came back as text, not as a tool call: the server did not read "
        f"it as one, so it did not run (you wrote: {words!r}); write it again as a call "
        "of an offered tool",
    )


def call_in_reasoning(words: str) -> Failure:
    """The failure of a native-mode reply with no call and no text whose *reasoning* ends
    in a call (``text_calls.py``): the server's reasoning parser kept it as thought."""
    return Failure(
        "bad_call",
        f"your tool call was inside your reasoning, not made as a tool call, so it did not "
        f"run (you wrote: {words!r}); end your reasoning first, then make the call",
    )


def repair_text(failure: Failure, *, mode: str) -> str:
    """The user-message text that asks the model to resend, naming the error."""
    where = f" at byte {failure.offset}" if failure.offset is not None else ""
    if failure.kind == "truncated":
        return _truncated_text(failure, where, mode)
    hint = {
        "ctl": "Count length prefixes in bytes (UTF-8), or use a heredoc (arg key <<EOF).",
        "ctl-heredoc": "Use a heredoc (arg key <<EOF ... EOF) so no byte count is needed.",
        "xml": "Close every <parameter>, </invoke> and </minimax:tool_call> tag.",
    }.get(mode, "Send valid JSON arguments.")
    return (
        f"error contract ({failure.kind}){where}: {failure.message}. "
        f"Calls before the error ran; nothing after it was read. Resend the failed call. {hint}"
    )


def _truncated_text(failure: Failure, where: str, mode: str) -> str:
    names = dict(failure.names)
    by = f" by {failure.cause}" if failure.cause else ""
    head = f"error truncated: your response was cut off{where}{by}."
    if not (failure.ran or failure.held or failure.call_ids):
        return (
            f"{head} No call had begun (nothing ran). Go on from where you stopped, more briefly."
        )
    if failure.ran:
        one = len(failure.ran) == 1
        head += (
            f" {_listed(failure.ran, names)} {'was' if one else 'were'} complete and ran: "
            f"{'its result is' if one else 'their results are'} above."
        )
    elif mode not in EAGER_MODES:  # (an eager mode's cut calls each say it below)
        head += " None of its calls ran."
    lines = [head]
    if failure.held:
        one = len(failure.held) == 1
        if mode == "native-eos":
            why = "no call of a cut-off response runs"
        elif failure.wire_proves:
            why = (
                "the cut came before the API marked it complete, and only a call marked "
                "complete runs"
            )
        else:
            why = (
                "the cut came before anything confirmed it: on this API, the next call's "
                "arguments or a normal finish"
            )
        ids = [h.id for h in failure.held]
        lines.append(
            f"{_listed(ids, names)} {'was' if one else 'were'} complete but did not run "
            f"({why}). {_quoted(failure.held)}"
        )
    if failure.call_ids:
        one = len(failure.call_ids) == 1
        lines.append(
            f"{_listed(failure.call_ids, names)} {'was' if one else 'were'} cut off before "
            f"{'its' if one else 'their'} arguments were complete, so "
            f"{'it' if one else 'they'} did not run: resend {'it' if one else 'them'} "
            "complete (and anything after)."
        )
    lines.append("Keep arguments short enough to fit.")
    return "\n".join(lines)


def _listed(ids: Sequence[str], names: dict[str, str]) -> str:
    """``call_1 (read) and call_2 (shell)``: ids, with the tool when it is known."""
    labels = [f"{i} ({names[i]})" if names.get(i) else i for i in ids[:MAX_LISTED]]
    if len(ids) > MAX_LISTED:
        labels.append(f"{len(ids) - MAX_LISTED:,} more")
    if len(labels) < 3:
        return " and ".join(labels)
    return f"{', '.join(labels[:-1])} and {labels[-1]}"


def _quoted(held: tuple[HeldCall, ...]) -> str:
    """What to resend: each held call as ``name arguments``, one a line, up to
    :data:`QUOTE_CALL` / :data:`QUOTE_TOTAL` characters of arguments (a longer one is
    described: the model writes it again)."""
    lines: list[str] = []
    left = QUOTE_TOTAL
    whole = True
    for call in held[:MAX_LISTED]:
        size = len(call.arguments)
        if size <= min(QUOTE_CALL, left):
            lines.append(f"\n- {call.name} {call.arguments or '{}'}")
            left -= size
        else:
            whole = False
            lines.append(
                f"\n- {call.name} (its {size:,} characters of arguments are too long to "
                "quote here: write them again)"
            )
    if len(held) > MAX_LISTED:
        whole = False
        lines.append(f"\n- and {len(held) - MAX_LISTED:,} more, not quoted here: write them again")
    one = len(held) == 1
    if whole:
        lead = (
            f"Resend {'it' if one else 'them'} unchanged, as you wrote {'it' if one else 'them'}:"
        )
    else:
        lead = f"Resend {'it' if one else 'them'}, unchanged where quoted:"
    return lead + "".join(lines)
