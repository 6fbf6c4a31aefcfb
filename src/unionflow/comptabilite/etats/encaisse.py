"""« Encaissé »: the one definition of the dues and adhesion fees collected over a period, read from the books
(docs/decisions.md, "un seul chiffre encaissé"). Every figure that says « encaissé » — the organisation's
dashboard (API and console), the federation's consolidation — is this function over its period.

Cotisations encaissées over [debut, fin] = the credits posted to the organisation's dues income accounts (the
accounts comptabilite/produits/comptes.py credits for periodic, exceptional and solidarity dues) by the entries dated in
the period, closing entries aside: the credit column of the trial balance for those accounts. Droits d'adhésion
encaissés: the same on the adhesion fees account. Hence:
- credit (avoir) applied on 2 January counts in January: its entry (debit 4191, credit 7061) is dated that day;
  the December receipt that created it counted in December only what it paid in December;
- a closed month's figure stays as it was closed: no entry is dated in a closed period (the payment's entry moves
  to the first open day, comptabilite/ecritures/service.py), so nothing is added to it afterwards;
- an undo (extourne, contrepassation) debits those accounts on its own date: it is not taken off what was
  collected (a closed period's figure stays, and a figure never goes below a shorter period's), it is shown
  beside it (``*_extournees``: the debits of the period); the income statement shows the net;
- sums of credits (never negative) over nested periods: today ≤ this month ≤ this year, by construction, and a
  period's figure is the sum of its days'.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.etats.repository import EtatsRepository
from unionflow.comptabilite.produits.comptes import compte_produit, produits_organisation, produits_organisations
from unionflow.models.recette import NatureRecette

ZERO = Decimal("0.00")
# The kinds of income a « cotisation » brings (produits.nature_cible): periodic, exceptional, solidarity dues.
NATURES_COTISATIONS = (NatureRecette.COTISATION, NatureRecette.COTISATION_EXCEPTIONNELLE, NatureRecette.SOLIDARITE)


@dataclass(frozen=True)
class Encaisse:
    cotisations: Decimal
    adhesions: Decimal
    cotisations_extournees: Decimal = ZERO


@dataclass(frozen=True)
class EncaisseADate:
    """Collected on ``jour``, from the 1st of its month, from the 1st of January: three nested periods."""

    jour: Encaisse
    mois: Encaisse
    annee: Encaisse


async def comptes_encaisse(session: AsyncSession, organisation_id: uuid.UUID) -> tuple[set[str], set[str]]:
    """(dues income accounts, adhesion fees accounts) of the organisation: its choices, else the defaults. An
    account chosen for both counts as dues (a credit is counted once)."""
    return _comptes(await produits_organisation(session, organisation_id))


def _comptes(choix: dict[str, str]) -> tuple[set[str], set[str]]:
    cotisations = {compte_produit(choix, nature) for nature in NATURES_COTISATIONS}
    return cotisations, {compte_produit(choix, NatureRecette.ADHESION)} - cotisations


async def encaisse(session: AsyncSession, organisation_id: uuid.UUID, debut: date, fin: date) -> Encaisse:
    """Dues and adhesion fees collected from ``debut`` to ``fin`` inclusive (the module's definition). The caller
    checked that the organisation's figures are the caller's to read."""
    return (await encaisse_organisations(session, [organisation_id], debut, fin))[organisation_id]


async def encaisse_organisations(session: AsyncSession, organisation_ids: list[uuid.UUID], debut: date, fin: date
                                 ) -> dict[uuid.UUID, Encaisse]:
    """``encaisse`` of several organisations (a federation's), each with its own accounts, in one grouped query."""
    comptes = {org: _comptes(choix) for org, choix in (await produits_organisations(session, organisation_ids)).items()}
    numeros = set().union(*(c | a for c, a in comptes.values())) if comptes else set()
    lus = await EtatsRepository(session).mouvements_produits_organisations(organisation_ids, numeros, debut, fin)

    def total(org: uuid.UUID, numeros: set[str], colonne: int) -> Decimal:
        siens = lus.get(org, {})
        return sum((siens[n][colonne] for n in numeros if n in siens), ZERO)

    return {org: Encaisse(cotisations=total(org, cotisations, 0), adhesions=total(org, adhesions, 0),
                          cotisations_extournees=total(org, cotisations, 1))
            for org, (cotisations, adhesions) in comptes.items()}


async def encaisse_a_date(session: AsyncSession, organisation_id: uuid.UUID, jour: date) -> EncaisseADate:
    """Today, this month and this year up to ``jour``: the same function over nested periods."""
    return EncaisseADate(
        jour=await encaisse(session, organisation_id, jour, jour),
        mois=await encaisse(session, organisation_id, jour.replace(day=1), jour),
        annee=await encaisse(session, organisation_id, date(jour.year, 1, 1), jour))
