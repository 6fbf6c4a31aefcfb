"""The monitoring evaluator: measures the live system against the thresholds of ``alerte_config`` and
opens, updates or closes one alert per condition code.

It runs from ``GET /api/alerts`` when the last evaluation (stored in the database, shared by every worker)
is older than ``intervalle_evaluation_secondes``, and from ``unionflow jobs surveiller`` (cron) unconditionally.
A check that cannot measure (error) leaves its alert untouched rather than closing it on missing evidence.
"""

from __future__ import annotations

import logging
import shutil
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.audit.repository import AuditSystemRepository
from unionflow.auth.repository import LoginThrottleRepository
from unionflow.backups.repository import SauvegardeRepository
from unionflow.config import Settings
from unionflow.core import audit
from unionflow.lcbft.repository import AlerteLcbFtSystemRepository
from unionflow.models import AlerteConfig, AlerteSysteme
from unionflow.models.audit import Severite
from unionflow.models.monitoring import Frequence, StatutSauvegarde, TypeSauvegarde
from unionflow.monitoring.repository import FAILED_LOGIN_ACTIONS, AlerteSystemeRepository, MesureRepository
from unionflow.paiements.repository import PaiementSystemRepository

log = logging.getLogger("unionflow.monitoring")

MODULE = "MONITORING"
BACKUP_GRACE_HOURS = 2


@dataclass(frozen=True)
class Mesure:
    code: str
    declenchee: bool
    niveau: str = "WARNING"
    titre: str = ""
    message: str = ""
    valeur: float | None = None
    seuil: float | None = None


@dataclass
class EvaluationResult:
    evaluee: bool
    ouvertes: list[str] = field(default_factory=list)
    mises_a_jour: list[str] = field(default_factory=list)
    fermees: list[str] = field(default_factory=list)
    en_erreur: list[str] = field(default_factory=list)


def _existing_dir(path: Path) -> Path:
    path = path.resolve()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


class MonitoringEvaluator:
    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.alerts = AlerteSystemeRepository(session)
        self.measures = MesureRepository(session)
        # The measures over other areas' tables, each asked of the table's owner.
        self.throttle = LoginThrottleRepository(session)
        self.audit = AuditSystemRepository(session)
        self.paiements = PaiementSystemRepository(session)
        self.lcbft = AlerteLcbFtSystemRepository(session)
        self.sauvegardes = SauvegardeRepository(session)

    async def run(self, *, force: bool = False, now: datetime | None = None) -> EvaluationResult:
        now = now or datetime.now(UTC)
        try:
            # A savepoint, so that losing a race for SQLite's write lock in a read request costs only
            # this evaluation, not the request.
            async with self.session.begin_nested():
                config = await self.alerts.config()
                interval = None if force else config.intervalle_evaluation_secondes
                if not await self.alerts.claim_evaluation(now, interval):
                    return EvaluationResult(evaluee=False)
                result = EvaluationResult(evaluee=True)
                mesures = await self._measure(config, now, result)
                await self._apply(mesures, now, result)
                return result
        except (OperationalError, IntegrityError) as exc:
            # Another writer holds the database or another evaluator opened the same alert first.
            log.warning("monitoring evaluation skipped: %s", exc.__class__.__name__)
            return EvaluationResult(evaluee=False)

    async def _measure(self, config: AlerteConfig, now: datetime, result: EvaluationResult) -> list[Mesure]:
        checks: list[tuple[str, Callable[[AlerteConfig, datetime], Awaitable[Mesure]]]] = [
            ("BASE_DONNEES_LENTE", self._database),
            ("ESPACE_DISQUE_FAIBLE", self._disk),
            ("ECHECS_CONNEXION", self._failed_logins),
            ("ERREURS_AUDIT", self._audit_errors),
            ("PAIEMENTS_WAVE_BLOQUES", self._stuck_wave),
            ("ALERTES_LCB_FT_NON_TRAITEES", self._lcb_ft),
            ("SAUVEGARDE_EN_RETARD", self._backup_overdue),
        ]
        mesures = []
        for code, check in checks:
            try:
                async with self.session.begin_nested():
                    mesures.append(await check(config, now))
            except Exception:
                log.exception("monitoring check %s failed", code)
                result.en_erreur.append(code)
        return mesures

    async def _database(self, config: AlerteConfig, now: datetime) -> Mesure:
        started = time.perf_counter()
        await self.measures.ping()
        latency = round((time.perf_counter() - started) * 1000, 2)
        seuil = config.seuil_latence_base_ms
        return Mesure("BASE_DONNEES_LENTE", latency > seuil, "CRITICAL" if latency > 5 * seuil else "WARNING",
                      "Base de données lente",
                      f"Une requête de test a pris {latency} ms (seuil {seuil} ms).", latency, seuil)

    async def _disk(self, config: AlerteConfig, now: datetime) -> Mesure:
        path = _existing_dir(Path(self.settings.data_dir))
        usage = shutil.disk_usage(path)
        free = round(usage.free * 100 / usage.total, 2) if usage.total else 0.0
        seuil = config.seuil_espace_disque_libre_pourcent
        return Mesure("ESPACE_DISQUE_FAIBLE", free < seuil, "CRITICAL" if free < seuil / 2 else "WARNING",
                      "Espace disque faible",
                      f"Espace libre sur {path}: {free} % ({usage.free // 2**20} Mio), seuil {seuil} %.",
                      free, seuil)

    async def _failed_logins(self, config: AlerteConfig, now: datetime) -> Mesure:
        since = now - timedelta(hours=1)
        # Each failure increments one counter per dimension (e-mail, client IP, …): summing per dimension
        # and taking the largest sum counts every failure once.
        per_dimension: dict[str, int] = {}
        for key, failures in await self.throttle.failures_since(since):
            dimension = key.rsplit(":", 1)[0]
            per_dimension[dimension] = per_dimension.get(dimension, 0) + failures
        audited = await self.audit.count_since(since, actions=FAILED_LOGIN_ACTIONS)
        count = max([audited, *per_dimension.values()])
        seuil = config.seuil_echecs_connexion_heure
        return Mesure("ECHECS_CONNEXION", count > seuil, "WARNING", "Échecs de connexion anormaux",
                      f"{count} échecs de connexion dans la dernière heure (seuil {seuil}).", count, seuil)

    async def _audit_errors(self, config: AlerteConfig, now: datetime) -> Mesure:
        count = await self.audit.count_since(now - timedelta(hours=1), severities=(Severite.ERROR, Severite.CRITICAL))
        seuil = config.seuil_erreurs_audit_heure
        return Mesure("ERREURS_AUDIT", count > seuil, "WARNING", "Erreurs dans le journal d'audit",
                      f"{count} entrées d'audit ERROR/CRITICAL dans la dernière heure (seuil {seuil}).", count, seuil)

    async def _stuck_wave(self, config: AlerteConfig, now: datetime) -> Mesure:
        delai = config.delai_paiement_wave_heures
        count = await self.paiements.count_wave_en_attente_avant(now - timedelta(hours=delai))
        seuil = config.seuil_paiements_wave_bloques
        return Mesure("PAIEMENTS_WAVE_BLOQUES", count > seuil, "WARNING", "Paiements Wave bloqués",
                      f"{count} paiement(s) Wave EN_ATTENTE depuis plus de {delai} h (seuil {seuil}).", count, seuil)

    async def _lcb_ft(self, config: AlerteConfig, now: datetime) -> Mesure:
        seuil = config.seuil_alertes_lcb_ft_non_traitees
        # The anti-money-laundering area may not be installed: no table, nothing unprocessed.
        count = await self.lcbft.count_non_traitees() if await self.measures.has_table("alerte_lcb_ft") else 0
        return Mesure("ALERTES_LCB_FT_NON_TRAITEES", count > seuil, "WARNING", "Alertes LCB-FT non traitées",
                      f"{count} alerte(s) LCB-FT non traitée(s) (seuil {seuil}).", count, seuil)

    async def _backup_overdue(self, config: AlerteConfig, now: datetime) -> Mesure:
        schedule = await self.sauvegardes.config_existante()
        if schedule is None or not schedule.actif:
            return Mesure("SAUVEGARDE_EN_RETARD", False)
        period = 24 if schedule.frequence == Frequence.QUOTIDIENNE else 7 * 24
        seuil = period + BACKUP_GRACE_HOURS
        last = await self.sauvegardes.derniere(statut=StatutSauvegarde.TERMINEE, type_=TypeSauvegarde.AUTOMATIQUE)
        reference = last.date_creation if last else (schedule.date_modification or now)
        age = round((now - reference).total_seconds() / 3600, 2)
        depuis = f"depuis {age} h" if last else f"aucune depuis l'activation il y a {age} h"
        return Mesure("SAUVEGARDE_EN_RETARD", age > seuil, "WARNING", "Sauvegarde automatique en retard",
                      f"Dernière sauvegarde automatique réussie {depuis} (seuil {seuil} h).", age, seuil)

    async def _apply(self, mesures: list[Mesure], now: datetime, result: EvaluationResult) -> None:
        open_alerts = await self.alerts.open_by_code()
        for m in mesures:
            alert = open_alerts.get(m.code)
            if m.declenchee and alert is None:
                alert = AlerteSysteme(code=m.code, cle_ouverte=m.code, niveau=m.niveau, titre=m.titre,
                                      message=m.message, valeur_mesuree=m.valeur, seuil=m.seuil,
                                      date_creation=now, date_derniere_detection=now, nombre_detections=1,
                                      resolue=False, acquittee=False)
                self.alerts.add(alert)
                await self.session.flush()
                # WARNING, never ERROR: the audit-error check must not feed on the evaluator's own entries.
                await audit.record(self.session, None, action="OUVRIR_ALERTE", module=MODULE,
                                   entite_type="AlerteSysteme", entite_id=alert.id, severite="WARNING",
                                   description=m.message)
                result.ouvertes.append(m.code)
            elif m.declenchee and alert is not None:
                alert.niveau, alert.titre, alert.message = m.niveau, m.titre, m.message
                alert.valeur_mesuree, alert.seuil = m.valeur, m.seuil
                alert.date_derniere_detection = now
                alert.nombre_detections += 1
                result.mises_a_jour.append(m.code)
            elif alert is not None:
                alert.cle_ouverte = None
                alert.resolue = True
                alert.date_resolution = now
                alert.valeur_mesuree = m.valeur if m.valeur is not None else alert.valeur_mesuree
                await audit.record(self.session, None, action="RESOUDRE_ALERTE", module=MODULE,
                                   entite_type="AlerteSysteme", entite_id=alert.id,
                                   description=m.message or f"Condition {m.code} disparue")
                result.fermees.append(m.code)
        await self.session.flush()
