"""The engine: runs a claim (symbolic stage, numeric stage, mutants, fuzzing) and decides its verdict."""
