"""The TUI's screens: main, review, session picker, welcome, help."""
