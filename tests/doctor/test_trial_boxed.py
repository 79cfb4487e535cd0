"""Fix trials that always answer: XLA skipped on request, each mode boxed, shared inputs."""

from __future__ import annotations

import pytest

from agexplorer.doctor.trial import try_fix
from agexplorer.render.doctor import trial_renderables
from conftest import fixture


@pytest.mark.tf
def test_a_trial_without_xla_still_compares_both_sides(tf):
    trial = try_fix(f"{fixture('tui_faults.py')}::unrolled", "AGX004", budget=0.05,
                    skip_xla=True, mode_timeout=20.0)
    for side in (trial.before, trial.after):
        assert side.lab.runs["xla"].skipped and side.lab.runs["graph"].ok
        assert side.lab.mode_timeout_s == 20.0
    assert trial.results_equal is True
    table = trial_renderables(trial)[2]
    # Cells are plain rich Text (user text is never read as markup): compare their words.
    cells = {row: [str(c) for c in col._cells] for row, col in enumerate(table.columns)}
    assert "xla median" in cells[0] and cells[1][cells[0].index("xla median")] == "skipped"
