from __future__ import annotations

import uuid
from datetime import date

from fastapi import Query

from unionflow.analytics.schemas import (
    AnalysePaiements,
    AncienneteImpayes,
    CroissanceMembres,
    EntonnoirAdhesions,
    ParticipationEvenements,
    RecouvrementCotisations,
)
from unionflow.analytics.service import AnalyticsService
from unionflow.core.auth import AuthContext, authorize
from unionflow.core.replica import ReplicaSession
from unionflow.core.roles import RS_ANALYTICS
from unionflow.core.routing import area_router
from unionflow.cotisations.service import today_utc

router = area_router("/api/analytics", "Analytics")

SCOPE = (" Périmètre: ADMIN/SUPER_ADMIN toutes les organisations, membres du bureau celles où ils agissent; "
         "`organisationId` restreint à une organisation (hors périmètre ou inconnue: 404). Agrégats SQL, "
         "montants décimaux exacts.")
ORG = Query(None, alias="organisationId")
PERIODE = " 400 `regle-metier` si `dateDebut` est postérieure à `dateFin`."
DEVISE = Query("XOF", pattern=r"^[A-Z]{3}$", description="Seules les lignes dans cette devise sont sommées")


def _annee() -> int:
    return today_utc().year


def annee_query() -> int | None:
    return Query(None, ge=2000, le=2100, description="Année civile (défaut: l'année en cours, UTC)")


@router.get("/membres/croissance", response_model=CroissanceMembres,
            summary="Croissance des effectifs par mois",
            description="Par mois de l'année: appartenances commencées (`nouveaux`), terminées (`radiations`: "
                        "radiation ou départ), `net`, et effectif en fin de mois à partir des appartenances actives "
                        "au 1er janvier. Un membre de deux organisations compte dans chacune." + SCOPE)
async def croissance_membres(session: ReplicaSession, auth: AuthContext = authorize(RS_ANALYTICS),
                             annee: int | None = annee_query(),
                             organisation_id: uuid.UUID | None = ORG) -> CroissanceMembres:
    return await AnalyticsService(session, auth, organisation_id).croissance(annee or _annee())


@router.get("/cotisations/recouvrement", response_model=RecouvrementCotisations,
            summary="Recouvrement des cotisations par mois d'échéance",
            description="Cotisations non annulées échues dans l'année, par mois d'échéance: montant dû, montant "
                        "payé, taux = payé / dû." + SCOPE)
async def recouvrement(session: ReplicaSession, auth: AuthContext = authorize(RS_ANALYTICS),
                       annee: int | None = annee_query(), organisation_id: uuid.UUID | None = ORG,
                       devise: str = DEVISE) -> RecouvrementCotisations:
    return await AnalyticsService(session, auth, organisation_id).recouvrement(annee or _annee(), devise)


@router.get("/paiements", response_model=AnalysePaiements,
            summary="Paiements reçus par méthode et par mois",
            description="Paiements VALIDE de l'année (date de paiement, UTC), nombre et montant par méthode "
                        "(du plus gros montant au plus petit) et par mois. Remboursés, échoués, en attente exclus. "
                        "L'argent reçu, avances et dons compris: pas les « cotisations encaissées » du tableau de "
                        "bord (crédits des comptes de produits)."
                        + SCOPE)
async def paiements(session: ReplicaSession, auth: AuthContext = authorize(RS_ANALYTICS),
                    annee: int | None = annee_query(), organisation_id: uuid.UUID | None = ORG,
                    devise: str = DEVISE) -> AnalysePaiements:
    return await AnalyticsService(session, auth, organisation_id).paiements(annee or _annee(), devise)


@router.get("/adhesions/entonnoir", response_model=EntonnoirAdhesions,
            summary="Entonnoir des adhésions",
            description="Demandes déposées dans la période (date de demande, bornes incluses): soumises, en "
                        "attente, approuvées (un jour), rejetées, payées, annulées; taux d'approbation et de "
                        "paiement; frais encaissés." + SCOPE + PERIODE)
async def entonnoir_adhesions(session: ReplicaSession, auth: AuthContext = authorize(RS_ANALYTICS),
                              date_debut: date | None = Query(None, alias="dateDebut"),
                              date_fin: date | None = Query(None, alias="dateFin"),
                              organisation_id: uuid.UUID | None = ORG,
                              devise: str = DEVISE) -> EntonnoirAdhesions:
    return await AnalyticsService(session, auth, organisation_id).adhesions(date_debut, date_fin, devise)


@router.get("/evenements/participation", response_model=ParticipationEvenements,
            summary="Participation aux événements",
            description="Événements organisés commençant dans la période (jours UTC inclus): taux de remplissage "
                        "des événements à capacité, liste d'attente, note moyenne des avis publiés." + SCOPE + PERIODE)
async def participation_evenements(session: ReplicaSession, auth: AuthContext = authorize(RS_ANALYTICS),
                                   date_debut: date | None = Query(None, alias="dateDebut"),
                                   date_fin: date | None = Query(None, alias="dateFin"),
                                   organisation_id: uuid.UUID | None = ORG) -> ParticipationEvenements:
    return await AnalyticsService(session, auth, organisation_id).evenements(date_debut, date_fin)


@router.get("/cotisations/anciennete-impayes", response_model=AncienneteImpayes,
            summary="Ancienneté des impayés",
            description="Cotisations non soldées dont l'échéance est passée (jour UTC), par jours de retard: "
                        "0-30, 31-60, 61-90, 90+; nombre, membres distincts, reste à payer." + SCOPE)
async def anciennete_impayes(session: ReplicaSession, auth: AuthContext = authorize(RS_ANALYTICS),
                             organisation_id: uuid.UUID | None = ORG,
                             devise: str = DEVISE) -> AncienneteImpayes:
    return await AnalyticsService(session, auth, organisation_id).impayes(devise)
