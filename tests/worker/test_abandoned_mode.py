"""A mode abandoned past its time box keeps running in the worker: the client replaces it."""

from __future__ import annotations

import os

import pytest

from agexplorer.worker.client import Worker
from agexplorer.worker.protocol import Reply, ReportRequest

CASES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "lab", "cases_boxed.py")


def test_reply_says_whether_work_was_left_running():
    assert Reply(1).busy is False  # the default: nothing left behind


@pytest.mark.tf
def test_a_worker_left_busy_is_replaced_and_says_so():
    worker = Worker(timeout=120)
    try:
        worker.start()
        first = worker.pid
        answer = worker.request(ReportRequest(f"{CASES}::slow_eagerly", budget=0.05,
                                              skip_xla=True, mode_timeout=0.5))
        assert answer["lab"].runs["eager"].timed_out  # the eager mode outlasted its box
        assert not worker.alive  # its thread would have slowed the next request: replaced
        notice = worker.take_notice()
        assert notice is not None and "replaced by a fresh one" in notice
        again = worker.request(ReportRequest(f"{CASES}::plus_zero", no_run=True))
        assert again["report"].error is None
        assert worker.pid != first
    finally:
        worker.close()
