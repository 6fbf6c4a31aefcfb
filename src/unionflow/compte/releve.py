"""The member's statement of account (« relevé de compte »), month by month, as a bank statement reads: what was
called (dues falling due that month), what was paid (money received that month for his dues and adhesion), and the
running balance from the balance brought forward on 1 January (called minus paid in earlier years; negative: paid
ahead). Figures are as of today: a payment cancelled later is no longer on it, as on the account's totals."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.compte.repository import ZERO, CompteRepository
from unionflow.compte.schemas import LigneReleveResponse, MoisReleveResponse, ReleveCompteResponse
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound
from unionflow.paiements.rapport_repository import PaiementRapportSystemRepository

MOIS = ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre",
        "décembre")
ORIGINE = date(1900, 1, 1)


def _instant(jour: date) -> datetime:
    return datetime.combine(jour, time.min, UTC)


class ReleveService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = CompteRepository(session)
        self.paiements = PaiementRapportSystemRepository(session)

    async def _lignes(self, membre_id: uuid.UUID, debut: date, fin: date,
                      organisation_id: uuid.UUID | None) -> list[LigneReleveResponse]:
        lignes = [LigneReleveResponse(jour=c.date_echeance, libelle=c.libelle or f"Cotisation {c.mois or ''}/{c.annee}",
                                      reference=c.numero_reference, appele=c.montant_du, paye=ZERO)
                  for c in await self.repo.appels(membre_id, debut, fin, organisation_id)]
        for p in await self.paiements.recus(membre_id, _instant(debut), _instant(fin), organisation_id):
            recu = (p.date_paiement or p.created_at).date()
            lignes.append(LigneReleveResponse(jour=recu, libelle=f"Paiement reçu ({p.methode.lower()})",
                                              reference=p.numero_recu, appele=ZERO, paye=p.montant))
        return sorted(lignes, key=lambda lg: (lg.jour, lg.paye > ZERO, lg.reference))

    async def releve(self, annee: int, organisation_id: uuid.UUID | None) -> ReleveCompteResponse:
        membre = await self.repo.membre(self.auth.membre_id) if self.auth.membre_id else None
        if membre is None:
            raise NotFound("Aucune fiche membre n'est liée à votre compte")
        if organisation_id is not None and organisation_id not in self.auth.member_organisations:
            raise NotFound("Organisation introuvable")
        debut = date(annee, 1, 1)
        avant = await self._lignes(membre.id, ORIGINE, debut, organisation_id)
        report = sum((lg.appele - lg.paye for lg in avant), ZERO)
        lignes = await self._lignes(membre.id, debut, date(annee + 1, 1, 1), organisation_id)
        mois: list[MoisReleveResponse] = []
        solde = report
        for numero in range(1, 13):
            du_mois = [lg for lg in lignes if lg.jour.month == numero]
            appele = sum((lg.appele for lg in du_mois), ZERO)
            paye = sum((lg.paye for lg in du_mois), ZERO)
            solde += appele - paye
            mois.append(MoisReleveResponse(mois=numero, libelle=f"{MOIS[numero - 1]} {annee}", appele=appele,
                                           paye=paye, solde=solde, lignes=du_mois))
        return ReleveCompteResponse(
            membre_id=membre.id, numero_membre=membre.numero_membre, nom_complet=f"{membre.prenom} {membre.nom}",
            organisation_id=organisation_id, annee=annee, devise="XOF", report=report,
            total_appele=sum((m.appele for m in mois), ZERO), total_paye=sum((m.paye for m in mois), ZERO),
            solde=solde, mois=mois)

