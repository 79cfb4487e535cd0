"""The interpreter the worker runs under: chosen, probed for Python and TensorFlow, or refused."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass

from agexplorer.model.errors import AgxError
from agexplorer.model.support import PYTHON_OLDEST, TESTED, TF_REQUIREMENT, tf_supported
from agexplorer.worker.choice import choose

PROBE_TIMEOUT = 20.0
# The distributions TensorFlow ships as; the first one installed is the one `import` finds.
TF_DISTRIBUTIONS = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-intel",
                    "tensorflow-macos", "tf-nightly")
# Run by the chosen interpreter: metadata only (importing TensorFlow takes seconds), and
# syntax any Python reads, so that an old one still says which version it is.
_PROBE = """\
import json, platform, sys
try:
    from importlib import metadata
except ImportError:
    metadata = None
found = None
for name in __NAMES__:
    if metadata is None:
        break
    try:
        found = [name, metadata.version(name)]
        break
    except Exception:
        pass
print(json.dumps({"version": platform.python_version(), "info": list(sys.version_info[:2]),
                  "implementation": platform.python_implementation(), "tensorflow": found}))
""".replace("__NAMES__", repr(TF_DISTRIBUTIONS))
# How a sentence names the interpreter, by where the choice came from.
_SHOWN = {"--python": "--python {}", "AGX_PYTHON": "AGX_PYTHON={}",
          "VIRTUAL_ENV": "the active virtual environment's {}"}
_WANTED = f"Python {PYTHON_OLDEST[0]}.{PYTHON_OLDEST[1]} or newer with TensorFlow {TESTED}"


@dataclass(frozen=True)
class Interpreter:
    """A Python interpreter the worker may run under: its path, where the choice came from
    (``--python``, ``AGX_PYTHON``, ``VIRTUAL_ENV``), and what the probe found in it."""

    executable: str
    source: str
    version: str = ""
    tensorflow: str = ""  # the version of the installed TensorFlow distribution

    @property
    def shown(self) -> str:
        """How a sentence names it: ``--python PATH``, ``AGX_PYTHON=PATH``..."""
        return _SHOWN.get(self.source, "{} ({})").format(self.executable, self.source)

    def start_failure(self, ended: str, log: str) -> AgxError:
        """Its worker ended (``ended``: "exited with status 1") while starting, most often
        because its TensorFlow does not import: one sentence naming it and the log's last
        line, the log's tail below."""
        lines = [line for line in log.splitlines() if line.strip()]
        last = f" ({lines[-1].strip()})" if lines else ""
        # Only what follows our own frames: the user's TensorFlow, not agexplorer's traceback.
        ours = [i for i, line in enumerate(lines) if line.lstrip().startswith("File ")
                and f"{os.sep}agexplorer{os.sep}" in line]
        tail = lines[ours[-1] + 2:] if ours else lines
        return AgxError("worker-start", f"the TensorFlow worker under {self.shown} {ended} "
                        f"while starting{last}", advice=f"check that `{self.executable} -c \"import "
                        "tensorflow\"` works (the end of its log follows).", exit_code=1,
                        details=tail[-15:])


_cache: dict[tuple[str, str, float], Interpreter] = {}
_cache_lock = threading.Lock()


def resolve(flag: str | None, environ: Mapping[str, str] | None = None) -> Interpreter | None:
    """The chosen interpreter (see :func:`choose`), probed and checked: AgxError in one
    sentence when it cannot host the worker; None for this interpreter."""
    chosen = choose(flag, environ)
    if chosen is None:
        return None
    path, source = chosen
    if os.sep not in path:  # a name on PATH: --python python3.12
        path = shutil.which(path) or path
    full = os.path.abspath(os.path.expanduser(path))
    if full == sys.executable:
        return None
    return probe(full, source, environ)


def probe(path: str, source: str = "--python",
          environ: Mapping[str, str] | None = None) -> Interpreter:
    """Ask ``path`` for its Python and TensorFlow versions (cached per file for this
    process's lifetime); AgxError naming what was found when it is not supported."""
    shown = Interpreter(path, source).shown
    try:
        real = os.path.realpath(path)
        mtime = os.stat(real).st_mtime
    except OSError:
        raise AgxError("bad-python", f"{shown}: no such file", advice="pass the path of a Python "
                       f"interpreter, {_WANTED}.", exit_code=2) from None
    # A venv's python is a link to the base one: the same real file, another site-packages.
    key = (path, real, mtime)
    with _cache_lock:
        found = _cache.get(key)
    if found is None:
        found = _checked(_ask(path, shown, environ), path, source, shown)
        with _cache_lock:
            _cache[key] = found
    return found


def _ask(path: str, shown: str, environ: Mapping[str, str] | None) -> dict:
    if not os.access(path, os.X_OK) or os.path.isdir(path):
        raise AgxError("bad-python", f"{shown} is not an executable file", advice="pass the path of a "
                       f"Python interpreter, {_WANTED}.", exit_code=2)
    try:
        done = subprocess.run([path, "-c", _PROBE], capture_output=True, timeout=PROBE_TIMEOUT,
                              stdin=subprocess.DEVNULL, check=False,
                              env=dict(os.environ if environ is None else environ))
    except subprocess.TimeoutExpired:
        raise AgxError("bad-python", f"{shown} did not answer within {PROBE_TIMEOUT:g} s",
                       advice=f"check that it runs, or pass another interpreter, {_WANTED}.",
                       exit_code=2) from None
    except OSError as exc:
        raise AgxError("bad-python", f"{shown} could not be run ({exc.strerror or exc})", advice="pass "
                       f"the path of a Python interpreter, {_WANTED}.", exit_code=2) from None
    try:
        answer = json.loads(done.stdout.decode("utf-8", "replace").strip().splitlines()[-1])
        if not isinstance(answer, dict):
            raise ValueError(answer)
    except (ValueError, IndexError):
        raise AgxError("bad-python", f"{shown} did not answer as a Python interpreter does "
                       f"(exit status {done.returncode})", advice="pass the path of a Python "
                       f"interpreter, {_WANTED}.", exit_code=2) from None
    return answer


def _checked(answer: dict, path: str, source: str, shown: str) -> Interpreter:
    version = str(answer.get("version", "?"))
    implementation = str(answer.get("implementation", "?"))
    info = tuple(answer.get("info") or ())
    if implementation != "CPython" or info < PYTHON_OLDEST:
        name = "Python" if implementation == "CPython" else implementation
        raise AgxError("bad-python", f"{shown} is {name} {version}", advice="agexplorer's worker needs "
                       f"C{_WANTED}: pass another interpreter.", exit_code=2)
    tf = answer.get("tensorflow")
    if not tf:
        raise AgxError("bad-python", f"{shown} has no TensorFlow (it is Python {version})", advice="install "
                       f"TensorFlow {TESTED} there (`{path} -m pip install '{TF_REQUIREMENT}'`) "
                       "or pass another interpreter.", exit_code=2)
    name, tf_version = str(tf[0]), str(tf[1])
    if not tf_supported(tf_version):
        raise AgxError("bad-python", f"{shown} has TensorFlow {tf_version} ({name})", advice="agexplorer "
                       f"supports TensorFlow {TESTED}: install one of those there "
                       f"(`{path} -m pip install '{TF_REQUIREMENT}'`) or pass another "
                       "interpreter.", exit_code=2)
    return Interpreter(path, source, version, tf_version)


def path_folder(tmpdir: str) -> str:
    """A folder in the worker's temp folder holding only ``agexplorer`` (a link to this
    package), for the worker's PYTHONPATH: agexplorer's worker code runs under another
    interpreter without being installed there, and nothing else of ours (our TensorFlow,
    our site-packages) shadows that interpreter's own."""
    folder = os.path.join(tmpdir, "pythonpath")
    os.mkdir(folder)
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.symlink(package, os.path.join(folder, "agexplorer"), target_is_directory=True)
    return folder
