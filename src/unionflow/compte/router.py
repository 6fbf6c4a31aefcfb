from __future__ import annotations

import uuid

from fastapi import Query

from unionflow.compte.releve import ReleveService
from unionflow.compte.schemas import (
    CompteAdherentResponse,
    DashboardMembreResponse,
    DashboardOrganisationResponse,
    ReleveCompteResponse,
)
from unionflow.compte.service import CompteService
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.db import SessionDep
from unionflow.core.openapi import problems
from unionflow.core.replica import ReplicaSession
from unionflow.core.roles import RS_COMPTE_ADHERENT, RS_DASHBOARD_MEMBRE, RS_TRESORERIE_READ
from unionflow.core.routing import area_router
from unionflow.cotisations.service import today_utc

compte_router = area_router("/api/compte-adherent", "Compte Adhérent")
dashboard_membre_router = area_router("/api/dashboard", "Dashboard Membre")
dashboard_router = area_router("/api/dashboard", "Dashboard")


@compte_router.get("/me", response_model=CompteAdherentResponse, responses=problems(404),
                   summary="Vue financière unifiée du membre connecté",
                   description="Cotisations dues / payées / en retard (échéance dépassée et pas entièrement "
                               "payée), frais d'adhésion, paiements, crédit non affecté, solde et indicateur "
                               "`aJour`. `organisationId` restreint à une organisation du membre. 404 si aucune "
                               "fiche membre n'est liée au compte.")
async def mon_compte(session: SessionDep, auth: AuthContext = authorize(RS_COMPTE_ADHERENT),
                     organisation_id: uuid.UUID | None = Query(None, alias="organisationId")
                     ) -> CompteAdherentResponse:
    return await CompteService(session, auth).compte(organisation_id)


@compte_router.get("/me/releve", response_model=ReleveCompteResponse, responses=problems(404),
                   summary="Relevé de compte du membre connecté, mois par mois",
                   description="Extension. Pour l'année `annee` (défaut: l'année en cours): report au 1er janvier "
                               "(appelé − payé des années précédentes), puis chaque mois les cotisations arrivées à "
                               "échéance (appelé), l'argent reçu pour ses cotisations et son adhésion (payé, "
                               "paiements validés; un don ou une participation à un événement n'y figure pas) et le "
                               "solde cumulé (négatif: payé d'avance). `organisationId` restreint à une "
                               "organisation du membre (404 sinon).")
async def mon_releve(session: SessionDep, auth: AuthContext = authorize(RS_COMPTE_ADHERENT),
                     annee: int | None = Query(None, ge=2000, le=2100),
                     organisation_id: uuid.UUID | None = Query(None, alias="organisationId")
                     ) -> ReleveCompteResponse:
    return await ReleveService(session, auth).releve(annee or today_utc().year, organisation_id)


@dashboard_membre_router.get("/membre/me", response_model=DashboardMembreResponse, responses=problems(404),
                             summary="Tableau de bord du membre connecté",
                             description="Synthèse personnelle: organisations et rôles, adhésions, état des "
                                         "cotisations, 5 derniers paiements, 5 prochaines échéances, retards.")
async def dashboard_membre(session: SessionDep,
                           auth: AuthContext = authorize(RS_DASHBOARD_MEMBRE)) -> DashboardMembreResponse:
    return await CompteService(session, auth).dashboard_membre()


@dashboard_router.get("/organisation", response_model=DashboardOrganisationResponse, responses=problems(404),
                      summary="Tableau de bord de trésorerie d'une organisation",
                      description=(
                          "Organisation active ou `organisationId` (administrée par l'appelant); ni l'un ni l'autre: "
                          "400 `regle-metier` (paramètre ou en-tête: une règle entre eux ne s'écrit pas dans un "
                          "schéma). Montants encaissés "
                          "du jour (extension), du mois et de l'année, lus dans la comptabilité: crédits des comptes "
                          "de produits des cotisations (ou des adhésions) par les écritures datées de la période, "
                          "écritures de clôture exclues. Un avoir imputé compte le jour de son imputation, non à la "
                          "date du reçu qui l'a créé; un mois clôturé garde son chiffre; une extourne ne le diminue "
                          "pas (le compte de résultat montre le net). Même définition sur des périodes emboîtées: "
                          "jour ≤ mois ≤ année. Taux de recouvrement sur les cotisations échues de l'année, retards."))
async def dashboard_organisation(session: ReplicaSession, auth: AuthContext = authorize(RS_TRESORERIE_READ),
                                 organisation_id: uuid.UUID | None = Query(None, alias="organisationId")
                                 ) -> DashboardOrganisationResponse:
    return await CompteService(session, auth).dashboard_organisation(organisation_id)
