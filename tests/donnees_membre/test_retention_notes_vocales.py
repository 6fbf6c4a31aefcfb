"""The retention job on voice notes (docs/conformite.md « Durées de conservation »): the audio of a voice note past
the messages' period is deleted — its document, download tickets and file on the storage — as the text of a
message of that age is blanked; the message keeps who spoke, when and how long; a recent note is untouched."""

from __future__ import annotations

import hashlib
import uuid
from datetime import timedelta

from sqlalchemy import select

from tests.donnees_membre.test_retention import RIEN
from tests.messagerie.sons import OGG_OPUS
from unionflow.core.errors import NotFound
from unionflow.core.jobs import Contexte
from unionflow.documents.storage import build_storage
from unionflow.donnees_membre.jobs import RETENTION_DONNEES
from unionflow.models import Conversation, Document, MessageConversation, TelechargementDocument
from unionflow.models.base import utcnow


async def _note(db, storage, tmp_path, org, membre, conversation, quand) -> tuple[Document, MessageConversation]:
    cle = uuid.uuid4().hex
    source = tmp_path / f"{cle}.opus"
    source.write_bytes(OGG_OPUS)
    await storage.put(cle, source, len(OGG_OPUS), hashlib.sha256(OGG_OPUS).hexdigest(), "audio/ogg")
    doc = Document(nom_fichier="note.opus", type_document="AUTRE", visibilite="PRIVE", organisation_id=org.id,
                   proprietaire_sub="sub-awa", proprietaire_membre_id=membre.id, cle_stockage=cle,
                   backend_stockage=storage.backend, type_mime="audio/ogg", taille_octets=len(OGG_OPUS),
                   hash_sha256=hashlib.sha256(OGG_OPUS).hexdigest(), nombre_telechargements=1)
    db.add(doc)
    await db.flush()
    message = MessageConversation(conversation_id=conversation.id, auteur_membre_id=membre.id, type_message="VOCAL",
                                  document_id=doc.id, duree_secondes=12, created_at=quand)
    db.add_all([message, TelechargementDocument(document_id=doc.id, utilisateur_sub="sub-moussa", utilisateur="moussa",
                                                date_telechargement=quand)])
    return doc, message


async def _lire(storage, cle: str) -> bytes | None:
    try:
        return b"".join([morceau async for morceau in await storage.open(cle)])
    except NotFound:
        return None


async def test_old_voice_notes_lose_their_audio_and_recent_ones_keep_it(app, settings, committed_db,
                                                                         committed_factory, tmp_path):
    db, f = committed_db, committed_factory
    storage = build_storage(settings)
    org = await f.organisation()
    awa = await f.membre(org, nom="Ndiaye", prenom="Awa")
    conversation = Conversation(organisation_id=org.id, type_conversation="DIRECTE", cree_par_membre_id=awa.id)
    db.add(conversation)
    await db.flush()
    vieux, recent = (utcnow() - timedelta(days=settings.donnees_messages_conservation_jours + 3),
                     utcnow() - timedelta(days=3))
    doc_vieux, msg_vieux = await _note(db, storage, tmp_path, org, awa, conversation, vieux)
    doc_recent, msg_recent = await _note(db, storage, tmp_path, org, awa, conversation, recent)
    cles = (doc_vieux.cle_stockage, doc_recent.cle_stockage)
    await db.commit()
    assert await _lire(storage, cles[0]) == OGG_OPUS

    contexte = Contexte(app.state.engine, app.state.sessionmaker, settings)
    assert await RETENTION_DONNEES.executer(contexte) == {**RIEN, "notesVocalesSupprimees": 1}

    db.expunge_all()
    documents = set((await db.execute(select(Document.id))).scalars())
    assert doc_vieux.id not in documents and doc_recent.id in documents
    messages = {m.id: m for m in (await db.execute(select(MessageConversation))).scalars()}
    assert (messages[msg_vieux.id].document_id, messages[msg_vieux.id].duree_secondes,
            messages[msg_vieux.id].type_message) == (None, 12, "VOCAL")
    assert messages[msg_recent.id].document_id == doc_recent.id
    assert await _lire(storage, cles[0]) is None and await _lire(storage, cles[1]) == OGG_OPUS
    assert await RETENTION_DONNEES.executer(contexte) == RIEN
