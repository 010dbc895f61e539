"""Claims of the cascade paper (being written)."""
