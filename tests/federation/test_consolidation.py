"""The federation sees its network (issue 20 item 6): consolidated figures of every organisation under it, read by
its bureau only; the quote-part a mutual pays is one operation booked on both sides and eliminated on
consolidation."""

from __future__ import annotations

import os
import uuid
from datetime import date, timedelta
from decimal import Decimal

from tests.factories.cotisations import cotisation
from tests.factories.federation import reseau
from tests.factories.paiements import encaisser
from tests.livres import lignes_par_compte
from tests.pdf import pdf_page_image, pdf_text


async def test_federation_bureau_sees_members_dues_arrears_and_treasuries_of_its_mutuals(client, factory, db):
    r = await reseau(factory)
    await encaisser(client, db, r.mutuelle, r.tresorier, r.membres[0], "5000", "VIREMENT")
    await encaisser(client, db, r.mutuelle, r.tresorier, r.membres[1], "2500", "ESPECES")
    await encaisser(client, db, r.soeur, r.tresorier_soeur, r.membres[2], "3000", "VIREMENT")
    await cotisation(db, r.membres[2].membre, r.soeur, "1500", echeance=date.today() - timedelta(days=10),
                     statut="EN_RETARD")

    answer = await client.get(f"/api/federations/{r.federation.id}/consolidation",
                              headers=r.tresorier_federation.headers)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    par_org = {o["organisationId"]: o for o in body["organisations"]}
    assert list(par_org) == [str(r.federation.id), *sorted(
        (str(r.mutuelle.id), str(r.soeur.id)), key=lambda i: {str(r.mutuelle.id): r.mutuelle.nom,
                                                               str(r.soeur.id): r.soeur.nom}[i])]
    mutuelle, soeur = par_org[str(r.mutuelle.id)], par_org[str(r.soeur.id)]
    assert mutuelle["membresActifs"] == 5 and soeur["membresActifs"] == 2  # bureau members are members too
    assert mutuelle["cotisationsEncaissees"] == "7500.00" and soeur["cotisationsEncaissees"] == "3000.00"
    assert soeur["cotisationsEnRetard"] == 1 and soeur["montantEnRetard"] == "1500.00"
    assert {t["numeroCompte"]: t["solde"] for t in mutuelle["tresorerie"]} == {"521": "5000.00", "571": "2500.00"}
    total = body["total"]
    assert total["membresActifs"] == sum(o["membresActifs"] for o in body["organisations"]) == 9
    assert total["cotisationsEncaissees"] == "10500.00"
    assert {t["numeroCompte"]: t["solde"] for t in total["tresorerie"]} == {"521": "8000.00", "571": "2500.00"}
    assert total["tresorerieTotale"] == "10500.00" and total["montantEnRetard"] == "1500.00"


async def test_only_the_federation_bureau_reads_its_consolidation(client, factory, db):
    r = await reseau(factory)
    path = f"/api/federations/{r.federation.id}/consolidation"
    for who in (r.tresorier_federation, r.president_federation):
        assert (await client.get(path, headers=who.headers)).status_code == 200
    superadmin = await factory.actor(["SUPER_ADMIN"], with_membre=False)
    assert (await client.get(path, headers=superadmin.headers)).status_code == 200
    # A mutual's treasurer does not see the federation's roll-up, nor his sister mutual's figures.
    refused = await client.get(path, headers=r.tresorier.headers)
    assert refused.status_code == 403 and "bureau de la fédération" in refused.json()["detail"], refused.text
    sister = await client.get(f"/api/federations/{r.soeur.id}/consolidation", headers=r.tresorier.headers)
    assert sister.status_code == 403
    # His own mutual: itself only.
    own = await client.get(f"/api/federations/{r.mutuelle.id}/consolidation", headers=r.tresorier.headers)
    assert own.status_code == 200 and [o["organisationId"] for o in own.json()["organisations"]] == [
        str(r.mutuelle.id)]
    # The federation's treasurer reads a mutual under it (a parent's bureau sees its children).
    child = await client.get(f"/api/federations/{r.mutuelle.id}/consolidation",
                             headers=r.tresorier_federation.headers)
    assert child.status_code == 200
    # A plain member has no route; an unknown or invisible organisation is a 404.
    assert (await client.get(path, headers=r.membres[0].headers)).status_code == 403
    hidden = await factory.organisation(statut="SUSPENDUE")
    assert (await client.get(f"/api/federations/{hidden.id}/consolidation",
                             headers=r.tresorier.headers)).status_code == 404
    assert (await client.get(f"/api/federations/{uuid.uuid4()}/consolidation",
                             headers=superadmin.headers)).status_code == 404
    bad = await client.get(path, headers=r.tresorier_federation.headers,
                           params={"dateDebut": "2026-05-01", "dateFin": "2026-04-01"})
    assert bad.status_code == 400, bad.text


async def _quote_part(client, r, montant="2000", **extra):
    created = await client.post("/api/federations/quotes-parts", headers=r.tresorier.headers, json={
        "organisationId": str(r.mutuelle.id), "montant": montant, "mode": "MANUEL",
        "motif": "Quote-part 2026, 1er trimestre", **extra})
    assert created.status_code == 201, created.text
    return created.json()


async def test_quote_part_is_one_operation_booked_on_both_sides(client, factory, db):
    r = await reseau(factory)
    await encaisser(client, db, r.mutuelle, r.tresorier, r.membres[0], "10000", "VIREMENT")
    qp = await _quote_part(client, r)
    assert qp["objetType"] == "QUOTE_PART" and qp["organisationDestinataireId"] == str(r.federation.id)
    assert qp["beneficiaireNom"] == r.federation.nom and qp["statut"] == "EN_COURS"
    assert qp["numeroRecuDestinataire"] is None
    assert await lignes_par_compte(db, r.federation, qp["numero"]) == {}  # nothing before it leaves
    # Four eyes: its creator does not confirm it.
    own = await client.post(f"/api/versements/{qp['id']}/confirmer", headers=r.tresorier.headers,
                            json={"referenceExterne": "VIR-QP-1"})
    assert own.status_code == 403, own.text
    done = await client.post(f"/api/versements/{qp['id']}/confirmer", headers=r.second.headers,
                             json={"referenceExterne": "VIR-QP-1"})
    assert done.status_code == 200 and done.json()["statut"] == "REUSSI", done.text
    recu = done.json()["numeroRecuDestinataire"]
    # The federation's first quote-part receipt, in its own series (its payment receipts keep theirs gap-free).
    assert recu and recu.startswith("QPR-") and recu.endswith("-000001"), recu
    two = Decimal("2000.00")
    assert await lignes_par_compte(db, r.mutuelle, qp["numero"]) == {"6584": (two, 0), "521": (0, two)}
    assert await lignes_par_compte(db, r.federation, qp["numero"]) == {"521": (two, 0), "7584": (0, two)}
    # The federation's bureau lists what it received; the mutual's treasurer does not read the federation's list.
    recues = await client.get(f"/api/federations/{r.federation.id}/quotes-parts",
                              headers=r.president_federation.headers)
    assert recues.status_code == 200, recues.text
    assert [(q["numero"], q["numeroRecuDestinataire"]) for q in recues.json()["content"]] == [(qp["numero"], recu)]
    assert (await client.get(f"/api/federations/{r.federation.id}/quotes-parts",
                             headers=r.tresorier.headers)).status_code == 403
    # The federation's treasurer finds it in his books (the mutual's side stays the mutual's).
    books = await client.get("/api/comptabilite/etats/balance", headers=r.tresorier_federation.headers,
                             params={"organisationId": str(r.federation.id)})
    assert books.status_code == 200, books.text
    assert {lg["numeroCompte"] for lg in books.json()["lignes"]} == {"521", "7584"}


async def test_quote_part_rules(client, factory, db):
    r = await reseau(factory)
    lone = await factory.organisation()
    treasurer = await factory.actor(["USER"], organisation=lone, org_roles=["MEMBRE", "TRESORIER"])
    orphan = await client.post("/api/federations/quotes-parts", headers=treasurer.headers, json={
        "organisationId": str(lone.id), "montant": "1000", "mode": "MANUEL", "motif": "Quote-part"})
    assert orphan.status_code == 400 and "fédération" in orphan.json()["detail"], orphan.text
    # Through the plain payout route a quote-part would have no receiver.
    plain = await client.post("/api/versements", headers=r.tresorier.headers, json={
        "organisationId": str(r.mutuelle.id), "montant": "1000", "mode": "MANUEL", "objetType": "QUOTE_PART",
        "motif": "Quote-part", "beneficiaireNom": "Fédération"})
    assert plain.status_code == 400, plain.text
    # Wave: the federation's number is needed (none registered here).
    wave = await client.post("/api/federations/quotes-parts", headers=r.tresorier.headers, json={
        "organisationId": str(r.mutuelle.id), "montant": "1000", "mode": "WAVE", "motif": "Quote-part"})
    assert wave.status_code == 400, wave.text
    # Another mutual's treasurer does not pay for it; the federation's treasurer does not initiate it.
    for who, code in ((r.tresorier_soeur, 404), (r.tresorier_federation, 404)):
        other = await client.post("/api/federations/quotes-parts", headers=who.headers, json={
            "organisationId": str(r.mutuelle.id), "montant": "1000", "mode": "MANUEL", "motif": "Quote-part"})
        assert other.status_code == code, other.text
    unknown = await client.post("/api/federations/quotes-parts", headers=r.tresorier.headers, json={
        "organisationId": str(r.mutuelle.id), "montant": "1000", "mode": "MANUEL", "motif": "Quote-part",
        "numero": "X"})
    assert unknown.status_code == 400


async def test_consolidated_statements_eliminate_the_quote_part(client, factory, db):
    r = await reseau(factory)
    await encaisser(client, db, r.mutuelle, r.tresorier, r.membres[0], "10000", "VIREMENT")
    await encaisser(client, db, r.soeur, r.tresorier_soeur, r.membres[2], "4000", "VIREMENT")
    qp = await _quote_part(client, r, "2000")
    await client.post(f"/api/versements/{qp['id']}/confirmer", headers=r.second.headers,
                      json={"referenceExterne": "VIR-QP-1"})
    answer = await client.get(f"/api/federations/{r.federation.id}/etats-consolides",
                              headers=r.president_federation.headers)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    lignes = {lg["numeroCompte"]: lg for lg in body["balance"]}
    assert lignes["6584"]["debitCumule"] == "2000.00" and lignes["6584"]["debitEliminations"] == "2000.00"
    assert lignes["6584"]["debitConsolide"] == "0.00"
    assert lignes["7584"]["creditEliminations"] == "2000.00" and lignes["7584"]["creditConsolide"] == "0.00"
    assert lignes["521"]["debitEliminations"] == "0.00"  # the money did move from bank to bank
    assert lignes["7061"]["creditConsolide"] == "14000.00"
    totaux = body["totauxBalance"]
    assert totaux["debitConsolide"] == totaux["creditConsolide"]
    assert body["resultat"]["eliminations"] == "0.00"
    assert body["resultat"]["consolide"] == body["resultat"]["cumule"] == "14000.00"
    assert body["totalProduits"]["consolide"] == "14000.00" and body["totalCharges"]["consolide"] == "0.00"
    assert body["piecesEliminees"] == [qp["numero"]]
    par_org = {o["organisationId"]: o["resultat"] for o in body["resultatsParOrganisation"]}
    assert par_org == {str(r.federation.id): "2000.00", str(r.mutuelle.id): "8000.00", str(r.soeur.id): "4000.00"}
    # The balance sheet: Σ of each organisation's own, balanced, its result the consolidated one.
    bilan = body["bilan"]
    assert bilan["equilibre"] and bilan["totalActif"] == bilan["totalPassif"] == "14000.00"
    assert {p["numeroCompte"]: p["montant"] for r in bilan["actif"] for p in r["postes"]} == {"521": "14000.00"}
    assert [r["total"] for r in bilan["passif"] if r["rubrique"].startswith("Résultat")] == ["14000.00"]
    # Seen from the mutual alone, the quote-part is a real expense: nothing to eliminate.
    seul = (await client.get(f"/api/federations/{r.mutuelle.id}/etats-consolides",
                             headers=r.tresorier.headers)).json()
    assert seul["piecesEliminees"] == [] and seul["resultat"]["consolide"] == "8000.00"


async def test_cancelled_quote_part_is_reversed_on_both_sides_after_a_second_approval(client, factory, db):
    r = await reseau(factory)
    await encaisser(client, db, r.mutuelle, r.tresorier, r.membres[0], "10000", "VIREMENT")
    qp = await _quote_part(client, r, "3000")
    await client.post(f"/api/versements/{qp['id']}/confirmer", headers=r.second.headers,
                      json={"referenceExterne": "VIR-QP-2"})
    asked = await client.post(f"/api/versements/{qp['id']}/annuler", headers=r.tresorier.headers,
                              json={"motif": "Montant erroné: le trimestre était déjà payé"})
    assert asked.status_code == 202, asked.text
    assert await lignes_par_compte(db, r.federation, f"ANN-{qp['numero']}") == {}
    ok = await client.post(f"/api/annulations/{asked.json()['id']}/approuver", headers=r.president.headers,
                           json={})
    assert ok.status_code == 200, ok.text
    three = Decimal("3000.00")
    assert await lignes_par_compte(db, r.mutuelle, f"ANN-{qp['numero']}") == {"6584": (0, three), "521": (three, 0)}
    assert await lignes_par_compte(db, r.federation, f"ANN-{qp['numero']}") == {"521": (0, three),
                                                                             "7584": (three, 0)}
    etats = (await client.get(f"/api/federations/{r.federation.id}/etats-consolides",
                              headers=r.tresorier_federation.headers)).json()
    lignes = {lg["numeroCompte"]: lg for lg in etats["balance"]}
    assert lignes["6584"]["debitConsolide"] == lignes["6584"]["creditConsolide"] == "0.00"
    assert lignes["7584"]["debitConsolide"] == lignes["7584"]["creditConsolide"] == "0.00"
    assert etats["resultat"]["eliminations"] == "0.00"


async def test_federation_dashboard_counts_its_network_beside_its_own_figures(client, factory, db):
    r = await reseau(factory)
    answer = await client.get("/api/dashboard/organisation", headers=r.tresorier_federation.headers,
                              params={"organisationId": str(r.federation.id)})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["nombreMembres"] == 2  # its own bureau: its books and members stay its own
    assert body["reseau"] == {"nombreOrganisations": 2, "nombreMembres": 9,
                              "consolidation": f"/api/federations/{r.federation.id}/consolidation"}
    mutual = (await client.get("/api/dashboard/organisation", headers=r.tresorier.headers,
                               params={"organisationId": str(r.mutuelle.id)})).json()
    assert mutual["nombreMembres"] == 5 and mutual["reseau"] is None


async def test_consolidated_statements_print_as_pdf_and_xlsx(client, factory, db):
    r = await reseau(factory)
    await encaisser(client, db, r.mutuelle, r.tresorier, r.membres[0], "10000", "VIREMENT")
    qp = await _quote_part(client, r, "2000")
    await client.post(f"/api/versements/{qp['id']}/confirmer", headers=r.second.headers,
                      json={"referenceExterne": "VIR-QP-1"})
    path = f"/api/federations/{r.federation.id}/etats-consolides"
    printed = await client.get(path, headers=r.tresorier_federation.headers, params={"format": "pdf"})
    assert printed.status_code == 200 and printed.content.startswith(b"%PDF"), printed.text[:200]
    assert printed.headers["content-type"] == "application/pdf"
    text = pdf_text(printed.content)
    assert "États consolidés" in text and r.federation.nom in text and "Éliminations" in text
    assert qp["numero"] in text  # the eliminated piece is named
    # Fit to sign like each organisation's statements: page numbers, who printed it, the three signatories.
    assert "Page 1 / " in text and "Édité le" in text
    assert all(s.upper() in text.upper() for s in ("Le Trésorier", "Le Président", "Le Commissaire aux comptes"))
    if os.environ.get("UNIONFLOW_PDF_PNG"):
        pdf_page_image(printed.content).save(os.environ["UNIONFLOW_PDF_PNG"])
    book = await client.get(path, headers=r.tresorier_federation.headers, params={"format": "xlsx"})
    assert book.status_code == 200 and book.content.startswith(b"PK")
    assert (await client.get(path, headers=r.tresorier.headers, params={"format": "pdf"})).status_code == 403


async def test_wave_quote_part_goes_to_the_federation_number_and_lands_in_its_wave_account(client, factory, db,
                                                                                          wave):
    r = await reseau(factory)
    r.federation.telephone = "+221770000042"
    await db.flush()
    await encaisser(client, db, r.mutuelle, r.tresorier, r.membres[0], "10000", "VIREMENT")
    created = await client.post("/api/federations/quotes-parts", headers=r.tresorier.headers, json={
        "organisationId": str(r.mutuelle.id), "montant": "1500", "mode": "WAVE", "motif": "Quote-part de mars"})
    assert created.status_code == 201, created.text
    qp = created.json()
    assert qp["beneficiaireTelephone"] == "+221770000042"
    done = await client.post(f"/api/versements/{qp['id']}/confirmer", headers=r.second.headers)
    assert done.status_code == 200 and done.json()["statut"] == "REUSSI", done.text
    sent = [req for req in wave.requests if req[1] == "/v1/payout"]
    assert len(sent) == 1
    amount = Decimal("1500.00")
    assert await lignes_par_compte(db, r.mutuelle, qp["numero"]) == {"6584": (amount, 0), "5521": (0, amount)}
    assert await lignes_par_compte(db, r.federation, qp["numero"]) == {"5521": (amount, 0), "7584": (0, amount)}


async def test_quote_part_replayed_with_its_idempotency_key_is_prepared_once(client, factory, db):
    r = await reseau(factory)
    body = {"organisationId": str(r.mutuelle.id), "montant": "2000", "mode": "MANUEL", "motif": "Quote-part"}
    headers = {**r.tresorier.headers, "Idempotency-Key": f"qp-{uuid.uuid4()}"}
    first = await client.post("/api/federations/quotes-parts", headers=headers, json=body)
    again = await client.post("/api/federations/quotes-parts", headers=headers, json=body)
    assert first.status_code == again.status_code == 201, again.text
    assert first.json()["id"] == again.json()["id"]
    listed = await client.get("/api/versements", headers=r.tresorier.headers, params={"objetType": "QUOTE_PART"})
    assert listed.json()["totalElements"] == 1, listed.text
