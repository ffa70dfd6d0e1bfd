"""The client's signature image: a ``data:image/png;base64,`` URL holding a real PNG."""

import binascii
import struct
import zlib

from plumbline.errors import InvalidField
from plumbline.proposal.portal.schemas import MAX_SIGNATURE_BYTES, SIGNATURE_PREFIX

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
MAX_SIDE = 4000  # pixels: a signature pad's image, never a decompression bomb for the PDF


def _refuse(message: str) -> InvalidField:
    return InvalidField("signature", message, error="Validation failed")


def png_of(data_url: str) -> bytes:
    """The PNG bytes of ``data_url``; 400 naming ``signature`` unless it is a well-formed PNG
    (magic, IHDR first, every chunk's CRC, IEND last) of at most 200 KB."""
    if not data_url.startswith(SIGNATURE_PREFIX):
        raise _refuse(f"must be a data URL starting with {SIGNATURE_PREFIX}")
    try:
        data = binascii.a2b_base64(data_url[len(SIGNATURE_PREFIX) :].strip(), strict_mode=True)
    except (binascii.Error, ValueError):
        raise _refuse("is not valid base64") from None
    if len(data) > MAX_SIGNATURE_BYTES:
        raise _refuse("must be at most 200 KB")
    if not data.startswith(PNG_MAGIC):
        raise _refuse("is not a PNG image")
    offset, first, last = len(PNG_MAGIC), True, b""
    while offset < len(data):
        if offset + 12 > len(data):
            raise _refuse("is a truncated PNG image")
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        end = offset + 8 + length
        if end + 4 > len(data):
            raise _refuse("is a truncated PNG image")
        (crc,) = struct.unpack(">I", data[end : end + 4])
        if zlib.crc32(data[offset + 4 : end]) != crc:
            raise _refuse("is a corrupt PNG image")
        if first:
            if kind != b"IHDR" or length != 13:
                raise _refuse("is not a PNG image")
            width, height = struct.unpack(">II", data[offset + 8 : offset + 16])
            if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
                raise _refuse(f"must be at most {MAX_SIDE} pixels wide and high")
            first = False
        last = kind
        offset = end + 4
    if last != b"IEND":
        raise _refuse("is a truncated PNG image")
    return data
