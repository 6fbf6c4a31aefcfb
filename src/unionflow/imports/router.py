"""Bulk import of members (Membres area)."""

from __future__ import annotations

import uuid

from fastapi import File, Form, UploadFile

from unionflow.core.auth import AuthContext, SessionDep, authorize
from unionflow.core.errors import PayloadTooLarge
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_MEMBRE_WRITE
from unionflow.core.routing import area_router
from unionflow.imports.schemas import ImportMembresResponse
from unionflow.imports.service import ImportMembresService

router = area_router("/api/membres", "Membres")
MAX_OCTETS = 25 * 1024 * 1024


@router.post("/import", response_model=ImportMembresResponse, responses=problems(404, 409, 413),
             summary="Importer des membres (CSV ou XLSX)",
             description="Fichier CSV (`;` ou `,`, UTF-8 ou Windows-1252) ou XLSX, première ligne d'en-têtes: "
             "prénom, nom, email, téléphone, genre, date de naissance (JJ/MM/AAAA), profession, adresse, ville, "
             "pays, rôles (séparés par des virgules), numéro membre. Un membre déjà connu (numéro membre, puis "
             "e-mail, puis téléphone) est mis à jour et inscrit dans l'organisation au lieu d'être dupliqué; un "
             "membre appartenant seulement à d'autres organisations est refusé (il adhère lui-même). "
             "`simulation=true` (défaut) rend le compte rendu ligne par ligne (CREER, METTRE_A_JOUR, INCHANGE, "
             "REFUSER et pourquoi) sans rien enregistrer; `simulation=false` importe: réimporter le même fichier "
             "ne crée rien de plus. Secrétariat ou administration de l'organisation; rôles autres que MEMBRE: "
             "administrateur de l'organisation.")
async def importer_membres(session: SessionDep, fichier: UploadFile = File(...),
                           organisation_id: uuid.UUID = Form(..., alias="organisationId"),
                           simulation: bool = Form(True),
                           auth: AuthContext = authorize(RS_MEMBRE_WRITE)) -> ImportMembresResponse:
    contenu = await fichier.read(MAX_OCTETS + 1)
    if len(contenu) > MAX_OCTETS:
        raise PayloadTooLarge(f"Fichier limité à {MAX_OCTETS // (1024 * 1024)} Mo")
    return await ImportMembresService(session, auth).importer(organisation_id, contenu, simulation)
