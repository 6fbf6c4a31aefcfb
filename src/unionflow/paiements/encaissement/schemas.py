"""The input of the settlement workflow: what a payment pays (one dues or one adhesion each), shared by the
counter, declarations and Wave checkouts."""

from __future__ import annotations

import uuid

from pydantic import Field

from unionflow.core.regles import UnSeul
from unionflow.core.schemas import InputModel, Montant


class CibleInput(InputModel):
    regles = (UnSeul(("cotisation_id", "adhesion_id"), "chaque cible désigne soit cotisationId, soit adhesionId"),)

    cotisation_id: uuid.UUID | None = None
    adhesion_id: uuid.UUID | None = None
    montant: Montant | None = Field(default=None, gt=0, max_digits=18, decimal_places=2)
