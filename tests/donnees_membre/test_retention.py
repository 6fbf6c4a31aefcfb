"""The daily retention job (Loi 2008-12, docs/conformite.md D9): members struck off long ago who owe nothing are
pseudonymised (their payments untouched); old notification and inbound SMS texts are blanked; old reads of the
access log are deleted."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from tests.factories.cotisations import cotisation
from tests.factories.paiements import paiement_valide
from unionflow.core.jobs import Contexte
from unionflow.donnees_membre.jobs import RETENTION_DONNEES
from unionflow.models import AccesDossier, Membre, Paiement
from unionflow.models.base import utcnow
from unionflow.models.notification import Notification
from unionflow.models.sms import SmsEntrant

# The job's counters when it has nothing to do (tests/donnees_membre/test_retention_echanges.py shares it).
RIEN = {"membresEffaces": 0, "membresRedevables": 0, "notificationsEffacees": 0, "avisEvenementEffaces": 0,
        "smsEffaces": 0, "messagesEffaces": 0, "ticketsEffaces": 0, "commentairesEffaces": 0,
        "suggestionsAnonymisees": 0, "avisSupprimes": 0, "accesSupprimes": 0, "notesVocalesSupprimees": 0}


async def _radie(factory, org, ans: int, nom: str) -> Membre:
    return await factory.membre(org, nom=nom, telephone="+221771112233", statut="RADIE",
                                date_statut=utcnow() - timedelta(days=365 * ans + 2))


async def test_retention_pseudonymises_old_struck_off_members_and_blanks_old_texts(app, settings, committed_db,
                                                                                   committed_factory):
    db = committed_db
    org = await committed_factory.organisation()
    ancien = await _radie(committed_factory, org, settings.donnees_radies_conservation_ans + 1, "Ancien")
    redevable = await _radie(committed_factory, org, settings.donnees_radies_conservation_ans + 1, "Redevable")
    recent = await _radie(committed_factory, org, 1, "Recent")
    await cotisation(db, redevable, org, 3000, commit=True)
    paiement = await paiement_valide(db, ancien, org, "4200", methode="ESPECES")
    ancien_id, redevable_id, recent_id = ancien.id, redevable.id, recent.id
    avant = (paiement.id, paiement.montant, paiement.numero_recu)
    vieux = utcnow() - timedelta(days=settings.donnees_messages_conservation_jours + 5)
    db.add_all([
        Notification(membre_id=recent.id, organisation_id=org.id, type_notification="INFORMATION", canal="EMAIL",
                     adresse="recent@example.sn", sujet="Ancien message", corps="Bonjour Recent", statut="ENVOYEE",
                     created_at=vieux),
        Notification(membre_id=recent.id, organisation_id=org.id, type_notification="INFORMATION", canal="EMAIL",
                     adresse="recent@example.sn", sujet="Nouveau", corps="Bonjour encore", statut="ENVOYEE"),
        SmsEntrant(passerelle="TEST", id_passerelle="sms-retention-1", expediteur="+221771112233",
                   texte="SOLDE 1234", mot_cle="SOLDE", membre_id=recent.id, created_at=vieux),
        *(AccesDossier(membre_id=recent.id, organisation_id=org.id, lecteur="tresorier", lecteur_nom="Trésorier",
                       lecteur_roles="TRESORIER", ecran=ecran, lu_le=quand)
          for ecran, quand in (("ancien", utcnow() - timedelta(days=settings.donnees_acces_conservation_jours + 1)),
                               ("recent", utcnow() - timedelta(days=2)))),
    ])
    await db.commit()

    counts = await RETENTION_DONNEES.executer(Contexte(app.state.engine, app.state.sessionmaker, settings))
    assert counts == {**RIEN, "membresEffaces": 1, "membresRedevables": 1, "notificationsEffacees": 1,
                      "smsEffaces": 1, "accesSupprimes": 1}
    assert (await db.execute(select(AccesDossier.ecran))).scalars().all() == ["recent"]

    db.expunge_all()
    noms = dict((await db.execute(select(Membre.id, Membre.nom))).all())
    assert noms[ancien_id] == f"effacé #{ancien_id.hex[:8]}"
    assert noms[redevable_id] == "Redevable" and noms[recent_id] == "Recent"
    efface = (await db.execute(select(Membre).where(Membre.id == ancien_id))).scalar_one()
    assert efface.telephone is None and efface.email is None and efface.date_effacement is not None
    garde = (await db.execute(select(Paiement).where(Paiement.id == avant[0]))).scalar_one()
    assert (garde.id, garde.montant, garde.numero_recu, garde.membre_id) == (*avant, ancien_id)
    corps = sorted((await db.execute(select(Notification.corps))).scalars().all())
    assert corps == ["Bonjour encore", "[effacé]"]
    assert (await db.execute(select(SmsEntrant.texte))).scalars().all() == ["[effacé]"]

    # A second run changes nothing more.
    again = await RETENTION_DONNEES.executer(Contexte(app.state.engine, app.state.sessionmaker, settings))
    assert again == {**RIEN, "membresRedevables": 1}
