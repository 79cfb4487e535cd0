"""The homework's training step called step after step through the worker: its loss and
learning-rate curves, a step that raises, a value that is not a scalar, and the command."""

from __future__ import annotations

import json

import pytest
from rich.cells import cell_len

from agexplorer.model.errors import AgxError
from agexplorer.worker.protocol import CurvesRequest
from conftest import sample

pytestmark = pytest.mark.tf

SAMPLE = sample("s7_3_homework.py")


def test_twenty_steps_of_the_homework_draw_its_loss_and_learning_rate(worker):
    curves = worker.request(CurvesRequest(f"{SAMPLE}::train_step", steps=20))
    assert (curves.file, curves.function, curves.call, curves.call_origin) == \
        (SAMPLE, "train_step", "x_train, y_train", "AGX_CALLS")
    assert (curves.done, curves.error, curves.notes) == (20, None, [])
    assert [s.name for s in curves.series] == ["loss", "lr"]  # the return's own words
    loss, lr = (s.values for s in curves.series)
    assert len(loss) == len(lr) == 20
    # Training works: the loss falls overall (the sample's last epochs fall steadily).
    assert loss[-1] < loss[0] / 10 and loss[-1] == min(loss)
    # The homework's rule, checked on what came back: the rate halves exactly at the steps
    # whose loss rose above the step before's, and only there (step 1's previous loss is inf).
    assert lr[0] == pytest.approx(0.1)
    rose = [i for i in range(1, 20) if loss[i] > loss[i - 1]]
    assert rose, "the loss never rose: the rule would go unchecked"
    for i in range(1, 20):
        assert lr[i] == (lr[i - 1] / 2 if i in rose else lr[i - 1]), i
    # The same request, the same curves: one fresh, seeded load each time.
    again = worker.request(CurvesRequest(f"{SAMPLE}::train_step", steps=3))
    assert again.series[0].values == loss[:3]


BUFFER_TAIL = '''

calls = 0


def counted():
    global calls
    calls += 1
    if calls == 4:
        raise ValueError("step four")
    return float(calls), tf.ones([2])
'''


def test_a_step_that_raises_keeps_the_steps_before_it_in_one_sentence(worker):
    with open(SAMPLE, encoding="utf-8") as fh:
        buffer = fh.read() + BUFFER_TAIL  # an unsaved buffer: the file on disk lacks it
    curves = worker.request(CurvesRequest(f"{SAMPLE}::counted", steps=10, source=buffer))
    assert curves.file == SAMPLE and curves.done == 3 and curves.failed_step == 4
    assert [(s.name, s.values) for s in curves.series] == [("float(calls)", [1.0, 2.0, 3.0])]
    assert curves.error == (f"{SAMPLE}:{curves.error_line}: step 4 of 10, counted(), raised "
                            "ValueError: step four")
    assert "Traceback" not in curves.error and "\n" not in curves.error
    assert curves.notes == ["tf.ones([2]) is a tensor of shape [2], not a scalar: left out "
                            "of the chart."]


@pytest.mark.parametrize("steps", [0, 1001])
def test_a_number_of_steps_out_of_bounds_is_one_sentence(worker, steps):
    with pytest.raises(AgxError) as caught:
        worker.request(CurvesRequest(f"{SAMPLE}::train_step", steps=steps))
    assert caught.value.kind == "bad-arguments" and caught.value.exit_code == 2
    assert caught.value.message == (f"the number of steps must be from 1 to 1000, not {steps}; "
                                    "ask for 1 to 1000 steps (--steps 20).")


def test_the_command_draws_both_charts_at_80_columns(worker, monkeypatch, capsys):
    from agexplorer.cli import main
    from agexplorer.worker import client

    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: worker)
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["curves", f"{SAMPLE}::train_step", "--steps", "20"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("train_step(x_train, y_train) [AGX_CALLS]: 20 steps in ")
    titles = [line for line in lines if line.startswith(("loss:", "lr:"))]
    assert titles == ["loss: 50.9 → 0.236 (log scale)", "lr: 0.1 → 0.025"]
    assert max(cell_len(line) for line in lines) <= 80
    assert main(["curves", f"{SAMPLE}::train_step", "--steps", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in data["series"]] == ["loss", "lr"]
    assert data["done"] == 2 and data["error"] is None and data["warnings"] == []
