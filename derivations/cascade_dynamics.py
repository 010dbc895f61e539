"""Training-dynamics claims of the cascade paper, checked by simulation (being written)."""
