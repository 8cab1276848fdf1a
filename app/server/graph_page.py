"""The graph server's one page: it draws the graph around a memory, in the browser.

The page, its script and its style are static files (``app/server/web/``), public like /v1/health:
they hold no memory content, so serving them needs no token. The script asks for the token in
a password field, keeps it in a variable only (never in storage, the address or a cookie, so a
closed tab forgets it) and sends it as ``Authorization: Bearer`` to the JSON endpoints of the
same origin. The Content-Security-Policy lets the page run only its own script and style and
talk only to this server; nothing is loaded from elsewhere, and labels are set as text, never
parsed as markup.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
_FILES = {
    "/v1/view": ("graph_view.html", "text/html; charset=utf-8"),
    "/v1/view.js": ("graph_view.js", "text/javascript; charset=utf-8"),
    "/v1/view.css": ("graph_view.css", "text/css; charset=utf-8"),
}
PATHS = tuple(_FILES)


@dataclass(frozen=True)
class Asset:
    body: bytes
    content_type: str


@functools.cache
def asset(path: str) -> Asset:
    """The file served at ``path`` (one of PATHS), read once from the installed package."""
    name, content_type = _FILES[path]
    return Asset(
        resources.files("cairn.app.server").joinpath("web", name).read_bytes(), content_type
    )
