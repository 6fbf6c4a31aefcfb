"""Cases of the combined-role test (test_combined_roles.py) for payouts, finance, compliance, communication and
integrations: each builds a record of ``w.org`` and returns the call acting on it and how to see its effect."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from tests.factories import Factory
from tests.factories.cotisations import cotisation
from unionflow.models import (
    AbonnementWebhook,
    AlerteLcbFt,
    AuditLog,
    Budget,
    CompteComptable,
    ConfigurationOrganisation,
    Consentement,
    ContributionBenevole,
    Cotisation,
    DemandeApprobation,
    Document,
    Evenement,
    FeedbackEvenement,
    Membre,
    ModeleNotification,
    MouvementAvoir,
    Notification,
    OppositionTraitement,
    Organisation,
    Paiement,
    PinUssd,
    PropositionAide,
    RapprochementWave,
    RecepisseTraitement,
    ReferentielComptable,
    ReleveWave,
    Ticket,
    Tresorerie,
    Versement,
)


@dataclass
class Call:
    url: str
    json: Any
    done: Callable[[], Awaitable[bool]]  # whether the action took effect


@dataclass
class World:
    db: AsyncSession
    factory: Factory
    org: Organisation
    owner: Membre  # a plain member of ``org`` whose record is acted upon


async def scalar(db: AsyncSession, stmt: Any) -> Any:
    return (await db.execute(stmt.execution_options(populate_existing=True))).scalar()


async def _count(w: World, model: Any, *where: Any) -> int:
    return int(await scalar(w.db, select(func.count()).select_from(model).where(*where)))


def _ref(prefix: str) -> str:
    return f"{prefix}-T-{uuid.uuid4().hex[:12]}"


async def _add(w: World, row: Any) -> Any:
    w.db.add(row)
    await w.db.flush()
    return row


async def versement_initier(w: World) -> Call:
    # A manual payout of the AUTRE kind: no Wave account and no collected balance are needed.
    body = {"organisationId": str(w.org.id), "montant": "1000", "mode": "MANUEL", "objetType": "AUTRE",
            "motif": "Achat de fournitures", "beneficiaireNom": "Librairie Clairafrique"}

    async def done() -> bool:
        return await _count(w, Versement, Versement.organisation_id == w.org.id) > 0
    return Call("/api/versements", body, done)


async def versement_confirmer(w: World) -> Call:
    # Prepared by someone else (four eyes) and below the approval threshold.
    row = await _add(w, Versement(
        numero=_ref("VER"), organisation_id=w.org.id, montant=Decimal("1000"), devise="XOF", mode="MANUEL",
        objet_type="AUTRE", motif="Achat de fournitures", beneficiaire_nom="Librairie Clairafrique",
        statut="EN_COURS", cle_idempotence=_ref("ver"), cree_par="Trésorier adjoint"))

    async def done() -> bool:
        return await scalar(w.db, select(Versement.statut).where(Versement.id == row.id)) == "REUSSI"
    return Call(f"/api/versements/{row.id}/confirmer", {"referenceExterne": "VIR-BICIS-42"}, done)


async def _budget(w: World, statut: str, soumis_par_sub: str | None = None) -> Budget:
    annee = date.today().year
    return await _add(w, Budget(
        organisation_id=w.org.id, annee=annee, libelle=f"Budget {annee}", date_debut=date(annee, 1, 1),
        date_fin=date(annee, 12, 31), devise="XOF", statut=statut, cree_par="Trésorier",
        soumis_par="Trésorier" if soumis_par_sub else None, soumis_par_sub=soumis_par_sub))


async def budget_gerer(w: World) -> Call:
    budget = await _budget(w, "APPROUVE")

    async def done() -> bool:
        return await scalar(w.db, select(Budget.statut).where(Budget.id == budget.id)) == "CLOTURE"
    return Call(f"/api/finance/budgets/{budget.id}/cloturer", None, done)


async def finance_decider(w: World) -> Call:
    # Submitted by another person: the decider never decides on their own request.
    budget = await _budget(w, "SOUMIS", soumis_par_sub=f"tresorier-{uuid.uuid4().hex[:8]}")

    async def done() -> bool:
        return await scalar(w.db, select(Budget.statut).where(Budget.id == budget.id)) == "APPROUVE"
    return Call(f"/api/finance/budgets/{budget.id}/approuver", None, done)


async def comptabilite_ecrire(w: World) -> Call:
    body = {"organisationId": str(w.org.id), "numeroCompte": "6058", "libelle": "Achats divers"}

    async def done() -> bool:
        return await _count(w, CompteComptable, CompteComptable.organisation_id == w.org.id,
                            CompteComptable.numero_compte == "6058") > 0
    return Call("/api/comptabilite/comptes", body, done)


async def lcbft_traiter(w: World) -> Call:
    alerte = await _add(w, AlerteLcbFt(
        organisation_id=w.org.id, membre_id=w.owner.id, type_alerte="SEUIL_OPERATION", montant=Decimal("6000000"),
        seuil=Decimal("5000000"), devise="XOF", description="Opération au-delà du seuil", traitee=False))

    async def done() -> bool:
        return bool(await scalar(w.db, select(AlerteLcbFt.traitee).where(AlerteLcbFt.id == alerte.id)))
    return Call(f"/api/alertes-lcb-ft/{alerte.id}/traiter", {"commentaire": "Vente de récolte justifiée"}, done)


async def feedback_moderer(w: World) -> Call:
    debut = datetime.now(UTC).replace(microsecond=0) - timedelta(days=2)
    evt = await _add(w, Evenement(
        titre="Assemblée générale", type_evenement="REUNION", date_debut=debut, date_fin=debut + timedelta(hours=2),
        organisation_id=w.org.id, statut="PLANIFIE"))
    feedback = await _add(w, FeedbackEvenement(evenement_id=evt.id, membre_id=w.owner.id, note=4,
                                               commentaire="Bonne réunion", statut_moderation="EN_ATTENTE"))

    async def done() -> bool:
        return await scalar(w.db, select(FeedbackEvenement.statut_moderation).where(
            FeedbackEvenement.id == feedback.id)) == "PUBLIE"
    return Call(f"/api/evenements/{evt.id}/feedbacks/{feedback.id}/moderation", {"statut": "PUBLIE"}, done)


async def document_gerer(w: World) -> Call:
    # Any member may file a private document; sharing it with all members is the bureau's.
    body = {"nomFichier": "pv-assemblee.pdf", "visibilite": "ORGANISATION", "organisationId": str(w.org.id)}

    async def done() -> bool:
        return await _count(w, Document, Document.organisation_id == w.org.id,
                            Document.visibilite == "ORGANISATION") > 0
    return Call("/api/documents", body, done)


async def notification_envoyer(w: World) -> Call:
    body = {"organisationId": str(w.org.id), "membreIds": [str(w.owner.id)], "canaux": ["IN_APP"],
            "sujet": "Assemblée générale", "corps": "Bonjour {prenom}, l'assemblée générale a lieu samedi."}

    async def done() -> bool:
        return await _count(w, Notification, Notification.membre_id == w.owner.id,
                            Notification.organisation_id == w.org.id) > 0
    return Call("/api/notifications", body, done)


async def ticket_traiter(w: World) -> Call:
    now = datetime.now(UTC)
    ticket = await _add(w, Ticket(
        numero=_ref("TCK"), organisation_id=w.org.id, organisation_origine_id=w.org.id, destinataire="ORGANISATION",
        membre_id=w.owner.id, demandeur_sub=f"membre-{w.owner.id}", demandeur_nom="Awa Diop",
        sujet="Reçu de cotisation", description="Je n'ai pas reçu mon reçu", categorie="COTISATION",
        priorite="NORMALE", statut="OUVERT", nombre_reouvertures=0, created_at=now, updated_at=now,
        echeance_premiere_reponse=now + timedelta(days=1), echeance_resolution=now + timedelta(days=5)))

    async def done() -> bool:
        return await scalar(w.db, select(Ticket.statut).where(Ticket.id == ticket.id)) == "EN_COURS"
    return Call(f"/api/tickets/{ticket.id}/statut", {"statut": "EN_COURS"}, done)


async def proposition_aide_gerer(w: World) -> Call:
    # The author may close their own offer; anyone else needs the bureau's permission.
    proposition = await _add(w, PropositionAide(
        numero_reference=_ref("PROP"), organisation_id=w.org.id, membre_id=w.owner.id, type_aide="DECES",
        nature="MATERIELLE", titre="Chaises et bâches", description="Pour les cérémonies", devise="XOF",
        statut="ACTIVE"))

    async def done() -> bool:
        return await scalar(w.db, select(PropositionAide.statut).where(
            PropositionAide.id == proposition.id)) == "CLOTUREE"
    return Call(f"/api/propositions-aide/{proposition.id}/cloturer", {"motif": "Aide remise"}, done)


async def notification_modele_gerer(w: World) -> Call:
    body = {"code": "RAPPEL_AG", "canal": "EMAIL", "organisationId": str(w.org.id), "sujet": "Assemblée générale",
            "corps": "Bonjour {prenom}, l'assemblée générale a lieu samedi."}

    async def done() -> bool:
        return await _count(w, ModeleNotification, ModeleNotification.organisation_id == w.org.id) > 0
    return Call("/api/notifications/modeles", body, done)


async def webhook_gerer(w: World) -> Call:
    abonnement = await _add(w, AbonnementWebhook(
        organisation_id=w.org.id, url="https://compta.example.org/unionflow", evenements=["versement.confirme"],
        secret=uuid.uuid4().hex, actif=True, echecs_consecutifs=0, cree_par="Administrateur"))

    async def done() -> bool:
        return await scalar(w.db, select(AbonnementWebhook.description).where(
            AbonnementWebhook.id == abonnement.id)) == "Revue"
    return Call(f"/api/webhooks/abonnements/{abonnement.id}", {"description": "Revue"}, done)


async def wave_rapprocher(w: World) -> Call:
    releve = await _add(w, ReleveWave(organisation_id=w.org.id, source="CSV", empreinte=uuid.uuid4().hex,
                                      nombre_lignes=0, lignes_deja_connues=0, lignes_autres_organisations=0,
                                      importe_par="Trésorier"))

    async def done() -> bool:
        return await _count(w, RapprochementWave, RapprochementWave.releve_id == releve.id) > 0
    return Call(f"/api/wave/releves/{releve.id}/rapprocher", None, done)


async def tresorerie_gerer(w: World) -> Call:
    body = {"organisationId": str(w.org.id), "type": "CAISSE", "nom": "Caisse du siège", "numeroCompte": "5711"}

    async def done() -> bool:
        return await _count(w, Tresorerie, Tresorerie.organisation_id == w.org.id) > 0
    return Call("/api/tresoreries", body, done)


async def ussd_pin_reinitialiser(w: World) -> Call:
    pin = await _add(w, PinUssd(membre_id=w.owner.id, pin_hash="x", echecs=3, verrouille=True,
                                verrouille_le=datetime.now(UTC)))

    async def done() -> bool:
        return await scalar(w.db, select(PinUssd.verrouille).where(PinUssd.id == pin.id)) is False
    return Call(f"/api/ussd/pin/{w.owner.id}/reinitialiser", {}, done)


async def consentement_recueillir(w: World) -> Call:
    """The secretariat records the paper consent of a member of the organisation."""
    body = {"membreId": str(w.owner.id), "organisationId": str(w.org.id), "finalite": "ADHESION_SYNDICALE",
            "canal": "PAPIER", "noticeVersion": 2}

    async def done() -> bool:
        return await scalar(w.db, select(func.count()).select_from(Consentement).where(
            Consentement.membre_id == w.owner.id)) == 1
    return Call("/api/donnees-personnelles/consentements", body, done)


async def avoir_imputer(w: World) -> Call:
    # The owner holds 5,000 of credit (an advance recorded earlier) and owes one dues of 5,000.
    due = await cotisation(w.db, w.owner, w.org, 5000)
    avance = await _add(w, Paiement(numero_recu=_ref("REC"), membre_id=w.owner.id, organisation_id=w.org.id,
                                    montant=Decimal("5000"), montant_non_affecte=Decimal("5000"), methode="ESPECES",
                                    statut="VALIDE", date_paiement=datetime.now(UTC)))
    await _add(w, MouvementAvoir(membre_id=w.owner.id, organisation_id=w.org.id, paiement_id=avance.id,
                                 type_mouvement="CREATION", montant=Decimal("5000"), libelle="Avance",
                                 cree_par="Trésorier"))

    async def done() -> bool:
        return bool(await scalar(w.db, select(Cotisation.montant_paye).where(Cotisation.id == due.id)))
    return Call("/api/avoirs/imputer", {"membreId": str(w.owner.id), "organisationId": str(w.org.id)}, done)


async def configuration_organisation_gerer(w: World) -> Call:
    async def done() -> bool:
        return await _count(w, ConfigurationOrganisation, ConfigurationOrganisation.organisation_id == w.org.id) > 0
    return Call(f"/api/configuration/organisations/{w.org.id}/cotisations.avoir.imputation_automatique",
                {"valeur": True}, done)


async def referentiel_choisir(w: World) -> Call:
    """The bureau's head records which books the organisation keeps (SMT from this year)."""
    async def done() -> bool:
        return await _count(w, ReferentielComptable, ReferentielComptable.organisation_id == w.org.id) > 0
    return Call(f"/api/configuration/organisations/{w.org.id}/referentiel-comptable",
                {"referentiel": "SYCEBNL_SMT", "exercice": 2026, "motif": "Petite entité: décision du bureau"}, done)


async def donnees_exporter(w: World) -> Call:
    async def done() -> bool:
        return await _count(w, AuditLog, AuditLog.type_action == "EXPORTER_DONNEES",
                            AuditLog.entite_id == str(w.owner.id)) > 0
    return Call(f"/api/membres/{w.owner.id}/donnees", None, done)


async def donnees_effacement_demander(w: World) -> Call:
    async def done() -> bool:
        return await _count(w, DemandeApprobation, DemandeApprobation.genre == "EFFACEMENT",
                            DemandeApprobation.objet_id == w.owner.id) > 0
    return Call(f"/api/membres/{w.owner.id}/donnees/effacement", {"motif": "Demande écrite du membre"}, done)


async def donnees_effacement_decider(w: World) -> Call:
    """A pending erasure of the owner, asked by someone else than the caller."""
    demande = await _add(w, DemandeApprobation(
        genre="EFFACEMENT", organisation_id=w.org.id, objet_id=w.owner.id, motif="Ne plus figurer au fichier",
        statut="EN_ATTENTE", demande_par="autre@example.sn", demande_par_sub="autre", date_demande=datetime.now(UTC),
        niveaux_requis=1, niveau_atteint=0))

    async def done() -> bool:
        return await scalar(w.db, select(Membre.date_effacement).where(Membre.id == w.owner.id)) is not None
    return Call(f"/api/donnees/effacements/{demande.id}/approuver", {}, done)


async def donnees_opposition_demander(w: World) -> Call:
    async def done() -> bool:
        return await _count(w, DemandeApprobation, DemandeApprobation.genre == "OPPOSITION",
                            DemandeApprobation.objet_id == w.owner.id) > 0
    return Call(f"/api/membres/{w.owner.id}/donnees/oppositions",
                {"traitement": "RAPPELS_COTISATION", "motif": "Demande écrite du membre"}, done)


async def donnees_opposition_decider(w: World) -> Call:
    """A pending opposition of the owner, asked by someone else than the caller."""
    demande = await _add(w, DemandeApprobation(
        genre="OPPOSITION", organisation_id=w.org.id, objet_id=w.owner.id, motif="Je paie au guichet",
        statut="EN_ATTENTE", demande_par="autre@example.sn", demande_par_sub="autre", date_demande=datetime.now(UTC),
        niveaux_requis=1, niveau_atteint=0, details={"traitement": "RAPPELS_COTISATION"}))

    async def done() -> bool:
        return await _count(w, OppositionTraitement, OppositionTraitement.membre_id == w.owner.id) == 1
    return Call(f"/api/donnees/oppositions/{demande.id}/approuver", {}, done)


async def donnees_recepisse_enregistrer(w: World) -> Call:
    async def done() -> bool:
        return await scalar(w.db, select(func.count()).select_from(RecepisseTraitement).where(
            RecepisseTraitement.organisation_id == w.org.id)) > 0
    return Call("/api/conformite/traitements/PAIEMENTS/recepisse",
                {"organisationId": str(w.org.id), "numeroRecepisse": "CDP-2025-001", "dateRecepisse": "2025-01-15"},
                done)


async def benevolat_enregistrer(w: World) -> Call:
    async def done() -> bool:
        return await _count(w, ContributionBenevole, ContributionBenevole.organisation_id == w.org.id) > 0
    return Call("/api/comptabilite/benevolat",
                {"organisationId": str(w.org.id), "membreId": str(w.owner.id), "dateContribution": str(date.today()),
                 "heures": "2", "tauxHoraire": "1000", "activite": "Accueil des membres"}, done)
