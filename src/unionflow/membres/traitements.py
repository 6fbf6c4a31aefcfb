"""The processings of personal data membres/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='REGISTRE_MEMBRES',
        nom='Registre des membres',
        zone='membres',
        finalite='Tenir le registre des membres de chaque organisation, leurs appartenances et leurs rôles',
        base_legale=('Consentement du membre (ADHESION_SYNDICALE: appartenance syndicale, donnée sensible) et '
                     "exécution de l'adhésion; loi n° 2008-12, article non vérifié (docs/conformite.md)"),
        categories_donnees=(
            'identité (nom, prénom, date de naissance)',
            'coordonnées (e-mail, téléphone, adresse, ville)',
            'profession',
            'appartenances et rôles',
        ),
        personnes_concernees=('membres', 'anciens membres'),
        destinataires=("le bureau de l'organisation", "les administrateurs de l'union"),
        duree_conservation=("Durée de l'adhésion; radié, identité pseudonymisée après {radies_ans} ans s'il ne doit "
                            "rien; les livres gardent montants et reçus"),
        transferts_hors_senegal=("Aucun par UnionFlow; hébergement hors du Sénégal: à déclarer par l'exploitant "
                                 '(non vérifié)'),
        tables=('membre', 'membre_organisation'),
        donnees_sensibles=('appartenance syndicale',),
    ),
)
