"""Running background tasks inside the scheduler: each scheduler runs at most one task at a time, claimed with
``TacheRepository.reclamer``; progress is committed with each chunk of work (which also extends the lease).
A task interrupted by a shutdown goes back to EN_ATTENTE and is resumed (its work is idempotent); one whose
runner crashed is taken over once the lease has passed."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit, maintenance
from unionflow.core.errors import UnionFlowError
from unionflow.cotisations import generation
from unionflow.cotisations.schemas import GenererCotisationsRequest
from unionflow.cotisations.service import MODULE as MODULE_COTISATIONS
from unionflow.export.jobs import EchecExport, executer_export
from unionflow.imports.service import Droits, ImportMembresService, dossier_imports
from unionflow.models import Organisation, Tache
from unionflow.models.base import utcnow
from unionflow.planificateur.jobs import Contexte
from unionflow.sauvegardes.service import SauvegardeService
from unionflow.taches.repository import TacheRepository
from unionflow.taches.schemas import StatutTache, TypeTache

log = logging.getLogger("unionflow.taches")
S = StatutTache

Avancer = Callable[[AsyncSession, int, int], Awaitable[None]]
# (context, task, progress callback) → (result, link to the produced resource or None)
Executeur = Callable[[Contexte, Tache, Avancer], Awaitable[tuple[dict[str, Any], str | None]]]


class EchecTache(Exception):
    pass


async def _generation_cotisations(ctx: Contexte, tache: Tache, avancer: Avancer) -> tuple[dict[str, Any], None]:
    data = GenererCotisationsRequest.model_validate(tache.parametres)
    async with ctx.sessionmaker() as session:
        organisation = await session.get(Organisation, data.organisation_id)
        if organisation is None:
            raise EchecTache("Organisation introuvable (supprimée depuis la demande)")
        membres = await generation.membres_actifs(session, organisation.id)
        bilan = await generation.generer(session, organisation, data, membres, avancer, commit_each_chunk=True)
        await audit.record(session, None, action="GENERER", module=MODULE_COTISATIONS, entite_type="Organisation",
                           entite_id=organisation.id, organisation_id=organisation.id,
                           description=f"{bilan.message} (tâche {tache.id})",
                           after={**generation.audit_after(data, bilan), "tache": tache.id})
        await session.commit()
    return bilan.model_dump(mode="json", by_alias=True), None


async def _sauvegarde(ctx: Contexte, tache: Tache, avancer: Avancer) -> tuple[dict[str, Any], str]:
    backup_id = uuid.UUID(str(tache.parametres["sauvegardeId"]))
    async with ctx.sessionmaker() as session:
        service = SauvegardeService(session, None, ctx.settings, ctx.engine)
        backup = await service.repo.get(backup_id)
        if backup is None or backup.statut != "EN_COURS":
            raise EchecTache("Sauvegarde introuvable ou déjà terminée")
        # No transaction (on SQLite: no write lock) held while the dump runs.
        await session.commit()
        await service.terminer(backup)
        await session.commit()
    if backup.statut != "TERMINEE":
        raise EchecTache(backup.message_erreur or f"Sauvegarde {backup.statut}")
    return ({"sauvegardeId": str(backup.id), "statut": backup.statut, "tailleOctets": backup.taille_octets,
             "sha256": backup.sha256}, f"/api/backups/{backup.id}")


async def _export(ctx: Contexte, tache: Tache, avancer: Avancer) -> tuple[dict[str, Any], str]:
    try:
        return await executer_export(ctx.sessionmaker, ctx.settings, tache.id, tache.parametres, avancer)
    except EchecExport as exc:
        raise EchecTache(str(exc)) from exc


async def _import_membres(ctx: Contexte, tache: Tache, avancer: Avancer) -> tuple[dict[str, Any], None]:
    parametres = tache.parametres
    chemin = dossier_imports(ctx.settings.data_dir) / str(parametres["fichier"])
    if not chemin.is_file():
        raise EchecTache("Fichier de l'import introuvable (supprimé depuis la demande)")
    contenu = await asyncio.to_thread(chemin.read_bytes)

    async def avancer_et_valider(session: AsyncSession, traites: int, total: int) -> None:
        await avancer(session, traites, total)
        await session.commit()

    droits = Droits(bool(parametres["attribuerRoles"]), bool(parametres["toutesOrganisations"]))
    async with ctx.sessionmaker() as session:
        try:
            rapport = await ImportMembresService(session, None, droits).importer_par_lots(
                uuid.UUID(str(parametres["organisationId"])), contenu, avancer_et_valider, tache.id)
            await session.commit()
        except UnionFlowError as exc:
            # A refusal (organisation suspended, e-mail taken meanwhile...) ends the task: its file goes too.
            chemin.unlink(missing_ok=True)
            raise EchecTache(exc.detail) from exc
    # Kept until here so that a task interrupted by a shutdown resumes from the same file.
    chemin.unlink(missing_ok=True)
    return rapport.model_dump(mode="json", by_alias=True), None


EXECUTEURS: dict[TypeTache, Executeur] = {
    TypeTache.GENERATION_COTISATIONS: _generation_cotisations,
    TypeTache.SAUVEGARDE: _sauvegarde,
    TypeTache.EXPORT: _export,
    TypeTache.IMPORT_MEMBRES: _import_membres,
}


class ExecuteurTaches:
    def __init__(self, ctx: Contexte, hote: str) -> None:
        self.ctx = ctx
        self.hote = hote
        self.en_cours: asyncio.Task[None] | None = None

    def _bail(self) -> Any:
        return utcnow() + timedelta(seconds=self.ctx.settings.planificateur_bail_seconds)

    async def tick(self) -> asyncio.Task[None] | None:
        """Claim and start the oldest runnable task unless this scheduler already runs one."""
        if self.en_cours is not None and not self.en_cours.done():
            return None
        async with self.ctx.sessionmaker() as session:
            if await maintenance.writes_suspended(session):
                return None
            tache = await TacheRepository(session, None).reclamer(utcnow(), self._bail(), self.hote)
            await session.commit()
        if tache is None:
            return None
        self.en_cours = asyncio.create_task(self._executer(tache), name=f"tache:{tache.id}")
        return self.en_cours

    async def _executer(self, tache: Tache) -> None:
        async def avancer(session: AsyncSession, traites: int, total: int) -> None:
            await TacheRepository(session, None).avancer(tache.id, traites, total, self._bail())

        values: dict[str, Any]
        try:
            resultat, lien = await EXECUTEURS[TypeTache(tache.type)](self.ctx, tache, avancer)
            values = {"statut": S.TERMINEE.value, "progression": 100, "resultat": resultat, "lien_resultat": lien,
                      "date_fin": utcnow()}
        except asyncio.CancelledError:
            values = {"statut": S.EN_ATTENTE.value}
            raise
        except Exception as exc:
            if not isinstance(exc, EchecTache):
                log.exception("task %s (%s) failed", tache.id, tache.type)
            values = {"statut": S.ECHOUEE.value, "message_erreur": f"{exc}"[:2000], "date_fin": utcnow()}
        finally:
            try:
                await asyncio.shield(self._terminer(tache, values))
            except Exception:
                # Database gone meanwhile: the lease expires and another scheduler resumes the task.
                log.exception("could not record the end of task %s", tache.id)

    async def _terminer(self, tache: Tache, values: dict[str, Any]) -> None:
        async with self.ctx.sessionmaker() as session:
            await TacheRepository(session, None).terminer(tache.id, values)
            await session.commit()
        log.info("task %s (%s) %s", tache.id, tache.type, values["statut"])
