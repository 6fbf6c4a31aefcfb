"""The register's seal: each line's hash is SHA-256(previous hash + the line's canonical content).

The canonical content is the line's fields as sorted-key JSON, with money as a fixed two-place decimal and dates as
UTC ISO text, so the same line gives the same bytes on SQLite and PostgreSQL. Changing any sealed field of any
line, removing a line or inserting one changes that line's hash or breaks the next line's link: ``verifier`` walks
the chain in order and reports the first line that does not hold.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from unionflow.models.don import LigneRegistreDon

GENESE = "0" * 64
# The sealed fields: every field the register shows, in a fixed set (id, hashes and created_at excluded).
CHAMPS = ("organisation_id", "numero", "date_don", "type_donateur", "donateur_nom", "donateur_telephone",
          "donateur_piece_identite", "donateur_rccm", "donateur_ninea", "membre_id", "montant", "devise", "forme",
          "description_nature", "base_evaluation", "affectation", "fonds_id", "paiement_id", "reference",
          "seuil_lcbft_atteint", "enregistre_par")


def _texte(valeur: Any) -> Any:
    if isinstance(valeur, Decimal):
        return f"{valeur.quantize(Decimal('0.01'))}"
    if isinstance(valeur, datetime):
        return valeur.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if valeur is None or isinstance(valeur, bool | int | str):
        return valeur
    return str(valeur)  # UUID


def contenu_canonique(ligne: LigneRegistreDon) -> str:
    return json.dumps({champ: _texte(getattr(ligne, champ)) for champ in CHAMPS}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"))


def empreinte(hash_precedent: str, ligne: LigneRegistreDon) -> str:
    return hashlib.sha256((hash_precedent + contenu_canonique(ligne)).encode()).hexdigest()


def sceller(ligne: LigneRegistreDon, hash_precedent: str) -> None:
    ligne.hash_precedent = hash_precedent
    ligne.hash = empreinte(hash_precedent, ligne)


@dataclass(frozen=True)
class VerificationScellement:
    intact: bool
    lignes: int
    premiere_ligne_rompue: int | None = None
    raison: str | None = None


def verifier(lignes: Iterable[LigneRegistreDon]) -> VerificationScellement:
    """Walks the lines in ``numero`` order: numbers 1, 2, 3… without gap, each linked to the previous hash, each
    hash recomputed from its content."""
    precedent, attendu, n = GENESE, 1, 0
    for ligne in lignes:
        n += 1
        if ligne.numero != attendu:
            return VerificationScellement(False, n, attendu, f"Ligne n° {attendu} absente (trouvé n° {ligne.numero})")
        if ligne.hash_precedent != precedent:
            return VerificationScellement(False, n, ligne.numero, "Le lien vers la ligne précédente est rompu")
        if empreinte(precedent, ligne) != ligne.hash:
            return VerificationScellement(False, n, ligne.numero,
                                          "Le contenu de la ligne a été modifié après scellement")
        precedent, attendu = ligne.hash, attendu + 1
    return VerificationScellement(True, n)
