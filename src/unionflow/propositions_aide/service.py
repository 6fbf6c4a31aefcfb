"""Propositions d'aide: a member offers help (money, goods, a service) for one type of aid.

States: ACTIVE (visible to the organisation's members, editable by its author) → RESERVEE when the bureau links
it to an open aid request of the same organisation and type → CLOTUREE (help given, or withdrawn). A reserved
offer can be released back to ACTIVE. The bureau matches: aid requests are private to their author and staff.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.numbering import random_reference
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.demandes_aide.schemas import TYPE_AIDE_DOMAINE, DemandeAideResponse
from unionflow.models import PropositionAide
from unionflow.models.proposition_aide import NatureProposition, StatutProposition
from unionflow.organisations.repository import OrganisationRepository
from unionflow.propositions_aide.repository import OUVERTES, PropositionAideRepository, PropositionFilters
from unionflow.propositions_aide.schemas import (
    CreatePropositionAideRequest,
    PropositionAideResponse,
    UpdatePropositionAideRequest,
)
from unionflow.types_reference.service import require_code

MODULE = "PROPOSITIONS_AIDE"
ETAT = ["statut", "demande_aide_id", "date_reservation", "reserve_par", "date_cloture", "motif_cloture"]
MAX_CORRESPONDANCES = 50


def _check_montant(nature: str, montant: object) -> None:
    if nature == NatureProposition.FINANCIERE and montant is None:
        raise RegleMetier("montant: obligatoire pour une aide FINANCIERE")


def _check_date(jusqu_au: date | None) -> None:
    if jusqu_au is not None and jusqu_au < date.today():
        raise RegleMetier("disponibleJusquAu: date passée")


class PropositionAideService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = PropositionAideRepository(session, auth)

    async def _get(self, proposition_id: uuid.UUID, *, for_update: bool = False) -> PropositionAide:
        proposition = await self.repo.get(proposition_id, for_update=for_update)
        if proposition is None:
            raise NotFound("Proposition d'aide introuvable")
        return proposition

    def _gere(self, proposition: PropositionAide) -> bool:
        return self.auth.can(Permission.PROPOSITION_AIDE_GERER, proposition.organisation_id)

    async def _audit(self, proposition: PropositionAide, action: str, before: dict[str, object] | None,
                     fields: list[str] | None = None, description: str | None = None) -> PropositionAideResponse:
        await self.session.flush()
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type="PropositionAide",
                           entite_id=proposition.id, organisation_id=proposition.organisation_id, before=before,
                           after=audit.snapshot(proposition, fields), description=description)
        return PropositionAideResponse.model_validate(proposition)

    async def creer(self, data: CreatePropositionAideRequest) -> PropositionAideResponse:
        if self.auth.membre_id is None:
            raise RegleMetier("Aucune fiche membre n'est liée à votre compte: impossible de proposer une aide")
        organisation = await OrganisationRepository(self.session, None).get(data.organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        if data.organisation_id not in self.auth.member_organisations:
            raise RegleMetier("organisationId: vous n'êtes pas membre actif de cette organisation")
        _check_montant(data.nature, data.montant)
        _check_date(data.disponible_jusqu_au)
        await require_code(self.session, TYPE_AIDE_DOMAINE, data.type, "type")
        proposition = PropositionAide(
            numero_reference=random_reference("PROP", datetime.now(UTC).year), organisation_id=organisation.id,
            membre_id=self.auth.membre_id, type_aide=data.type, nature=data.nature.value, titre=data.titre,
            description=data.description, montant=data.montant, devise=organisation.devise,
            disponibilite=data.disponibilite, disponible_jusqu_au=data.disponible_jusqu_au,
            statut=StatutProposition.ACTIVE.value)
        self.repo.add(proposition)
        return await self._audit(proposition, "CREER", None,
                                 description=f"Proposition d'aide {proposition.numero_reference}")

    async def obtenir(self, proposition_id: uuid.UUID) -> PropositionAideResponse:
        return PropositionAideResponse.model_validate(await self._get(proposition_id))

    async def lister(self, filters: PropositionFilters, params: PageParams) -> Page[PropositionAideResponse]:
        if filters.type is not None:
            await require_code(self.session, TYPE_AIDE_DOMAINE, filters.type, "type", inactif_admis=True)
        rows, total, exact = await self.repo.search(filters, params)
        return Page[PropositionAideResponse].build([PropositionAideResponse.model_validate(r) for r in rows],
                                                   params, total, exact)

    async def modifier(self, proposition_id: uuid.UUID, data: UpdatePropositionAideRequest) -> PropositionAideResponse:
        proposition = await self._get(proposition_id, for_update=True)
        if proposition.membre_id != self.auth.membre_id:
            raise Forbidden("Seul l'auteur modifie sa proposition")
        if proposition.statut != StatutProposition.ACTIVE:
            raise InvalidState(f"Proposition {proposition.statut}: seule une proposition ACTIVE se modifie")
        changes = data.model_dump(exclude_unset=True)
        nulls = [k for k, v in changes.items() if v is None and k in {"type", "nature", "titre", "description"}]
        if nulls:
            raise RegleMetier(f"{', '.join(nulls)}: null interdit")
        _check_montant(changes.get("nature", proposition.nature), changes.get("montant", proposition.montant))
        _check_date(changes.get("disponible_jusqu_au"))
        if "type" in changes and changes["type"] != proposition.type_aide:
            await require_code(self.session, TYPE_AIDE_DOMAINE, changes["type"], "type")
        before = audit.snapshot(proposition)
        for key, value in changes.items():
            setattr(proposition, "type_aide" if key == "type" else key, getattr(value, "value", value))
        return await self._audit(proposition, "MODIFIER", before)

    async def correspondances(self, proposition_id: uuid.UUID) -> list[DemandeAideResponse]:
        proposition = await self._get(proposition_id)
        if not self._gere(proposition):
            raise Forbidden("Le rapprochement avec les demandes d'aide revient au bureau de l'organisation")
        if proposition.statut != StatutProposition.ACTIVE:
            return []
        rows = await self.repo.demandes_correspondantes(proposition, MAX_CORRESPONDANCES)
        return [DemandeAideResponse.model_validate(r) for r in rows]

    async def pour_demande(self, demande_id: uuid.UUID) -> list[PropositionAideResponse]:
        demande = await self.repo.demande(demande_id)
        if demande is None or not staff_sees(self.auth, demande.organisation_id):
            raise NotFound("Demande d'aide introuvable")
        rows = await self.repo.propositions_correspondantes(demande, MAX_CORRESPONDANCES)
        return [PropositionAideResponse.model_validate(r) for r in rows]

    async def lier(self, proposition_id: uuid.UUID, demande_id: uuid.UUID) -> PropositionAideResponse:
        proposition = await self._get(proposition_id, for_update=True)
        if not self._gere(proposition):
            raise Forbidden("Le rapprochement avec les demandes d'aide revient au bureau de l'organisation")
        demande = await self.repo.demande(demande_id, for_update=True)
        if demande is None or not staff_sees(self.auth, demande.organisation_id):
            raise NotFound("Demande d'aide introuvable")
        if proposition.statut != StatutProposition.ACTIVE:
            raise InvalidState(f"Proposition {proposition.statut}: seule une proposition ACTIVE se réserve")
        if proposition.disponible_jusqu_au is not None and proposition.disponible_jusqu_au < date.today():
            raise InvalidState("Proposition expirée (disponibleJusquAu dépassé)")
        if demande.organisation_id != proposition.organisation_id:
            raise RegleMetier("demandeAideId: la demande relève d'une autre organisation")
        if demande.type_aide != proposition.type_aide:
            raise RegleMetier(f"demandeAideId: demande de type {demande.type_aide}, proposition de type "
                               f"{proposition.type_aide}")
        if demande.statut not in OUVERTES:
            raise InvalidState(f"Demande d'aide {demande.statut}: elle n'attend plus d'aide")
        if demande.membre_id == proposition.membre_id:
            raise RegleMetier("demandeAideId: on ne se propose pas sa propre aide")
        if await self.repo.reservee_pour(demande.id) is not None:
            raise Conflict("Cette demande d'aide est déjà couverte par une autre proposition réservée")
        before = audit.snapshot(proposition, ETAT)
        proposition.statut = StatutProposition.RESERVEE.value
        proposition.demande_aide_id = demande.id
        proposition.date_reservation = datetime.now(UTC)
        proposition.reserve_par = self.auth.actor_name
        return await self._audit(proposition, "RESERVER", before, ETAT,
                                 f"Réservée pour la demande {demande.numero_reference}")

    async def liberer(self, proposition_id: uuid.UUID) -> PropositionAideResponse:
        proposition = await self._get(proposition_id, for_update=True)
        if not self._gere(proposition) and proposition.membre_id != self.auth.membre_id:
            raise Forbidden("Seuls l'auteur et le bureau libèrent une proposition")
        if proposition.statut != StatutProposition.RESERVEE:
            raise InvalidState(f"Proposition {proposition.statut}: seule une proposition RESERVEE se libère")
        before = audit.snapshot(proposition, ETAT)
        proposition.statut = StatutProposition.ACTIVE.value
        proposition.demande_aide_id = None
        proposition.date_reservation = None
        proposition.reserve_par = None
        return await self._audit(proposition, "LIBERER", before, ETAT)

    async def cloturer(self, proposition_id: uuid.UUID, motif: str | None) -> PropositionAideResponse:
        proposition = await self._get(proposition_id, for_update=True)
        if not self._gere(proposition) and proposition.membre_id != self.auth.membre_id:
            raise Forbidden("Seuls l'auteur et le bureau clôturent une proposition")
        if proposition.statut == StatutProposition.CLOTUREE:
            raise InvalidState("Proposition déjà CLOTUREE")
        before = audit.snapshot(proposition, ETAT)
        proposition.statut = StatutProposition.CLOTUREE.value
        proposition.date_cloture = datetime.now(UTC)
        proposition.motif_cloture = motif
        return await self._audit(proposition, "CLORE", before, ETAT, motif)
