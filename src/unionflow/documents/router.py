from __future__ import annotations

import uuid

from fastapi import Query, Request, Response
from starlette.responses import StreamingResponse

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.pagination import set_total_header
from unionflow.core.roles import RS_READ, RS_WRITE
from unionflow.core.routing import area_router
from unionflow.documents.content import ACCEPTED_MEDIA_TYPES, content_disposition
from unionflow.documents.schemas import (
    CreateDocumentRequest,
    CreatePieceJointeRequest,
    DocumentResponse,
    PieceJointeResponse,
    TelechargementResponse,
)
from unionflow.documents.service import DocumentService
from unionflow.documents.storage import Storage, build_storage
from unionflow.documents.upload import receive_upload

router = area_router("/api/documents", "Documents")

VISIBILITE = ("Visibilité: un document est privé à son propriétaire; les responsables de son organisation et "
              "de l'organisation des entités auxquelles il est attaché le voient aussi, tous les membres de "
              "l'organisation s'il est de visibilité ORGANISATION; ADMIN voit tout. Hors visibilité: 404. ")

_UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {"multipart/form-data": {"schema": {
            "type": "object", "required": ["file"], "additionalProperties": False,
            "properties": {
                "file": {"type": "string", "format": "binary", "minLength": 1,
                         "description": "FileUpload. Types acceptés (contenu inspecté, pas le nom): "
                                        f"{', '.join(ACCEPTED_MEDIA_TYPES)}; bureautique sans macros. Contenu "
                                        "refusé (type, macros, extension trompeuse): 400 regle-metier"},
                # Multipart carries no null: an absent field is "no description" (decisions.md, multipart).
                "description": {"type": ["string", "null"], "maxLength": 2000},
                "typeDocument": {"type": "string", "description": "Type de référence TYPE_DOCUMENT (défaut AUTRE)"},
                "visibilite": {"type": "string", "enum": ["PRIVE", "ORGANISATION"], "description": "Extension"},
                "organisationId": {"type": "string", "format": "uuid", "description": "Extension"},
            },
        }, "encoding": {"file": {"contentType": ", ".join(ACCEPTED_MEDIA_TYPES)}}}},
    }
}


def storage_of(request: Request) -> Storage:
    storage = getattr(request.app.state, "document_storage", None)
    if storage is None:
        storage = build_storage(request.app.state.settings)
        request.app.state.document_storage = storage
    return storage


@router.post("", response_model=DocumentResponse, responses=problems(404),
             summary="Créer un document (métadonnées)",
             description="Fiche sans contenu (référence d'archive papier, document à téléverser). organisationId "
                         "facultatif: le document est alors visible des responsables de cette organisation; "
                         "visibilite ORGANISATION (réservée à ses responsables) le partage avec tous ses membres. "
                         "400 `regle-metier`: `visibilite` ORGANISATION exige `organisationId`; `typeDocument` inconnu "
                         "des types de référence TYPE_DOCUMENT (table modifiable).")
async def create_document(data: CreateDocumentRequest, session: SessionDep,
                          auth: AuthContext = authorize(RS_WRITE)) -> DocumentResponse:
    return await DocumentService(session, auth).creer(data)


@router.get("/mes-documents", response_model=list[DocumentResponse], summary="Documents de l'appelant",
            description="Documents dont l'appelant est propriétaire, du plus récent au plus ancien. Total dans "
                        "X-Total-Count.")
async def my_documents(response: Response, session: SessionDep,
                       auth: AuthContext = authorize(RS_READ)) -> list[DocumentResponse]:
    rows = await DocumentService(session, auth).mine()
    set_total_header(response, len(rows))
    return rows


@router.post("/pieces-jointes", response_model=PieceJointeResponse, responses=problems(404, 409),
             summary="Attacher un document à une entité",
             description="typeEntite parmi ADHESION, MEMBRE, DEMANDE_AIDE, EVENEMENT, PAIEMENT, TICKET, COTISATION, "
                         "ORGANISATION. Le propriétaire du document l'attache à une entité qui le concerne (son "
                         "dossier, son adhésion, son organisation) ; un responsable à toute entité de son "
                         "organisation. Les responsables de l'organisation de l'entité voient ensuite le document. "
                         "409 si déjà attaché.")
async def attach_document(data: CreatePieceJointeRequest, session: SessionDep,
                          auth: AuthContext = authorize(RS_WRITE)) -> PieceJointeResponse:
    return await DocumentService(session, auth).rattacher(data)


@router.post("/upload", response_model=DocumentResponse, responses=problems(413), openapi_extra=_UPLOAD_BODY,
             summary="Téléverser un fichier",
             description="multipart/form-data: `file`, `description`, `typeDocument`. Taille maximale: réglage "
                         "`upload_max_bytes` (413 au-delà, sans lire tout le corps). Type vérifié sur le contenu "
                         "(PDF, PNG, JPEG, GIF, WebP, DOCX, XLSX, ODT, ODS, texte UTF-8, CSV); exécutable ou "
                         "extension trompeuse: 400. Le nom du client n'est qu'une métadonnée nettoyée; le fichier "
                         "est stocké sous un nom généré. Document privé sauf `organisationId`/`visibilite`. "
                         "400 `regle-metier`: `visibilite` ORGANISATION exige `organisationId`; `typeDocument` inconnu "
                         "des types de référence TYPE_DOCUMENT (table modifiable); type de fichier refusé "
                         "(exécutable, macros, extension trompeuse).")
async def upload_document(request: Request, session: SessionDep,
                          auth: AuthContext = authorize(RS_WRITE)) -> DocumentResponse:
    storage = storage_of(request)
    form = await receive_upload(request, request.app.state.settings.upload_max_bytes, storage.temp_dir)
    try:
        return await DocumentService(session, auth).televerser(form, storage)
    finally:
        form.discard()


@router.get("/{documentId}/pieces-jointes", response_model=list[PieceJointeResponse], responses=problems(404),
            summary="Pièces jointes d'un document", description=VISIBILITE + "Total dans X-Total-Count.")
async def document_attachments(documentId: uuid.UUID, response: Response, session: SessionDep,
                               auth: AuthContext = authorize(RS_READ)) -> list[PieceJointeResponse]:
    rows = await DocumentService(session, auth).attachments(documentId)
    set_total_header(response, len(rows))
    return rows


@router.get("/{id}", response_model=DocumentResponse, responses=problems(404), summary="Consulter un document",
            description=VISIBILITE)
async def get_document(id: uuid.UUID, session: SessionDep,
                       auth: AuthContext = authorize(RS_READ)) -> DocumentResponse:
    return await DocumentService(session, auth).obtenir(id)


@router.post("/{id}/telechargement", response_model=TelechargementResponse, responses=problems(404),
             summary="Enregistrer un téléchargement",
             description="Enregistre qui télécharge et quand, incrémente le compteur, et répond l'adresse du "
                         "contenu (`GET /api/documents/{id}/contenu?telechargement=...`, valable 10 minutes pour "
                         "le même utilisateur). 400 `invalid-state` pour un document sans contenu. " + VISIBILITE)
async def register_download(id: uuid.UUID, session: SessionDep,
                            auth: AuthContext = authorize(RS_WRITE)) -> TelechargementResponse:
    return await DocumentService(session, auth).enregistrer_telechargement(id)


@router.get("/{id}/contenu", responses={**problems(404), 200: {
                "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
                "description": "Contenu du document"}},
            response_class=StreamingResponse, summary="Contenu d'un document",
            description="Seule route qui sert les octets: `Content-Disposition: attachment`, type détecté au "
                        "téléversement, `X-Content-Type-Options: nosniff`. Exige un téléchargement enregistré "
                        "(POST /telechargement) du même utilisateur depuis moins de 10 minutes, sinon 400 "
                        "`invalid-state`. "
                        + VISIBILITE)
async def document_content(id: uuid.UUID, request: Request, session: SessionDep,
                           telechargement: uuid.UUID = Query(description="telechargementId reçu de POST "
                                                                         "/telechargement"),
                           auth: AuthContext = authorize(RS_READ)) -> StreamingResponse:
    doc, body = await DocumentService(session, auth).content(id, telechargement, storage_of(request))
    headers = {
        "Content-Disposition": content_disposition(doc.nom_fichier),
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "private, no-store",
        "Content-Security-Policy": "default-src 'none'; sandbox",
    }
    if doc.taille_octets is not None:
        headers["Content-Length"] = str(doc.taille_octets)
    return StreamingResponse(body, media_type=doc.type_mime or "application/octet-stream", headers=headers)
