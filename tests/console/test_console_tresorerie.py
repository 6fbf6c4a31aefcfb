"""The treasurer's board: open LCB-FT alerts and payouts to approve, listed by the API's own services."""

from __future__ import annotations

import uuid
from decimal import Decimal

from tests.console.connexion import sign_in
from unionflow.models import AlerteLcbFt, Versement


async def _alerte(db, org, membre, montant: str = "6000000") -> AlerteLcbFt:
    row = AlerteLcbFt(organisation_id=org.id, membre_id=membre.id, type_alerte="SEUIL_OPERATION",
                      montant=Decimal(montant), seuil=Decimal("5000000"), devise="XOF",
                      description="Opération au-delà du seuil", traitee=False)
    db.add(row)
    await db.flush()
    return row


async def _versement(db, org, beneficiaire: str, statut: str = "EN_COURS") -> Versement:
    row = Versement(numero=f"VER-T-{uuid.uuid4().hex[:8]}", organisation_id=org.id, montant=Decimal("75000"),
                    devise="XOF", mode="MANUEL", objet_type="AUTRE", motif="Achat de fournitures",
                    beneficiaire_nom=beneficiaire, statut=statut, cle_idempotence=uuid.uuid4().hex,
                    cree_par="Trésorier adjoint")
    db.add(row)
    await db.flush()
    return row


async def test_board_lists_open_alerts_and_payouts_to_approve_with_links(client, factory, db):
    org, other = await factory.organisation(), await factory.organisation()
    admin = await factory.actor(organisation=org, org_roles=["MEMBRE", "ADMIN_ORGANISATION"])
    membre = await factory.membre(org)
    ouverte = await _alerte(db, org, membre)
    traitee = await _alerte(db, org, membre, "7000000")
    traitee.traitee = True
    await _alerte(db, other, await factory.membre(other), "8000000")
    attente = await _versement(db, org, "Librairie Clairafrique")
    await _versement(db, org, "Quincaillerie Sandaga", statut="REUSSI")
    await _versement(db, other, "Imprimerie de Thiès")
    await db.flush()
    await sign_in(client, admin, db)
    board = await client.get("/console/tresorerie")
    assert board.status_code == 200, board.text
    html = board.text
    assert "Alertes LCB-FT ouvertes" in html and "6\u202f000\u202f000" in html
    assert "7\u202f000\u202f000" not in html and "8\u202f000\u202f000" not in html  # treated / other organisation
    assert f'href="/console/membres/{membre.id}"' in html and 'href="/console/alertes"' in html
    assert "Librairie Clairafrique" in html and f"/console/versements#versement-{attente.id}" in html
    assert "Quincaillerie Sandaga" not in html and "Imprimerie de Thiès" not in html
    alertes = await client.get("/console/alertes")
    assert alertes.status_code == 200 and f'id="alerte-{ouverte.id}"' in alertes.text
    versements = await client.get("/console/versements")
    assert versements.status_code == 200 and f'id="versement-{attente.id}"' in versements.text


async def test_treasurer_sees_payouts_but_not_the_alerts_reserved_to_rs_lcb(client, factory, db):
    org = await factory.organisation()
    tresorier = await factory.actor(organisation=org, org_roles=["MEMBRE", "TRESORIER"])
    await _alerte(db, org, await factory.membre(org))
    await _versement(db, org, "Librairie Clairafrique")
    await sign_in(client, tresorier, db)
    board = await client.get("/console/tresorerie")
    assert board.status_code == 200 and "Librairie Clairafrique" in board.text
    # GET /api/alertes-lcb-ft is RS-LCB (ADMIN_ORGANISATION, SUPER_ADMIN): not offered, refused if forced.
    assert "Alertes LCB-FT" not in board.text and "/console/alertes" not in board.text
    forced = await client.get("/console/alertes")
    assert forced.status_code == 403 and "Accès refusé" in forced.text
