"""Income account per kind of income (extension): what is read and what may be set."""

from __future__ import annotations

from pydantic import Field

from unionflow.core.regles import UneFois
from unionflow.core.schemas import InputModel, OutputModel
from unionflow.models.recette import NatureRecette


class CompteProduitResponse(OutputModel):
    nature: NatureRecette
    numero_compte: str = Field(description="Compte de classe 7 crédité pour cette nature")
    libelle_compte: str | None = Field(description="Libellé du compte dans le plan de l'organisation (absent tant "
                                                   "que le compte par défaut n'est pas ouvert: il l'est au premier "
                                                   "encaissement)")
    par_defaut: bool = Field(description="true: aucun choix de l'organisation, le compte par défaut s'applique")
    numero_compte_defaut: str


class CompteProduitChoix(InputModel):
    nature: NatureRecette
    numero_compte: str | None = Field(pattern=r"^7[0-9]{1,11}$", description=(
        "Compte de produits (classe 7) actif du plan de l'organisation; null rétablit le compte par défaut"))


class UpdateComptesProduitsRequest(InputModel):
    regles = (UneFois("comptes", "nature", "comptes: chaque nature n'apparaît qu'une fois"),)

    comptes: list[CompteProduitChoix] = Field(min_length=1, max_length=len(NatureRecette))
