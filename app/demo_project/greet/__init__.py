"""greet: a tiny command-line greeter (the sample project of `frontier demo`)."""

__version__ = "0.1.0"
