"""Drawing one block of a reply (``widgets/prose.py`` cuts them): Markdown or a code piece.

A streaming reply brings tens of blocks a second into view, each rendered once, so
what rich does per block is paid per block: a new ``MarkdownIt`` parser with its
rules compiled (about half of a short block's time), a pygments lexer looked up by
name and a syntax theme built. Here one parser, the lexers and the themes are made
once per process and shared (``docs/tui-speed.md``).

Block quotes are drawn muted — the bar dim, the words italic in the text colour —
instead of rich's ``markdown.block_quote`` (magenta, which the terminal themes draw
close to the error colour: a quote read as an error).
"""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments.lexer import Lexer  # type: ignore[import-untyped]
from pygments.lexers import get_lexer_by_name  # type: ignore[import-untyped]
from pygments.lexers.special import TextLexer  # type: ignore[import-untyped]
from pygments.util import ClassNotFound  # type: ignore[import-untyped]
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderableType, RenderResult
from rich.markdown import BlockQuote, Heading, Markdown, MarkdownContext, MarkdownElement
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax, SyntaxTheme

from frontier.widgets.prose import ProseBlock

QUOTE_TEXT = Style(italic=True)
QUOTE_BAR = Style(dim=True)

_PARSER = MarkdownIt().enable("strikethrough").enable("table")
"""rich's parser configuration, built once (rich builds one per ``Markdown``)."""


class _LeftHeading(Heading):
    """Headings flush left: a centred title reads oddly in a narrow pane."""

    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = dict.fromkeys(
        ("h1", "h2", "h3", "h4", "h5", "h6"), "left"
    )


class _Quote(BlockQuote):
    """A block quote drawn muted (see the module doc), not in rich's magenta."""

    def on_enter(self, context: MarkdownContext) -> None:
        self.style = context.enter_style(QUOTE_TEXT)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        render_options = options.update(width=options.max_width - 4)
        lines = console.render_lines(self.elements, render_options, style=self.style)
        bar = Segment("▌ ", QUOTE_BAR)
        new_line = Segment("\n")
        for line in lines:
            yield bar
            yield from line
            yield new_line


class ProseMarkdown(Markdown):
    """rich's ``Markdown`` on the shared parser, headings left, quotes muted."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": _LeftHeading,
        "blockquote_open": _Quote,
    }

    def __init__(self, markup: str, code_theme: str = "monokai") -> None:
        self.markup = markup
        self.parsed: list[Token] = _PARSER.parse(markup)
        self.code_theme = code_theme
        self.justify: JustifyMethod | None = None
        self.style = "none"
        self.hyperlinks = False
        self.inline_code_lexer = None
        self.inline_code_theme = code_theme


@lru_cache(maxsize=64)
def lexer(name: str) -> Lexer:
    """The pygments lexer for a fence's language (plain text when pygments has none)."""
    try:
        return get_lexer_by_name(name or "text")
    except ClassNotFound:
        return TextLexer()


@lru_cache(maxsize=16)
def syntax_theme(name: str) -> SyntaxTheme:
    return Syntax.get_theme(name)


def render_code(block: ProseBlock, code_theme: str) -> RenderableType:
    """A piece of a fenced code block, highlighted as its language says (the pieces of a
    long fence draw as one)."""
    code = block.text.rstrip("\n")
    return Syntax(
        code or " ",
        lexer(block.lang),
        theme=syntax_theme(code_theme),
        word_wrap=True,
        padding=(0, 1),
    )
