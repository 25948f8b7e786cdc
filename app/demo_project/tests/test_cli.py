import io
import unittest
from contextlib import redirect_stdout

from greet.cli import main


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


class GreetTest(unittest.TestCase):
    def test_greets_by_name(self) -> None:
        self.assertEqual(run("Ada"), (0, "Hello, Ada!\n"))
