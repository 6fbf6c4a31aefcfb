"""The register of processings as a printable table (PDF, landscape) for the CDP declaration, through
core/tableaux.py like the statements: one line per processing, signed by the controller and the data-protection
officer."""

from __future__ import annotations

from unionflow.core import tableaux
from unionflow.core.tableaux import Bloc, Colonne, Tableau
from unionflow.donnees_personnelles.schemas import RegistreTraitementsResponse

SIGNATAIRES = ("Le responsable du traitement (le Président)", "Le délégué à la protection des données")


def registre(r: RegistreTraitementsResponse, organisation: str, edite_par: str) -> bytes:
    colonnes = [Colonne("Traitement", largeur=1.6), Colonne("Finalité", largeur=2.2),
                Colonne("Base légale", largeur=1.4), Colonne("Données (sensibles)", largeur=2.0),
                Colonne("Personnes concernées", largeur=1.3), Colonne("Destinataires", largeur=1.6),
                Colonne("Conservation", largeur=1.3), Colonne("Transferts hors Sénégal", largeur=1.3),
                Colonne("Déclaration CDP (récépissé)", largeur=1.4)]
    lignes = [(t.nom, t.finalite, t.base_legale,
               ", ".join(t.categories_donnees) + (f" (sensibles: {', '.join(t.donnees_sensibles)})"
                                                  if t.donnees_sensibles else ""),
               ", ".join(t.personnes_concernees), ", ".join(t.destinataires), t.duree_conservation,
               t.transferts_hors_senegal, t.declaration_cdp) for t in r.traitements]
    tableau = Tableau(titre="Registre des traitements de données personnelles", organisation=organisation,
                      sous_titre=r.loi, colonnes=colonnes, blocs=[Bloc(None, lignes)],
                      notes=[f"Responsable du traitement: {r.responsable}.",
                             "Registre généré à partir des déclarations du code (traitements.py de chaque domaine).",
                             "Déclaration CDP: le récépissé que la Commission de protection des données personnelles "
                             "a délivré à l'organisation (loi n° 2008-12, art. 18: seule sa réception permet de "
                             "mettre en œuvre le traitement); « non déclaré » si aucun n'est enregistré."],
                      paysage=True, edite_par=edite_par, signataires=SIGNATAIRES)
    return tableaux.pdf(tableau)
