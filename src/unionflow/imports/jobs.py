"""The background task of the imports area: a member import too large for one request."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core.errors import UnionFlowError
from unionflow.core.jobs import Avancer, Contexte, EchecTache
from unionflow.imports.service import Droits, ImportMembresService, dossier_imports
from unionflow.models import Tache


async def import_membres_tache(ctx: Contexte, tache: Tache, avancer: Avancer) -> tuple[dict[str, Any], None]:
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
