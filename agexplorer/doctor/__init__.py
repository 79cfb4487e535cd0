"""The pitfall doctor: static checks over a function's AST (gast), cross-checked with its trace.

Every finding carries a stable code. The codes, what they flag and when they
stay quiet (the README lists them from :data:`agexplorer.model.doctor.CODES`):

======  ==============================================================================
AGX001  a Python ``print`` inside the function (``tf.print`` is fine)
AGX002  a ``global``/``nonlocal`` name assigned inside the function; a module list or an
        attribute changed in place; ``next()`` of a Python iterator (not a tf.data one)
AGX003  ``.append`` on a Python list inside a loop (not for a loop over a Python
        container of layers or functions, whose unrolling is the point)
AGX004  a ``for``/``while`` the trace ran in Python and unrolled (over ``range``, a
        NumPy array, a literal list, a list or tuple whose items stack, a zip or
        enumerate of such lists, or a Python condition); without a trace only
        ``range(<int literals>)`` and literal lists, marked as not confirmed
AGX005  ``tf.Variable(...)`` created inside the function (not when guarded by an
        ``if ... is None`` / ``if not ...``: create-once is the documented pattern)
AGX006  ``.numpy()``, or ``bool``/``int``/``float`` of a tensor expression (not of a
        literal, a ``len(...)`` or a static ``.shape``)
AGX007  ``random.*`` or ``np.random.*`` called inside the function
AGX008  ``tf.function`` made inside the function, or in a module-level loop
AGX009  a Python int/float/bool passed by the call to a parameter the function uses
        (not a bool that only chooses an ``if`` branch: that is what it is for)
AGX010  a staged loop's variable whose dtype or shape after one body trace differs from
        the one it entered with (tracing fails on it); not when a shape invariant allows it.
        Also one started before the loop as a Python number whose dtype the body does not
        keep (``total = 0`` then adding float32 values: tracing raises a dtype mismatch in
        the body); not a float start in an integer body (eagerly that fails too)
AGX011  a ``return`` inside a loop the trace staged (TensorFlow refuses it: "a return
        statement cannot be placed inside this TensorFlow loop"); not in a loop run in
        Python, nor in a function defined inside the loop
AGX012  ``x.shape[i]`` on the line where tracing raised a TypeError on None (a size the
        trace does not know); not where the size is known (a Python int there)
AGX013  a Python dict looked up (``d[key]``, ``d.get(key, ...)``) on the line where tracing
        raised "Tensor is unhashable": its key a tensor
AGX014  a staged ``if`` on the line where tracing raised that its branches do not match: a
        value set in one branch only, a return on one path only, a value whose dtype
        differs between them
AGX015  a ``for`` over ``zip(...)``/``enumerate(...)`` of tensors on the line where tracing
        raised that a symbolic tensor cannot be iterated
AGX016  a comprehension (list, set, dict, generator) over a tensor on the line where
        tracing raised that a symbolic tensor cannot be iterated
AGX017  an ``assert`` on the line where tracing raised that a symbolic tensor cannot be
        a Python bool
AGX018  ``.append`` on a Python list made outside an ``if`` the trace staged, in one of its
        branches
======  ==============================================================================

Line numbers are 1-based lines of the user's file: the whole file is parsed.

The modules: ``parse`` (the file as the checks and rewrites read it), ``examined`` (one
function under examination), the checks by family (``python_state``, ``loops``,
``tensors``, ``retracing``, ``loop_shapes``, ``loop_dtypes``, ``returns``, ``shapes``,
``lookups``, ``branches``, ``iterations``), ``checks`` (the
entry point), ``reached`` (the checks over the user functions the trace reached: a
helper's findings carry its file, name and call path), ``rewrites`` (the mechanical
fixes) and ``trial`` (a fix tried before and after, and applied).
"""
