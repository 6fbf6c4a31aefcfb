"""Reopening a locked period (issue 19, item 2): moving an organisation's lock date back takes two people.

One person holding ``comptabilite.cloturer`` (the treasurer, or the organisation's administrator) asks, with a
reason; a second person decides: the president or the administrator of the organisation
(``finance.decider``), never the requester, and under another role than the one the request was made with —
the same four-eyes rule as payout approvals (``finance.common.verifier_decideur``). The lock moves only when
the request is approved; the audit trail records the request, the decision and the move itself as
``DEVERROUILLER`` with the dates before and after.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.cloture_repository import ClotureRepository
from unionflow.comptabilite.deverrouillage_schemas import CreateDeverrouillageRequest, DeverrouillageResponse
from unionflow.comptabilite.repository import ComptabiliteRepository
from unionflow.comptabilite.service import MODULE
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.permissions import GRANTS, Permission
from unionflow.core.roles import Role
from unionflow.finance.service import DECIDEURS, verifier_decideur
from unionflow.models import DemandeDeverrouillage, VerrouComptable
from unionflow.models.cloture import StatutDeverrouillage
from unionflow.notifications import workflow as notices

S = StatutDeverrouillage
# Under which role a request is made, when the caller holds several that may ask (first held wins, unless
# X-Active-Role chose one).
DEMANDEURS = (Role.TRESORIER.value, Role.ADMIN_ORGANISATION.value, Role.ADMIN.value, Role.SUPER_ADMIN.value)
ETAT = ["statut", "decide_par", "role_decideur", "commentaire", "date_decision"]


def jj_mm_aaaa(value: date | None) -> str:
    return value.strftime("%d/%m/%Y") if value else "aucune"


def verifier_date_passee(jusqu_au: date) -> None:
    """A lock date is a day already lived: locking a future day would refuse money not yet received."""
    today = datetime.now(UTC).date()
    if jusqu_au > today:
        raise RegleMetier(f"La date de verrouillage ne peut pas être dans le futur ({jj_mm_aaaa(jusqu_au)} après "
                          f"le {jj_mm_aaaa(today)})")


class VerrouServiceBase:
    """What the lock (cloture.py) and its reopenings share: the request's session and caller, the lock's
    repository, and the organisation check (an organisation the caller cannot see is a 404)."""

    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = ClotureRepository(session)

    async def _organisation(self, organisation_id: uuid.UUID) -> None:
        if await ComptabiliteRepository(self.session, self.auth).organisation(organisation_id) is None:
            raise NotFound("Organisation introuvable")


class DeverrouillageService(VerrouServiceBase):

    async def _get(self, demande_id: uuid.UUID, *, for_update: bool = False) -> DemandeDeverrouillage:
        demande = await self.repo.demande_deverrouillage(demande_id, for_update=for_update)
        if demande is None:
            raise NotFound("Demande de réouverture introuvable")
        # Visible as its organisation's entries are, to the bureau acting for it (otherwise 404, never 403).
        if not ComptabiliteRepository(self.session, self.auth).can_see_entries(demande.organisation_id):
            raise NotFound("Demande de réouverture introuvable")
        return demande

    async def lister(self, organisation_id: uuid.UUID) -> list[DeverrouillageResponse]:
        await self._organisation(organisation_id)
        if not ComptabiliteRepository(self.session, self.auth).can_see_entries(organisation_id):
            raise NotFound("Organisation introuvable")
        return [DeverrouillageResponse.model_validate(d)
                for d in await self.repo.demandes_deverrouillage(organisation_id)]

    async def get(self, demande_id: uuid.UUID) -> DeverrouillageResponse:
        return DeverrouillageResponse.model_validate(await self._get(demande_id))

    async def demander(self, data: CreateDeverrouillageRequest) -> DeverrouillageResponse:
        org = data.organisation_id
        await self._organisation(org)
        self.auth.require(Permission.COMPTABILITE_CLOTURER, org,
                          "Seuls l'administrateur et le trésorier de l'organisation demandent une réouverture")
        verrou = await self.repo.verrou(org, for_update=True)
        if verrou is None or data.date_verrouillage >= verrou.date_verrouillage:
            raise RegleMetier(f"Une réouverture ramène la date de verrouillage avant l'actuelle "
                              f"({jj_mm_aaaa(verrou.date_verrouillage if verrou else None)}); pour avancer la date, "
                              "PUT /api/comptabilite/verrouillage")
        await self._pas_avant_exercice_clos(org, data.date_verrouillage)
        if await self.repo.demandes_deverrouillage(org, statut=S.EN_ATTENTE.value):
            raise Conflict("Une demande de réouverture est déjà en attente pour cette organisation")
        held = self.auth.roles_in(org)
        role = next(r for r in DEMANDEURS if r in held and r in GRANTS[Permission.COMPTABILITE_CLOTURER])
        demande = DemandeDeverrouillage(
            organisation_id=org, date_actuelle=verrou.date_verrouillage, date_demandee=data.date_verrouillage,
            motif=data.motif, statut=S.EN_ATTENTE.value, demande_par=self.auth.actor_name,
            demande_par_sub=self.auth.personne, role_demandeur=role, date_demande=datetime.now(UTC))
        self.repo.add(demande)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="DEMANDER_DEVERROUILLAGE", module=MODULE,
                           entite_type="DemandeDeverrouillage", entite_id=demande.id, organisation_id=org,
                           severite="WARNING",
                           after=audit.snapshot(demande, ["date_actuelle", "date_demandee", "motif", "statut",
                                                          "role_demandeur"]),
                           description=f"Réouverture demandée: verrouillage du {jj_mm_aaaa(verrou.date_verrouillage)} "
                                       f"ramené au {jj_mm_aaaa(data.date_verrouillage)}. Motif: {data.motif}")
        await notices.approbation_en_attente(
            self.session, org, Permission.FINANCE_DECIDER, "Réouverture de période à décider",
            f"{self.auth.actor_name} demande de ramener la date de verrouillage des comptes du "
            f"{jj_mm_aaaa(verrou.date_verrouillage)} au {jj_mm_aaaa(data.date_verrouillage)}: {data.motif}",
            ("DemandeDeverrouillage", demande.id), self.auth.actor_name, sauf=self.auth.membre_id)
        return DeverrouillageResponse.model_validate(demande)

    async def _pas_avant_exercice_clos(self, organisation_id: uuid.UUID, jusqu_au: date) -> None:
        derniere = await self.repo.derniere_annee_close(organisation_id)
        if derniere is not None and jusqu_au < date(derniere, 12, 31):
            raise RegleMetier(f"L'exercice {derniere} est clôturé: la date de verrouillage ne peut précéder le "
                              f"31/12/{derniere}")

    def _role_decideur(self, demande: DemandeDeverrouillage) -> str:
        """The four-eyes rule of approvals, plus: the decision is taken under another role than the request."""
        verifier_decideur(self.auth, demande.organisation_id, demande.demande_par_sub)
        held = self.auth.roles_in(demande.organisation_id)
        autres = [r for r in DECIDEURS if r in held and r != demande.role_demandeur]
        if not autres:
            raise Forbidden(f"Une réouverture demandée en tant que {demande.role_demandeur} est décidée sous un "
                            "autre rôle (PRESIDENT ou ADMIN_ORGANISATION)")
        return autres[0]

    async def _decider(self, demande_id: uuid.UUID, statut: StatutDeverrouillage,
                       commentaire: str | None) -> DemandeDeverrouillage:
        demande = await self._get(demande_id, for_update=True)
        role = self._role_decideur(demande)
        if demande.statut != S.EN_ATTENTE:
            raise InvalidState(f"Demande de réouverture déjà {demande.statut}")
        before = audit.snapshot(demande, ETAT)
        demande.statut = statut.value
        demande.decide_par = self.auth.actor_name
        demande.decide_par_sub = self.auth.personne
        demande.role_decideur = role
        demande.commentaire = commentaire
        demande.date_decision = datetime.now(UTC)
        await self.session.flush()
        action = "APPROUVER_DEVERROUILLAGE" if statut is S.APPROUVEE else "REJETER_DEVERROUILLAGE"
        await audit.record(self.session, self.auth, action=action, module=MODULE,
                           entite_type="DemandeDeverrouillage", entite_id=demande.id,
                           organisation_id=demande.organisation_id, severite="WARNING", before=before,
                           after=audit.snapshot(demande, ETAT), description=commentaire)
        return demande

    async def approuver(self, demande_id: uuid.UUID, commentaire: str | None) -> DeverrouillageResponse:
        demande = await self._decider(demande_id, S.APPROUVEE, commentaire)
        # The closed-year rule is checked again: a year may have been closed while the request waited.
        await self._pas_avant_exercice_clos(demande.organisation_id, demande.date_demandee)
        verrou = await self.repo.verrou(demande.organisation_id, for_update=True)
        avant = verrou.date_verrouillage if verrou else None
        if verrou is None:
            self.repo.add(VerrouComptable(organisation_id=demande.organisation_id,
                                          date_verrouillage=demande.date_demandee, modifie_par=self.auth.actor_name))
        else:
            verrou.date_verrouillage = demande.date_demandee
            verrou.modifie_par = self.auth.actor_name
        await self.session.flush()
        await audit.record(
            self.session, self.auth, action="DEVERROUILLER", module=MODULE, entite_type="VerrouComptable",
            entite_id=demande.organisation_id, organisation_id=demande.organisation_id, severite="WARNING",
            before={"dateVerrouillage": avant.isoformat() if avant else None},
            after={"dateVerrouillage": demande.date_demandee.isoformat(), "demandeId": str(demande.id),
                   "demandePar": demande.demande_par, "approuvePar": self.auth.actor_name},
            description=f"Réouverture: verrouillage du {jj_mm_aaaa(avant)} ramené au "
                        f"{jj_mm_aaaa(demande.date_demandee)}, demandée par {demande.demande_par} "
                        f"({demande.role_demandeur}), approuvée par {self.auth.actor_name} ({demande.role_decideur}). "
                        f"Motif: {demande.motif}")
        return DeverrouillageResponse.model_validate(demande)

    async def rejeter(self, demande_id: uuid.UUID, commentaire: str) -> DeverrouillageResponse:
        return DeverrouillageResponse.model_validate(await self._decider(demande_id, S.REJETEE, commentaire))

    async def annuler(self, demande_id: uuid.UUID) -> DeverrouillageResponse:
        demande = await self._get(demande_id, for_update=True)
        if demande.demande_par_sub != self.auth.personne:
            raise Forbidden("Seul le demandeur retire sa demande de réouverture")
        if demande.statut != S.EN_ATTENTE:
            raise InvalidState(f"Demande de réouverture déjà {demande.statut}")
        before = audit.snapshot(demande, ETAT)
        demande.statut = S.ANNULEE.value
        demande.date_decision = datetime.now(UTC)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="ANNULER_DEVERROUILLAGE", module=MODULE,
                           entite_type="DemandeDeverrouillage", entite_id=demande.id,
                           organisation_id=demande.organisation_id, before=before, after=audit.snapshot(demande, ETAT))
        return DeverrouillageResponse.model_validate(demande)
