"""The general-assembly pack of a year: the four SYCEBNL statements with N and N−1 and their notes (the budget
execution among them), the activity figures of both years, the register of donations' totals, and the signature
blocks; with the date it was ready and whether that leaves the 45 days asked before the assembly (a rule whose
SYCEBNL source was not found: docs/conformite.md)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.assemblee import activite as chiffres
from unionflow.assemblee.schemas import DossierAssembleeResponse
from unionflow.comptabilite.sycebnl.notes import NotesService
from unionflow.comptabilite.sycebnl.schemas import (
    BilanSycebnlResponse,
    CompteResultatSycebnlResponse,
    FluxTresorerieResponse,
    NotesSycebnlResponse,
)
from unionflow.core.auth import AuthContext
from unionflow.core.errors import RegleMetier

DELAI_MINIMUM_JOURS = 45
CONTENU = ["Bilan (N et N−1)", "Compte de résultat (N et N−1)", "Tableau des flux de trésorerie (N et N−1)",
           "Notes annexes, dont l'exécution du budget (note 5)", "Chiffres d'activité (N et N−1)",
           "Registre des dons et legs : totaux par forme (N et N−1)",
           "Signatures : le Trésorier, le Président, le Commissaire aux comptes"]


@dataclass
class Dossier:
    resume: DossierAssembleeResponse
    bilan: BilanSycebnlResponse
    compte_resultat: CompteResultatSycebnlResponse
    flux: FluxTresorerieResponse
    notes: NotesSycebnlResponse


class AssembleeService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth

    async def dossier(self, organisation_id: uuid.UUID, annee: int, date_assemblee: date) -> Dossier:
        etats = NotesService(self.session, self.auth)
        bilan = await etats.bilan(organisation_id, annee)  # checks the reader first (404, then 403)
        if date_assemblee <= date(annee, 12, 31):
            raise RegleMetier(f"dateAssemblee: l'assemblée qui approuve l'exercice {annee} se tient après sa "
                              f"clôture (le 31/12/{annee})")
        compte_resultat = await etats.compte_resultat(organisation_id, annee)
        flux = await etats.flux_tresorerie(organisation_id, annee)
        notes = await etats.notes(organisation_id, annee)
        aujourd_hui = datetime.now(UTC).date()
        jours = (date_assemblee - aujourd_hui).days
        resume = DossierAssembleeResponse(
            organisation_id=bilan.organisation_id, organisation=bilan.organisation, exercice=annee,
            date_assemblee=date_assemblee, devise=bilan.devise, pret_le=aujourd_hui, jours_avant_assemblee=jours,
            delai_minimum_jours=DELAI_MINIMUM_JOURS, delai_respecte=jours >= DELAI_MINIMUM_JOURS,
            activite=await chiffres.activite(self.session, organisation_id, annee),
            dons=await chiffres.dons(self.session, organisation_id, annee),
            total_actif_n=bilan.total_actif_n, total_actif_n1=bilan.total_actif_n1,
            resultat_n=compte_resultat.resultat_n, resultat_n1=compte_resultat.resultat_n1, etats=CONTENU,
            arrete=bilan.arrete)
        return Dossier(resume, bilan, compte_resultat, flux, notes)
