"""How apply_patch is taught, and how patches and their results are summarised.

The engine reads two dialects, detected from the text: a unified diff and
OpenAI Codex's ``*** Begin Patch`` envelope. A model writes best the one it was
trained on, so the tool schema and the system prompt teach one of them, chosen
by the ``patch_format`` setting (``auto`` picks by model name, see
``resolve_patch_format``). Everything that teaches it — the ``apply_patch``
``ToolSpec`` (native ``tools[]``, the text-protocol tool list, docs/tools.md)
and the system prompt's paragraph on editing — is generated here, so there is
one source.

How a patch call and its result are summarised for the panes lives beside it,
in ``patch_summary``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import get_args

from frontier.tools.arg_aliases import PATCH
from frontier.tools.contract import ToolSpec
from frontier.tools.patch_model import PATCH_FORMATS, Dialect

PatchDialect = Dialect
DIALECTS: tuple[PatchDialect, ...] = get_args(PatchDialect)

# ----------------------------------------------------------------------------- which dialect

_GPT = re.compile(r"gpt-(\d+)(?:\.(\d+))?")
_O_SERIES = re.compile(r"o[1-9](?:$|[-_.:])")
_CODEX = re.compile(r"(?:^|[-_.:])codex(?:$|[-_.:])")


def codex_model(model: str | None) -> bool:
    """Whether ``model`` belongs to a family trained on the Codex envelope.

    Matched case-insensitively on the last path segment (``openai/gpt-oss-20b`` →
    ``gpt-oss-20b``; a fine-tune's ``ft:`` prefix is ignored):

    - ``gpt-oss…`` (trained with the harmony ``apply_patch`` tool);
    - ``gpt-4.1`` and every later GPT (``gpt-4.1-mini``, ``gpt-4.5``, ``gpt-5``,
      ``gpt-5.1-codex``): the envelope was introduced with GPT-4.1, whose prompting
      guide says it was trained extensively on it. Earlier ones (``gpt-3.5``,
      ``gpt-4``, ``gpt-4-turbo``, ``gpt-4o``) predate it and stay on unified diffs;
    - the o-series (``o1``, ``o3-mini``, ``o4-mini``): OpenAI's Codex CLI teaches
      them the envelope;
    - a ``codex`` name token (``codex-mini-latest``, ``gpt-5-codex``).
    """
    if not model:
        return False
    name = model.strip().rsplit("/", 1)[-1].lower().removeprefix("ft:")
    if name.startswith("gpt-oss") or _O_SERIES.match(name) or _CODEX.search(name):
        return True
    m = _GPT.match(name)
    if m is None:
        return False
    major, minor = int(m[1]), int(m[2] or 0)
    return (major, minor) >= (4, 1)


def resolve_patch_format(setting: str, model: str | None) -> PatchDialect:
    """The dialect to teach: ``setting`` when explicit, else the one ``model`` knows best."""
    if setting == "unified":
        return "unified"
    if setting == "codex":
        return "codex"
    if setting == "auto":
        return "codex" if codex_model(model) else "unified"
    raise ValueError(f"unknown patch_format {setting!r}; choose one of {', '.join(PATCH_FORMATS)}")


# ----------------------------------------------------------------------------- what is taught

_EXAMPLES: dict[PatchDialect, str] = {
    "unified": (
        "--- a/greet/cli.py\n"
        "+++ b/greet/cli.py\n"
        "@@ -5,3 +5,4 @@ def main():\n"
        "     parser = argparse.ArgumentParser()\n"
        '     parser.add_argument("name")\n'
        '+    parser.add_argument("--shout", action="store_true")\n'
        "     args = parser.parse_args()\n"
    ),
    "codex": (
        "*** Begin Patch\n"
        "*** Update File: greet/cli.py\n"
        "@@ def main():\n"
        "     parser = argparse.ArgumentParser()\n"
        '     parser.add_argument("name")\n'
        '+    parser.add_argument("--shout", action="store_true")\n'
        "     args = parser.parse_args()\n"
        "*** Add File: NOTES.md\n"
        "+# Notes\n"
        "*** End Patch\n"
    ),
}
"""Both add a ``--shout`` flag to the same file (the tests apply them with the engine)."""

_DESCRIPTIONS: dict[PatchDialect, str] = {
    "unified": (
        "Apply a multi-file patch, all or nothing: every hunk of every file is located "
        "first, and either every file is written or none is.\n"
        "\n"
        "Write a unified diff (git diff or diff -u style): per file a '--- a/PATH' and a "
        "'+++ b/PATH' line, then hunks, each an '@@ -a,b +c,d @@' line followed by ' ' "
        "context, '-' removed and '+' added lines. Create a file with '--- /dev/null', "
        "delete one with '+++ /dev/null'. The @@ line numbers are only hints: hunks are "
        "located by their content, so copy the context and removed lines exactly as the "
        "file has them (read it first) and keep about 3 lines of context around each "
        "change. The Codex '*** Begin Patch' envelope is accepted too.\n"
        "\n"
        "Example:\n"
    ),
    "codex": (
        "Apply a multi-file patch, all or nothing: every change is located first, and "
        "either every file is written or none is.\n"
        "\n"
        "Write the patch in the Codex envelope, one section per file:\n"
        "*** Begin Patch\n"
        "*** Add File: PATH  (then the new file's lines, each starting with '+')\n"
        "*** Delete File: PATH\n"
        "*** Update File: PATH  (then, to rename it, '*** Move to: NEW_PATH'; then chunks)\n"
        "@@ LINE  (starts a chunk; LINE is optional: a line just above the change, such as "
        "a def or class line, to say where)\n"
        "(then the chunk's lines, each starting with ' ' context, '-' removed or '+' added; "
        "'*** End of File' after a chunk that must match at the end of the file)\n"
        "*** End Patch\n"
        "Paths are relative to the workspace. Chunks are located by their content, so "
        "copy the context and removed lines exactly as the file has them (read it first) "
        "and keep about 3 lines of context around each change. A unified diff "
        "('--- a/PATH', '+++ b/PATH', '@@' hunks) is accepted too.\n"
        "\n"
        "Example:\n"
    ),
}

_PATCH_PARAM: dict[PatchDialect, str] = {
    "unified": "the unified diff text (a Codex *** Begin Patch envelope is accepted too)",
    "codex": "the patch, from '*** Begin Patch' to '*** End Patch' (a unified diff is "
    "accepted too)",
}

_PROMPTS: dict[PatchDialect, str] = {
    "unified": (
        "# Editing files\n"
        "To change existing files, prefer one apply_patch call with a unified diff that "
        "covers every file (write creates or replaces a whole file). Read a file before "
        "patching it and copy its lines exactly: hunks are found by their content, the @@ "
        "line numbers are only hints. A patch applies completely or not at all; when it "
        "fails, the result names the file and the hunk: re-read that file and send the "
        "whole corrected patch again.\n"
    ),
    "codex": (
        "# Editing files\n"
        "To change files, prefer one apply_patch call with a '*** Begin Patch' … "
        "'*** End Patch' envelope that covers every file (Add File, Update File with "
        "@@ chunks, Delete File, Move to for a rename). Read a file before patching it "
        "and copy its lines exactly: chunks are found by their content. A patch applies "
        "completely or not at all; when it fails, the result names the file and the "
        "chunk: re-read that file and send the whole corrected patch again.\n"
    ),
}


def _check(dialect: str) -> PatchDialect:
    if dialect not in DIALECTS:
        raise ValueError(f"unknown patch dialect {dialect!r}; choose one of {', '.join(DIALECTS)}")
    return dialect  # type: ignore[return-value]


def patch_example(dialect: PatchDialect) -> str:
    """The tiny example patch taught for ``dialect``."""
    return _EXAMPLES[_check(dialect)]


def patch_prompt(dialect: PatchDialect) -> str:
    """The system prompt's paragraph on editing files (text protocols)."""
    return _PROMPTS[_check(dialect)]


def apply_patch_spec(dialect: PatchDialect) -> ToolSpec:
    """The ``apply_patch`` declaration, its description teaching ``dialect``."""
    dialect = _check(dialect)
    return ToolSpec(
        name="apply_patch",
        description=_DESCRIPTIONS[dialect] + _EXAMPLES[dialect].rstrip("\n"),
        parameters={
            "type": "object",
            "properties": {
                "patch": {"type": "string", "description": _PATCH_PARAM[dialect]},
            },
            "required": ["patch"],
        },
        sequential=True,
        mutates=True,
        kind="edit",
        timeout=60.0,
        aliases=PATCH,
    )


def spec_dialect(spec: ToolSpec) -> PatchDialect | None:
    """The dialect an ``apply_patch`` spec teaches (``None``: not one made here)."""
    for dialect in DIALECTS:
        if spec == apply_patch_spec(dialect):
            return dialect
    return None


def taught_dialect(specs: Iterable[ToolSpec]) -> PatchDialect | None:
    """The dialect the registry's ``apply_patch`` teaches, if it has one of ours."""
    for spec in specs:
        if spec.name == "apply_patch":
            return spec_dialect(spec)
    return None
