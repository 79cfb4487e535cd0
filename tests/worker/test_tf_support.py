"""A worker on a TensorFlow that moved a private name says so in its hello and refuses every request."""

import os
import socket
import subprocess
import sys

import pytest

from agexplorer.worker import wire
from agexplorer.worker.protocol import Failure, Hello, PingRequest
from conftest import ROOT

pytestmark = pytest.mark.tf  # the worker imports TensorFlow

# The worker's entry point, run after the control-flow path function the verdicts need is
# removed: what a TensorFlow release that moved it looks like.
MOVED = ("from agexplorer.engine import tf_internals\n"
         "from agexplorer.engine.tfenv import import_tf\n"
         "import_tf()\n"
         "delattr(tf_internals.autograph_modules()[1], '_py_if_stmt')\n"
         "from agexplorer.worker.server import main\n"
         "main()\n")


def test_a_moved_name_is_in_the_hello_and_answers_every_request():
    ours, theirs = socket.socketpair()
    process = subprocess.Popen([sys.executable, "-c", MOVED, str(theirs.fileno())],
                               pass_fds=[theirs.fileno()], cwd=ROOT, stderr=subprocess.DEVNULL,
                               env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    theirs.close()
    try:
        hello = wire.receive(ours)
        assert isinstance(hello, Hello)
        [sentence] = hello.tf_warnings
        assert "moved tensorflow.python.autograph.operators.control_flow._py_if_stmt, which " \
            "agexplorer watches to tell a Python conditional from a graph conditional;" in sentence
        wire.send(ours, PingRequest())
        reply = wire.receive(ours)
        assert isinstance(reply, Failure)
        assert (reply.error.kind, reply.error.exit_code, reply.error.message) == \
            ("tf-unsupported", 2, sentence)
    finally:
        ours.close()
        process.wait(timeout=60)
