"""What an operator needs to know about a running installation, without reading its environment."""

from __future__ import annotations

import platform
import sys
from typing import Any

from alembic.migration import MigrationContext
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow import __version__
from unionflow.config import Settings
from unionflow.system.schemas import ComposantResponse, SystemeResponse


def _revisions(connection: Any) -> list[str]:
    return sorted(MigrationContext.configure(connection).get_current_heads())


class SystemeService:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings

    async def informations(self) -> SystemeResponse:
        connection = await self.session.connection()
        revisions = await connection.run_sync(_revisions)
        s = self.settings
        # Only whether a secret is set is reported, never the secret.
        composants = [
            ComposantResponse(nom="base_de_donnees", etat="UP", detail=connection.dialect.name),
            ComposantResponse(nom="fournisseur_identite_integre", etat="ACTIF" if s.builtin_idp_enabled else "INACTIF",
                              detail=s.issuer),
            ComposantResponse(nom="fournisseur_identite_externe", etat="ACTIF" if s.oidc_issuer else "NON_CONFIGURE",
                              detail=s.oidc_issuer),
            ComposantResponse(nom="keycloak_admin", etat="ACTIF" if s.keycloak_admin_url else "NON_CONFIGURE",
                              detail=s.keycloak_realm),
            ComposantResponse(nom="redis", etat="ACTIF" if s.redis_url else "NON_CONFIGURE",
                              detail="limitation des connexions"),
            ComposantResponse(nom="wave", etat="ACTIF" if s.wave_api_key and s.wave_webhook_secret else "NON_CONFIGURE",
                              detail=s.wave_api_base_url),
            ComposantResponse(nom="stockage_documents", etat="ACTIF", detail=s.storage_backend),
        ]
        return SystemeResponse(
            version=__version__, environnement=s.environment, python=sys.version.split()[0],
            plateforme=platform.platform(terse=True), revisions_schema=revisions,
            devise_par_defaut=s.default_currency, pays_par_defaut=s.default_country,
            taille_page_max=s.max_page_size, taille_televersement_max=s.upload_max_bytes, composants=composants,
        )
