"""The search key of a record: its searched texts without accents nor case, kept in a ``recherche`` column.

Searching "Élodie", "élodie", "ELODIE" or "Elodie" must find the same members on SQLite and PostgreSQL alike,
without a PostgreSQL extension (``unaccent``, ``pg_trgm``) a server may lack. So the key is computed in Python
(one function, :func:`cle_recherche`, also applied to what is searched: core/query.py ``contient``) and stored
by the mapper events below on every ORM insert and update, and by the member import for its bulk Core inserts
(``cle_de``). It lives beside the models because the models maintain it and they are the lowest
layer (core and the areas import it from here).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from sqlalchemy import Text, event
from sqlalchemy.orm import Mapper, mapped_column

from unionflow.models.base import Base

# Ligatures NFKD keeps whole (French: "cœur", "Lætitia"), typed "oe"/"ae" by most people.
_LIGATURES = str.maketrans({"œ": "oe", "Œ": "oe", "æ": "ae", "Æ": "ae"})


def cle_recherche(*textes: str | None) -> str:
    """The texts joined by spaces, decomposed (NFKD), combining marks removed, casefolded: "Élodie Sèye" →
    "elodie seye"."""
    texte = " ".join(t for t in textes if t).translate(_LIGATURES)
    return "".join(c for c in unicodedata.normalize("NFKD", texte) if not unicodedata.combining(c)).casefold()


def colonne_recherche(*champs: str) -> Any:
    """The ``recherche`` column of a model, the key of ``champs`` (column names, in this order)."""
    return mapped_column(Text, server_default="", info={"recherche": champs})


def cle_de(model: type[Any], valeurs: dict[str, Any]) -> str:
    """The key of a row given as a dict, for a Core insert (which no mapper event sees: the member import)."""
    return cle_recherche(*(valeurs.get(c) for c in model.__table__.c.recherche.info["recherche"]))


@event.listens_for(Base, "before_insert", propagate=True)
@event.listens_for(Base, "before_update", propagate=True)
def _recalculer(mapper: Mapper[Any], connection: Any, target: Any) -> None:
    """Keeps the key of every record the ORM writes. Not a column default: a default would also fire on Core
    inserts built from the current models into an older schema (tests/test_migrations.py does)."""
    colonne = mapper.columns.get("recherche")
    if colonne is not None and "recherche" in colonne.info:
        target.recherche = cle_recherche(*(getattr(target, c) for c in colonne.info["recherche"]))
