"""``python -m theorem_check`` runs the command line."""

from theorem_check.cli import main

main()
