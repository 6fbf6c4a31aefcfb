"""Income accounts per kind of income: the default chart, an organisation's choices, and
``compte_produit``, the one function every automatic entry asks which class-7 account a kind is credited to.

Defaults (SYCEBNL-like, the 706 "cotisations et produits de l'activité" family the chart already used for dues
and adhesion fees, docs/decisions.md "recettes par nature"): 7061 periodic dues, 7062 adhesion fees,
7063 exceptional contributions, 7064 solidarity contributions, 7066 event participations, 7581 donations.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.produits.repository import CompteProduitRepository
from unionflow.core import reference
from unionflow.models import Adhesion, Cotisation
from unionflow.models.cotisation import TypeCotisation
from unionflow.models.recette import NatureRecette

COMPTE_PRODUIT_DEFAUT: dict[NatureRecette, str] = {
    NatureRecette.COTISATION: "7061",
    NatureRecette.ADHESION: "7062",
    NatureRecette.COTISATION_EXCEPTIONNELLE: "7063",
    NatureRecette.SOLIDARITE: "7064",
    NatureRecette.EVENEMENT: "7066",
    NatureRecette.DON: "7581",
}
# The same kinds numbered as the SYCEBNL chart of accounts numbers its revenues (Partie 2 ch. 2; second hand,
# docs/conformite.md S4): 701 « Cotisations des adhérents », 704 « Revenus liés à la générosité » (7041 dons),
# 706 « Revenus des manifestations »; the four-digit sub-accounts complete the chart « en respectant l'arborescence »
# as its section 1 allows. An organisation created through the API or the console starts with these as its chosen
# income accounts (comptabilite/produits/service.py); 7060, not 7061, because 7061 is « Cotisations » in the former
# default chart (docs/decisions.md, « The SYCEBNL numbering for new organisations »).
COMPTE_PRODUIT_SYCEBNL: dict[NatureRecette, str] = {
    NatureRecette.COTISATION: "7011",
    NatureRecette.ADHESION: "7012",
    NatureRecette.COTISATION_EXCEPTIONNELLE: "7013",
    NatureRecette.SOLIDARITE: "7014",
    NatureRecette.EVENEMENT: "7060",
    NatureRecette.DON: "7041",
}
# What the entry's credit line says, per kind.
LIBELLE_NATURE: dict[NatureRecette, str] = {
    NatureRecette.COTISATION: "Cotisations",
    NatureRecette.ADHESION: "Droits d'adhésion",
    NatureRecette.COTISATION_EXCEPTIONNELLE: "Cotisations exceptionnelles",
    NatureRecette.SOLIDARITE: "Cotisations de solidarité",
    NatureRecette.EVENEMENT: "Participations aux événements",
    NatureRecette.DON: "Dons",
}
# Earmarked funds (SYCEBNL Guide d'application, application 4, docs/conformite.md S9): a gift given for a purpose is
# not income when received — it is credited to the fund account, and each use moves as much to the income account of
# released funds. Fixed numbers, the ones the Guide writes; the SYCEBNL statements map them (sycebnl/rubriques.py).
COMPTE_FONDS_AFFECTES = "165"
COMPTE_REPRISE_FONDS_AFFECTES = "7925"
_PAR_TYPE = {TypeCotisation.EXCEPTIONNELLE: NatureRecette.COTISATION_EXCEPTIONNELLE,
             TypeCotisation.SOLIDARITE: NatureRecette.SOLIDARITE}


def nature_cible(cible: Cotisation | Adhesion) -> NatureRecette:
    """The kind of income a dues or an adhesion fee brings: periodic dues are COTISATION."""
    if isinstance(cible, Adhesion):
        return NatureRecette.ADHESION
    return _PAR_TYPE.get(cible.type_cotisation, NatureRecette.COTISATION)  # type: ignore[call-overload]


def compte_produit(choix: Mapping[str, str] | object, nature: str) -> str:
    """The income account number of ``nature``: the organisation's choice, else the default. ``choix`` is the
    mapping kind → number (``produits_organisation``) or anything carrying it as ``.produits`` (the payment's
    ``ComptesPaiement``)."""
    mapping: Mapping[str, str] = choix if isinstance(choix, Mapping) else getattr(choix, "produits", {})
    return mapping.get(nature) or COMPTE_PRODUIT_DEFAUT[NatureRecette(nature)]


async def produits_organisation(session: AsyncSession, organisation_id: uuid.UUID) -> dict[str, str]:
    """The organisation's choices, from the worker's cache (``compte_produit`` is reference data: a change bumps
    the version, core/reference.py, so every worker drops what it kept)."""
    async def load() -> dict[str, str]:
        return await CompteProduitRepository(session).choix(organisation_id)

    return await reference.lire(session, ("produits", organisation_id), load)


async def produits_organisations(session: AsyncSession, organisation_ids: list[uuid.UUID]
                                 ) -> dict[uuid.UUID, dict[str, str]]:
    """``produits_organisation`` of several organisations (a federation's): one organisation from the cache, more
    in one query. A cache lookup per organisation would read each on a miss, and always on a session without the
    reference version (a replica's): 1,000 queries for a national federation."""
    if len(organisation_ids) == 1:
        return {organisation_ids[0]: await produits_organisation(session, organisation_ids[0])}
    return await CompteProduitRepository(session).choix_organisations(organisation_ids)
