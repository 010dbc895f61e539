"""``python -m theorem_check`` runs the command line."""

from theorem_check.launch import main

main()
