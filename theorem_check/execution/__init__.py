"""Execution: worker processes with time limits, cost data, seed sweeps (local or Dask)."""
