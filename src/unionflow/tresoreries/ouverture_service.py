"""Opening balances ("à-nouveaux") typed in: one balanced entry in journal AN dated the start date, each treasury
and balance-sheet account at its balance, the net against the report à nouveau (comptabilite/ecritures/tresorerie.py).

Typed balances put money in the books as surely as a receipt: they are a four-eyes request (kind A_NOUVEAUX), asked
by whoever manages the treasuries, approved by a second person holding ``ecriture.approuver`` (never the requester);
nothing is booked until then. A closed year's balances need no request: the balance-sheet accounts keep their
balances across years (the closing entry only zeroes classes 6-8), so the next year opens on them by construction.
Once per organisation and fiscal year; only while the year has no other entry, unless a reason is given.
"""

from __future__ import annotations

import uuid
from datetime import date
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.approbations import service as quatre_yeux
from unionflow.approbations.politiques import Politique, enregistrer
from unionflow.approbations.repository import DemandeApprobationRepository
from unionflow.comptabilite.ecritures.tresorerie import (
    SoldeOuverture,
    a_nouveaux_existants,
    autres_ecritures_de_l_exercice,
    comptabiliser_a_nouveaux,
)
from unionflow.comptabilite.repository import ComptabiliteSystemRepository
from unionflow.core import audit
from unionflow.core.auth import AuthContext
from unionflow.core.errors import Conflict, InvalidState, NotFound, RegleMetier
from unionflow.core.montants import montant_texte
from unionflow.core.permissions import Permission
from unionflow.core.visibility import staff_sees
from unionflow.models.approbation import DemandeApprobation, GenreDemande, StatutDemande, TypeDecision
from unionflow.models.tresorerie import TypeTresorerie
from unionflow.notifications import workflow as notices
from unionflow.organisations.repository import OrganisationRepository
from unionflow.tresoreries.repository import TresorerieSystemRepository
from unionflow.tresoreries.schemas import (
    CreateANouveauxRequest,
    DemandeANouveauxResponse,
    SoldeANouveauxResponse,
)

ZERO = Decimal("0")
GENRE = GenreDemande.A_NOUVEAUX.value
MODULE = "TRESORERIE"
ENTITE = "DemandeANouveaux"
INTROUVABLE = "Demande d'à-nouveaux introuvable"


def _soldes(demande: DemandeApprobation) -> list[SoldeOuverture]:
    return [SoldeOuverture(s["numero_compte"], s["libelle"], Decimal(s["montant"]))
            for s in (demande.details or {}).get("soldes", [])]


async def _deja_saisis(session: AsyncSession, organisation_id: uuid.UUID, annee: int) -> None:
    existant = await a_nouveaux_existants(session, organisation_id, annee)
    if existant is not None:
        raise Conflict(f"Les à-nouveaux de l'exercice {annee} sont déjà saisis (pièce {existant.numero_piece} du "
                       f"{existant.date_ecriture:%d/%m/%Y}); corrigez-les par contrepassation")


async def passer(session: AsyncSession, auth: AuthContext, demande: DemandeApprobation,
                 _contexte: object = None) -> None:
    """What approved opening balances carry out: the AN entry, unless another was booked meanwhile (409)."""
    details = demande.details or {}
    jour = date.fromisoformat(details["date_debut"])
    await _deja_saisis(session, demande.organisation_id, jour.year)
    ecriture = await comptabiliser_a_nouveaux(session, organisation_id=demande.organisation_id, jour=jour,
                                              soldes=_soldes(demande), motif=details.get("motif"), auth=auth,
                                              cree_par=demande.demande_par)
    demande.objet_id = ecriture.id
    demande.details = {**details, "ecriture_id": str(ecriture.id), "numero_piece": ecriture.numero_piece}
    await session.flush()


POLITIQUE = enregistrer(Politique(
    genre=GENRE, nom="Demande d'à-nouveaux", demander=Permission.TRESORERIE_GERER,
    decider=Permission.ECRITURE_APPROUVER,
    roles_decideurs=("PRESIDENT", "TRESORIER", "ADMIN_ORGANISATION", "ADMIN", "SUPER_ADMIN"),
    refus_decideur="Seuls le trésorier, le président et l'administrateur de l'organisation approuvent des "
                   "à-nouveaux",
    chemin="/api/tresoreries/a-nouveaux/{id}", executer=passer,
    refus_demande="Seule la trésorerie ou l'administration de l'organisation saisit les à-nouveaux"))


def reponse(demande: DemandeApprobation) -> DemandeANouveauxResponse:
    details = demande.details or {}
    decision = demande.decisions[-1] if demande.decisions else None
    return DemandeANouveauxResponse(
        id=demande.id, organisation_id=demande.organisation_id, date_debut=details["date_debut"],
        motif=details.get("motif"), soldes=[SoldeANouveauxResponse(numero_compte=s.numero_compte, libelle=s.libelle,
                                                                  montant=s.montant) for s in _soldes(demande)],
        montant_total=demande.montant or ZERO, statut=StatutDemande(demande.statut), demande_par=demande.demande_par,
        date_demande=demande.date_demande, decide_par=decision.decideur if decision else None,
        role_decideur=decision.role if decision else None, commentaire=decision.commentaire if decision else None,
        date_decision=demande.date_decision, ecriture_id=details.get("ecriture_id"),
        numero_piece=details.get("numero_piece"))


class ANouveauxService:
    def __init__(self, session: AsyncSession, auth: AuthContext) -> None:
        self.session = session
        self.auth = auth
        self.demandes = DemandeApprobationRepository(session, auth)

    async def _soldes_tresoreries(self, data: CreateANouveauxRequest) -> list[SoldeOuverture]:
        soldes = []
        repo = TresorerieSystemRepository(self.session)
        for i, ligne in enumerate(data.tresoreries):
            tresorerie = await repo.get(ligne.tresorerie_id)
            if tresorerie is None or tresorerie.organisation_id != data.organisation_id:
                raise NotFound(f"tresoreries[{i}]: trésorerie introuvable dans cette organisation")
            plancher = ZERO if tresorerie.type_tresorerie == TypeTresorerie.CAISSE else None
            if tresorerie.type_tresorerie == TypeTresorerie.BANQUE and tresorerie.decouvert_autorise is not None:
                plancher = -tresorerie.decouvert_autorise
            if plancher is not None and ligne.montant < plancher:
                raise RegleMetier(f"tresoreries[{i}]: « {tresorerie.nom} » ne peut pas ouvrir à "
                                  f"{montant_texte(ligne.montant)} (minimum {montant_texte(plancher)})")
            soldes.append(SoldeOuverture(tresorerie.numero_compte, tresorerie.nom, ligne.montant))
        return soldes

    async def _soldes_comptes(self, data: CreateANouveauxRequest) -> list[SoldeOuverture]:
        soldes = []
        books = ComptabiliteSystemRepository(self.session)
        for i, ligne in enumerate(data.comptes):
            compte = await books.get_compte_by_numero(data.organisation_id, ligne.numero_compte)
            if compte is None or not compte.actif:
                raise RegleMetier(f"comptes[{i}]: le compte {ligne.numero_compte} n'existe pas ou est inactif dans le "
                                  "plan comptable de l'organisation")
            soldes.append(SoldeOuverture(compte.numero_compte, compte.libelle, ligne.montant))
        return soldes

    async def saisir(self, data: CreateANouveauxRequest) -> DemandeANouveauxResponse:
        """The request (202), checked now as approval would check it; nothing is booked yet."""
        if not staff_sees(self.auth, data.organisation_id) or not await OrganisationRepository(
                self.session, self.auth).exists(data.organisation_id):
            raise NotFound("Organisation introuvable")
        self.auth.require(Permission.TRESORERIE_GERER, data.organisation_id,
                          "Seule la trésorerie ou l'administration de l'organisation saisit les à-nouveaux")
        soldes = [s for s in await self._soldes_tresoreries(data) + await self._soldes_comptes(data)
                  if s.montant != ZERO]
        if not soldes:
            raise RegleMetier("Aucun solde d'ouverture non nul à saisir")
        numeros = [s.numero_compte for s in soldes]
        if len(set(numeros)) != len(numeros):
            raise RegleMetier("Un même compte figure deux fois dans les à-nouveaux")
        await _deja_saisis(self.session, data.organisation_id, data.date_debut.year)
        if await self.demandes.de_l_organisation(GENRE, data.organisation_id, StatutDemande.EN_ATTENTE.value):
            raise Conflict("Des à-nouveaux attendent déjà l'approbation d'une seconde personne pour cette "
                           "organisation")
        autres = await autres_ecritures_de_l_exercice(self.session, data.organisation_id, data.date_debut)
        if autres and not data.motif:
            raise InvalidState(f"L'exercice {data.date_debut.year} compte déjà {len(autres)} écriture(s) (la "
                               f"première du {autres[0].date_ecriture:%d/%m/%Y}): indiquez le motif de ces "
                               "à-nouveaux tardifs")
        debit = sum((s.montant for s in soldes if s.montant > ZERO), ZERO)
        credit = -sum((s.montant for s in soldes if s.montant < ZERO), ZERO)
        demande = await quatre_yeux.ouvrir(
            self.session, self.auth, POLITIQUE, organisation_id=data.organisation_id,
            motif=data.motif or f"À-nouveaux au {data.date_debut:%d/%m/%Y}", montant=max(debit, credit),
            devise="XOF", details={"date_debut": data.date_debut.isoformat(), "motif": data.motif,
                                   "soldes": [{"numero_compte": s.numero_compte, "libelle": s.libelle,
                                               "montant": str(s.montant)} for s in soldes]})
        response = reponse(demande)
        await audit.record(self.session, self.auth, action="DEMANDER", module=MODULE, entite_type=ENTITE,
                           entite_id=demande.id, organisation_id=data.organisation_id, severite="WARNING",
                           after=response.model_dump(mode="json", by_alias=True),
                           description=f"À-nouveaux au {data.date_debut:%d/%m/%Y} soumis à approbation")
        await notices.approbation_en_attente(
            self.session, data.organisation_id, Permission.ECRITURE_APPROUVER, "À-nouveaux à approuver",
            f"{self.auth.actor_name} a saisi les soldes d'ouverture au {data.date_debut:%d/%m/%Y} "
            f"({montant_texte(demande.montant or ZERO)})", (ENTITE, demande.id), self.auth.actor_name,
            sauf=self.auth.membre_id)
        return response

    async def _get(self, demande_id: uuid.UUID, *, for_update: bool = False) -> DemandeApprobation:
        demande = await self.demandes.du_genre(GENRE, demande_id, scoped=False, for_update=for_update)
        if demande is None or not staff_sees(self.auth, demande.organisation_id):
            raise NotFound(INTROUVABLE)
        return demande

    async def lister(self, organisation_id: uuid.UUID) -> list[DemandeANouveauxResponse]:
        if not staff_sees(self.auth, organisation_id):
            raise NotFound("Organisation introuvable")
        return [reponse(d) for d in await self.demandes.de_l_organisation(GENRE, organisation_id)]

    async def obtenir(self, demande_id: uuid.UUID) -> DemandeANouveauxResponse:
        return reponse(await self._get(demande_id))

    async def decider(self, demande_id: uuid.UUID, decision: TypeDecision,
                      commentaire: str | None) -> DemandeANouveauxResponse:
        demande = await self._get(demande_id, for_update=True)
        await quatre_yeux.decider(self.session, self.auth, demande, decision, commentaire)
        response = reponse(demande)
        await audit.record(self.session, self.auth,
                           action="APPROUVER" if decision is TypeDecision.APPROUVEE else "REJETER", module=MODULE,
                           entite_type=ENTITE, entite_id=demande.id, organisation_id=demande.organisation_id,
                           severite="WARNING", after=response.model_dump(mode="json", by_alias=True),
                           description=commentaire)
        return response

    async def retirer(self, demande_id: uuid.UUID) -> DemandeANouveauxResponse:
        demande = await self._get(demande_id, for_update=True)
        quatre_yeux.verifier_demandeur(self.auth, demande, "Seul le demandeur retire sa saisie d'à-nouveaux")
        await quatre_yeux.retirer(self.session, demande, None)
        await audit.record(self.session, self.auth, action="RETIRER", module=MODULE, entite_type=ENTITE,
                           entite_id=demande.id, organisation_id=demande.organisation_id)
        return reponse(demande)
