"""Run `agexplorer check` on the samples under each supported TensorFlow, through --python.

Not CI: it builds one virtual environment per TensorFlow release (``/tmp/agx-tf-VERSION``,
reused when it already holds that release; an install takes minutes and about 2 GB), then,
from this checkout, runs ``agexplorer check samples/`` against the committed golden file,
``agexplorer report`` on one sample and ``agexplorer devices``, each with ``--python`` set to
that environment's interpreter. It prints one Markdown table (the README's): the TensorFlow
and Keras in use, the functions checked, whether every verdict matches the golden file, the
op-count differences with the cause the check names, and the capabilities that release lost.

    python benchmarks/tf_versions.py                 # every release below
    python benchmarks/tf_versions.py --only 2.16.2   # one of them
    python benchmarks/tf_versions.py --build-only    # just the environments
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from agexplorer.model.keras import keras_text  # noqa: E402 - this checkout's, not an installed one

GOLDEN = os.path.join(ROOT, "tests", "golden", "check_samples.json")
SAMPLES = os.path.join(ROOT, "samples")
REPORTED = os.path.join(SAMPLES, "s6_2_bad_loop.py") + "::bad_loop"  # a report per release
INSTALL_TIMEOUT = 1800  # seconds: a TensorFlow wheel is about 600 MB
COMMAND_TIMEOUT = 900


@dataclass(frozen=True)
class Release:
    """One TensorFlow release to try, and whether tf.keras is routed to tf-keras (Keras 2)."""

    tensorflow: str
    tf_keras: bool = False

    @property
    def name(self) -> str:
        return self.tensorflow + ("-tf-keras" if self.tf_keras else "")

    @property
    def folder(self) -> str:
        return f"/tmp/agx-tf-{self.name}"

    @property
    def python(self) -> str:
        return os.path.join(self.folder, "bin", "python")

    @property
    def requirements(self) -> list[str]:
        wanted = [f"tensorflow=={self.tensorflow}", "gast", "numpy"]
        minor = ".".join(self.tensorflow.split(".")[:2])
        return wanted + ([f"tf-keras~={minor}.0"] if self.tf_keras else [])

    @property
    def env(self) -> dict[str, str]:
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        env.pop("TF_USE_LEGACY_KERAS", None)
        env.pop("AGX_PYTHON", None)
        if self.tf_keras:
            env["TF_USE_LEGACY_KERAS"] = "1"
        return env


RELEASES = (Release("2.15.1"), Release("2.16.2"), Release("2.18.1"), Release("2.20.0"),
            Release("2.21.0"), Release("2.21.0", tf_keras=True))


@dataclass
class Row:
    """What one release gave."""

    release: Release
    keras: str = "?"
    checked: str = "?"
    identical: str = "?"
    ops: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    report: str = "?"
    refused: str = ""


def _installed(release: Release) -> bool:
    """Whether the environment exists and holds the release (metadata only: no import)."""
    if not os.path.exists(release.python):
        return False
    probe = ("from importlib import metadata; import sys; "
             f"sys.exit(metadata.version('tensorflow') != {release.tensorflow!r})")
    return subprocess.run([release.python, "-c", probe], capture_output=True,
                          check=False).returncode == 0 and (
        not release.tf_keras or subprocess.run(
            [release.python, "-c", "import importlib.util, sys; "
             "sys.exit(importlib.util.find_spec('tf_keras') is None)"],
            capture_output=True, check=False).returncode == 0)


def build(release: Release) -> None:
    """Create the environment and install the release into it, unless it is there."""
    if _installed(release):
        print(f"{release.folder}: reused", file=sys.stderr)
        return
    print(f"{release.folder}: installing {' '.join(release.requirements)}...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", release.folder], check=True)
    subprocess.run([release.python, "-m", "pip", "install", "-q", *release.requirements],
                   check=True, timeout=INSTALL_TIMEOUT)


def agexplorer(release: Release, *args: str) -> subprocess.CompletedProcess[str]:
    """``agexplorer ARGS --python <the release's interpreter>`` from this checkout."""
    return subprocess.run([sys.executable, "-m", "agexplorer", *args, "--python",
                           release.python], capture_output=True, text=True, cwd=ROOT,
                          env=release.env, timeout=COMMAND_TIMEOUT, check=False)


def _json(done: subprocess.CompletedProcess[str]) -> dict:
    try:
        data = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].removeprefix("agexplorer: ") if lines else ""


def measure(release: Release) -> Row:
    """Devices, the check of every sample and one report under the release."""
    row = Row(release)
    devices = agexplorer(release, "devices", "--json")
    if devices.returncode != 0:
        row.refused = _last_line(devices.stderr)
        return row
    info = _json(devices)
    keras = info.get("keras") or {}
    row.keras = keras_text(keras.get("version", ""), keras.get("flavour", "?"))
    row.lost = list(info.get("warnings", []))
    check = agexplorer(release, "check", SAMPLES, "--golden", GOLDEN, "--json")
    data = _json(check)
    if not data:
        row.refused = _last_line(check.stderr)
        return row
    changes = [c for c in data.get("changes", []) if not c.get("info")]
    counts = [c for c in changes if c["kind"] in ("ops", "traces")]
    row.checked = str(data.get("checked", "?"))
    row.identical = "yes" if len(counts) == len(changes) else \
        "no: " + "; ".join(c["message"] for c in changes if c not in counts)
    row.ops = [f"{c['function']}: {c['before']} -> {c['after']}" for c in counts]
    for note in data.get("changes", []):  # the notes that name a likely cause
        if note.get("info") and note.get("explains"):
            cause = "Keras" if note["kind"] == "keras" else "TensorFlow"
            row.ops.append(f"likely cause (as check says): {cause}, {note['after']} where the "
                           f"golden file had {note['before']}")
    report = agexplorer(release, "report", REPORTED, "--budget", "0.2")
    row.report = "exit 0" if report.returncode == 0 else \
        f"exit {report.returncode}: {_last_line(report.stderr)}"
    return row


def table(rows: list[Row]) -> str:
    """The Markdown table."""
    lines = ["| TensorFlow | Keras (tf.keras) | samples checked | verdicts as golden | "
             "op-count differences (and the likely cause the check names) | "
             "lost capabilities | report |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        name = row.release.tensorflow + (" + tf-keras (TF_USE_LEGACY_KERAS=1)"
                                         if row.release.tf_keras else "")
        if row.refused:
            lines.append(f"| {name} | {row.keras} | refused | - | - | - | {row.refused} |")
            continue
        lines.append(f"| {name} | {row.keras} | {row.checked} | {row.identical} | "
                     f"{'<br>'.join(row.ops) or 'none'} | {'<br>'.join(row.lost) or 'none'} | "
                     f"{row.report} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="a release by name (2.16.2, 2.21.0-tf-keras); repeatable")
    parser.add_argument("--build-only", action="store_true", help="build the environments")
    args = parser.parse_args(argv)
    releases = [r for r in RELEASES if not args.only or r.name in args.only]
    rows = []
    for release in releases:  # one install at a time: each uses every core it gets
        build(release)
        if not args.build_only:
            rows.append(measure(release))
    if rows:
        print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
