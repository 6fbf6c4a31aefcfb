"""The period a dues covers, from its type, year and month: what generation compares with each membership's dates,
and the rule that a periodic type names its period (a MENSUELLE dues without a month is refused)."""

from __future__ import annotations

import calendar
from datetime import date
from typing import Any

from unionflow.models.cotisation import TypeCotisation

T = TypeCotisation
# Months a period may start on: calendar quarters and halves, as a treasurer's books count them.
DEBUTS = {T.TRIMESTRIELLE: (1, 4, 7, 10), T.SEMESTRIELLE: (1, 7)}
DUREE_MOIS = {T.MENSUELLE: 1, T.TRIMESTRIELLE: 3, T.SEMESTRIELLE: 6, T.ANNUELLE: 12}
REGLE = ("`mois` est obligatoire pour MENSUELLE (1 à 12), TRIMESTRIELLE (premier mois du trimestre: 1, 4, 7 ou "
         "10) et SEMESTRIELLE (1 ou 7); interdit pour ANNUELLE (l'année entière); facultatif pour EXCEPTIONNELLE "
         "et SOLIDARITE (le mois, sinon l'année). Sinon 400 `regle-metier` avec la raison.")


def schema_periode(schema: dict[str, Any]) -> None:
    """The same rule in the request's JSON Schema (``if``/``then`` on ``typeCotisation``), so that clients and
    fuzzers see it: a model's ``json_schema_extra``."""
    def cas(type_cotisation: TypeCotisation, mois: dict[str, Any], requis: bool = True) -> dict[str, Any]:
        return {"if": {"properties": {"typeCotisation": {"const": type_cotisation.value}},
                       "required": ["typeCotisation"]},
                "then": {"properties": {"mois": mois}, **({"required": ["mois"]} if requis else {})}}

    schema.setdefault("allOf", []).extend([
        cas(T.MENSUELLE, {"type": "integer", "minimum": 1, "maximum": 12}),
        *(cas(t, {"enum": list(debuts)}) for t, debuts in DEBUTS.items()),
        cas(T.ANNUELLE, {"type": "null"}, requis=False),
    ])


def erreur_periode(type_cotisation: TypeCotisation, mois: int | None) -> str | None:
    """Why (type, mois) does not name a period, in French; None when it does."""
    if type_cotisation == T.MENSUELLE and mois is None:
        return "Une cotisation mensuelle doit préciser son mois (mois de 1 à 12)"
    if type_cotisation in DEBUTS and mois not in DEBUTS[type_cotisation]:
        permis = ", ".join(str(m) for m in DEBUTS[type_cotisation])
        nom, periode = (("trimestrielle", "trimestre") if type_cotisation == T.TRIMESTRIELLE
                        else ("semestrielle", "semestre"))
        if mois is None:
            return f"Une cotisation {nom} doit préciser le premier mois de son {periode} (mois parmi {permis})"
        return f"Le mois {mois} ne commence pas un {periode} (mois parmi {permis})"
    if type_cotisation == T.ANNUELLE and mois is not None:
        return "Une cotisation annuelle porte sur l'année entière: ne précisez pas de mois"
    return None


def bornes(type_cotisation: TypeCotisation, annee: int, mois: int | None) -> tuple[date, date]:
    """First and last day of the period; a month without a periodic type (EXCEPTIONNELLE, SOLIDARITE) is that
    month, no month the whole year."""
    if mois is None:
        return date(annee, 1, 1), date(annee, 12, 31)
    fin_mois = mois + DUREE_MOIS.get(type_cotisation, 1) - 1
    return date(annee, mois, 1), date(annee, fin_mois, calendar.monthrange(annee, fin_mois)[1])
