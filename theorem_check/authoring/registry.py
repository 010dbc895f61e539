"""The claim registry: validated at registration, looked up by id, alias or paper.

Built-in papers live in catalogue packages found through entry points (this project's ``derivations``,
one subpackage per paper listed in its ``PAPERS``; :mod:`theorem_check.authoring.catalogues`); user packs are Python files loaded with :func:`load_pack`.  Both call
:func:`register` — the built-in papers use no private shortcut.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import traceback
from pathlib import Path
from typing import Iterable

from theorem_check.errors import ClaimDefinitionError, PackError, UnknownClaim
from theorem_check.model.claims import Claim, problem_listing
from theorem_check.validation import did_you_mean, shorten

__all__ = ["Registry", "REGISTRY", "register", "load_builtin", "load_pack", "resolve"]


class Registry:
    """An ordered mapping ``id -> Claim`` that refuses malformed or duplicate claims."""

    def __init__(self) -> None:
        self._id2claim: dict[str, Claim] = {}
        self._deferred: list[str] | None = None   # while a pack loads: the problems of its claims, listed at the end

    def register(self, claim: Claim) -> Claim:
        """Validate ``claim`` and add it; returns it (usable as a decorator on a factory's result).

        Raises ClaimDefinitionError naming the claim if it is malformed or its id is taken.
        """
        if not isinstance(claim, Claim):
            raise ClaimDefinitionError(f"register() takes a Claim, got {type(claim).__name__}")
        problems = claim.problems()
        if isinstance(claim.id, str) and claim.id in self._id2claim:
            problems.append(f"claim id {claim.id!r} is registered twice")
        if problems:
            if self._deferred is not None:   # loading a pack: list every claim's problems at the end
                self._deferred.extend(problems)
                return claim
            raise ClaimDefinitionError(problem_listing(problems))
        self._id2claim[claim.id] = claim
        return claim

    def unregister(self, cid: str) -> None:
        """Drop the claim with id ``cid`` if registered (the pytest plugin drops its packs' claims at exit)."""
        self._id2claim.pop(cid, None)

    def unregister_paper(self, paper: str) -> None:
        """Drop every claim of ``paper`` (used when a pack is reloaded)."""
        for cid in [c for c in self._id2claim if c.split(".", 1)[0] == paper]:
            del self._id2claim[cid]

    def order_papers(self, papers: Iterable[str]) -> None:
        """Put the claims of ``papers`` first, in that order (each paper's claims keep their
        registration order); other claims follow as registered.  The built-in catalogue's order
        then does not depend on which module someone imported first (a test, a pack)."""
        rank = {p: k for k, p in enumerate(papers)}
        items = sorted(self._id2claim.items(), key=lambda kv: rank.get(kv[1].paper, len(rank)))  # stable
        self._id2claim = dict(items)

    def __iter__(self):
        return iter(self._id2claim.values())

    def __len__(self) -> int:
        return len(self._id2claim)

    def __contains__(self, cid: str) -> bool:
        return cid in self._id2claim

    def get(self, cid: str) -> Claim:
        """The claim with id ``cid``; UnknownClaim otherwise."""
        try:
            return self._id2claim[cid]
        except KeyError:
            raise UnknownClaim(f"claim id={shorten(cid)!r} is not registered{self._suggest(cid)} "
                               "(see `theorem-check list`)") from None

    def papers(self) -> list[str]:
        """Paper keys in registration order."""
        return list(dict.fromkeys(c.paper for c in self))

    def by_paper(self, paper: str) -> list[Claim]:
        """Every claim of ``paper``; UnknownClaim if there is none."""
        out = [c for c in self if c.paper == paper]
        if not out:
            hint = did_you_mean(paper, self.papers()) if isinstance(paper, str) else ""
            raise UnknownClaim(f"paper={shorten(paper)!r} has no claims{hint} (known: {', '.join(self.papers())})")
        return out

    def resolve(self, name: str) -> list[Claim]:
        """Claims matching a full id, an id without its paper prefix, or an alias.

        A bare label that several papers share (``eq31``) matches every one of them.
        """
        if name in self._id2claim:
            return [self._id2claim[name]]
        hits = [c for c in self if name == c.label or name in c.aliases]
        if not hits:
            raise UnknownClaim(f"claim id={shorten(name)!r} matches no claim id or alias{self._suggest(name)} "
                               "(see `theorem-check list`)")
        return hits

    def _suggest(self, name) -> str:
        """' (did you mean ...?)' over ids, labels and aliases (case-insensitive), or ''."""
        names = [n for c in self for n in (c.id, c.label, *c.aliases)]
        return did_you_mean(name, names) if isinstance(name, str) else ""


REGISTRY = Registry()
"""The process-wide registry."""


def register(claim: Claim) -> Claim:
    """Register ``claim`` in the global registry (see :meth:`Registry.register`)."""
    return REGISTRY.register(claim)


_loaded_builtin = False


def load_builtin() -> Registry:
    """Import the installed catalogues' paper modules once; returns the registry.

    The catalogues are found through the ``theorem_check.catalogues`` entry points
    (:mod:`theorem_check.authoring.catalogues`; this project declares ``derivations``), each package's
    ``PAPERS`` imported in order.
    """
    global _loaded_builtin
    if not _loaded_builtin:
        _loaded_builtin = True
        from theorem_check.authoring.catalogues import catalogue_modules

        order: list[str] = []
        for package, papers in catalogue_modules():
            for name in papers:
                importlib.import_module(f"{package}.{name}")
            order += papers
        REGISTRY.order_papers(order)   # catalogue order, whatever was imported before
    return REGISTRY


def load_pack(path: str | Path) -> list[Claim]:
    """Import a user claim pack (a ``.py`` file calling :func:`register`); returns its new claims.  While it imports,
    the pack's folder is appended to ``sys.path`` (after the standard library and the installed packages), so a pack
    may import a module of its own beside it.

    Raises PackError with a one-line reason if the file is missing, fails to import or registers
    no claim, and one ClaimDefinitionError listing every problem of every malformed claim in it
    (registration goes on through the whole file first; none of its claims stays registered).
    """
    path = Path(path)
    try:
        is_file = path.is_file()
    except OSError as exc:  # a name too long for the file system, ...
        raise PackError(f"pack={shorten(str(path))!r} must be an existing .py file ({exc.strerror})") from None
    if not is_file:
        raise PackError(f"pack={shorten(str(path))!r} must be an existing .py file")
    before = set(c.id for c in REGISTRY)
    folder = str(path.resolve().parent)    # a pack imports modules beside it while it loads (last on the path: a
    added = folder not in sys.path         # `string.py` there never shadows the standard library's, helper-69)
    if added:
        sys.path.append(folder)
    mod_name = f"_theorem_check_pack_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise PackError(f"pack={str(path)!r} must be a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    outer, REGISTRY._deferred = REGISTRY._deferred, []
    try:
        spec.loader.exec_module(module)
    except ClaimDefinitionError:
        raise
    except Exception as exc:  # any error in user code becomes one line
        tb = traceback.extract_tb(exc.__traceback__)
        line = next((f" (line {f.lineno})" for f in reversed(tb) if f.filename == str(path)), "")
        raise PackError(f"pack={str(path)!r} failed to import{line}: {type(exc).__name__}: {exc}") from None
    finally:
        deferred, REGISTRY._deferred = REGISTRY._deferred, outer
        if added and folder in sys.path:
            sys.path.remove(folder)
    new = [c for c in REGISTRY if c.id not in before]
    if deferred:   # every malformed claim of the pack in one error; the pack loads as a whole or not at all
        for c in new:
            REGISTRY.unregister(c.id)
        raise ClaimDefinitionError(f"pack={str(path)!r}: " + problem_listing(deferred))
    if not new:
        raise PackError(f"pack={str(path)!r} registers no claims (a pack calls tc.register(tc.Claim(...)); "
                        "see docs/writing-claims.md)")
    return new


def resolve(names: Iterable[str]) -> list[Claim]:
    """Claims for several names, in order, without duplicates."""
    out: dict[str, Claim] = {}
    for n in names:
        for c in REGISTRY.resolve(n):
            out.setdefault(c.id, c)
    return list(out.values())
