"""Which Wave credentials to use: an organisation's own active account when it has one with an API key,
otherwise the union's account configured in settings."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.models import CompteWave
from unionflow.paiements.wave_client import WaveClient


async def client_for_organisation(session: AsyncSession, settings: Settings,
                                  organisation_id: uuid.UUID) -> tuple[WaveClient, uuid.UUID | None]:
    compte = (await session.execute(
        select(CompteWave).where(CompteWave.organisation_id == organisation_id, CompteWave.statut == "ACTIF",
                                 CompteWave.cle_api.is_not(None))
        .order_by(CompteWave.created_at, CompteWave.id).limit(1))).scalar_one_or_none()
    if compte is None:
        return WaveClient(settings), None
    return WaveClient(settings, api_key=compte.cle_api), compte.id


async def client_for_compte(session: AsyncSession, settings: Settings, compte_id: uuid.UUID | None) -> WaveClient:
    if compte_id is not None:
        compte = await session.get(CompteWave, compte_id)
        if compte is not None and compte.cle_api:
            return WaveClient(settings, api_key=compte.cle_api)
    return WaveClient(settings)


async def webhook_secrets(session: AsyncSession, settings: Settings) -> list[str]:
    secrets = [settings.wave_webhook_secret] if settings.wave_webhook_secret else []
    rows = await session.execute(select(CompteWave.secret_webhook).where(
        CompteWave.statut == "ACTIF", CompteWave.secret_webhook.is_not(None)))
    secrets.extend(s for s in rows.scalars() if s)
    return secrets
