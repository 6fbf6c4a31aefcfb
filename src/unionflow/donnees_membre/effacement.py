"""Pseudonymising a person's identity (Loi 2008-12: deletion and opposition, docs/conformite.md D7, D8), the one
function the decided EFFACEMENT request and the retention job both run.

Every section of the registry marked MODIFIER gets its columns overwritten (names become the pseudonym, free texts
« [effacé] »), SUPPRIMER rows (PIN codes, sessions, reset tokens) go; the member row loses name, e-mail, phone,
address, birth date, profession and its link to a login; the local account is disabled and renamed. Accounting
rows (dues, payments, receipts, credit, entries, audit) are kept as they are — amounts, receipt numbers and entries
stay for the books' retention (S12) — and now name « Membre effacé #… » wherever a name is shown.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.auth.repository import UtilisateurRepository
from unionflow.donnees_membre.registre import SECTIONS, Effacement
from unionflow.donnees_membre.service import compte_local, porte, valeur_sujet
from unionflow.membres.repository import MembreRepository
from unionflow.models.membre import Membre, StatutAppartenance, StatutMembre

PRENOM = "Membre"
# Books are kept 10 years: AUDCIF art. 24 « Les livres comptables […] ainsi que les pièces justificatives sont
# conservés pendant dix ans » (read as quoted by the CCJA; its application to non-profits through SYCEBNL art. 3
# non vérifié, docs/conformite.md S12): what the member is told.
CONSERVATION_LIVRES_ANS = 10
REPONSE = ("Votre identité a été effacée: nom, prénom, e-mail, téléphone, adresse, date de naissance, profession et "
           "vos textes (messages, notifications, SMS, avis) sont remplacés par « {pseudonyme} » ou supprimés, et "
           "votre compte de connexion est désactivé. Les montants, numéros de reçus, écritures comptables et le "
           "journal d'audit sont conservés tels quels, sous ce pseudonyme, pendant la durée de conservation des "
           "livres comptables ({ans} ans).")


def pseudonyme(membre: Membre) -> str:
    return f"{PRENOM} effacé #{membre.id.hex[:8]}"


def reponse(membre: Membre) -> str:
    return REPONSE.format(pseudonyme=pseudonyme(membre), ans=CONSERVATION_LIVRES_ANS)


async def effacer_identite(session: AsyncSession, membre: Membre, issuer: str, motif: str) -> dict[str, int]:
    """Pseudonymise ``membre`` everywhere (the caller decided it may); how many rows each section changed."""
    nom = pseudonyme(membre)
    compte = compte_local(membre, issuer)
    comptes: dict[str, int] = {}
    for section in SECTIONS:
        valeur = valeur_sujet(section, membre, issuer)
        if section.effacement is Effacement.GARDER or valeur is None:
            continue
        repo = porte(section, session)
        if section.effacement is Effacement.SUPPRIMER:
            comptes[section.cle] = await repo.supprimer_du_sujet(section.table, section.colonne, valeur)
        else:
            comptes[section.cle] = await repo.modifier_du_sujet(section.table, section.colonne, valeur,
                                                                section.valeurs(nom))
    if compte is not None:
        adresse = f"efface-{compte.hex}@efface.invalid"
        comptes["compte"] = await UtilisateurRepository(session).modifier_du_sujet(
            "utilisateur_local", "id", compte,
            {"enabled": False, "email": adresse, "username": adresse, "prenom": None, "nom": None,
             "password_hash": None, "realm_roles": []})
    now = datetime.now(UTC)
    for appartenance in await MembreRepository(session, None).memberships(membre.id, for_update=True):
        if appartenance.statut != StatutAppartenance.TERMINE:
            appartenance.statut = StatutAppartenance.TERMINE.value
            appartenance.date_fin = now.date()
    membre.prenom, membre.nom = PRENOM, nom.removeprefix(f"{PRENOM} ")
    for champ in ("email", "telephone", "date_naissance", "genre", "profession", "adresse", "ville", "pays",
                  "user_iss", "user_sub"):
        setattr(membre, champ, None)
    membre.statut = StatutMembre.RADIE.value
    membre.motif_statut = motif[:500]
    membre.date_statut = now
    membre.date_effacement = now
    await session.flush()
    return comptes
