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

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.configuration.service import valeurs
from unionflow.core import audit, metrics, reference
from unionflow.core.lot import defauts
from unionflow.lcbft.ports import CUMULS
from unionflow.lcbft.repository import DetectionRepository
from unionflow.models import AlerteLcbFt, AuditLog, Paiement, Versement
from unionflow.models.lcbft import TypeAlerte
from unionflow.models.paiement import MethodePaiement, StatutPaiement
from unionflow.models.versement import StatutVersement
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
    row = await DetectionRepository(session).parametres(organisation_id)
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


async def seuils_en_cache(session: AsyncSession, organisation_id: uuid.UUID) -> Seuils:
    """``seuils`` through the worker's reference-data cache (core/reference.py)."""
    return await reference.lire(session, ("lcbft", organisation_id), lambda: seuils(session, organisation_id))


async def _candidats(session: AsyncSession, paiement: Paiement,
                     s: Seuils) -> list[tuple[TypeAlerte, Decimal, Decimal | None, str]]:
    montant = paiement.montant
    candidates: list[tuple[TypeAlerte, Decimal, Decimal | None, str]] = []
    if montant >= s.seuil_operation:
        candidates.append((TypeAlerte.SEUIL_OPERATION, s.seuil_operation, None,
                           f"Opération de {montant} {paiement.devise} ≥ seuil de {s.seuil_operation}"))
    if paiement.methode == MethodePaiement.ESPECES and montant >= s.seuil_especes:
        candidates.append((TypeAlerte.ESPECES_ELEVEES, s.seuil_especes, None,
                           f"Versement en espèces de {montant} {paiement.devise} ≥ seuil de {s.seuil_especes}"))

    reference_date = paiement.date_paiement or datetime.now(UTC)
    debut = reference_date - timedelta(days=s.periode_cumul_jours)
    others = await CUMULS(session).sum_paiements_valides(paiement, debut, reference_date)
    cumul = Decimal(str(others)) + montant
    if cumul >= s.seuil_cumul:
        already = await DetectionRepository(session).count_of_membre_since(paiement.organisation_id, paiement.membre_id,
                                                         TypeAlerte.CUMUL_PERIODE.value, debut)
        if not already:
            candidates.append((TypeAlerte.CUMUL_PERIODE, s.seuil_cumul, cumul,
                               f"Cumul de {cumul} {paiement.devise} sur {s.periode_cumul_jours} jours ≥ seuil de "
                               f"{s.seuil_cumul}"))
    return candidates


def _alertes(paiement: Paiement, s: Seuils,
             candidates: list[tuple[TypeAlerte, Decimal, Decimal | None, str]]) -> list[AlerteLcbFt]:
    return [AlerteLcbFt(
        id=uuid.uuid4(), organisation_id=paiement.organisation_id, membre_id=paiement.membre_id,
        paiement_id=paiement.id, type_alerte=type_alerte.value, montant=paiement.montant, seuil=seuil,
        montant_cumule=cumule, periode_jours=s.periode_cumul_jours if cumule is not None else None,
        devise=paiement.devise, description=f"{description} (reçu {paiement.numero_recu})", traitee=False)
        for type_alerte, seuil, cumule, description in candidates]


async def evaluer_paiement(session: AsyncSession, paiement: Paiement) -> list[AlerteLcbFt]:
    """Raise the alerts a validated payment calls for; returns the alerts created by this call (none for a
    payment already screened: one alert per payment and kind, whoever calls twice)."""
    if paiement.statut != StatutPaiement.VALIDE:
        return []
    s = await seuils(session, paiement.organisation_id)
    existing = await DetectionRepository(session).types_of_paiement(paiement.id)
    candidates = [c for c in await _candidats(session, paiement, s) if c[0].value not in existing]
    created = _alertes(paiement, s, candidates)
    session.add_all(created)
    return await _record(session, created)


async def alertes_nouveau_paiement(session: AsyncSession, paiement: Paiement,
                                   ) -> tuple[list[AlerteLcbFt], list[AuditLog]]:
    """The screening of a payment validated by this transaction (so it has no alert yet), as rows to write
    with it (core/lot.py): the alerts and their audit entries. Their webhooks: ``donnees_webhook``."""
    s = await seuils_en_cache(session, paiement.organisation_id)
    created = _alertes(paiement, s, await _candidats(session, paiement, s))
    if created:
        metrics.alertes_lcb_ft(session, [a.type_alerte for a in created])
    return created, [_audit(defauts(a)) for a in created]


def donnees_webhook(alerte: AlerteLcbFt) -> dict[str, object]:
    # Only the alert's nature and amount: the member's identity stays inside UnionFlow (LCB-FT secrecy).
    return {"alerteId": alerte.id, "typeAlerte": alerte.type_alerte, "montant": alerte.montant,
            "seuil": alerte.seuil, "devise": alerte.devise, "paiementId": alerte.paiement_id}


def _audit(alerte: AlerteLcbFt) -> AuditLog:
    return audit.entry(None, action="ALERTER", module=MODULE, entite_type="AlerteLcbFt", entite_id=alerte.id,
                       organisation_id=alerte.organisation_id, severite="WARNING", after=audit.snapshot(alerte),
                       description=alerte.description)


async def evaluer_versement(session: AsyncSession, versement: Versement,
                            membre_id: uuid.UUID | None) -> list[AlerteLcbFt]:
    """Raise the alerts a delivered payout calls for: the per-operation threshold, and for a payout to a
    member (aid) the cumulated amount that member received by payouts over the period. Called once, on the
    payout's transition to REUSSI; the alert names the payout number."""
    if versement.statut != StatutVersement.REUSSI:
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
        others = await CUMULS(session).sum_versements_aide(versement, membre_id, debut)
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
        session.add(_audit(alerte))
        await webhooks.emettre(session, alerte.organisation_id, webhooks.EvenementWebhook.ALERTE_LCBFT_LEVEE,
                               donnees_webhook(alerte))
    return created
