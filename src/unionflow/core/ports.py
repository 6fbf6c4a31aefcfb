"""Ports: a read an area needs from an area above it in the layers, which it may not import.

The lower area declares what it needs as a ``Protocol`` and a ``Port`` slot (its ``ports.py``); the area above
implements it (a repository of its own); the registries (registres.py, where the application is assembled) plug
the one into the other, as they hand the scheduler the jobs of the areas it may not import. The money tables are
read this way by the areas below paiements (docs/architecture.md, "Money is queried by paiements/ alone"). The same
inversion carries the one act a lower area must trigger above it: the creation of an organisation asks comptabilite
to open its income accounts (organisations/ports.py), in the same transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

T = TypeVar("T")


class Port(Generic[T]):
    """The slot of one port: ``port(session)`` gives the implementation the registries plugged in."""

    def __init__(self, nom: str) -> None:
        self.nom = nom
        self._fabrique: Callable[[AsyncSession], T] | None = None

    def brancher(self, fabrique: Callable[[AsyncSession], T]) -> None:
        self._fabrique = fabrique

    def __call__(self, session: AsyncSession) -> T:
        if self._fabrique is None:
            raise RuntimeError(f"Port {self.nom} non branché: registres.py le branche à l'assemblage de l'application")
        return self._fabrique(session)
