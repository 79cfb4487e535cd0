"""`agexplorer serve [PATH] [--host H] [--port N] [--no-token]`: the explorer in a browser, one
per tab, for the browser the user opened only (serve_access.py); each tab's explorer runs with
``--served``, in a private session of its own (state/session.py)."""

from __future__ import annotations

import argparse
import errno
import ipaddress
import os
import secrets
import shlex
import socket
import sys
from typing import Any

from agexplorer.cli.options import PYTHON_HELP, positive
from agexplorer.cli.serve_access import TOKEN_PARAMETER, cookie_name, refusal
from agexplorer.model.errors import AgxError

DEFAULT_PORT = 8000


def add_serve_parser(sub: Any) -> None:
    """The ``serve`` subcommand."""
    serve = sub.add_parser("serve", help="serve the explorer to a web browser (each browser "
                           "tab gets its own explorer; it runs code: see --host)")
    serve.add_argument("path", nargs="?", metavar="PATH[::FUNC]",
                       help="what the explorer opens (default: the lesson's samples)")
    serve.add_argument("--tour", action="store_true", help="each browser tab opens the "
                       "lesson tour on its own copies of the samples (a classroom)")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default "
                       "127.0.0.1: this machine only; 0.0.0.0 lets anyone who reaches the port "
                       "run code here)")
    serve.add_argument("--port", type=port_number, default=DEFAULT_PORT, metavar="N",
                       help=f"the port to listen on (default {DEFAULT_PORT})")
    serve.add_argument("--timeout", type=positive, default=None, metavar="SECONDS",
                       help="give up on an analysis after this long (default 30)")
    serve.add_argument("--python", metavar="PATH", default=None, help=PYTHON_HELP)
    serve.add_argument("--no-token", action="store_true", help="let in a browser without the "
                       "token in the printed address (anyone who reaches the port can then "
                       "run code here; pages of other sites are still refused)")


def port_number(text: str) -> int:
    """A TCP port, 1 to 65535, or argparse's error naming what is wrong."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a port number") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"'{text}' is not a port from 1 to 65535")
    return value


def explorer_command(args: argparse.Namespace) -> str:
    """The shell command each browser tab runs: this Python's explorer on PATH, served (in a
    private session folder of its own)."""
    argv = [sys.executable, "-m", "agexplorer", "--served"]
    if args.timeout is not None:
        argv += ["--timeout", f"{args.timeout:g}"]
    if args.python:
        argv += ["--python", args.python]
    if args.path:
        path, sep, function = args.path.partition("::")
        argv.append(os.path.abspath(path) + sep + function)
    elif args.tour:
        argv.append("tour")
    return shlex.join(argv)


def loopback_only(addresses: list[str]) -> bool:
    """Whether every address the server listens on is a loopback one."""
    return bool(addresses) and all(ipaddress.ip_address(a.split("%")[0]).is_loopback
                                   for a in addresses)


def exposure_warning(host: str, port: int, addresses: list[str],
                     token: bool = True) -> str | None:
    """One line when ``host`` is reachable from other machines, or when ``token`` is off
    (``--no-token``): the explorer runs code."""
    if loopback_only(addresses):
        if token:
            return None
        return (f"agexplorer: warning: --no-token lets anyone who can reach port {port} on this "
                "machine run code as you (the explorer runs what it opens, and there is no "
                "password); pages of other sites are still refused.")
    if token:
        return (f"agexplorer: warning: --host {host} lets anyone who can reach port {port} and "
                "sees the address with its token (sent unencrypted) run code on this machine "
                "(the explorer runs what it opens).")
    return (f"agexplorer: warning: --host {host} lets anyone who can reach port {port} run "
            "code on this machine (the explorer runs what it opens, and there is no password).")


def check_listen(host: str, port: int) -> list[str]:
    """The addresses ``host`` names, once a listening socket could be bound to the first of
    them; a bad host or a busy port is one sentence before any server starts."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        raise AgxError("bad-arguments", f"--host {host}: no such address", advice="give an address of "
                       "this machine, e.g. --host 127.0.0.1.") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        # As the server's own socket does: a port left in TIME_WAIT is free to take.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise _listen_error(host, port, exc) from None
    return [str(info[4][0]) for info in infos]


def _listen_error(host: str, port: int, exc: OSError) -> AgxError:
    if exc.errno == errno.EADDRINUSE:
        return AgxError("bad-arguments", f"port {port} on {host} is already in use", advice="stop what "
                        f"uses it or give another, e.g. --port {port % 65535 + 1}.")
    if exc.errno == errno.EACCES:
        return AgxError("bad-arguments", f"port {port} needs administrator rights here", advice="give "
                        "one above 1023, e.g. --port 8000.")
    return AgxError("bad-arguments", f"cannot listen on {host} port {port} ({exc.strerror or exc});"
                    " give an address of this machine, e.g. --host 127.0.0.1.")


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the explorer until Ctrl+C (or SIGTERM); each browser tab runs its own explorer
    process, which ends (with its TensorFlow worker) when the tab closes."""
    if args.tour and args.path:
        raise AgxError("bad-arguments", "--tour opens the tour on copies of the lesson's "
                       "samples, not on a PATH", advice="give either --tour or a PATH.")
    if args.path:
        path = args.path.partition("::")[0]
        if not os.path.exists(path):
            raise AgxError("missing-file", f"{path}: no such file or folder", advice="give the PATH the "
                           "explorer should open, or none for the lesson's samples.")
    addresses = check_listen(args.host, args.port)
    try:
        server_class = _server_class()
    except ImportError:
        raise AgxError("missing-dependency", "serving needs the textual-serve package",
                       advice="install it with `pip install textual-serve`.") from None
    token = None if args.no_token else secrets.token_urlsafe(32)
    warning = exposure_warning(args.host, args.port, addresses, token is not None)
    if warning:
        print(warning, file=sys.stderr)
    wildcard = args.host in ("0.0.0.0", "::", "")
    shown = f"http://{socket.gethostname() if wildcard else _url_host(args.host)}:{args.port}/"
    if token is not None:  # as Jupyter does: the address to open, token included
        shown += f"?{TOKEN_PARAMETER}={token}"
    print(f"agexplorer: serving the explorer on {shown} (each browser tab runs its own; "
          "Ctrl+C stops it).", flush=True)
    server = server_class(explorer_command(args), host=args.host, port=args.port,
                          title="agexplorer", token=token, loopback=loopback_only(addresses))
    try:
        server.serve()
    except OSError as exc:  # lost the port between the check and the server's own bind
        raise _listen_error(args.host, args.port, exc) from None
    return 0


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


# textual-serve hands a download (a saved SVG, a served session's saved file) from the app to
# the browser in chunks of 1 KB, each asked for and waited for 4 s at most: a 200 KB SVG is
# 200 round trips through the app's event loop, and on a loaded machine one of them late
# cancels the download (seen: Chromium's "Download.path: canceled" with 4 test processes on
# 2 cores). Bigger chunks and a longer wait, set on its module (private names: checked,
# and left as they are when this textual-serve lacks them; tests/test_serve.py).
DOWNLOAD_TUNING = {"DOWNLOAD_CHUNK_SIZE": 64 * 1024, "DOWNLOAD_TIMEOUT": 30}


def tune_downloads() -> list[str]:
    """Set ``DOWNLOAD_TUNING`` on textual-serve's download manager; the names it lacks."""
    from textual_serve import download_manager

    lacking = [name for name in DOWNLOAD_TUNING
               if not isinstance(getattr(download_manager, name, None), int)]
    if not lacking:
        for name, value in DOWNLOAD_TUNING.items():
            setattr(download_manager, name, value)
    return lacking


def _server_class() -> type:
    """textual-serve's Server, made to fit: every request passes serve_access's checks
    first (the token, the Origin, the Host), and the tokened page sets the cookie its own
    requests carry the token in; the page's websocket follows the address the browser used
    (so a class that reaches us by our name or IP connects back to it, where the stock page
    would point every browser at --host, e.g. 0.0.0.0); the page asks nothing of another
    machine (serve_page.py: its font is the one textual-serve ships), and its banner is
    replaced by our one line."""
    import logging

    import aiohttp_jinja2
    from aiohttp import web
    from textual_serve.server import Server

    from agexplorer.cli.serve_page import OfflineTemplates

    tune_downloads()

    class ExplorerServer(Server):
        def __init__(self, command: str, *, token: str | None, loopback: bool,
                     **kwargs: Any) -> None:
            super().__init__(command, **kwargs)
            self.token, self.loopback = token, loopback

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            aiohttp_jinja2.get_env(app).loader = OfflineTemplates(self.templates_path)
            app.middlewares.append(self.guard)
            return app

        @web.middleware
        async def guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
            """Refuse (403, one line) what serve_access refuses; the page sets the cookie."""
            cookie = cookie_name(self.port)
            given = [t for t in (request.query.get(TOKEN_PARAMETER), request.cookies.get(cookie))
                     if t]
            why = refusal(token=self.token, given=given, origin=request.headers.get("Origin"),
                          host=request.host, scheme=request.scheme, loopback=self.loopback)
            if why is not None:
                return web.Response(status=403, text=why + "\n")
            response = await handler(request)
            if request.path == "/" and self.token is not None:
                # The page's static files, WebSocket and downloads carry the token in this
                # cookie; the address with the token is not sent on to other sites.
                response.set_cookie(cookie, self.token, httponly=True, samesite="Strict")
                response.headers["Referrer-Policy"] = "no-referrer"
            return response

        async def handle_index(self, request: web.Request) -> Any:
            # Set and read with no await between: requests cannot interleave here.
            self.public_url = f"{request.scheme}://{request.host}"
            return await super().handle_index(request)

        async def on_startup(self, app: web.Application) -> None:
            return None

        def initialize_logging(self) -> None:
            super().initialize_logging()  # its errors still show; a line per request does not
            logging.getLogger().setLevel(logging.WARNING)

    return ExplorerServer
