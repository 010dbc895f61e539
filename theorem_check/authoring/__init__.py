"""Authoring claims: the registry, packs, the built-in catalogue entry points and the short forms."""
