"""What people type in a members file, brought to what the API stores: E.164 phones from local numbers,
French dates, "F"/"H" for gender, roles separated by commas. Each line is then checked like a member record."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from pydantic import ValidationError, field_validator

from unionflow.membres.schemas import _MembreFields

# Calling codes of the countries the union works in (UEMOA and neighbours); others must be typed with "+".
INDICATIFS = {"SN": "221", "CI": "225", "ML": "223", "BF": "226", "NE": "227", "TG": "228", "BJ": "229",
              "GW": "245", "GN": "224", "MR": "222", "GM": "220", "CM": "237"}
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


def telephone(brut: str, pays: str) -> str:
    chiffres = re.sub(r"[\s.\-()/]", "", brut)
    if chiffres.startswith("00"):
        return "+" + chiffres[2:]
    if chiffres.startswith("+"):
        return chiffres
    indicatif = INDICATIFS.get(pays)
    if indicatif and chiffres.isdigit():
        return "+" + (chiffres if chiffres.startswith(indicatif) and len(chiffres) > 9 else indicatif + chiffres)
    return chiffres


def preparer(ligne: dict[str, str], pays: str) -> dict[str, Any]:
    data: dict[str, Any] = {k: v for k, v in ligne.items() if k not in ("numero_membre", "roles")}
    if "email" in data:
        data["email"] = data["email"].lower()
    if "telephone" in data:
        data["telephone"] = telephone(data["telephone"], pays)
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
