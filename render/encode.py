"""Palette mapping, and PNG bytes from a whole RGB picture (the tournament bracket).

The board and hand images are encoded band by band (:mod:`render.bands`); this is for pictures
drawn once. Palette PNGs are a third of the data of RGB ones. The output depends only on the
pixels: the same picture, the same bytes.
"""

from __future__ import annotations

import io

from PIL import Image

from .palette import palette


def to_palette(image: Image.Image) -> Image.Image:
    """Map an RGB picture to the renderer's palette (no dithering: flat areas stay flat)."""
    return image.quantize(palette=palette(), dither=Image.Dither.NONE)


def png_bytes(image: Image.Image) -> bytes:
    """The picture as PNG bytes (palette, compress level 1, no optimize pass)."""
    buffer = io.BytesIO()
    to_palette(image).save(buffer, "PNG", optimize=False, compress_level=1)
    return buffer.getvalue()
