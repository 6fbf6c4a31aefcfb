from __future__ import annotations

from unionflow.core.schemas import OutputModel


class ComposantResponse(OutputModel):
    nom: str
    etat: str
    detail: str | None = None


class SystemeResponse(OutputModel):
    version: str
    environnement: str
    python: str
    plateforme: str
    revisions_schema: list[str]
    devise_par_defaut: str
    pays_par_defaut: str
    taille_page_max: int
    taille_televersement_max: int
    composants: list[ComposantResponse]
