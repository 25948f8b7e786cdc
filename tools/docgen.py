"""Print ``docs/tools.md`` from the registry.

Usage: ``python -m frontier.tools.docgen > docs/tools.md``.
"""

from __future__ import annotations

import sys

from frontier.tools.registry import default_registry


def main() -> int:
    sys.stdout.write(default_registry().tools_markdown())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
