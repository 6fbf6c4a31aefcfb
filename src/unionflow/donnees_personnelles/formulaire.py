"""The consent form the secretariat prints (Loi 2008-12 art. 41 2° and 58; docs/conformite.md D2, D5): the notice
of one purpose as rendered for the organisation, the member's identity (filled in when the form is printed for a
known member, blank lines otherwise), the two boxes « je consens » / « je ne consens pas », place, date and the
signatures of the member and of whoever collects it for the secretariat.

A member without a phone with data, or applying at the office, reads and signs this sheet; the secretariat then
records the consent with the channel PAPIER, and UnionFlow stores the same rendered text with it. The sheet
carries the text's version and the start of its SHA-256 (``notice_information.empreinte``): an auditor can match
a signed sheet to the text stored with the consent, and a sheet printed before a change of the text shows it."""

from __future__ import annotations

import uuid

from fpdf import FPDF
from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.config import Settings
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound
from unionflow.core.pdf_etats import DocumentEtat, EnTeteEtat
from unionflow.core.permissions import Permission
from unionflow.donnees_personnelles.notices import VERSION, empreinte, rendre
from unionflow.membres.repository import MembreRepository
from unionflow.models import Membre
from unionflow.models.donnees_personnelles import FinaliteConsentement
from unionflow.models.organisation import Organisation
from unionflow.organisations.repository import OrganisationRepository

INTITULES = {FinaliteConsentement.ADHESION_SYNDICALE: "appartenance syndicale (registre des membres, cotisations)",
             FinaliteConsentement.SANTE_AIDE: "données de santé d'une demande d'aide maladie"}
SIGNATAIRES = ("Signature du membre, précédée de « lu et approuvé »",
               "Pour le secrétariat: nom, date et signature")
CASE = "\u2610"  # an empty ballot box, in the packaged DejaVu font


async def formulaire(session: AsyncSession, auth: AuthContext, settings: Settings, organisation_id: uuid.UUID,
                     finalite: FinaliteConsentement, membre_id: uuid.UUID | None) -> bytes:
    """The form for ``organisation_id`` (one the caller sees, else 404). For a named member: the member himself,
    or whoever records consents in that organisation (403 otherwise); a member out of view is 404."""
    organisation = await OrganisationRepository(session, auth).get(organisation_id)
    if organisation is None:
        raise NotFound("Organisation introuvable")
    membre = None
    if membre_id is not None:
        membre = await MembreRepository(session, auth).get(membre_id)
        if membre is None:
            raise NotFound("Membre introuvable")
        if membre_id != auth.membre_id:
            auth.require(Permission.CONSENTEMENT_RECUEILLIR, organisation_id,
                         "Seuls le membre lui-même et le secrétariat de l'organisation impriment son formulaire")
    texte = rendre(finalite, organisation, settings.donnees_radies_conservation_ans)
    return rendre_pdf(organisation, finalite, texte, membre, auth.actor_name)


def _identite(doc: FPDF, membre: Membre | None) -> None:
    doc.set_font("DejaVu", "B", 10)
    doc.multi_cell(doc.epw, 6, "Le membre", new_x="LMARGIN", new_y="NEXT")
    doc.set_font("DejaVu", "", 10)
    if membre is None:
        lignes = ["Nom et prénoms : " + "." * 70, "Numéro de membre : " + "." * 40,
                  "Téléphone : " + "." * 40]
    else:
        lignes = [f"Nom et prénoms : {membre.nom} {membre.prenom}", f"Numéro de membre : {membre.numero_membre}",
                  f"Téléphone : {membre.telephone or '.' * 40}"]
    for ligne in lignes:
        doc.multi_cell(doc.epw, 6.5, ligne, new_x="LMARGIN", new_y="NEXT")


def rendre_pdf(organisation: Organisation, finalite: FinaliteConsentement, texte: str, membre: Membre | None,
               edite_par: str) -> bytes:
    cle = empreinte(texte)
    doc = DocumentEtat(EnTeteEtat(organisation.nom, "Formulaire de consentement",
                                  f"{INTITULES[finalite]} — notice version {VERSION}", edite_par))
    doc.add_page()
    doc.set_font("DejaVu", "B", 10)
    doc.multi_cell(doc.epw, 6, "Notice d'information (loi n° 2008-12 sur les données personnelles, art. 58)",
                   new_x="LMARGIN", new_y="NEXT")
    doc.set_font("DejaVu", "", 8.5)
    for ligne in texte.splitlines():
        doc.multi_cell(doc.epw, 4.2, ligne, new_x="LMARGIN", new_y="NEXT")
        doc.ln(1)
    doc.ln(2)
    _identite(doc, membre)
    doc.ln(1)
    doc.set_font("DejaVu", "", 10)
    for choix in (f"{CASE}  J'ai lu cette notice et je consens, par écrit, au traitement décrit ci-dessus.",
                  f"{CASE}  Je ne consens pas."):
        doc.multi_cell(doc.epw, 7, choix, new_x="LMARGIN", new_y="NEXT")
    doc.ln(2)
    doc.multi_cell(doc.epw, 7, "Fait à " + "." * 40 + ", le ...... / ...... / ..........", new_x="LMARGIN",
                   new_y="NEXT")
    doc.set_font("DejaVu", "", 7.5)
    doc.multi_cell(doc.epw, 4, f"Notice {finalite.value}, version {VERSION}, empreinte {cle[:16]}. Le "
                               "secrétariat enregistre ce formulaire signé dans UnionFlow (canal PAPIER), qui "
                               "conserve ce même texte avec le consentement. Le consentement se retire à tout "
                               "moment, de la même façon.", new_x="LMARGIN", new_y="NEXT")
    _signatures(doc)
    return bytes(doc.output())


def _signatures(doc: FPDF) -> None:
    """Two boxes side by side: the member's (his own act) and the secretariat's (who collected it); on a new page
    only when too little room is left."""
    if doc.get_y() > doc.h - doc.b_margin - 40:
        doc.add_page()
    doc.ln(4)
    largeur = (doc.epw - 8) / 2
    haut = doc.get_y()
    for n, titre in enumerate(SIGNATAIRES):
        x = doc.l_margin + n * (largeur + 8)
        doc.set_xy(x, haut)
        doc.set_font("DejaVu", "B", 9)
        doc.multi_cell(largeur, 5, titre, align="L", new_x="LEFT", new_y="NEXT")
        # Both boxes at the same height, whatever their titles' lines.
        doc.rect(x, haut + 11, largeur, 26)
    doc.set_y(haut + 39)
