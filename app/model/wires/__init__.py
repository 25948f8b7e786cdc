"""One adapter per model API: the only code that knows an API's JSON (DESIGN §4a)."""
