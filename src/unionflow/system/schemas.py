from __future__ import annotations

from enum import StrEnum

from unionflow.core.schemas import OutputModel


class EtatComposant(StrEnum):
    UP = "UP"  # reachable now (database)
    ACTIF = "ACTIF"
    INACTIF = "INACTIF"  # configured but switched off
    NON_CONFIGURE = "NON_CONFIGURE"


class ComposantResponse(OutputModel):
    nom: str
    etat: EtatComposant
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
