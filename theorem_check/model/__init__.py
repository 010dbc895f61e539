"""The claim model: claims, statements, dimension spaces, check reports, derivations, verdicts.

Plain data and the decision rule; it evaluates nothing (that is :mod:`theorem_check.engine`).
"""
