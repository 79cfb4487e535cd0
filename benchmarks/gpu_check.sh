#!/usr/bin/env bash
# The GPU check, one short run (well under 5 minutes) on a machine with a GPU:
#   1. TensorFlow's logical devices;
#   2. a lesson sample reported on GPU:0 (verdicts, ops, eager/graph/XLA runs);
#   3. the lesson's training step (section 5: Dense 64-32-1, Adam, batches of 256)
#      timed eagerly, as a graph and with XLA on GPU:0, with the speed-ups.
# It needs a TensorFlow that sees the GPU (e.g. `pip install 'tensorflow[and-cuda]'`);
# it installs nothing. Usage: bash benchmarks/gpu_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" TF_CPP_MIN_LOG_LEVEL=3
DEVICE="${AGX_GPU_DEVICE:-GPU:0}"  # AGX_GPU_DEVICE=CPU:0 rehearses the script without a GPU
agx() { python -c "import sys; from agexplorer.cli import main; sys.exit(main())" "$@"; }

echo "== machine"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
python -c "import tensorflow as tf; print('tensorflow', tf.__version__, 'built with CUDA:', tf.test.is_built_with_cuda())"

echo "== devices"
agx devices || exit 1

echo "== sample on $DEVICE"
agx report samples/s4_4_autograph.py::dynamic_loop --device "$DEVICE" --budget 1 --width 120

echo "== lesson training step on $DEVICE"
agx report samples/s5_training.py::train_step_graph --device "$DEVICE" --budget 3 --timeout 240 --json \
  > /tmp/agx_gpu_training.json
python - <<'PY'
import json
d = json.load(open("/tmp/agx_gpu_training.json"))
if "error" in d and "runs" not in d:
    raise SystemExit(f"report failed: {d['error']['message']}")
print("device:", d["device"])
for mode, run in d["runs"].items():
    med = run["median_s"]
    print(f"{mode:6} ok={run['ok']} first={run['first_call_s']:.3f}s "
          f"median={med * 1e3 if med else float('nan'):.3f} ms calls={run['calls']} "
          f"ran_on={run['ran_on']}")
print("speed-up eager/graph:", d["speedup"]["graph"], " eager/XLA:", d["speedup"]["xla"],
      " results match:", d["results_match"])
PY
