"""Claims of the prh paper (being written)."""
