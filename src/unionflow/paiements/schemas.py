from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

from pydantic import Field, model_validator

from unionflow.core.regles import ABSENT, Si
from unionflow.core.schemas import InputModel, Montant, OutputModel
from unionflow.dons.schemas import AFFECTATION, DonateurRequest
from unionflow.models.paiement import MethodePaiement, StatutPaiement
from unionflow.models.recette import NatureRecette
from unionflow.paiements.encaissement.schemas import CibleInput
from unionflow.paiements.methodes import DESCRIPTION_TRANSACTION_WAVE, regles_reference

CURRENCY_PATTERN = r"^[A-Z]{3}$"
METHODE_DESCRIPTION = (
    "Méthode de paiement; l'argent entre dans la trésorerie de son type: caisse (ESPECES, AUTRE), banque "
    "(VIREMENT, CHEQUE, CARTE), Wave (WAVE, WAVE_TRANSFERT), Orange Money, Free Money. Extension: WAVE_TRANSFERT, "
    "un transfert Wave direct vers le numéro Wave de l'organisation (hors Checkout: aucune session Wave, Wave "
    "n'a pas à être configuré)")
REFERENCE_DESCRIPTION = (
    "Obligatoire pour VIREMENT, CHEQUE, CARTE, WAVE, ORANGE_MONEY, FREE_MONEY et WAVE_TRANSFERT (400 sinon). "
    "WAVE_TRANSFERT: " + DESCRIPTION_TRANSACTION_WAVE)


class CreatePaiementRequest(InputModel):
    regles = (Si("avance", ABSENT, "cibles doit contenir au moins une cotisation ou une adhésion, sauf pour une "
                                   "avance (avance=true)", requis=("cibles",)),
              *regles_reference("methode", "reference_externe", "referenceExterne"))

    membre_id: uuid.UUID
    organisation_id: uuid.UUID
    montant: Montant = Field(gt=0, max_digits=18, decimal_places=2)
    devise: str = Field(default="XOF", pattern=CURRENCY_PATTERN)
    methode: MethodePaiement = Field(description=METHODE_DESCRIPTION)
    reference_externe: str | None = Field(default=None, max_length=100, description=REFERENCE_DESCRIPTION)
    date_paiement: datetime | None = Field(default=None, description="Date de réception (défaut: maintenant)")
    commentaire: str | None = Field(default=None, max_length=2000)
    cibles: list[CibleInput] = Field(default_factory=list, max_length=50, description=(
        "Cotisations et adhésions réglées, dans l'ordre. Au moins une, sauf pour une avance (`avance`)"))
    avance: bool = Field(default=False, description=(
        "Extension: la trésorerie enregistre une avance. Le montant peut dépasser le reste dû des "
        "cibles, et `cibles` peut être vide: ce qui ne paie rien devient l'avoir du membre (compte 4191), "
        "indiqué sur le reçu (« Avoir créé »). Sans `avance`, un montant supérieur au reste dû est refusé (400)"))
    tresorerie_id: uuid.UUID | None = Field(
        default=None, description="Extension: la trésorerie où l'argent entre, du type de la méthode "
                                  "(caisse pour ESPECES/AUTRE, banque pour VIREMENT/CHEQUE/CARTE, Wave…); par défaut "
                                  "la trésorerie par défaut de ce type")

    @model_validator(mode="after")
    def reference_when_traceable(self) -> CreatePaiementRequest:
        if self.date_paiement is not None and self.date_paiement.tzinfo is None:
            raise ValueError("datePaiement doit porter un fuseau horaire")
        return self


class NatureRecetteGuichet(StrEnum):
    """The kinds of income received at the counter without dues nor adhesion (``paiement.nature``)."""

    DON = NatureRecette.DON.value
    EVENEMENT = NatureRecette.EVENEMENT.value


class CreateRecetteRequest(InputModel):
    """Extension: a donation or an event fee received at the counter."""

    regles = (*regles_reference("methode", "reference_externe", "referenceExterne"),
              Si("nature", NatureRecetteGuichet.EVENEMENT, "evenementId est obligatoire pour une participation à un "
                                                           "événement", requis=("evenement_id",)),
              Si("nature", NatureRecetteGuichet.DON, "evenementId ne s'emploie qu'avec la nature EVENEMENT",
                 exclus=("evenement_id",)),
              Si("nature", NatureRecetteGuichet.EVENEMENT, "donateur et affectation ne s'emploient qu'avec la "
                                                           "nature DON", exclus=("donateur", "affectation")))

    nature: NatureRecetteGuichet
    membre_id: uuid.UUID = Field(description="Le membre qui donne ou qui paie sa participation")
    organisation_id: uuid.UUID
    evenement_id: uuid.UUID | None = Field(default=None, description="Obligatoire pour EVENEMENT, interdit pour DON")
    montant: Montant = Field(gt=0, max_digits=18, decimal_places=2, description=(
        "EVENEMENT: le prix de l'événement, ou un multiple (plusieurs participants)"))
    devise: str = Field(default="XOF", pattern=CURRENCY_PATTERN)
    methode: MethodePaiement = Field(description=METHODE_DESCRIPTION)
    reference_externe: str | None = Field(default=None, max_length=100, description=REFERENCE_DESCRIPTION)
    date_paiement: datetime | None = Field(default=None, description="Date de réception (défaut: maintenant)")
    commentaire: str | None = Field(default=None, max_length=2000)
    donateur: DonateurRequest | None = Field(default=None, description=(
        "DON: qui donne, inscrit au registre des dons (`GET /api/comptabilite/registre-dons`); absent, le donateur "
        "est le membre `membreId`. Pour un tiers (personne physique, personne morale, anonyme), `membreId` est le "
        "membre par qui le don est remis"))
    affectation: str | None = AFFECTATION

    @model_validator(mode="after")
    def coherente(self) -> CreateRecetteRequest:
        if self.date_paiement is not None and self.date_paiement.tzinfo is None:
            raise ValueError("datePaiement doit porter un fuseau horaire")
        return self


class MotifRequest(InputModel):
    motif: str = Field(min_length=3, max_length=500)


class AllocationResponse(OutputModel):
    cotisation_id: uuid.UUID | None
    adhesion_id: uuid.UUID | None
    numero_reference: str | None
    libelle: str | None
    montant: Montant


class PaiementResponse(OutputModel):
    id: uuid.UUID
    numero_recu: str = Field(description="Numéro de reçu officiel, dans la série de l'organisation "
                                         "(REC-<code>-<année>-<n>; REC-<année>-<n> pour les anciens). Un paiement "
                                         "déclaré non encore confirmé, ou rejeté, n'a pas de reçu: ce champ porte "
                                         "alors sa référence de déclaration (DEC-…), hors de la série des reçus")
    membre_id: uuid.UUID
    organisation_id: uuid.UUID
    montant: Montant
    montant_non_affecte: Montant
    devise: str
    methode: MethodePaiement
    statut: StatutPaiement
    reference_externe: str | None
    date_paiement: datetime | None
    enregistre_par: str | None = Field(description="Qui a saisi le paiement: le trésorier au guichet, ou le "
                                                   "membre qui l'a déclaré")
    recu_par: str | None = Field(default=None, description=(
        "Extension: qui a reçu l'argent — le trésorier qui l'a enregistré ou qui a confirmé la "
        "déclaration du membre; « Wave » pour un paiement Wave confirmé par Wave. Absent tant que rien n'est reçu"))
    reference_declaration: str | None = Field(default=None, description=(
        "Extension: référence propre d'un paiement déclaré par le membre (DEC-<année>-…), hors de la "
        "série des reçus; il ne reçoit un numéro de reçu qu'à sa confirmation"))
    commentaire: str | None
    allocations: list[AllocationResponse]
    nature: NatureRecetteGuichet | None = Field(default=None, description=(
        "Extension: DON ou EVENEMENT pour une recette encaissée sans cotisation ni adhésion "
        "(`POST /api/paiements/recettes`); absent pour un paiement de cotisations ou d'adhésion"))
    evenement_id: uuid.UUID | None = Field(default=None, description=(
        "Extension: l'événement dont la participation a été payée (nature EVENEMENT)"))
    avoir_cree: Montant = Field(default=Decimal("0"), description=(
        "Extension: la part du paiement devenue avoir du membre (avance, trop-perçu), même si elle a "
        "servi depuis ou si le paiement a été annulé"))
    avoir_utilise: Montant = Field(default=Decimal("0"), description=(
        "Extension: ce que cet avoir a payé depuis (imputations sur des cotisations, comprises dans "
        "`allocations`). Reste: `montantNonAffecte`"))
    methode_declaree: MethodePaiement | None = Field(default=None, description=(
        "Extension: la méthode que le membre avait déclarée, quand la trésorerie a corrigé la méthode ou la "
        "trésorerie à la confirmation (`methode` et `tresorerieId` sont alors ceux constatés); absente sinon"))
    wave_checkout_id: str | None = None
    tresorerie_id: uuid.UUID | None = Field(default=None, description=(
        "Extension: la trésorerie où l'argent est entré (null: pas encore reçu, ou reçu avant toute "
        "trésorerie déclarée de ce type, sur le compte standard de la méthode)"))
    wave_launch_url: str | None = None
    wave_expires_at: datetime | None = None
    created_at: datetime
    updated_at: datetime


class VerificationRecuResponse(OutputModel):
    """What the public verification of a receipt tells: authenticity, amount, date and organisation; nothing
    about the member."""

    numero_recu: str
    authentique: bool
    statut: StatutPaiement = Field(description="VALIDE, ANNULE ou REMBOURSE")
    valide: bool = Field(description="Le paiement tient toujours (ni annulé ni remboursé)")
    montant: Montant
    devise: str
    date_paiement: datetime
    organisation: str
    recu_par: str | None = Field(default=None, description=(
        "Extension: nom de la personne qui a reçu l'argent pour l'organisation (le trésorier qui l'a "
        "enregistré ou a confirmé la déclaration), ou « Wave »; jamais une adresse e-mail: absent si le nom "
        "n'est pas connu"))
    # Extension: a cancelled or refunded receipt says who asked, who approved and why.
    motif_annulation: str | None = None
    demande_par: str | None = Field(default=None, description="Annulé/remboursé: qui l'a demandé")
    approuve_par: str | None = Field(default=None, description="Annulé/remboursé: qui l'a approuvé")
    date_annulation: datetime | None = None
    numero_remboursement: str | None = Field(default=None, description="Remboursé: numéro du reçu de "
                                                                         "remboursement (série RMB)")


class ConfirmationPaiementRequest(InputModel):
    # "methode WAVE, then no methode": the schema's way of saying WAVE is not accepted here.
    regles = (Si("methode", MethodePaiement.WAVE, "methode WAVE est un paiement par session Wave, confirmé par Wave: "
                                                  "un transfert Wave direct se confirme en WAVE_TRANSFERT",
                 exclus=("methode",)),)

    reference_externe: str | None = Field(default=None, max_length=100, description=(
        "Référence du versement constaté (bordereau, chèque, ...); absente, la référence saisie par le membre "
        "est gardée"))
    date_paiement: datetime | None = Field(default=None, description="Date de réception constatée (défaut: "
                                                                     "maintenant)")
    methode: MethodePaiement | None = Field(default=None, description=(
        "Extension: la méthode constatée, quand le membre s'est trompé (ex. « Autre » pour un transfert Wave): "
        "le paiement est encaissé sous cette méthode, la méthode déclarée est gardée (`methodeDeclaree`), la "
        "correction est journalisée (CORRIGER) et imprimée sur le reçu. WAVE (session Checkout) est refusée: "
        "un transfert Wave direct est WAVE_TRANSFERT, avec son identifiant de transaction"))
    tresorerie_id: uuid.UUID | None = Field(default=None, description=(
        "Extension: la trésorerie où l'argent est entré, active, de l'organisation du paiement (404 sinon) et "
        "du type de la méthode (400 sinon); par défaut la trésorerie par défaut de ce type"))

    @model_validator(mode="after")
    def aware_date(self) -> ConfirmationPaiementRequest:
        if self.date_paiement is not None and self.date_paiement.tzinfo is None:
            raise ValueError("datePaiement doit porter un fuseau horaire")
        return self


class DeclarationPaiementResponse(OutputModel):
    """A payment a member declared or started: pending, never a receipt, nothing paid until confirmed."""

    paiement_id: uuid.UUID
    reference_declaration: str | None = Field(default=None, description=(
        "Extension: référence de la déclaration (DEC-…), hors de la série des reçus; le numéro de reçu "
        "officiel n'est attribué qu'à la confirmation par la trésorerie (ou par Wave)"))
    statut: StatutPaiement = Field(description="Toujours EN_ATTENTE: rien n'est encaissé à ce stade")
    montant: Montant
    devise: str
    methode: MethodePaiement
    wave_launch_url: str | None = Field(default=None, description="Méthode WAVE: page de paiement Wave à ouvrir")
    checkout_id: str | None = None
    expires_at: datetime | None = None
    message: str
