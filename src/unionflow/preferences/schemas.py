from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import Field, field_validator

from unionflow.core.schemas import OutputModel, UpdateModel
from unionflow.models.notification import Canal, Langue, Theme, TypeNotification

# Each channel once; stated in the schema (uniqueItems) as well as checked by the models that take a list.
CanauxDistincts = Annotated[list[Canal], Field(json_schema_extra={"uniqueItems": True})]


class UpdatePreferencesRequest(UpdateModel):
    langue: Langue | None = None
    theme: Theme | None = None
    canaux_par_type: dict[TypeNotification, CanauxDistincts] | None = Field(
        default=None, description="Canaux voulus par type de notification; [] = refuser ce type (sauf obligatoire). "
                                  "Remplace l'ensemble précédent.")
    refus_non_obligatoires: bool | None = Field(default=None,
                                                description="Refuser toutes les notifications non obligatoires")

    @field_validator("canaux_par_type")
    @classmethod
    def _distinct(cls, value: dict[TypeNotification, list[Canal]] | None) -> dict[TypeNotification, list[Canal]] | None:
        if value is not None:
            for kind, canaux in value.items():
                if len(set(canaux)) != len(canaux):
                    raise ValueError(f"canal répété pour {kind.value}")
        return value


class PreferencesResponse(OutputModel):
    langue: Langue
    theme: Theme
    canaux_par_type: dict[str, list[str]]
    refus_non_obligatoires: bool
    types_obligatoires: list[TypeNotification] = Field(description="Types toujours envoyés, quel que soit le refus")
    updated_at: datetime | None
