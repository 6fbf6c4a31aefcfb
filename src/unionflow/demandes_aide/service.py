"""Solidarity aid requests: a member asks, the organisation's administration decides.

States: SOUMISE (on creation; editable by the requester or the organisation's staff) → APPROUVEE (with the
granted amount) or REJETEE. Both decisions are final; paying the aid out belongs to the payouts area.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.montants import montant_texte
from unionflow.core.numbering import random_reference
from unionflow.core.pagination import PageParams
from unionflow.core.permissions import Permission
from unionflow.demandes_aide.repository import DemandeAideRepository, DemandeFilters
from unionflow.demandes_aide.schemas import (
    TYPE_AIDE_DOMAINE,
    CreateDemandeAideRequest,
    DemandeAideResponse,
    UpdateDemandeAideRequest,
)
from unionflow.donnees_personnelles.service import exiger_consentement_sante
from unionflow.models import DemandeAide
from unionflow.models.demande_aide import StatutDemandeAide, UrgenceDemandeAide
from unionflow.notifications import workflow as notices
from unionflow.organisations.repository import OrganisationRepository
from unionflow.types_reference.service import require_code
from unionflow.webhooks import emission as webhooks

MODULE = "DEMANDES_AIDE"
DECISION_FIELDS = ["statut", "montant_accorde", "date_decision", "decide_par", "motif"]


def _check(value: str | None, enum: type[StatutDemandeAide] | type[UrgenceDemandeAide], name: str) -> str | None:
    if value is None or value == "":
        return None
    if value not in enum.__members__:
        raise RegleMetier(f"{name}: valeurs possibles {', '.join(enum.__members__)}")
    return value


def parse_filters(statut: str | None, type_: str | None, urgence: str | None) -> DemandeFilters:
    return DemandeFilters(statut=_check(statut, StatutDemandeAide, "statut"), type=type_ or None,
                          urgence=_check(urgence, UrgenceDemandeAide, "urgence"))


class DemandeAideService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = DemandeAideRepository(session, auth)

    async def _get(self, demande_id: uuid.UUID, *, for_update: bool = False) -> DemandeAide:
        demande = await self.repo.get(demande_id, for_update=for_update)
        if demande is None:
            raise NotFound("Demande d'aide introuvable")
        return demande

    async def creer(self, data: CreateDemandeAideRequest) -> DemandeAideResponse:
        if self.auth.membre_id is None:
            raise RegleMetier("Aucune fiche membre n'est liée à votre compte: impossible de déposer une demande")
        organisation = await OrganisationRepository(self.session, self.auth).get(data.organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        if data.organisation_id not in self.auth.member_organisations:
            raise RegleMetier("organisationId: vous n'êtes pas membre actif de cette organisation")
        await require_code(self.session, TYPE_AIDE_DOMAINE, data.type, "type")
        await exiger_consentement_sante(self.session, self.auth.membre_id, data.organisation_id, data.type)
        now = datetime.now(UTC)
        demande = DemandeAide(
            numero_reference=random_reference("AIDE", now.year), organisation_id=data.organisation_id,
            membre_id=self.auth.membre_id, type_aide=data.type, titre=data.titre, description=data.description,
            montant_demande=data.montant_demande, devise=organisation.devise, urgence=data.urgence.value,
            statut=StatutDemandeAide.SOUMISE.value, date_soumission=now)
        self.repo.add(demande)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="DemandeAide",
                           entite_id=demande.id, organisation_id=demande.organisation_id,
                           after=audit.snapshot(demande), description=f"Demande d'aide {demande.numero_reference}")
        await notices.approbation_en_attente(
            self.session, demande.organisation_id, Permission.AIDE_DECIDER,
            f"Demande d'aide {demande.numero_reference} à examiner",
            f"Demande « {demande.titre} » de "
            f"{montant_texte(demande.montant_demande, demande.devise)} soumise; elle attend "
            "votre décision.", ("DemandeAide", demande.id), self.auth.actor_name, sauf=demande.membre_id)
        return DemandeAideResponse.model_validate(demande)

    async def obtenir(self, demande_id: uuid.UUID) -> DemandeAideResponse:
        return DemandeAideResponse.model_validate(await self._get(demande_id))

    async def lister(self, filters: DemandeFilters, params: PageParams) -> tuple[list[DemandeAideResponse], int]:
        if filters.type is not None:
            await require_code(self.session, TYPE_AIDE_DOMAINE, filters.type, "type", inactif_admis=True)
        rows, total, _ = await self.repo.search(filters, params)
        return [DemandeAideResponse.model_validate(r) for r in rows], total

    async def modifier(self, demande_id: uuid.UUID, data: UpdateDemandeAideRequest) -> DemandeAideResponse:
        demande = await self._get(demande_id, for_update=True)
        if demande.membre_id != self.auth.membre_id:
            self.auth.require(Permission.AIDE_DECIDER, demande.organisation_id,
                              "Seuls le demandeur et le bureau de l'organisation modifient cette demande")
        if demande.statut != StatutDemandeAide.SOUMISE:
            raise InvalidState(f"Demande déjà décidée ({demande.statut}): elle n'est plus modifiable")
        changes = data.model_dump(exclude_unset=True)
        nulls = [k for k, v in changes.items() if v is None]
        if nulls:
            raise RegleMetier(f"{', '.join(nulls)}: null interdit")
        if not changes:
            return DemandeAideResponse.model_validate(demande)
        if "type" in changes and changes["type"] != demande.type_aide:
            await require_code(self.session, TYPE_AIDE_DOMAINE, changes["type"], "type")
            await exiger_consentement_sante(self.session, demande.membre_id, demande.organisation_id,
                                            changes["type"])
        before = audit.snapshot(demande)
        for key, value in changes.items():
            setattr(demande, "type_aide" if key == "type" else key, getattr(value, "value", value))
        await self.session.flush()
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="DemandeAide",
                           entite_id=demande.id, organisation_id=demande.organisation_id, before=before,
                           after=audit.snapshot(demande))
        return DemandeAideResponse.model_validate(demande)

    def _check_decider(self, demande: DemandeAide) -> None:
        self.auth.require(Permission.AIDE_DECIDER, demande.organisation_id,
                          "Seuls ADMIN, SUPER_ADMIN, l'ADMIN_ORGANISATION et le PRESIDENT de l'organisation "
                          "décident d'une aide")
        if demande.membre_id == self.auth.membre_id:
            raise Forbidden("Nul ne décide de sa propre demande d'aide")

    async def decider(self, demande_id: uuid.UUID, statut: StatutDemandeAide, motif: str | None,
                     montant_accorde: Decimal | None = None) -> DemandeAideResponse:
        demande = await self._get(demande_id, for_update=True)
        self._check_decider(demande)
        if demande.statut != StatutDemandeAide.SOUMISE:
            raise InvalidState(f"Demande déjà décidée ({demande.statut})")
        before = audit.snapshot(demande, DECISION_FIELDS)
        if statut is StatutDemandeAide.APPROUVEE:
            accorde = demande.montant_demande if montant_accorde is None else montant_accorde
            if accorde > demande.montant_demande:
                raise RegleMetier(f"montantAccorde ({accorde}) supérieur au montant demandé "
                                   f"({demande.montant_demande})")
            demande.montant_accorde = accorde
        demande.statut = statut.value
        demande.date_decision = datetime.now(UTC)
        demande.decide_par = self.auth.actor_name
        demande.motif = motif
        await self.session.flush()
        action = "APPROUVER" if statut is StatutDemandeAide.APPROUVEE else "REJETER"
        await audit.record(self.session, self.auth, action=action,
                           module=MODULE, entite_type="DemandeAide", entite_id=demande.id,
                           organisation_id=demande.organisation_id, before=before,
                           after=audit.snapshot(demande, DECISION_FIELDS))
        await webhooks.emettre(self.session, demande.organisation_id, webhooks.EvenementWebhook.DEMANDE_AIDE_DECIDEE,
                               {"demandeAideId": demande.id, "membreId": demande.membre_id, "statut": demande.statut,
                                "montantDemande": demande.montant_demande, "montantAccorde": demande.montant_accorde})
        await notices.decision_aide(self.session, demande, self.auth.actor_name)
        return DemandeAideResponse.model_validate(demande)
