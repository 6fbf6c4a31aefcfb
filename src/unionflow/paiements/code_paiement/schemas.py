"""Public payment by code: what anyone who knows a dues' code sees, and the Wave session opened for it."""

from __future__ import annotations

from datetime import date, datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, Montant, OutputModel

E164 = r"^\+[1-9][0-9]{6,14}$"


class CotisationParCodeResponse(OutputModel):
    code_paiement: str = Field(description="Le code, sans séparateurs")
    initiales: str = Field(description="Initiales du membre (« A. S. »): rien d'autre sur lui")
    organisation: str = Field(description="Nom de l'organisation à qui la cotisation est due")
    libelle: str
    date_echeance: date
    montant_restant: Montant = Field(description="Ce qui reste dû; 0 quand la cotisation est réglée ou annulée")
    devise: str
    payable: bool = Field(description="Faux quand il ne reste rien à payer (réglée ou annulée)")


class CreatePaiementParCodeRequest(InputModel):
    telephone_payeur: str | None = Field(default=None, pattern=E164, description=(
        "Numéro E.164 de la personne qui paie: un SMS lui confirme l'arrivée de l'argent (facultatif)"))


class PaiementParCodeResponse(OutputModel):
    code_paiement: str
    montant: Montant
    devise: str
    wave_launch_url: str = Field(description="Lien de paiement Wave à ouvrir (application ou navigateur)")
    expires_at: datetime | None
