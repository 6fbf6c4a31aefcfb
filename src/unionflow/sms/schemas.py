from __future__ import annotations

import uuid

from pydantic import Field

from unionflow.core.schemas import OutputModel


class SmsEntrantResponse(OutputModel):
    id: uuid.UUID
    mot_cle: str = Field(description="SOLDE, RECU, AIDE, STOP, START, ou INCONNU (message non compris)")
    reponses: int = Field(description="SMS de réponse mis dans la file d'envoi (0 pour un message déjà reçu)")
    doublon: bool = Field(description="Le même message (même identifiant de passerelle) avait déjà été reçu")


class AccusesSmsResponse(OutputModel):
    enregistres: int = Field(description="Messages dont l'accusé a été enregistré (0: identifiant inconnu)")
