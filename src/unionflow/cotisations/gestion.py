"""Treasurer operations on many dues at once: batch generation, grouped reminders, statistics."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.adhesions.repository import membre_visible
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.cache import cached, invalidate
from unionflow.core.errors import NotFound
from unionflow.core.numbering import random_reference
from unionflow.core.permissions import Permission
from unionflow.cotisations.repository import OPEN, CotisationFilters, CotisationRepository, statut_effectif
from unionflow.cotisations.schemas import (
    GenerationResponse,
    GenererCotisationsRequest,
    RappelResponse,
    RappelsGroupesResponse,
    StatistiquesDetailResponse,
    StatistiquesPeriodeResponse,
    StatistiquesResponse,
    StatistiquesTypeResponse,
    SyntheseResponse,
)
from unionflow.cotisations.service import MODULE, echeance_par_defaut, today_utc
from unionflow.encaissement.service import COTISATIONS_STATS, StatutCotisation
from unionflow.models import Cotisation, Membre, MembreOrganisation, Organisation, RappelCotisation
from unionflow.notifications.emission import Emetteur
from unionflow.notifications.schemas import TypeNotification
from unionflow.notifications.sources import RAPPEL_COTISATION

S = StatutCotisation
ZERO = Decimal("0")
HUNDRED = Decimal("100")
CHUNK = 500  # rows per INSERT: well under both back ends' bound-parameter limits


def generation_key(organisation_id: uuid.UUID, type_cotisation: str, annee: int, mois: int | None,
                   membre_id: uuid.UUID) -> str:
    return f"{organisation_id}:{type_cotisation}:{annee}:{mois or 0}:{membre_id}"


def _effective(statut: str, echu: int) -> str:
    """Status a client sees for an aggregate group, ``echu`` telling whether its due date has passed."""
    return S.EN_RETARD.value if statut == S.EN_RETARD or (statut in OPEN and echu) else statut


def _statistics(rows: list[Any]) -> dict[str, Any]:
    par_statut = {s.value: 0 for s in S}
    du = paye = en_retard = ZERO
    for row in rows:
        statut = _effective(row.statut, row.echu)
        par_statut[statut] += int(row.nombre)
        if row.statut != S.ANNULEE:
            du += Decimal(row.du)
        paye += Decimal(row.paye)
        if statut == S.EN_RETARD:
            en_retard += Decimal(row.du) - Decimal(row.paye)
    rate = (paye * HUNDRED / du).quantize(Decimal("0.01")) if du else ZERO
    return {"nombre_total": sum(par_statut.values()), "par_statut": par_statut, "montant_du": du,
            "montant_collecte": paye, "montant_restant": max(du - paye, ZERO), "montant_en_retard": en_retard,
            "taux_recouvrement": rate}


class CotisationGestion:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.today = today_utc()
        self.repo = CotisationRepository(session, auth, self.today)

    # --- generation ------------------------------------------------------------------------------------------
    async def generer(self, data: GenererCotisationsRequest) -> GenerationResponse:
        organisation = await self.session.get(Organisation, data.organisation_id)
        if organisation is None:
            raise NotFound("Organisation introuvable")
        self.auth.require(Permission.COTISATION_GENERER, organisation.id,
                          "Seuls les responsables de l'organisation génèrent ses cotisations")
        membres = list((await self.session.execute(
            select(MembreOrganisation.membre_id).join(Membre, Membre.id == MembreOrganisation.membre_id)
            .where(MembreOrganisation.organisation_id == organisation.id, MembreOrganisation.statut == "ACTIF",
                   Membre.statut == "ACTIF").order_by(MembreOrganisation.membre_id))).scalars())
        type_cot = data.type_cotisation.value
        periode = f"{data.mois:02d}/{data.annee}" if data.mois else str(data.annee)
        libelle = data.libelle or f"Cotisation {type_cot.lower()} {periode}"
        echeance = data.date_echeance or await echeance_par_defaut(self.session, data.annee, data.mois)
        now = datetime.now(UTC)
        insert = pg_insert if self.session.get_bind().dialect.name == "postgresql" else sqlite_insert
        created = 0
        for start in range(0, len(membres), CHUNK):
            rows = [{
                "id": uuid.uuid4(), "numero_reference": random_reference("COT", data.annee), "membre_id": membre_id,
                "organisation_id": organisation.id, "type_cotisation": type_cot, "libelle": libelle,
                "annee": data.annee, "mois": data.mois, "montant_du": data.montant, "montant_paye": ZERO,
                "devise": organisation.devise, "date_echeance": echeance, "statut": S.EN_ATTENTE.value,
                "cle_generation": generation_key(organisation.id, type_cot, data.annee, data.mois, membre_id),
                "created_at": now, "updated_at": now,
            } for membre_id in membres[start:start + CHUNK]]
            # The unique generation key makes a re-run (or a concurrent run) skip what already exists.
            stmt = insert(Cotisation).values(rows).on_conflict_do_nothing(index_elements=["cle_generation"])
            created += len((await self.session.execute(stmt.returning(Cotisation.id))).all())
        skipped = len(membres) - created
        message = (f"{created} cotisation(s) créée(s), {skipped} déjà existante(s) pour {periode}" if created
                   else f"Rien à créer: les cotisations {type_cot} {periode} existent déjà pour les "
                        f"{len(membres)} membre(s) actif(s)")
        await audit.record(self.session, self.auth, action="GENERER", module=MODULE, entite_type="Organisation",
                           entite_id=organisation.id, organisation_id=organisation.id, description=message,
                           after={"typeCotisation": type_cot, "annee": data.annee, "mois": data.mois,
                                  "montant": data.montant, "dateEcheance": echeance,
                                  "creees": created, "ignorees": skipped})
        if created:
            await invalidate(self.session, COTISATIONS_STATS)
        return GenerationResponse(membres_actifs=len(membres), creees=created, ignorees=skipped, message=message)

    # --- reminders -------------------------------------------------------------------------------------------
    async def rappels(self, membre_ids: list[uuid.UUID]) -> RappelsGroupesResponse:
        ids = sorted(set(membre_ids))
        for membre_id in ids:
            if await membre_visible(self.session, self.auth, membre_id) is None:
                raise NotFound(f"Membre introuvable: {membre_id}")
        # Lock the members so that two simultaneous calls cannot both remind the same dues.
        membres = {m.id: m for m in (await self.session.execute(
            select(Membre).where(Membre.id.in_(ids)).order_by(Membre.id).with_for_update())).scalars()}
        already = await self.repo.reminded_today(ids)
        sent: list[RappelResponse] = []
        duplicates = without = 0
        for membre_id in ids:
            unpaid = await self.repo.unpaid_of_member(membre_id)
            if not unpaid:
                without += 1
                continue
            fresh = [c for c in unpaid if str(c.id) not in already.get(membre_id, set())]
            if not fresh:
                duplicates += 1
                continue
            rappel = self._rappel(membres[membre_id], fresh)
            self.repo.add(rappel)
            await self.session.flush()
            await audit.record(self.session, self.auth, action="RAPPEL", module=MODULE,
                               entite_type="RappelCotisation", entite_id=rappel.id,
                               organisation_id=fresh[0].organisation_id, description=rappel.message,
                               after={"membreId": membre_id, "cotisationIds": rappel.cotisation_ids,
                                      "canal": rappel.canal})
            await Emetteur(self.session, self.auth.actor_name).emettre(
                membres[membre_id], TypeNotification.RAPPEL_COTISATION.value,
                f"Rappel: {len(fresh)} cotisation(s) à régler ({rappel.montant_total} {rappel.devise})",
                rappel.message, organisation_id=fresh[0].organisation_id, source=(RAPPEL_COTISATION, rappel.id))
            sent.append(RappelResponse.model_validate(rappel))
        return RappelsGroupesResponse(envoyes=len(sent), deja_envoyes_aujourdhui=duplicates, sans_impaye=without,
                                      rappels=sent)

    def _rappel(self, membre: Membre, dues: list[Cotisation]) -> RappelCotisation:
        total = sum((c.montant_du - (c.montant_paye or ZERO) for c in dues), ZERO)
        devise = dues[0].devise
        lines = "; ".join(
            f"{c.numero_reference} ({c.libelle or c.type_cotisation}, échéance {c.date_echeance.isoformat()}, "
            f"reste {c.montant_du - (c.montant_paye or ZERO)} {c.devise}, "
            f"{statut_effectif(c.statut, c.date_echeance, self.today)})" for c in dues)
        message = (f"Bonjour {membre.prenom} {membre.nom}, {len(dues)} cotisation(s) restent à régler pour un "
                   f"total de {total} {devise}: {lines}.")
        if membre.email:
            canal, destinataire = "EMAIL", membre.email
        elif membre.telephone:
            canal, destinataire = "SMS", membre.telephone
        else:
            canal, destinataire = "IN_APP", None
        return RappelCotisation(membre_id=membre.id, date_rappel=self.today, cotisation_ids=[str(c.id) for c in dues],
                                montant_total=total, devise=devise, canal=canal, destinataire=destinataire,
                                message=message, statut="EN_ATTENTE", demande_par=self.auth.actor_name)

    # --- statistics ------------------------------------------------------------------------------------------
    async def stats(self) -> StatistiquesResponse:
        return await cached(self.session, f"{COTISATIONS_STATS}stats", self.auth, StatistiquesResponse, self._stats)

    async def _stats(self) -> StatistiquesResponse:
        return StatistiquesResponse(**_statistics(await self.repo.aggregate(CotisationFilters())))

    async def statistiques(self) -> StatistiquesDetailResponse:
        return await cached(self.session, f"{COTISATIONS_STATS}statistiques", self.auth, StatistiquesDetailResponse,
                            self._statistiques)

    async def _statistiques(self) -> StatistiquesDetailResponse:
        filters = CotisationFilters()
        par_type = [StatistiquesTypeResponse(type_cotisation=r.type_cotisation, nombre=int(r.nombre),
                                             montant_du=Decimal(r.du), montant_collecte=Decimal(r.paye))
                    for r in await self.repo.aggregate_by_type(filters)]
        return StatistiquesDetailResponse(**_statistics(await self.repo.aggregate(filters)), par_type=par_type)

    async def periode(self, annee: int, mois: int | None) -> StatistiquesPeriodeResponse:
        async def compute() -> StatistiquesPeriodeResponse:
            rows = await self.repo.aggregate(CotisationFilters(annee=annee, mois=mois))
            return StatistiquesPeriodeResponse(**_statistics(rows), annee=annee, mois=mois)

        return await cached(self.session, f"{COTISATIONS_STATS}periode.{annee}.{mois}", self.auth,
                            StatistiquesPeriodeResponse, compute)

    async def synthese(self) -> SyntheseResponse:
        rows = await self.repo.aggregate(CotisationFilters(), own_only=True) if self.auth.membre_id else []
        figures = _statistics(rows)
        counts = figures["par_statut"]
        unpaid = [r for r in rows if r.statut in (S.EN_ATTENTE, S.PARTIELLEMENT_PAYEE, S.EN_RETARD)]
        return SyntheseResponse(
            nombre_cotisations=figures["nombre_total"],
            nombre_a_payer=counts[S.EN_ATTENTE] + counts[S.PARTIELLEMENT_PAYEE] + counts[S.EN_RETARD],
            nombre_en_retard=counts[S.EN_RETARD], nombre_payees=counts[S.PAYEE],
            montant_du=figures["montant_du"], montant_paye=figures["montant_collecte"],
            montant_restant=figures["montant_restant"], montant_en_retard=figures["montant_en_retard"],
            prochaine_echeance=min((r.premiere_echeance for r in unpaid), default=None),
        )
