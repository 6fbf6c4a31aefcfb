"""Erasure (Loi 2008-12): asked by the member (or his register's keeper), decided by a second person, it
pseudonymises the identity everywhere it is shown and leaves the books unchanged to the franc."""

from __future__ import annotations

from sqlalchemy import select

from tests.factories.donnees_membre import dossier
from tests.livres import totaux
from tests.pdf import pdf_text
from unionflow.models import UtilisateurLocal
from unionflow.models.notification import Notification

NOM = "Sarr-Gueye"


async def _verification(client, d, paiement_id):
    text = pdf_text((await client.get(f"/api/paiements/{paiement_id}/recu", headers=d.tresorier.headers)).content)
    link = next(line for line in text.splitlines() if "/api/recus/verifier/" in line).split(" : ", 1)[1].strip()
    return text, (await client.get(link.removeprefix("http://testserver"))).json()


async def test_approved_erasure_pseudonymises_and_keeps_the_books(client, factory, db):
    d = await dossier(client, factory, db)
    membre_id = d.membre.membre.id
    livres_avant = await totaux(db, d.org)
    recu_avant, verifie_avant = await _verification(client, d, d.paiement["id"])
    assert NOM in recu_avant and verifie_avant["authentique"] is True

    demande = await client.post("/api/moi/donnees/effacement", headers=d.membre.headers,
                                json={"motif": "Je quitte l'association et ne veux plus y figurer"})
    assert demande.status_code == 201, demande.text
    assert demande.json()["statut"] == "EN_ATTENTE" and "seconde personne" in demande.json()["reponse"]
    again = await client.post("/api/moi/donnees/effacement", headers=d.membre.headers, json={"motif": "Encore"})
    assert again.status_code == 409
    demande_id = demande.json()["id"]
    # In the decider's list of the four-eyes mechanism.
    a_approuver = (await client.get("/api/approbations/a-approuver", headers=d.president.headers)).json()
    assert demande_id in [r["id"] for r in a_approuver["content"]]

    approuve = await client.post(f"/api/donnees/effacements/{demande_id}/approuver", headers=d.president.headers,
                                 json={"commentaire": "Demande fondée"})
    assert approuve.status_code == 200, approuve.text
    body = approuve.json()
    pseudo = f"Membre effacé #{membre_id.hex[:8]}"
    assert body["statut"] == "APPROUVEE" and pseudo in body["reponse"] and "10 ans" in body["reponse"]

    # Books to the franc, receipts still verify.
    assert await totaux(db, d.org) == livres_avant
    recu_apres, verifie_apres = await _verification(client, d, d.paiement["id"])
    assert verifie_apres == verifie_avant
    assert NOM not in recu_apres and pseudo in recu_apres and d.paiement["numeroRecu"] in recu_apres

    # Name gone from the member API and list.
    fiche = (await client.get(f"/api/membres/{membre_id}", headers=d.president.headers)).json()
    assert f"{fiche['prenom']} {fiche['nom']}" == pseudo and fiche.get("email") is None
    assert fiche.get("telephone") is None and fiche.get("adresse") is None
    liste = await client.get("/api/membres", headers=d.president.in_org(d.org.id), params={"size": 100})
    noms = [f"{m['prenom']} {m['nom']}" for m in liste.json()["content"]]
    assert liste.status_code == 200 and NOM not in liste.text and pseudo in noms
    paiement = (await client.get(f"/api/paiements/{d.paiement['id']}", headers=d.tresorier.headers)).json()
    assert paiement["montant"] in ("7500.00", "7500") and paiement["numeroRecu"] == d.paiement["numeroRecu"]

    # Texts blanked, login disabled and unlinked.
    corps = (await db.execute(select(Notification.corps).where(Notification.membre_id == membre_id)
                              .execution_options(populate_existing=True))).scalars().all()
    assert corps and all(c == "[effacé]" for c in corps)
    compte = (await db.execute(select(UtilisateurLocal).where(UtilisateurLocal.id == d.membre.user.id)
                               .execution_options(populate_existing=True))).scalar_one()
    assert compte.enabled is False and compte.nom is None and "efface" in compte.email
    assert (await client.get("/api/moi/donnees", headers=d.membre.headers)).status_code == 404


async def test_the_requester_never_decides_and_a_member_cannot_decide(client, factory, db):
    d = await dossier(client, factory, db)
    demande = await client.post(f"/api/membres/{d.membre.membre.id}/donnees/effacement", headers=d.admin.headers,
                                json={"motif": "Demande écrite du membre reçue au bureau"})
    assert demande.status_code == 201, demande.text
    path = f"/api/donnees/effacements/{demande.json()['id']}"
    soi = await client.post(f"{path}/approuver", headers=d.admin.headers, json={})
    assert soi.status_code == 403 and "quatre yeux" in soi.json()["detail"]
    assert (await client.post(f"{path}/approuver", headers=d.membre.headers, json={})).status_code == 403
    assert (await client.post(f"{path}/approuver", headers=d.tresorier.headers, json={})).status_code == 403
    # The member follows the request filed for him? Only its requester, deciders and keepers see it.
    assert (await client.get(path, headers=d.tresorier.headers)).status_code == 404
    rejet = await client.post(f"{path}/rejeter", headers=d.president.headers,
                              json={"commentaire": "Dette de cotisation en litige"})
    assert rejet.status_code == 200 and rejet.json()["statut"] == "REJETEE"
    assert rejet.json()["reponse"] == "Votre demande d'effacement a été refusée: Dette de cotisation en litige"
    fiche = (await client.get(f"/api/membres/{d.membre.membre.id}", headers=d.president.headers)).json()
    assert fiche["nom"] == NOM


async def test_a_member_may_not_ask_erasure_of_another(client, factory, db):
    d = await dossier(client, factory, db)
    response = await client.post(f"/api/membres/{d.tresorier.membre.id}/donnees/effacement",
                                 headers=d.membre.headers, json={"motif": "Pas le mien"})
    assert response.status_code == 403
