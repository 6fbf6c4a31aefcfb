from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from unionflow.core.schemas import OutputModel


class ActionImport(StrEnum):
    CREER = "CREER"
    METTRE_A_JOUR = "METTRE_A_JOUR"
    INCHANGE = "INCHANGE"
    REFUSER = "REFUSER"


class LigneImportResponse(OutputModel):
    ligne: int = Field(description="Numéro de ligne dans le fichier (l'en-tête est la ligne 1)")
    action: ActionImport
    numero_membre: str | None = None
    nom: str | None = None
    motifs: list[str] = Field(default_factory=list, description="Pourquoi la ligne est refusée, ou ce qui change")
    avertissements: list[str] = Field(
        default_factory=list, description="Extension: ce qui mérite un regard sans bloquer la ligne, "
                                          "ex. un téléphone partagé avec une autre ligne ou un membre déjà inscrit")


class ImportMembresResponse(OutputModel):
    simulation: bool = Field(description="true: rien n'a été enregistré (simulation)")
    total: int
    crees: int
    mis_a_jour: int
    inchanges: int
    refuses: int
    lignes: list[LigneImportResponse]
