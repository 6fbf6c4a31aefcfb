"""The retention job on exchanges (Loi 2008-12 art. 35, docs/conformite.md « Durées de conservation »): old internal
messages and event notices lose their text; tickets closed, comments on ended events and settled suggestions lose
their texts and names after ``donnees_echanges_conservation_jours``; old opinions on the service are deleted. What
is recent or still open is untouched, the figures stay, and the search no longer finds the blanked words."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from tests.donnees_membre.test_retention import RIEN
from unionflow.core.jobs import Contexte
from unionflow.donnees_membre.jobs import RETENTION_DONNEES
from unionflow.models import (
    Conversation,
    Evenement,
    Feedback,
    FeedbackEvenement,
    MessageConversation,
    NotificationEvenement,
    Suggestion,
    Ticket,
    TicketMessage,
)
from unionflow.models.base import utcnow

EFFACE = "[effacé]"


def _ticket(org, membre, numero: str, statut: str, fermeture, **values) -> Ticket:
    now = utcnow()
    return Ticket(numero=numero, organisation_id=org.id, organisation_origine_id=org.id, destinataire="ORGANISATION",
                  membre_id=membre.id, demandeur_sub="sub-aminata", demandeur_nom="Aminata Diop",
                  sujet="Décès de mon père", description="Aide funéraire pour mon père", categorie="AUTRE",
                  priorite="NORMALE", statut=statut, echeance_premiere_reponse=now, echeance_resolution=now,
                  date_fermeture=fermeture, **values)


async def test_retention_blanks_settled_exchanges_and_keeps_open_or_recent_ones(app, settings, committed_db,
                                                                                committed_factory):
    db, f = committed_db, committed_factory
    org = await f.organisation()
    aminata = await f.membre(org, nom="Diop", prenom="Aminata")
    vieux_textes = utcnow() - timedelta(days=settings.donnees_messages_conservation_jours + 3)
    vieux = utcnow() - timedelta(days=settings.donnees_echanges_conservation_jours + 3)
    recent = utcnow() - timedelta(days=3)

    conversation = Conversation(organisation_id=org.id, type_conversation="DIRECTE", cree_par_membre_id=aminata.id)
    evt_fini = Evenement(titre="AG 2023", type_evenement="REUNION", date_debut=vieux - timedelta(hours=2),
                         date_fin=vieux, organisation_id=org.id, statut="TERMINE")
    evt_recent = Evenement(titre="AG 2026", type_evenement="REUNION", date_debut=recent - timedelta(hours=2),
                           date_fin=recent, organisation_id=org.id, statut="TERMINE")
    ferme_vieux = _ticket(org, aminata, "TK-R-1", "FERME", vieux, resolution="Aide versée")
    ferme_recent = _ticket(org, aminata, "TK-R-2", "FERME", recent)
    ouvert_vieux = _ticket(org, aminata, "TK-R-3", "OUVERT", None, created_at=vieux)
    db.add_all([conversation, evt_fini, evt_recent, ferme_vieux, ferme_recent, ouvert_vieux])
    await db.flush()
    db.add_all([
        MessageConversation(conversation_id=conversation.id, auteur_membre_id=aminata.id, type_message="TEXTE",
                            contenu="Mon numéro a changé", created_at=vieux_textes),
        MessageConversation(conversation_id=conversation.id, auteur_membre_id=aminata.id, type_message="TEXTE",
                            contenu="Merci", created_at=recent),
        NotificationEvenement(evenement_id=evt_fini.id, membre_id=aminata.id, type_notification="CONVOCATION",
                              message="Aminata, vous êtes convoquée", date_creation=vieux_textes),
        NotificationEvenement(evenement_id=evt_recent.id, membre_id=aminata.id, type_notification="CONVOCATION",
                              message="Convocation AG 2026", date_creation=recent),
        TicketMessage(ticket_id=ferme_vieux.id, auteur_sub="sub-aminata", auteur_nom="Aminata Diop",
                      auteur_membre_id=aminata.id, contenu="Voici le certificat de décès"),
        TicketMessage(ticket_id=ferme_recent.id, auteur_sub="sub-aminata", auteur_nom="Aminata Diop",
                      auteur_membre_id=aminata.id, contenu="Toujours là"),
        FeedbackEvenement(evenement_id=evt_fini.id, membre_id=aminata.id, note=4, commentaire="Trop long",
                          statut_moderation="PUBLIE"),
        FeedbackEvenement(evenement_id=evt_recent.id, membre_id=aminata.id, note=5, commentaire="Bien",
                          statut_moderation="PUBLIE"),
        Suggestion(organisation_id=org.id, membre_id=aminata.id, auteur_nom="Aminata Diop", titre="Cotiser par Wave",
                   description="Payer par Wave", categorie="COTISATIONS", statut="REALISEE", updated_at=vieux),
        Suggestion(organisation_id=org.id, membre_id=aminata.id, auteur_nom="Aminata Diop", titre="Une tontine",
                   description="Ouvrir une tontine", categorie="AUTRE", statut="EN_ETUDE", updated_at=vieux),
        Feedback(type_feedback="AUTRE", message="L'appli est lente", auteur_sub="sub-aminata",
                 auteur_nom="Aminata Diop", traite=True, date_traitement=vieux, created_at=vieux),
        Feedback(type_feedback="AUTRE", message="Jamais lu", auteur_sub="sub-aminata", auteur_nom="Aminata Diop",
                 created_at=vieux),
        Feedback(type_feedback="AUTRE", message="Récent", auteur_sub="sub-aminata", auteur_nom="Aminata Diop"),
    ])
    await db.commit()

    contexte = Contexte(app.state.engine, app.state.sessionmaker, settings)
    assert await RETENTION_DONNEES.executer(contexte) == {
        **RIEN, "messagesEffaces": 1, "avisEvenementEffaces": 1, "ticketsEffaces": 1, "commentairesEffaces": 1,
        "suggestionsAnonymisees": 1, "avisSupprimes": 2}

    db.expunge_all()
    assert sorted((await db.execute(select(MessageConversation.contenu))).scalars()) == ["Merci", EFFACE]
    assert sorted((await db.execute(select(NotificationEvenement.message))).scalars()) == [
        "Convocation AG 2026", EFFACE]
    tickets = {t.numero: t for t in (await db.execute(select(Ticket))).scalars()}
    blanchi = tickets["TK-R-1"]
    assert (blanchi.sujet, blanchi.description, blanchi.demandeur_nom, blanchi.resolution) == (EFFACE,) * 4
    assert (blanchi.categorie, blanchi.membre_id, blanchi.date_fermeture is not None) == ("AUTRE", aminata.id, True)
    assert "pere" not in blanchi.recherche and "deces" not in blanchi.recherche  # the search key follows
    assert tickets["TK-R-2"].description == tickets["TK-R-3"].description == "Aide funéraire pour mon père"
    messages = dict((await db.execute(select(TicketMessage.ticket_id, TicketMessage.contenu))).all())
    assert messages == {blanchi.id: EFFACE, tickets["TK-R-2"].id: "Toujours là"}
    notes = sorted((await db.execute(select(FeedbackEvenement.note, FeedbackEvenement.commentaire))).all())
    assert notes == [(4, EFFACE), (5, "Bien")]
    auteurs = dict((await db.execute(select(Suggestion.titre, Suggestion.auteur_nom))).all())
    assert auteurs == {"Cotiser par Wave": EFFACE, "Une tontine": "Aminata Diop"}
    assert (await db.execute(select(Feedback.message))).scalars().all() == ["Récent"]

    # A second run finds nothing more to do.
    assert await RETENTION_DONNEES.executer(contexte) == RIEN
