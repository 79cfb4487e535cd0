"""Overhead of ``agexplorer record`` on Keras training scripts: recorded vs plain, end to end.

Two programs, each measured the same way:

- ``step``: the script (written to a temporary folder, two files) trains a Dense 64-32-1 model with
Adam for 5 epochs over 2,000 rows in batches of 64 through tf.data, with a
``@tf.function`` train step that calls a helper in the second file whose Python loop
unrolls; the last batch of each epoch has 16 rows, so the step retraces (and the
optimizer's variables, created on the first call, make tf.function trace a second time
at once).
- ``fit``: a Keras ``fit()`` of a model with a custom layer whose ``call`` loops over its
  time steps in Python (Keras 3 runs it without AutoGraph: the recorder counts its lines),
  5 epochs over 2,000 rows, then ``predict`` on batches of three sizes.

Each repeat runs a program in a fresh process twice, interleaved, the order alternating
from one repeat to the next: plain (``python train.py``) and recorded
(``agexplorer record -o LOG train.py``, the console script's code), after one untimed
warm-up of each. Wall time and the child's peak memory (``ru_maxrss`` from ``os.wait4``)
are compared by their medians.

Goals: recorded / plain <= 1.10 in wall time and <= 1.2 in peak memory (the RESULT
line). Timings are printed, never asserted: the machine is shared and noisy.

Run: ``python benchmarks/bench_record_overhead.py [--quick]``
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import repeats_from_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOAL_TIME, GOAL_MEMORY = 1.10, 1.2

HELPERS = '''
import tensorflow as tf


def normalize(x, steps):
    for _ in range(steps):
        x = x - tf.reduce_mean(x, axis=0)
    return x
'''

TRAIN = '''
import numpy as np
import tensorflow as tf
from helpers import normalize

rng = np.random.default_rng(0)
x = rng.normal(size=(2000, 32)).astype("float32")
y = (x[:, :4].sum(axis=1, keepdims=True) > 0).astype("float32")
data = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(2000, seed=0).batch(64)

model = tf.keras.Sequential([tf.keras.Input((32,)), tf.keras.layers.Dense(64, activation="relu"),
                             tf.keras.layers.Dense(32, activation="relu"),
                             tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam(1e-3)
loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)


@tf.function
def train_step(xb, yb):
    xb = normalize(xb, 3)
    with tf.GradientTape() as tape:
        loss = loss_fn(yb, model(xb, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for epoch in range(5):
    for xb, yb in data:
        loss = train_step(xb, yb)
    print(f"epoch {epoch} loss {float(loss):.4f}")
'''


FIT = '''
import numpy as np
import tensorflow as tf
from tensorflow import keras


class TimePool(keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 1), initializer="ones")

    def call(self, x):
        total = tf.zeros_like(x[:, 0, :])
        for t in range(x.shape[1]):
            score = tf.sigmoid(tf.matmul(x[:, t, :], self.w))
            total = total + score * x[:, t, :]
        return total


rng = np.random.default_rng(0)
x = rng.normal(size=(2000, 12, 8)).astype("float32")
y = x[:, :, :2].sum(axis=(1, 2))[:, None].astype("float32")
model = keras.Sequential([keras.Input((12, 8)), TimePool(), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(x, y, batch_size=64, epochs=5, verbose=0)
for rows in (10, 100, 1000):
    model.predict(x[:rows], verbose=0)
print("done")
'''
PROGRAMS = {"step": {"helpers.py": HELPERS, "train.py": TRAIN}, "fit": {"train.py": FIT}}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    return env


def _run(cmd: list[str], cwd: str) -> tuple[float, float, float]:
    """Wall seconds, peak memory (MiB) and CPU seconds of one fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()  # read first: a full pipe would block the child
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n"
                         f"{err.decode(errors='replace')[-2000:]}")
    return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime  # KiB on Linux


def measure(name: str, files: dict[str, str], repeats: int) -> None:
    """One program, plain and recorded, interleaved; its table and RESULT line."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="agx-bench-record-") as folder:
        for file, text in files.items():
            with open(os.path.join(folder, file), "w", encoding="utf-8") as handle:
                handle.write(text.lstrip())
        log = os.path.join(folder, "train.agxlog")
        plain = [sys.executable, "train.py"]
        recorded = [sys.executable, "-c", "import sys; from agexplorer.cli import main; "
                    "sys.exit(main())", "record", "-o", log, "train.py"]
        _run(plain, folder)  # untimed warm-ups: the page cache, TensorFlow's first start
        _run(recorded, folder)
        rows: dict[str, list[tuple[float, float, float]]] = {"plain": [], "recorded": []}
        for i in range(repeats):
            # The order alternates (plain first, then recorded first, ...): a run right
            # after another one was measured to pay for it on this shared machine.
            order = ("plain", "recorded") if i % 2 == 0 else ("recorded", "plain")
            for key in order:
                rows[key].append(_run(plain if key == "plain" else recorded, folder))
        summary = subprocess.run([sys.executable, "-m", "agexplorer", "summary", log, "--json"],
                                 capture_output=True, text=True, cwd=ROOT, check=True)
        functions = json.loads(summary.stdout)["functions"]
    wall = {k: statistics.median(r[0] for r in v) for k, v in rows.items()}
    peak = {k: statistics.median(r[1] for r in v) for k, v in rows.items()}
    cpu = {k: statistics.median(r[2] for r in v) for k, v in rows.items()}
    ratio_t, ratio_m = wall["recorded"] / wall["plain"], peak["recorded"] / peak["plain"]
    pairwise = statistics.median(r[0] / p[0] for r, p in zip(rows["recorded"], rows["plain"],
                                                                   strict=True))
    print(f"record overhead, program {name}: {repeats} interleaved pairs, medians of "
          "fresh-process runs")
    print(f"{'run':<10} {'wall s':>8} {'peak MiB':>9} {'CPU s':>7}")
    for key in ("plain", "recorded"):
        print(f"{key:<10} {wall[key]:>8.2f} {peak[key]:>9.0f} {cpu[key]:>7.2f}")
    for key, values in rows.items():
        print(f"  {key}: " + ", ".join(f"{t:.2f}s/{m:.0f}MiB" for t, m, _ in values))
    for f in functions:
        loops = [s for s in f["statements"] if s.get("iterations")]
        print(f"  recorded: {f['function'][-40:]}: {f['traces']} traces, {f['trace_s']:.3f} s "
              f"tracing, {len(f['retraces'])} retraces, {f['op_count']} ops, "
              f"{len(loops)} unrolled loop rows")
    print(f"median of the pairwise wall-time ratios: {pairwise:.2f}; CPU time "
          f"{cpu['recorded'] / cpu['plain']:.2f}x")
    print(f"total {time.perf_counter() - started:.1f} s")
    print(f"RESULT record_overhead program={name} time_ratio={ratio_t:.2f} goal<={GOAL_TIME} "
          f"memory_ratio={ratio_m:.2f} goal<={GOAL_MEMORY}")


def main(argv: list[str] | None = None) -> int:
    repeats = repeats_from_args(__doc__, argv, full=5, quick=2)
    for name, files in PROGRAMS.items():
        measure(name, files, repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
