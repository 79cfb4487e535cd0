"""An independent count for the record tests: run a program, keep every graph TensorFlow
builds from Python (tf.function traces, tf.data functions, cond and loop bodies) and count
each graph's ops by the innermost frame of the given files in the op's own traceback.

``python -m tests.record.graph_oracle SCRIPT FILE...`` prints one JSON list, a graph an item, in
the order they were built: ``{"name", "ops", "lines": {"file.py:LINE": ops}}``. It shares
no code with agexplorer: it is what the recorder's counts are checked against. ``--serve``
does the same for many scripts, each in a process forked after one TensorFlow import.
"""

from __future__ import annotations

import collections
import json
import os
import runpy
import shutil
import sys
import tempfile


def main(script: str, files: list[str]) -> None:
    from tensorflow.python.framework import func_graph  # noqa: TID251 - the oracle stands alone

    graphs = []
    original = func_graph.func_graph_from_py_func

    def capture(*args, **kwargs):
        graph = original(*args, **kwargs)
        graphs.append(graph)
        return graph

    func_graph.func_graph_from_py_func = capture
    sys.argv = [script]
    sys.path.insert(0, os.path.dirname(script))
    stdout = sys.stdout
    sys.stdout = open(os.devnull, "w")  # the program's prints are not ours
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        sys.stdout = stdout
    wanted = {os.path.abspath(f) for f in files}
    found = []
    for graph in graphs:
        lines: collections.Counter[str] = collections.Counter()
        for op in graph.get_operations():
            frames = [f for f in op.traceback if os.path.abspath(f.filename) in wanted]
            if frames:
                lines[f"{os.path.basename(frames[-1].filename)}:{frames[-1].lineno}"] += 1
        found.append({"name": graph.name, "ops": len(graph.get_operations()),
                      "lines": dict(lines)})
    print(json.dumps(found))


def serve() -> None:
    """``--serve``: import TensorFlow once, then for each line on stdin (JSON: the script, its
    files and where to write) fork a process that does what the command does, its JSON list
    written there (its traceback, if any, beside it in ``.err``); each line is answered with
    that process's exit status. Nothing of TensorFlow runs before a fork: each program starts
    from the import alone, as the command's would."""
    import traceback

    import tensorflow  # noqa: F401 - the import each oracle would pay again

    for line in sys.stdin:
        script, files, out = json.loads(line)
        # The process ends with os._exit, before AutoGraph's own clean-up of the modules it
        # writes (__autograph_generated_file*.py): they go to a folder removed after it.
        folder = tempfile.mkdtemp(prefix="agx-oracle-")
        pid = os.fork()
        if pid == 0:
            tempfile.tempdir = folder
            code = 1
            try:
                with open(out, "w") as result, open(out + ".err", "w") as err:
                    sys.stdout, sys.stderr = result, err
                    try:
                        main(script, files)
                        code = 0
                    except BaseException:  # noqa: BLE001 - said in .err, the status says it failed
                        traceback.print_exc()
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        shutil.rmtree(folder, ignore_errors=True)
        print(os.waitstatus_to_exitcode(status), flush=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        main(os.path.abspath(sys.argv[1]), sys.argv[2:])
