"""Consents to sensitive processing (Loi 2008-12): the member for himself, the secretariat from a paper form; a
withdrawal dates the row and keeps it; an aid request of type MALADIE needs SANTE_AIDE in force."""

from __future__ import annotations

from sqlalchemy import select

from tests.factories.donnees_personnelles import consentement
from unionflow.models import AuditLog, Consentement, NoticeInformation

URL = "/api/donnees-personnelles/consentements"
AIDE = "/api/demandes-aide"


def _body(org, finalite="SANTE_AIDE", **values):
    return {"organisationId": str(org.id), "finalite": finalite, "noticeVersion": 2, **values}


def _aide(org, type_="MALADIE"):
    return {"organisationId": str(org.id), "type": type_, "titre": "Hospitalisation à Thiès",
            "description": "Opération", "montantDemande": "50000", "urgence": "NORMALE"}


async def test_member_consents_withdraws_and_consents_again_history_kept(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    notices = (await client.get("/api/donnees-personnelles/notices", headers=membre.headers)).json()
    assert {n["finalite"] for n in notices} == {"ADHESION_SYNDICALE", "SANTE_AIDE"}
    assert all(n["version"] == 2 and "2008-12" in n["texte"] and n["organisationId"] == str(org.id)
               for n in notices)

    given = await client.post(URL, headers=membre.headers, json=_body(org, canal="CONSOLE"))
    assert given.status_code == 201, given.text
    c = given.json()
    assert c["membreId"] == str(membre.membre.id) and c["enVigueur"] and c["canal"] == "CONSOLE"
    assert c["noticeVersion"] == 2 and c["recueilliParNom"] == membre.user.email
    stored = (await db.execute(select(NoticeInformation)
                               .where(NoticeInformation.finalite == "SANTE_AIDE"))).scalar_one()
    assert "santé" in stored.texte  # the text the member read, kept with its version

    twice = await client.post(URL, headers=membre.headers, json=_body(org))
    assert twice.status_code == 409
    old_version = await client.post(URL, headers=membre.headers, json=_body(org, "ADHESION_SYNDICALE",
                                                                            noticeVersion=1))
    assert old_version.status_code == 400 and "version 2" in old_version.json()["detail"]

    withdrawn = await client.post(f"{URL}/{c['id']}/retrait", headers=membre.headers)
    assert withdrawn.status_code == 200 and withdrawn.json()["enVigueur"] is False
    assert withdrawn.json()["retireParNom"] == membre.user.email and withdrawn.json()["retireLe"]
    assert (await client.post(f"{URL}/{c['id']}/retrait", headers=membre.headers)).status_code == 400
    again = await client.post(URL, headers=membre.headers, json=_body(org))
    assert again.status_code == 201

    mine = (await client.get("/api/moi/consentements", headers=membre.headers)).json()
    assert [m["enVigueur"] for m in mine] == [True, False]  # newest first, the withdrawn one kept
    rows = (await db.execute(select(Consentement).where(Consentement.membre_id == membre.membre.id))).scalars()
    assert len(list(rows)) == 2
    actions = (await db.execute(select(AuditLog.type_action).where(AuditLog.module == "DONNEES_PERSONNELLES",
                                                                   AuditLog.organisation_id == org.id))).scalars()
    assert sorted(actions) == ["CONSENTIR", "CONSENTIR", "RETIRER"]


async def test_secretary_records_a_paper_consent_others_cannot(client, factory, db):
    org, other = await factory.organisation(), await factory.organisation()
    membre = await factory.membre(org)
    secretaire = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "SECRETAIRE"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    ailleurs = await factory.actor(["USER"], organisation=other, org_roles=["MEMBRE", "SECRETAIRE"])
    body = _body(org, "ADHESION_SYNDICALE", membreId=str(membre.id), canal="PAPIER")

    assert (await client.post(URL, headers=secretaire.headers, json={**body, "canal": "API"})).status_code == 400
    assert (await client.post(URL, headers=ailleurs.headers, json=body)).status_code == 404
    assert (await client.post(URL, headers=president.headers, json=body)).status_code == 403  # role set
    done = await client.post(URL, headers=secretaire.headers, json=body)
    assert done.status_code == 201, done.text
    assert done.json()["recueilliParNom"] == secretaire.user.email and done.json()["canal"] == "PAPIER"

    listed = await client.get(f"/api/donnees-personnelles/membres/{membre.id}/consentements",
                              headers=president.headers)
    assert listed.status_code == 200 and [c["finalite"] for c in listed.json()] == ["ADHESION_SYNDICALE"]
    hidden = await client.get(f"/api/donnees-personnelles/membres/{membre.id}/consentements",
                              headers=ailleurs.headers)
    assert hidden.status_code == 404
    member_elsewhere = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    other_member = await client.get(f"/api/donnees-personnelles/membres/{membre.id}/consentements",
                                    headers=member_elsewhere.headers)
    assert other_member.status_code == 404  # a member sees his own consents only
    refused = await client.post(f"{URL}/{done.json()['id']}/retrait", headers=member_elsewhere.headers)
    assert refused.status_code == 404


async def test_aid_request_with_health_data_needs_sante_aide(client, factory, db):
    org = await factory.organisation()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    refused = await client.post(AIDE, headers=membre.headers, json=_aide(org))
    assert refused.status_code == 400 and "SANTE_AIDE" in refused.json()["detail"], refused.text
    schooling = await client.post(AIDE, headers=membre.headers, json=_aide(org, "SCOLARITE"))
    assert schooling.status_code == 200  # no health data: no consent needed
    changed = await client.put(f"{AIDE}/{schooling.json()['id']}", headers=membre.headers, json={"type": "MALADIE"})
    assert changed.status_code == 400 and "SANTE_AIDE" in changed.json()["detail"]

    given = await client.post(URL, headers=membre.headers, json=_body(org))
    assert (await client.post(AIDE, headers=membre.headers, json=_aide(org))).status_code == 200
    await client.post(f"{URL}/{given.json()['id']}/retrait", headers=membre.headers)
    again = await client.post(AIDE, headers=membre.headers, json=_aide(org))
    assert again.status_code == 400  # withdrawn: no longer in force


async def test_a_sensitive_data_consent_is_not_taken_by_ussd(client, factory, db):
    """Loi 2008-12 art. 41 2°: written consent, on a notice a USSD screen cannot show (docs/conformite.md D2)."""
    org = await factory.organisation()
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    for finalite in ("SANTE_AIDE", "ADHESION_SYNDICALE"):
        refused = await client.post(URL, headers=membre.headers, json=_body(org, finalite, canal="USSD"))
        assert refused.status_code == 400 and "art. 41" in refused.json()["detail"], refused.text
    assert (await client.get("/api/moi/consentements", headers=membre.headers)).json() == []
    assert (await client.post(URL, headers=membre.headers, json=_body(org, canal="CONSOLE"))).status_code == 201


async def test_consent_is_given_to_one_organisation(client, factory, db):
    a, b = await factory.organisation(), await factory.organisation()
    membre = await factory.actor(["USER"], organisation=a, org_roles=["MEMBRE"])
    await consentement(db, membre.membre.id, b.id)  # given elsewhere (a former membership)
    refused = await client.post(AIDE, headers=membre.headers, json=_aide(a))
    assert refused.status_code == 400
    not_member = await client.post(URL, headers=membre.headers, json=_body(b))
    assert not_member.status_code == 400 and "organisationId" in not_member.json()["detail"]
