"""The images on a PDF page, for OCR of a scan: each decoded in memory, none written to disk.

pypdf decodes most image streams itself. JBIG2, the usual compression of black-and-white scans,
it decodes by writing the stream to a temporary folder for the jbig2dec program; here the
stream goes to jbig2dec through pipes instead (DESIGN §2: no plaintext outside the vault), and
pypdf runs with jbig2dec switched off, so it cannot take that path even for an image found
some other way. An image's size is read from its dictionary and checked before its pixels are
decoded.
"""

from __future__ import annotations

import io
import os
import shutil
import struct
import subprocess
import threading
import zlib
from collections.abc import Iterator
from typing import Any

from PIL import Image, ImageChops
from pypdf import apply_configuration
from pypdf.errors import DependencyError, PyPdfError

from cairn.ingest import failures, lifetime
from cairn.ingest.document import ExtractionError

# What pypdf raises on a damaged file or page (its own errors, and what its parsing lets out),
# and what decoding a damaged image raises besides (Pillow, zlib).
PDF_DAMAGED = (PyPdfError, ValueError, KeyError, TypeError)
IMAGE_DAMAGED = (*PDF_DAMAGED, OSError, EOFError, SyntaxError, struct.error, zlib.error)
# Images narrower or lower than this (rules, bullets, icons) hold no line of readable text.
MIN_SIDE = 16
# jbig2dec's own memory cap (its -M): a 40-megapixel bilevel page is 5 MB, its symbol
# dictionaries a few more; a stream that wants far more is malformed.
JBIG2_MEMORY_BYTES = 256 * 2**20
JBIG2_TIMEOUT_S = 120.0
JBIG2 = "/JBIG2Decode"
JBIG2DEC_MISSING = (
    "this PDF holds scans compressed as JBIG2, and reading them needs jbig2dec: install it "
    "(Debian/Ubuntu: apt-get install jbig2dec) and add the file again."
)


def page_images(page: Any, max_pixels: int) -> Iterator[Image.Image | str]:
    """Each image on the page that can hold text, decoded, in the page's order; for an image
    left unread, a sentence saying why. A missing jbig2dec fails the file (ExtractionError)."""
    try:
        with apply_configuration(jbig2dec_binary=None):  # see the module's docstring
            keys = list(page.images.keys())
    except Exception as exc:  # a damaged content stream: this page's images, not the file
        reason = failures.part_reason(exc, "the PDF reader", PDF_DAMAGED)
        yield f"its images could not be listed ({reason})"
        return
    for key in keys:
        stream = _xobject(page, key)  # None for an image written inline in the content
        width, height = _declared_size(stream)
        if width * height > max_pixels:
            yield _too_large(width * height, max_pixels)
            continue
        if stream is not None and min(width, height) < MIN_SIDE:
            continue
        try:
            image = _decode(page, key, stream)
        except ExtractionError:
            raise
        except DependencyError as exc:  # pypdf's words name what is missing
            yield f"an image could not be decoded: {exc}"
            continue
        except Exception as exc:  # a damaged or unusual image: the page's others still count
            reason = failures.part_reason(exc, "the PDF reader", IMAGE_DAMAGED)
            yield f"an image could not be decoded ({reason})"
            continue
        if image is None or min(image.size) < MIN_SIDE:
            continue
        if image.width * image.height > max_pixels:
            yield _too_large(image.width * image.height, max_pixels)
            continue
        yield image


def _decode(page: Any, key: str | list[str], stream: Any) -> Image.Image | None:
    if JBIG2 in _filters(stream):
        return _jbig2(stream)
    with apply_configuration(jbig2dec_binary=None):
        picture: Image.Image | None = page.images[key].image
        return picture


def _xobject(page: Any, key: str | list[str]) -> Any:
    """The image's stream object: keys are ``/Im0``, or a path through forms like
    ``["/Fm0", "/Im0"]``; inline images (``~0~``) have none."""
    names = [key] if isinstance(key, str) else list(key)
    if names[-1].startswith("~"):
        return None
    holder = page
    try:
        for name in names:
            holder = holder["/Resources"]["/XObject"][name].get_object()
    except (KeyError, TypeError, AttributeError):
        return None
    return holder


def _declared_size(stream: Any) -> tuple[int, int]:
    if stream is None:
        return 0, 0
    try:
        return int(stream.get("/Width", 0)), int(stream.get("/Height", 0))
    except (TypeError, ValueError):
        return 0, 0


def _filters(stream: Any) -> list[str]:
    if stream is None:
        return []
    found = stream.get("/Filter")
    found = found.get_object() if hasattr(found, "get_object") else found
    if found is None:
        return []
    return [str(name) for name in found] if isinstance(found, list) else [str(found)]


def _too_large(pixels: int, max_pixels: int) -> str:
    return (
        f"an image of {pixels / 1e6:.0f} megapixels was left unread; Cairn reads images up to "
        f"{max_pixels // 1_000_000} megapixels"
    )


def _jbig2(stream: Any) -> Image.Image:
    """A JBIG2 image through jbig2dec: the page's stream on its standard input, the shared
    symbols (``/JBIG2Globals``) through a second pipe, the picture back as PBM on its output."""
    if _filters(stream) != [JBIG2]:
        raise ValueError("JBIG2 behind another filter")  # rare; pypdf would use a temp folder
    program = shutil.which("jbig2dec")
    if program is None:
        raise ExtractionError(JBIG2DEC_MISSING)
    params = stream.get("/DecodeParms")
    params = params.get_object() if hasattr(params, "get_object") else params
    if isinstance(params, list):
        params = params[0].get_object() if params else None
    shared = params.get("/JBIG2Globals") if isinstance(params, dict) else None
    symbols = shared.get_object().get_data() if shared is not None else b""
    # The stream as stored: get_data() would send it through pypdf's own JBIG2 decoder.
    data: bytes = stream._data
    read_end, write_end = os.pipe()
    try:
        process = subprocess.Popen(  # noqa: S603 - a fixed argument list, no shell
            [program, "--embedded", "--quiet", "--format", "pbm", "-M", str(JBIG2_MEMORY_BYTES),
             "--output", "-", f"/dev/fd/{read_end}", "/dev/stdin"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=(read_end,),
            preexec_fn=lifetime.programs_end_with_us(),
        )  # fmt: skip
    except OSError:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    writer = threading.Thread(target=_write_all, args=(write_end, symbols), daemon=True)
    writer.start()
    try:
        picture, errors = process.communicate(data, timeout=JBIG2_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    finally:
        writer.join()
    if process.returncode != 0 or not picture:
        raise ValueError(errors.decode("utf-8", "replace").strip() or "jbig2dec failed")
    image: Image.Image = Image.open(io.BytesIO(picture), formats=["PPM"])
    image.load()
    if [float(value) for value in stream.get("/Decode", [0, 1])] == [1.0, 0.0]:
        image = ImageChops.invert(image)
    return image


def _write_all(descriptor: int, data: bytes) -> None:
    try:
        with os.fdopen(descriptor, "wb") as pipe:
            pipe.write(data)
    except BrokenPipeError:  # jbig2dec stopped early; its exit code says why
        pass
