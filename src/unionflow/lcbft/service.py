"""LCB-FT alerts (consult, process) and per-organisation thresholds.

``evaluer_paiement`` (screening of a validated payment) lives in ``lcbft.detection`` and is re-exported here
for the settlement workflow.
"""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, NotFound, RegleMetier
from unionflow.core.pagination import Page, PageParams
from unionflow.core.permissions import Permission
from unionflow.lcbft.detection import MODULE, evaluer_paiement, seuils
from unionflow.lcbft.repository import AlerteFilters, LcbFtRepository
from unionflow.lcbft.schemas import (
    AlerteResponse,
    NonTraiteesResponse,
    ParametresLcbFtRequest,
    ParametresLcbFtResponse,
    TraiterAlerteRequest,
    TypeAlerte,
)
from unionflow.models import AlerteLcbFt, ParametresLcbFt
from unionflow.models.lcbft import Decision

__all__ = ["LcbFtService", "evaluer_paiement", "parse_filters"]


def _instant(value: date | datetime | None, *, end: bool) -> datetime | None:
    """A day (whole day included) or an instant (UTC when no offset is given)."""
    if value is None:
        return None
    if not isinstance(value, datetime):
        return datetime.combine(value + timedelta(days=1) if end else value, time.min, tzinfo=UTC)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def parse_filters(date_debut: date | datetime | None, date_fin: date | datetime | None,
                  organisation_id: uuid.UUID | None, type_alerte: TypeAlerte | None,
                  traitee: bool | None) -> AlerteFilters:
    filters = AlerteFilters(date_debut=_instant(date_debut, end=False), date_fin=_instant(date_fin, end=True),
                            organisation_id=organisation_id, type_alerte=type_alerte, traitee=traitee)
    if filters.date_debut and filters.date_fin and filters.date_fin <= filters.date_debut:
        raise RegleMetier("dateFin doit suivre dateDebut")
    return filters


class LcbFtService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = LcbFtRepository(session, auth)

    # Alerts

    async def lister(self, filters: AlerteFilters, params: PageParams) -> Page[AlerteResponse]:
        rows, total, exact = await self.repo.alertes(filters, params)
        return Page[AlerteResponse].build([AlerteResponse.model_validate(r) for r in rows], params, total, exact)

    async def non_traitees(self, organisation_id: uuid.UUID | None) -> NonTraiteesResponse:
        count = await self.repo.count(AlerteFilters(organisation_id=organisation_id, traitee=False))
        return NonTraiteesResponse(organisation_id=organisation_id, non_traitees=count)

    async def obtenir(self, alerte_id: str) -> AlerteResponse:
        return AlerteResponse.model_validate(await self._alerte(alerte_id))

    async def _alerte(self, alerte_id: str, *, for_update: bool = False) -> AlerteLcbFt:
        try:
            parsed = uuid.UUID(alerte_id)
        except ValueError:
            raise NotFound("Alerte LCB-FT introuvable") from None
        alerte = await self.repo.alerte(parsed, for_update=for_update)
        if alerte is None:
            raise NotFound("Alerte LCB-FT introuvable")
        return alerte

    async def traiter(self, alerte_id: str, data: TraiterAlerteRequest) -> AlerteResponse:
        commentaire, decision = data.commentaire, data.decision.value
        alerte = await self._alerte(alerte_id, for_update=True)
        self.auth.require(Permission.LCBFT_TRAITER, alerte.organisation_id,
                          "Seuls l'administrateur de l'organisation et le super administrateur traitent une alerte")
        if alerte.traitee:
            raise Conflict(f"Alerte déjà traitée le {alerte.date_traitement} par {alerte.traitee_par}")
        fields = ["traitee", "date_traitement", "traitee_par", "commentaire", "decision"]
        before = audit.snapshot(alerte, fields)
        alerte.traitee = True
        alerte.date_traitement = datetime.now(UTC)
        alerte.traitee_par = self.auth.actor_name
        alerte.commentaire = commentaire
        alerte.decision = decision
        await self.session.flush()
        await audit.record(self.session, self.auth, action="TRAITER", module=MODULE, entite_type="AlerteLcbFt",
                           entite_id=alerte.id, organisation_id=alerte.organisation_id, before=before,
                           after=audit.snapshot(alerte, fields),
                           severite="CRITICAL" if decision == Decision.DECLARATION_SOUPCON else "WARNING")
        return AlerteResponse.model_validate(alerte)

    # Thresholds

    async def _organisation(self, organisation_id: uuid.UUID) -> None:
        if await self.repo.organisation(organisation_id) is None:
            raise NotFound("Organisation introuvable")

    async def parametres(self, organisation_id: uuid.UUID) -> ParametresLcbFtResponse:
        await self._organisation(organisation_id)
        s = await seuils(self.session, organisation_id)
        return ParametresLcbFtResponse(organisation_id=organisation_id, seuil_operation=s.seuil_operation,
                                       seuil_cumul=s.seuil_cumul, periode_cumul_jours=s.periode_cumul_jours,
                                       seuil_especes=s.seuil_especes, devise=s.devise, personnalise=s.personnalise,
                                       modifie_par=s.modifie_par, updated_at=s.updated_at)

    async def list_parametres(self) -> list[ParametresLcbFtResponse]:
        return [ParametresLcbFtResponse.model_validate({**_row(p), "personnalise": True})
                for p in await self.repo.all_parametres()]

    async def modifier_parametres(self, organisation_id: uuid.UUID,
                                data: ParametresLcbFtRequest) -> ParametresLcbFtResponse:
        await self._organisation(organisation_id)
        row = await self.repo.parametres(organisation_id, for_update=True)
        before = audit.snapshot(row) if row else None
        if row is None:
            row = ParametresLcbFt(organisation_id=organisation_id, devise="XOF", **data.model_dump())
            self.session.add(row)
        else:
            for key, value in data.model_dump().items():
                setattr(row, key, value)
        row.modifie_par = self.auth.actor_name
        await self.session.flush()
        await audit.record(self.session, self.auth, action="MODIFIER" if before else "CREER", module=MODULE,
                           entite_type="ParametresLcbFt", entite_id=organisation_id, organisation_id=organisation_id,
                           before=before, after=audit.snapshot(row), severite="WARNING",
                           description="Seuils LCB-FT de l'organisation")
        return await self.parametres(organisation_id)


def _row(p: ParametresLcbFt) -> dict[str, object]:
    return {"organisation_id": p.organisation_id, "seuil_operation": p.seuil_operation, "seuil_cumul": p.seuil_cumul,
            "periode_cumul_jours": p.periode_cumul_jours, "seuil_especes": p.seuil_especes, "devise": p.devise,
            "modifie_par": p.modifie_par, "updated_at": p.updated_at}
