"""What a declaration of a processing of personal data is (the register of processings, Loi 2008-12: the CDP
declaration). Each area that processes personal data declares its own in its ``traitements.py``; registres.py
collects them and plugs them into donnees_personnelles/ports.py, as it hands the scheduler the areas' jobs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DeclarationTraitement:
    """One processing: its purpose and what the CDP declaration asks (docs/conformite.md D4, D5, D9, D11).
    ``tables`` ties it to the code: the tables holding its data (a test fails on a table with personal columns
    that no declaration names)."""

    code: str
    nom: str
    finalite: str
    base_legale: str
    categories_donnees: tuple[str, ...]
    personnes_concernees: tuple[str, ...]
    destinataires: tuple[str, ...]
    duree_conservation: str
    transferts_hors_senegal: str
    tables: tuple[str, ...]
    # Sensitive data processed (Loi 2008-12: trade-union membership, health...); empty if none.
    donnees_sensibles: tuple[str, ...] = ()
    zone: str = ""
    # Loi 2008-12 (opposition): whether a member may object to it (an OPPOSITION request, donnees_membre/), and what
    # his opposition changes. False for what the law, the contract or the membership itself requires (the books,
    # the register of members, receipts, the audit trail...): docs/decisions.md.
    opposable: bool = False
    effet_opposition: str = ""
