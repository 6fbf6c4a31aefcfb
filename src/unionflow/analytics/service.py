"""Indicators of the web console, assembled from the repository's aggregates (exact decimals, months filled)."""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.analytics.repository import TRANCHE_MAX, TRANCHES, AnalyticsRepository
from unionflow.analytics.schemas import (
    AnalysePaiements,
    AncienneteImpayes,
    CroissanceMembres,
    EntonnoirAdhesions,
    MoisCroissance,
    MoisRecouvrement,
    PaiementsParMethode,
    PaiementsParMois,
    ParticipationEvenements,
    RecouvrementCotisations,
    TrancheImpayes,
)
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound, RegleMetier
from unionflow.cotisations.service import today_utc

CENT = Decimal("0.01")


def money(value: Any) -> Decimal:
    # SQLite sums NUMERIC as floats: back to exact cents (amounts are stored with two decimals).
    return Decimal(str(value or 0)).quantize(CENT)


def rate(part: Any, whole: Any) -> Decimal | None:
    part, whole = Decimal(str(part or 0)), Decimal(str(whole or 0))
    return (part * 100 / whole).quantize(CENT) if whole else None


def months(annee: int) -> list[str]:
    return [f"{annee}-{m:02d}" for m in range(1, 13)]


def check_period(debut: date | None, fin: date | None) -> None:
    if debut and fin and debut > fin:
        raise RegleMetier("dateDebut doit précéder ou égaler dateFin")


class AnalyticsService:
    def __init__(self, session: AsyncSession, auth: AuthContext, organisation_id: uuid.UUID | None,
                 today: date | None = None) -> None:
        self.organisation_id = organisation_id
        self.today = today or today_utc()
        self.repo = AnalyticsRepository(session, auth, organisation_id)

    async def _check(self) -> None:
        if not await self.repo.organisation_visible():
            raise NotFound("Organisation introuvable")

    async def croissance(self, annee: int) -> CroissanceMembres:
        await self._check()
        effectif_debut, entrees, sorties = await self.repo.memberships(annee)
        effectif, rows = effectif_debut, []
        for mois in months(annee):
            nouveaux, radiations = entrees.get(mois, 0), sorties.get(mois, 0)
            effectif += nouveaux - radiations
            rows.append(MoisCroissance(mois=mois, nouveaux=nouveaux, radiations=radiations,
                                       net=nouveaux - radiations, effectif=effectif))
        return CroissanceMembres(organisation_id=self.organisation_id, annee=annee, effectif_debut=effectif_debut,
                                 effectif_fin=effectif, total_nouveaux=sum(entrees.values()),
                                 total_radiations=sum(sorties.values()), mois=rows)

    async def recouvrement(self, annee: int, devise: str) -> RecouvrementCotisations:
        await self._check()
        found = {r.mois: r for r in await self.repo.dues_by_month(annee, devise)}
        rows = []
        for mois in months(annee):
            r = found.get(mois)
            du, paye = (money(r.du), money(r.paye)) if r else (money(0), money(0))
            rows.append(MoisRecouvrement(mois=mois, nombre=int(r.nombre) if r else 0, montant_du=du,
                                         montant_paye=paye, taux_recouvrement=rate(paye, du)))
        du = sum((m.montant_du for m in rows), money(0))
        paye = sum((m.montant_paye for m in rows), money(0))
        return RecouvrementCotisations(organisation_id=self.organisation_id, annee=annee, devise=devise,
                                       nombre=sum(m.nombre for m in rows), montant_du=du, montant_paye=paye,
                                       taux_recouvrement=rate(paye, du), mois=rows)

    async def paiements(self, annee: int, devise: str) -> AnalysePaiements:
        await self._check()
        by_method: dict[str, list[Any]] = {}
        by_month: dict[str, list[Any]] = {m: [0, money(0)] for m in months(annee)}
        for r in await self.repo.payments_by_month_and_method(annee, devise):
            for bucket in (by_method.setdefault(r.methode, [0, money(0)]), by_month[r.mois]):
                bucket[0] += int(r.nombre)
                bucket[1] += money(r.montant)
        return AnalysePaiements(
            organisation_id=self.organisation_id, annee=annee, devise=devise,
            nombre=sum(n for n, _ in by_month.values()), montant=sum((m for _, m in by_month.values()), money(0)),
            par_methode=[PaiementsParMethode(methode=k, nombre=n, montant=m)
                         for k, (n, m) in sorted(by_method.items(), key=lambda kv: (-kv[1][1], kv[0]))],
            par_mois=[PaiementsParMois(mois=k, nombre=n, montant=m) for k, (n, m) in by_month.items()])

    async def adhesions(self, debut: date | None, fin: date | None, devise: str) -> EntonnoirAdhesions:
        check_period(debut, fin)
        await self._check()
        r = await self.repo.adhesion_funnel(debut, fin, devise)
        approuvees, rejetees, payees = int(r.approuvees), int(r.rejetees), int(r.payees)
        return EntonnoirAdhesions(
            organisation_id=self.organisation_id, date_debut=debut, date_fin=fin, soumises=int(r.soumises),
            en_attente=int(r.en_attente), approuvees=approuvees, rejetees=rejetees, payees=payees,
            annulees=int(r.annulees), taux_approbation=rate(approuvees, approuvees + rejetees),
            taux_paiement=rate(payees, approuvees), frais_encaisses=money(r.frais))

    async def evenements(self, debut: date | None, fin: date | None) -> ParticipationEvenements:
        check_period(debut, fin)
        await self._check()
        totals, inscriptions, avis = await self.repo.events(debut, fin)
        capacite = int(totals.capacite)
        return ParticipationEvenements(
            organisation_id=self.organisation_id, date_debut=debut, date_fin=fin,
            evenements=int(totals.evenements), annules=int(totals.annules), capacite_totale=capacite,
            inscrits_confirmes=int(inscriptions.confirmes), inscrits_sur_capacite=int(inscriptions.sur_capacite),
            liste_attente=int(inscriptions.attente), taux_remplissage=rate(inscriptions.sur_capacite, capacite),
            note_moyenne=money(avis.moyenne) if avis.moyenne is not None else None, nombre_avis=int(avis.avis))

    async def impayes(self, devise: str) -> AncienneteImpayes:
        await self._check()
        found = {r.tranche: r for r in await self.repo.overdue_buckets(self.today, devise)}
        tranches = []
        for label in [t for t, _ in TRANCHES] + [TRANCHE_MAX]:
            r = found.get(label)
            tranches.append(TrancheImpayes(tranche=label, nombre=int(r.nombre) if r else 0,
                                           membres=int(r.membres) if r else 0,
                                           montant_restant=money(r.reste) if r else money(0)))
        totals = await self.repo.overdue_totals(self.today, devise)
        return AncienneteImpayes(organisation_id=self.organisation_id, date_reference=self.today, devise=devise,
                                 nombre=int(totals.nombre), membres=int(totals.membres),
                                 montant_restant=money(totals.reste), tranches=tranches)
