from __future__ import annotations

import uuid
from datetime import date, datetime
from enum import StrEnum

from pydantic import Field

from unionflow.core.schemas import InputModel, OutputModel
from unionflow.models.donnees_personnelles import CanalConsentement, FinaliteConsentement


class CreateConsentementRequest(InputModel):
    """A consent recorded by the member himself (no ``membreId``) or by the secretariat for a member."""

    membre_id: uuid.UUID | None = Field(None, description="Absent: le membre connecté consent pour lui-même")
    organisation_id: uuid.UUID = Field(description="L'organisation à qui le consentement est donné")
    finalite: FinaliteConsentement
    canal: CanalConsentement = Field(CanalConsentement.API, description="PAPIER: formulaire signé, saisi par le "
                                                                         "secrétariat. USSD refusé (400): le "
                                                                         "consentement aux données sensibles est "
                                                                         "écrit (loi 2008-12, art. 41 2°)")
    notice_version: int = Field(ge=1, description="Version de la notice d'information lue par le membre (la "
                                                  "version en vigueur: `GET /api/donnees-personnelles/notices`)")


class NoticeResponse(OutputModel):
    finalite: FinaliteConsentement
    version: int
    texte: str = Field(description="Le texte de la notice (loi n° 2008-12, art. 58), une ligne par information: "
                                   "responsable du traitement (l'organisation), finalité, données, destinataires, "
                                   "réponse obligatoire ou facultative, durée de conservation, transferts, droits")
    organisation_id: uuid.UUID | None = Field(None, description="L'organisation, responsable du traitement, que "
                                                                "le texte nomme")


class ConsentementResponse(OutputModel):
    id: uuid.UUID
    membre_id: uuid.UUID
    organisation_id: uuid.UUID
    finalite: FinaliteConsentement
    notice_version: int
    canal: CanalConsentement
    donne_le: datetime
    recueilli_par_nom: str
    en_vigueur: bool
    retire_le: datetime | None = None
    retire_par_nom: str | None = None


class AccesDossierResponse(OutputModel):
    id: uuid.UUID
    membre_id: uuid.UUID
    membre_nom: str | None = None
    organisation_id: uuid.UUID | None = None
    lecteur_nom: str
    lecteur_roles: list[str]
    ecran: str
    lu_le: datetime


class StatutDeclaration(StrEnum):
    DECLARE = "DECLARE"
    NON_DECLARE = "NON_DECLARE"


class CreateRecepisseTraitementRequest(InputModel):
    """The CDP's récépissé of the organisation's declaration of one processing (Loi 2008-12 art. 18)."""

    organisation_id: uuid.UUID = Field(description="L'organisation qui a déclaré le traitement (le responsable)")
    numero_recepisse: str = Field(min_length=1, max_length=100, description="Numéro du récépissé délivré par la CDP")
    date_recepisse: date = Field(description="Date du récépissé (pas dans le futur)")
    date_declaration: date | None = Field(default=None, description="Date de dépôt de la déclaration (facultative; "
                                                                    "pas après le récépissé)")


class RecepisseTraitementResponse(OutputModel):
    organisation_id: uuid.UUID
    traitement: str
    numero_recepisse: str
    date_recepisse: date
    date_declaration: date | None
    enregistre_par: str
    enregistre_le: datetime = Field(description="Dernier enregistrement ou correction")


class TraitementResponse(OutputModel):
    code: str
    nom: str
    zone: str
    finalite: str
    base_legale: str
    categories_donnees: list[str]
    personnes_concernees: list[str]
    destinataires: list[str]
    duree_conservation: str = Field(description="Durée de conservation et ce qui l'applique; les durées réglables y "
                                                "sont celles de cette installation (réglages "
                                                "UNIONFLOW_DONNEES_*_CONSERVATION_*, tâche quotidienne "
                                                "retention-donnees)")
    transferts_hors_senegal: str
    donnees_sensibles: list[str]
    tables: list[str]
    opposable: bool = Field(description="Le membre peut s'y opposer (loi n° 2008-12): "
                                        "POST /api/moi/donnees/oppositions")
    effet_opposition: str = Field(description="Ce que change l'opposition du membre (vide si non opposable)")
    statut_declaration: StatutDeclaration = Field(
        StatutDeclaration.NON_DECLARE, description="DECLARE: un récépissé de la CDP est enregistré pour "
        "l'organisation (loi n° 2008-12, art. 18); NON_DECLARE sinon (« non déclaré »)")
    recepisse: RecepisseTraitementResponse | None = None
    declaration_cdp: str = Field("non déclaré", description="Ce que le registre imprimé écrit: « Récépissé n° … du "
                                                            "… » ou « non déclaré »")


class RegistreTraitementsResponse(OutputModel):
    responsable: str = Field(description="Le responsable du traitement: chaque organisation pour ses membres")
    loi: str
    organisation_id: uuid.UUID | None = Field(None, description="L'organisation dont les récépissés sont montrés "
                                                                "(null: aucune, chaque traitement « non déclaré »)")
    traitements: list[TraitementResponse]
