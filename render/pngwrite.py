"""A PNG writer for palette pictures made of horizontal bands compressed one by one.

Each band is deflated on its own (a fresh compressor, flushed to a byte boundary), so a band
that did not change since the last image can reuse its compressed bytes; the bands are then
joined into one zlib stream. A band's bytes depend only on its pixels and the level, so an
image's bytes depend only on its pixels: the same picture, the same bytes, cached or not.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterable
from typing import NamedTuple

from PIL import Image

SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: zlib's header for a 32 KiB window (the level bits are informative only).
_ZLIB_HEADER = b"\x78\x01"
#: An empty, final, fixed-Huffman deflate block: ends the joined stream.
_FINAL_BLOCK = b"\x03\x00"
_ADLER_BASE = 65521


class Band(NamedTuple):
    """Some rows of an image, deflated: the data (byte aligned, not final), and for the zlib
    checksum the Adler-32 and length of the uncompressed scanlines."""

    data: bytes
    adler: int
    length: int
    rows: int


def scanlines(image: Image.Image) -> bytes:
    """The PNG scanlines of a ``P`` picture: each row of indices after a 0 (no filter) byte.

    Palette pictures compress best unfiltered; the filter column is made by pasting the
    picture one pixel to the right on a zeroed picture, so no Python loop touches a row.
    """
    width, height = image.size
    padded = Image.new("P", (width + 1, height), 0)
    padded.paste(image, (1, 0))
    return padded.tobytes()


def compress_band(image: Image.Image, level: int) -> Band:
    """Deflate the rows of a ``P`` picture on their own, at zlib ``level``."""
    raw = scanlines(image)
    compressor = zlib.compressobj(level, zlib.DEFLATED, -15)
    data = compressor.compress(raw) + compressor.flush(zlib.Z_SYNC_FLUSH)
    return Band(data, zlib.adler32(raw), len(raw), image.height)


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings joined, from theirs (zlib's ``adler32_combine``)."""
    rem = second_length % _ADLER_BASE
    sum1 = first & 0xFFFF
    sum2 = (rem * sum1) % _ADLER_BASE
    sum1 = (sum1 + (second & 0xFFFF) + _ADLER_BASE - 1) % _ADLER_BASE
    sum2 = (sum2 + (first >> 16) + (second >> 16) + _ADLER_BASE - rem) % _ADLER_BASE
    return sum1 | (sum2 << 16)


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png_from_bands(width: int, palette: bytes, bands: Iterable[Band]) -> bytes:
    """A palette PNG ``width`` pixels wide from its bands, top to bottom.

    ``palette`` is the RGB triplets of the colours the indices refer to.
    """
    parts = [_ZLIB_HEADER]
    adler, height = 1, 0
    for band in bands:
        parts.append(band.data)
        adler = adler32_combine(adler, band.adler, band.length)
        height += band.rows
    parts.append(_FINAL_BLOCK)
    parts.append(struct.pack(">I", adler))
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    return b"".join(
        (
            SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", palette),
            _chunk(b"IDAT", b"".join(parts)),
            _chunk(b"IEND", b""),
        )
    )
