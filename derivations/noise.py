"""Claims of the noise paper (being written)."""
