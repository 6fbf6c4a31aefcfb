"""Organisations' Wave accounts (credentials kept server-side), which credentials talk to Wave, the balance and the
journal of Wave operations."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.tresorerie import compte_de_type
from unionflow.comptabilite.repository import ComptabiliteSystemRepository
from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.db import flush_unique
from unionflow.core.errors import InvalidInput, NotFound, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.models import CompteWave, TransactionWave, Versement
from unionflow.models.wave import StatutCompteWave
from unionflow.organisations.repository import OrganisationRepository
from unionflow.wave.client import WaveClient, wave_amount
from unionflow.wave.repository import CompteWaveRepository, CompteWaveSystemRepository
from unionflow.wave.schemas import (
    CompteWaveResponse,
    CreateCompteWaveRequest,
    OrigineMontant,
    SoldeWaveResponse,
    TransactionWaveResponse,
    UpdateCompteWaveRequest,
)

MODULE = "WAVE"
PARTAGE_MASQUE = ("Compte Wave partagé de l'union: son solde est celui de toutes les organisations et n'est pas "
                  "communiqué; montant = solde comptable du compte Wave de l'organisation")
PUBLIC_FIELDS = ["libelle", "numero_telephone", "statut"]


def mask(secret: str | None) -> str | None:
    return f"••••{secret[-4:]}" if secret else None


async def client_for_organisation(session: AsyncSession, settings: Settings,
                                  organisation_id: uuid.UUID) -> tuple[WaveClient, uuid.UUID | None]:
    """An organisation's own active account when it has one with an API key, otherwise the union's account
    configured in settings; with the id of the account used (None: the union's)."""
    compte = await CompteWaveSystemRepository(session).compte_actif(organisation_id)
    if compte is None:
        return WaveClient(settings), None
    return WaveClient(settings, api_key=compte.cle_api), compte.id


async def client_for_compte(session: AsyncSession, settings: Settings, compte_id: uuid.UUID | None) -> WaveClient:
    if compte_id is not None:
        compte = await CompteWaveSystemRepository(session).get(compte_id)
        if compte is not None and compte.cle_api:
            return WaveClient(settings, api_key=compte.cle_api)
    return WaveClient(settings)


async def webhook_secrets(session: AsyncSession, settings: Settings) -> list[str]:
    secrets = [settings.wave_webhook_secret] if settings.wave_webhook_secret else []
    secrets.extend(await CompteWaveSystemRepository(session).secrets_webhook())
    return secrets


def _response(compte: CompteWave) -> CompteWaveResponse:
    return CompteWaveResponse(id=compte.id, organisation_id=compte.organisation_id, libelle=compte.libelle,
                              numero_telephone=compte.numero_telephone, statut=compte.statut,
                              cle_api_indice=mask(compte.cle_api), secret_webhook_indice=mask(compte.secret_webhook),
                              created_at=compte.created_at, updated_at=compte.updated_at)


class CompteWaveService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings | None = None) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = CompteWaveRepository(session, auth)

    async def _get(self, compte_id: uuid.UUID, *, for_update: bool = False) -> CompteWave:
        compte = await self.repo.get(compte_id, for_update=for_update)
        if compte is None:
            raise NotFound("Compte Wave introuvable")
        return compte

    async def lister(self, organisation_id: uuid.UUID | None) -> list[CompteWaveResponse]:
        return [_response(c) for c in await self.repo.comptes(organisation_id)]

    async def obtenir(self, compte_id: uuid.UUID) -> CompteWaveResponse:
        return _response(await self._get(compte_id))

    async def _flush_unique(self) -> None:
        await flush_unique(self.session, "Ce numéro Wave est déjà enregistré pour cette organisation")

    async def creer(self, data: CreateCompteWaveRequest) -> CompteWaveResponse:
        if not staff_sees(self.auth, data.organisation_id) or not await OrganisationRepository(
                self.session, self.auth).exists(data.organisation_id):
            raise NotFound("Organisation introuvable")
        self._exiger(data.organisation_id)
        compte = CompteWave(**data.model_dump(), statut=StatutCompteWave.ACTIF)
        self.session.add(compte)
        await self._flush_unique()
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="CompteWave",
                           entite_id=compte.id, organisation_id=compte.organisation_id,
                           after=audit.snapshot(compte, PUBLIC_FIELDS))
        return _response(compte)

    def _exiger(self, organisation_id: uuid.UUID) -> None:
        self.auth.require(Permission.WAVE_COMPTE_GERER, organisation_id,
                          "Seule la trésorerie de l'organisation gère ses comptes Wave")

    async def modifier(self, compte_id: uuid.UUID, data: UpdateCompteWaveRequest) -> CompteWaveResponse:
        """Rename, change the number, rotate a secret, deactivate (``statut`` INACTIF: payments and payouts then
        go through the union's account) or reactivate."""
        compte = await self._get(compte_id, for_update=True)
        self._exiger(compte.organisation_id)
        changes = data.model_dump(exclude_unset=True)
        if not changes:
            raise InvalidInput("Aucune modification")
        before = audit.snapshot(compte, PUBLIC_FIELDS)
        for key, value in changes.items():
            setattr(compte, key, value)
        await self._flush_unique()
        # Secrets never enter the audit trail; only the fact that they changed.
        rotated = [k for k in ("cle_api", "secret_webhook") if k in changes]
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="CompteWave",
                           entite_id=compte.id, organisation_id=compte.organisation_id, before=before,
                           after={**audit.snapshot(compte, PUBLIC_FIELDS), "secrets_modifies": rotated},
                           severite="WARNING" if rotated else "INFO")
        return _response(compte)

    async def supprimer(self, compte_id: uuid.UUID) -> None:
        compte = await self._get(compte_id, for_update=True)
        self._exiger(compte.organisation_id)
        before = audit.snapshot(compte, PUBLIC_FIELDS)
        # Sessions and payouts keep a reference for their audit trail: such an account is deactivated instead.
        compte.statut = StatutCompteWave.INACTIF
        compte.cle_api = None
        compte.secret_webhook = None
        await self.session.flush()
        await audit.record(self.session, self.auth, action="SUPPRIMER", module=MODULE, entite_type="CompteWave",
                           entite_id=compte.id, organisation_id=compte.organisation_id, before=before,
                           severite="WARNING")

    async def lister_transactions(self, params: PageParams, organisation_id: uuid.UUID | None,
                                  type_transaction: str | None,
                                  paiement_id: uuid.UUID | None) -> Page[TransactionWaveResponse]:
        rows, total, exact = await self.repo.transactions(params, organisation_id, type_transaction, paiement_id)
        return Page[TransactionWaveResponse].build([TransactionWaveResponse.model_validate(r) for r in rows],
                                                   params, total, exact)

    async def solde(self, organisation_id: uuid.UUID | None) -> SoldeWaveResponse:
        org_id = organisation_id or self.auth.active_organisation_id
        if org_id is None:
            raise RegleMetier("Précisez organisationId ou l'en-tête X-Active-Organisation-Id")
        organisations = OrganisationRepository(self.session, self.auth)
        if not staff_sees(self.auth, org_id) or not await organisations.exists(org_id):
            raise NotFound("Organisation introuvable")
        assert self.settings is not None
        client, compte_id = await client_for_organisation(self.session, self.settings, org_id)
        # The organisation's own figures: its Wave account in its books (its Wave treasury's, else 5521 or a
        # former 5215).
        solde_comptable = await ComptabiliteSystemRepository(self.session).solde_numero(
            org_id, await compte_de_type(self.session, org_id, "WAVE"))
        partage = compte_id is None
        if partage and not self.auth.is_global:
            # The union's shared account holds every organisation's money: its balance is not theirs to see.
            return SoldeWaveResponse(
                organisation_id=org_id, compte_wave_id=None, montant=solde_comptable, devise="XOF",
                origine_montant=OrigineMontant.COMPTABLE, compte_partage=True, solde_comptable=solde_comptable,
                solde_wave=None, ecart=None, message=PARTAGE_MASQUE)
        remote = await client.balance()
        solde_wave = Decimal(str(remote.get("amount", "0")))
        return SoldeWaveResponse(
            organisation_id=org_id, compte_wave_id=compte_id, montant=solde_wave,
            devise=str(remote.get("currency", "XOF")), origine_montant=OrigineMontant.WAVE, compte_partage=partage,
            solde_comptable=solde_comptable, solde_wave=solde_wave,
            ecart=None if partage else solde_comptable - solde_wave,
            message="Compte Wave partagé de l'union: le solde Wave est celui de toutes les organisations"
            if partage else None)


async def envoyer_payout(session: AsyncSession, settings: Settings, versement: Versement) -> dict[str, Any]:
    """Send the payout to Wave with its stored idempotency key (a retry never pays twice), or re-read it once sent;
    journaled. Returns Wave's payout."""
    client = await client_for_compte(session, settings, versement.compte_wave_id)
    remote: dict[str, Any]
    if versement.payout_id is None:
        assert versement.beneficiaire_telephone is not None
        remote = await client.create_payout(
            currency=versement.devise, receive_amount=wave_amount(versement.montant),
            mobile=versement.beneficiaire_telephone, name=versement.beneficiaire_nom,
            client_reference=str(versement.id), idempotency_key=versement.cle_idempotence)
    else:
        remote = await client.get_payout(versement.payout_id)
    session.add(TransactionWave(
        organisation_id=versement.organisation_id, type_transaction="VERSER", statut=str(remote.get("status")),
        versement_id=versement.id, reference_wave=str(remote.get("id")) or versement.payout_id,
        montant=versement.montant, devise=versement.devise))
    return remote
