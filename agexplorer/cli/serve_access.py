"""Who may use `agexplorer serve`: the browser the user opened, and no web page of another site.

Every request (the page, its static files, the WebSocket that drives the explorer, a
download) must carry the server's token: in the URL (``?token=``, as printed at start) or in
the cookie the tokened page sets (``HttpOnly``, ``SameSite=Strict``, named after the port),
which is how the page's own requests carry it. Tokens are compared in constant time. An
``Origin`` header (every browser sends one with a WebSocket) must name the host and port the
request was sent to (its ``Host`` header), so a page of another site cannot drive the
explorer even when it knows the token; and a server listening on loopback answers only
requests addressed to a loopback name, so a site that rebinds its DNS name to 127.0.0.1 is
refused too. ``--no-token`` drops the token, never the Origin and Host checks.
"""

from __future__ import annotations

import hmac
import ipaddress
from urllib.parse import urlsplit

TOKEN_PARAMETER = "token"


def cookie_name(port: int) -> str:
    """The token's cookie: one per port (a browser keeps cookies per host, not per port)."""
    return f"agexplorer-token-{port}"


def refusal(*, token: str | None, given: list[str], origin: str | None, host: str,
            scheme: str, loopback: bool) -> str | None:
    """Why a request is refused, as the one line of a 403 response; None lets it in.

    ``token``: the server's (None: ``--no-token``); ``given``: the tokens the request
    carries (URL, cookie); ``origin`` and ``host``: its headers; ``loopback``: whether the
    server listens on loopback addresses only.
    """
    addressed = _endpoint(f"{scheme}://{host}")
    if origin is not None and _endpoint(origin) != addressed:
        return (f"agexplorer refuses requests from another site (Origin {origin}); open the "
                "address `agexplorer serve` printed.")
    if loopback and not is_loopback_name(addressed[0]):
        return (f"agexplorer listens on this machine only and refuses requests addressed to "
                f"{host}; open the address `agexplorer serve` printed.")
    if token is not None and not any(hmac.compare_digest(t.encode(), token.encode())
                                     for t in given):
        return ("agexplorer needs the token `agexplorer serve` printed: open the address it "
                "printed, with its ?token=.")
    return None


def _endpoint(url: str) -> tuple[str, int | None]:
    """(host, port) of an origin or URL, the scheme's port filled in (("", None) for a
    malformed or opaque one, e.g. ``null``)."""
    try:
        parts = urlsplit(url)
        port = parts.port or {"http": 80, "https": 443, "ws": 80, "wss": 443}.get(parts.scheme)
    except ValueError:  # a port out of range, a bad IPv6 literal
        return "", None
    return (parts.hostname or "").lower(), port


def is_loopback_name(host: str) -> bool:
    """``localhost`` (and names under it) or a loopback address."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
