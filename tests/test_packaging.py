"""A wheel install works on its own: every module, the stylesheet and the lesson's samples
are in the wheel, and the explorer opens the bundled samples from it."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT

# Run from the installed copy, outside the checkout: lists the samples and opens the TUI on
# them with a worker that cannot start (no TensorFlow needed to paint the function list).
INSTALLED_CHECK = r'''
import asyncio, os, sys
import agexplorer
from agexplorer.cli import samples_dir
from agexplorer.model.errors import AgxError
from agexplorer.tui.app import AgxApp
from agexplorer.worker.client import Worker

class NoWorker(Worker):
    def start(self): pass
    def request(self, req, **kwargs):
        raise AgxError("worker-start", "no worker in this check")
    def close(self): pass

async def main():
    folder = samples_dir()
    paths = [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".py")]
    app = AgxApp(paths, worker=NoWorker())
    async with app.run_test(size=(160, 45)) as pilot:
        for _ in range(100):  # the code panes mount after the first frame
            if app.workspace_ready:
                break
            await pilot.pause(0.05)
        print("PACKAGE", os.path.dirname(agexplorer.__file__))
        print("SAMPLES", folder, len(paths))
        print("FUNCTIONS", len(app.query_one("#picker").functions()))

asyncio.run(main())
'''


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> str:
    # Built from a copy: setuptools would reuse a stale build/ folder of the checkout.
    out = tmp_path_factory.mktemp("wheel")
    source = out / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "logs"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out),
                           str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (path,) = glob.glob(str(out / "agexplorer-*.whl"))
    return path


def test_the_wheel_holds_every_module_the_stylesheet_and_the_samples(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    package = os.path.join(ROOT, "agexplorer")
    for folder, _, files in os.walk(package):
        for name in files:
            if name.endswith((".py", ".tcss")):
                rel = os.path.relpath(os.path.join(folder, name), ROOT).replace(os.sep, "/")
                assert rel in names, f"{rel} is missing from the wheel"
    samples = sorted(n for n in os.listdir(os.path.join(ROOT, "samples")) if n.endswith(".py"))
    assert samples and all(f"agexplorer/samples/{n}" in names for n in samples)


def test_a_wheel_install_opens_the_bundled_samples(wheel, tmp_path):
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                           str(site), wheel], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    env = dict(os.environ, PYTHONPATH=str(site))
    run = subprocess.run([sys.executable, "-c", INSTALLED_CHECK], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in run.stdout.splitlines() if " " in line)
    assert lines["PACKAGE"] == str(site / "agexplorer")  # not the checkout
    folder, count = lines["SAMPLES"].rsplit(" ", 1)
    assert folder == str(site / "agexplorer" / "samples")
    assert int(count) == len(glob.glob(os.path.join(ROOT, "samples", "*.py")))
    assert int(lines["FUNCTIONS"]) >= int(count)
