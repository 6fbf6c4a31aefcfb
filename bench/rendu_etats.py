"""``python -m bench.rendu_etats [--exercice 2023] [--dest docs/etats/bench]``: a year of one of the bench's
organisations (the one with the most entries) through the statements a treasurer prints for the auditor and the
general assembly (issue 30), each rendered to PNG to be looked at, and tied to the books:

- SYCEBNL (normal system): bilan, compte de résultat, flux de trésorerie, notes;
- SMT (minimal cash basis): eligibility test, receipts and expenses, treasury, treasury journal;
- livre d'inventaire, general-assembly pack, donor register, trial balance.

Ties checked on the JSON of the same statements: the balance is balanced; the bilan's assets equal its liabilities;
the cash-flow statement's closing cash equals the class-5 accounts of the trial balance; the income statement's
result equals income (class 7) less expenses (class 6) of the trial balance. The app runs in process (ASGI) on the
bench's PostgreSQL data (bench/datagen.py with its books, bench/livres.py). Writes the PNGs to ``--dest`` and a
summary to bench/results/<stamp>-etats.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pypdfium2 as pdfium

from bench.config import ROOT, SCALES, pg_database, pg_url
from bench.fixtures import ADMIN_EMAIL, PASSWORD, ensure_users
from bench.report import ecrire

PDFS = {
    "sycebnl-bilan": "/api/comptabilite/etats/sycebnl/bilan",
    "sycebnl-compte-resultat": "/api/comptabilite/etats/sycebnl/compte-resultat",
    "sycebnl-flux-tresorerie": "/api/comptabilite/etats/sycebnl/flux-tresorerie",
    "sycebnl-notes": "/api/comptabilite/etats/sycebnl/notes",
    "smt-eligibilite": "/api/comptabilite/etats/smt/eligibilite",
    "smt-recettes-depenses": "/api/comptabilite/etats/smt/recettes-depenses",
    "smt-tresorerie": "/api/comptabilite/etats/smt/tresorerie",
    "smt-journal": "/api/comptabilite/etats/smt/journal",
    "inventaire": "/api/comptabilite/etats/inventaire",
    "assemblee": "/api/comptabilite/assemblee",
}


def _png(content: bytes, path: Path) -> int:
    document = pdfium.PdfDocument(content)
    try:
        document[0].render(scale=1.5).to_pil().save(path)
        return len(document)
    finally:
        document.close()


def _d(value: Any) -> Decimal:
    return Decimal(str(value or 0))


async def _organisation(url: str, annee: int) -> str:
    conn = await asyncpg.connect(url)
    try:
        return str(await conn.fetchval("SELECT organisation_id FROM ecriture_comptable WHERE annee = $1 "
                                       "GROUP BY 1 ORDER BY count(*) DESC LIMIT 1", annee))
    finally:
        await conn.close()


async def rendre(database: str, annee: int, dest: Path) -> dict[str, Any]:
    from unionflow.app import create_app
    from unionflow.config import Settings

    url = pg_url(database)
    await ensure_users(url.replace("postgresql://", "postgresql+asyncpg://"))
    org = await _organisation(url, annee)
    app = create_app(Settings(database_url=url.replace("postgresql://", "postgresql+asyncpg://")))
    rendus: dict[str, Any] = {}
    async with app.router.lifespan_context(app), httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://bench", timeout=600) as client:
        tok = (await client.post("/api/auth/token", data={
            "grant_type": "password", "username": ADMIN_EMAIL, "password": PASSWORD})).json()["access_token"]
        client.headers["Authorization"] = f"Bearer {tok}"
        params = {"organisationId": org, "exercice": str(annee)}
        for nom, path in PDFS.items():
            # The assembly that approves the year's accounts sits within six months of its end (AUDCIF art. 23).
            extra = {"dateAssemblee": f"{annee + 1}-05-30"} if nom == "assemblee" else {}
            response = await client.get(path, params={**params, **extra, "format": "pdf"})
            rendus[nom] = {"status": response.status_code}
            if response.status_code == 200:
                rendus[nom]["pages"] = _png(response.content, dest / f"{nom}-1.png")
            else:
                rendus[nom]["erreur"] = response.text[:300]
        periode = {"organisationId": org, "dateDebut": f"{annee}-01-01", "dateFin": f"{annee}-12-31"}
        for nom, path, query in (("registre-dons", "/api/comptabilite/registre-dons",
                                  {"organisationId": org, "debut": f"{annee}-01-01", "fin": f"{annee}-12-31"}),
                                 ("balance", "/api/comptabilite/etats/balance", periode)):
            response = await client.get(path, params={**query, "format": "pdf"})
            rendus[nom] = {"status": response.status_code}
            if response.status_code == 200:
                rendus[nom]["pages"] = _png(response.content, dest / f"{nom}-1.png")
        liens = await _liens(client, params, periode)
    return {"organisation": org, "exercice": annee, "rendus": rendus, "liens": liens}


async def _liens(client: httpx.AsyncClient, params: dict[str, str], periode: dict[str, str]) -> dict[str, Any]:
    """The ties, from the JSON of the same statements."""
    balance = (await client.get("/api/comptabilite/etats/balance", params=periode)).json()
    classe = {c: sum((_d(lg["soldeDebiteur"]) - _d(lg["soldeCrediteur"]) for lg in balance["lignes"]
                      if lg["classe"] == c), Decimal(0)) for c in (5, 6, 7)}
    flux = (await client.get("/api/comptabilite/etats/sycebnl/flux-tresorerie", params=params)).json()
    bilan = (await client.get("/api/comptabilite/etats/sycebnl/bilan", params=params)).json()
    resultat = (await client.get("/api/comptabilite/etats/sycebnl/compte-resultat", params=params)).json()
    return {"balance_equilibree": balance["equilibree"], "classe_5": str(classe[5]),
            "flux": {k: v for k, v in flux.items() if "tresorerie" in k.lower() or "ecart" in k.lower()},
            "bilan": {k: v for k, v in bilan.items() if k.lower().startswith("total") or "equilibr" in k.lower()},
            "produits_moins_charges": str(-classe[7] - classe[6]),
            "compte_resultat": {k: v for k, v in resultat.items() if "resultat" in k.lower()}}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.rendu_etats", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exercice", type=int, default=2023)
    parser.add_argument("--dest", default=str(ROOT / "docs" / "etats" / "bench"))
    args = parser.parse_args()
    Path(args.dest).mkdir(parents=True, exist_ok=True)
    result = asyncio.run(rendre(pg_database(SCALES["default"]), args.exercice, Path(args.dest)))
    ecrire(result, "etats", None, datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ"))
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
