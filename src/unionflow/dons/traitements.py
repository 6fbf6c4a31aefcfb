"""The processings of personal data dons/ declares (core/traitements.py): collected by registres.py into the
register of processings (GET /api/conformite/traitements)."""

from __future__ import annotations

from unionflow.core.traitements import DeclarationTraitement

TRAITEMENTS = (
    DeclarationTraitement(
        code='REGISTRE_DONS',
        nom='Registre des dons et legs, fonds dédiés',
        zone='dons',
        finalite=("Tenir le registre scellé des dons et legs (identité du donateur, montant, forme, affectation) et "
                  "suivre l'emploi des fonds dédiés; signaler les dons au-delà du seuil LCB-FT"),
        base_legale=("Obligation comptable (SYCEBNL) et vigilance LCB-FT des organismes à but non lucratif; articles "
                     'non vérifiés (docs/conformite.md S7, L4)'),
        categories_donnees=(
            'donateur: nom ou raison sociale, téléphone, pièce d\'identité, RCCM, NINEA',
            'montant, forme du don, affectation, valorisation des dons en nature',
        ),
        personnes_concernees=('donateurs (membres, personnes physiques, personnes morales)',),
        destinataires=(
            "le bureau de l'organisation",
            'le commissaire aux comptes',
            'la CENTIF sur déclaration de soupçon',
        ),
        duree_conservation=("Durée légale des pièces comptables (non vérifiée, S12); registre scellé: une ligne "
                            "n'est jamais modifiée ni supprimée"),
        transferts_hors_senegal='Aucun',
        tables=('ligne_registre_don', 'fonds_dedie', 'mouvement_fonds_dedie'),
    ),
    DeclarationTraitement(
        code='REGISTRE_BENEVOLAT',
        nom='Registre du bénévolat',
        zone='dons',
        finalite=("Enregistrer le temps donné par les membres et sa valorisation, montrée hors bilan dans les notes "
                  "des états financiers SYCEBNL"),
        base_legale=("Présentation des contributions volontaires en nature dans les notes (SYCEBNL); articles non "
                     'vérifiés (docs/conformite.md S10)'),
        categories_donnees=('bénévole: identifiant de membre', 'date, heures, taux horaire, valeur, activité'),
        personnes_concernees=("membres bénévoles de l'organisation",),
        destinataires=("le bureau de l'organisation", 'le commissaire aux comptes'),
        duree_conservation=("Avec les états financiers qu'elle justifie (durée légale des pièces comptables, non "
                            "vérifiée, S12); une ligne n'est jamais supprimée, seulement annulée"),
        transferts_hors_senegal='Aucun',
        tables=('contribution_benevole',),
    ),
)
