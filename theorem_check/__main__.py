"""``python -m theorem_check`` runs the command line."""

from .cli import main

main()
