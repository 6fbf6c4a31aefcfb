from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field, field_validator

from unionflow.core.regles import Si
from unionflow.core.schemas import InputModel, Montant, OutputModel
from unionflow.core.telephone import verifier_national
from unionflow.models.versement import ModeVersement, ObjetVersement, StatutVersement

# The one motif body of the money package (a payout's withdrawal gives its reason like a payment's).
from unionflow.paiements.schemas import MotifRequest as MotifRequest

PHONE_PATTERN = r"^\+[1-9]\d{6,14}$"


class CreateVersementRequest(InputModel):
    regles = (Si("mode", ModeVersement.WAVE, "beneficiaireTelephone est obligatoire pour un versement Wave",
                 requis=("beneficiaire_telephone",)),
              Si("mode", ModeVersement.WAVE, "un versement Wave est un montant entier en XOF",
                 fixes=(("devise", "XOF"),), entiers=("montant",)))

    organisation_id: uuid.UUID
    montant: Montant = Field(gt=0, max_digits=18, decimal_places=2)
    devise: str = Field(default="XOF", pattern=r"^[A-Z]{3}$")
    mode: ModeVersement
    objet_type: ObjetVersement
    objet_id: uuid.UUID | None = Field(default=None, description="Objet précis (ex. demande d'aide), optionnel")
    motif: str = Field(min_length=3, max_length=500)
    beneficiaire_nom: str = Field(min_length=2, max_length=200)
    beneficiaire_telephone: str | None = Field(default=None, pattern=PHONE_PATTERN,
                                               description="E.164 (numéro national vérifié: sinon 400 "
                                                           "regle-metier avec la raison); obligatoire pour un "
                                                           "versement Wave")

    _telephone = field_validator("beneficiaire_telephone")(verifier_national)
    tresorerie_id: uuid.UUID | None = Field(
        default=None, description="Extension: la trésorerie d'où l'argent sort (par défaut celle du mode: "
                                  "Wave pour WAVE, la banque par défaut pour MANUEL); un versement WAVE sort d'une "
                                  "trésorerie WAVE")
    compte_charge: str | None = Field(
        default=None, pattern=r"^[26][0-9]{1,7}$",
        description="Extension: compte de contrepartie, classe 2 (immobilisation) ou 6 (charge), actif "
                    "dans le plan comptable de l'organisation; par défaut la charge de l'objet (6581-6588)")


class ConfirmerVersementRequest(InputModel):
    reference_externe: str | None = Field(default=None, max_length=100,
                                          description="Obligatoire pour un versement manuel (n° de virement...)")


class VersementResponse(OutputModel):
    id: uuid.UUID
    numero: str
    organisation_id: uuid.UUID
    montant: Montant
    devise: str
    mode: ModeVersement
    objet_type: ObjetVersement
    objet_id: uuid.UUID | None
    motif: str
    beneficiaire_nom: str
    beneficiaire_telephone: str | None
    statut: StatutVersement
    payout_id: str | None
    reference_externe: str | None
    date_execution: datetime | None
    motif_echec: str | None
    cree_par: str
    confirme_par: str | None
    organisation_destinataire_id: uuid.UUID | None = Field(
        default=None, description="Extension: la fédération qui reçoit une quote-part (QUOTE_PART)")
    numero_recu_destinataire: str | None = Field(
        default=None, description="Extension: le reçu de la quote-part dans la série de la fédération")
    tresorerie_id: uuid.UUID | None = Field(description="Extension: trésorerie d'où l'argent sort")
    compte_charge: str | None = Field(description="Extension: compte de contrepartie choisi (null: la "
                                                  "charge par défaut de l'objet)")
    created_at: datetime
    updated_at: datetime
