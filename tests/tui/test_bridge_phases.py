"""The status line's progress: a quick request shows no phases, a slow one shows them."""

from __future__ import annotations

import time

from agexplorer.tui import bridge


class PostBox:
    def __init__(self) -> None:
        self.texts: list[str] = []

    def post_message(self, message) -> bool:
        self.texts.append(message.text)
        return True


def test_a_request_over_before_the_delay_shows_no_phase(monkeypatch):
    monkeypatch.setattr(bridge, "PHASE_DELAY", 0.05)
    app = PostBox()
    phases = bridge._Phases(app)
    phases("loading f.py")
    phases("tracing f")
    phases.close()
    time.sleep(0.1)
    assert app.texts == []


def test_a_slow_request_shows_its_latest_phase_then_every_new_one(monkeypatch):
    monkeypatch.setattr(bridge, "PHASE_DELAY", 0.05)
    app = PostBox()
    phases = bridge._Phases(app)
    phases("loading f.py")
    phases("tracing f")
    time.sleep(0.15)
    assert app.texts == ["tracing f…"]
    phases("running eagerly")
    phases.close()
    phases("too late")
    assert app.texts == ["tracing f…", "running eagerly…"]
