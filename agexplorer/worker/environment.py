"""Which environment variables change what a TensorFlow worker answers: a worker (or the warm
process it is forked from) made under other values of these must not answer a request."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

# What TensorFlow, Keras, the C libraries below them and the user's imports read.
_RELEVANT_PREFIXES = ("TF_", "KERAS_", "CUDA_", "XLA_", "NVIDIA_", "HIP_", "ROCM_", "OMP_",
                      "MKL_", "KMP_", "PYTHON", "LD_", "AGX_")
_RELEVANT_NAMES = ("HOME", "VIRTUAL_ENV", "PATH", "TMPDIR")
# Ours that only say how to reach or keep a warm process, not what it answers.
_IRRELEVANT = ("AGX_NO_DAEMON", "AGX_DAEMON_IDLE", "AGX_ZYGOTE")


def relevant_environment(environ: Mapping[str, str] | None = None,
                         ignore: Iterable[str] = ()) -> list[tuple[str, str]]:
    """The variables that change a worker's answers, sorted (less the names in ``ignore``)."""
    env = os.environ if environ is None else environ
    skip = set(_IRRELEVANT) | set(ignore)
    return sorted((k, v) for k, v in env.items()
                  if (k.startswith(_RELEVANT_PREFIXES) or k in _RELEVANT_NAMES)
                  and k not in skip)
