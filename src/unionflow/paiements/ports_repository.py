"""The money reads the areas below paiements declare as ports (core/ports.py), answered here: only paiements
queries the money tables. Plugged by registres.py.

On the system's behalf (``SystemRepository``): each caller has checked the visibility of what it asks about — the
organisation's entries, the payment or payout being screened, the approval's organisation."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import bindparam, func, select

from unionflow.core.repository import SystemRepository
from unionflow.models import (
    Cotisation,
    DemandeAide,
    Membre,
    MouvementAvoir,
    Paiement,
    PaiementAllocation,
    Versement,
)
from unionflow.models.paiement import StatutPaiement, TypeMouvementAvoir
from unionflow.models.versement import ObjetVersement, StatutVersement


class PiecesRepository(SystemRepository[Paiement]):
    """comptabilite.ports.PaiementsDesPieces: the payments behind a statement's entries (receipt, method, payer
    and what each paid), restricted to the organisation's payments."""

    model = Paiement

    async def payeurs(self, organisation_id: uuid.UUID, paiement_ids: list[uuid.UUID]
                      ) -> dict[uuid.UUID, tuple[str, str, str]]:
        stmt = (select(Paiement.id, Paiement.numero_recu, Paiement.methode, Membre.prenom, Membre.nom)
                .join(Membre, Membre.id == Paiement.membre_id)
                .where(Paiement.organisation_id == organisation_id, Paiement.id.in_(paiement_ids)))
        return {r[0]: (r[1], str(r[2]), f"{r[3]} {r[4]}".strip()) for r in (await self.session.execute(stmt)).all()}

    async def allocations(self, paiement_ids: list[uuid.UUID]) -> dict[uuid.UUID, list[tuple[Any, ...]]]:
        stmt = (select(PaiementAllocation.paiement_id, PaiementAllocation.cotisation_id,
                       PaiementAllocation.adhesion_id, Cotisation.annee, Cotisation.mois)
                .outerjoin(Cotisation, Cotisation.id == PaiementAllocation.cotisation_id)
                .where(PaiementAllocation.paiement_id.in_(paiement_ids))
                .order_by(PaiementAllocation.paiement_id, Cotisation.annee, Cotisation.mois, PaiementAllocation.id))
        result: dict[uuid.UUID, list[tuple[Any, ...]]] = {}
        for row in (await self.session.execute(stmt)).all():
            result.setdefault(row[0], []).append(tuple(row[1:]))
        return result


class DonsRepository(SystemRepository[Paiement]):
    """comptabilite.ports.DonsRecus: an organisation's donations of a period, by means of payment."""

    model = Paiement

    async def dons_par_methode(self, organisation_id: uuid.UUID, debut: date, fin: date) -> dict[str, Decimal]:
        start = datetime.combine(debut, time.min, UTC)
        end = datetime.combine(fin + timedelta(days=1), time.min, UTC)
        stmt = (select(Paiement.methode, func.sum(Paiement.montant))
                .where(Paiement.organisation_id == organisation_id, Paiement.nature == "DON",
                       Paiement.statut == StatutPaiement.VALIDE, Paiement.date_paiement >= start,
                       Paiement.date_paiement < end)
                .group_by(Paiement.methode).order_by(Paiement.methode))
        return {str(r[0]): Decimal(str(r[1])).quantize(Decimal("0.01"))
                for r in (await self.session.execute(stmt)).all() if r[1]}


# Read at every payment (the LCB-FT screening): built once with bind parameters, so its SQLAlchemy cache key is
# computed once instead of at each payment (docs/performance.md).
_SOMME_PAIEMENTS = select(func.coalesce(func.sum(Paiement.montant), 0)).where(
    Paiement.membre_id == bindparam("membre_id"), Paiement.organisation_id == bindparam("organisation_id"),
    Paiement.statut == StatutPaiement.VALIDE, Paiement.id != bindparam("paiement_id"),
    Paiement.date_paiement >= bindparam("debut"), Paiement.date_paiement <= bindparam("fin"))


class CumulsRepository(SystemRepository[Paiement]):
    """lcbft.ports.CumulsArgent: the cumulated amounts of payments and aid payouts the screening compares with
    its thresholds."""

    model = Paiement

    async def sum_paiements_valides(self, paiement: Paiement, debut: datetime, fin: datetime) -> Any:
        return (await self.session.execute(_SOMME_PAIEMENTS, {
            "membre_id": paiement.membre_id, "organisation_id": paiement.organisation_id, "paiement_id": paiement.id,
            "debut": debut, "fin": fin})).scalar_one()

    async def sum_versements_aide(self, versement: Versement, membre_id: uuid.UUID, debut: datetime) -> Any:
        stmt = (select(func.coalesce(func.sum(Versement.montant), 0))
                .join(DemandeAide, DemandeAide.id == Versement.objet_id).where(
            DemandeAide.membre_id == membre_id, Versement.organisation_id == versement.organisation_id,
            Versement.objet_type == ObjetVersement.AIDE, Versement.statut == StatutVersement.REUSSI,
            Versement.id != versement.id,
            Versement.date_execution >= debut))
        return (await self.session.execute(stmt)).scalar_one()


class VersementApprouveRepository(SystemRepository[Versement]):
    """finance.approbations.ports.VersementsAApprouver: the payout an approval request is about."""

    model = Versement

    async def versement(self, versement_id: uuid.UUID) -> Versement | None:
        return await self.session.get(Versement, versement_id)


class PayeDepuisRepository(SystemRepository[Paiement]):
    """What paid an organisation's dues from a moment on, for an inventory at an earlier date (assemblee/): the
    allocations of valid payments dated from then, and the credit applied from then (its allocation sits on the
    older payment that held the credit, the credit ledger dates the application)."""

    model = Paiement

    async def par_cotisation(self, organisation_id: uuid.UUID, depuis: datetime) -> dict[uuid.UUID, Decimal]:
        payes = (select(PaiementAllocation.cotisation_id, func.sum(PaiementAllocation.montant))
                 .join(Paiement, Paiement.id == PaiementAllocation.paiement_id)
                 .where(Paiement.organisation_id == organisation_id, Paiement.statut == StatutPaiement.VALIDE,
                        Paiement.date_paiement >= depuis, PaiementAllocation.cotisation_id.is_not(None))
                 .group_by(PaiementAllocation.cotisation_id))
        imputes = (select(MouvementAvoir.cotisation_id, func.sum(MouvementAvoir.montant))
                   .join(Paiement, Paiement.id == MouvementAvoir.paiement_id)
                   .where(MouvementAvoir.organisation_id == organisation_id,
                          MouvementAvoir.type_mouvement == TypeMouvementAvoir.IMPUTATION,
                          MouvementAvoir.created_at >= depuis, Paiement.date_paiement < depuis,
                          MouvementAvoir.cotisation_id.is_not(None))
                   .group_by(MouvementAvoir.cotisation_id))
        result: dict[uuid.UUID, Decimal] = {}
        for cotisation_id, montant in (await self.session.execute(payes)).all():
            result[cotisation_id] = Decimal(str(montant))
        for cotisation_id, montant in (await self.session.execute(imputes)).all():
            # An application is a negative movement of the credit: what it paid is its opposite.
            result[cotisation_id] = result.get(cotisation_id, Decimal(0)) - Decimal(str(montant))
        return result
