"""One four-eyes mechanism: people are compared by person key (issuer, subject), never by display name, and one
« À approuver » list gathers every kind the caller may decide."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import update

from tests.console.connexion import sign_in
from tests.factories.cotisations import cotisation
from tests.factories.finance import bureau
from tests.security.test_external_oidc import ISSUER, _auth, external, jwks  # noqa: F401 (fixtures)
from unionflow.auth.service import TokenService
from unionflow.models import UtilisateurLocal

APP = "/api/finance/approbations"
A_APPROUVER = "/api/approbations/a-approuver"
VERROU = "/api/comptabilite/verrouillage"


async def _demande(client, headers, org_id, montant="100000") -> dict:
    r = await client.post(APP, headers=headers, json={
        "organisationId": str(org_id), "typeObjet": "AUTRE", "montant": montant, "motif": "Fournitures"})
    assert r.status_code == 201, r.text
    return r.json()


async def test_a_person_holding_two_roles_never_decides_his_own_request(client, factory, db, settings):
    org = await factory.organisation()
    double = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER", "PRESIDENT"])
    demande = await _demande(client, double.in_org(org.id, "TRESORIER"), org.id)

    refused = await client.post(f"{APP}/{demande['id']}/approuver", headers=double.in_org(org.id, "PRESIDENT"))
    assert refused.status_code == 403 and "propre demande" in refused.json()["detail"]
    # The same person under another display name (his address changed, a new token): still himself.
    await db.execute(update(UtilisateurLocal).where(UtilisateurLocal.id == double.user.id)
                     .values(email=f"renomme.{uuid.uuid4().hex[:6]}@example.sn"))
    await db.flush()
    await db.refresh(double.user)
    renamed, _ = await TokenService(db, settings).access_token(double.user)
    headers = {"Authorization": f"Bearer {renamed}", "X-Active-Organisation-Id": str(org.id),
               "X-Active-Role": "PRESIDENT"}
    assert (await client.post(f"{APP}/{demande['id']}/approuver", headers=headers)).status_code == 403
    # Nor is it in his « À approuver » list, while a second person's is.
    assert (await client.get(A_APPROUVER, headers=double.in_org(org.id, "PRESIDENT"))).json()["content"] == []
    b = await bureau(factory)
    autre = await _demande(client, b.tresorier.headers, b.org.id)
    listed = (await client.get(A_APPROUVER, headers=b.president.headers)).json()["content"]
    assert [(d["id"], d["genre"], d["chemin"]) for d in listed] == [
        (autre["id"], "FINANCE", f"{APP}/{autre['id']}")]
    approved = await client.post(f"{APP}/{autre['id']}/approuver", headers=b.president.headers)
    assert approved.status_code == 200 and approved.json()["statut"] == "APPROUVEE"
    assert (await client.get(A_APPROUVER, headers=b.president.headers)).json()["content"] == []


async def test_another_person_with_the_same_display_name_may_decide(jwks, external, factory, db):  # noqa: F811
    """A president of another issuer whose token shows the requester's very address is another person."""
    server, _url = jwks
    org = await factory.organisation()
    tresorier = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    sub = f"president-{uuid.uuid4().hex[:8]}"
    await factory.membre(org, ["MEMBRE", "PRESIDENT"], user_iss=ISSUER, user_sub=sub, email=None)
    if "homonyme" not in server.keys:
        server.new_key("homonyme")
    server.published = ["homonyme"]
    president = _auth(server.token("homonyme", ["USER"], sub=sub, email=tresorier.user.email,
                                   preferred_username=tresorier.user.email))
    demande = await _demande(external, tresorier.headers, org.id)

    listed = (await external.get(A_APPROUVER, headers=president)).json()["content"]
    assert [d["id"] for d in listed] == [demande["id"]]
    approved = await external.post(f"{APP}/{demande['id']}/approuver", headers=president)
    assert approved.status_code == 200, approved.text
    assert approved.json()["statut"] == "APPROUVEE"
    assert approved.json()["decisions"][0]["approbateur"] == tresorier.user.email == approved.json()["demandePar"]


async def test_a_reopening_asked_as_treasurer_is_not_decided_by_the_same_person_as_president(client, factory):
    org = await factory.organisation()
    double = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER", "PRESIDENT"])
    president = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    today = datetime.now(UTC).date()
    tresorier = double.in_org(org.id, "TRESORIER")
    locked = await client.put(VERROU, headers=tresorier, json={"organisationId": str(org.id),
                                                               "dateVerrouillage": today.isoformat()})
    assert locked.status_code == 200, locked.text
    asked = await client.post(f"{VERROU}/deverrouillages", headers=tresorier, json={
        "organisationId": str(org.id), "dateVerrouillage": (today - timedelta(days=30)).isoformat(),
        "motif": "Facture du mois oubliée"})
    assert asked.status_code == 201, asked.text
    demande = asked.json()

    refused = await client.post(f"{VERROU}/deverrouillages/{demande['id']}/approuver",
                                headers=double.in_org(org.id, "PRESIDENT"), json={})
    assert refused.status_code == 403 and "propre demande" in refused.json()["detail"]
    assert (await client.get(A_APPROUVER, headers=double.in_org(org.id, "PRESIDENT"))).json()["content"] == []
    listed = (await client.get(A_APPROUVER, headers=president.headers)).json()["content"]
    assert [(d["genre"], d["chemin"]) for d in listed] == [
        ("REOUVERTURE", f"{VERROU}/deverrouillages/{demande['id']}")]
    approved = await client.post(f"{VERROU}/deverrouillages/{demande['id']}/approuver", headers=president.headers,
                                 json={"commentaire": "Vu"})
    assert approved.status_code == 200 and approved.json()["statut"] == "APPROUVEE", approved.text
    assert approved.json()["roleDecideur"] == "PRESIDENT"


async def test_the_console_lists_what_the_caller_may_decide(client, factory, db):
    b = await bureau(factory)
    demande = await _demande(client, b.tresorier.headers, b.org.id)
    await sign_in(client, b.president, db)
    page = await client.get("/console/a-approuver")
    assert page.status_code == 200 and demande["numero"] in page.text and 'href="/console/versements"' in page.text
    menu = page.text.split('<nav aria-label="Menu principal">', 1)[1].split("</nav>", 1)[0]
    assert 'href="/console/a-approuver"' in menu
    client.cookies.clear()
    await sign_in(client, b.tresorier, db)
    mine = await client.get("/console/a-approuver")
    assert mine.status_code == 200 and demande["numero"] not in mine.text and "Rien à approuver" in mine.text


async def test_who_recorded_a_payment_never_approves_its_undoing_under_another_role_or_name(client, factory, db,
                                                                                          settings):
    """The recorder is excluded by person key: as president, and after his display name changed."""
    org = await factory.organisation()
    double = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER", "PRESIDENT"])
    second = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    dues = await cotisation(db, membre.membre, org, "2500")
    paid = await client.post("/api/paiements", headers=double.in_org(org.id, "TRESORIER"), json={
        "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": "2500",
        "methode": "ESPECES", "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    asked = await client.post(f"/api/paiements/{paid.json()['id']}/annuler", headers=second.headers,
                              json={"motif": "Saisie en double"})
    assert asked.status_code == 202, asked.text
    demande = asked.json()["id"]
    await db.execute(update(UtilisateurLocal).where(UtilisateurLocal.id == double.user.id)
                     .values(email=f"autre.nom.{uuid.uuid4().hex[:6]}@example.sn"))
    await db.flush()
    await db.refresh(double.user)
    renamed, _ = await TokenService(db, settings).access_token(double.user)
    president = {"Authorization": f"Bearer {renamed}", "X-Active-Organisation-Id": str(org.id),
                 "X-Active-Role": "PRESIDENT"}
    refused = await client.post(f"/api/annulations/{demande}/approuver", headers=president, json={})
    assert refused.status_code == 403 and "enregistré ou confirmé" in refused.json()["detail"]
    listed = (await client.get(A_APPROUVER, headers=president)).json()["content"]
    assert [(d["genre"], d["nature"], d["chemin"]) for d in listed] == [
        ("ANNULATION", "ANNULATION_PAIEMENT", f"/api/annulations/{demande}")]
