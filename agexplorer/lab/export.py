"""TensorBoard export: the traced graph (and a profile where one can be had) in a logdir."""

from __future__ import annotations

from typing import Any

from agexplorer.engine.load import Loaded


def export_tensorboard(loaded: Loaded, logdir: str, device: str) -> str:
    """Write the graph of ``loaded`` so that ``tensorboard --logdir LOGDIR`` shows it.

    Returns a note for the report: what was written, and why the profile is
    missing when TensorFlow's profiler is unavailable.
    """
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()
    fn = loaded.tf_function(tf, input_signature=loaded.signature)
    name = loaded.qualname.replace(".", "_")
    writer = tf.summary.create_file_writer(logdir)
    profile = "graph and profile"
    with tf.device(device):
        fn.get_concrete_function(*loaded.args, **loaded.kwargs)  # trace outside the recording
        try:
            tf.summary.trace_on(graph=True, profiler=True, profiler_outdir=logdir)
        except Exception:  # noqa: BLE001 - no profiler in this build: the graph alone
            tf.summary.trace_on(graph=True, profiler=False)
            profile = "graph (no profiler available)"
        try:
            fn(*loaded.args, **loaded.kwargs)
            with writer.as_default():
                tf.summary.trace_export(name=name, step=0)
        except Exception as exc:  # noqa: BLE001 - a profiler failure must not lose the graph
            _safe_trace_off(tf)
            profile = f"graph (the profile failed: {str(exc).splitlines()[0][:120]})"
        # The op-level graph for the Graphs dashboard, whatever the profiler did.
        with writer.as_default():
            tf.summary.graph(fn.get_concrete_function(*loaded.args, **loaded.kwargs).graph)
    writer.flush()
    writer.close()
    return f"wrote the {profile} of {loaded.qualname} to {logdir}; run: tensorboard --logdir {logdir}"


def _safe_trace_off(tf: Any) -> None:
    try:
        tf.summary.trace_off()
    except Exception:  # noqa: BLE001 - already off
        pass
