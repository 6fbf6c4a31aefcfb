"""The closing pack names, for each cancellation and refund of the month, who asked, who approved and why (issue
19, item 3), read from the approved undo request — two different people, neither of them who recorded the money.
The payments are undone through the API; their date is then moved into last month (the only month one can
close), as if the approvals had been given then."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from tests.factories.paiements import defaire
from tests.paiements.annulations.test_quatre_yeux import _paiement
from tests.pdf import pdf_text
from unionflow.models import DemandeApprobation, Paiement
from unionflow.models.annulation import VueAnnulation

FIN = datetime.now(UTC).date().replace(day=1) - timedelta(days=1)  # last day of last month
URL = "/api/comptabilite/clotures-mensuelles"


async def _people(factory):
    org = await factory.organisation(nom="Mutuelle des pêcheurs de Joal")
    # Short e-mails: the pack's narrow columns keep each name on one line.
    roles = ("TRESORIER", "TRESORIER", "PRESIDENT", "ADMIN_ORGANISATION")
    people = [await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE", role],
                                  email=f"{role[:3].lower()}{i}{uuid.uuid4().hex[:4]}@ex.sn")
              for i, role in enumerate(roles)]
    membre = await factory.actor(["USER"], organisation=org, org_roles=["MEMBRE"])
    return org, people, membre


async def test_closing_pack_names_who_asked_and_who_approved_each_undoing(client, factory, db):
    org, (tresorier, second, president, admin), membre = await _people(factory)
    undone = []
    for verbe, demandeur, approbateur, motif in (("annuler", second, president, "Saisie en double au guichet"),
                                                  ("rembourser", tresorier, admin, "Départ du membre pour Mbour")):
        paiement, _ = await _paiement(client, db, org, tresorier, membre)
        done = await defaire(client, f"/api/paiements/{paiement['id']}/{verbe}", demandeur, approbateur, motif)
        assert done.status_code == 200, done.text
        undone.append((paiement["numeroRecu"], done.json()["id"], motif))
    for p in (await db.execute(select(Paiement).where(Paiement.organisation_id == org.id))).scalars():
        p.updated_at = datetime.combine(FIN.replace(day=12), datetime.min.time(), tzinfo=UTC)
    await db.flush()

    closed = await client.post(URL, headers=tresorier.headers, json={
        "organisationId": str(org.id), "annee": FIN.year, "mois": FIN.month, "caisseComptee": "0",
        "soldeBanque": "0", "soldeWave": "0"})
    assert closed.status_code == 201, closed.text
    pack = await client.get(f"{URL}/{closed.json()['id']}/dossier", headers=president.headers)
    assert pack.status_code == 200 and pack.headers["content-type"] == "application/pdf"
    text = pdf_text(pack.content)
    section = " ".join(text[text.index("6. Annulations et remboursements du mois"):].split())
    for numero, demande_id, motif in undone:
        row = await db.get(DemandeApprobation, uuid.UUID(demande_id))
        assert row is not None
        demande = VueAnnulation(row)
        assert demande is not None and demande.statut == "APPROUVEE"
        assert demande.demande_par != demande.decide_par and tresorier.user.email != demande.decide_par
        row = section[section.index(numero):]
        for expected in (demande.demande_par, demande.decide_par, motif.split()[0]):
            assert expected in row[:400], (expected, row[:400])
    assert section.index(undone[0][0]) < section.index("Annulé") < section.index(undone[1][0])
    assert "Remboursé" in section[section.index(undone[1][0]):]
