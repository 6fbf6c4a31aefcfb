"""The input of the settlement workflow: what a payment pays (one dues or one adhesion each), shared by the
counter, declarations and Wave checkouts."""

from __future__ import annotations

import uuid

from pydantic import Field, model_validator

from unionflow.core.schemas import InputModel, Montant, regle_metier


class CibleInput(InputModel):
    cotisation_id: uuid.UUID | None = None
    adhesion_id: uuid.UUID | None = None
    montant: Montant | None = Field(default=None, gt=0, max_digits=18, decimal_places=2)

    @model_validator(mode="after")
    def one_target(self) -> CibleInput:
        if (self.cotisation_id is None) == (self.adhesion_id is None):
            raise regle_metier("chaque cible désigne soit cotisationId, soit adhesionId")
        return self
