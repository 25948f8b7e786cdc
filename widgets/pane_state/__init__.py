"""One state model per pane, built from core events without Textual (``widgets/state.py``
composes them into ``UiState`` and its dispatch table; docs/tui-tool-output.md)."""
