"""The truncation repair text (issue 20 audit, items 1 and 2), as a pure function.

The loopback tests (``tests/test_wires_loopback.py``) check the text a live session
sends on every wire; these check its rules and bounds: it names what ran, what was
held back and why (by mode and by what the wire proves), quotes the held calls within
a size bound, and never claims that no call ran when one did.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from frontier.app.agent.repair import (
    MAX_LISTED,
    QUOTE_CALL,
    QUOTE_TOTAL,
    repair_text,
    truncation,
)


def told(
    mode: str,
    *,
    cut: Sequence[tuple[str, str, bool]] = (),
    held: dict[str, str] | None = None,
    started: Sequence[tuple[str, str]] = (),
    confirmed: Sequence[tuple[str, str]] = (),
    finish: str = "length",
    proves: bool = False,
) -> str:
    failure = truncation(
        "cut",
        100,
        mode=mode,
        finish_reason=finish,
        cut=cut,
        held_arguments=held or {},
        open_calls=started,
        confirmed=confirmed,
        wire_proves=proves,
    )
    return repair_text(failure, mode=mode)


def test_native_inc_says_what_ran_and_what_was_held_by_the_wire() -> None:
    cut = [("call_2", "shell", True)]
    held = {"call_2": '{"command": "ls"}'}
    ran = [("call_1", "read")]
    for proves, why in ((True, "before the API marked it complete"), (False, "next call's")):
        text = told("native-inc", cut=cut, held=held, confirmed=ran, proves=proves)
        assert text.startswith("error truncated: your response was cut off at byte 100 by ")
        assert "call_1 (read) was complete and ran: its result is above." in text
        assert "call_2 (shell) was complete but did not run (" in text and why in text
        assert '\n- shell {"command": "ls"}\n' in text
        assert "none of its calls ran" not in text.lower()


def test_native_eos_runs_nothing_and_quotes_every_complete_call() -> None:
    cut = [("a", "read", True), ("b", "read", True), ("c", "write", False)]
    held = {"a": '{"path": "x"}', "b": '{"path": "y"}'}
    text = told("native-eos", cut=cut, held=held)
    assert "None of its calls ran." in text
    assert "a (read) and b (read) were complete but did not run (no call of a cut-off" in text
    quoted = (
        'Resend them unchanged, as you wrote them:\n- read {"path": "x"}\n- read {"path": "y"}\n'
    )
    assert quoted in text
    assert "c (write) was cut off before its arguments were complete" in text


def test_a_text_protocol_cut_names_the_call_that_ran_and_the_cut_one() -> None:
    text = told("ctl", started=[("c2", "write")], confirmed=[("c1", "read")], finish="disconnect")
    assert "by a dropped connection. c1 (read) was complete and ran" in text
    assert "c2 (write) was cut off before its arguments were complete" in text
    assert told("ctl").endswith(
        "No call had begun (nothing ran). Go on from where you stopped, more briefly."
    )


def test_long_arguments_are_described_not_quoted_and_the_text_stays_bounded() -> None:
    big = json.dumps({"content": "x" * (QUOTE_CALL + 10)})
    cut = [("w", "write", True), ("r", "read", True)]
    text = told("native-eos", cut=cut, held={"w": big, "r": '{"path": "a"}'})
    assert big not in text and "too long to quote here: write them again" in text
    assert "Resend them, unchanged where quoted:" in text and '- read {"path": "a"}' in text
    many = [(f"id{i}", "read", True) for i in range(100_000)]
    held = {f"id{i}": json.dumps({"path": "p" * 500}) for i in range(100_000)}
    text = told("native-eos", cut=[*many, ("last", "read", False)], held=held)
    assert len(text) < QUOTE_TOTAL + 6_000
    assert f"{100_000 - MAX_LISTED:,} more" in text
