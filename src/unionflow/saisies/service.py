"""Manual entries: booked at once, or, when they touch money, a four-eyes request (kind ECRITURE).

An entry typed by hand that touches a treasury (class 5), members' credit (4191) or an account the organisation
marked ``sous_controle`` moves money as surely as a payout: one person asks (``comptabilite.ecrire``), a second
approves (``ecriture.approuver``: treasurer, president, organisation administrator; never the requester, compared
by person key). Until then nothing is booked. At approval the entry is checked again as if typed now (accounts
active, period open) and the treasury rule holds under the treasuries' row lock (tresoreries.verifier_mouvements:
a cash box never below zero, a bank never beyond its overdraft), so of two approvals that would both overdraw one
box, exactly one passes. Other entries stay one person's act, audited as before.
"""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.approbations import service as quatre_yeux
from unionflow.approbations.politiques import Politique, enregistrer
from unionflow.approbations.repository import DemandeApprobationRepository
from unionflow.comptabilite.repository import ComptabiliteRepository
from unionflow.comptabilite.schemas import CreateEcritureComptableRequest, EcritureComptableResponse
from unionflow.comptabilite.service import (
    MODULE,
    ComptabiliteService,
    Ligne,
    date_comptable,
    ecriture_response,
    poster_ecriture,
    verifier_ecriture,
)
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import NotFound, RegleMetier
from unionflow.core.montants import montant_texte
from unionflow.core.permissions import Permission
from unionflow.models import CompteComptable, JournalComptable
from unionflow.models.approbation import DemandeApprobation, GenreDemande, StatutDemande, TypeDecision
from unionflow.notifications import workflow as notices
from unionflow.saisies.schemas import DemandeEcritureResponse, LigneDemandeEcritureResponse
from unionflow.tresoreries.service import verifier_mouvements

GENRE = GenreDemande.ECRITURE.value
ENTITE = "DemandeEcriture"
ZERO = Decimal("0")
INTROUVABLE = "Demande d'écriture introuvable"


def sous_controle(compte: CompteComptable) -> bool:
    """Whether a manual entry on this account needs a second person."""
    return compte.classe == 5 or compte.numero_compte.startswith("4191") or compte.sous_controle


def mouvements_tresorerie(lignes: list[Ligne]) -> list[tuple[str, Decimal, Decimal]]:
    return [(ligne.compte.numero_compte, ligne.debit, ligne.credit) for ligne in lignes]


def _details(data: CreateEcritureComptableRequest, journal: JournalComptable) -> dict[str, Any]:
    return {"journal_id": str(journal.id), "code_journal": journal.code,
            "date_ecriture": data.date_ecriture.isoformat(), "libelle": data.libelle,
            "piece_reference": data.piece_reference,
            "lignes": [{"compte_id": str(lg.compte_id), "debit": str(lg.debit or ZERO),
                        "credit": str(lg.credit or ZERO), "libelle": lg.libelle} for lg in data.lignes]}


def _demande_de(demande: DemandeApprobation) -> CreateEcritureComptableRequest:
    """The entry as it was asked for (re-validated by its schema)."""
    d = demande.details or {}
    return CreateEcritureComptableRequest.model_validate(
        {"journalId": d["journal_id"], "dateEcriture": d["date_ecriture"], "libelle": d["libelle"],
         "pieceReference": d.get("piece_reference"),
         "lignes": [{"compteId": lg["compte_id"], "debit": lg["debit"], "credit": lg["credit"],
                     "libelle": lg.get("libelle")} for lg in d["lignes"]]})


async def _lignes(session: AsyncSession, auth: AuthContext, data: CreateEcritureComptableRequest
                  ) -> tuple[list[Ligne], dict[uuid.UUID, CompteComptable]]:
    comptes = await ComptabiliteRepository(session, auth).comptes_by_ids({lg.compte_id for lg in data.lignes})
    lignes: list[Ligne] = []
    for i, lg in enumerate(data.lignes):
        compte = comptes.get(lg.compte_id)
        if compte is None:
            raise RegleMetier(f"lignes[{i}]: compte comptable introuvable")
        lignes.append(Ligne(compte=compte, debit=lg.debit or ZERO, credit=lg.credit or ZERO, libelle=lg.libelle))
    return lignes, comptes


async def passer(session: AsyncSession, auth: AuthContext, demande: DemandeApprobation,
                 _contexte: object = None) -> None:
    """What an approved request carries out: the entry, checked as if typed now, the treasuries first."""
    data = _demande_de(demande)
    repo = ComptabiliteRepository(session, auth)
    journal = await repo.journal(data.journal_id)
    if journal is None:
        raise NotFound("Journal comptable introuvable")
    lignes, comptes = await _lignes(session, auth, data)
    verifier_ecriture(journal, lignes)
    await verifier_mouvements(session, journal.organisation_id, mouvements_tresorerie(lignes), auth)
    ecriture = await poster_ecriture(session, journal=journal, date_ecriture=data.date_ecriture, libelle=data.libelle,
                                     lignes=lignes, piece_reference=data.piece_reference,
                                     cree_par=demande.demande_par, strict=True)
    demande.objet_id = ecriture.id
    demande.details = {**(demande.details or {}), "ecriture_id": str(ecriture.id),
                       "numero_piece": ecriture.numero_piece}
    await session.flush()
    await audit.record(session, auth, action="CREER", module=MODULE, entite_type="EcritureComptable",
                       entite_id=ecriture.id, organisation_id=ecriture.organisation_id, severite="WARNING",
                       after=ecriture_response(ecriture, comptes, journal.code).model_dump(mode="json", by_alias=True),
                       description=f"Écriture {ecriture.numero_piece} ({ecriture.montant_total}) demandée par "
                                   f"{demande.demande_par}, approuvée par {auth.actor_name}")


POLITIQUE = enregistrer(Politique(
    genre=GENRE, nom="Demande d'écriture", demander=Permission.COMPTABILITE_ECRIRE,
    decider=Permission.ECRITURE_APPROUVER,
    roles_decideurs=("PRESIDENT", "TRESORIER", "ADMIN_ORGANISATION", "ADMIN", "SUPER_ADMIN"),
    refus_decideur="Seuls le trésorier, le président et l'administrateur de l'organisation approuvent une écriture",
    chemin="/api/comptabilite/demandes-ecritures/{id}", executer=passer,
    refus_demande="Seuls l'administrateur et le trésorier de l'organisation tiennent sa comptabilité"))


def reponse(demande: DemandeApprobation, comptes: dict[uuid.UUID, CompteComptable]) -> DemandeEcritureResponse:
    d = demande.details or {}
    decision = demande.decisions[-1] if demande.decisions else None
    lignes = []
    for lg in d.get("lignes", []):
        compte = comptes.get(uuid.UUID(lg["compte_id"]))
        lignes.append(LigneDemandeEcritureResponse(
            compte_id=lg["compte_id"], numero_compte=compte.numero_compte if compte else "?",
            libelle_compte=compte.libelle if compte else "?", debit=Decimal(lg["debit"]),
            credit=Decimal(lg["credit"]), libelle=lg.get("libelle"),
            sous_controle=sous_controle(compte) if compte else False))
    return DemandeEcritureResponse(
        id=demande.id, organisation_id=demande.organisation_id, journal_id=d["journal_id"],
        code_journal=d.get("code_journal", ""), date_ecriture=d["date_ecriture"], libelle=d["libelle"],
        piece_reference=d.get("piece_reference"), montant=demande.montant or ZERO, devise=demande.devise or "XOF",
        lignes=lignes, statut=StatutDemande(demande.statut), demande_par=demande.demande_par,
        date_demande=demande.date_demande, decide_par=decision.decideur if decision else None,
        role_decideur=decision.role if decision else None, commentaire=decision.commentaire if decision else None,
        date_decision=demande.date_decision, ecriture_id=d.get("ecriture_id"), numero_piece=d.get("numero_piece"))


def reference_saisie(saisie: EcritureComptableResponse | DemandeEcritureResponse) -> str:
    """What a record booked through ``saisir`` cites: the piece number when booked now, else the four-eyes request a
    second person approves."""
    return saisie.numero_piece if isinstance(saisie, EcritureComptableResponse) else f"DEMANDE-ECRITURE {saisie.id}"


class SaisieService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.repo = ComptabiliteRepository(session, auth)
        self.demandes = DemandeApprobationRepository(session, auth)

    async def saisir(self, data: CreateEcritureComptableRequest
                     ) -> EcritureComptableResponse | DemandeEcritureResponse:
        """An entry that touches no controlled account is booked now; otherwise a request (202)."""
        journal = await self.repo.journal(data.journal_id)
        if journal is None:
            raise NotFound("Journal comptable introuvable")
        self.auth.require(Permission.COMPTABILITE_ECRIRE, journal.organisation_id,
                          "Seuls l'administrateur et le trésorier de l'organisation tiennent sa comptabilité")
        lignes, comptes = await _lignes(self.session, self.auth, data)
        if not any(sous_controle(comptes[lg.compte_id]) for lg in data.lignes):
            return await ComptabiliteService(self.session, self.auth).creer_ecriture(data)
        # Refused now what approval would refuse anyway: unbalanced, an inactive account, a closed period, a
        # treasury that cannot pay it today.
        total = verifier_ecriture(journal, lignes)
        await date_comptable(self.session, journal.organisation_id, data.date_ecriture, strict=True)
        await verifier_mouvements(self.session, journal.organisation_id, mouvements_tresorerie(lignes), self.auth)
        demande = await quatre_yeux.ouvrir(
            self.session, self.auth, POLITIQUE, organisation_id=journal.organisation_id, motif=data.libelle,
            montant=total, devise="XOF", details=_details(data, journal))
        response = reponse(demande, comptes)
        await audit.record(self.session, self.auth, action="DEMANDER", module=MODULE, entite_type=ENTITE,
                           entite_id=demande.id, organisation_id=demande.organisation_id, severite="WARNING",
                           after=response.model_dump(mode="json", by_alias=True),
                           description=f"Écriture manuelle de {total} sur un compte sous contrôle: demande "
                                       "d'approbation")
        await notices.approbation_en_attente(
            self.session, demande.organisation_id, Permission.ECRITURE_APPROUVER, "Écriture à approuver",
            f"{self.auth.actor_name} demande de passer l'écriture « {data.libelle} » "
            f"({montant_texte(total)}) au journal "
            f"{journal.code}", (ENTITE, demande.id), self.auth.actor_name, sauf=self.auth.membre_id)
        return response

    async def _get(self, demande_id: uuid.UUID, *, for_update: bool = False) -> DemandeApprobation:
        demande = await self.demandes.du_genre(GENRE, demande_id, scoped=False, for_update=for_update)
        # Visible as its organisation's entries are (otherwise 404, never 403).
        if demande is None or not self.repo.can_see_entries(demande.organisation_id):
            raise NotFound(INTROUVABLE)
        return demande

    async def _reponses(self, demandes: list[DemandeApprobation]) -> list[DemandeEcritureResponse]:
        ids = {uuid.UUID(lg["compte_id"]) for d in demandes for lg in (d.details or {}).get("lignes", [])}
        comptes = await self.repo.comptes_by_ids(ids) if ids else {}
        return [reponse(d, comptes) for d in demandes]

    async def lister(self, organisation_id: uuid.UUID, statut: StatutDemande | None) -> list[DemandeEcritureResponse]:
        if await self.repo.organisation(organisation_id) is None or not self.repo.can_see_entries(organisation_id):
            raise NotFound("Organisation introuvable")
        return await self._reponses(await self.demandes.de_l_organisation(
            GENRE, organisation_id, statut.value if statut else None))

    async def obtenir(self, demande_id: uuid.UUID) -> DemandeEcritureResponse:
        return (await self._reponses([await self._get(demande_id)]))[0]

    async def _decider(self, demande_id: uuid.UUID, decision: TypeDecision,
                       commentaire: str | None) -> DemandeEcritureResponse:
        demande = await self._get(demande_id, for_update=True)
        await quatre_yeux.decider(self.session, self.auth, demande, decision, commentaire)
        action = "APPROUVER" if decision is TypeDecision.APPROUVEE else "REJETER"
        response = (await self._reponses([demande]))[0]
        await audit.record(self.session, self.auth, action=action, module=MODULE, entite_type=ENTITE,
                           entite_id=demande.id, organisation_id=demande.organisation_id, severite="WARNING",
                           after=response.model_dump(mode="json", by_alias=True), description=commentaire)
        return response

    async def approuver(self, demande_id: uuid.UUID, commentaire: str | None) -> DemandeEcritureResponse:
        return await self._decider(demande_id, TypeDecision.APPROUVEE, commentaire)

    async def rejeter(self, demande_id: uuid.UUID, commentaire: str) -> DemandeEcritureResponse:
        return await self._decider(demande_id, TypeDecision.REJETEE, commentaire)

    async def retirer(self, demande_id: uuid.UUID) -> DemandeEcritureResponse:
        demande = await self._get(demande_id, for_update=True)
        quatre_yeux.verifier_demandeur(self.auth, demande, "Seul le demandeur retire sa demande d'écriture")
        await quatre_yeux.retirer(self.session, demande, None)
        await audit.record(self.session, self.auth, action="RETIRER", module=MODULE, entite_type=ENTITE,
                           entite_id=demande.id, organisation_id=demande.organisation_id)
        return (await self._reponses([demande]))[0]
