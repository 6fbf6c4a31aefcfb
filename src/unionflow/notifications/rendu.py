"""Template rendering: ``str.format_map`` over plain names only, so ``{x.__class__}`` or ``{x[0]}`` can never
reach an object's attributes; unknown or missing names are refused, never rendered as text."""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from datetime import UTC, datetime

from unionflow.core.errors import RegleMetier
from unionflow.models import Membre

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")
# Values the server fills for every recipient.
SYSTEME = frozenset({"prenom", "nom", "nomComplet", "numeroMembre", "organisation", "date"})


def placeholders(text: str) -> set[str]:
    names: set[str] = set()
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise RegleMetier(f"Modèle invalide ({exc}); écrire {{{{ et }}}} pour des accolades littérales") from exc
    for _literal, field, spec, conversion in parsed:
        if field is None:
            continue
        if not _NAME.match(field) or spec or conversion:
            raise RegleMetier(f"Variable non autorisée: {{{field}}} (un nom simple, sans format ni accès)")
        names.add(field)
    return names


def check_variables(variables: Mapping[str, str]) -> None:
    for key in variables:
        if not _NAME.match(key):
            raise RegleMetier(f"Nom de variable invalide: {key}")
        if key in SYSTEME:
            raise RegleMetier(f"La variable {key} est fournie par le serveur")


def valeurs_membre(membre: Membre, organisation: str) -> dict[str, str]:
    return {"prenom": membre.prenom, "nom": membre.nom, "nomComplet": f"{membre.prenom} {membre.nom}",
            "numeroMembre": membre.numero_membre, "organisation": organisation,
            "date": datetime.now(UTC).date().strftime("%d/%m/%Y")}


def render(text: str, values: Mapping[str, str]) -> str:
    missing = placeholders(text) - values.keys()
    if missing:
        raise RegleMetier("Variable(s) sans valeur: " + ", ".join(sorted(missing)))
    return text.format_map(dict(values))
