"""agexplorer in IPython and Jupyter: ``explain`` on live objects, and the ``%agx`` magics.

``explain.py`` (the call and its safety promises), ``explanation.py`` (what it returns and how
it shows), ``target.py`` (what may be explained), ``settings.py`` (TensorFlow's settings kept),
``running.py`` (``run=True``), ``live.py`` (the doctor and the retrace explainer on live
calls), ``calls.py`` (a call written in a magic), ``record.py`` (``%%agx record``),
``shown.py`` (what the magics display) and ``magics.py``. Importing this package imports
neither TensorFlow nor IPython; the magics module needs IPython.
"""

from agexplorer.notebook.explain import explain
from agexplorer.notebook.explanation import Explanation

__all__ = ["Explanation", "explain"]
