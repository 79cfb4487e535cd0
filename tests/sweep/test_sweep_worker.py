"""The sweep through the worker (an unsaved buffer included) and the command line's JSON and report."""

from __future__ import annotations

import json

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.worker.protocol import SweepRequest
from conftest import run_cli, sample

pytestmark = pytest.mark.tf

SAMPLE = sample("s6_2_bad_loop.py")
POINT_KEYS = {"value", "op_count", "trace_s", "first_call_s", "call_s"}


def test_the_worker_sweeps_an_unsaved_buffer_and_names_the_real_file(worker):
    with open(SAMPLE, encoding="utf-8") as fh:
        text = fh.read()
    # The buffer's loop body makes two more ops per iteration than the file's.
    buffer = text.replace("        s += i\n    return s", "        s = s * 1 + i\n    return s", 1)
    sweep = worker.request(SweepRequest(f"{SAMPLE}::range_loop", vary="n", values=(2, 4, 8),
                                        source=buffer, no_run=True, at=1000))
    assert sweep.file == SAMPLE
    assert sweep.fit.ops_per_unit == 4
    assert sweep.staged is not None and sweep.staged.fit.ops_per_unit == 0
    data = sweep.to_dict()
    assert {"vary", "points", "fit", "staged"} <= set(data)
    assert data["vary"] == "n"
    assert all(POINT_KEYS <= set(p) for p in data["points"])
    assert data["fit"]["at"]["ops"] == 4 * 1000 + data["fit"]["ops_fixed"]
    json.dumps(data)  # JSON all the way down


def test_the_worker_says_a_bad_vary_in_one_sentence(worker):
    with pytest.raises(AgxError) as caught:
        worker.request(SweepRequest(f"{SAMPLE}::range_loop", vary="count", values=(1, 2)))
    assert caught.value.message == ("--vary count: range_loop has no parameter 'count' "
                                    "(its parameters: n).")


def test_the_command_line_prints_json_and_a_report():
    done = run_cli("sweep", f"{SAMPLE}::range_loop", "--vary", "n=3,30", "--at", "20000",
                   "--no-run", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["fit"]["ops_per_unit"] == 2
    assert data["fit"]["at"]["value"] == 20000
    assert data["staged"]["fit"]["ops_per_unit"] == 0
    done = run_cli("sweep", f"{SAMPLE}::range_loop", "--vary", "n=3,30", "--at", "20000",
                   "--no-run", "--width", "100")
    assert done.returncode == 0, done.stderr
    # The ops per unit, then the tracing time's cost per unit, or (on a loaded machine,
    # where two traces' times cannot tell a slope) that it is within noise: not asserted.
    assert "each unit of n adds 2 ops" in done.stdout
    assert "At n=20,000: about 40,000 ops and" in done.stdout
    assert "(flat)" in done.stdout and "INEFFICIENT_UNROLL_MIN_ITERATIONS" in done.stdout
    done = run_cli("sweep", f"{SAMPLE}::fixed_loop", "--vary", "n=1,2")
    assert done.returncode == 2
    assert done.stderr.startswith("agexplorer: --vary n: the call passes n a")
    assert "Traceback" not in done.stderr
