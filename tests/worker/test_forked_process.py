"""A forked worker's handle read from two threads (the client waiting, a poll beside it): the
first status read stands, and a socket closed by the other thread is no error."""

from __future__ import annotations

import os
import signal
import socket

from agexplorer.worker.zygote import ForkedProcess


def handle() -> tuple[ForkedProcess, socket.socket]:
    ours, shims = socket.socketpair()
    return ForkedProcess(os.getpid(), ours, ["worker"]), shims


def test_a_poll_after_another_thread_read_the_exit_keeps_its_status():
    proc, shim = handle()
    shim.sendall(b'{"exit": 3}\n')
    assert proc.wait(5) == 3
    proc._ended(-signal.SIGKILL)  # a later reader that saw the socket go
    assert proc.poll() == 3
    shim.close()


def test_a_socket_closed_under_a_reader_ends_its_read_without_an_error():
    proc, shim = handle()
    proc._conn.close()  # (the other thread's close, between its status check and select)
    assert proc.poll() == -signal.SIGKILL
    shim.close()
