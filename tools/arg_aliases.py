"""Other names models send for the built-in tools' parameters (``ToolSpec.aliases``).

A model reaches for the names of the tools it was trained with: Claude Code's
``file_path``, ``old_string`` and ``run_in_background``, opencode's ``filePath``, pi's
``oldText``, Anthropic's text editor's ``old_str`` and ``file_text``, Codex's
``apply_patch`` ``input``. Each was an argument error and a repair round, and some
models loop on it (GLM with ``filePath``, Kimi K2 with ``path``/``file_path``; others'
issue trackers). Taken as the parameter they mean only where the meaning is the same:
Claude Code's ``timeout`` is in milliseconds, so no alias maps it (``tools/schema.py``
reads one as milliseconds only where it cannot be seconds).

The tools' own names likewise (:data:`TOOLS`, :func:`tool_named`): Qwen3 calls ``bash``
where Qwen Code offers ``run_shell_command``, a model on LM Studio ``Glob``, and GPT-5.x
``functions.read`` (the Harmony recipient it was trained on); each was ``unknown tool``
and a repair round, every time.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (``frontier apply-patch`` starts)
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping
    from typing import Any

DROPPED = ""
"""An argument taken and not used (:func:`tools.schema.coerce_args` leaves it out): one
that changes nothing here, or asks for less than the tool gives anyway. Claude Code's
Bash and Gemini CLI's run_shell_command send a ``description`` of the command with
every call, and refusing it made every call from those models an argument error; each
other use says why beside it."""
PATH = {
    **dict.fromkeys(("file_path", "filePath", "filepath"), "path"),
    "absolute_path": "path",  # Gemini CLI's and Qwen Code's read_file
    "target_file": "path",  # Cursor's read_file
}
EXPLANATION = {"explanation": DROPPED}
"""Cursor's tools take a one-sentence ``explanation`` of why each call is made, and the
models trained with them send it with every call: taken and not used (the model's words
about its call; the review shows the call), as ``shell``'s ``description``."""
FOLDER = dict.fromkeys(("dir_path", "directory"), "path")
"""Codex's list_dir, Gemini CLI's list_directory and glob: a folder's ``path``."""
READ = {
    **PATH,
    **FOLDER,
    **EXPLANATION,
    "should_read_entire_file": DROPPED,  # Cursor's: the window read shows says how much
    "start_line_one_indexed": "offset",  # Cursor's, without an end: from there on
    "start_line": "offset",
    "line_offset": "offset",  # Kimi CLI's ReadFile
    "n_lines": "limit",
    # Claude Code's LS and Gemini CLI's list_directory: what to leave out of a listing;
    # the listing here leaves out what .gitignore does, and shows the rest
    **dict.fromkeys(("ignore", "respect_git_ignore"), DROPPED),
    # Codex's read_file (mode "slice" or "indentation": the lines asked for either way)
    # and list_dir (depth: the listing here counts what each subfolder holds)
    **dict.fromkeys(("mode", "indentation", "depth"), DROPPED),
}
REPLACE = {
    **PATH,
    **EXPLANATION,
    "replace_all": "all",  # Claude Code's Edit
    # Gemini CLI's replace: how many it expects; one is what replace does, and more than
    # one is an ambiguity error here, never a wider write
    "expected_replacements": DROPPED,
    **dict.fromkeys(("old_string", "oldString", "old_str", "oldText", "old_text"), "old"),
    **dict.fromkeys(("new_string", "newString", "new_str", "newText", "new_text"), "new"),
}
MULTI = {
    **{alias: name for alias, name in REPLACE.items() if name != "all"},
    "replace_all": DROPPED,
}
"""``multi``'s edits replace exactly one occurrence each: Claude Code's MultiEdit's
``replace_all`` is taken and not used (an ``old`` found more than once is an error, as
without it: never a wrong write)."""
WRITE = {**PATH, **EXPLANATION, "contents": "content", "file_text": "content"}
PATCH = {"input": "patch", "patchText": "patch", "patch_text": "patch", **EXPLANATION}
"""Codex's ``input``; opencode's ``patchText`` (its ``apply_patch`` for GPT models)."""
GREP = {
    **EXPLANATION,
    **dict.fromkeys(("-i", "case_insensitive", "caseInsensitive"), "ignore_case"),
    "-n": DROPPED,  # Claude Code's Grep: line numbers, which every matching line has here
    **dict.fromkeys(("-C", "-A", "-B", "context_lines"), "context"),  # its context lines
    "head_limit": DROPPED,  # its cap on lines shown: here the tool's own cap applies
    "limit": DROPPED,  # Codex's grep_files: the same
    "include": "glob",  # Gemini CLI's search_file_content, Codex's grep_files
    "regex": "pattern",  # Cline's search_files
    "file_pattern": "glob",
    "file_type": "type",
    **FOLDER,
}
GLOB = {**FOLDER, **EXPLANATION, "include_dirs": DROPPED}  # Kimi CLI's: files are listed
SHELL = {
    **EXPLANATION,
    "cmd": "command",
    **dict.fromkeys(("cwd", "dir", "directory"), "workdir"),  # Gemini CLI's directory
    # Codex's shell: asking to run outside the sandbox is the review's to offer, never
    # the model's to take; its justification is words, as a description is
    **dict.fromkeys(("with_escalated_permissions", "justification"), DROPPED),
    "run_in_background": "background",
    "is_background": "background",  # Cursor's run_terminal_cmd
    "description": DROPPED,
}

JOB = {
    **dict.fromkeys(("bash_id", "shell_id"), "id"),  # Claude Code's BashOutput, KillShell
    "filter": DROPPED,  # BashOutput's line filter: the read shows every line, a superset
}
PLAN = {
    "todos": "steps",  # Claude Code's TodoWrite, opencode's todowrite
    "plan": "steps",  # Codex's update_plan
    "content": "step",  # a todo's text
    "title": "step",  # Kimi CLI's SetTodoList
    **dict.fromkeys(("activeForm", "priority", "id"), DROPPED),  # TodoWrite's, opencode's
}
FINISH = {
    **dict.fromkeys(("result", "summary", "text"), "message"),  # Cline's attempt_completion
    # OpenHands' finish says whether it was done; Cline's a command to show the result,
    # never run on the model's word
    **dict.fromkeys(("task_completed", "command", "outputs"), DROPPED),
}

EVERY = {**READ, **REPLACE, **WRITE, **PATCH, **SHELL, **GREP}
"""Every alias → its parameter, for a front end summing up a call as the model sent it."""


TOOLS = {
    **dict.fromkeys(
        (
            "bash",  # Claude Code, opencode, Crush; what Qwen3 and GLM call
            "run_shell_command",  # Gemini CLI, Qwen Code
            "shell_command",  # Codex
            "exec_command",  # Codex
            "execute_command",  # Cline, Roo
            "run_terminal_cmd",  # Cursor
            "execute_bash",  # OpenHands
        ),
        "shell",
    ),
    **dict.fromkeys(
        ("read_file", "view", "ls", "list", "list_dir", "list_directory", "list_files"), "read"
    ),
    "view_image": "read",  # Codex's: read names the image and how the person attaches it
    **dict.fromkeys(("write_file", "write_to_file", "create_file"), "write"),
    **dict.fromkeys(("edit", "str_replace", "search_replace", "replace_string_in_file"), "replace"),
    **dict.fromkeys(("multiedit", "multi_edit"), "multi"),
    **dict.fromkeys(("search_file_content", "grep_search", "grep_files", "search_files"), "grep"),
    **dict.fromkeys(("update_plan", "todowrite", "todo_write", "todo", "set_todo_list"), "plan"),
    **dict.fromkeys(("bashoutput", "bash_output"), "job"),  # Claude Code's, for a job's output
    **dict.fromkeys(("killshell", "killbash", "kill_shell", "kill_bash"), "job"),  # its stop
    **dict.fromkeys(("attempt_completion", "task_complete", "finish_task"), "finish"),
    "submit": "finish",  # SWE-agent's: the task is done
    "execute_ipython_cell": "python",  # OpenHands' (its code runs as a script here)
}
"""Other agents' names of the built-in tools → the tool, where it takes the same arguments
(under :data:`EVERY`'s names): Claude Code's (``Bash``, ``Read``, ``LS``, ``Edit``,
``MultiEdit``; :func:`tool_named` ignores case), Codex's, Gemini CLI's, Cline's. Not
Cursor's ``edit_file`` (a sketch of the edit, not old and new text): a name whose
arguments differ stays unknown. Cline's ``replace_in_file`` (search/replace blocks) is
read by ``tools/search_replace_blocks.py``."""
_NO_WEB = "there is no web access here: work from the workspace, or ask the person"
NO_SUCH = {
    **dict.fromkeys(("webfetch", "fetch", "fetchurl", "web_fetch", "browser"), _NO_WEB),
    **dict.fromkeys(("websearch", "web_search", "google_web_search", "searchweb"), _NO_WEB),
    "task": "there are no subagents here: do the task yourself, with the tools",
    "read_many_files": "call read once per file (several calls in one reply run together)",
    "save_memory": "there is no memory tool here: say what to keep in your reply",
    # Cursor's: a sketch of the edit that its own model applies; written whole it could
    # replace a file by one function, so it is never read as ``write``
    "edit_file": "edit with replace (old text, new text) or multi; write only a whole file",
}
"""Other agents' tools with no counterpart here, and what to do instead: said in the
``unknown tool`` error (``Registry.unknown_hint``), so the model stops asking for one.
Keyed as names are compared (case, ``_`` and ``-`` aside)."""
HARMONY = "functions."
"""The recipient prefix of gpt-oss's Harmony format (``to=functions.read``), which GPT-5.x
models send as part of the name through Chat Completions."""


def tool_named(name: str, tools: Collection[str], builtin: Collection[str]) -> str:
    """The tool ``name`` means among ``tools`` (the registered names): itself when one is
    called so, else the same name without Harmony's prefix or its markup tail
    (``read<|channel|>commentary``, as Ollama sent it), else the built-in tool
    (among ``builtin``) it names in another agent's words, in other case or without its
    underscores; ``name``
    unchanged when none is (an ``unknown tool`` result lists the tools)."""
    if name in tools:
        return name
    bare = name.removeprefix(HARMONY).partition("<|")[0].strip()
    if bare in tools:
        return bare
    folded = name_key(bare)
    for tool in builtin:
        if name_key(tool) == folded:
            return tool
    meant = _TOOLS_KEYED.get(folded)
    return meant if meant is not None and meant in builtin else name


def name_key(name: str) -> str:
    """``name`` as tool names are compared, here and wherever another agent's tool is
    recognised: case, ``_``, ``-`` and Harmony's ``functions.`` aside (Kimi CLI's
    ``ReadFile``, a model's ``Read-File`` are ``read_file``)."""
    return name.removeprefix(HARMONY).casefold().replace("_", "").replace("-", "")


_TOOLS_KEYED = {name_key(alias): tool for alias, tool in TOOLS.items()}
_NO_SUCH_KEYED = {name_key(name): hint for name, hint in NO_SUCH.items()}


def no_such_hint(name: str) -> str:
    """What to do instead of calling another agent's tool that has no counterpart here
    (:data:`NO_SUCH`), or ``""``."""
    return _NO_SUCH_KEYED.get(name_key(name), "")


def stop_args(name: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """``job``'s arguments for Claude Code's ``KillShell {shell_id}`` (a call that stops a
    background shell, read as ``job`` by :data:`TOOLS`): ``{id, stop: true}``; else
    ``None``."""
    if name_key(name) not in _STOPPING:
        return None
    if set(args) <= {"shell_id", "bash_id", "id"}:
        ident = next((args[k] for k in ("shell_id", "bash_id", "id") if k in args), None)
        if isinstance(ident, str):
            return {"id": ident, "stop": True}
    return None


_STOPPING = ("killshell", "killbash")


def named(args: Mapping[str, Any]) -> Mapping[str, Any]:
    """``args`` under the parameters' own names (a front end's one-line summary of a call
    the model sent with ``cmd`` shows its command as it would ``command``'s); ``args``
    itself when no alias is in it; an alias beside its own name, or one the tool leaves
    out (:data:`DROPPED`), stays as sent (this serves every tool's summary, an MCP
    server's too, whose ``mode`` or ``limit`` may mean something)."""
    if not any(key in EVERY for key in args):
        return args
    out: dict[str, Any] = {}
    for key, value in args.items():
        name = EVERY.get(key, key) or key
        out[name if name not in args else key] = value
    return out
