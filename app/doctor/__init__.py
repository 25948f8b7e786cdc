"""``frontier doctor``: what would stop a session here, found before one starts."""
