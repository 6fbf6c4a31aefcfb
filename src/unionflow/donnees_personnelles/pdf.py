"""The register of processings as a printable table (PDF, landscape) for the CDP declaration, through
core/tableaux.py like the statements: one line per processing, signed by the controller and the data-protection
officer."""

from __future__ import annotations

from unionflow.core import tableaux
from unionflow.core.tableaux import Bloc, Colonne, Tableau
from unionflow.donnees_personnelles.schemas import RegistreTraitementsResponse

SIGNATAIRES = ("Le responsable du traitement (le Président)", "Le délégué à la protection des données")


def registre(r: RegistreTraitementsResponse, organisation: str, edite_par: str) -> bytes:
    colonnes = [Colonne("DeclarationTraitement", largeur=1.6), Colonne("Finalité", largeur=2.4),
                Colonne("Base légale", largeur=1.4), Colonne("Données (sensibles)", largeur=2.0),
                Colonne("Personnes concernées", largeur=1.3), Colonne("Destinataires", largeur=1.6),
                Colonne("Conservation", largeur=1.4), Colonne("Transferts hors Sénégal", largeur=1.4)]
    lignes = [(t.nom, t.finalite, t.base_legale,
               ", ".join(t.categories_donnees) + (f" (sensibles: {', '.join(t.donnees_sensibles)})"
                                                  if t.donnees_sensibles else ""),
               ", ".join(t.personnes_concernees), ", ".join(t.destinataires), t.duree_conservation,
               t.transferts_hors_senegal) for t in r.traitements]
    tableau = Tableau(titre="Registre des traitements de données personnelles", organisation=organisation,
                      sous_titre=r.loi, colonnes=colonnes, blocs=[Bloc(None, lignes)],
                      notes=[f"Responsable du traitement: {r.responsable}.",
                             "Registre généré à partir des déclarations du code (traitements.py de chaque domaine)."],
                      paysage=True, edite_par=edite_par, signataires=SIGNATAIRES)
    return tableaux.pdf(tableau)
