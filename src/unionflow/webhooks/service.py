"""Webhook subscriptions of an organisation, their deliveries, and replay (docs/integrations.md)."""

from __future__ import annotations

import secrets
import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import InvalidState, NotFound, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.models import AbonnementWebhook, LivraisonWebhook
from unionflow.organisations.repository import OrganisationRepository
from unionflow.webhooks.repository import AbonnementWebhookRepository
from unionflow.webhooks.schemas import (
    AbonnementWebhookResponse,
    AbonnementWebhookSecretResponse,
    CreateAbonnementWebhookRequest,
    LivraisonWebhookResponse,
    UpdateAbonnementWebhookRequest,
)
from unionflow.webhooks.securite import motif_url_refusee

MODULE = "WEBHOOKS"
_AUDITED = ["url", "evenements", "description", "actif", "echecs_consecutifs"]


def _secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


class WebhookService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = AbonnementWebhookRepository(session, auth)

    def _check_url(self, url: str) -> None:
        if why := motif_url_refusee(url, self.settings.webhook_autoriser_adresses_privees):
            raise RegleMetier(why)

    async def _abonnement(self, id: uuid.UUID, *, for_update: bool = False) -> AbonnementWebhook:
        abonnement = await self.repo.get(id, for_update=for_update)
        if abonnement is None:
            raise NotFound("Abonnement webhook introuvable")
        return abonnement

    async def _audit(self, abonnement: AbonnementWebhook, action: str, before: dict[str, object] | None,
                     description: str) -> None:
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type="AbonnementWebhook",
                           entite_id=abonnement.id, organisation_id=abonnement.organisation_id, before=before,
                           after=audit.snapshot(abonnement, _AUDITED) if action != "SUPPRIMER" else None,
                           description=description)

    async def creer(self, data: CreateAbonnementWebhookRequest) -> AbonnementWebhookSecretResponse:
        if not await OrganisationRepository(self.session, self.auth).exists(data.organisation_id):
            raise NotFound("Organisation introuvable")
        self.auth.require(Permission.WEBHOOK_GERER, data.organisation_id)
        self._check_url(data.url)
        abonnement = AbonnementWebhook(organisation_id=data.organisation_id, url=data.url,
                                       evenements=sorted({e.value for e in data.evenements}),
                                       description=data.description, secret=_secret(), actif=True,
                                       echecs_consecutifs=0, cree_par=self.auth.actor_name)
        self.repo.add(abonnement)
        await self.session.flush()
        await self._audit(abonnement, "CREER", None, f"Abonnement webhook vers {abonnement.url}")
        return AbonnementWebhookSecretResponse.model_validate(abonnement)

    async def lister(self, organisation_id: uuid.UUID | None, params: PageParams) -> Page[AbonnementWebhookResponse]:
        rows, total, exact = await self.repo.abonnements(organisation_id, params)
        return Page[AbonnementWebhookResponse].build([AbonnementWebhookResponse.model_validate(r) for r in rows],
                                                     params, total, exact)

    async def obtenir(self, id: uuid.UUID) -> AbonnementWebhookResponse:
        return AbonnementWebhookResponse.model_validate(await self._abonnement(id))

    async def modifier(self, id: uuid.UUID, data: UpdateAbonnementWebhookRequest) -> AbonnementWebhookResponse:
        abonnement = await self._abonnement(id, for_update=True)
        self.auth.require(Permission.WEBHOOK_GERER, abonnement.organisation_id)
        before = audit.snapshot(abonnement, _AUDITED)
        changes = data.model_dump(exclude_unset=True)
        if changes.get("url") is not None:
            self._check_url(changes["url"])
            abonnement.url = changes["url"]
        if changes.get("evenements") is not None:
            abonnement.evenements = sorted({e.value for e in data.evenements or []})
        if "description" in changes:
            abonnement.description = changes["description"]
        if changes.get("actif") is not None and changes["actif"] != abonnement.actif:
            abonnement.actif = changes["actif"]
            if abonnement.actif:
                # Reactivation: pending deliveries resume and the failure count starts again.
                abonnement.echecs_consecutifs, abonnement.desactive_le, abonnement.motif_desactivation = 0, None, None
        await self.session.flush()
        await self._audit(abonnement, "MODIFIER", before, f"Abonnement webhook vers {abonnement.url}")
        return AbonnementWebhookResponse.model_validate(abonnement)

    async def renouveler_secret(self, id: uuid.UUID) -> AbonnementWebhookSecretResponse:
        abonnement = await self._abonnement(id, for_update=True)
        self.auth.require(Permission.WEBHOOK_GERER, abonnement.organisation_id)
        abonnement.secret = _secret()
        await self.session.flush()
        await self._audit(abonnement, "RENOUVELER_SECRET", None, "Nouvelle clé de signature du webhook")
        return AbonnementWebhookSecretResponse.model_validate(abonnement)

    async def supprimer(self, id: uuid.UUID) -> None:
        abonnement = await self._abonnement(id, for_update=True)
        self.auth.require(Permission.WEBHOOK_GERER, abonnement.organisation_id)
        before = audit.snapshot(abonnement, _AUDITED)
        await self._audit(abonnement, "SUPPRIMER", before, f"Abonnement webhook vers {abonnement.url} supprimé")
        await self.repo.delete(abonnement)
        await self.session.flush()

    async def livraisons(self, id: uuid.UUID, statut: str | None,
                         params: PageParams) -> Page[LivraisonWebhookResponse]:
        await self._abonnement(id)
        rows, total, exact = await self.repo.livraisons(id, statut, params)
        return Page[LivraisonWebhookResponse].build([LivraisonWebhookResponse.model_validate(r) for r in rows],
                                                    params, total, exact)

    async def rejouer(self, livraison_id: uuid.UUID) -> LivraisonWebhookResponse:
        """A new delivery of the same event (same ``id`` in the body, so the receiver can de-duplicate); the
        original keeps its history."""
        origine = await self.repo.livraison(livraison_id)
        if origine is None:
            raise NotFound("Livraison webhook introuvable")
        abonnement = await self._abonnement(origine.abonnement_id)
        self.auth.require(Permission.WEBHOOK_GERER, abonnement.organisation_id)
        if not abonnement.actif:
            raise InvalidState("Abonnement désactivé: réactivez-le avant de rejouer une livraison")
        copie = LivraisonWebhook(abonnement_id=abonnement.id, organisation_id=abonnement.organisation_id,
                                 evenement=origine.evenement, evenement_id=origine.evenement_id,
                                 charge=origine.charge, statut="EN_ATTENTE", tentatives=0, historique=[],
                                 rejeu_de=origine.id)
        self.repo.add(copie)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="REJOUER", module=MODULE, entite_type="LivraisonWebhook",
                           entite_id=copie.id, organisation_id=abonnement.organisation_id,
                           description=f"Rejeu de la livraison {origine.id} ({origine.evenement})",
                           after={"rejeuDe": origine.id, "evenementId": origine.evenement_id})
        return LivraisonWebhookResponse.model_validate(copie)
