"""Office packages carrying macros or active controls are refused from their content, whatever the parts are
called; the same packages without them are accepted."""

from __future__ import annotations

import pytest

from tests.documents.fichiers import OLE_HEADER, odf_package, ooxml_package
from tests.factories.documents import upload

STARBASIC = (b'<?xml version="1.0" encoding="UTF-8"?><script:module xmlns:script="http://openoffice.org/2000/script" '
             b'script:name="Module1" script:language="StarBasic">Sub Main\nShell("cmd")\nEnd Sub</script:module>')
VBA_TYPE = "application/vnd.ms-office.vbaProject"


def _refused(response):
    assert response.status_code == 400, response.text
    assert "macros" in response.json()["detail"]


async def _member(factory):
    return await factory.actor(["USER"], organisation=await factory.organisation())


@pytest.mark.parametrize("parts", [
    {"Basic/Standard/Module1.xml": STARBASIC, "Basic/script-lc.xml": b"<library:libraries/>"},
    {"Scripts/python/macro.py": b"import os\nos.system('id')\n"},
], ids=["starbasic", "python-script"])
async def test_odt_with_embedded_scripts_is_refused(client, factory, parts):
    member = await _member(factory)
    _refused(await upload(client, member.headers, odf_package(parts=parts), filename="pv.odt",
                          mime="application/vnd.oasis.opendocument.text"))


@pytest.mark.parametrize(("kind", "extra_types", "parts"), [
    # The VBA project renamed to look like an image, still declared as what it is.
    ("docx", f'<Override PartName="/word/media/image9.png" ContentType="{VBA_TYPE}"/>',
     {"word/media/image9.png": OLE_HEADER}),
    # Declared for a made-up extension.
    ("xlsx", f'<Default Extension="dat" ContentType="{VBA_TYPE}"/>', {"xl/donnees.dat": OLE_HEADER}),
    # Only the relationship gives it away.
    ("docx", "", {"word/_rels/document.xml.rels": b'<Relationships><Relationship Id="rId9" Type="http://schemas.'
                  b'microsoft.com/office/2006/relationships/vbaProject" Target="logo.bin"/></Relationships>',
                  "word/logo.bin": OLE_HEADER}),
    # An ActiveX control part.
    ("docx", '<Default Extension="bin" ContentType="application/vnd.ms-office.activeX"/>',
     {"word/activeX/activeX1.bin": OLE_HEADER}),
    # An Excel 4.0 macro sheet.
    ("xlsx", '<Override PartName="/xl/macrosheets/sheet1.xml" '
             'ContentType="application/vnd.ms-excel.macrosheet+xml"/>', {"xl/macrosheets/sheet1.xml": b"<xm/>"}),
], ids=["renamed-vba", "vba-by-extension", "vba-relationship", "activex", "xlm-macrosheet"])
async def test_ooxml_with_vba_or_active_parts_is_refused(client, factory, kind, extra_types, parts):
    member = await _member(factory)
    content = ooxml_package(kind, extra_types=extra_types, parts=parts)
    _refused(await upload(client, member.headers, content, filename=f"rapport.{kind}",
                          mime="application/octet-stream"))


async def test_office_files_without_macros_are_accepted(client, factory):
    member = await _member(factory)
    odt = await upload(client, member.headers, odf_package(parts={"Pictures/logo.png": b"\x89PNG"}),
                       filename="pv.odt", mime="application/vnd.oasis.opendocument.text")
    assert odt.status_code == 200, odt.text
    # Excel writes printer settings as a binary part: not code.
    xlsx = ooxml_package("xlsx", extra_types='<Default Extension="bin" ContentType="application/vnd.'
                         'openxmlformats-officedocument.spreadsheetml.printerSettings"/>',
                         parts={"xl/printerSettings/printerSettings1.bin": b"\x00" * 64})
    accepted = await upload(client, member.headers, xlsx, filename="budget.xlsx", mime="application/octet-stream")
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["typeMime"].endswith("spreadsheetml.sheet")
