"""A form repeated on each row of a list comes back refused with the reason beside THAT row's field: the field is
read as invalid and described by the reason (aria-invalid, aria-describedby), what was typed stays in that row only,
the other rows are untouched — the aids to decide, the cancellations to decide, the payouts (two forms on a row);
a row refused for no field in particular has the reason beside its main field."""

from __future__ import annotations

import re
import uuid
from decimal import Decimal

from sqlalchemy import select

from tests.console.connexion import KEY, sign_in
from tests.factories.cotisations import cotisation
from tests.factories.finance import demande_aide
from unionflow.models import DemandeApprobation, Versement


def _bloc(html: str, start: str, end: str) -> str:
    found = re.search(rf"{re.escape(start)}.*?{re.escape(end)}", html, re.S)
    assert found, html[:3000]
    return found.group(0)


async def test_a_refused_aid_decision_is_marked_on_its_own_row(client, factory, db):
    org = await factory.organisation()
    president = await factory.actor(organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    first = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    second = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    a = await demande_aide(db, org, first.membre, statut="SOUMISE", accorde=None)
    b = await demande_aide(db, org, second.membre, statut="SOUMISE", accorde=None)
    csrf = await sign_in(client, president, db)

    refused = await client.post(f"/console/aides/{a.id}/approuver", data={"csrf": csrf, "montant": "beaucoup",
                                                                         "motif": "Obsèques"})
    assert refused.status_code == 400
    mine = _bloc(refused.text, f'<section class="carte" id="aide-{a.id}"', "</section>")
    other = _bloc(refused.text, f'<section class="carte" id="aide-{b.id}"', "</section>")
    assert f'value="beaucoup" aria-invalid="true" aria-describedby="raison-montant-{a.id}"' in mine
    assert f'<span class="raison" id="raison-montant-{a.id}">' in mine and 'value="Obsèques"' in mine
    assert "aria-invalid" not in other and "raison" not in other and "beaucoup" not in other
    assert 'role="alert"' in refused.text  # and at the top, as every refused form


async def _paiement(client, db, org, tresorier, membre) -> str:
    dues = await cotisation(db, membre.membre, org, 2500)
    paid = await client.post("/api/paiements", headers=tresorier.headers, json={
        "membreId": str(membre.membre.id), "organisationId": str(org.id), "montant": "2500", "methode": "ESPECES",
        "cibles": [{"cotisationId": str(dues.id)}]})
    assert paid.status_code == 201, paid.text
    return str(paid.json()["id"])


async def test_a_rejection_without_reason_is_marked_beside_its_own_request(client, factory, db):
    """The refusal names no field (« Indiquez la raison du rejet »): it stands beside the row's comment field."""
    org = await factory.organisation()
    awa = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    ibou = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    president = await factory.actor(organisation=org, org_roles=["MEMBRE", "PRESIDENT"])
    membre = await factory.actor(organisation=org, org_roles=["MEMBRE"])
    paiements = [await _paiement(client, db, org, awa, membre) for _ in range(2)]
    csrf = await sign_in(client, ibou, db)
    for paiement in paiements:
        page = await client.get(f"/console/paiements/{paiement}")
        asked = await client.post(f"/console/paiements/{paiement}/rembourser", data={
            "csrf": csrf, "idempotency_key": KEY.search(page.text).group(1), "motif": "Double encaissement"})
        assert asked.status_code == 303, asked.text
    demandes = list((await db.execute(select(DemandeApprobation.id).where(
        DemandeApprobation.genre == "ANNULATION", DemandeApprobation.organisation_id == org.id))).scalars())
    assert len(demandes) == 2
    client.cookies.clear()
    csrf = await sign_in(client, president, db)
    refused = await client.post(f"/console/annulations/{demandes[0]}/rejeter", data={"csrf": csrf, "commentaire": ""})
    assert refused.status_code == 400 and "Indiquez la raison du rejet" in refused.text
    mine = _bloc(refused.text, f'<section class="carte" id="demande-{demandes[0]}"', "</section>")
    other = _bloc(refused.text, f'<section class="carte" id="demande-{demandes[1]}"', "</section>")
    assert f'aria-invalid="true" aria-describedby="raison-commentaire-{demandes[0]}"' in mine
    assert f'id="raison-commentaire-{demandes[0]}">Indiquez la raison du rejet' in mine
    assert "aria-invalid" not in other and "raison-commentaire" not in other


async def test_a_payout_cancelled_without_reason_is_marked_on_its_cancel_form_not_its_confirm_form(
        client, factory, db):
    """Two forms on one row (confirm, cancel): the refused one only."""
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    ids = []
    for numero in (1, 2):
        versement = Versement(numero=f"VER-T-{uuid.uuid4().hex[:8]}", organisation_id=org.id, montant=Decimal("5000"),
                              devise="XOF", mode="MANUEL", objet_type="AUTRE", motif="Fournitures",
                              beneficiaire_nom=f"Librairie {numero}", statut="EN_COURS",
                              cle_idempotence=f"lignes-{uuid.uuid4().hex}", cree_par="Trésorier adjoint")
        db.add(versement)
        await db.flush()
        ids.append(versement.id)
    csrf = await sign_in(client, tresorier, db)
    refused = await client.post(f"/console/versements/{ids[0]}/annuler", data={"csrf": csrf, "motif": "x"})
    assert refused.status_code == 400
    cancel = _bloc(refused.text, f'action="/console/versements/{ids[0]}/annuler"', "</form>")
    confirm = _bloc(refused.text, f'action="/console/versements/{ids[0]}/confirmer"', "</form>")
    other = _bloc(refused.text, f'action="/console/versements/{ids[1]}/annuler"', "</form>")
    assert f'value="x" aria-invalid="true" aria-describedby="raison-motif-{ids[0]}-annuler"' in cancel
    assert "Indiquez le motif de l&#39;annulation" in cancel
    assert "aria-invalid" not in confirm and "aria-invalid" not in other
