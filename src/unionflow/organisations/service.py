from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.configuration.service import valeur
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.models import Organisation
from unionflow.models.organisation import StatutOrganisation, TypeOrganisation
from unionflow.organisations.ports import MISE_EN_PLACE
from unionflow.organisations.repository import OrganisationRepository
from unionflow.organisations.schemas import (
    NIVEAU,
    CreateOrganisationRequest,
    OrganisationResponse,
    UpdateOrganisationRequest,
)

MODULE = "ORGANISATIONS"


class OrganisationService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = OrganisationRepository(session, auth)

    async def _get(self, organisation_id: uuid.UUID, *, for_update: bool = False) -> Organisation:
        organisation = await self.repo.get(organisation_id, for_update=for_update)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        return organisation

    async def _check_parent(self, type_org: str, parent_id: uuid.UUID | None, self_id: uuid.UUID | None) -> None:
        if parent_id is None:
            return
        if parent_id == self_id:
            raise RegleMetier("Une organisation ne peut pas être son propre parent")
        parent = await self.repo.get(parent_id)
        if parent is None:
            raise NotFound("Organisation parente introuvable")
        if NIVEAU[TypeOrganisation(parent.type_organisation)] >= NIVEAU[TypeOrganisation(type_org)]:
            raise RegleMetier(f"Une organisation {type_org} ne peut pas dépendre d'une {parent.type_organisation}")

    async def creer(self, data: CreateOrganisationRequest) -> OrganisationResponse:
        # An organisation administrator may only open sub-organisations under one they manage.
        if not self.auth.is_global:
            self.auth.require(Permission.ORGANISATION_MODIFIER, data.parent_id,
                              "Seule une organisation que vous administrez peut recevoir une sous-organisation")
        await self._check_parent(data.type_organisation, data.parent_id, None)
        values = data.model_dump()
        values["devise"] = data.devise or await valeur(self.session, "devise.defaut")
        organisation = Organisation(**values, statut=StatutOrganisation.ACTIVE.value)
        if organisation.email:
            organisation.email = organisation.email.lower()
        self.repo.add(organisation)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="Organisation",
                           entite_id=organisation.id, after=audit.snapshot(organisation),
                           organisation_id=organisation.id, description=f"Création de {organisation.nom}")
        # A new organisation keeps its books in the SYCEBNL numbering from its first receipt (docs/decisions.md,
        # « The SYCEBNL numbering for new organisations »); those created before keep the former default.
        await MISE_EN_PLACE(self.session).organisation_creee(organisation.id, self.auth)
        return OrganisationResponse.model_validate(organisation)

    async def modifier(self, organisation_id: uuid.UUID, data: UpdateOrganisationRequest) -> OrganisationResponse:
        organisation = await self._get(organisation_id, for_update=True)
        self.auth.require(Permission.ORGANISATION_MODIFIER, organisation.id,
                          "Vous n'administrez pas cette organisation")
        changes = data.model_dump(exclude_unset=True)
        if changes.get("logo_document_id") is not None and not await self.repo.logo_candidate(
                changes["logo_document_id"], organisation.id):
            raise RegleMetier("Le logo doit être un document PNG ou JPEG de cette organisation")
        if "parent_id" in changes or "type_organisation" in changes:
            if not self.auth.is_global:
                raise Forbidden("Seul un administrateur de l'union modifie la hiérarchie")
            await self._check_parent(changes.get("type_organisation", organisation.type_organisation),
                                     changes.get("parent_id", organisation.parent_id), organisation.id)
        before = audit.snapshot(organisation)
        for key, value in changes.items():
            setattr(organisation, key, value.lower() if key == "email" and value else value)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="Organisation",
                           entite_id=organisation.id, before=before, after=audit.snapshot(organisation),
                           organisation_id=organisation.id)
        return OrganisationResponse.model_validate(organisation)

    async def changer_statut(self, organisation_id: uuid.UUID, statut: StatutOrganisation,
                         motif: str | None) -> OrganisationResponse:
        organisation = await self._get(organisation_id, for_update=True)
        if organisation.statut == statut.value:
            raise InvalidState(f"L'organisation est déjà {statut.value}")
        before = audit.snapshot(organisation, ["statut", "motif_suspension"])
        organisation.statut = statut.value
        organisation.motif_suspension = motif
        await self.session.flush()
        action = "SUSPENDRE" if statut is StatutOrganisation.SUSPENDUE else "REACTIVER"
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type="Organisation",
                           entite_id=organisation.id, before=before, severite="WARNING",
                           after=audit.snapshot(organisation, ["statut", "motif_suspension"]),
                           organisation_id=organisation.id)
        return OrganisationResponse.model_validate(organisation)

    async def children(self, organisation_id: uuid.UUID) -> list[OrganisationResponse]:
        await self._get(organisation_id)
        return [OrganisationResponse.model_validate(o) for o in await self.repo.children(organisation_id)]
