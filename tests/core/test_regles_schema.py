"""Cross-field rules declared once (``core.regles``, ``InputModel.regles``) are both checked and stated: for every
request model that declares some, each combination of the rule's fields below is valid for the model's published
JSON Schema exactly when the server's model accepts it, and a refusal is the rule's ``regle-metier``."""

from __future__ import annotations

import itertools
import uuid
from typing import Any

import jsonschema_rs
import pytest
from pydantic import ValidationError

from unionflow.comptabilite.produits.schemas import UpdateComptesProduitsRequest
from unionflow.core.regles import REGLES_NOTE
from unionflow.core.schemas import InputModel
from unionflow.cotisations.schemas import AnnulerCotisationsRequest, PaiementCotisationRequest
from unionflow.dons.schemas import DonateurRequest
from unionflow.evenements.schemas import ModerationRequest
from unionflow.federation.schemas import CreateQuotePartRequest
from unionflow.finance.approbations.schemas import CreateApprobationRequest
from unionflow.finance.budgets.schemas import LigneBudgetRequest
from unionflow.membres.schemas import StatutRequest
from unionflow.messagerie.schemas import CreateConversationRequest, CreateMessageRequest
from unionflow.notifications.schemas import NotificationEnvoi
from unionflow.paiements.encaissement.schemas import CibleInput
from unionflow.paiements.schemas import ConfirmationPaiementRequest, CreatePaiementRequest, CreateRecetteRequest
from unionflow.paiements.versements.schemas import CreateVersementRequest
from unionflow.propositions_aide.schemas import CreatePropositionAideRequest

OMIS = object()
ID = str(uuid.uuid4())
METHODES = ["ESPECES", "CHEQUE", "WAVE", "WAVE_TRANSFERT", "AUTRE"]
REFERENCES = [OMIS, None, "", "  ", "CHQ-12", "T_4FJX2K7QZP1M", "t_abc"]

# model -> (a body valid apart from the rules, the values tried for each field the rules name)
CAS: dict[type[InputModel], tuple[dict[str, Any], dict[str, list[Any]]]] = {
    CibleInput: ({}, {"cotisationId": [OMIS, None, ID], "adhesionId": [OMIS, None, ID]}),
    LigneBudgetRequest: ({"libelle": "Loyer", "montantPrevu": "10"},
                         {"compteId": [OMIS, None, ID], "prefixeCompte": [OMIS, None, "66"]}),
    AnnulerCotisationsRequest: ({"motif": "Erreur de saisie"}, {
        "cotisationIds": [OMIS, None, [ID]],
        "lot": [OMIS, None, {"organisationId": ID, "typeCotisation": "ANNUELLE", "annee": 2026}]}),
    NotificationEnvoi: ({"organisationId": ID}, {
        "membreIds": [OMIS, None, [ID]], "tousMembresActifs": [OMIS, False, True],
        "codeModele": [OMIS, None, "RAPPEL"], "sujet": [OMIS, None, "Bonjour"], "corps": [OMIS, None, "Texte"]}),
    CreateConversationRequest: ({"organisationId": ID, "participantIds": [ID]},
                                {"type": [OMIS, "DIRECTE", "GROUPE"], "titre": [OMIS, None, "Bureau"]}),
    CreateMessageRequest: ({}, {"contenu": [OMIS, None, "Salut"], "documentId": [OMIS, None, ID],
                                "dureeSecondes": [OMIS, None, 12]}),
    CreatePaiementRequest: ({"membreId": ID, "organisationId": ID, "montant": "100"}, {
        "methode": METHODES, "referenceExterne": REFERENCES, "avance": [OMIS, False, True],
        "cibles": [OMIS, [], [{"cotisationId": ID}]]}),
    CreateRecetteRequest: ({"membreId": ID, "organisationId": ID, "montant": "100"}, {
        "methode": METHODES, "referenceExterne": REFERENCES, "nature": ["DON", "EVENEMENT"],
        "evenementId": [OMIS, None, ID]}),
    ConfirmationPaiementRequest: ({}, {"methode": [OMIS, None, *METHODES]}),
    PaiementCotisationRequest: ({"montant": "100"}, {"methodePaiement": [OMIS, *METHODES],
                                                     "referencePaiement": REFERENCES}),
    CreateVersementRequest: ({"organisationId": ID, "objetType": "AUTRE", "motif": "Achat",
                              "beneficiaireNom": "Awa"},
                             {"mode": ["WAVE", "MANUEL"], "beneficiaireTelephone": [OMIS, None, "+221771234567"],
                              "devise": [OMIS, "XOF", "EUR"], "montant": ["100", "100.00", 100, 100.0, "100.5", 10.5]}),
    CreateQuotePartRequest: ({"organisationId": ID, "motif": "Quote-part 2026"},
                             {"mode": ["WAVE", "MANUEL"], "devise": [OMIS, "XOF", "EUR"],
                              "montant": ["100", "0100.00", 100, "100.5", 10.5]}),
    UpdateComptesProduitsRequest: ({}, {"comptes": [
        [{"nature": "DON", "numeroCompte": "758"}],
        [{"nature": "DON", "numeroCompte": "758"}, {"nature": "DON", "numeroCompte": "7581"}],
        [{"nature": "DON", "numeroCompte": "758"}, {"nature": "EVENEMENT", "numeroCompte": None}]]}),
    ModerationRequest: ({}, {"statut": ["PUBLIE", "REJETE", "EN_ATTENTE"], "motif": [OMIS, None, "", "Injurieux"]}),
    StatutRequest: ({}, {"statut": ["ACTIF", "SUSPENDU", "RADIE"], "motif": [OMIS, None, "", "Retards répétés"]}),
    CreateApprobationRequest: ({"organisationId": ID, "motif": "Achat de chaises"}, {
        "typeObjet": ["VERSEMENT", "AIDE", "AUTRE", "ANNULATION"], "objetId": [OMIS, None, ID],
        "montant": [OMIS, None, "100"]}),
    DonateurRequest: ({}, {"type": ["MEMBRE", "PERSONNE_PHYSIQUE", "PERSONNE_MORALE", "ANONYME"],
                           "membreId": [OMIS, ID], "nom": [OMIS, "Awa Diop"], "telephone": [OMIS, "+221770000000"],
                           "pieceIdentite": [OMIS, "1 234 5678 90123"], "rccm": [OMIS, "SN-DKR-2020-B-1"],
                           "ninea": [OMIS, "005412345"]}),
    CreatePropositionAideRequest: ({"organisationId": ID, "type": "DECES", "titre": "Aide", "description": "Don"},
                                   {"nature": ["FINANCIERE", "MATERIELLE", "SERVICE"], "montant": [OMIS, None, "5"]}),
}


def _declaring() -> set[type[InputModel]]:
    found, todo = set(), list(InputModel.__subclasses__())
    while todo:
        model = todo.pop()
        todo += model.__subclasses__()
        if model.__module__.startswith("unionflow.") and model.regles:
            found.add(model)
    return found


def test_every_model_declaring_rules_is_checked_here():
    assert _declaring() == set(CAS), "add the new model to CAS"


@pytest.mark.parametrize("model", sorted(CAS, key=lambda m: m.__name__), ids=lambda m: m.__name__)
def test_the_schema_says_what_the_model_accepts(model: type[InputModel]):
    base, tried = CAS[model]
    schema = model.model_json_schema()
    assert REGLES_NOTE in schema["description"]
    for regle in model.regles:
        assert regle.message in str(schema["allOf"]), regle
    validator = jsonschema_rs.validator_for(schema)
    names = list(tried)
    disagreements = []
    for values in itertools.product(*(tried[n] for n in names)):
        body = {**base, **{n: v for n, v in zip(names, values, strict=True) if v is not OMIS}}
        try:
            model.model_validate(body)
            accepted, kinds = True, set()
        except ValidationError as error:
            accepted, kinds = False, {e["type"] for e in error.errors()}
        valid = validator.is_valid(body)
        # A padded text is accepted trimmed; the schema's own patterns do not trim (documented, x-trimmed).
        padded = any(isinstance(v, str) and v != v.strip() for v in body.values())
        if valid != accepted and not (padded and accepted):
            disagreements.append((body, valid, kinds))
        if not accepted and kinds <= {"regle_metier"}:
            assert not valid, body
    assert not disagreements, disagreements[:5]


def test_an_api_client_s_roles_are_the_ones_it_may_hold():
    from unionflow.clients_api.schemas import CreateClientApiRequest
    from unionflow.core.roles import GLOBAL_ROLES, ORGANISATION_STAFF_ROLES

    roles = CreateClientApiRequest.model_json_schema()["properties"]["roles"]["items"]["enum"]
    assert set(roles) == {r.value for r in GLOBAL_ROLES | ORGANISATION_STAFF_ROLES} and "USER" not in roles


def test_the_names_of_a_notification_s_variables_are_the_ones_the_service_takes():
    from unionflow.core.errors import RegleMetier
    from unionflow.notifications.rendu import check_variables
    from unionflow.notifications.schemas import NotificationEnvoi

    validator = jsonschema_rs.validator_for(NotificationEnvoi.model_json_schema()["properties"]["variables"])
    names = ["montant", " montant\n", "a" * 40, "a" * 41, "Nom", "nom", " nom ", "nomComplet", "dateLimite", "1a",
             "a-b", "a b", "_a", "\u00e9te", "\u0005", "a\u0005", "a\u00a0"]
    disagreements = []
    for name in names:
        body = {"organisationId": ID, "tousMembresActifs": True, "sujet": "S", "corps": "C", "variables": {name: "x"}}
        try:
            check_variables(NotificationEnvoi.model_validate(body).variables)
            accepted = True
        except (RegleMetier, ValidationError):
            accepted = False
        # A control character is refused before the model (400 `caractere-controle`, core.routing).
        accepted = accepted and "\u0005" not in name
        if validator.is_valid({name: "x"}) != accepted:
            disagreements.append(name)
    assert not disagreements, disagreements


def test_free_keys_and_their_texts_state_the_control_characters_refused():
    from unionflow.notifications.schemas import NotificationEnvoi

    variables = NotificationEnvoi.model_json_schema()["properties"]["variables"]
    validator = jsonschema_rs.validator_for(variables)
    assert validator.is_valid({"montant": "5 000"})
    assert not validator.is_valid({"montant": "5\u0008000"})


def test_the_ussd_pins_listed_too_simple_are_the_ones_the_service_refuses():
    from unionflow.ussd.pin_service import trop_simple
    from unionflow.ussd.schemas import PIN_TROP_SIMPLES, CreatePinUssdRequest

    every = (f"{n:0{length}d}" for length in range(4, 7) for n in range(10**length))
    assert sorted(pin for pin in every if trop_simple(pin)) == PIN_TROP_SIMPLES
    validator = jsonschema_rs.validator_for(CreatePinUssdRequest.model_json_schema())
    assert not validator.is_valid({"pin": "4321"}) and validator.is_valid({"pin": "4312"})


def test_a_configuration_value_is_never_null_for_the_schema_either():
    from unionflow.configuration.schemas import UpdateConfigurationRequest
    from unionflow.configuration.service import encode
    from unionflow.core.errors import RegleMetier
    from unionflow.models.configuration import TypeValeur

    validator = jsonschema_rs.validator_for(UpdateConfigurationRequest.model_json_schema())
    assert not validator.is_valid({"valeur": None})
    assert all(validator.is_valid({"valeur": v}) for v in ("XOF", 30, 2.5, True, [1], {"a": 1}))
    for kind in TypeValeur:
        with pytest.raises(RegleMetier, match="valeur: obligatoire"):
            encode(kind, None)


def test_an_api_client_s_organisation_roles_need_an_organisation_in_the_schema_too():
    from unionflow.clients_api.schemas import ORGANISATIONS_REQUISES, CreateClientApiRequest
    from unionflow.core.roles import GLOBAL_ROLES

    schema = CreateClientApiRequest.model_json_schema()
    assert ORGANISATIONS_REQUISES in str(schema["allOf"])
    validator = jsonschema_rs.validator_for(schema)
    for roles in (["ADMIN"], ["SUPER_ADMIN", "ADMIN"], ["TRESORIER"], ["ADMIN", "PRESIDENT"]):
        for organisations in (OMIS, [], [ID]):
            body = {"nom": "Compta", "roles": roles,
                    **({"organisationIds": organisations} if organisations is not OMIS else {})}
            # The service's rule (ClientApiService.creer): a role that is not global needs an organisation.
            refused = bool(set(roles) - {r.value for r in GLOBAL_ROLES}) and organisations in (OMIS, [])
            assert validator.is_valid(body) != refused, body
