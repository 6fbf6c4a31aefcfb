"""The treasury cancels dues: one, a selection, or a whole generated batch, with a reason.

A cancelled dues owes nothing and leaves every overdue figure, collection rate and statistic (they all exclude
ANNULEE). Money is never undone this way: a dues that received money refuses the whole call with the reason (the
payment is cancelled or refunded first: all or nothing, the treasurer chose the wrong dues). A dues that a pending
payment reserves (a member's declaration, an open Wave session) is not cancelled either, never silently: it is
left out and listed in ``refusees`` with the reason while the others are cancelled — the reservation is the
member's and passing (a Wave session expires), so it must not stall a whole generated batch (docs/decisions.md,
"bench")."""

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
from unionflow.cotisations.schemas import (
    AnnulationResponse,
    AnnulerCotisationsRequest,
    CotisationRefuseeResponse,
    LotGenereRequest,
)
from unionflow.cotisations.service import MODULE, today_utc
from unionflow.models import Cotisation
from unionflow.models.cotisation import StatutCotisation
from unionflow.models.paiement import MethodePaiement
from unionflow.organisations.repository import OrganisationRepository
from unionflow.paiements.encaissement.workflow import COTISATIONS_STATS
from unionflow.paiements.repository import PaiementSystemRepository

ACTION = "ANNULER_COTISATION"
ZERO = Decimal("0")
REFUS = "Seuls la trésorerie et l'administration de l'organisation annulent ses cotisations"
REMBOURSER = "annulez ou remboursez d'abord le paiement, puis annulez la cotisation"
Reservees = dict[uuid.UUID, tuple[uuid.UUID, str]]


def refus(c: Cotisation, paiement_id: uuid.UUID, methode: str) -> CotisationRefuseeResponse:
    quoi = "une session Wave ouverte" if methode == MethodePaiement.WAVE else "une déclaration de paiement"
    return CotisationRefuseeResponse(
        cotisation_id=c.id, numero_reference=c.numero_reference, paiement_id=paiement_id,
        motif=f"Non annulée: {quoi} en attente la réserve; annulez ce paiement (ou attendez qu'il expire), puis "
              f"annulez la cotisation")


class AnnulationCotisationService:
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
        self._refuser_si_argent(rows)
        reservees = await self._reservees({c.organisation_id for c in rows})
        live = [c for c in rows if c.statut != StatutCotisation.ANNULEE]
        refusees = [refus(c, *reservees[c.id]) for c in live if c.id in reservees]
        cancelled = [c for c in live if c.id not in reservees]
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
        return AnnulationResponse(annulees=len(cancelled), deja_annulees=len(rows) - len(live),
                                  cotisation_ids=[c.id for c in cancelled], refusees=refusees)

    async def _reservees(self, organisations: set[uuid.UUID]) -> Reservees:
        """Dues reserved by a pending payment in these organisations (the caller's dues were loaded scoped)."""
        paiements = PaiementSystemRepository(self.session)
        reservees: Reservees = {}
        for organisation_id in sorted(organisations):
            reservees |= await paiements.cotisations_reservees(organisation_id)
        return reservees

    def _refuser_si_argent(self, rows: list[Cotisation]) -> None:
        paid = [c for c in rows if (c.montant_paye or ZERO) > ZERO]
        if paid:
            refs = ", ".join(f"{c.numero_reference} ({c.montant_paye} {c.devise})" for c in paid[:20])
            raise Conflict(f"{len(paid)} cotisation(s) ont reçu de l'argent et ne s'annulent pas ainsi: {refs}; "
                           f"{REMBOURSER}", extra={"cotisationsPayees": [str(c.id) for c in paid]})

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
        reservees = await self._reservees({organisation.id})
        bloquees = await self.repo.du_lot(*key, list(reservees))
        refusees = [refus(c, *reservees[c.id]) for c in bloquees]
        ids = await self.repo.annuler_lot(*key, [c.id for c in bloquees])
        # One entry for the batch (a generation is audited once too), naming who, why and every dues cancelled.
        await audit.record(self.session, self.auth, action=ACTION, module=MODULE, entite_type="Organisation",
                           entite_id=organisation.id, organisation_id=organisation.id,
                           description=f"Génération {periode} annulée ({len(ids)} cotisation(s)): {motif}",
                           after={"lot": lot.model_dump(mode="json", by_alias=True), "motif": motif,
                                  "annulees": len(ids), "cotisationIds": [str(i) for i in ids],
                                  "refusees": [str(r.cotisation_id) for r in refusees]})
        if ids:
            await invalidate(self.session, COTISATIONS_STATS)
        return AnnulationResponse(annulees=len(ids), deja_annulees=deja, cotisation_ids=ids, refusees=refusees)
