from __future__ import annotations

import uuid
from datetime import date

from pydantic import Field

from unionflow.core.cache import ResultatCalcule
from unionflow.core.schemas import Montant, OutputModel, Taux
from unionflow.models.paiement import MethodePaiement

TAUX = "Pourcentage à deux décimales (null quand le dénominateur est nul)"


class Perimetre(ResultatCalcule):
    organisation_id: uuid.UUID | None = Field(description="Organisation demandée; null: toutes celles de l'appelant")


class MoisCroissance(OutputModel):
    mois: str = Field(description="AAAA-MM")
    nouveaux: int
    radiations: int
    net: int
    effectif: int = Field(description="Appartenances actives en fin de mois")


class CroissanceMembres(Perimetre):
    annee: int
    effectif_debut: int
    effectif_fin: int
    total_nouveaux: int
    total_radiations: int
    mois: list[MoisCroissance]


class MoisRecouvrement(OutputModel):
    mois: str
    nombre: int
    montant_du: Montant
    montant_paye: Montant
    taux_recouvrement: Taux | None = Field(description=TAUX)


class RecouvrementCotisations(Perimetre):
    annee: int
    devise: str = "XOF"
    nombre: int
    montant_du: Montant
    montant_paye: Montant
    taux_recouvrement: Taux | None = Field(description=TAUX)
    mois: list[MoisRecouvrement]


class Ventilation(OutputModel):
    nombre: int
    montant: Montant


class PaiementsParMethode(Ventilation):
    methode: MethodePaiement


class PaiementsParMois(Ventilation):
    mois: str


class AnalysePaiements(Perimetre):
    annee: int
    devise: str = "XOF"
    nombre: int
    montant: Montant
    par_methode: list[PaiementsParMethode]
    par_mois: list[PaiementsParMois]


class EntonnoirAdhesions(Perimetre):
    date_debut: date | None
    date_fin: date | None
    soumises: int
    en_attente: int
    approuvees: int = Field(description="Demandes approuvées un jour (y compris payées ou annulées ensuite)")
    rejetees: int
    payees: int
    annulees: int
    taux_approbation: Taux | None = Field(description="approuvées / (approuvées + rejetées). " + TAUX)
    taux_paiement: Taux | None = Field(description="payées / approuvées. " + TAUX)
    frais_encaisses: Montant = Field(
        description="Frais payés sur les demandes déposées dans la période (la cohorte), à quelque date que ce "
                    "soit; les droits d'adhésion encaissés sur une période sont ceux du tableau de bord")


class ParticipationEvenements(Perimetre):
    date_debut: date | None
    date_fin: date | None
    evenements: int = Field(description="Événements non annulés de la période")
    annules: int
    capacite_totale: int = Field(description="Somme des capacités des événements non annulés qui en ont une")
    inscrits_confirmes: int
    inscrits_sur_capacite: int = Field(description="Inscriptions confirmées des événements à capacité")
    liste_attente: int
    taux_remplissage: Taux | None = Field(description="inscritsSurCapacite / capaciteTotale. " + TAUX)
    note_moyenne: Taux | None = Field(description="Moyenne des avis publiés (1 à 5), deux décimales")
    nombre_avis: int


class TrancheImpayes(OutputModel):
    tranche: str = Field(description="0-30, 31-60, 61-90, 90+ (jours de retard)")
    nombre: int
    membres: int
    montant_restant: Montant


class AncienneteImpayes(Perimetre):
    date_reference: date
    devise: str = "XOF"
    nombre: int
    membres: int
    montant_restant: Montant
    tranches: list[TrancheImpayes]
