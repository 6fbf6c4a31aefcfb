"""Dues: creation, edition, payment (through the settlement workflow), cancellation, reads.

States (docs/adhesions-cotisations.md): EN_ATTENTE → PARTIELLEMENT_PAYEE → PAYEE by payments; EN_ATTENTE or
PARTIELLEMENT_PAYEE → EN_RETARD once the due date has passed (derived at read time, stored by the nightly job);
any unpaid state without payment → ANNULEE.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.adhesions.schemas import RecuResponse
from unionflow.config import Settings
from unionflow.configuration.service import valeur
from unionflow.core import acces_dossier, audit, code_paiement
from unionflow.core.auth import AuthContext
from unionflow.core.cache import invalidate
from unionflow.core.errors import Conflict, Forbidden, InvalidState, NotFound, RegleMetier
from unionflow.core.numbering import random_reference
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.cotisations.repository import (
    UNPAID,
    CotisationFilters,
    CotisationRepository,
    CotisationSystemRepository,
    statut_effectif,
)
from unionflow.cotisations.schemas import (
    CotisationPayeeResponse,
    CotisationPublicResponse,
    CotisationResponse,
    CotisationSummaryResponse,
    CreateCotisationRequest,
    PaiementCotisationRequest,
    UpdateCotisationRequest,
)
from unionflow.membres.repository import MembreRepository, membre_visible
from unionflow.models import Cotisation
from unionflow.models.cotisation import StatutCotisation
from unionflow.organisations.repository import OrganisationRepository
from unionflow.paiements.declarations import DeclarationService
from unionflow.paiements.encaissement.workflow import (
    COTISATIONS_STATS,
    Cible,
    EncaissementService,
)

MODULE = "COTISATIONS"
ZERO = Decimal("0")
S = StatutCotisation


def today_utc() -> date:
    """Due dates are compared with the UTC calendar day (the union's countries are on UTC or UTC+1)."""
    return datetime.now(UTC).date()


async def echeance_par_defaut(session: AsyncSession, annee: int, mois: int | None) -> date:
    """Due date of a dues created without one: day ``cotisation.jour_echeance`` (1 to 28, so it exists in every
    month) of the period's month, January for a yearly period."""
    jour = int(await valeur(session, "cotisation.jour_echeance"))
    return date(annee, mois or 1, jour)


def restant(statut: str, montant_du: Decimal, montant_paye: Decimal) -> Decimal:
    """What is still owed: nothing on a cancelled dues, never below zero."""
    return ZERO if statut == S.ANNULEE else max(montant_du - montant_paye, ZERO)


def response_data(c: Cotisation | Row[Any], today: date) -> dict[str, object]:
    """From an ORM object or a row of the read path (cotisations/lectures.py): same attribute names."""
    statut = statut_effectif(c.statut, c.date_echeance, today)
    late = statut == S.EN_RETARD
    paid = c.montant_paye or ZERO
    return {
        "id": c.id, "numero_reference": c.numero_reference, "organisation_id": c.organisation_id,
        "membre_id": c.membre_id, "type_cotisation": c.type_cotisation, "libelle": c.libelle, "annee": c.annee,
        "mois": c.mois, "date_echeance": c.date_echeance, "statut": statut, "statut_enregistre": c.statut,
        "montant_du": c.montant_du, "montant_paye": c.montant_paye,
        "montant_restant": restant(c.statut, c.montant_du, paid),
        "devise": c.devise, "en_retard": late, "jours_retard": (today - c.date_echeance).days if late else 0,
        "date_paiement": c.date_paiement, "methode_paiement": c.methode_paiement,
        "reference_paiement": c.reference_paiement, "observations": c.observations,
        "created_at": c.created_at, "updated_at": c.updated_at, "code_paiement": c.code_paiement,
    }


async def codes_paiement(repo: CotisationSystemRepository, nombre: int) -> list[str]:
    """``nombre`` new payment codes that no dues holds (a draw colliding with a stored code is drawn again; two
    concurrent creations drawing the same code out of 9·10^8 is left to the unique index)."""
    codes: dict[str, None] = {}
    while len(codes) < nombre:
        tirage = {code_paiement.nouveau_code(): None for _ in range(nombre - len(codes))}
        pris = await repo.codes_pris(list(tirage))
        codes.update((c, None) for c in tirage if c not in pris)
    return list(codes)[:nombre]


class CotisationService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.today = today_utc()
        self.repo = CotisationRepository(session, auth, self.today)

    def full(self, c: Cotisation) -> CotisationResponse:
        return CotisationResponse.model_validate(response_data(c, self.today))

    def summary(self, c: Cotisation) -> CotisationSummaryResponse:
        return CotisationSummaryResponse.model_validate(response_data(c, self.today))

    async def _get(self, cotisation_id: uuid.UUID, *, for_update: bool = False) -> Cotisation:
        cotisation = await self.repo.get(cotisation_id, for_update=for_update)
        if cotisation is None:
            raise NotFound("Cotisation introuvable")
        return cotisation

    async def _audit(self, c: Cotisation, action: str, before: dict[str, object] | None,
                     description: str | None = None) -> None:
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type="Cotisation",
                           entite_id=c.id, organisation_id=c.organisation_id, before=before,
                           after=audit.snapshot(c), description=description)
        # Every write of a dues goes through here: the cached statistics must not outlive it.
        await invalidate(self.session, COTISATIONS_STATS)

    # --- writes ----------------------------------------------------------------------------------------------
    async def creer(self, data: CreateCotisationRequest) -> CotisationResponse:
        organisation = await OrganisationRepository(self.session, self.auth).get(data.organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        if await MembreRepository(self.session, None).get(data.membre_id) is None:
            raise NotFound("Membre introuvable")
        if not self.auth.can(Permission.COTISATION_GERER, data.organisation_id):
            # A member may record a dues of their own (voluntary contribution) in one of their organisations.
            own = data.membre_id == self.auth.membre_id
            if not own and await membre_visible(self.session, self.auth, data.membre_id) is None:
                raise NotFound("Membre introuvable")
            if not own or data.organisation_id not in self.auth.member_organisations:
                raise Forbidden("Seuls les responsables de l'organisation créent les cotisations d'un membre")
        if not await MembreRepository(self.session, None).has_active_membership(data.membre_id,
                                                                                data.organisation_id):
            raise RegleMetier("Ce membre n'est pas membre actif de cette organisation")
        values = data.model_dump()
        values["devise"] = data.devise or organisation.devise
        values["date_echeance"] = data.date_echeance or await echeance_par_defaut(self.session, data.annee, data.mois)
        values["type_cotisation"] = data.type_cotisation.value
        (code,) = await codes_paiement(CotisationSystemRepository(self.session), 1)
        cotisation = Cotisation(**values, numero_reference=random_reference("COT", data.annee),
                                montant_paye=ZERO, statut=S.EN_ATTENTE.value, code_paiement=code)
        self.repo.add(cotisation)
        await self.session.flush()
        await self._audit(cotisation, "CREER", None, f"Cotisation {cotisation.numero_reference}")
        return self.full(cotisation)

    async def _managed(self, cotisation_id: uuid.UUID) -> Cotisation:
        cotisation = await self._get(cotisation_id, for_update=True)
        self.auth.require(Permission.COTISATION_GERER, cotisation.organisation_id,
                          "Seuls les responsables de l'organisation modifient une cotisation")
        return cotisation

    async def modifier(self, cotisation_id: uuid.UUID, data: UpdateCotisationRequest) -> CotisationResponse:
        cotisation = await self._managed(cotisation_id)
        if cotisation.statut in (S.PAYEE, S.ANNULEE):
            raise InvalidState(f"Une cotisation {cotisation.statut} ne se modifie plus")
        changes = data.model_dump(exclude_unset=True)
        for field in ("type_cotisation", "montant_du", "date_echeance"):
            if field in changes and changes[field] is None:
                raise RegleMetier(f"{field} ne peut pas être vide")
        paid = cotisation.montant_paye or ZERO
        if "montant_du" in changes and changes["montant_du"] <= paid:
            raise RegleMetier(f"Le montant dû doit rester supérieur au montant déjà payé ({paid})")
        before = audit.snapshot(cotisation)
        for field, value in changes.items():
            setattr(cotisation, field, value.value if field == "type_cotisation" else value)
        base = S.PARTIELLEMENT_PAYEE if paid > ZERO else S.EN_ATTENTE
        # A moved due date may end an overdue state that the nightly job had stored.
        late = cotisation.statut == S.EN_RETARD and cotisation.date_echeance < self.today
        cotisation.statut = S.EN_RETARD.value if late else base.value
        await self.session.flush()
        await self._audit(cotisation, "MODIFIER", before)
        return self.full(cotisation)

    async def annuler(self, cotisation_id: uuid.UUID) -> CotisationResponse:
        cotisation = await self._get(cotisation_id, for_update=True)
        self.auth.require(Permission.COTISATION_GERER, cotisation.organisation_id,
                          "Seuls les responsables de l'organisation annulent une cotisation")
        if (cotisation.montant_paye or ZERO) > ZERO:
            raise Conflict(f"La cotisation a reçu {cotisation.montant_paye} {cotisation.devise}: un paiement "
                           f"encaissé ne s'annule pas (remboursez d'abord)")
        if cotisation.statut == S.ANNULEE:
            return self.full(cotisation)
        before = audit.snapshot(cotisation)
        cotisation.statut = S.ANNULEE.value
        await self.session.flush()
        await self._audit(cotisation, "ANNULER", before, f"Cotisation {cotisation.numero_reference} annulée")
        return self.full(cotisation)

    async def payer(self, cotisation_id: uuid.UUID, data: PaiementCotisationRequest,
                  settings: Settings | None = None) -> CotisationPayeeResponse:
        # Read once, with its row lock: the settlement workflow re-checks status and balance on this very read.
        cotisation = await self._get(cotisation_id, for_update=True)
        if data.date_paiement is not None and data.date_paiement > datetime.now(UTC):
            raise RegleMetier("datePaiement ne peut pas être dans le futur")
        if not self.auth.can_here(Permission.PAIEMENT_ENREGISTRER, cotisation.organisation_id):
            # Money a member declares is not money received: pending until Wave or the treasury confirms it.
            declaration = await DeclarationService(self.session, self.auth, settings).declarer(
                cotisation, data.montant, data.methode_paiement, data.reference_paiement)
            return CotisationPayeeResponse.model_validate({**response_data(cotisation, self.today),
                                                           "declaration": declaration})
        # Re-checks status and balance under the lock, allocates, books, audits.
        paiement = await EncaissementService(self.session, self.auth).enregistrer(
            membre_id=cotisation.membre_id, organisation_id=cotisation.organisation_id, montant=data.montant,
            methode=data.methode_paiement.value, cibles=[Cible(cotisation_id=cotisation.id)],
            devise=cotisation.devise, reference_externe=data.reference_paiement, date_paiement=data.date_paiement,
            commentaire=f"Cotisation {cotisation.numero_reference}", verrouillees={cotisation.id: cotisation})
        recu = RecuResponse(paiement_id=paiement.id, numero_recu=paiement.numero_recu, montant=paiement.montant,
                            methode=paiement.methode, date_paiement=paiement.date_paiement)
        return CotisationPayeeResponse.model_validate({**response_data(cotisation, self.today), "recu": recu})

    # --- reads (the hot ones are session-free: cotisations/lectures.py) ----------------------------------------
    async def obtenir_par_reference(self, numero: str) -> CotisationResponse:
        cotisation = await self.repo.by_reference(numero)
        if cotisation is None:
            raise NotFound("Cotisation introuvable")
        return self.full(cotisation)

    async def lister_publiques(self, params: PageParams) -> Page[CotisationPublicResponse]:
        rows, total, exact = await self.repo.search(CotisationFilters(), params)
        return Page[CotisationPublicResponse].build(
            [CotisationPublicResponse.model_validate(response_data(c, self.today)) for c in rows],
            params, total, exact)

    async def lister_en_retard(self, params: PageParams) -> Page[CotisationSummaryResponse]:
        rows, total, exact = await self.repo.overdue_page(params)
        return Page[CotisationSummaryResponse].build([self.summary(c) for c in rows], params, total, exact)

    async def lister_du_membre(self, membre_id: uuid.UUID, params: PageParams,
                               ecran: str | None = None) -> Page[CotisationSummaryResponse]:
        if await membre_visible(self.session, self.auth, membre_id) is None:
            raise NotFound("Membre introuvable")
        if ecran is not None:
            acces_dossier.noter(self.session, self.auth, membre_id, ecran)
        rows, total, exact = await self.repo.search(CotisationFilters(membre_id=membre_id), params, by_due_date=True)
        return Page[CotisationSummaryResponse].build([self.summary(c) for c in rows], params, total, exact)

    async def lister_mes_impayees(self) -> list[CotisationSummaryResponse]:
        if self.auth.membre_id is None:
            return []
        rows = await self.repo.unpaid_of_member(self.auth.membre_id, visible_only=False)
        return [self.summary(c) for c in rows if c.statut in UNPAID]
