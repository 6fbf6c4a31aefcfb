"""Bulk import of members (Membres area)."""

from __future__ import annotations

import uuid

from fastapi import File, Form, Request, UploadFile
from fastapi.responses import JSONResponse

from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.errors import PayloadTooLarge
from unionflow.core.openapi import problems
from unionflow.core.roles import RS_MEMBRE_WRITE
from unionflow.core.routing import area_router
from unionflow.imports.schemas import ImportMembresResponse
from unionflow.imports.service import ImportMembresService, dossier_imports
from unionflow.tasks.schemas import TacheResponse
from unionflow.tasks.service import accepted

router = area_router("/api/membres", "Membres")
MAX_OCTETS = 25 * 1024 * 1024


@router.post("/import", response_model=ImportMembresResponse, responses={**problems(404, 409, 413), 202: {
                 "model": TacheResponse, "description": "Confié à une tâche de fond (voir `Location`)"}},
             summary="Importer des membres (CSV ou XLSX)",
             description="Fichier CSV (`;` ou `,`, UTF-8 ou Windows-1252) ou XLSX, première ligne d'en-têtes: "
             "prénom, nom, email, téléphone, genre, date de naissance (JJ/MM/AAAA), profession, adresse, ville, "
             "pays, rôles (séparés par des virgules), numéro membre. Un membre déjà connu (numéro membre, puis "
             "e-mail, puis téléphone avec le même prénom et nom) est mis à jour et inscrit dans l'organisation au "
             "lieu d'être dupliqué; un téléphone partagé (une famille) est accepté et signalé dans "
             "`avertissements` (extension); un numéro national impossible pour son pays (ex. "
             "Sénégal: 9 chiffres commençant par 7 ou 3) refuse la ligne avec la raison; un "
             "membre appartenant seulement à d'autres organisations est refusé (il adhère lui-même). "
             "`simulation=true` (défaut) rend le compte rendu ligne par ligne (CREER, METTRE_A_JOUR, INCHANGE, "
             "REFUSER et pourquoi) sans rien enregistrer; `simulation=false` importe: réimporter le même fichier "
             "ne crée rien de plus. Secrétariat ou administration de l'organisation; rôles autres que MEMBRE: "
             "administrateur de l'organisation. Un import réel de plus de `UNIONFLOW_TACHE_SEUIL_IMPORT_LIGNES` "
             "lignes (5000) devient une tâche de fond: 202, en-tête `Location: /api/jobs/{id}` et la tâche en corps; "
             "le fichier est conservé sous le répertoire de données jusqu'à la fin de la tâche, importé par lots "
             "de 500 lignes (chaque lot validé avec la progression); `resultat` = la réponse 200 ci-dessus, dont "
             "`lignes` ne garde que les lignes refusées ou signalées. La simulation reste synchrone.")
async def importer_membres(request: Request, session: SessionDep, fichier: UploadFile = File(...),
                           organisation_id: uuid.UUID = Form(..., alias="organisationId"),
                           simulation: bool = Form(True),
                           auth: AuthContext = authorize(RS_MEMBRE_WRITE)) -> ImportMembresResponse | JSONResponse:
    contenu = await fichier.read(MAX_OCTETS + 1)
    if len(contenu) > MAX_OCTETS:
        raise PayloadTooLarge(f"Fichier limité à {MAX_OCTETS // (1024 * 1024)} Mo")
    settings = request.app.state.settings
    result = await ImportMembresService(session, auth).importer(organisation_id, contenu, simulation,
                                                                settings.tache_seuil_import_lignes,
                                                                dossier_imports(settings.data_dir))
    if isinstance(result, TacheResponse):
        return accepted(result)
    return result
