"""The notice texts a member reads before consenting (Loi 2008-12 art. 58, docs/conformite.md D5): one template
per purpose, rendered for the organisation the consent is given to, because the controller (« responsable du
traitement ») the notice must name is that organisation. A changed template takes the next version number; the
rendered text is what is stored with the consent, so a renamed organisation or a changed setting never rewrites
what a member read (docs/decisions.md, « the art. 58 notice names the organisation »)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from unionflow.models.donnees_personnelles import FinaliteConsentement
from unionflow.models.organisation import Organisation

VERSION = 2
# The books' retention the member is told (AUDCIF art. 24, docs/conformite.md S12); the same figure as
# donnees_membre/effacement.py CONSERVATION_LIVRES_ANS, not imported because that area imports this one (no cycle
# between areas); tests/donnees_personnelles/test_notices.py holds them equal.
CONSERVATION_LIVRES_ANS = 10

_TRANSFERTS = ("Transferts hors du Sénégal: aucun n'est fait par UnionFlow lui-même. Le lieu d'hébergement du "
               "service, et ceux de Wave (paiements) et de la passerelle SMS, relèvent de la déclaration de "
               "l'exploitant de cette installation (registre des traitements).")
_DROITS = ("Vos droits (loi n° 2008-12): vous pouvez retirer ce consentement à tout moment (« Mon compte » › Mes "
           "données, ou auprès du secrétariat); exercer votre droit d'accès à vos données (« Mon compte » › "
           "Télécharger mes données) et leur rectification (votre fiche, ou le secrétariat); demander à ne plus "
           "figurer sur le fichier (demande d'effacement, décidée par une seconde personne: votre identité est "
           "remplacée par un pseudonyme, les pièces comptables restent); vous opposer au traitement pour des motifs "
           "légitimes. Chaque consultation de votre fiche par le bureau est inscrite dans un journal que vous "
           "pouvez lire.")


@dataclass(frozen=True)
class Modele:
    """One purpose's notice, ``{nom}`` (the organisation) and ``{radies}`` (years) filled in at rendering."""

    finalite: str
    donnees: str
    destinataires: str
    reponse: str
    conservation: str


MODELES: dict[FinaliteConsentement, Modele] = {
    FinaliteConsentement.ADHESION_SYNDICALE: Modele(
        finalite=("tenir le registre des membres de {nom}, appeler et encaisser vos cotisations, vous délivrer vos "
                  "reçus et vous convoquer."),
        donnees=("votre appartenance syndicale (donnée sensible, loi n° 2008-12), avec votre identité, vos "
                 "coordonnées, votre profession, vos rôles dans l'organisation, vos cotisations et vos paiements."),
        destinataires="le bureau de {nom} et, pour les chiffres consolidés, l'union.",
        # What UnionFlow enforces (donnees_personnelles/service.py): nothing waits on this consent; the bureau
        # sees whether it was given (the member's consents, docs/donnees-personnelles.md).
        reponse=("répondre est facultatif: ce consentement se donne par écrit (loi n° 2008-12, art. 41 2°). Si "
                 "vous refusez ou le retirez, UnionFlow ne bloque aucune opération de votre adhésion (cotisations, "
                 "paiements, reçus); le bureau voit que vous n'avez pas consenti, et {nom} ne traite alors votre "
                 "appartenance syndicale que dans ce que la loi lui permet sans votre consentement."),
        conservation=("le temps de votre adhésion. Après votre départ, si vous ne devez aucune cotisation, votre "
                      "identité est remplacée par un pseudonyme au bout de {radies} ans; vos cotisations, paiements "
                      "et reçus (pièces comptables) sont conservés au moins {livres} ans; ce consentement et son "
                      "retrait sont gardés avec votre fiche, comme preuve."),
    ),
    FinaliteConsentement.SANTE_AIDE: Modele(
        finalite="instruire votre demande d'aide pour maladie, la décider et verser l'aide accordée.",
        donnees=("le titre et la description de votre demande, qui disent votre état de santé (donnée sensible, "
                 "loi n° 2008-12), les montants demandés et accordés, la décision."),
        destinataires="les membres du bureau de {nom} qui décident des aides.",
        # demandes_aide/service.py calls exiger_consentement_sante on creation and on a change of type.
        reponse=("répondre est facultatif. Sans ce consentement en vigueur, une demande d'aide de type maladie est "
                 "refusée (ni déposée ni changée en maladie); les autres types d'aide (scolarité, décès…) n'en "
                 "ont pas besoin."),
        conservation=("le temps de l'instruction et du versement. Le titre et la description de la demande sont "
                      "effacés avec votre identité ({radies} ans après votre départ si vous ne devez rien, ou sur "
                      "demande d'effacement); les montants versés sont des pièces comptables conservées au moins "
                      "{livres} ans."),
    ),
}


def responsable(organisation: Organisation) -> str:
    """The controller's identity as the notice names it: name, then the address and contacts the organisation
    recorded (any may be missing: the secretariat is then the contact)."""
    lieu = ", ".join(p for p in (organisation.adresse, organisation.ville) if p)
    contacts = ", ".join(p for p in (organisation.email, organisation.telephone) if p)
    parts = [organisation.nom] + ([lieu] if lieu else []) + ([f"contact: {contacts}"] if contacts else
                                                             ["contact: son secrétariat"])
    return "; ".join(parts)


def rendre(finalite: FinaliteConsentement, organisation: Organisation, radies_ans: int) -> str:
    """The notice of ``finalite`` for ``organisation``, one line per art. 58 item; ``radies_ans`` is the
    installation's ``donnees_radies_conservation_ans``, the period the retention job applies."""
    modele = MODELES[finalite]
    valeurs = {"nom": organisation.nom, "radies": radies_ans,
               "livres": CONSERVATION_LIVRES_ANS}
    return "\n".join((
        f"Responsable du traitement: {responsable(organisation)}.",
        "Finalité: " + modele.finalite.format(**valeurs),
        "Données traitées: " + modele.donnees.format(**valeurs),
        "Destinataires: " + modele.destinataires.format(**valeurs),
        "Réponse obligatoire ou facultative: " + modele.reponse.format(**valeurs),
        "Durée de conservation: " + modele.conservation.format(**valeurs),
        _TRANSFERTS,
        _DROITS,
    ))


def empreinte(texte: str) -> str:
    """The key of a rendered notice (``notice_information.empreinte``), also printed on the paper form."""
    return hashlib.sha256(texte.encode()).hexdigest()
