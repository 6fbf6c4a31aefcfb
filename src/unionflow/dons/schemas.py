"""Requests and answers of the register of donations and of the earmarked funds."""

from __future__ import annotations

import uuid
from datetime import date, datetime

from pydantic import Field, model_validator

from unionflow.core.regles import Si
from unionflow.core.schemas import InputModel, Montant, OutputModel, Taux
from unionflow.models.don import FormeDon, StatutContribution, TypeDonateur, TypeMouvementFonds

CURRENCY = r"^[A-Z]{3}$"
AFFECTATION = Field(default=None, min_length=3, max_length=300, description=(
    "Objet auquel le donateur a affecté son don: il alimente le fonds dédié de cet objet (créé au premier don). "
    "Un don affecté n'est pas un produit à sa réception: il est crédité au compte 165 « Fonds affectés à un projet "
    "spécifique » (SYCEBNL, Guide d'application, application 4), puis passé au 7925 à mesure de ses emplois"))


class DonateurRequest(InputModel):
    """Who gives. ANONYME only below the LCB-FT single-operation threshold (else 400 `regle-metier`)."""

    regles = (Si("type", TypeDonateur.MEMBRE, "membreId est obligatoire pour un donateur membre",
                 requis=("membre_id",), exclus=("nom", "rccm", "ninea")),
              Si("type", TypeDonateur.PERSONNE_PHYSIQUE, "une personne physique donne son nom et son téléphone ou sa "
                 "pièce d'identité", requis=("nom",), exclus=("membre_id", "rccm", "ninea"),
                 un_de=("telephone", "piece_identite")),
              Si("type", TypeDonateur.PERSONNE_MORALE, "une personne morale donne sa raison sociale et son n° RCCM ou "
                 "son NINEA", requis=("nom",), exclus=("membre_id", "piece_identite"), un_de=("rccm", "ninea")),
              Si("type", TypeDonateur.ANONYME, "un donateur anonyme ne porte aucune identité",
                 exclus=("membre_id", "nom", "telephone", "piece_identite", "rccm", "ninea")))

    type: TypeDonateur
    membre_id: uuid.UUID | None = None
    nom: str | None = Field(default=None, min_length=2, max_length=200, description="Nom ou raison sociale")
    telephone: str | None = Field(default=None, max_length=30)
    piece_identite: str | None = Field(default=None, max_length=60, description="N° de la pièce d'identité")
    rccm: str | None = Field(default=None, max_length=60, description="Personne morale: n° RCCM")
    ninea: str | None = Field(default=None, max_length=30, description="Personne morale: NINEA")


class CreateDonNatureRequest(InputModel):
    """A donation in kind: goods or services recorded at their valuation, booked by a manual entry."""

    organisation_id: uuid.UUID
    donateur: DonateurRequest
    date_don: datetime = Field(description="Date de réception du bien (avec fuseau horaire), jamais future")
    montant: Montant = Field(gt=0, max_digits=18, decimal_places=2, description="Valeur retenue")
    devise: str = Field(default="XOF", pattern=CURRENCY)
    description: str = Field(min_length=3, max_length=2000, description="Le bien ou le service donné")
    base_evaluation: str = Field(min_length=3, max_length=500, description=(
        "Sur quoi repose la valeur: facture, prix du marché, expertise…"))
    affectation: str | None = AFFECTATION
    journal_id: uuid.UUID = Field(description="Journal de l'écriture (opérations diverses)")
    compte_debit_id: uuid.UUID = Field(description="Compte qui reçoit le bien (immobilisation, stock, charge)")
    compte_credit_id: uuid.UUID | None = Field(default=None, description=(
        "Compte de produits crédité; défaut: le compte des dons de l'organisation (7581 sauf choix)"))

    @model_validator(mode="after")
    def date_avec_fuseau(self) -> CreateDonNatureRequest:
        if self.date_don.tzinfo is None:
            raise ValueError("dateDon doit porter un fuseau horaire")
        return self


class LigneRegistreDonResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    numero: int = Field(description="Numéro d'ordre dans le registre de l'organisation, sans trou")
    date_don: datetime
    type_donateur: TypeDonateur
    donateur_nom: str | None
    donateur_telephone: str | None
    donateur_piece_identite: str | None
    donateur_rccm: str | None
    donateur_ninea: str | None
    membre_id: uuid.UUID | None
    montant: Montant
    devise: str
    forme: FormeDon
    description_nature: str | None
    base_evaluation: str | None
    affectation: str | None
    fonds_id: uuid.UUID | None
    paiement_id: uuid.UUID | None
    reference: str = Field(description="N° du reçu (don en argent) ou de la pièce comptable / de la demande "
                                        "d'approbation (don en nature)")
    seuil_lcbft_atteint: bool = Field(description="Montant ≥ seuil LCB-FT d'opération unique de l'organisation")
    enregistre_par: str
    hash_precedent: str
    hash: str


class RegistreDonsResponse(OutputModel):
    organisation_id: uuid.UUID
    organisation: str
    debut: date
    fin: date
    devise: str
    seuil_lcbft: Montant
    total: Montant
    total_argent: Montant = Field(description="Dons en argent (espèces, chèque, virement, mobile money)")
    total_nature: Montant
    president: str | None = Field(description="Représentant légal qui signe le registre imprimé")
    lignes: list[LigneRegistreDonResponse]


class VerificationRegistreResponse(OutputModel):
    organisation_id: uuid.UUID
    intact: bool
    lignes_verifiees: int
    premiere_ligne_rompue: int | None = Field(description="Numéro de la première ligne qui ne tient pas")
    raison: str | None


class CreateEmploiFondsRequest(InputModel):
    """A use of an earmarked fund: an expense or payout spent on its purpose, with its document."""

    date_emploi: datetime = Field(description="Date de la dépense (avec fuseau horaire), jamais future")
    montant: Montant = Field(gt=0, max_digits=18, decimal_places=2)
    libelle: str = Field(min_length=3, max_length=300)
    reference: str = Field(min_length=2, max_length=100, description=(
        "Pièce de la dépense: n° de pièce comptable, de versement ou de facture"))

    @model_validator(mode="after")
    def date_avec_fuseau(self) -> CreateEmploiFondsRequest:
        if self.date_emploi.tzinfo is None:
            raise ValueError("dateEmploi doit porter un fuseau horaire")
        return self


class MouvementFondsResponse(OutputModel):
    id: uuid.UUID
    type_mouvement: TypeMouvementFonds
    date_mouvement: datetime
    montant: Montant
    libelle: str
    reference: str
    enregistre_par: str


class FondsDedieResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    objet: str
    donateur: str | None
    devise: str
    solde: Montant
    mouvements: list[MouvementFondsResponse]


class LigneEtatFonds(OutputModel):
    fonds_id: uuid.UUID
    objet: str
    donateur: str | None
    ouverture: Montant = Field(description="Solde non employé reporté des exercices précédents")
    recu: Montant
    employe: Montant
    cloture: Montant = Field(description="ouverture + reçu − employé, reporté à l'exercice suivant")


class EtatFondsDediesResponse(OutputModel):
    organisation_id: uuid.UUID
    annee: int
    fonds: list[LigneEtatFonds]
    total_ouverture: Montant
    total_recu: Montant
    total_employe: Montant
    total_cloture: Montant
    solde_compte: Montant = Field(description=(
        "Ce que le compte 165 « Fonds affectés à un projet spécifique » porte au 31 décembre de l'année (solde "
        "créditeur), où chaque don affecté est crédité et d'où chaque emploi passe au 7925"))
    ecart: Montant = Field(description=(
        "totalCloture − soldeCompte: 0 quand les fonds tiennent aux livres; sinon un don affecté comptabilisé "
        "ailleurs qu'au 165, ou une écriture manuelle sur le 165, à expliquer"))


class CreateContributionBenevoleRequest(InputModel):
    """Volunteer time a member gave: recorded at the hourly rate the organisation chose, never booked (shown off
    the balance sheet in the SYCEBNL notes)."""

    organisation_id: uuid.UUID
    membre_id: uuid.UUID = Field(description="Le bénévole: un membre actif de l'organisation")
    date_contribution: date = Field(description="Jour du bénévolat (AAAA-MM-JJ), jamais futur, hors exercice clos")
    heures: Taux = Field(gt=0, max_digits=18, decimal_places=2, description=(
        "Heures données ce jour ou sur la période résumée par la ligne; au plus 744 (un mois entier), sinon 400 "
        "`regle-metier`"))
    taux_horaire: Montant = Field(gt=0, max_digits=18, decimal_places=2, description=(
        "Valeur d'une heure retenue par l'organisation (aucun texte lu ne la fixe: docs/conformite.md S10)"))
    activite: str = Field(min_length=3, max_length=300, description="Ce qui a été fait")


class AnnulerContributionBenevoleRequest(InputModel):
    motif: str = Field(min_length=3, max_length=500)


class ContributionBenevoleResponse(OutputModel):
    id: uuid.UUID
    organisation_id: uuid.UUID
    membre_id: uuid.UUID
    membre: str | None = Field(default=None, description="Nom du bénévole (tel qu'il est nommé aujourd'hui)")
    date_contribution: date
    heures: Taux = Field(description="Heures, deux décimales")
    taux_horaire: Montant
    valeur: Montant = Field(description="heures × tauxHoraire, arrondi au franc (calculé par le serveur)")
    activite: str
    statut: StatutContribution
    enregistre_par: str
    annule_par: str | None
    motif_annulation: str | None
    date_annulation: datetime | None


class RegistreBenevolatResponse(OutputModel):
    organisation_id: uuid.UUID
    organisation: str
    debut: date
    fin: date
    contributions: int = Field(description="Lignes enregistrées (les annulées ne comptent pas)")
    total_heures: Taux
    total_valeur: Montant
    lignes: list[ContributionBenevoleResponse] = Field(description="Toutes les lignes, annulées comprises")
