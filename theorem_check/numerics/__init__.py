"""Numerics: precision contexts (float32, float64, mp50), structured samplers, derivative oracles.

The lowest layer above ``errors``: it knows arrays and arithmetic, not claims.
"""
