from __future__ import annotations

import hashlib
from pathlib import Path

from tests.documents.fichiers import ELF_BYTES, MZ_BYTES, PDF_BYTES, PNG_BYTES, docx_bytes, plain_zip
from tests.factories.documents import upload
from unionflow.documents.upload import FIELDS


def storage_root(app) -> Path:
    settings = app.state.settings
    return Path(settings.storage_local_dir or settings.data_dir / "documents").resolve()


async def test_upload_pdf_is_stored_under_generated_name(client, factory, app):
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    response = await upload(client, member.headers, PDF_BYTES)
    assert response.status_code == 200, response.text
    doc = response.json()
    assert doc["typeMime"] == "application/pdf" and doc["tailleOctets"] == len(PDF_BYTES)
    assert doc["hashSha256"] == hashlib.sha256(PDF_BYTES).hexdigest()
    assert doc["nomFichier"] == "recu.pdf" and doc["typeDocument"] == "RECU" and doc["visibilite"] == "PRIVE"
    assert doc["contenuDisponible"] is True and doc["proprietaireMembreId"] == str(member.membre.id)
    stored = [p for p in storage_root(app).rglob("*") if p.is_file() and p.read_bytes() == PDF_BYTES]
    assert stored and all(len(p.name) == 32 and "recu" not in str(p) for p in stored)


async def test_path_traversal_name_is_only_metadata(client, factory, app, tmp_path):
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    marker = b"contenu de test traversal " + tmp_path.name.encode()
    for name, expected in (("../../etc/passwd", "passwd.txt"), ("..\\..\\windows\\win.ini.txt", "win.ini.txt"),
                           ("/etc/cron.d/evil.txt", "evil.txt"), ("....", "document.txt")):
        response = await upload(client, member.headers, marker, filename=name, mime="text/plain")
        assert response.status_code == 200, response.text
        assert response.json()["nomFichier"] == expected
        assert response.json()["typeMime"] == "text/plain; charset=utf-8"
    root = storage_root(app)
    hits = [p for p in root.parent.rglob("*") if p.is_file() and p.read_bytes() == marker]
    assert len(hits) == 4 and all(p.is_relative_to(root) and len(p.name) == 32 for p in hits)
    assert not (root.parent.parent / "etc" / "passwd").exists()


async def test_renamed_executables_are_refused(client, factory):
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    for content in (ELF_BYTES, MZ_BYTES, b"#!/bin/sh\nrm -rf /\n"):
        response = await upload(client, member.headers, content, filename="rapport.pdf")
        assert response.status_code == 400 and "exécutable" in response.json()["detail"]
    assert (await upload(client, member.headers, plain_zip(), filename="archive.docx")).status_code == 400
    assert (await upload(client, member.headers, docx_bytes(macro=True), filename="m.docx")).status_code == 400
    assert (await upload(client, member.headers, b"\x00\x01\x02binary", filename="x.bin")).status_code == 400
    # Content says PNG, name says PDF: refused rather than served under a misleading name.
    assert (await upload(client, member.headers, PNG_BYTES, filename="facture.pdf")).status_code == 400


async def test_allowed_types_are_detected_from_content(client, factory):
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    docx = await upload(client, member.headers, docx_bytes(), filename="pv.docx", mime="application/octet-stream")
    assert docx.status_code == 200 and docx.json()["typeMime"].endswith("wordprocessingml.document")
    png = await upload(client, member.headers, PNG_BYTES, filename="photo", mime="application/pdf")
    assert png.json()["typeMime"] == "image/png" and png.json()["nomFichier"] == "photo.png"
    csv = await upload(client, member.headers, b"nom;montant\nAwa;5000\n", filename="liste.csv")
    assert csv.json()["typeMime"] == "text/csv; charset=utf-8"


async def test_oversize_upload_is_413(client, factory, app, monkeypatch):
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    monkeypatch.setattr(app.state.settings, "upload_max_bytes", 1024)
    too_big = PDF_BYTES + b"0" * 2048
    response = await upload(client, member.headers, too_big)
    assert response.status_code == 413
    assert response.headers["content-type"].startswith("application/problem+json")
    exact = await upload(client, member.headers, PDF_BYTES + b"0" * (1024 - len(PDF_BYTES)))
    assert exact.status_code == 200
    incoming = storage_root(app) / ".incoming"
    assert not list(incoming.glob("upload-*"))


async def test_oversize_stream_stops_reading_at_the_limit(client, factory, app, monkeypatch):
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    monkeypatch.setattr(app.state.settings, "upload_max_bytes", 64 * 1024)
    sent = 0
    boundary = "limite"

    async def body():
        nonlocal sent
        yield (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"gros.pdf\"\r\n"
               "Content-Type: application/pdf\r\n\r\n").encode() + PDF_BYTES
        for _ in range(1000):  # 64 MB if read to the end
            sent += 1
            yield b"0" * 65536
        yield f"\r\n--{boundary}--\r\n".encode()

    response = await client.post("/api/documents/upload", content=body(), headers={
        **member.headers, "Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert response.status_code == 413
    assert sent < 10

    # A declared Content-Length over the limit is refused before any byte of the body is read.
    sent = 0
    response = await client.post("/api/documents/upload", content=body(), headers={
        **member.headers, "Content-Type": f"multipart/form-data; boundary={boundary}",
        "Content-Length": str(50 * 1024 * 1024)})
    assert response.status_code == 413 and sent == 0


async def test_upload_input_errors_and_roles(client, factory):
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    assert (await upload(client, member.headers, PDF_BYTES, typeDocument="INCONNU")).status_code == 400
    missing_file = await client.post("/api/documents/upload", headers=member.headers,
                                     data={"description": "x"}, files={"autre": ("a.pdf", PDF_BYTES)})
    assert missing_file.status_code == 400
    not_multipart = await client.post("/api/documents/upload", headers=member.headers, json={"file": "x"})
    assert not_multipart.status_code == 400
    assert (await upload(client, member.headers, b"", filename="vide.txt")).status_code == 400
    user_only = await factory.actor(["USER"], with_membre=False)
    assert (await upload(client, user_only.headers, PDF_BYTES)).status_code == 403
    assert (await upload(client, {}, PDF_BYTES)).status_code == 401


async def test_unknown_form_fields_are_refused_like_unknown_json_fields(client, factory):
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    response = await client.post("/api/documents/upload", headers=member.headers,
                                 files={"file": ("recu.pdf", PDF_BYTES, "application/pdf")},
                                 data={"description": "Reçu", "montant": "5000"})
    assert response.status_code == 400 and "montant" in response.json()["detail"]
    schema = (await client.get("/openapi.json")).json()
    body = schema["paths"]["/api/documents/upload"]["post"]["requestBody"]["content"]["multipart/form-data"]
    assert body["schema"]["additionalProperties"] is False
    assert set(body["schema"]["properties"]) == FIELDS | {"file"}  # what the receiver accepts, and only that
