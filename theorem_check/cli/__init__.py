"""The command line: one module per command over shared options (``theorem-check --help``)."""

from theorem_check.cli.main import EPILOG, check_environment, cli, color_option, main, use_colour

__all__ = ["main", "cli", "color_option", "use_colour", "check_environment", "EPILOG"]
