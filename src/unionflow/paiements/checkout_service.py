"""Wave Checkout: open a session for what a member owes, apply webhooks exactly once, expire, refund.

Money is credited only after (1) a valid webhook signature, (2) the event id was never processed (unique row
inserted in the same transaction as the payment), (3) amount, currency and client_reference match the
pending payment, and (4) Wave's API, read back, says the session's payment succeeded.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, InvalidInput, InvalidState, NotFound, RegleMetier, UpstreamUnavailable
from unionflow.core.permissions import Permission
from unionflow.models import Paiement, TransactionWave, WaveCheckout, WaveEvenement
from unionflow.models.paiement import MethodePaiement, StatutPaiement
from unionflow.paiements.checkout_schemas import CreateWaveCheckoutRequest, WaveCheckoutResponse, WaveWebhookResponse
from unionflow.paiements.encaissement.emission import METHODES, notifier_payeur
from unionflow.paiements.encaissement.workflow import Cible, EncaissementService
from unionflow.paiements.repository import PaiementRepository, PaiementSystemRepository
from unionflow.wave import client as wave_protocol
from unionflow.wave.client import WaveClient, WaveRefused, wave_amount
from unionflow.wave.repository import WaveCheckoutRepository
from unionflow.wave.service import client_for_compte, client_for_organisation, webhook_secrets

MODULE = "PAIEMENTS"
COMPLETED = "checkout.session.completed"
FAILED = "checkout.session.payment_failed"
# A failed attempt does not close a Wave session (the customer may retry and pay), and a local expiry or
# cancellation may cross a payment in flight: money Wave confirms is applied from any of these.
CREDITABLE = frozenset({StatutPaiement.EN_ATTENTE, StatutPaiement.ECHOUE, StatutPaiement.EXPIRE,
                        StatutPaiement.ANNULE})


def _parse_time(value: Any) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _same_amount(value: Any, expected: Decimal) -> bool:
    try:
        return Decimal(str(value)) == expected
    except (InvalidOperation, ValueError):
        return False


class WaveCheckoutService:
    def __init__(self, session: AsyncSession, auth: AuthContext | None, settings: Settings) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.repo = PaiementRepository(session, auth)
        self.checkouts = WaveCheckoutRepository(session)

    async def _client(self, checkout: WaveCheckout) -> WaveClient:
        return await client_for_compte(self.session, self.settings, checkout.compte_wave_id)

    def _journal(self, type_transaction: str, statut: str, *, organisation_id: uuid.UUID | None,
                 paiement_id: uuid.UUID | None = None, reference: str | None = None,
                 montant: Decimal | None = None, devise: str = "XOF", details: dict[str, Any] | None = None) -> None:
        self.session.add(TransactionWave(
            organisation_id=organisation_id, type_transaction=type_transaction, statut=statut,
            paiement_id=paiement_id, reference_wave=reference, montant=montant, devise=devise, details=details))

    # ---- checkout -------------------------------------------------------------------------------------------

    async def payer(self, data: CreateWaveCheckoutRequest) -> WaveCheckoutResponse:
        assert self.auth is not None
        membre_id = data.membre_id or self.auth.membre_id
        if membre_id is None:
            raise RegleMetier("Aucune fiche membre n'est liée à votre compte: précisez membreId")
        # A member pays his own dues; paying for someone else needs the treasury of that organisation.
        if membre_id != self.auth.membre_id and not self.auth.can(Permission.PAIEMENT_ENREGISTRER,
                                                                  data.organisation_id):
            raise NotFound("Membre introuvable")
        for cible in data.cibles:
            owner = await self.repo.target_owner(cible.cotisation_id, cible.adhesion_id)
            if owner != (membre_id, data.organisation_id):
                raise NotFound("Cotisation ou adhésion introuvable")
        return await self.ouvrir(membre_id, data.organisation_id,
                                 [Cible(cotisation_id=c.cotisation_id, adhesion_id=c.adhesion_id, montant=c.montant)
                                  for c in data.cibles])

    async def ouvrir(self, membre_id: uuid.UUID, organisation_id: uuid.UUID, cibles: list[Cible], *,
                     reference_client: str | None = None,
                     telephone_payeur: str | None = None) -> WaveCheckoutResponse:
        """Open a Wave session for these targets of one member (ownership already checked by the caller).
        ``reference_client``: what Wave is given as client_reference instead of the payment's id (a dues' payment
        code, paiements/code_paiement); ``telephone_payeur``: told when the money arrives."""
        cot_ids = sorted({c.cotisation_id for c in cibles if c.cotisation_id})
        adh_ids = sorted({c.adhesion_id for c in cibles if c.adhesion_id})
        # Under the targets' row locks (the lock order of the payments), so that a declaration and a session
        # cannot both find the other absent (docs/decisions.md, « pas de double paiement »).
        await PaiementSystemRepository(self.session).lock_cibles(cot_ids, adh_ids)
        await self.refuser_si_reservees(membre_id, cot_ids, adh_ids, declaration=False)
        paiement = await EncaissementService(self.session, self.auth).preparer(
            membre_id=membre_id, organisation_id=organisation_id, methode=MethodePaiement.WAVE, cibles=cibles)
        if paiement.devise != "XOF":
            raise RegleMetier("Wave n'accepte que des paiements en XOF")
        if paiement.montant != paiement.montant.to_integral_value():
            raise RegleMetier("Un montant XOF payé par Wave doit être entier")
        client, compte_id = await client_for_organisation(self.session, self.settings, paiement.organisation_id)
        remote = await client.create_checkout(
            amount=wave_amount(paiement.montant), currency=paiement.devise,
            client_reference=reference_client or str(paiement.id),
            success_url=self.settings.wave_success_url, error_url=self.settings.wave_error_url,
            idempotency_key=str(paiement.id))
        checkout = WaveCheckout(
            paiement_id=paiement.id, checkout_id=str(remote["id"]), organisation_id=paiement.organisation_id,
            compte_wave_id=compte_id,
            montant=paiement.montant, devise=paiement.devise, launch_url=str(remote.get("wave_launch_url", "")),
            checkout_status=str(remote.get("checkout_status", "open")),
            payment_status=str(remote.get("payment_status", "processing")),
            when_expires=_parse_time(remote.get("when_expires")), reference_client=reference_client,
            telephone_payeur=telephone_payeur)
        self.session.add(checkout)
        self._journal("CHECKOUT", checkout.checkout_status, organisation_id=paiement.organisation_id,
                      paiement_id=paiement.id, reference=checkout.checkout_id, montant=paiement.montant)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="OUVRIR_PAIEMENT_WAVE", module=MODULE,
                           entite_type="Paiement",
                           entite_id=paiement.id, organisation_id=paiement.organisation_id,
                           description=f"Session Wave {checkout.checkout_id} pour {paiement.montant} XOF")
        return WaveCheckoutResponse(paiement_id=paiement.id, numero_recu=paiement.numero_recu, montant=paiement.montant,
                                devise=paiement.devise, wave_launch_url=checkout.launch_url,
                                checkout_id=checkout.checkout_id, expires_at=checkout.when_expires)

    async def refuser_si_reservees(self, membre_id: uuid.UUID, cotisation_ids: list[uuid.UUID],
                                   adhesion_ids: list[uuid.UUID], *, declaration: bool) -> None:
        """One pending payment at a time per dues or adhesion (called under the targets' row locks): a member's
        declaration waiting for the treasury is not paid again by Wave, and an open Wave session is not declared
        paid by other means meanwhile. A Wave session past its expiry that Wave confirms expired unpaid is closed
        here and stops blocking. ``declaration``: the caller is a new declaration (else a new Wave session)."""
        for r in await self.repo.reservations(membre_id, cotisation_ids, adhesion_ids):
            extra = {"paiementId": str(r.paiement_id)}
            if not r.wave:
                comment = METHODES.get(r.methode, r.methode)
                encore = "une seconde fois" if declaration else "par Wave"
                raise Conflict(f"{r.cible_reference} est réservée par la déclaration de paiement {r.reference} "
                               f"({comment}), en attente de confirmation par la trésorerie: elle ne se paie pas "
                               f"{encore} tant que la trésorerie ne l'a pas confirmée ou rejetée", extra=extra)
            if await self._close_if_expired(r.paiement_id):
                continue
            raise Conflict(f"Un paiement Wave ({r.reference}) est en cours pour {r.cible_reference}: "
                           + ("attendez son issue ou abandonnez-le avant de déclarer un autre paiement"
                              if declaration else "terminez-le ou expirez-le"), extra=extra)

    async def _close_if_expired(self, paiement_id: uuid.UUID) -> bool:
        """A pending session past its expiry that Wave confirms expired unpaid is closed (EXPIRE) so that the
        member can start again; anything else keeps blocking."""
        checkout = await self.checkouts.lock_by_paiement(paiement_id)
        if checkout is None or checkout.when_expires is None or checkout.when_expires > datetime.now(UTC):
            return False
        remote = await (await self._client(checkout)).get_checkout(checkout.checkout_id)
        if remote.get("checkout_status") != "expired" or remote.get("payment_status") == "succeeded":
            return False
        checkout.checkout_status = "expired"
        await EncaissementService(self.session, self.auth).clore(paiement_id, StatutPaiement.EXPIRE)
        self._journal("EXPIRATION", "expired", organisation_id=checkout.organisation_id, paiement_id=paiement_id,
                      reference=checkout.checkout_id, montant=checkout.montant)
        return True

    # ---- crediting (webhook and manual synchronisation share it) --------------------------------------------

    def _matches(self, checkout: WaveCheckout, data: dict[str, Any]) -> str | None:
        """Why ``data`` (from a webhook or from Wave's API) does not describe our checkout, or None."""
        if str(data.get("client_reference")) != (checkout.reference_client or str(checkout.paiement_id)):
            return "client_reference différent du paiement"
        if not _same_amount(data.get("amount"), checkout.montant):
            return f"montant {data.get('amount')} différent de {wave_amount(checkout.montant)}"
        if data.get("currency") != checkout.devise:
            return f"devise {data.get('currency')} différente de {checkout.devise}"
        return None

    async def _credit(self, checkout: WaveCheckout, remote: dict[str, Any]) -> tuple[Paiement, bool]:
        problem = self._matches(checkout, remote)
        if problem is not None or remote.get("payment_status") != "succeeded":
            raise InvalidState(problem or f"Wave indique payment_status={remote.get('payment_status')}")
        checkout.checkout_status = str(remote.get("checkout_status", "complete"))
        checkout.payment_status = "succeeded"
        checkout.transaction_id = remote.get("transaction_id") or checkout.transaction_id
        paiement, applied = await EncaissementService(self.session, self.auth).confirmer(
            checkout.paiement_id, reference_externe=checkout.transaction_id,
            date_paiement=_parse_time(remote.get("when_completed")), depuis=CREDITABLE)
        if applied:
            self._journal("PAIEMENT_RECU", "succeeded", organisation_id=checkout.organisation_id,
                          paiement_id=paiement.id, reference=checkout.transaction_id, montant=checkout.montant)
            if checkout.telephone_payeur:
                await notifier_payeur(self.session, paiement, checkout.telephone_payeur, checkout.reference_client)
        return paiement, applied

    async def _anomaly(self, reason: str, event: dict[str, Any], checkout: WaveCheckout | None) -> None:
        self._journal("ANOMALIE", "REJETE", organisation_id=checkout.organisation_id if checkout else None,
                      paiement_id=checkout.paiement_id if checkout else None,
                      reference=str((event.get("data") or {}).get("id")), details={"motif": reason, "event": event})
        await audit.record(self.session, None, action="SIGNALER_ANOMALIE_WAVE", module=MODULE,
                           entite_type="Paiement", entite_id=checkout.paiement_id if checkout else None,
                           organisation_id=checkout.organisation_id if checkout else None,
                           description=f"Webhook Wave {event.get('id')} non appliqué: {reason}", severite="WARNING")

    async def recevoir_webhook(self, raw: bytes, signature_header: str | None) -> WaveWebhookResponse:
        secrets = await webhook_secrets(self.session, self.settings)
        if not secrets:
            raise UpstreamUnavailable("Secret de webhook Wave non configuré")
        wave_protocol.verify(secrets, signature_header, raw)
        try:
            event = json.loads(raw)
        except ValueError as exc:
            raise InvalidInput("Corps JSON invalide") from exc
        if not isinstance(event, dict) or not event.get("id") or not isinstance(event.get("data"), dict):
            raise InvalidInput("Événement Wave incomplet (id, type, data requis)")
        event_type = str(event.get("type"))
        data: dict[str, Any] = event["data"]
        row = WaveEvenement(event_id=str(event["id"])[:100], type=event_type[:80],
                            checkout_id=str(data.get("id"))[:100] if data.get("id") else None, resultat="EN_COURS")
        try:
            async with self.session.begin_nested():
                self.session.add(row)
                await self.session.flush()
        except IntegrityError:
            # Redelivery (possibly concurrent: we waited for the first delivery's transaction to commit).
            return WaveWebhookResponse(resultat="DEJA_TRAITE")
        result = await self._handle(event_type, event, data)
        row.resultat = result.resultat
        await self.session.flush()
        return result

    async def _handle(self, event_type: str, event: dict[str, Any], data: dict[str, Any]) -> WaveWebhookResponse:
        if event_type not in {COMPLETED, FAILED}:
            return WaveWebhookResponse(resultat="IGNORE")
        checkout = await self.checkouts.lock_by_checkout_id(str(data.get("id")))
        if checkout is None:
            await self._anomaly("session de paiement inconnue", event, None)
            return WaveWebhookResponse(resultat="ANOMALIE")
        problem = self._matches(checkout, data)
        if problem is not None:
            await self._anomaly(problem, event, checkout)
            return WaveWebhookResponse(resultat="ANOMALIE", paiement_id=checkout.paiement_id)
        if event_type == FAILED:
            paiement = await EncaissementService(self.session, None).clore(checkout.paiement_id, StatutPaiement.ECHOUE)
            if paiement.statut != StatutPaiement.ECHOUE:
                return WaveWebhookResponse(resultat="IGNORE", paiement_id=paiement.id)  # never regress a success
            checkout.payment_status = "failed"
            self._journal("PAIEMENT_ECHOUE", "failed", organisation_id=checkout.organisation_id,
                          paiement_id=paiement.id, reference=checkout.checkout_id, montant=checkout.montant)
            return WaveWebhookResponse(resultat="ECHEC_ENREGISTRE", paiement_id=paiement.id)
        # Trust the signed event only as a hint: Wave's own API decides whether money arrived.
        remote = await (await self._client(checkout)).get_checkout(checkout.checkout_id)
        try:
            paiement, applied = await self._credit(checkout, remote)
        except InvalidState as exc:
            await self._anomaly(f"session relue chez Wave: {exc.detail}", event, checkout)
            return WaveWebhookResponse(resultat="ANOMALIE", paiement_id=checkout.paiement_id)
        return WaveWebhookResponse(resultat="APPLIQUE" if applied else "DEJA_TRAITE", paiement_id=paiement.id)

    # ---- expiry, synchronisation, refund --------------------------------------------------------------------

    async def _own_pending(self, paiement_id: uuid.UUID) -> tuple[Paiement, WaveCheckout]:
        paiement = await self.repo.get(paiement_id)
        if paiement is None:
            raise NotFound("Paiement introuvable")
        checkout = await self.checkouts.lock_by_paiement(paiement.id)
        if checkout is None:
            raise InvalidState("Ce paiement n'a pas de session Wave")
        return paiement, checkout

    async def expirer_session(self, paiement: Paiement) -> bool:
        """Expire the Wave session of a pending payment. Returns True when Wave reveals it was paid meanwhile,
        in which case the payment is confirmed instead."""
        checkout = await self.checkouts.lock_by_paiement(paiement.id)
        if checkout is None:
            return False
        client = await self._client(checkout)
        try:
            await client.expire_checkout(checkout.checkout_id)
        except WaveRefused:
            remote = await client.get_checkout(checkout.checkout_id)
            if remote.get("payment_status") == "succeeded":
                await self._credit(checkout, remote)
                return True
            if remote.get("checkout_status") != "expired":
                raise
        checkout.checkout_status = "expired"
        self._journal("EXPIRATION", "expired", organisation_id=checkout.organisation_id, paiement_id=paiement.id,
                      reference=checkout.checkout_id, montant=checkout.montant)
        return False

    async def liberer_pour_guichet(self, membre_id: uuid.UUID, cotisation_ids: list[uuid.UUID],
                                   adhesion_ids: list[uuid.UUID]) -> None:
        """Before the counter takes money for these targets: every open Wave session reserving one of
        them is expired at Wave and closed (EXPIRE). If Wave says it was paid, or will not expire it, the counter
        is refused with the reason: a dues is never paid twice (the Wave money is applied by its webhook or by
        the synchronisation, whichever comes)."""
        for pending_id in await self.repo.pending_wave_overlapping(membre_id, cotisation_ids, adhesion_ids):
            paiement = await PaiementSystemRepository(self.session).get_for_update(pending_id)
            assert paiement is not None
            try:
                paye = await self.expirer_session(paiement)
            except WaveRefused as exc:
                raise Conflict(f"Un paiement Wave est en cours pour ces cibles et Wave refuse de l'expirer "
                               f"({exc}): attendez son issue ou synchronisez-le",
                               extra={"paiementId": str(pending_id)}) from exc
            if paye:
                raise Conflict("Un paiement Wave de ces cibles vient d'aboutir chez Wave: rien n'est encaissé au "
                               "guichet; synchronisez le paiement Wave", extra={"paiementId": str(pending_id)})
            await EncaissementService(self.session, self.auth).clore(paiement.id, StatutPaiement.EXPIRE)

    async def expirer(self, paiement_id: uuid.UUID) -> Paiement:
        paiement, _ = await self._own_pending(paiement_id)
        if paiement.statut != StatutPaiement.EN_ATTENTE:
            raise InvalidState(f"Seul un paiement en attente peut expirer (statut: {paiement.statut})")
        if not await self.expirer_session(paiement):
            paiement = await EncaissementService(self.session, self.auth).clore(paiement.id, StatutPaiement.EXPIRE)
        return paiement

    async def synchroniser(self, paiement_id: uuid.UUID) -> Paiement:
        """Re-read the session from Wave and apply it: the fallback when a webhook never arrived."""
        paiement, checkout = await self._own_pending(paiement_id)
        if paiement.statut not in CREDITABLE:
            return paiement
        remote = await (await self._client(checkout)).get_checkout(checkout.checkout_id)
        if remote.get("payment_status") == "succeeded":
            paiement, _ = await self._credit(checkout, remote)
        elif remote.get("checkout_status") == "expired":
            checkout.checkout_status = "expired"
            paiement = await EncaissementService(self.session, self.auth).clore(paiement.id, StatutPaiement.EXPIRE)
        return paiement

    async def rembourser_session(self, paiement: Paiement, checkout: WaveCheckout) -> None:
        await (await self._client(checkout)).refund_checkout(checkout.checkout_id)
        checkout.payment_status = "refunded"
        self._journal("REMBOURSEMENT", "refunded", organisation_id=checkout.organisation_id,
                      paiement_id=paiement.id, reference=checkout.transaction_id or checkout.checkout_id,
                      montant=checkout.montant)
