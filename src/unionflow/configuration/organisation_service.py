"""An organisation's own value of the settings that may differ per organisation: set by its
administrator or treasurer, audited; every other key stays the installation's (configuration/service.py)."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.configuration.repository import ConfigurationOrganisationRepository
from unionflow.configuration.schemas import ConfigurationOrganisationResponse, UpdateConfigurationOrganisationRequest
from unionflow.configuration.service import DEFAUTS, decode, encode, valeurs
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.models import ConfigurationOrganisation
from unionflow.models.configuration import TypeValeur

MODULE = "CONFIGURATION"
CLES_ORGANISATION = sorted(cle for cle, d in DEFAUTS.items() if d.par_organisation)


async def valeur_organisation(session: AsyncSession, organisation_id: uuid.UUID, cle: str) -> Any:
    """The organisation's value of ``cle`` if it set one, else the installation's (stored or built-in)."""
    own = await ConfigurationOrganisationRepository(session).get_by_cle(organisation_id, cle)
    if own is not None:
        return decode(TypeValeur(own.type_valeur), own.valeur)
    return (await valeurs(session, cle))[cle]


def _cle(cle: str) -> None:
    if cle not in CLES_ORGANISATION:
        raise NotFound(f"Clé non réglable par organisation: {cle} (clés: {', '.join(CLES_ORGANISATION)})")


class ConfigurationOrganisationService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = ConfigurationOrganisationRepository(session)

    async def _organisation(self, organisation_id: uuid.UUID) -> None:
        if not staff_sees(self.auth, organisation_id) or not await self.repo.organisation_existe(organisation_id):
            raise NotFound("Organisation introuvable")

    async def _response(self, organisation_id: uuid.UUID, cle: str,
                        own: ConfigurationOrganisation | None) -> ConfigurationOrganisationResponse:
        definition = DEFAUTS[cle]
        if own is None:
            return ConfigurationOrganisationResponse(
                cle=cle, valeur=(await valeurs(self.session, cle))[cle], type=definition.type,
                description=definition.description, propre=False)
        return ConfigurationOrganisationResponse(
            cle=cle, valeur=decode(TypeValeur(own.type_valeur), own.valeur), type=definition.type,
            description=definition.description, propre=True, modifie_par=own.modifie_par,
            date_modification=own.updated_at)

    async def lister(self, organisation_id: uuid.UUID) -> list[ConfigurationOrganisationResponse]:
        await self._organisation(organisation_id)
        own = await self.repo.of_organisation(organisation_id)
        return [await self._response(organisation_id, cle, own.get(cle)) for cle in CLES_ORGANISATION]

    async def definir(self, organisation_id: uuid.UUID, cle: str,
                      data: UpdateConfigurationOrganisationRequest) -> ConfigurationOrganisationResponse:
        await self._organisation(organisation_id)
        _cle(cle)
        self.auth.require(Permission.CONFIGURATION_ORGANISATION_GERER, organisation_id,
                          "Seuls l'administrateur et le trésorier de l'organisation règlent ses paramètres")
        definition = DEFAUTS[cle]
        text = encode(definition.type, data.valeur, definition)
        own = await self.repo.get_by_cle(organisation_id, cle, for_update=True)
        before = (await self._response(organisation_id, cle, own)).model_dump(mode="json", by_alias=True)
        if own is None:
            own = ConfigurationOrganisation(organisation_id=organisation_id, cle=cle, valeur=text,
                                            type_valeur=definition.type.value, modifie_par=self.auth.actor_name)
            self.repo.add(own)
        else:
            own.valeur = text
            own.modifie_par = self.auth.actor_name
        await self.session.flush()
        response = await self._response(organisation_id, cle, own)
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE,
                           entite_type="ConfigurationOrganisation", entite_id=cle, organisation_id=organisation_id,
                           severite="WARNING", before=before, after=response.model_dump(mode="json", by_alias=True),
                           description=f"Paramètre {cle} de l'organisation")
        return response
