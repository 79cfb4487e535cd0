"""The worker's answers saved once and replayed, so that the explorer's screens are tested
without TensorFlow (and without the machine's speed in them).

``tests/fixtures/answers.json`` holds, for each request the snapshot tests send, the real
worker's answer in the model's whole-record form (agexplorer.model.serial). Run the tests
with ``AGX_RECORD_ANSWERS=1`` (TensorFlow needed) to ask a real worker instead and save what
it answered, then look at the SVGs the snapshot update makes before committing both."""

from __future__ import annotations

import json
import os
import re
from typing import Any, ClassVar

from agexplorer.model.errors import AgxError
from agexplorer.model.serial import from_dict, to_data
from agexplorer.worker.client import Worker
from agexplorer.worker.protocol import Request, reply_type
from conftest import FIXTURES, ROOT

ANSWERS = os.path.join(FIXTURES, "answers.json")
RECORDING = os.environ.get("AGX_RECORD_ANSWERS") == "1"
_HERE = "$ROOT"  # the checkout's folder, wherever it is, in the saved file


_SCRATCH = "$SCRATCH"  # the session's scratch copies of the samples (agexplorer tour)


class Places:
    """The folders a saved file names by a placeholder: the checkout, and the scratch
    session folder (a new one each run), as first seen."""

    def __init__(self) -> None:
        self.scratch: str | None = None

    def saved(self, text: str) -> str:
        from agexplorer.state.scratch import scratch_root

        text = text.replace(ROOT, _HERE)
        found = re.search(re.escape(json.dumps(scratch_root())[1:-1]) + r"/session-[^/\"]+", text)
        if found:
            self.scratch = self.scratch or found.group(0)
            text = text.replace(self.scratch, _SCRATCH)
        return text

    def here(self, text: str) -> str:
        if self.scratch is not None:
            text = text.replace(_SCRATCH, self.scratch)
        return text.replace(_HERE, ROOT)


def key(request: Request[Any], places: Places) -> str:
    """A request as the saved file names it: its class and the fields not at their defaults
    (a field added to a request later keeps the saved answers), folders by placeholder;
    not how the answer is sent (the converted code ahead of the report: not replayed)."""
    data = {"request": type(request).__name__, **_set_fields(request)}
    data.pop("send_conversion", None)
    return places.saved(json.dumps(data, sort_keys=True))


def _set_fields(request: Request[Any]) -> dict[str, Any]:
    import dataclasses

    data = to_data(request)
    for field in dataclasses.fields(request):  # type: ignore[arg-type]
        default = field.default if field.default is not dataclasses.MISSING else (
            field.default_factory() if field.default_factory is not dataclasses.MISSING
            else dataclasses.MISSING)
        if default is not dataclasses.MISSING and to_data(default) == data.get(field.name):
            data.pop(field.name, None)
    return data


def _load() -> dict[str, Any]:
    if not os.path.exists(ANSWERS):
        return {}
    with open(ANSWERS, encoding="utf-8") as f:
        return json.load(f)


class ReplayWorker(Worker):
    """Answers like the TensorFlow worker, from the saved answers (recording them first from
    a real worker when ``AGX_RECORD_ANSWERS=1``)."""

    saved: ClassVar[dict[str, Any]] = {}  # the file's answers, read once per session
    recorded: ClassVar[dict[str, Any]] = {}  # the answers a recording session asked for

    def __init__(self) -> None:
        super().__init__(timeout=120)
        if not ReplayWorker.saved:
            ReplayWorker.saved = _load()
        self.real: Worker | None = Worker(timeout=120) if RECORDING else None
        self.places = Places()

    def request(self, req: Request[Any], **kwargs: Any) -> Any:
        name = key(req, self.places)
        if self.real is not None:
            try:
                answer = {"value": to_data(self.real.request(req, **kwargs))}
            except AgxError as error:  # replayed as the same error
                answer = {"error": to_data(error)}
            data = json.loads(self.places.saved(json.dumps(answer)))
            ReplayWorker.recorded[name] = ReplayWorker.saved[name] = data
        if name not in ReplayWorker.saved:
            raise AgxError("internal-error", f"no saved answer for {name}: record the answers "
                           "again (AGX_RECORD_ANSWERS=1, see tests/tui/answers.py)")
        answer = json.loads(self.places.here(json.dumps(ReplayWorker.saved[name])))
        if "error" in answer:
            raise from_dict(AgxError, answer["error"])
        return from_dict(reply_type(type(req)), answer["value"])

    def close(self, final: bool = False) -> None:
        if self.real is not None:
            self.real.close(final)


def save_recorded() -> None:
    """Write the answers this session recorded (with those it did not ask again) to the file."""
    if not RECORDING or not ReplayWorker.recorded:
        return
    saved = {**_load(), **ReplayWorker.recorded}
    with open(ANSWERS, "w", encoding="utf-8") as f:
        json.dump(dict(sorted(saved.items())), f, indent=1, sort_keys=True)
        f.write("\n")
