"""Reopening a locked period: moving an organisation's lock date back takes two people.

The REOUVERTURE kind of four-eyes requests (approbations/). One person holding ``comptabilite.cloturer`` (the
treasurer, or the organisation's administrator) asks, with a reason; a second person decides: the president or
the administrator of the organisation (``finance.decider``), never the requester, and under another role than the
one the request was made with. The lock moves only when the request is approved (the kind's ``executer``); the
audit trail records the request, the decision and the move itself as ``DEVERROUILLER`` with the dates before
and after. Withdrawn is published ANNULEE.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.approbations import service as quatre_yeux
from unionflow.approbations.politiques import Politique, enregistrer
from unionflow.approbations.repository import DemandeApprobationRepository
from unionflow.clotures.deverrouillage.schemas import CreateDeverrouillageRequest, DeverrouillageResponse
from unionflow.comptabilite.repository import ComptabiliteRepository
from unionflow.comptabilite.service import MODULE
from unionflow.comptabilite.verrouillage.repository import ClotureRepository
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, NotFound, RegleMetier
from unionflow.core.permissions import GRANTS, Permission
from unionflow.core.roles import Role
from unionflow.finance.service import DECIDEURS
from unionflow.models import VerrouComptable
from unionflow.models.approbation import DemandeApprobation, GenreDemande, StatutDemande, TypeDecision
from unionflow.models.cloture import StatutDeverrouillage
from unionflow.notifications import workflow as notices

GENRE = GenreDemande.REOUVERTURE.value
# Under which role a request is made, when the caller holds several that may ask (first held wins, unless
# X-Active-Role chose one).
DEMANDEURS = (Role.TRESORIER.value, Role.ADMIN_ORGANISATION.value, Role.ADMIN.value, Role.SUPER_ADMIN.value)
ENTITE = "DemandeDeverrouillage"


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


def dates(demande: DemandeApprobation) -> tuple[date, date]:
    """The lock date when the request was made, and the earlier one asked for."""
    details = demande.details or {}
    return date.fromisoformat(details["date_actuelle"]), date.fromisoformat(details["date_demandee"])


def reponse(demande: DemandeApprobation) -> DeverrouillageResponse:
    actuelle, demandee = dates(demande)
    decision = demande.decisions[-1] if demande.decisions else None
    return DeverrouillageResponse(
        id=demande.id, organisation_id=demande.organisation_id, date_actuelle=actuelle, date_demandee=demandee,
        motif=demande.motif, statut=StatutDeverrouillage(POLITIQUE.statut(demande)),
        demande_par=demande.demande_par, role_demandeur=demande.role_demandeur or "",
        date_demande=demande.date_demande, decide_par=decision.decideur if decision else None,
        role_decideur=decision.role if decision else None, commentaire=decision.commentaire if decision else None,
        date_decision=demande.date_decision)


def etat(demande: DemandeApprobation) -> dict[str, object]:
    """The request's state in the audit trail (same keys as before the four-eyes core)."""
    decision = demande.decisions[-1] if demande.decisions else None
    return {"statut": POLITIQUE.statut(demande), "decide_par": decision.decideur if decision else None,
            "role_decideur": decision.role if decision else None,
            "commentaire": decision.commentaire if decision else None,
            "date_decision": demande.date_decision.isoformat() if demande.date_decision else None}


async def _pas_avant_exercice_clos(session: AsyncSession, organisation_id: uuid.UUID, jusqu_au: date) -> None:
    derniere = await ClotureRepository(session).derniere_annee_close(organisation_id)
    if derniere is not None and jusqu_au < date(derniere, 12, 31):
        raise RegleMetier(f"L'exercice {derniere} est clôturé: la date de verrouillage ne peut précéder le "
                          f"31/12/{derniere}")


async def deverrouiller(session: AsyncSession, auth: AuthContext, demande: DemandeApprobation,
                        _contexte: object = None) -> None:
    """What an approved reopening carries out: the lock date moves back, traced DEVERROUILLER."""
    _, demandee = dates(demande)
    # The closed-year rule is checked again: a year may have been closed while the request waited.
    await _pas_avant_exercice_clos(session, demande.organisation_id, demandee)
    repo = ClotureRepository(session)
    verrou = await repo.verrou(demande.organisation_id, for_update=True)
    avant = verrou.date_verrouillage if verrou else None
    if verrou is None:
        repo.add(VerrouComptable(organisation_id=demande.organisation_id, date_verrouillage=demandee,
                                 modifie_par=auth.actor_name))
    else:
        verrou.date_verrouillage = demandee
        verrou.modifie_par = auth.actor_name
    await session.flush()
    role = demande.decisions[-1].role if demande.decisions else None
    await audit.record(
        session, auth, action="DEVERROUILLER", module=MODULE, entite_type="VerrouComptable",
        entite_id=demande.organisation_id, organisation_id=demande.organisation_id, severite="WARNING",
        before={"dateVerrouillage": avant.isoformat() if avant else None},
        after={"dateVerrouillage": demandee.isoformat(), "demandeId": str(demande.id),
               "demandePar": demande.demande_par, "approuvePar": auth.actor_name},
        description=f"Réouverture: verrouillage du {jj_mm_aaaa(avant)} ramené au {jj_mm_aaaa(demandee)}, demandée "
                    f"par {demande.demande_par} ({demande.role_demandeur}), approuvée par {auth.actor_name} "
                    f"({role}). Motif: {demande.motif}")


POLITIQUE = enregistrer(Politique(
    genre=GENRE, nom="Demande de réouverture", demander=Permission.COMPTABILITE_CLOTURER,
    decider=Permission.FINANCE_DECIDER, roles_decideurs=DECIDEURS,
    refus_decideur="Seuls le PRESIDENT et l'ADMIN_ORGANISATION de l'organisation décident",
    chemin="/api/comptabilite/verrouillage/deverrouillages/{id}", executer=deverrouiller, autre_role=True,
    refus_autre_role="Une réouverture demandée en tant que {role} est décidée sous un autre rôle (PRESIDENT ou "
                     "ADMIN_ORGANISATION)",
    retiree=StatutDeverrouillage.ANNULEE.value,
    refus_demande="Seuls l'administrateur et le trésorier de l'organisation demandent une réouverture"))


class DeverrouillageService(VerrouServiceBase):

    async def _get(self, demande_id: uuid.UUID, *, for_update: bool = False) -> DemandeApprobation:
        demande = await DemandeApprobationRepository(self.session, self.auth).du_genre(
            GENRE, demande_id, scoped=False, for_update=for_update)
        if demande is None:
            raise NotFound("Demande de réouverture introuvable")
        # Visible as its organisation's entries are, to the bureau acting for it (otherwise 404, never 403).
        if not ComptabiliteRepository(self.session, self.auth).can_see_entries(demande.organisation_id):
            raise NotFound("Demande de réouverture introuvable")
        return demande

    async def _demandes(self, organisation_id: uuid.UUID, statut: str | None = None) -> list[DemandeApprobation]:
        return await DemandeApprobationRepository(self.session, self.auth).de_l_organisation(
            GENRE, organisation_id, statut)

    async def lister(self, organisation_id: uuid.UUID) -> list[DeverrouillageResponse]:
        await self._organisation(organisation_id)
        if not ComptabiliteRepository(self.session, self.auth).can_see_entries(organisation_id):
            raise NotFound("Organisation introuvable")
        return [reponse(d) for d in await self._demandes(organisation_id)]

    async def get(self, demande_id: uuid.UUID) -> DeverrouillageResponse:
        return reponse(await self._get(demande_id))

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
        await _pas_avant_exercice_clos(self.session, org, data.date_verrouillage)
        if await self._demandes(org, StatutDemande.EN_ATTENTE.value):
            raise Conflict("Une demande de réouverture est déjà en attente pour cette organisation")
        held = self.auth.roles_in(org)
        role = next(r for r in DEMANDEURS if r in held and r in GRANTS[Permission.COMPTABILITE_CLOTURER])
        demande = await quatre_yeux.ouvrir(
            self.session, self.auth, POLITIQUE, organisation_id=org, motif=data.motif, role_demandeur=role,
            details={"date_actuelle": verrou.date_verrouillage.isoformat(),
                     "date_demandee": data.date_verrouillage.isoformat()})
        await audit.record(self.session, self.auth, action="DEMANDER_DEVERROUILLAGE", module=MODULE,
                           entite_type=ENTITE, entite_id=demande.id, organisation_id=org, severite="WARNING",
                           after={"date_actuelle": verrou.date_verrouillage.isoformat(),
                                  "date_demandee": data.date_verrouillage.isoformat(), "motif": demande.motif,
                                  "statut": demande.statut, "role_demandeur": role},
                           description=f"Réouverture demandée: verrouillage du {jj_mm_aaaa(verrou.date_verrouillage)} "
                                       f"ramené au {jj_mm_aaaa(data.date_verrouillage)}. Motif: {data.motif}")
        await notices.approbation_en_attente(
            self.session, org, Permission.FINANCE_DECIDER, "Réouverture de période à décider",
            f"{self.auth.actor_name} demande de ramener la date de verrouillage des comptes du "
            f"{jj_mm_aaaa(verrou.date_verrouillage)} au {jj_mm_aaaa(data.date_verrouillage)}: {data.motif}",
            (ENTITE, demande.id), self.auth.actor_name, sauf=self.auth.membre_id)
        return reponse(demande)

    async def _decider(self, demande_id: uuid.UUID, decision: TypeDecision,
                       commentaire: str | None) -> DeverrouillageResponse:
        demande = await self._get(demande_id, for_update=True)
        before = etat(demande)
        await quatre_yeux.decider(self.session, self.auth, demande, decision, commentaire)
        action = "APPROUVER_DEVERROUILLAGE" if decision is TypeDecision.APPROUVEE else "REJETER_DEVERROUILLAGE"
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type=ENTITE,
                           entite_id=demande.id, organisation_id=demande.organisation_id, severite="WARNING",
                           before=before, after=etat(demande), description=commentaire)
        return reponse(demande)

    async def approuver(self, demande_id: uuid.UUID, commentaire: str | None) -> DeverrouillageResponse:
        return await self._decider(demande_id, TypeDecision.APPROUVEE, commentaire)

    async def rejeter(self, demande_id: uuid.UUID, commentaire: str) -> DeverrouillageResponse:
        return await self._decider(demande_id, TypeDecision.REJETEE, commentaire)

    async def annuler(self, demande_id: uuid.UUID) -> DeverrouillageResponse:
        demande = await self._get(demande_id, for_update=True)
        quatre_yeux.verifier_demandeur(self.auth, demande, "Seul le demandeur retire sa demande de réouverture")
        before = etat(demande)
        await quatre_yeux.retirer(self.session, demande, None)
        await audit.record(self.session, self.auth, action="ANNULER_DEVERROUILLAGE", module=MODULE,
                           entite_type=ENTITE, entite_id=demande.id, organisation_id=demande.organisation_id,
                           before=before, after=etat(demande))
        return reponse(demande)
