"""Loi 2008-12 art. 58: applying to an organisation collects a trade-union membership (sensitive data, art. 40);
the applicant is told at collection who processes it and how — the ADHESION_SYNDICALE notice rendered for that
organisation, in his inbox whatever his preferences, and linked from the API's answer."""

from __future__ import annotations

from sqlalchemy import select

from unionflow.models import Notification, PreferenceMembre

BASE = "/api/adhesions"


async def test_the_applicant_finds_the_notice_in_his_inbox_and_the_answer_links_to_it(client, factory, db):
    org = await factory.organisation(nom="Mutuelle des tailleurs de Thiès")
    applicant = await factory.actor(["MEMBRE"])
    # He refused every notice he may refuse: the information the law requires still reaches his inbox.
    db.add(PreferenceMembre(membre_id=applicant.membre.id, refus_non_obligatoires=True))
    await db.flush()
    response = await client.post(BASE, headers=applicant.headers, json={
        "membreId": str(applicant.membre.id), "organisationId": str(org.id)})
    assert response.status_code == 201, response.text
    link = response.headers["link"]
    assert f"/api/donnees-personnelles/notices?organisationId={org.id}" in link and 'rel="describedby"' in link

    rows = (await db.execute(select(Notification).where(Notification.membre_id == applicant.membre.id,
                                                        Notification.source_type == "Adhesion"))).scalars().all()
    assert [(r.canal, r.statut, r.type_notification) for r in rows] == [("IN_APP", "ENVOYEE", "INFORMATION")]
    corps = rows[0].corps
    assert "Responsable du traitement: Mutuelle des tailleurs de Thiès" in corps
    assert "Durée de conservation" in corps and "Mes données" in corps
    # The same text as the notice the consent is given on.
    notices = (await client.get("/api/donnees-personnelles/notices", headers=applicant.headers,
                                params={"organisationId": str(org.id)})).json()
    adhesion = next(n for n in notices if n["finalite"] == "ADHESION_SYNDICALE")
    assert corps.startswith(adhesion["texte"])

