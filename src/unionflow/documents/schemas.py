from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from unionflow.core.schemas import InputModel, OutputModel
from unionflow.models.document import TypeEntite, VisibiliteDocument
from unionflow.types_reference.schemas import code_du_domaine

TYPE_DOCUMENT_DOMAINE = "TYPE_DOCUMENT"


class CreateDocumentRequest(InputModel):
    """A document record without content (a paper archive reference, a document to upload later)."""

    nom_fichier: str = Field(min_length=1, max_length=255)
    description: str | None = Field(default=None, max_length=2000)
    type_document: str = Field(default="AUTRE", min_length=1, max_length=50,
                               description=code_du_domaine("TYPE_DOCUMENT"))
    visibilite: VisibiliteDocument = VisibiliteDocument.PRIVE
    organisation_id: uuid.UUID | None = Field(
        default=None, description="Organisation du document: ses responsables le voient (requis si ORGANISATION)")


class CreatePieceJointeRequest(InputModel):
    document_id: uuid.UUID
    type_entite: TypeEntite
    entite_id: uuid.UUID
    libelle: str | None = Field(default=None, max_length=200)


class DocumentResponse(OutputModel):
    id: uuid.UUID
    nom_fichier: str
    description: str | None
    type_document: str = Field(description=code_du_domaine("TYPE_DOCUMENT"))
    visibilite: VisibiliteDocument
    organisation_id: uuid.UUID | None
    proprietaire_membre_id: uuid.UUID | None
    contenu_disponible: bool
    type_mime: str | None
    taille_octets: int | None
    hash_sha256: str | None
    nombre_telechargements: int
    date_dernier_telechargement: datetime | None
    created_at: datetime
    updated_at: datetime


class PieceJointeResponse(OutputModel):
    id: uuid.UUID
    document_id: uuid.UUID
    type_entite: TypeEntite
    entite_id: uuid.UUID
    organisation_id: uuid.UUID | None
    libelle: str | None
    ajoute_par: str
    created_at: datetime


class TelechargementResponse(OutputModel):
    telechargement_id: uuid.UUID
    document_id: uuid.UUID
    nom_fichier: str
    type_mime: str
    taille_octets: int
    hash_sha256: str
    nombre_telechargements: int
    url: str = Field(description="Adresse (relative) du contenu: GET avec le même jeton d'accès")
    expire_a: datetime = Field(description="Fin de validité de l'autorisation de téléchargement")
