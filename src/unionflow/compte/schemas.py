from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import Field

from unionflow.core.cache import ResultatCalcule
from unionflow.core.roles import Role
from unionflow.core.schemas import Montant, OutputModel, Taux
from unionflow.models.adhesion import StatutAdhesion
from unionflow.models.cotisation import StatutCotisation
from unionflow.models.membre import StatutAppartenance, StatutMembre
from unionflow.models.paiement import MethodePaiement, StatutPaiement


class SyntheseCotisations(OutputModel):
    nombre_total: int = Field(description="Cotisations non annulées")
    nombre_payees: int
    nombre_a_payer: int = Field(description="En attente, partiellement payées ou en retard")
    nombre_en_retard: int = Field(description="Échéance dépassée et pas entièrement payée")
    montant_du: Montant
    montant_paye: Montant
    montant_restant: Montant
    montant_en_retard: Montant
    prochaine_echeance: date | None = Field(default=None, description=(
        "Prochaine échéance impayée à partir d'aujourd'hui (une échéance passée est un retard)"))


class PaiementEnAttenteLigne(OutputModel):
    """Extension: the pending payment reserving a dues until it is settled."""

    paiement_id: uuid.UUID
    reference: str = Field(description="Référence donnée au membre (DEC-…)")
    methode: MethodePaiement = Field(description="WAVE: session Wave en cours; sinon déclaration du membre "
                                                 "(espèces, virement, …) en attente de la trésorerie")


class CotisationLigne(OutputModel):
    id: uuid.UUID
    numero_reference: str
    organisation_id: uuid.UUID
    libelle: str | None
    annee: int
    mois: int | None
    montant_du: Montant
    montant_paye: Montant
    reste_a_payer: Montant
    date_echeance: date
    statut: StatutCotisation = Field(description="EN_RETARD si l'échéance est dépassée (calculé à la lecture)")
    code_paiement: str | None = Field(default=None, description=(
        "Extension: code de paiement de la cotisation (11 chiffres), à donner à qui paie pour le membre "
        "(page publique `/api/paiements/par-code`, ou message d'un transfert Wave)"))
    paiement_en_attente: PaiementEnAttenteLigne | None = Field(default=None, description=(
        "Extension. Paiement en attente qui réserve cette cotisation. Une déclaration (méthode autre "
        "que WAVE) attend la trésorerie: la cotisation ne se paie pas par Wave (POST /api/paiements/wave/checkout "
        "répond 409) ni ne se déclare une seconde fois. Une session Wave en cours (WAVE): aucune déclaration "
        "n'est acceptée (409) avant son issue. null: rien en attente"))


class AdhesionLigne(OutputModel):
    id: uuid.UUID
    numero_reference: str
    organisation_id: uuid.UUID
    statut: StatutAdhesion
    frais_adhesion: Montant
    montant_paye: Montant
    reste_a_payer: Montant


class PaiementLigne(OutputModel):
    id: uuid.UUID
    numero_recu: str
    organisation_id: uuid.UUID
    montant: Montant
    devise: str
    methode: MethodePaiement
    statut: StatutPaiement
    date_paiement: datetime | None
    created_at: datetime


class CompteAdherentResponse(OutputModel):
    membre_id: uuid.UUID
    numero_membre: str
    nom_complet: str
    organisation_id: uuid.UUID | None = Field(description="Filtre appliqué, sinon toutes les organisations")
    devise: str
    cotisations: SyntheseCotisations
    cotisations_a_payer: list[CotisationLigne]
    adhesions: list[AdhesionLigne]
    frais_adhesion_restants: Montant
    total_paye: Montant = Field(description="Somme des paiements validés, moins l'avoir remboursé au membre "
                                            "")
    paiements_en_attente: int
    credit: Montant = Field(description="Montants reçus non affectés (montantNonAffecte des paiements validés)")
    solde: Montant = Field(description="credit − (reste dû sur cotisations + frais d'adhésion approuvés); "
                                       "négatif = le membre doit")
    a_jour: bool = Field(description="Aucune cotisation en retard et aucuns frais d'adhésion approuvés impayés")
    derniers_paiements: list[PaiementLigne]


class MembershipLigne(OutputModel):
    organisation_id: uuid.UUID
    nom: str
    roles: list[Role]
    statut: StatutAppartenance
    date_debut: date


class MembreResume(OutputModel):
    id: uuid.UUID
    numero_membre: str
    prenom: str
    nom: str
    statut: StatutMembre


class DashboardMembreResponse(ResultatCalcule):
    membre: MembreResume
    organisations: list[MembershipLigne]
    adhesions: list[AdhesionLigne]
    cotisations: SyntheseCotisations
    prochaines_echeances: list[CotisationLigne]
    cotisations_en_retard: list[CotisationLigne]
    derniers_paiements: list[PaiementLigne]
    credit: Montant
    a_jour: bool
    genere_le: datetime


class ReseauOrganisation(OutputModel):
    """Extension: the organisations under this one (a federation's mutuals), counted."""

    nombre_organisations: int = Field(description="Organisations sous celle-ci (récursivement)")
    nombre_membres: int = Field(description="Adhésions actives de l'organisation ET de celles sous elle")
    consolidation: str = Field(description="Chiffres consolidés: GET de ce chemin (bureau de la fédération)")


class DashboardOrganisationResponse(ResultatCalcule):
    organisation_id: uuid.UUID
    nom: str
    devise: str
    nombre_membres: int = Field(description="Adhésions (memberships) actives")
    encaisse_cotisations_jour: Montant = Field(
        description="Extension: cotisations encaissées aujourd'hui (UTC), même définition que le mois et l'année "
                    "(jour ≤ mois ≤ année)")
    encaisse_cotisations_mois: Montant = Field(
        description="Cotisations encaissées du 1er du mois à aujourd'hui: crédits des comptes de produits des "
                    "cotisations (7061, 7063, 7064 ou les comptes choisis) datés de la période, avoir imputé "
                    "compris le jour de son imputation")
    encaisse_cotisations_annee: Montant = Field(description="Cotisations encaissées du 1er janvier à aujourd'hui")
    cotisations_extournees_mois: Montant = Field(
        description="Extension: débits des mêmes comptes du 1er du mois à aujourd'hui (extournes de paiements "
                    "annulés ou remboursés, contrepassations): montrés à côté de l'encaissé, jamais retranchés")
    encaisse_adhesions_annee: Montant = Field(
        description="Droits d'adhésion encaissés du 1er janvier à aujourd'hui: crédits du compte de produits des "
                    "adhésions (7062 ou le compte choisi)")
    taux_recouvrement: Taux = Field(description="Payé / dû, en %, sur les cotisations de l'année déjà échues")
    nombre_cotisations_en_retard: int
    montant_en_retard: Montant
    nombre_membres_en_retard: int
    paiements_en_attente: int
    reseau: ReseauOrganisation | None = Field(
        default=None, description="Extension: pour une organisation qui en a d'autres sous elle (une "
                                  "fédération), son réseau; `nombreMembres` ci-dessus reste le sien")
    genere_le: datetime


class LigneReleveResponse(OutputModel):
    jour: date
    libelle: str
    reference: str = Field(description="Référence de la cotisation ou numéro du reçu")
    appele: Montant = Field(description="Cotisation arrivée à échéance")
    paye: Montant = Field(description="Argent reçu (paiement validé)")


class MoisReleveResponse(OutputModel):
    mois: int
    libelle: str
    appele: Montant
    paye: Montant
    solde: Montant = Field(description="Solde cumulé en fin de mois: appelé − payé depuis le report (négatif: "
                                       "payé d'avance)")
    lignes: list[LigneReleveResponse]


class ReleveCompteResponse(OutputModel):
    """The member's statement of account for a year, month by month (extension)."""

    membre_id: uuid.UUID
    numero_membre: str
    nom_complet: str
    organisation_id: uuid.UUID | None
    annee: int
    devise: str
    report: Montant = Field(description="Solde au 1er janvier: appelé − payé des années précédentes")
    total_appele: Montant
    total_paye: Montant
    solde: Montant = Field(description="Solde au 31 décembre (ou à ce jour pour l'année en cours)")
    mois: list[MoisReleveResponse]
