"""Categories of resources and of cash movements, by account: what a franc that came in or went out was for.

Resources (the eligibility test and the receipts): dues and adhesion fees (the accounts the organisation credits
them to), donations (its donation account), subsidies (SYSCOHADA 71 « subventions d'exploitation », 14
« subventions d'investissement »), everything else. Payments: activity expenses (class 6), investments (class 2),
and, when money goes back out through a resource account (a refund), that resource's category."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Categorie(StrEnum):
    COTISATIONS = "COTISATIONS"
    DONS = "DONS"
    SUBVENTIONS = "SUBVENTIONS"
    CHARGES = "CHARGES"
    INVESTISSEMENTS = "INVESTISSEMENTS"
    AUTRES = "AUTRES"


LIBELLES = {
    Categorie.COTISATIONS: "Cotisations et droits d'adhésion",
    Categorie.DONS: "Dons et libéralités",
    Categorie.SUBVENTIONS: "Subventions",
    Categorie.CHARGES: "Charges des activités",
    Categorie.INVESTISSEMENTS: "Investissements",
    Categorie.AUTRES: "Autres",
}
# The four categories of resources the eligibility test weighs (the brief of the SMT: dues, donations, subsidies,
# other).
RESSOURCES = (Categorie.COTISATIONS, Categorie.DONS, Categorie.SUBVENTIONS, Categorie.AUTRES)
PREFIXES_SUBVENTIONS = ("71", "14")


@dataclass(frozen=True)
class ComptesRessources:
    """The organisation's own dues/adhesion and donation income accounts (its choices, else the defaults)."""

    cotisations: frozenset[str]
    dons: frozenset[str]

    def categorie(self, numero: str, classe: int) -> Categorie:
        if numero in self.cotisations:
            return Categorie.COTISATIONS
        if numero in self.dons:
            return Categorie.DONS
        if numero.startswith(PREFIXES_SUBVENTIONS):
            return Categorie.SUBVENTIONS
        if classe == 6:
            return Categorie.CHARGES
        if classe == 2:
            return Categorie.INVESTISSEMENTS
        return Categorie.AUTRES
