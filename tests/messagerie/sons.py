"""Audio file contents with real signatures (voice notes)."""

from __future__ import annotations

OGG_OPUS = b"OggS\x00\x02" + b"\x00" * 20 + b"\x01\x13OpusHead\x01\x01" + b"\x00" * 64


MP3_ID3 = b"ID3\x04\x00\x00\x00\x00\x00\x21" + b"\x00" * 64


MP3_FRAME = b"\xff\xfb\x90\x64" + b"\x00" * 64


M4A = b"\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00M4A mp42isom" + b"\x00" * 64


AAC_ADTS = b"\xff\xf1\x50\x80\x02\x1f\xfc" + b"\x00" * 64


WAV = b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00" + b"\x00" * 64
