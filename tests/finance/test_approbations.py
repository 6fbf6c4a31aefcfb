from __future__ import annotations

import uuid

from sqlalchemy import select

from tests.factories.finance import bureau, demande_aide, seuils
from unionflow.models import AuditLog

URL = "/api/finance/approbations"


def _autre(b, montant="300000", **extra):
    return {"organisationId": str(b.org.id), "typeObjet": "AUTRE", "montant": montant,
            "motif": "Achat d'un groupe électrogène", **extra}


async def test_single_level_approval_and_four_eyes(client, factory, db):
    b = await bureau(factory)
    created = await client.post(URL, headers=b.tresorier.headers, json=_autre(b))
    assert created.status_code == 201, created.text
    body = created.json()
    assert (body["statut"], body["niveauxRequis"], body["niveauAtteint"]) == ("EN_ATTENTE", 1, 0)
    assert body["numero"].startswith("APP-") and body["montant"] == "300000.00" and body["devise"] == "XOF"
    url = f"{URL}/{body['id']}"
    assert (await client.post(f"{url}/approuver", headers=b.tresorier.headers)).status_code == 403
    assert (await client.post(f"{url}/approuver", headers=b.membre.headers)).status_code == 403
    outsider = await bureau(factory)
    assert (await client.post(f"{url}/approuver", headers=outsider.president.headers)).status_code == 404
    todo = await client.get(f"{URL}/a-decider", headers=b.president.headers)
    assert [a["id"] for a in todo.json()["content"]] == [body["id"]]
    approved = await client.post(f"{url}/approuver", headers=b.president.headers, json={"commentaire": "Vu"})
    assert approved.status_code == 200, approved.text
    a = approved.json()
    assert (a["statut"], a["niveauAtteint"]) == ("APPROUVEE", 1) and a["dateDecision"]
    assert [(d["niveau"], d["decision"], d["role"], d["commentaire"]) for d in a["decisions"]] == [
        (1, "APPROUVEE", "PRESIDENT", "Vu")]
    assert (await client.post(f"{url}/approuver", headers=b.admin_org.headers)).status_code == 400
    assert (await client.get(f"{URL}/a-decider", headers=b.president.headers)).json()["content"] == []

    # The organisation's administrator asks: the president decides, not the administrator.
    own = (await client.post(URL, headers=b.admin_org.headers, json=_autre(b, "1000"))).json()
    refused = await client.post(f"{URL}/{own['id']}/approuver", headers=b.admin_org.headers)
    assert refused.status_code == 403 and "quatre yeux" in refused.text
    assert (await client.get(f"{URL}/a-decider", headers=b.admin_org.headers)).json()["content"] == []
    actions = list((await db.execute(select(AuditLog.type_action).where(AuditLog.entite_id == body["id"])
                                     .order_by(AuditLog.date_heure))).scalars())
    assert actions == ["CREER", "APPROUVER"]


async def test_two_levels_from_threshold_and_rejection(client, factory):
    b = await bureau(factory)
    await seuils(client, factory, double="1000000")
    big = (await client.post(URL, headers=b.tresorier.headers, json=_autre(b, "1000000"))).json()
    assert big["niveauxRequis"] == 2
    url = f"{URL}/{big['id']}"
    first = await client.post(f"{url}/approuver", headers=b.president.headers)
    assert (first.json()["statut"], first.json()["niveauAtteint"]) == ("EN_ATTENTE", 1)
    twice = await client.post(f"{url}/approuver", headers=b.president.headers)
    assert twice.status_code == 403
    assert (await client.get(f"{URL}/a-decider", headers=b.president.headers)).json()["content"] == []
    second = await client.post(f"{url}/approuver", headers=b.admin_org.headers)
    assert second.json()["statut"] == "APPROUVEE"
    assert [(d["niveau"], d["role"]) for d in second.json()["decisions"]] == [
        (1, "PRESIDENT"), (2, "ADMIN_ORGANISATION")]

    small = (await client.post(URL, headers=b.tresorier.headers, json=_autre(b, "999999.99"))).json()
    assert small["niveauxRequis"] == 1
    no_comment = await client.post(f"{URL}/{small['id']}/rejeter", headers=b.president.headers, json={})
    assert no_comment.status_code == 400
    rejected = await client.post(f"{URL}/{small['id']}/rejeter", headers=b.president.headers,
                                 json={"commentaire": "Pas prévu au budget"})
    assert rejected.json()["statut"] == "REJETEE" and rejected.json()["decisions"][0]["decision"] == "REJETEE"
    assert (await client.post(f"{URL}/{small['id']}/approuver", headers=b.admin_org.headers)).status_code == 400
    listed = await client.get(URL, headers=b.tresorier.headers, params={"statut": "REJETEE"})
    assert [x["id"] for x in listed.json()["content"]] == [small["id"]]


async def test_cancel_input_rules_and_visibility(client, factory):
    b = await bureau(factory)
    body = (await client.post(URL, headers=b.tresorier.headers, json=_autre(b))).json()
    url = f"{URL}/{body['id']}"
    assert (await client.post(f"{url}/annuler", headers=b.admin_org.headers,
                              json={"motif": "Doublon"})).status_code == 403
    cancelled = await client.post(f"{url}/annuler", headers=b.tresorier.headers, json={"motif": "Doublon"})
    assert cancelled.json()["statut"] == "ANNULEE" and cancelled.json()["motifAnnulation"] == "Doublon"
    assert (await client.post(f"{url}/annuler", headers=b.tresorier.headers,
                              json={"motif": "Encore"})).status_code == 400
    assert (await client.post(f"{url}/approuver", headers=b.president.headers)).status_code == 400

    assert (await client.post(URL, headers=b.tresorier.headers, json=_autre(b, montant=None))).status_code == 400
    assert (await client.post(URL, headers=b.tresorier.headers, json=_autre(b, "0"))).status_code == 400
    assert (await client.post(URL, headers=b.tresorier.headers,
                              json={**_autre(b), "statut": "APPROUVEE"})).status_code == 400
    assert (await client.post(URL, headers=b.tresorier.headers,
                              json={**_autre(b), "typeObjet": "VERSEMENT"})).status_code == 400
    assert (await client.post(URL, headers=b.tresorier.headers,
                              json={**_autre(b), "typeObjet": "VERSEMENT", "objetId": str(uuid.uuid4())})
            ).status_code == 404
    assert (await client.post(URL, headers=b.membre.headers, json=_autre(b))).status_code == 403
    assert (await client.post(URL, headers=b.president.headers, json=_autre(b))).status_code == 403
    other = await bureau(factory)
    assert (await client.post(URL, headers=other.tresorier.headers, json=_autre(b))).status_code == 404
    assert (await client.get(url, headers=other.tresorier.headers)).status_code == 404
    assert (await client.get(url, headers=b.president.headers)).status_code == 200
    admin = await factory.actor(["ADMIN"], with_membre=False)
    assert (await client.get(url, headers=admin.headers)).status_code == 200
    assert (await client.post(f"{url}/approuver", headers=admin.headers)).status_code == 403
    assert (await client.get(f"{URL}/{uuid.uuid4()}", headers=admin.headers)).status_code == 404


async def test_aid_disbursement_request(client, factory, db):
    b = await bureau(factory)
    beneficiaire = await factory.membre(b.org)
    accordee = await demande_aide(db, b.org, beneficiaire)
    soumise = await demande_aide(db, b.org, beneficiaire, statut="SOUMISE", accorde=None)
    aide = {"organisationId": str(b.org.id), "typeObjet": "AIDE", "objetId": str(accordee.id),
            "motif": "Décaissement de l'aide décès"}
    too_much = await client.post(URL, headers=b.tresorier.headers, json={**aide, "montant": "100001"})
    assert too_much.status_code == 400
    created = await client.post(URL, headers=b.tresorier.headers, json=aide)
    assert created.status_code == 201 and created.json()["montant"] == "100000.00"
    duplicate = await client.post(URL, headers=b.tresorier.headers, json=aide)
    assert duplicate.status_code == 409
    not_granted = await client.post(URL, headers=b.tresorier.headers, json={**aide, "objetId": str(soumise.id)})
    assert not_granted.status_code == 400
    other = await bureau(factory)
    foreign = {**aide, "organisationId": str(other.org.id)}
    assert (await client.post(URL, headers=other.tresorier.headers, json=foreign)).status_code == 404
    listed = await client.get(URL, headers=b.president.headers, params={"objetId": str(accordee.id)})
    assert [x["id"] for x in listed.json()["content"]] == [created.json()["id"]]
