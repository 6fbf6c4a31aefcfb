"""The treasury cancels dues (issue 20): one, a selection, or a whole generated batch, with a reason.

A cancelled dues owes nothing and leaves every overdue figure, collection rate and statistic (they all exclude
ANNULEE). Money is never undone this way: a dues that received money, or that a pending payment (a member's
declaration, an open Wave session) reserves, is refused with the reason — the payment is cancelled or refunded
first. A request is all or nothing: one refused dues refuses the call, so the treasurer never wonders which part
went through."""

from __future__ import annotations

import uuid
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.cache import invalidate
from unionflow.core.errors import Conflict, NotFound
from unionflow.core.permissions import Permission
from unionflow.cotisations.repository import AnnulationRepository
from unionflow.cotisations.schemas import AnnulationResponse, AnnulerCotisationsRequest, LotGenereRequest
from unionflow.cotisations.service import MODULE, today_utc
from unionflow.encaissement.repository import PaiementRepository
from unionflow.encaissement.workflow import COTISATIONS_STATS
from unionflow.models import Cotisation
from unionflow.models.cotisation import StatutCotisation
from unionflow.organisations.repository import OrganisationRepository

ACTION = "ANNULER_COTISATION"
ZERO = Decimal("0")
REFUS = "Seuls la trésorerie et l'administration de l'organisation annulent ses cotisations"
REMBOURSER = "annulez ou remboursez d'abord le paiement, puis annulez la cotisation"


class AnnulationService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = AnnulationRepository(session, auth, today_utc())

    async def annuler(self, data: AnnulerCotisationsRequest) -> AnnulationResponse:
        motif = data.motif.strip()
        if data.lot is not None:
            return await self._lot(data.lot, motif)
        assert data.cotisation_ids is not None  # the request's validator demands one of the two
        return await self._selection(sorted(set(data.cotisation_ids)), motif)

    async def _selection(self, ids: list[uuid.UUID], motif: str) -> AnnulationResponse:
        rows = await self.repo.lock_many(ids)
        if len(rows) != len(ids):
            missing = sorted(set(ids) - {c.id for c in rows})
            raise NotFound(f"Cotisation introuvable: {missing[0]}")
        for c in rows:
            self.auth.require(Permission.COTISATION_ANNULER, c.organisation_id, REFUS)
        await self._refuser_si_argent(rows)
        cancelled = [c for c in rows if c.statut != StatutCotisation.ANNULEE]
        for c in cancelled:
            before = audit.snapshot(c)
            c.statut = StatutCotisation.ANNULEE.value
            note = f"Annulée par {self.auth.actor_name or 'la trésorerie'}: {motif}"
            c.observations = f"{c.observations}\n{note}" if c.observations else note
            await self.session.flush()
            await audit.record(self.session, self.auth, action=ACTION, module=MODULE, entite_type="Cotisation",
                               entite_id=c.id, organisation_id=c.organisation_id, before=before,
                               after={**audit.snapshot(c), "motif": motif},
                               description=f"Cotisation {c.numero_reference} annulée: {motif}")
        if cancelled:
            await invalidate(self.session, COTISATIONS_STATS)
        return AnnulationResponse(annulees=len(cancelled), deja_annulees=len(rows) - len(cancelled),
                                  cotisation_ids=[c.id for c in cancelled])

    async def _refuser_si_argent(self, rows: list[Cotisation]) -> None:
        paid = [c for c in rows if (c.montant_paye or ZERO) > ZERO]
        if paid:
            refs = ", ".join(f"{c.numero_reference} ({c.montant_paye} {c.devise})" for c in paid[:20])
            raise Conflict(f"{len(paid)} cotisation(s) ont reçu de l'argent et ne s'annulent pas ainsi: {refs}; "
                           f"{REMBOURSER}", extra={"cotisationsPayees": [str(c.id) for c in paid]})
        paiements = PaiementRepository(self.session, self.auth)
        for membre_id in sorted({c.membre_id for c in rows}):
            mine = [c for c in rows if c.membre_id == membre_id and c.statut != StatutCotisation.ANNULEE]
            pending = await paiements.pending_overlapping(membre_id, [c.id for c in mine], [])
            if pending:
                raise Conflict(f"Un paiement en attente (déclaration ou session Wave) réserve une cotisation de "
                               f"la sélection: {REMBOURSER} (ou attendez qu'il expire)",
                               extra={"paiementId": str(pending[0])})

    async def _lot(self, lot: LotGenereRequest, motif: str) -> AnnulationResponse:
        organisation = await OrganisationRepository(self.session, self.auth).get(lot.organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        self.auth.require(Permission.COTISATION_ANNULER, organisation.id, REFUS)
        key = (organisation.id, lot.type_cotisation.value, lot.annee, lot.mois)
        periode = f"{lot.type_cotisation.value} {lot.mois:02d}/{lot.annee}" if lot.mois else \
            f"{lot.type_cotisation.value} {lot.annee}"
        nombre, deja, payees = await self.repo.lot_resume(*key)
        if nombre == 0:
            raise NotFound(f"Aucune cotisation générée pour {periode} dans cette organisation")
        if payees:
            raise Conflict(f"Des cotisations de la génération {periode} ont reçu de l'argent ({', '.join(payees)}"
                           f"{', …' if len(payees) == 20 else ''}): {REMBOURSER}, ou annulez une sélection",
                           extra={"references": payees})
        ids = await self.repo.annuler_lot(*key)
        # One entry for the batch (a generation is audited once too), naming who, why and every dues cancelled.
        await audit.record(self.session, self.auth, action=ACTION, module=MODULE, entite_type="Organisation",
                           entite_id=organisation.id, organisation_id=organisation.id,
                           description=f"Génération {periode} annulée ({len(ids)} cotisation(s)): {motif}",
                           after={"lot": lot.model_dump(mode="json", by_alias=True), "motif": motif,
                                  "annulees": len(ids), "cotisationIds": [str(i) for i in ids]})
        if ids:
            await invalidate(self.session, COTISATIONS_STATS)
        return AnnulationResponse(annulees=len(ids), deja_annulees=deja, cotisation_ids=ids)
