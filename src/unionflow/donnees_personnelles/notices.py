"""The notice texts a member reads before consenting (Loi 2008-12 art. 58, docs/conformite.md D5), one current
version per purpose. A changed text takes the next version number: the stored rows keep every version as read."""

from __future__ import annotations

from unionflow.models.donnees_personnelles import FinaliteConsentement

_DROITS = ("Vous pouvez retirer ce consentement à tout moment (« Mon compte » ou auprès du secrétariat), demander "
           "l'accès à vos données, leur rectification ou leur suppression, et vous opposer au traitement pour des "
           "motifs légitimes. Chaque consultation de votre fiche par le bureau est inscrite dans un journal que "
           "vous pouvez lire.")

NOTICES: dict[FinaliteConsentement, tuple[int, str]] = {
    FinaliteConsentement.ADHESION_SYNDICALE: (1, (
        "Votre organisation enregistre votre appartenance syndicale (donnée sensible, loi n° 2008-12) pour tenir "
        "le registre de ses membres, appeler et encaisser vos cotisations et vous convoquer. Destinataires: le "
        "bureau de votre organisation et, pour les chiffres consolidés, l'union. Durée: le temps de votre "
        "adhésion puis la durée de conservation des pièces comptables. " + _DROITS)),
    FinaliteConsentement.SANTE_AIDE: (1, (
        "Une demande d'aide pour maladie contient des données de santé (donnée sensible, loi n° 2008-12). Votre "
        "organisation les traite pour instruire et verser l'aide demandée. Destinataires: les membres du bureau "
        "qui décident des aides. Durée: le temps de l'instruction et du versement, puis la durée de conservation "
        "des pièces comptables de l'aide. " + _DROITS)),
}
