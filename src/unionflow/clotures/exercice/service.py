"""Closing the books: the lock date of an organisation's accounts and the closing of a fiscal year.

Closing year N (calendar year, as OHADA/SYCEBNL entities keep them) posts, on 31 December N in the ``CLO``
journal, the entry that zeroes every income and expense account (classes 6, 7, 8) and carries the year's
result to 131 (excédent) or 139 (déficit); balance-sheet accounts keep their balances, which the next year
starts from. The lock date then moves to at least 31 December N, so nothing more can be dated in year N.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

from unionflow.clotures.deverrouillage.service import VerrouServiceBase, jj_mm_aaaa, verifier_date_passee
from unionflow.clotures.exercice.schemas import ExerciceResponse, VerrouillageRequest, VerrouillageResponse
from unionflow.comptabilite.ecritures.service import compte_par_defaut, journal_par_defaut
from unionflow.comptabilite.etats.repository import ZERO, EtatsRepository
from unionflow.comptabilite.repository import ComptabiliteRepository
from unionflow.comptabilite.service import MODULE, Ligne, poster_ecriture
from unionflow.core import audit
from unionflow.core.db import flush_unique
from unionflow.core.errors import Conflict, InvalidState, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.models import ExerciceComptable, VerrouComptable


class ClotureService(VerrouServiceBase):

    async def verrou(self, organisation_id: uuid.UUID) -> VerrouillageResponse:
        await self._organisation(organisation_id)
        verrou = await self.repo.verrou(organisation_id)
        return VerrouillageResponse(organisation_id=organisation_id,
                                    date_verrouillage=verrou.date_verrouillage if verrou else None,
                                    modifie_par=verrou.modifie_par if verrou else None)

    async def verrouiller(self, data: VerrouillageRequest) -> VerrouillageResponse:
        await self._organisation(data.organisation_id)
        self.auth.require(Permission.COMPTABILITE_CLOTURER, data.organisation_id,
                          "Seuls l'administrateur et le trésorier de l'organisation ferment ses périodes comptables")
        verifier_date_passee(data.date_verrouillage)
        derniere = await self.repo.derniere_annee_close(data.organisation_id)
        if derniere is not None and data.date_verrouillage < date(derniere, 12, 31):
            raise RegleMetier(f"L'exercice {derniere} est clôturé: la date de verrouillage ne peut précéder le "
                               f"31/12/{derniere}")
        actuel = await self.repo.verrou(data.organisation_id, for_update=True)
        if actuel is not None and data.date_verrouillage < actuel.date_verrouillage:
            # Moving the lock back reopens a period: a request approved by a second person (deverrouillage.py).
            raise RegleMetier(f"Reculer la date de verrouillage (du {jj_mm_aaaa(actuel.date_verrouillage)} au "
                              f"{jj_mm_aaaa(data.date_verrouillage)}) rouvre une période: demandez la réouverture "
                              "(POST /api/comptabilite/verrouillage/deverrouillages), qu'une autre personne approuve")
        before = await self.verrou(data.organisation_id)
        await self._poser(data.organisation_id, data.date_verrouillage)
        after = await self.verrou(data.organisation_id)
        await audit.record(self.session, self.auth, action="VERROUILLER", module=MODULE,
                           entite_type="VerrouComptable", entite_id=data.organisation_id,
                           organisation_id=data.organisation_id, severite="WARNING",
                           before=before.model_dump(mode="json", by_alias=True),
                           after=after.model_dump(mode="json", by_alias=True),
                           description=f"Verrouillage des comptes jusqu'au {jj_mm_aaaa(data.date_verrouillage)} "
                                       f"(précédemment: {jj_mm_aaaa(before.date_verrouillage)})")
        return after

    async def poser_verrou(self, organisation_id: uuid.UUID, jusqu_au: date) -> None:
        """Move the lock forward to ``jusqu_au`` for a closing (year or month) the caller was allowed to make."""
        verrou = await self.repo.verrou(organisation_id)
        if verrou is None or verrou.date_verrouillage < jusqu_au:
            await self._poser(organisation_id, jusqu_au)

    async def _poser(self, organisation_id: uuid.UUID, jusqu_au: date) -> None:
        verrou = await self.repo.verrou(organisation_id, for_update=True)
        if verrou is None:
            self.repo.add(VerrouComptable(organisation_id=organisation_id, date_verrouillage=jusqu_au,
                                          modifie_par=self.auth.actor_name))
        else:
            verrou.date_verrouillage = jusqu_au
            verrou.modifie_par = self.auth.actor_name
        await self.session.flush()

    async def exercices(self, organisation_id: uuid.UUID) -> list[ExerciceResponse]:
        await self._organisation(organisation_id)
        clos = {e.annee: e for e in await self.repo.exercices(organisation_id)}
        annees = sorted(set(await self.repo.annees_avec_ecritures(organisation_id)) | set(clos))
        return [self._response(organisation_id, annee, clos.get(annee)) for annee in annees]

    @staticmethod
    def _response(organisation_id: uuid.UUID, annee: int, exercice: ExerciceComptable | None) -> ExerciceResponse:
        return ExerciceResponse(organisation_id=organisation_id, annee=annee,
                                statut="CLOTURE" if exercice else "OUVERT",
                                resultat=exercice.resultat if exercice else None,
                                ecriture_cloture_id=exercice.ecriture_cloture_id if exercice else None,
                                cloture_par=exercice.cloture_par if exercice else None,
                                date_cloture=exercice.date_cloture if exercice else None)

    async def cloturer(self, annee: int, organisation_id: uuid.UUID) -> ExerciceResponse:
        await self._organisation(organisation_id)
        self.auth.require(Permission.COMPTABILITE_CLOTURER, organisation_id,
                          "Seuls l'administrateur et le trésorier de l'organisation clôturent un exercice")
        if annee >= datetime.now(UTC).year:
            raise InvalidState(f"L'exercice {annee} n'est pas terminé: il se clôture à partir du 1er janvier "
                               f"{annee + 1}")
        if await self.repo.exercice(organisation_id, annee) is not None:
            raise Conflict(f"L'exercice {annee} est déjà clôturé")
        etats = EtatsRepository(self.session)
        precedent = annee - 1
        if (await etats.a_des_ecritures(organisation_id, date(precedent, 1, 1), date(precedent, 12, 31))
                and await self.repo.exercice(organisation_id, precedent) is None):
            raise InvalidState(f"Clôturez d'abord l'exercice {precedent}")
        fin = date(annee, 12, 31)
        soldes = [s for s in await etats.soldes(organisation_id, date(annee, 1, 1), fin, sans_cloture=True)
                  if s.classe in (6, 7, 8) and s.debit_periode != s.credit_periode]
        lignes: list[Ligne] = []
        comptes = await ComptabiliteRepository(self.session, self.auth).comptes_by_ids({s.compte_id for s in soldes})
        for s in soldes:
            net = s.debit_periode - s.credit_periode
            lignes.append(Ligne(comptes[s.compte_id], debit=max(-net, ZERO), credit=max(net, ZERO),
                                libelle=f"Solde de {s.numero} au 31/12/{annee}"))
        resultat = -sum((s.debit_periode - s.credit_periode for s in soldes), ZERO)
        exercice = ExerciceComptable(organisation_id=organisation_id, annee=annee, resultat=Decimal(resultat),
                                     cloture_par=self.auth.actor_name)
        # Claims the year first: a concurrent closing of the same year gets 409 and posts nothing.
        await flush_unique(self.session, f"L'exercice {annee} est déjà clôturé", exercice)
        if lignes:
            if resultat != ZERO:
                compte = await compte_par_defaut(self.session, organisation_id, "131" if resultat > 0 else "139")
                lignes.append(Ligne(compte, debit=max(-resultat, ZERO), credit=max(resultat, ZERO),
                                    libelle="Excédent de l'exercice" if resultat > 0 else "Déficit de l'exercice"))
            journal = await journal_par_defaut(self.session, organisation_id, "CLO")
            ecriture = await poster_ecriture(self.session, journal=journal, date_ecriture=fin,
                                             libelle=f"Clôture de l'exercice {annee}", lignes=lignes,
                                             piece_reference=f"CLOTURE-{annee}", cree_par=self.auth.actor_name,
                                             ignorer_verrou=True)
            exercice.ecriture_cloture_id = ecriture.id
        verrou = await self.repo.verrou(organisation_id)
        if verrou is None or verrou.date_verrouillage < fin:
            await self._poser(organisation_id, fin)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="CLOTURER", module=MODULE, entite_type="ExerciceComptable",
                           entite_id=exercice.id, organisation_id=organisation_id, severite="WARNING",
                           after=audit.snapshot(exercice), description=f"Clôture de l'exercice {annee}")
        return self._response(organisation_id, annee, exercice)
