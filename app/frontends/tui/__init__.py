"""The Textual front end: the App, its per-mode controllers (live, replay) and its screens."""
