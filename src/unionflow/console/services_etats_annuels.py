"""The year's statements of the console's « Fin d'exercice » section: SYCEBNL (bilan, compte de résultat, cash-flow
table, notes) and the minimal cash system (eligibility, receipts and payments, cash position, treasury journals).

Each one is what ``GET /api/comptabilite/etats/sycebnl/…`` or ``…/etats/smt/…`` answers with ``format=pdf|xlsx``:
the same service computes it and the same table builder renders it, so a treasurer without the API gets the same
file, signature blocks and warnings included."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.smt import tableaux as smt_tableaux
from unionflow.comptabilite.smt.service import SmtService
from unionflow.comptabilite.sycebnl import tableaux as sycebnl_tableaux
from unionflow.comptabilite.sycebnl.notes import NotesService
from unionflow.comptabilite.sycebnl.service import SycebnlService
from unionflow.core import tableaux
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound

Calcul = Callable[[AsyncSession, AuthContext, uuid.UUID, int], Awaitable[Any]]


async def _notes(session: AsyncSession, auth: AuthContext, org: uuid.UUID, annee: int) -> Any:
    return await NotesService(session, auth).notes(org, annee)


async def _journaux(session: AsyncSession, auth: AuthContext, org: uuid.UUID, annee: int) -> Any:
    return await SmtService(session, auth).journaux(org, annee, None)


# key → (label, computation, table builder); the key names the file as the API names it.
ETATS_ANNUELS: dict[str, tuple[str, Calcul, Callable[[Any], tableaux.Tableau]]] = {
    "sycebnl-bilan": ("Bilan SYCEBNL (N et N−1)",
                      lambda s, a, org, annee: SycebnlService(s, a).bilan(org, annee), sycebnl_tableaux.bilan),
    "sycebnl-compte-de-resultat": ("Compte de résultat SYCEBNL (N et N−1)",
                                   lambda s, a, org, annee: SycebnlService(s, a).compte_resultat(org, annee),
                                   sycebnl_tableaux.compte_resultat),
    "sycebnl-flux-de-tresorerie": ("Tableau des flux de trésorerie SYCEBNL (méthode directe)",
                                   lambda s, a, org, annee: SycebnlService(s, a).flux_tresorerie(org, annee),
                                   sycebnl_tableaux.flux_tresorerie),
    "sycebnl-notes": ("Notes annexes SYCEBNL", _notes, sycebnl_tableaux.notes),
    "smt-eligibilite": ("Éligibilité au système minimal de trésorerie",
                        lambda s, a, org, annee: SmtService(s, a).eligibilite(org, annee), smt_tableaux.eligibilite),
    "smt-recettes-depenses": ("SMT : état des recettes et des dépenses",
                              lambda s, a, org, annee: SmtService(s, a).recettes_depenses(org, annee),
                              smt_tableaux.recettes_depenses),
    "smt-situation-tresorerie": ("SMT : situation de trésorerie",
                                 lambda s, a, org, annee: SmtService(s, a).tresorerie(org, annee),
                                 smt_tableaux.tresorerie),
    "smt-journal-tresorerie": ("SMT : journaux de trésorerie", _journaux, smt_tableaux.journal),
}
LIBELLES = {cle: libelle for cle, (libelle, _, _) in ETATS_ANNUELS.items()}


async def etat_annuel(session: AsyncSession, auth: AuthContext, cle: str, organisation_id: uuid.UUID, exercice: int,
                      fmt: str) -> tuple[bytes, str, str]:
    """(content, media type, file name) of one year's statement."""
    if cle not in ETATS_ANNUELS:
        raise NotFound("État introuvable")
    _, calcul, tableau = ETATS_ANNUELS[cle]
    etat = await calcul(session, auth, organisation_id, exercice)
    nom = f"{cle}-{exercice}.{fmt}"
    if cle == "sycebnl-notes" and fmt == "pdf":
        # The notes print each under its own title and columns, as the API's PDF does.
        return sycebnl_tableaux.notes_pdf(etat, auth.actor_name), tableaux.PDF_MEDIA_TYPE, nom
    table = tableau(etat)
    table.edite_par = auth.actor_name
    content, media = tableaux.rendu(table, fmt)
    return content, media, nom
