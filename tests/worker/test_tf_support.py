"""A worker on a TensorFlow that moved a private name: a name the verdicts need refuses every
request in its sentence; a name one capability needs is said in the Hello, and the rest works."""

import os
import socket
import subprocess
import sys

import pytest

from agexplorer.worker import wire
from agexplorer.worker.keras_in_use import keras_in_use
from agexplorer.worker.protocol import Failure, Hello, PingRequest, Reply
from conftest import ROOT

pytestmark = pytest.mark.tf  # the worker imports TensorFlow

# The worker's entry point, run after a name is removed from AutoGraph's control-flow module:
# what a TensorFlow release that moved it looks like.
MOVED = ("from agexplorer.engine import tf_internals\n"
         "from agexplorer.engine.tfenv import import_tf\n"
         "import_tf()\n"
         "delattr(tf_internals.autograph_modules()[1], {name!r})\n"
         "from agexplorer.worker.server import main\n"
         "main()\n")


def start_moved(name: str) -> tuple[socket.socket, subprocess.Popen, Hello]:
    ours, theirs = socket.socketpair()
    process = subprocess.Popen([sys.executable, "-c", MOVED.format(name=name),
                                str(theirs.fileno())],
                               pass_fds=[theirs.fileno()], cwd=ROOT, stderr=subprocess.DEVNULL,
                               env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    theirs.close()
    hello = wire.receive(ours)
    assert isinstance(hello, Hello)
    return ours, process, hello


def ping(sock: socket.socket) -> object:
    wire.send(sock, PingRequest())
    return wire.receive(sock)


def test_a_name_the_verdicts_need_answers_every_request_with_its_sentence():
    ours, process, hello = start_moved("_py_if_stmt")
    try:
        assert hello.tf_warnings == ()  # not a lost capability: nothing works
        reply = ping(ours)
        assert isinstance(reply, Failure)
        assert (reply.error.kind, reply.error.exit_code) == ("tf-unsupported", 2)
        assert "moved tensorflow.python.autograph.operators.control_flow._py_if_stmt, which " \
            "agexplorer watches to tell a Python conditional from a graph conditional;" \
            in reply.error.message
    finally:
        ours.close()
        process.wait(timeout=60)


def test_a_lost_capability_is_in_the_hello_with_the_keras_in_use_and_requests_work():
    ours, process, hello = start_moved("PYTHON_MAX_ITERATIONS")
    try:
        [sentence] = hello.tf_warnings
        assert "control_flow.PYTHON_MAX_ITERATIONS, which agexplorer reads to mark AutoGraph's " \
            "unroll limits on a sweep, so the sweep shows no unroll thresholds;" in sentence
        assert (hello.keras, hello.keras_flavour) == keras_in_use()
        assert hello.keras_flavour in ("keras-3", "tf-keras", "keras-2")
        reply = ping(ours)
        assert isinstance(reply, Reply) and reply.value == "pong"
    finally:
        ours.close()
        process.wait(timeout=60)
