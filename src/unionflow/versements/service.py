"""Payouts: created with their Wave idempotency key already stored, then confirmed (sent) by a second
person of the treasury; a retry of the confirmation reuses the stored key, so Wave never pays twice."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Forbidden, InvalidInput, InvalidState, NotFound
from unionflow.core.numbering import sequential_number
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.finance.approbations import integration as approbations
from unionflow.models import Organisation, TransactionWave, Versement
from unionflow.paiements.idempotence import Idempotence, Reponse
from unionflow.paiements.wave_accounts import client_for_compte, client_for_organisation
from unionflow.paiements.wave_client import wave_amount
from unionflow.versements.repository import VersementFilters, VersementRepository
from unionflow.versements.schemas import (
    ModeVersement,
    MotifRequest,
    ObjetVersement,
    StatutVersement,
    VersementConfirmation,
    VersementCreate,
    VersementResponse,
)

MODULE = "VERSEMENTS"
WAVE_STATUS = {"succeeded": StatutVersement.REUSSI, "failed": StatutVersement.ECHOUE,
               "reversed": StatutVersement.ECHOUE, "processing": StatutVersement.EN_COURS}


class VersementService:
    def __init__(self, session: AsyncSession, auth: AuthContext, settings: Settings) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = VersementRepository(session, auth)

    async def _get(self, versement_id: uuid.UUID, *, for_update: bool = False) -> Versement:
        versement = await self.repo.get(versement_id, for_update=for_update)
        if versement is None:
            raise NotFound("Versement introuvable")
        return versement

    async def get(self, versement_id: uuid.UUID) -> VersementResponse:
        return VersementResponse.model_validate(await self._get(versement_id))

    async def search(self, filters: VersementFilters, params: PageParams) -> Page[VersementResponse]:
        rows, total, exact = await self.repo.search(filters, params)
        return Page[VersementResponse].build([VersementResponse.model_validate(r) for r in rows], params, total, exact)

    async def create(self, data: VersementCreate, idempotency_key: str | None) -> Reponse:
        idem = Idempotence(self.session, self.auth, "POST /api/versements", idempotency_key,
                           data.model_dump(mode="json"))
        replay = await idem.begin()
        if replay is not None:
            return replay
        if not staff_sees(self.auth, data.organisation_id):
            raise NotFound("Organisation introuvable")
        self.auth.require(Permission.VERSEMENT_INITIER, data.organisation_id,
                          "Seule la trésorerie de l'organisation initie un versement")
        # Lock the organisation: concurrent payouts are checked against the balance one at a time.
        organisation = (await self.session.execute(select(Organisation).where(
            Organisation.id == data.organisation_id).with_for_update())).scalar_one_or_none()
        if organisation is None:
            raise NotFound("Organisation introuvable")
        if data.objet_type in {ObjetVersement.COTISATIONS, ObjetVersement.ADHESIONS}:
            available = await self.repo.available(organisation.id, data.objet_type)
            if data.montant > available:
                raise InvalidState(f"Solde insuffisant: {available} {data.devise} encaissés et non encore versés "
                                   f"au titre des {data.objet_type.lower()}")
        compte_id = None
        if data.mode == ModeVersement.WAVE:
            _, compte_id = await client_for_organisation(self.session, self.settings, organisation.id)
        versement = Versement(
            numero=await sequential_number(self.session, "VER", datetime.now(UTC).year),
            organisation_id=organisation.id, montant=data.montant, devise=data.devise, mode=data.mode,
            objet_type=data.objet_type, objet_id=data.objet_id, motif=data.motif,
            beneficiaire_nom=data.beneficiaire_nom, beneficiaire_telephone=data.beneficiaire_telephone,
            statut=StatutVersement.EN_COURS, cle_idempotence=f"ver-{uuid.uuid4().hex}", compte_wave_id=compte_id,
            cree_par=self.auth.actor_name)
        self.session.add(versement)
        await self.session.flush()
        await approbations.demander_pour_versement(self.session, self.auth, versement)
        await audit.record(self.session, self.auth, action="CREATE", module=MODULE, entite_type="Versement",
                           entite_id=versement.id, organisation_id=organisation.id,
                           after=audit.snapshot(versement, ["numero", "montant", "mode", "objet_type", "statut"]))
        body = VersementResponse.model_validate(versement).model_dump(mode="json", by_alias=True)
        return await idem.finish(201, body)

    async def confirmer(self, versement_id: uuid.UUID, data: VersementConfirmation) -> VersementResponse:
        versement = await self._get(versement_id, for_update=True)
        self.auth.require(Permission.VERSEMENT_CONFIRMER, versement.organisation_id,
                          "Seule la trésorerie de l'organisation confirme un versement")
        if versement.statut != StatutVersement.EN_COURS:
            raise InvalidState(f"Versement déjà {versement.statut}")
        if versement.cree_par == self.auth.actor_name and not self.auth.is_global:
            raise Forbidden("Un versement est confirmé par une autre personne que celle qui l'a créé")
        await approbations.exiger_approbation(self.session, self.auth, versement)
        before = audit.snapshot(versement, ["statut", "payout_id", "reference_externe"])
        if versement.mode == ModeVersement.MANUEL:
            if not data.reference_externe:
                raise InvalidInput("referenceExterne est obligatoire pour confirmer un versement manuel")
            versement.reference_externe = data.reference_externe
            versement.statut = StatutVersement.REUSSI
            versement.date_execution = datetime.now(UTC)
        else:
            await self._send(versement)
        versement.confirme_par = self.auth.actor_name
        await self.session.flush()
        await audit.record(self.session, self.auth, action=f"VERSEMENT_{versement.statut}", module=MODULE,
                           entite_type="Versement", entite_id=versement.id, organisation_id=versement.organisation_id,
                           before=before, severite="WARNING" if versement.statut == StatutVersement.ECHOUE else "INFO",
                           after=audit.snapshot(versement, ["statut", "payout_id", "reference_externe"]))
        return VersementResponse.model_validate(versement)

    async def _send(self, versement: Versement) -> None:
        client = await client_for_compte(self.session, self.settings, versement.compte_wave_id)
        remote: dict[str, Any]
        if versement.payout_id is None:
            assert versement.beneficiaire_telephone is not None
            remote = await client.create_payout(
                currency=versement.devise, receive_amount=wave_amount(versement.montant),
                mobile=versement.beneficiaire_telephone, name=versement.beneficiaire_nom,
                client_reference=str(versement.id), idempotency_key=versement.cle_idempotence)
        else:
            remote = await client.get_payout(versement.payout_id)
        versement.payout_id = str(remote.get("id")) or versement.payout_id
        versement.statut = WAVE_STATUS.get(str(remote.get("status")), StatutVersement.EN_COURS)
        if versement.statut == StatutVersement.REUSSI:
            versement.date_execution = datetime.now(UTC)
        if versement.statut == StatutVersement.ECHOUE:
            error = remote.get("payout_error") or {}
            versement.motif_echec = f"{error.get('error_code', '')} {error.get('error_message', '')}".strip()
        self.session.add(TransactionWave(
            organisation_id=versement.organisation_id, type_transaction="VERSEMENT", statut=str(remote.get("status")),
            versement_id=versement.id, reference_wave=versement.payout_id, montant=versement.montant,
            devise=versement.devise))

    async def annuler(self, versement_id: uuid.UUID, data: MotifRequest) -> VersementResponse:
        versement = await self._get(versement_id, for_update=True)
        self.auth.require(Permission.VERSEMENT_INITIER, versement.organisation_id,
                          "Seule la trésorerie de l'organisation annule un versement")
        if versement.statut != StatutVersement.EN_COURS or versement.payout_id is not None:
            raise InvalidState("Seul un versement pas encore envoyé peut être annulé")
        before = audit.snapshot(versement, ["statut"])
        await approbations.retirer_pour_versement(self.session, self.auth, versement)
        versement.statut = StatutVersement.ANNULE
        versement.motif_echec = data.motif
        await self.session.flush()
        await audit.record(self.session, self.auth, action="VERSEMENT_ANNULE", module=MODULE,
                           entite_type="Versement", entite_id=versement.id, organisation_id=versement.organisation_id,
                           before=before, after=audit.snapshot(versement, ["statut"]), severite="WARNING",
                           description=data.motif)
        return VersementResponse.model_validate(versement)
