from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, OutputModel, UpdateModel

CODE = r"^[A-Z][A-Z0-9_]{1,49}$"


def code_du_domaine(domaine: str) -> str:
    """Description of a field whose value is a code of the editable reference table: a string, not an enum."""
    return f"Code du domaine {domaine} des types de référence (table modifiable, pas une énumération)"


class CreateTypeReferenceRequest(InputModel):
    domaine: str = Field(pattern=CODE, description="ex. TYPE_EVENEMENT, TYPE_DOCUMENT, TYPE_AIDE")
    code: str = Field(pattern=CODE, description="Code stable, en majuscules; il ne change plus ensuite")
    libelle: str = Field(min_length=2, max_length=200)
    description: str | None = Field(default=None, max_length=500)
    ordre: int = Field(default=0, ge=0, le=10_000)
    actif: bool = True


class UpdateTypeReferenceRequest(UpdateModel):
    nullable_fields = frozenset({"description"})
    libelle: str | None = Field(default=None, min_length=2, max_length=200)
    description: str | None = Field(default=None, max_length=500)
    ordre: int | None = Field(default=None, ge=0, le=10_000)
    actif: bool | None = None


class TypeReferenceResponse(OutputModel):
    id: uuid.UUID
    domaine: str
    code: str
    libelle: str
    description: str | None
    ordre: int
    actif: bool
    systeme: bool
    created_at: datetime
    updated_at: datetime


class DomaineResponse(OutputModel):
    domaine: str
    nombre: int
    actifs: int
