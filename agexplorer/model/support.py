"""The TensorFlow and Python versions agexplorer's worker supports: one statement of each."""

from __future__ import annotations

import re

# The worker's range (its --python interpreter). pyproject's "tensorflow>=2.16,<2.22" is what installs
# with agexplorer itself (Keras 3, as the golden files); TensorFlow 2.15 (Keras 2) is reached through
# --python: benchmarks/tf_versions.py checks every sample on each release of the range.
TF_OLDEST = (2, 15)
TF_NEWEST = (2, 21)
TESTED = f"{TF_OLDEST[0]}.{TF_OLDEST[1]}-{TF_NEWEST[0]}.{TF_NEWEST[1]}"
# What pip is asked for in the sentence that says how to install a supported TensorFlow.
TF_REQUIREMENT = f"tensorflow>={TF_OLDEST[0]}.{TF_OLDEST[1]},<{TF_NEWEST[0]}.{TF_NEWEST[1] + 1}"
PYTHON_OLDEST = (3, 10)


def tf_supported(version: str) -> bool:
    """Whether a TensorFlow version string ("2.21.0", "2.22.0.dev20250101") is in the range."""
    match = re.match(r"(\d+)\.(\d+)", version)
    return match is not None and TF_OLDEST <= (int(match[1]), int(match[2])) <= TF_NEWEST
