"""Front ends: the headless printer and the Textual TUI, each holding one AgentSession."""
