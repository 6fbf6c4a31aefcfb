from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from unionflow.backups import schedule
from unionflow.backups.engine import BackupFailed, BackupFiles, sha256_file
from unionflow.backups.repository import SauvegardeRepository
from unionflow.backups.schemas import (
    CONFIRMATION,
    CreateSauvegardeRequest,
    RestaurationResponse,
    RestaurerSauvegardeRequest,
    SauvegardeConfigResponse,
    SauvegardeResponse,
    UpdateSauvegardeConfigRequest,
)
from unionflow.config import Settings
from unionflow.core import audit, maintenance, numbering, reference
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, InvalidInput, NotFound
from unionflow.core.permissions import Permission
from unionflow.models import Sauvegarde
from unionflow.models.monitoring import StatutSauvegarde, TypeSauvegarde
from unionflow.models.planificateur import TypeTache
from unionflow.tasks.schemas import TacheResponse
from unionflow.tasks.service import TacheService

MODULE = "SAUVEGARDES"
_CONFIG_FIELDS = list(UpdateSauvegardeConfigRequest.model_fields)
# Kept by a person's explicit decision; retention prunes only what the system made by itself.
PRUNABLE_TYPES = (TypeSauvegarde.AUTOMATIQUE, TypeSauvegarde.POINT_RESTAURATION)


def _now() -> datetime:
    return datetime.now(UTC)


class SauvegardeService:
    """``auth`` is None for the scheduled job (audit entries then name "systeme")."""

    def __init__(self, session: AsyncSession, auth: AuthContext | None, settings: Settings,
                 engine: AsyncEngine | None = None) -> None:
        self.session = session
        self.auth = auth
        self.settings = settings
        self.engine = engine
        self.repo = SauvegardeRepository(session)
        self.files = BackupFiles(settings)

    @property
    def actor(self) -> str:
        return self.auth.actor_name if self.auth else "systeme"

    async def _get(self, backup_id: uuid.UUID, *, for_update: bool = False) -> Sauvegarde:
        backup = await self.repo.get(backup_id, for_update=for_update)
        if backup is None:
            raise NotFound("Sauvegarde introuvable")
        return backup

    # Reading

    async def catalogue(self) -> list[SauvegardeResponse]:
        return [SauvegardeResponse.model_validate(b) for b in await self.repo.kept()]

    async def obtenir(self, backup_id: uuid.UUID) -> SauvegardeResponse:
        return SauvegardeResponse.model_validate(await self._get(backup_id))

    # Creating: start (row EN_COURS) then finish (file, TERMINEE or ECHOUEE). The scheduled job commits
    # between the two so that a running backup is visible; a request does both in its transaction.

    async def demarrer(self, type_: str, nom: str | None = None, description: str | None = None) -> Sauvegarde:
        self.files.ensure_tools()
        now = _now()
        backup_id = uuid.uuid4()
        libelle = {"MANUELLE": "Sauvegarde manuelle", "AUTOMATIQUE": "Sauvegarde automatique",
                   "POINT_RESTAURATION": "Point de restauration"}[type_]
        backup = Sauvegarde(id=backup_id, nom=nom or f"{libelle} du {now:%Y-%m-%d %H:%M} UTC",
                            description=description, type=type_, statut=StatutSauvegarde.EN_COURS,
                            moteur=self.files.moteur,
                            fichier=f"{backup_id}{self.files.extension}", cree_par=self.actor, date_creation=now,
                            revision_schema=await self.repo.schema_revision())
        self.repo.add(backup)
        await self.session.flush()
        return backup

    async def terminer(self, backup: Sauvegarde, *, record_audit: bool = True) -> Sauvegarde:
        try:
            backup.taille_octets, backup.sha256 = await self.files.dump(backup.fichier)
            backup.statut = StatutSauvegarde.TERMINEE
        except BackupFailed as exc:
            backup.statut, backup.message_erreur = StatutSauvegarde.ECHOUEE, str(exc)
        backup.date_fin = _now()
        await self.session.flush()
        if record_audit:
            await self._audit_backup(backup)
        return backup

    async def _audit_backup(self, backup: Sauvegarde) -> None:
        ok = backup.statut == StatutSauvegarde.TERMINEE
        await audit.record(self.session, self.auth, action="SAUVEGARDER" if ok else "SAUVEGARDE_ECHEC",
                           module=MODULE, entite_type="Sauvegarde", entite_id=backup.id,
                           severite="INFO" if ok else "ERROR",
                           after=audit.snapshot(backup, ["nom", "type", "statut", "taille_octets", "sha256"]),
                           description=backup.message_erreur or f"{backup.nom} ({backup.taille_octets} octets)")

    async def creer(self, data: CreateSauvegardeRequest | None, type_: str = "MANUELLE",
                     seuil_octets: int | None = None) -> SauvegardeResponse | TacheResponse:
        """Inline, or for a database over ``seuil_octets`` a background task finishing the EN_COURS row."""
        data = data or CreateSauvegardeRequest()
        backup = await self.demarrer(type_, data.nom, data.description)
        if self.auth is not None and seuil_octets is not None and await self.repo.taille_base() > seuil_octets:
            return await TacheService(self.session, self.auth).creer(
                TypeTache.SAUVEGARDE, {"sauvegardeId": str(backup.id)}, None)
        return SauvegardeResponse.model_validate(await self.terminer(backup))

    async def restore_point(self) -> SauvegardeResponse:
        return SauvegardeResponse.model_validate(await self.terminer(await self.demarrer("POINT_RESTAURATION")))

    # Deleting and pruning

    async def _remove(self, backup: Sauvegarde, description: str) -> None:
        backup.statut = StatutSauvegarde.SUPPRIMEE
        backup.date_suppression = _now()
        backup.supprime_par = self.actor
        await self.session.flush()
        await audit.record(self.session, self.auth, action="SUPPRIMER", module=MODULE, entite_type="Sauvegarde",
                           entite_id=backup.id, severite="WARNING", description=description)
        # Last, so that a failure above leaves the file in place.
        self.files.remove(backup.fichier)

    async def supprimer(self, backup_id: uuid.UUID) -> SauvegardeResponse:
        backup = await self._get(backup_id, for_update=True)
        if backup.statut == StatutSauvegarde.SUPPRIMEE:
            raise Conflict("Sauvegarde déjà supprimée")
        if backup.statut == StatutSauvegarde.EN_COURS:
            raise Conflict("Sauvegarde en cours: suppression impossible")
        await self._remove(backup, f"Suppression de {backup.nom}")
        return SauvegardeResponse.model_validate(backup)

    async def purger(self, now: datetime | None = None) -> list[Sauvegarde]:
        now = now or _now()
        config = await self.repo.config()
        keep = await self.repo.last_automatic((StatutSauvegarde.TERMINEE,))
        pruned = []
        for backup in await self.repo.expired(now - timedelta(days=config.retention_jours), PRUNABLE_TYPES):
            if keep is not None and backup.id == keep.id:
                continue  # never prune the last good automatic backup, however old
            await self._remove(backup, f"Rétention de {config.retention_jours} jours: {backup.nom}")
            pruned.append(backup)
        return pruned

    async def due(self, now: datetime | None = None) -> bool:
        now = now or _now()
        config = await self.repo.config(for_update=True)
        if not config.actif:
            return False
        last = await self.repo.last_automatic((StatutSauvegarde.TERMINEE, StatutSauvegarde.EN_COURS))
        return last is None or last.date_creation < schedule.last_slot(config, now)

    # Schedule

    async def _config_response(self) -> SauvegardeConfigResponse:
        config = await self.repo.config()
        last = await self.repo.last_automatic((StatutSauvegarde.TERMINEE,))
        return SauvegardeConfigResponse.model_validate({
            **{k: getattr(config, k) for k in (*_CONFIG_FIELDS, "date_modification", "modifie_par")},
            "prochaine_execution": schedule.next_slot(config, _now()),
            "derniere_sauvegarde_automatique": last.date_creation if last else None,
        })

    async def config(self) -> SauvegardeConfigResponse:
        return await self._config_response()

    async def modifier_config(self, data: UpdateSauvegardeConfigRequest) -> SauvegardeConfigResponse:
        config = await self.repo.config(for_update=True)
        before = audit.snapshot(config, _CONFIG_FIELDS)
        for key, value in data.changes().items():
            setattr(config, key, value)
        config.date_modification = _now()
        config.modifie_par = self.actor
        await self.session.flush()
        await audit.record(self.session, self.auth, action="MODIFIER", module=MODULE, entite_type="SauvegardeConfig",
                           entite_id=config.id, before=before, after=audit.snapshot(config, _CONFIG_FIELDS),
                           description="Modification de la planification des sauvegardes")
        return await self._config_response()

    # Restoring (see docs/monitoring-sauvegardes.md, "Restauration")

    async def restaurer(self, data: RestaurerSauvegardeRequest) -> RestaurationResponse:
        if data.confirmation != CONFIRMATION:
            raise InvalidInput(f'Confirmation requise: envoyer "confirmation": "{CONFIRMATION}"')
        if self.auth is not None:
            self.auth.require(Permission.SAUVEGARDE_RESTAURER, None,
                              "Seuls les administrateurs de l'union restaurent une sauvegarde")
        backup = await self._get(data.backup_id)
        if backup.statut != StatutSauvegarde.TERMINEE:
            raise Conflict(f"Seule une sauvegarde TERMINEE se restaure (statut {backup.statut})")
        if backup.moteur != self.files.moteur:
            raise Conflict(f"Sauvegarde {backup.moteur} incompatible avec la base {self.files.moteur}")
        path = self.files.path(backup.fichier)
        if not path.is_file():
            raise Conflict("Fichier de sauvegarde introuvable sur le serveur")
        if await asyncio.to_thread(sha256_file, path) != backup.sha256:
            raise Conflict("Empreinte SHA-256 différente: fichier de sauvegarde altéré, restauration refusée")
        if backup.revision_schema != await self.repo.schema_revision():
            raise Conflict("La sauvegarde vient d'une autre version du schéma (migrations): restauration refusée")
        self.files.ensure_tools(restore=True)
        if self.engine is None:
            raise Conflict("Restauration impossible hors d'une requête de l'API")
        backup_id, fichier, nom = backup.id, backup.fichier, backup.nom
        audit_since = backup.date_creation - timedelta(minutes=1)
        # The window waits for every write transaction to end, this request's own included.
        await self.session.rollback()
        async with maintenance.window(self.engine, f"restauration de « {nom} »") as window:
            try:
                response = await self._restore_in_window(backup_id, nom, fichier, audit_since, self.engine)
                await window.end(self.session)
            except BaseException:
                await self.session.rollback()
                raise
        return response

    async def _restore_in_window(self, backup_id: uuid.UUID, nom: str, fichier: str, audit_since: datetime,
                                 engine: AsyncEngine) -> RestaurationResponse:
        # No write runs anywhere now: the restore point holds every acknowledged write, and the counters read
        # here are the highest numbers ever handed out.
        point = await self.terminer(await self.demarrer(
            "POINT_RESTAURATION", f"Avant restauration de « {nom} »",
            f"Point de restauration automatique avant la restauration de {backup_id}"), record_audit=False)
        if point.statut != StatutSauvegarde.TERMINEE:
            raise Conflict(f"Point de restauration impossible, restauration annulée: {point.message_erreur}")
        point_id = point.id
        state = await self.repo.preserved_state(audit_since)
        counters = await numbering.all_values(self.session)
        # The restore replaces the database under us: end this transaction first so that it holds no lock or
        # snapshot (SQLite write lock, PostgreSQL table locks) that the restore would wait on. Nothing is lost:
        # what must survive is in ``state`` and ``counters`` and written back below.
        await self.session.rollback()
        self.session.expunge_all()  # rows may vanish or change under the restore
        restored_at = _now()
        try:
            await self.files.restore(fichier, maintenance.copy_sqlite_flag)
            statut, message = StatutSauvegarde.TERMINEE, f"Base restaurée depuis « {state_name(state, backup_id)} »"
        except BackupFailed as exc:
            statut, message = StatutSauvegarde.ECHOUEE, f"Restauration échouée, base inchangée: {exc}"
        # Pooled connections may cache statements prepared against the replaced tables.
        await engine.dispose()
        for values in state["sauvegarde"]:
            if values["id"] == backup_id and statut == StatutSauvegarde.TERMINEE:
                values["date_derniere_restauration"] = restored_at
        await self.repo.put_back(state, audit_since)
        # Numbers never go back; the reference-data version goes forward: workers drop what they cached.
        await numbering.raise_to(self.session, reference.version_apres_restauration(counters))
        restored = await self._get(backup_id)
        point = await self._get(point_id)
        await self._audit_backup(point)
        await audit.record(self.session, self.auth, action="RESTAURER" if statut == StatutSauvegarde.TERMINEE
                           else "RESTAURATION_ECHEC", module=MODULE, entite_type="Sauvegarde",
                           entite_id=backup_id, severite="CRITICAL", description=message,
                           after={"sauvegarde": str(backup_id), "point_restauration": str(point_id)})
        return RestaurationResponse(statut=statut, message=message,
                                    sauvegarde=SauvegardeResponse.model_validate(restored),
                                    point_restauration=SauvegardeResponse.model_validate(point),
                                    date_restauration=restored_at)


def state_name(state: dict[str, list[dict[str, object]]], backup_id: uuid.UUID) -> str:
    return next(str(v["nom"]) for v in state["sauvegarde"] if v["id"] == backup_id)
