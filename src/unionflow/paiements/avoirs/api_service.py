"""The credit (avoir) routes: the treasury reads a member's credit and applies it to his oldest dues. The rules
and the ledger are the settlement workflow's (paiements/avoirs/service.py)."""

from __future__ import annotations

import uuid
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.comptabilite.ecritures.tresorerie import solde_compte
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound
from unionflow.core.visibility import staff_sees
from unionflow.membres.repository import MembreRepository
from unionflow.paiements.avoirs.repository import MouvementAvoirRepository
from unionflow.paiements.avoirs.schemas import (
    AvoirResponse,
    ImputationAvoirResponse,
    ImputerAvoirRequest,
    ImputerAvoirResponse,
    LigneRegistreAvoirResponse,
    MouvementAvoirResponse,
    RegistreAvoirsResponse,
)
from unionflow.paiements.avoirs.service import AvoirService
from unionflow.paiements.repository import PaiementRepository


class AvoirApiService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.avoirs = AvoirService(session, auth)

    async def obtenir(self, membre_id: uuid.UUID, organisation_id: uuid.UUID) -> AvoirResponse:
        await self.avoirs.verifier_acces(membre_id, organisation_id, imputer=False)
        mouvements = await self.avoirs.historique(membre_id, organisation_id)
        recus = await PaiementRepository(self.session, self.auth).numeros_recus(list({m.paiement_id
                                                                                     for m in mouvements}))
        return AvoirResponse(
            membre_id=membre_id, organisation_id=organisation_id,
            solde=sum((m.montant for m in mouvements), Decimal("0")),
            mouvements=[MouvementAvoirResponse(
                id=m.id, type_mouvement=m.type_mouvement, montant=m.montant, paiement_id=m.paiement_id,
                numero_recu=recus.get(m.paiement_id, ""), cotisation_id=m.cotisation_id, ecriture_id=m.ecriture_id,
                libelle=m.libelle, cree_par=m.cree_par, created_at=m.created_at) for m in mouvements])

    async def imputer(self, data: ImputerAvoirRequest) -> ImputerAvoirResponse:
        await self.avoirs.verifier_acces(data.membre_id, data.organisation_id, imputer=True)
        faites = await self.avoirs.imputer(data.membre_id, data.organisation_id)
        total = sum((f.montant for f in faites), Decimal("0"))
        await audit.record(self.session, self.auth, action="IMPUTER_AVOIR", module="PAIEMENTS", entite_type="Membre",
                           entite_id=data.membre_id, organisation_id=data.organisation_id,
                           description=f"Avoir imputé sur {len(faites)} cotisation(s): {total}")
        return ImputerAvoirResponse(
            membre_id=data.membre_id, organisation_id=data.organisation_id, montant_impute=total,
            solde=await self.avoirs.solde(data.membre_id, data.organisation_id),
            imputations=[ImputationAvoirResponse(
                cotisation_id=f.cotisation.id, numero_reference=f.cotisation.numero_reference, montant=f.montant,
                paiement_id=f.paiement.id, numero_recu=f.paiement.numero_recu) for f in faites])

    async def registre(self, organisation_id: uuid.UUID) -> RegistreAvoirsResponse:
        """The credit ledger: what the organisation holds for each member, beside account 4191 in its books
        (the auditor ties one to the other)."""
        if not staff_sees(self.auth, organisation_id):
            raise NotFound("Organisation introuvable")
        soldes = await MouvementAvoirRepository(self.session).soldes(organisation_id)
        noms = await MembreRepository(self.session, self.auth).noms({membre for membre, _ in soldes})
        lignes = sorted((LigneRegistreAvoirResponse(membre_id=m, nom=noms.get(m, ""), solde=solde)
                         for m, solde in soldes), key=lambda ligne: (ligne.nom.casefold(), str(ligne.membre_id)))
        total = sum((ligne.solde for ligne in lignes), Decimal("0"))
        compte = Decimal("0") - await solde_compte(self.session, organisation_id, "4191")
        return RegistreAvoirsResponse(organisation_id=organisation_id, total=total, solde_compte_avoirs=compte,
                                      ecart=compte - total, lignes=lignes)
