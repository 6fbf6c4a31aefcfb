"""API clients: creation (secret shown once), listing, revocation; the client credentials grant itself is in
auth/service.py. Rules in docs/integrations.md."""

from __future__ import annotations

import secrets
import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.clients_api.repository import ClientApiRepository
from unionflow.clients_api.schemas import (
    ORGANISATIONS_REQUISES,
    ClientApiCreatedResponse,
    ClientApiResponse,
    CreateClientApiRequest,
)
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.core.passwords import hash_password
from unionflow.core.permissions import Permission
from unionflow.core.roles import GLOBAL_ROLES, ORGANISATION_STAFF_ROLES, Role
from unionflow.models import ClientApi
from unionflow.models.base import utcnow
from unionflow.organisations.repository import OrganisationRepository

_AUDITED = ["client_id", "nom", "roles", "organisation_ids", "actif"]


class ClientApiService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.clients = ClientApiRepository(session)

    async def creer(self, data: CreateClientApiRequest) -> ClientApiCreatedResponse:
        self.auth.require(Permission.CLIENT_API_GERER, None)
        roles = sorted({r.value for r in data.roles})
        personal = [r for r in roles if r not in GLOBAL_ROLES | ORGANISATION_STAFF_ROLES]
        if personal:
            raise RegleMetier(f"Un client API n'a pas de fiche membre: rôles refusés {', '.join(personal)}")
        if Role.SUPER_ADMIN in roles and Role.SUPER_ADMIN not in self.auth.roles:
            raise Forbidden("Seul un SUPER_ADMIN peut créer un client API SUPER_ADMIN")
        organisations = sorted({str(o) for o in data.organisation_ids})
        if set(roles) - GLOBAL_ROLES and not organisations:
            raise RegleMetier(ORGANISATIONS_REQUISES)
        orgs = OrganisationRepository(self.session, self.auth)
        for org in organisations:
            if not await orgs.exists(uuid.UUID(org)):
                raise RegleMetier(f"Organisation introuvable: {org}")
        secret = "ufs_" + secrets.token_urlsafe(32)
        client = ClientApi(client_id="ufc_" + secrets.token_hex(12), nom=data.nom, description=data.description,
                           secret_hash=hash_password(secret), roles=roles, organisation_ids=organisations,
                           actif=True, cree_par=self.auth.actor_name)
        self.clients.add(client)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="CREER", module="CLIENTS_API", entite_type="ClientApi",
                           entite_id=client.id, description=f"Client API {client.nom} ({client.client_id})",
                           after=audit.snapshot(client, _AUDITED))
        return ClientApiCreatedResponse(**ClientApiResponse.model_validate(client).model_dump(),
                                        client_secret=secret)

    async def lister(self, actif: bool | None, params: PageParams) -> Page[ClientApiResponse]:
        rows, total, exact = await self.clients.search(actif, params)
        return Page[ClientApiResponse].build([ClientApiResponse.model_validate(r) for r in rows], params, total, exact)

    async def _get(self, id: uuid.UUID) -> ClientApi:
        client = await self.clients.get(id)
        if client is None:
            raise NotFound("Client API introuvable")
        return client

    async def obtenir(self, id: uuid.UUID) -> ClientApiResponse:
        return ClientApiResponse.model_validate(await self._get(id))

    async def revoquer(self, id: uuid.UUID) -> ClientApiResponse:
        client = await self._get(id)
        self.auth.require(Permission.CLIENT_API_GERER, None)
        if not client.actif:
            raise InvalidState("Ce client API est déjà révoqué")
        before = audit.snapshot(client, _AUDITED)
        client.actif, client.revoque_le, client.revoque_par = False, utcnow(), self.auth.actor_name
        await audit.record(self.session, self.auth, action="REVOQUER", module="CLIENTS_API", entite_type="ClientApi",
                           entite_id=client.id, description=f"Révocation du client API {client.client_id}",
                           before=before, after=audit.snapshot(client, _AUDITED), severite="WARNING")
        await self.session.flush()
        return ClientApiResponse.model_validate(client)
