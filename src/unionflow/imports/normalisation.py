"""What people type in a members file, brought to what the API stores: E.164 phones from local numbers
(core/telephone.py, the rule the member API applies too),
French dates, "F"/"H" for gender, roles separated by commas. Each line is then checked like a member record."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from pydantic import ValidationError, field_validator

from unionflow.core.telephone import normaliser
from unionflow.membres.schemas import _MembreFields

GENRES = {"M": "MASCULIN", "H": "MASCULIN", "HOMME": "MASCULIN", "MASCULIN": "MASCULIN", "F": "FEMININ",
          "FEMME": "FEMININ", "FEMININ": "FEMININ", "FÉMININ": "FEMININ"}
LIBELLES = {"prenom": "prénom", "nom": "nom", "email": "e-mail", "telephone": "téléphone", "genre": "genre",
            "date_naissance": "date de naissance", "profession": "profession", "adresse": "adresse",
            "ville": "ville", "pays": "pays"}
FR_DATE = re.compile(r"^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$")


class LigneMembre(_MembreFields):
    prenom: str | None = None
    nom: str | None = None

    @field_validator("prenom", "nom")
    @classmethod
    def _longueur(cls, value: str | None) -> str | None:
        if value is not None and len(value) > 100:
            raise ValueError("100 caractères au plus")
        return value


def preparer(ligne: dict[str, str], pays: str) -> dict[str, Any]:
    data: dict[str, Any] = {k: v for k, v in ligne.items() if k not in ("numero_membre", "roles")}
    if "email" in data:
        data["email"] = data["email"].lower()
    if "telephone" in data:
        data["telephone"] = normaliser(data["telephone"], pays)
    if "genre" in data:
        data["genre"] = GENRES.get(data["genre"].upper(), data["genre"])
    if "pays" in data:
        data["pays"] = data["pays"].upper()
    if "date_naissance" in data and (m := FR_DATE.match(data["date_naissance"])):
        try:
            data["date_naissance"] = date(int(m[3]), int(m[2]), int(m[1])).isoformat()
        except ValueError:
            data["date_naissance"] = "invalide"
    return data


def motifs(exc: ValidationError) -> list[str]:
    """Per field, a reason in French a secretary can act on."""
    raisons = []
    for err in exc.errors():
        champ = str(err["loc"][0]) if err.get("loc") else ""
        nom = LIBELLES.get(champ, champ)
        kind = err.get("type", "")
        if champ == "email":
            raison = "adresse e-mail invalide"
        elif champ == "telephone" and kind == "regle_metier":
            raison = str(err["msg"])  # the country's rule and what was received (core/telephone.py)
        elif champ == "telephone":
            raison = "numéro invalide (format international, ex. +221771234567)"
        elif champ == "genre":
            raison = "M/Masculin ou F/Féminin attendu"
        elif champ == "date_naissance":
            raison = "date invalide (JJ/MM/AAAA, passée, après 1900)"
        elif champ == "pays":
            raison = "code pays à deux lettres attendu (SN, CI, ML...)"
        elif kind == "string_too_long" or "100 caractères" in str(err.get("msg")):
            raison = "trop long"
        elif kind == "extra_forbidden":
            continue
        else:
            raison = "valeur invalide"
        raisons.append(f"{nom}: {raison}")
    return raisons
