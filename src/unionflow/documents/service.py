from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, Forbidden, InvalidInput, InvalidState, NotFound, RegleMetier
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.documents.content import detect, named_for, sanitize_filename
from unionflow.documents.repository import DocumentRepository
from unionflow.documents.schemas import (
    TYPE_DOCUMENT_DOMAINE,
    CreateDocumentRequest,
    CreatePieceJointeRequest,
    DocumentResponse,
    PieceJointeResponse,
    TelechargementResponse,
)
from unionflow.documents.storage import Storage
from unionflow.documents.upload import UploadForm
from unionflow.models import Document, PieceJointe, TelechargementDocument
from unionflow.models.base import utcnow
from unionflow.models.document import TypeEntite, VisibiliteDocument
from unionflow.organisations.repository import OrganisationRepository
from unionflow.types_reference.service import require_code

MODULE = "DOCUMENTS"
# How long the answer of POST /telechargement authorises fetching the bytes.
DOWNLOAD_TICKET_TTL = timedelta(minutes=10)
FIELDS = ["nom_fichier", "type_document", "visibilite", "organisation_id", "type_mime", "taille_octets",
          "hash_sha256"]


def to_response(doc: Document) -> DocumentResponse:
    return DocumentResponse.model_validate(
        {**{k: getattr(doc, k) for k in DocumentResponse.model_fields if k != "contenu_disponible"},
         "contenu_disponible": doc.cle_stockage is not None})


class DocumentService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = DocumentRepository(session, auth)

    async def _get(self, document_id: uuid.UUID, *, for_update: bool = False) -> Document:
        doc = await self.repo.get(document_id, for_update=for_update)
        if doc is None:
            raise NotFound("Document introuvable")
        return doc

    async def _check_type(self, code: str) -> None:
        await require_code(self.session, TYPE_DOCUMENT_DOMAINE, code, "typeDocument")

    async def _check_organisation(self, organisation_id: uuid.UUID | None, visibilite: VisibiliteDocument) -> None:
        if organisation_id is None:
            if visibilite is VisibiliteDocument.ORGANISATION:
                raise RegleMetier("organisationId requis pour un document de visibilité ORGANISATION")
            return
        if not await OrganisationRepository(self.session, None).exists(organisation_id):
            raise NotFound("Organisation introuvable")
        # Members may address a document to their organisation's staff; only staff publish to all members.
        if visibilite is VisibiliteDocument.ORGANISATION:
            self.auth.require(Permission.DOCUMENT_GERER, organisation_id,
                              "Seuls les responsables de l'organisation partagent un document avec ses membres")
        if not staff_sees(self.auth, organisation_id) and organisation_id not in self.auth.member_organisations:
            raise Forbidden("Vous n'appartenez pas à cette organisation")

    async def _record_creation(self, doc: Document) -> DocumentResponse:
        self.repo.add(doc)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="CREER", module=MODULE, entite_type="Document",
                           entite_id=doc.id, after=audit.snapshot(doc, FIELDS), organisation_id=doc.organisation_id)
        return to_response(doc)

    async def creer(self, data: CreateDocumentRequest) -> DocumentResponse:
        await self._check_type(data.type_document)
        await self._check_organisation(data.organisation_id, data.visibilite)
        doc = Document(nom_fichier=sanitize_filename(data.nom_fichier), description=data.description,
                       type_document=data.type_document, visibilite=data.visibilite.value,
                       organisation_id=data.organisation_id, proprietaire_sub=self.auth.personne,
                       proprietaire_membre_id=self.auth.membre_id, nombre_telechargements=0)
        return await self._record_creation(doc)

    async def televerser(self, form: UploadForm, storage: Storage) -> DocumentResponse:
        """Validate the received file (type by content), then store it under a generated key."""
        assert form.file is not None
        fields = form.fields
        type_document = fields.get("typeDocument") or "AUTRE"
        description = fields.get("description") or None
        try:
            visibilite = VisibiliteDocument(fields.get("visibilite") or "PRIVE")
            organisation_id = uuid.UUID(fields["organisationId"]) if "organisationId" in fields else None
        except ValueError as exc:
            raise InvalidInput("visibilite (PRIVE, ORGANISATION) ou organisationId (UUID) invalide") from exc
        if description and len(description) > 2000:
            raise InvalidInput("description: 2000 caractères au plus")
        await self._check_type(type_document)
        await self._check_organisation(organisation_id, visibilite)
        name = sanitize_filename(form.file.filename)
        kind = detect(form.file.path, form.file.head, os.path.splitext(name)[1].lower())
        name = named_for(name, kind)
        key = uuid.uuid4().hex
        await storage.put(key, form.file.path, form.file.size, form.file.sha256, kind.mime)
        doc = Document(nom_fichier=name, description=description, type_document=type_document,
                       visibilite=visibilite.value, organisation_id=organisation_id,
                       proprietaire_sub=self.auth.personne, proprietaire_membre_id=self.auth.membre_id,
                       cle_stockage=key, backend_stockage=storage.backend,
                       type_mime=kind.mime, taille_octets=form.file.size, hash_sha256=form.file.sha256,
                       nombre_telechargements=0)
        try:
            return await self._record_creation(doc)
        except BaseException:
            await storage.delete(key)
            raise

    async def obtenir(self, document_id: uuid.UUID) -> DocumentResponse:
        return to_response(await self._get(document_id))

    async def mine(self) -> list[DocumentResponse]:
        return [to_response(d) for d in await self.repo.mine()]

    async def rattacher(self, data: CreatePieceJointeRequest) -> PieceJointeResponse:
        doc = await self._get(data.document_id)
        if doc.proprietaire_sub != self.auth.personne:
            self.auth.require(Permission.DOCUMENT_GERER, doc.organisation_id,
                              "Seul le propriétaire du document (ou un responsable de son organisation) l'attache")
        try:
            target = await self.repo.target(data.type_entite.value, data.entite_id)
        except LookupError as exc:
            raise NotFound(f"{data.type_entite.value} introuvable") from exc
        if target is None:
            raise RegleMetier(f"Le type {data.type_entite.value} n'est pas disponible sur cette installation")
        own = target.membre_id is not None and target.membre_id == self.auth.membre_id
        member_of = (data.type_entite is TypeEntite.ORGANISATION
                     and target.organisation_id in self.auth.member_organisations)
        if not (own or member_of or staff_sees(self.auth, target.organisation_id)):
            # Outside the caller's reach the entity is as good as missing.
            raise NotFound(f"{data.type_entite.value} introuvable")
        if await self.repo.attachment_exists(doc.id, data.type_entite.value, data.entite_id):
            raise Conflict("Ce document est déjà attaché à cette entité")
        piece = PieceJointe(document_id=doc.id, type_entite=data.type_entite.value, entite_id=data.entite_id,
                            organisation_id=target.organisation_id, libelle=data.libelle,
                            ajoute_par=self.auth.actor_name)
        self.repo.add(piece)
        await self.session.flush()
        await audit.record(self.session, self.auth, action="JOINDRE", module=MODULE, entite_type="PieceJointe",
                           entite_id=piece.id, organisation_id=target.organisation_id,
                           after={"documentId": doc.id, "typeEntite": piece.type_entite, "entiteId": piece.entite_id})
        return PieceJointeResponse.model_validate(piece)

    async def attachments(self, document_id: uuid.UUID) -> list[PieceJointeResponse]:
        doc = await self._get(document_id)
        return [PieceJointeResponse.model_validate(p) for p in await self.repo.attachments(doc.id)]

    async def enregistrer_telechargement(self, document_id: uuid.UUID) -> TelechargementResponse:
        doc = await self._get(document_id)
        if doc.cle_stockage is None or doc.type_mime is None or doc.taille_octets is None or not doc.hash_sha256:
            raise InvalidState("Ce document n'a pas de contenu téléversé")
        now = utcnow()
        ticket = TelechargementDocument(document_id=doc.id, utilisateur_sub=self.auth.personne,
                                        utilisateur=self.auth.actor_name, membre_id=self.auth.membre_id,
                                        ip_address=self.auth.ip_address, date_telechargement=now)
        self.repo.add(ticket)
        await self.repo.increment_downloads(doc.id, now)
        await self.session.flush()
        await self.session.refresh(doc)
        await audit.record(self.session, self.auth, action="TELECHARGER", module=MODULE, entite_type="Document",
                           entite_id=doc.id, organisation_id=doc.organisation_id,
                           after={"telechargementId": ticket.id, "nombreTelechargements": doc.nombre_telechargements})
        return TelechargementResponse(
            telechargement_id=ticket.id, document_id=doc.id, nom_fichier=doc.nom_fichier, type_mime=doc.type_mime,
            taille_octets=doc.taille_octets, hash_sha256=doc.hash_sha256,
            nombre_telechargements=doc.nombre_telechargements,
            url=f"/api/documents/{doc.id}/contenu?telechargement={ticket.id}", expire_a=now + DOWNLOAD_TICKET_TTL)

    async def content(self, document_id: uuid.UUID, ticket_id: uuid.UUID,
                      storage: Storage) -> tuple[Document, AsyncIterator[bytes]]:
        doc = await self._get(document_id)
        if doc.cle_stockage is None:
            raise InvalidState("Ce document n'a pas de contenu téléversé")
        ticket = await self.repo.download_ticket(doc.id, ticket_id, self.auth.personne,
                                                 utcnow() - DOWNLOAD_TICKET_TTL)
        if ticket is None:
            raise InvalidState("Téléchargement non enregistré ou expiré: appelez d'abord POST "
                               f"/api/documents/{doc.id}/telechargement")
        return doc, await storage.open(doc.cle_stockage)
