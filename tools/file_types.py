"""``grep``'s ``type``: a language's files by name, as ripgrep's ``--type`` names them.

Claude Code's Grep takes ``type`` (``"py"``, ``"js"``, ``"rust"``) and the models trained
with it send one; it was an unknown argument, a repair round each time. The table holds
ripgrep's own globs for the common languages (``rg --type-list``), so a model gets what
ripgrep would have given, and both of grep's searchers filter the same way (ripgrep is
never handed the type: the walk decides which files it reads). A name not in the table
that could be a file extension (``vue``, ``tsx``) is read as one: ``*.vue``. Each glob is
matched against a file's name, never its folders, in linear time (``globmatch``).
"""

from __future__ import annotations

from frontier.tools.globmatch import Glob

TYPES: dict[str, tuple[str, ...]] = {
    "asm": ("*.S", "*.asm", "*.s"),
    "c": ("*.[chH]", "*.[chH].in", "*.cats"),
    "clojure": ("*.clj", "*.cljc", "*.cljs", "*.cljx"),
    "cmake": ("*.cmake", "CMakeLists.txt"),
    "config": ("*.cfg", "*.conf", "*.config", "*.ini"),
    "cpp": ("*.[ChH]", "*.[ch]pp", "*.[ch]xx", "*.cc", "*.hh", "*.inl", "*.[ChH].in"),
    "cs": ("*.cs",),
    "css": ("*.css", "*.scss"),
    "dart": ("*.dart",),
    "docker": ("*Dockerfile*",),
    "elixir": ("*.eex", "*.ex", "*.exs"),
    "erlang": ("*.erl", "*.hrl"),
    "fsharp": ("*.fs", "*.fsi", "*.fsx"),
    "go": ("*.go",),
    "h": ("*.h", "*.hpp"),
    "haskell": ("*.hs", "*.lhs", "*.hsc"),
    "html": ("*.ejs", "*.htm", "*.html"),
    "java": ("*.java", "*.jsp", "*.jspx", "*.properties"),
    "jl": ("*.jl",),
    "js": ("*.js", "*.jsx", "*.vue", "*.mjs", "*.cjs"),
    "json": ("*.json", "composer.lock"),
    "jsonl": ("*.jsonl",),
    "kotlin": ("*.kt", "*.kts"),
    "less": ("*.less",),
    "lua": ("*.lua",),
    "make": ("*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Mm]akefile", "[Mm]akefile.*"),
    "markdown": ("*.markdown", "*.md", "*.mdown", "*.mkdn", "*.mdx"),
    "nim": ("*.nim", "*.nimble", "*.nims"),
    "nix": ("*.nix",),
    "objc": ("*.h", "*.m"),
    "ocaml": ("*.ml", "*.mli", "*.mll", "*.mly"),
    "perl": ("*.PL", "*.perl", "*.pl", "*.plh", "*.plx", "*.pm", "*.t"),
    "php": ("*.php", "*.php3", "*.php4", "*.php5", "*.phtml"),
    "protobuf": ("*.proto",),
    "ps": ("*.cdxml", "*.ps1", "*.ps1xml", "*.psd1", "*.psm1"),
    "py": ("*.py", "*.pyi"),
    "r": ("*.R", "*.Rmd", "*.Rnw", "*.r"),
    "rst": ("*.rst",),
    "ruby": ("*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"),
    "rust": ("*.rs",),
    "sass": ("*.sass", "*.scss"),
    "scala": ("*.sbt", "*.scala"),
    "sh": ("*.bash", "*.csh", "*.ksh", "*.sh", "*.tcsh", "*.zsh", ".bashrc", ".profile"),
    "sql": ("*.psql", "*.sql"),
    "svelte": ("*.svelte",),
    "swift": ("*.swift",),
    "tex": ("*.bib", "*.cls", "*.dtx", "*.ins", "*.ltx", "*.sty", "*.tex"),
    "tf": ("*.tf", "*.tfvars"),
    "toml": ("*.toml", "Cargo.lock"),
    "ts": ("*.ts", "*.tsx", "*.mts", "*.cts"),
    "txt": ("*.txt",),
    "vim": ("*.vim",),
    "xml": ("*.dtd", "*.xhtml", "*.xml", "*.xsd", "*.xsl", "*.xslt"),
    "yaml": ("*.yaml", "*.yml"),
    "zig": ("*.zig",),
}
"""Each type's globs, as ripgrep's default types (a few files it misses added: ``.pyi``,
``.mjs``, ``.mts``, ``.mdx``)."""

OTHER_NAMES = {
    "python": "py",
    "javascript": "js",
    "jsx": "js",
    "typescript": "ts",
    "golang": "go",
    "rs": "rust",
    "rb": "ruby",
    "kt": "kotlin",
    "csharp": "cs",
    "c++": "cpp",
    "cxx": "cpp",
    "hpp": "cpp",
    "md": "markdown",
    "yml": "yaml",
    "bash": "sh",
    "shell": "sh",
    "zsh": "sh",
    "makefile": "make",
    "dockerfile": "docker",
    "terraform": "tf",
    "proto": "protobuf",
    "julia": "jl",
    "powershell": "ps",
    "latex": "tex",
}
"""Names models use for a type ripgrep calls otherwise."""


class UnknownType(ValueError):
    """A ``type`` that names no language and cannot be a file extension."""


def type_globs(name: str) -> tuple[str, ...]:
    """The globs of type ``name`` (any case); an unknown name that could be an extension
    (letters, digits, ``+``, ``_``, ``-``, at most 16) is ``*.name``."""
    key = name.strip().lower().lstrip(".")
    key = OTHER_NAMES.get(key, key)
    if key in TYPES:
        return TYPES[key]
    if 0 < len(key) <= 16 and all(c.isascii() and (c.isalnum() or c in "+_-") for c in key):
        return (f"*.{name.strip().lstrip('.')}",)
    raise UnknownType(
        f"unknown file type {name[:40]!r}: give a language (py, js, ts, go, rust, java, …) "
        "or a glob instead (glob: '*.ext')"
    )


class TypeFilter:
    """Whether a file is of a type, by its name (the last part of its path)."""

    def __init__(self, name: str) -> None:
        self.globs = tuple(Glob(g) for g in type_globs(name))

    def keeps(self, rel: str) -> bool:
        base = rel.rsplit("/", 1)[-1]
        return any(g.match(base) for g in self.globs)


__all__ = ["OTHER_NAMES", "TYPES", "TypeFilter", "UnknownType", "type_globs"]
