"""``agexplorer daemon start|status|stop``: the background worker the commands share."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from agexplorer.cli.options import PYTHON_HELP


def add_daemon_parser(sub: Any) -> None:
    daemon = sub.add_parser("daemon", help="the background worker the commands share: start "
                            "one now (start), is one running (status), stop it (stop)")
    daemon.add_argument("action", choices=("start", "status", "stop"),
                        help="start: start one now if none runs (the next commands and "
                        "explorers open warm); status: whether one runs for this "
                        "interpreter, and how it is; stop: end it now")
    daemon.add_argument("--python", metavar="PATH", default=None, help=PYTHON_HELP)
    daemon.add_argument("--json", action="store_true", help="print one JSON object")


def cmd_daemon(args: argparse.Namespace) -> int:
    from agexplorer.daemon.client import start, status, stop

    if args.action == "start":
        start(args.python)
    if args.action == "stop":
        place, pid = stop(args.python)
        if args.json:
            print(json.dumps({"stopped": pid is not None, "pid": pid, "socket": place.socket},
                             indent=2))
        elif pid is None:
            print("no background worker runs for this interpreter and environment.")
        else:
            print(f"stopped the background worker (pid {pid}).")
        return 0
    place, found = status(args.python)
    if args.json:
        data: dict[str, Any] = {"running": found is not None, "socket": place.socket}
        if found is not None:
            data.update(pid=found.pid, python=found.executable, started=found.started,
                        idle_limit_s=found.idle_limit, idle_s=round(found.idle_for, 1),
                        answered=found.answered, workers=found.workers,
                        zygote=getattr(found, "zygote", None),
                        explorer=getattr(found, "explorer", None))
        print(json.dumps(data, indent=2))
        return 0
    if found is None:
        print("no background worker runs for this interpreter and environment (the next "
              "command starts one).")
        return 0
    up = time.time() - found.started
    busy = sum(1 for w in found.workers if w["busy"])
    left = max(found.idle_limit - found.idle_for, 0.0) if not busy else found.idle_limit
    print(f"background worker pid {found.pid}, up {up:.0f} s, {found.answered} requests "
          f"answered; Python {found.executable}")
    print(f"TensorFlow workers: {len(found.workers)} ({busy} busy); "
          + (f"stops after {left:.0f} s more without a request" if not busy
             else f"stops {found.idle_limit:.0f} s after the last request ends"))
    print(f"socket: {place.socket}")
    zygote = getattr(found, "zygote", None)  # one of an older agexplorer has none
    print(f"workers forked from a warm zygote ({zygote}): an explorer opened now forks its "
          "own there" if zygote else "workers start the usual way (no warm zygote)")
    explorer = getattr(found, "explorer", None)
    print(f"warm explorer ({explorer}): `agexplorer FILE` opens there, Textual loaded already"
          if explorer else "no warm explorer: `agexplorer FILE` opens cold")
    return 0
