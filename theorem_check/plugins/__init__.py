"""Plugins for other tools: pytest (``--tc-pack``)."""
