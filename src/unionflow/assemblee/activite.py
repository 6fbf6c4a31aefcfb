"""The activity figures of a year for the general assembly, each read from the area that owns it: members
(memberships' dates), dues (called for the year and paid so far), aid (granted by a decision of the year, paid
by the payouts delivered in the year), events (held in the year and their registrations), and the register of
donations' totals by form."""

from __future__ import annotations

import uuid
from collections import defaultdict
from datetime import UTC, date, datetime, time
from decimal import Decimal

from sqlalchemy.ext.asyncio import AsyncSession

from unionflow.assemblee.schemas import ChiffreActivite, NatureChiffre, TotalDons
from unionflow.cotisations.repository import BilanCotisationsRepository
from unionflow.demandes_aide.repository import DemandeAideSystemRepository
from unionflow.dons.repository import RegistreDonRepository
from unionflow.evenements.repository import BilanEvenementsRepository
from unionflow.membres.repository import EffectifRepository
from unionflow.models.versement import ObjetVersement
from unionflow.paiements.versements.repository import VersementsDeLAnneeRepository

ZERO = Decimal("0")
NOMBRE, MONTANT, TAUX = NatureChiffre.NOMBRE, NatureChiffre.MONTANT, NatureChiffre.TAUX


def _bornes(annee: int) -> tuple[datetime, datetime]:
    return (datetime.combine(date(annee, 1, 1), time(), UTC), datetime.combine(date(annee + 1, 1, 1), time(), UTC))


def _taux(encaisse: Decimal, appele: Decimal) -> str:
    return str((encaisse * 100 / appele).quantize(Decimal("0.1"))) if appele else "—"


async def chiffres_annee(session: AsyncSession, organisation_id: uuid.UUID, annee: int
                         ) -> dict[str, tuple[NatureChiffre, str]]:
    """code → (nature, value as text) for one year; the caller checked that the books are visible."""
    debut, fin = _bornes(annee)
    cloture = min(date(annee, 12, 31), datetime.now(UTC).date())  # the current year: today
    effectifs = EffectifRepository(session)
    nb, appele, encaisse = await BilanCotisationsRepository(session).de_l_annee(organisation_id, annee)
    aides, accorde = await DemandeAideSystemRepository(session).accordees(organisation_id, debut, fin)
    versees, verse = await VersementsDeLAnneeRepository(session).reussis(
        organisation_id, ObjetVersement.AIDE.value, debut, fin)
    evenements, inscrits = await BilanEvenementsRepository(session).tenus(organisation_id, debut, fin)
    return {
        "MEMBRES_ACTIFS": (NOMBRE, str(await effectifs.actifs_au(organisation_id, cloture))),
        "NOUVEAUX_MEMBRES": (NOMBRE, str(await effectifs.entrees(organisation_id, debut.date(), cloture))),
        "COTISATIONS_NOMBRE": (NOMBRE, str(nb)),
        "COTISATIONS_APPELEES": (MONTANT, str(appele)),
        "COTISATIONS_ENCAISSEES": (MONTANT, str(encaisse)),
        "TAUX_RECOUVREMENT": (TAUX, _taux(encaisse, appele)),
        "AIDES_ACCORDEES_NOMBRE": (NOMBRE, str(aides)),
        "AIDES_ACCORDEES": (MONTANT, str(accorde)),
        "AIDES_VERSEES_NOMBRE": (NOMBRE, str(versees)),
        "AIDES_VERSEES": (MONTANT, str(verse)),
        "EVENEMENTS_TENUS": (NOMBRE, str(evenements)),
        "INSCRIPTIONS": (NOMBRE, str(inscrits)),
    }


LIBELLES = {
    "MEMBRES_ACTIFS": "Membres actifs au 31 décembre (aujourd'hui pour l'exercice en cours)",
    "NOUVEAUX_MEMBRES": "Nouvelles adhésions de l'année",
    "COTISATIONS_NOMBRE": "Cotisations appelées (nombre)",
    "COTISATIONS_APPELEES": "Cotisations appelées (montant)",
    "COTISATIONS_ENCAISSEES": "Cotisations encaissées à ce jour",
    "TAUX_RECOUVREMENT": "Taux de recouvrement (%)",
    "AIDES_ACCORDEES_NOMBRE": "Aides accordées (nombre de demandes)",
    "AIDES_ACCORDEES": "Aides accordées (montant)",
    "AIDES_VERSEES_NOMBRE": "Aides versées (nombre de versements)",
    "AIDES_VERSEES": "Aides versées (montant)",
    "EVENEMENTS_TENUS": "Événements tenus",
    "INSCRIPTIONS": "Inscriptions aux événements",
}


async def activite(session: AsyncSession, organisation_id: uuid.UUID, annee: int) -> list[ChiffreActivite]:
    n, n1 = await chiffres_annee(session, organisation_id, annee), await chiffres_annee(session, organisation_id,
                                                                                         annee - 1)
    return [ChiffreActivite(code=code, libelle=libelle, nature=n[code][0], valeur_n=n[code][1],
                            valeur_n1=n1[code][1]) for code, libelle in LIBELLES.items()]


async def dons(session: AsyncSession, organisation_id: uuid.UUID, annee: int) -> list[TotalDons]:
    """The register's lines of each year by form (a cancelled gift's counter-line is negative and nets out)."""
    par_forme: dict[str, list[Decimal]] = defaultdict(lambda: [ZERO, ZERO, ZERO, ZERO])
    repo = RegistreDonRepository(session)
    for i, an in enumerate((annee, annee - 1)):
        for ligne in await repo.periode(organisation_id, *_bornes(an)):
            totaux = par_forme[ligne.forme]
            totaux[2 * i] += 1 if ligne.montant > 0 else -1
            totaux[2 * i + 1] += ligne.montant
    return [TotalDons(forme=forme, nombre_n=int(t[0]), montant_n=t[1], nombre_n1=int(t[2]), montant_n1=t[3])
            for forme, t in sorted(par_forme.items())]
