"""Screening of validated payments and delivered payouts against the organisation's LCB-FT thresholds.

Called by the settlement workflow once a payment is VALIDE, and by the payouts once one is REUSSI.
Thresholds are inclusive (an amount equal to the threshold raises the alert). Raises at most one alert per
payment and kind; a cumulated-amount alert is raised once per member and period, not again on every later
payment of the same window.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.configuration.service import valeurs
from unionflow.core import audit, metrics
from unionflow.lcbft.schemas import TypeAlerte
from unionflow.models import AlerteLcbFt, DemandeAide, Paiement, ParametresLcbFt, Versement
from unionflow.webhooks import emission as webhooks

MODULE = "LCB_FT"


@dataclass(frozen=True)
class Seuils:
    seuil_operation: Decimal
    seuil_cumul: Decimal
    periode_cumul_jours: int
    seuil_especes: Decimal
    devise: str = "XOF"
    personnalise: bool = False
    modifie_par: str | None = None
    updated_at: datetime | None = None


async def seuils(session: AsyncSession, organisation_id: uuid.UUID) -> Seuils:
    """The organisation's own thresholds, else the union-wide defaults of the configuration (lcbft.*)."""
    row = (await session.execute(select(ParametresLcbFt).where(
        ParametresLcbFt.organisation_id == organisation_id))).scalar_one_or_none()
    if row is not None:
        return Seuils(row.seuil_operation, row.seuil_cumul, row.periode_cumul_jours, row.seuil_especes, row.devise,
                      True, row.modifie_par, row.updated_at)
    v = await valeurs(session, "lcbft.seuil_declaration", "lcbft.seuil_cumul", "lcbft.periode_cumul_jours",
                      "lcbft.seuil_especes")
    return Seuils(
        seuil_operation=Decimal(str(v["lcbft.seuil_declaration"])),
        seuil_cumul=Decimal(str(v["lcbft.seuil_cumul"])),
        periode_cumul_jours=int(v["lcbft.periode_cumul_jours"]),
        seuil_especes=Decimal(str(v["lcbft.seuil_especes"])),
    )


async def evaluer_paiement(session: AsyncSession, paiement: Paiement) -> list[AlerteLcbFt]:
    """Raise the alerts a validated payment calls for; returns the alerts created by this call."""
    if paiement.statut != "VALIDE":
        return []
    s = await seuils(session, paiement.organisation_id)
    existing = set((await session.execute(select(AlerteLcbFt.type_alerte).where(
        AlerteLcbFt.paiement_id == paiement.id))).scalars())
    montant = paiement.montant
    candidates: list[tuple[TypeAlerte, Decimal, Decimal | None, str]] = []
    if montant >= s.seuil_operation:
        candidates.append((TypeAlerte.SEUIL_OPERATION, s.seuil_operation, None,
                           f"Opération de {montant} {paiement.devise} ≥ seuil de {s.seuil_operation}"))
    if paiement.methode == "ESPECES" and montant >= s.seuil_especes:
        candidates.append((TypeAlerte.ESPECES_ELEVEES, s.seuil_especes, None,
                           f"Versement en espèces de {montant} {paiement.devise} ≥ seuil de {s.seuil_especes}"))

    reference = paiement.date_paiement or datetime.now(UTC)
    debut = reference - timedelta(days=s.periode_cumul_jours)
    others = (await session.execute(select(func.coalesce(func.sum(Paiement.montant), 0)).where(
        Paiement.membre_id == paiement.membre_id, Paiement.organisation_id == paiement.organisation_id,
        Paiement.statut == "VALIDE", Paiement.id != paiement.id,
        Paiement.date_paiement >= debut, Paiement.date_paiement <= reference))).scalar_one()
    cumul = Decimal(str(others)) + montant
    if cumul >= s.seuil_cumul:
        already = (await session.execute(select(func.count()).select_from(AlerteLcbFt).where(
            AlerteLcbFt.membre_id == paiement.membre_id, AlerteLcbFt.organisation_id == paiement.organisation_id,
            AlerteLcbFt.type_alerte == TypeAlerte.CUMUL_PERIODE.value, AlerteLcbFt.date_alerte >= debut,
        ))).scalar_one()
        if not already:
            candidates.append((TypeAlerte.CUMUL_PERIODE, s.seuil_cumul, cumul,
                               f"Cumul de {cumul} {paiement.devise} sur {s.periode_cumul_jours} jours ≥ seuil de "
                               f"{s.seuil_cumul}"))

    created: list[AlerteLcbFt] = []
    for type_alerte, seuil, cumule, description in candidates:
        if type_alerte.value in existing:
            continue
        alerte = AlerteLcbFt(
            organisation_id=paiement.organisation_id, membre_id=paiement.membre_id, paiement_id=paiement.id,
            type_alerte=type_alerte.value, montant=montant, seuil=seuil, montant_cumule=cumule,
            periode_jours=s.periode_cumul_jours if cumule is not None else None, devise=paiement.devise,
            description=f"{description} (reçu {paiement.numero_recu})", traitee=False)
        session.add(alerte)
        created.append(alerte)
    return await _record(session, created)


async def evaluer_versement(session: AsyncSession, versement: Versement,
                            membre_id: uuid.UUID | None) -> list[AlerteLcbFt]:
    """Raise the alerts a delivered payout calls for: the per-operation threshold, and for a payout to a
    member (aid) the cumulated amount that member received by payouts over the period. Called once, on the
    payout's transition to REUSSI; the alert names the payout number."""
    if versement.statut != "REUSSI":
        return []
    s = await seuils(session, versement.organisation_id)
    montant = versement.montant
    libelle = f"Versement {versement.numero} à {versement.beneficiaire_nom}"
    candidates: list[tuple[TypeAlerte, Decimal, Decimal | None, str]] = []
    if montant >= s.seuil_operation:
        candidates.append((TypeAlerte.SEUIL_OPERATION, s.seuil_operation, None,
                           f"{libelle}: {montant} {versement.devise} ≥ seuil de {s.seuil_operation}"))
    if membre_id is not None:
        reference = versement.date_execution or datetime.now(UTC)
        debut = reference - timedelta(days=s.periode_cumul_jours)
        others = (await session.execute(select(func.coalesce(func.sum(Versement.montant), 0))
                                        .join(DemandeAide, DemandeAide.id == Versement.objet_id).where(
            DemandeAide.membre_id == membre_id, Versement.organisation_id == versement.organisation_id,
            Versement.objet_type == "AIDE", Versement.statut == "REUSSI", Versement.id != versement.id,
            Versement.date_execution >= debut))).scalar_one()
        cumul = Decimal(str(others)) + montant
        if cumul >= s.seuil_cumul:
            candidates.append((TypeAlerte.CUMUL_PERIODE, s.seuil_cumul, cumul,
                               f"{libelle}: {cumul} {versement.devise} versés sur {s.periode_cumul_jours} jours "
                               f"≥ seuil de {s.seuil_cumul}"))
    created = [AlerteLcbFt(
        organisation_id=versement.organisation_id, membre_id=membre_id, paiement_id=None,
        type_alerte=type_alerte.value, montant=montant, seuil=seuil, montant_cumule=cumule,
        periode_jours=s.periode_cumul_jours if cumule is not None else None, devise=versement.devise,
        description=description, traitee=False) for type_alerte, seuil, cumule, description in candidates]
    session.add_all(created)
    return await _record(session, created)


async def _record(session: AsyncSession, created: list[AlerteLcbFt]) -> list[AlerteLcbFt]:
    if created:
        await session.flush()
        metrics.alertes_lcb_ft(session, [a.type_alerte for a in created])
    for alerte in created:
        await audit.record(session, None, action="ALERTER", module=MODULE, entite_type="AlerteLcbFt",
                           entite_id=alerte.id, organisation_id=alerte.organisation_id, severite="WARNING",
                           after=audit.snapshot(alerte), description=alerte.description)
        # Only the alert's nature and amount: the member's identity stays inside UnionFlow (LCB-FT secrecy).
        await webhooks.emettre(session, alerte.organisation_id, webhooks.EvenementWebhook.ALERTE_LCBFT_LEVEE, {
            "alerteId": alerte.id, "typeAlerte": alerte.type_alerte, "montant": alerte.montant,
            "seuil": alerte.seuil, "devise": alerte.devise, "paiementId": alerte.paiement_id})
    return created
