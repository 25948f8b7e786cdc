"""The tool registry: one source of truth for prompts, schemas and docs.

The CTL/XML system prompt's tool list (``prompt_tool_list``), the native tool list
every wire encodes (``native_tools``) and ``docs/tools.md``
(``tools_markdown``) are all generated from the same ``ToolSpec`` values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from frontier.tools.arg_aliases import DROPPED, TOOLS, no_such_hint, stop_args, tool_named
from frontier.tools.base import Tool
from frontier.tools.contract import MCP_SEPARATOR, ToolSpec
from frontier.tools.patch_docs import PatchDialect, spec_dialect


class Registry:
    """Tools by name. Every change builds a new dict and assigns it (copy-on-write): an MCP
    server's refresh (issue 26) runs on another thread than the agent loop iterating
    :meth:`specs`, which then sees the old dict or the new one, never one changing size."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        if tool.spec.name in self._tools:
            raise ValueError(f"tool {tool.spec.name!r} is registered twice")
        self._tools = {**self._tools, tool.spec.name: tool}

    def extend(self, tools: Iterable[Tool]) -> list[str]:
        """Add tools from outside the code (MCP servers, issue 26); the names already taken
        are skipped and returned, so a server cannot shadow a built-in."""
        taken: list[str] = []
        new = dict(self._tools)
        for tool in tools:
            if tool.spec.name in new:
                taken.append(tool.spec.name)
            else:
                new[tool.spec.name] = tool
        self._tools = new
        return taken

    def replace_source(self, prefix: str, tools: Iterable[Tool]) -> list[str]:
        """Make ``tools`` the ``prefix__*`` tools (an MCP server's, refreshed): every
        ``prefix__`` tool not built in is dropped, the new ones take the first one's place
        (or go last); a name still taken (a built-in) is skipped and returned."""
        mark = prefix + MCP_SEPARATOR

        def owned(tool: Tool) -> bool:
            return tool.spec.name.startswith(mark) and tool.spec.source != "builtin"

        new: dict[str, Tool] = {}
        incoming = list(tools)
        placed = False
        for name, tool in self._tools.items():
            if owned(tool):
                if not placed:
                    new.update((t.spec.name, t) for t in incoming if t.spec.name not in new)
                    placed = True
                continue
            new[name] = tool
        taken = [t.spec.name for t in incoming if t.spec.name in new and new[t.spec.name] is not t]
        if not placed:
            new.update((t.spec.name, t) for t in incoming if t.spec.name not in new)
        self._tools = new
        return taken

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def named(self, name: str) -> str:
        """The registered name a model's call means (``Bash`` → ``shell``,
        ``functions.read`` → ``read``: ``tools/arg_aliases.py``), or ``name`` itself."""
        tools = self._tools
        if name in tools:
            return name
        builtin = [
            n for n, t in tools.items() if t.spec.source == "builtin" and not t.spec.internal
        ]
        return tool_named(name, tools, builtin)

    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        return [t.spec for t in self._tools.values()]

    def meant(
        self, name: str, args: Mapping[str, Any], root: str | None, *, settled: bool = True
    ) -> tuple[str, Mapping[str, Any]]:
        """The call a model's call means, as these tools take it: its tool's registered
        name (:meth:`named`); Claude Code's ``KillShell`` as a ``job`` stop; Cline's
        search/replace blocks as ``multi``'s edits; Anthropic's text editor's commands as
        ``read``, ``write`` or ``replace`` (``tools/text_editor_calls.py``); a ``shell``
        call that only runs ``apply_patch`` as the patch tool's, its paths from ``root``
        when it ran in a ``workdir`` or after a ``cd dir &&`` (``tools/patch_via_shell.py``);
        one that only writes a file with a here-document as ``write``'s
        (``tools/write_via_shell.py``; ``>>``: the patch appending its lines); a plain
        ``rm FILE…`` as the patch that deletes
        them (``tools/delete_via_shell.py``), a plain ``mv OLD NEW`` as the one that
        renames it and ``mv``/``cp`` onto a file as the one replacing its lines
        (``tools/move_via_shell.py``), a plain ``rm -r PATH…`` as ``remove``'s call
        (``tools/remove_tree.py``), a plain ``sed -i`` as the patch of what it
        changes (``tools/sed_via_shell.py``), ``git checkout -- PATH`` / ``git restore
        PATH`` as the patch putting the index's copies back
        (``tools/restore_via_shell.py``), a plain ``git apply`` as the patch of what git
        writes (``tools/git_apply_via_shell.py``). ``(name, args)`` unchanged otherwise.

        ``settled``: the files are as the call will find them (no earlier call of its
        response still to run that may change them: ``AgentLoop._settled``). Unsettled, a
        call whose patch would be made from a file's content now (``sed -i``, ``git
        checkout --``, ``git apply``, ``mv``/``cp`` onto a file) stays as it is: an
        earlier edit still to run would find its lines placed wrong, or undone; an append
        is ``append``'s call, its change read when it starts."""
        meant = self.named(name)
        if meant == "job" and (stopping := stop_args(name, args)) is not None:
            return meant, stopping
        if meant == "write" and args.get("mode") in ("overwrite", "append"):
            return self._kimi_write(args, root, settled=settled)
        if meant == name and name not in self._tools:
            from frontier.tools.search_replace_blocks import multi_args
            from frontier.tools.text_editor_calls import deletion, editor_call

            if "multi" in self._tools and (edits := multi_args(name, args)) is not None:
                return "multi", edits
            edit = editor_call(name, args) or deletion(name, args)
            if edit is not None and edit[0] in self._tools:
                return edit
        if meant == "shell" and "apply_patch" in self._tools:
            from frontier.tools.patch_via_shell import patch_and_folder, rebased

            found = patch_and_folder(args.get("command"))
            if found is not None and (patch := rebased(found[0], args, root, found[1])):
                return "apply_patch", {"patch": patch}
            from frontier.tools.delete_via_shell import deleted_in_command
            from frontier.tools.git_apply_via_shell import git_apply_patch
            from frontier.tools.move_via_shell import moved_in_command, replaced_in_command
            from frontier.tools.restore_via_shell import restore_patch
            from frontier.tools.sed_via_shell import sed_patch

            readers = [deleted_in_command, moved_in_command]
            if settled:  # made from the files' content now
                readers += [sed_patch, restore_patch, git_apply_patch, replaced_in_command]
            for read in readers:
                patch = read(args.get("command"), args, root)
                if patch is not None:
                    return "apply_patch", {"patch": patch}
        if meant == "shell" and "remove" in self._tools:
            from frontier.tools.delete_via_shell import removed_tree_in_command

            removed = removed_tree_in_command(args.get("command"), args, root)
            if removed is not None:  # what it takes is read when it starts
                return "remove", {"paths": removed}
        if meant == "shell" and "write" in self._tools:
            from frontier.tools.write_via_shell import write_in_command

            written = write_in_command(args.get("command"), args, root)
            if written is not None and written[1] == "" and _there(root, written[0]):
                from frontier.tools.write_via_shell import emptied_patch  # `> app.log`

                emptied = emptied_patch(root, written[0]) if settled else None
                return ("apply_patch", {"patch": emptied}) if emptied else (meant, args)
            if written is not None:
                return "write", {"path": written[0], "content": written[1]}
        if meant == "shell" and "apply_patch" in self._tools and "write" in self._tools:
            from frontier.tools.write_via_shell import append_call

            later = "append" in self._tools  # read when it starts, after the calls before
            if settled or later:
                command = args.get("command")
                appended = append_call(command, args, root, settled=settled, later=later)
                if appended is not None:
                    return appended
        return meant, args

    def _kimi_write(
        self, args: Mapping[str, Any], root: str | None, *, settled: bool
    ) -> tuple[str, Mapping[str, Any]]:
        """Kimi CLI's ``WriteFile {mode}``: ``overwrite`` is ``write``'s call (it was an
        unknown argument); ``append`` the patch adding the lines, or, the file missing, the
        ``write`` making it, when that can be known now (``settled``, whole lines); else
        ``append``'s call, read when it starts (both were argument errors, and the model,
        told to correct them, could write the file whole)."""
        rest = {k: v for k, v in args.items() if k != "mode"}
        if args.get("mode") == "overwrite":
            return "write", rest
        if settled and "apply_patch" in self._tools:
            from frontier.tools.write_via_shell import appending

            path, content = args.get("path", args.get("file_path")), args.get("content")
            if isinstance(path, str) and isinstance(content, str):
                appended = appending(root, path, content)
                if appended is not None:
                    return appended
        return ("append", rest) if "append" in self._tools else ("write", args)

    def unknown_hint(self, name: str, args: Mapping[str, Any]) -> str:
        """For a call :meth:`meant` left under a name no tool has: what to do instead,
        when another agent's tool is recognised (``""`` otherwise)."""
        from frontier.tools.search_replace_blocks import blocks_hint
        from frontier.tools.text_editor_calls import editor_hint

        own = [n for n in self._tools if name and n.endswith(MCP_SEPARATOR + name)]
        if own:  # an MCP server's tool called by its own name, without the server's
            return f"did you mean {' or '.join(own[:3])}?"
        return blocks_hint(name) or editor_hint(name, args) or no_such_hint(name)

    def offered(self) -> list[ToolSpec]:
        """The tools every request lists (``ToolSpec.offered``)."""
        return [t.spec for t in self._tools.values() if t.spec.offered]

    def native_tools(self) -> list[tuple[str, str, Mapping[str, Any]]]:
        """``(name, description, JSON-schema parameters)`` of every tool offered natively:
        what each wire encodes as its API's tool list (``app/model/wires/``)."""
        return [(s.name, s.description, _plain_schema(s.parameters)) for s in self.offered()]

    def prompt_tool_list(self) -> str:
        """Plain text describing every tool and parameter, for text-protocol system prompts."""
        blocks: list[str] = []
        for s in self.offered():
            props: Mapping[str, Any] = s.parameters.get("properties", {})
            required = set(s.parameters.get("required", []))
            lines = [f"{s.name}: {s.description}"]
            for name, prop in props.items():
                desc = _desc(prop)
                lines.append(f"  - {name} ({_type_text(prop, name in required)})")
                if desc:
                    lines[-1] += f": {desc}"
            blocks.append("\n".join(lines))
        return "\n\n".join(blocks)

    def tools_markdown(self) -> str:
        """The ``docs/tools.md`` table (regenerate with ``python -m frontier.tools.docgen``)."""
        rows = [
            "# Tools",
            "",
            "Generated from the tool registry (`frontier.tools.registry.default_registry`) by",
            "`python -m frontier.tools.docgen > docs/tools.md`; a test keeps it in sync.",
            "",
            "| tool | parameters | runs | policy class | timeout | description |",
            "|---|---|---|---|---|---|",
        ]
        for s in self.specs():
            props: Mapping[str, Any] = s.parameters.get("properties", {})
            required = set(s.parameters.get("required", []))
            params = "<br>".join(f"`{n}` {_type_text(p, n in required)}" for n, p in props.items())
            runs = "alone" if s.sequential else "parallel-safe"
            kind = s.kind + (" (mutates)" if s.mutates else "")
            desc = _summary(s.description).replace("|", "\\|")
            if not s.offered:
                desc += (
                    " *(Not in the tool list: run when a model calls it by its name or one below.)*"
                )
            rows.append(f"| `{s.name}` | {params} | {runs} | {kind} | {s.timeout:g}s | {desc} |")
        rows.append("")
        rows.append("## Parameter details")
        for s in self.specs():
            rows.append("")
            rows.append(f"### `{s.name}`")
            rows.append("")
            dialect = spec_dialect(s) if s.name == "apply_patch" else None
            if dialect is not None:
                rows.append(
                    f"The description teaches the {dialect} dialect; the `patch_format` setting "
                    "(`auto`, `unified`, `codex`) chooses which one per model, and both are "
                    "always accepted."
                )
                rows.append("")
            if s.description.strip() != _summary(s.description):
                rows += _fence(s.description.strip(), "text")
                rows.append("")
            called = [f"`{alias}`" for alias, name in TOOLS.items() if name == s.name]
            if called and s.source == "builtin":
                rows.append(
                    "Also called, as other agents name it (in any case, and with Harmony's "
                    f"`functions.` before it): {', '.join(called)}."
                )
                rows.append("")
            if s.aliases:
                rows.append("Also taken, as the names other agents taught models: " + _aliases(s))
                rows.append("")
            rows.append("```json")
            rows.append(json.dumps(_plain_schema(s.parameters), indent=2))
            rows.append("```")
        from frontier.tools.undo import internal_tools_markdown  # never offered to the model

        rows += internal_tools_markdown()
        return "\n".join(rows) + "\n"


def _summary(description: str) -> str:
    """A description's first paragraph on one line (what a table cell can hold)."""
    return " ".join(description.strip().split("\n\n", 1)[0].split())


def _aliases(spec: ToolSpec) -> str:
    """``file_path``, ``filePath`` for ``path``; … (``ToolSpec.aliases``, docs/tools.md)."""
    by_name: dict[str, list[str]] = {}
    for alias, name in spec.aliases.items():
        by_name.setdefault(name, []).append(f"`{alias}`")
    return (
        "; ".join(
            f"{', '.join(a)} for `{n}`" if n != DROPPED else f"{', '.join(a)} (taken, not used)"
            for n, a in by_name.items()
        )
        + "."
    )


def _fence(text: str, lang: str) -> list[str]:
    """``text`` in a code fence longer than any backtick run inside it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{lang}", text, fence]


def _type_text(prop: Mapping[str, Any], required: bool) -> str:
    kind = str(prop.get("type", "any"))
    if kind == "array" and "items" in prop:
        kind = f"array of {prop['items'].get('type', 'any')}"
    if required:
        return f"{kind}, required"
    if "default" in prop:
        return f"{kind}, default {json.dumps(prop['default'])}"
    return f"{kind}, optional"


def _desc(prop: Mapping[str, Any]) -> str:
    desc = str(prop.get("description", ""))
    items = prop.get("items")
    if isinstance(items, Mapping) and "properties" in items:
        inner = ", ".join(f"{k}: {v.get('type', 'any')}" for k, v in items["properties"].items())
        desc += f" (each item: {{{inner}}})"
    return desc


def _plain_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON-serialisable deep copy (specs may hold read-only mappings)."""
    return json.loads(json.dumps(schema))


def _there(root: str | None, path: str) -> bool:
    """Something is at ``path`` beneath ``root`` (a file a write of nothing would empty)."""
    import os

    from frontier.tools.paths import PathError, resolve

    if root is None:
        return False
    try:
        return os.path.lexists(resolve(root, path).real)
    except (OSError, PathError):
        return True  # outside, or unreadable: not a new file's to make


def default_registry(dialect: PatchDialect = "unified") -> Registry:
    """Every built-in tool, in the order prompts list them; ``apply_patch`` teaches
    ``dialect`` (``patch_docs.resolve_patch_format`` picks it from the settings)."""
    from frontier.tools.edit import (
        AppendTool,
        ApplyPatchTool,
        MultiTool,
        ReadTool,
        ReplaceTool,
        WriteTool,
    )
    from frontier.tools.finish import FinishTool
    from frontier.tools.jobs import JobTool
    from frontier.tools.plan import PlanTool
    from frontier.tools.process import PythonTool, ShellTool
    from frontier.tools.remove_tree import RemoveTool
    from frontier.tools.search import GlobTool, GrepTool
    from frontier.tools.think import ThinkTool

    return Registry(
        [
            ReadTool(),
            GrepTool(),
            GlobTool(),
            WriteTool(),
            AppendTool(),
            ReplaceTool(),
            MultiTool(),
            ApplyPatchTool(dialect),
            RemoveTool(),
            ShellTool(),
            PythonTool(),
            JobTool(),
            PlanTool(),
            FinishTool(),
            ThinkTool(),
        ]
    )
