from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.documents.fichiers import PDF_BYTES
from tests.documents.s3_server import S3Server
from tests.factories.documents import upload
from unionflow.config import Settings
from unionflow.documents.storage import EMPTY_SHA256, S3Storage, build_storage, sigv4_headers

ACCESS, SECRET = "UNIONFLOWTESTKEY", "unionflow-test-secret-key"


def test_sigv4_matches_the_aws_reference_example():
    # "GET Object" example of the AWS Signature Version 4 documentation (Amazon S3 API reference).
    headers = sigv4_headers("GET", "examplebucket.s3.amazonaws.com", "/test.txt", EMPTY_SHA256,
                            access_key="AKIAIOSFODNN7EXAMPLE", secret_key="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                            region="us-east-1", extra={"Range": "bytes=0-9"}, now=datetime(2013, 5, 24, tzinfo=UTC))
    assert headers["authorization"].endswith(
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")


@pytest.fixture(scope="module")
def s3_server():
    server = S3Server(ACCESS, SECRET).start()
    yield server
    server.stop()


def _storage(server: S3Server, tmp_path, secret: str = SECRET) -> S3Storage:
    settings = Settings(storage_backend="s3", s3_endpoint_url=server.url, s3_bucket="unionflow-docs",
                        s3_access_key=ACCESS, s3_secret_key=secret, data_dir=tmp_path)
    storage = build_storage(settings)
    assert isinstance(storage, S3Storage)
    return storage


async def test_upload_and_download_through_s3(client, factory, app, s3_server, tmp_path, monkeypatch):
    monkeypatch.setattr(app.state, "document_storage", _storage(s3_server, tmp_path), raising=False)
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    doc = await upload(client, member.headers, PDF_BYTES)
    assert doc.status_code == 200, doc.text
    stored = [p for p in s3_server.objects if p.startswith("/unionflow-docs/")]
    assert len(stored) == 1 and s3_server.objects[stored[0]] == (PDF_BYTES, "application/pdf")
    assert len(stored[0].rsplit("/", 1)[1]) == 32
    ticket = (await client.post(f"/api/documents/{doc.json()['id']}/telechargement", headers=member.headers)).json()
    content = await client.get(ticket["url"], headers=member.headers)
    assert content.status_code == 200 and content.content == PDF_BYTES
    assert content.headers["x-content-type-options"] == "nosniff"
    assert not list((tmp_path / "uploads-tmp").glob("upload-*"))


async def test_s3_refusal_is_a_502_and_nothing_is_recorded(client, factory, app, s3_server, tmp_path, monkeypatch):
    monkeypatch.setattr(app.state, "document_storage", _storage(s3_server, tmp_path, secret="wrong-secret"),
                        raising=False)
    member = await factory.actor(["USER"], organisation=await factory.organisation())
    response = await upload(client, member.headers, PDF_BYTES)
    assert response.status_code == 502
    assert (await client.get("/api/documents/mes-documents", headers=member.headers)).json() == []
    missing = _storage(s3_server, tmp_path)
    with pytest.raises(Exception, match="introuvable"):
        await missing.open("0" * 32)
