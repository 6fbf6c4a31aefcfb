"""What donnees_personnelles receives from the areas above it (core/ports.py): the declarations of processings
each area makes in its ``traitements.py``, collected and plugged by registres.py (the register of processings)."""

from __future__ import annotations

from collections.abc import Sequence

from unionflow.core.traitements import DeclarationTraitement


class Declarations:
    """The slot of the register: the areas' declarations once registres.py plugged them in."""

    def __init__(self) -> None:
        self._traitements: tuple[DeclarationTraitement, ...] | None = None

    def brancher(self, traitements: Sequence[DeclarationTraitement]) -> None:
        self._traitements = tuple(traitements)

    def __call__(self) -> tuple[DeclarationTraitement, ...]:
        if self._traitements is None:
            raise RuntimeError("Registre des traitements non branché: registres.py le branche à l'assemblage")
        return self._traitements


TRAITEMENTS = Declarations()
