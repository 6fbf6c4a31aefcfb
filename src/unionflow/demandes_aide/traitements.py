"""The processings of personal data demandes_aide/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='DEMANDES_AIDE',
        nom="Demandes d'aide solidaire",
        zone='demandes_aide',
        finalite="Instruire et décider les demandes d'aide (décès, maladie, scolarité...)",
        base_legale=('Consentement exprès pour les données de santé (SANTE_AIDE, exigé pour une demande MALADIE); '
                     'loi n° 2008-12, article non vérifié (docs/conformite.md)'),
        categories_donnees=('objet et description de la demande', 'montants', 'décision'),
        personnes_concernees=('membres demandeurs',),
        destinataires=('les membres du bureau qui décident des aides',),
        duree_conservation="Instruction puis pièces comptables de l'aide versée (non vérifiée, S12)",
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('demande_aide',),
        donnees_sensibles=('santé (demandes MALADIE)',),
    ),
)
