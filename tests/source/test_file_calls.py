"""The file's own call of a function, made again after the load (``file_calls``): only a
call that runs once as the file loads, whose argument names still hold what it got."""

import ast

from agexplorer.source.targets import file_calls, list_functions


def calls(text: str) -> dict:
    return file_calls(ast.parse(text))


def test_the_program_s_own_call_is_found_inside_an_expression():
    text = ("import numpy as np\n\n\ndef f(x, n=2):\n    return x\n\n\n"
            "data = np.ones(3)\nprint(f(data, n=len(data)))\ny = f(np.zeros(2))\n")
    found = calls(text)
    assert found["f"] == (9, "data, n=len(data)")  # the first; y's call comes later
    assert found["print"] == (9, "f(data, n=len(data))") and found["len"] == (9, "data")
    info = next(f for f in list_functions(ast.parse(text)) if f.qualname == "f")
    assert info.ready and info.file_call == (9, "data, n=len(data)")
    assert info.to_dict()["file_call"] == [9, "data, n=len(data)"]
    # The engine's load lists them without (it looks the call up where it needs it): the
    # same functions, the call untold.
    lean = list_functions(ast.parse(text), calls=False)
    assert [(f.qualname, f.line) for f in lean] == [
        (f.qualname, f.line) for f in list_functions(ast.parse(text))]
    assert next(f for f in lean if f.qualname == "f").file_call is None


def test_a_call_whose_names_change_after_it_is_not_made_again():
    text = "def f(x):\n    return x\n\n\nx = 1\nf(x)\nx = 2\n"
    assert "f" not in calls(text)
    text = "def f(x):\n    return x\n\n\nf(x)\nx = 2\n"  # read before it is bound
    assert "f" not in calls(text)
    text = ("def f(x):\n    return x\n\n\ndef bump():\n    global x\n    x += 1\n\n\n"
            "x = 1\nf(x)\n")  # a function may set it again, whenever it runs
    assert "f" not in calls(text)
    text = "def f(x):\n    return x\n\n\nx = 1\nfor i in range(3):\n    x += i\nf(x)\n"
    assert calls(text) == {"f": (8, "x")}  # bound before the call only (a loop's call: no)


def test_calls_that_may_not_run_or_run_many_times_are_not_the_file_s_call():
    body = "def f(x):\n    return x\n\n\nx = 1\n"
    for call in ("if x:\n    f(x)\n", "for _ in range(2):\n    f(x)\n",
                 "if __name__ == '__main__':\n    for _ in range(2):\n        f(x)\n",
                 "if __name__ != '__main__':\n    f(x)\n",
                 "if __name__ == '__main__':\n    pass\nelse:\n    f(x)\n",
                 "g = lambda: f(x)\n", "ys = [f(v) for v in [x]]\n", "f(*[x])\n",
                 "f(**{'x': x})\n", "class C:\n    y = f(x)\n"):
        assert "f" not in calls(body + call), call


def test_the_main_block_s_call_is_the_file_s_call_when_its_names_are_bound_before_it():
    """The program's calls are mostly in ``if __name__ == "__main__":``, which loading the
    file does not run: a call there counts when the names its arguments read were bound
    before the block and are bound nowhere in it nor after it."""
    body = "import tensorflow as tf\n\nscale = 2.0\n\n\ndef f(x):\n    return x\n\n\n"
    main = "if __name__ == '__main__':\n"
    text = body + main + "    print(f(tf.constant([scale, 1.0])))\n"
    assert calls(text)["f"] == (11, "tf.constant([scale, 1.0])")
    info = next(i for i in list_functions(ast.parse(text)) if i.qualname == "f")
    assert info.ready and info.file_call == (11, "tf.constant([scale, 1.0])")
    assert calls(body + "if '__main__' == __name__:\n    f(scale)\n")["f"] == (11, "scale")
    for block in ("    x = tf.ones(2)\n    f(x)\n",  # bound in the block: never by the load
                  "    f(scale)\n    scale = 3.0\n",  # bound again in it
                  "    f(scale)\nscale = 3.0\n"):  # or after it
        assert "f" not in calls(body + main + block), block


def test_a_method_s_call_on_the_module_s_object_is_the_method_s_not_the_function_s():
    text = ("class M:\n    def f(self, x):\n        return x\n\n\n"
            "def f(x):\n    return x\n\n\nm = M()\nm.f(1)\n")
    infos = {f.qualname: f for f in list_functions(ast.parse(text))}
    assert infos["f"].file_call is None and infos["M.f"].file_call == (11, "1")
    # the method is bound to the class's first module-level object: another's call is not its
    text = ("class M:\n    def f(self, x):\n        return x\n\n\n"
            "a = M()\nb = M()\nb.f(1)\n")
    assert {f.qualname: f for f in list_functions(ast.parse(text))}["M.f"].file_call is None
    text = "class M:\n    def f(self, x):\n        return x\n\n\nm = M()\nm.f(1)\nm = M()\n"
    assert {f.qualname: f for f in list_functions(ast.parse(text))}["M.f"].file_call is None


def test_a_name_bound_to_a_function_has_its_call_too():
    text = ("import tensorflow as tf\n\n\ndef slow(x):\n    return x\n\n\n"
            "fast = tf.function(slow)\nfast(tf.ones(2))\n")
    infos = {f.qualname: f for f in list_functions(ast.parse(text))}
    assert infos["fast"].file_call == (9, "tf.ones(2)") and infos["fast"].ready
    assert infos["slow"].file_call is None and not infos["slow"].ready


def test_a_function_handed_to_a_library_is_found_with_that_call():
    from agexplorer.source.targets import handed_to

    text = ("import tensorflow as tf\n\n\ndef parse(x):\n    return x\n\n\ndef build():\n"
            "    return tf.data.Dataset.range(3).map(parse)\n\n\nfns = [parse]\n")
    assert handed_to(ast.parse(text), "parse") == (9, "tf.data.Dataset.range(3).map")
    assert handed_to(ast.parse(text), "build") is None  # called, never handed over


def test_calling_the_module_s_object_is_its_class_s___call__():
    """``c(x)``: the call of ``Counter.__call__`` on the class's first module-level object (a
    tf.Module with a @tf.function __call__, as TensorFlow's guides write one)."""
    text = ("import tensorflow as tf\n\n\nclass Counter(tf.Module):\n"
            "    @tf.function\n    def __call__(self, n):\n        return n\n\n"
            "    def add(self, n):\n        return n\n\n\n"
            "c = Counter()\nn = tf.constant(3)\nprint(c(n))\n")
    infos = {f.qualname: f for f in list_functions(ast.parse(text))}
    assert infos["Counter.__call__"].file_call == (15, "n")
    assert infos["Counter.__call__"].ready and infos["Counter.add"].file_call is None


def test_a_call_in_a_function_that_reads_module_names_only_is_the_example_to_type():
    from agexplorer.source.targets import module_level_arguments

    text = ("import tensorflow as tf\n\nds = make()\nSTEPS = 3\n\n\ndef train_epoch(d, n):\n"
            "    return d\n\n\ndef main(batch):\n    for i in range(2):\n"
            "        train_epoch(batch, i)\n    train_epoch(ds, n=len([STEPS]))\n")
    tree = ast.parse(text)
    # the call that reads main's own names is passed over; the one reading ds and STEPS not
    assert module_level_arguments(tree, "train_epoch") == "ds, n=len([STEPS])"
    shadowed = text.replace("def main(batch):", "def main(batch):\n    ds = batch")
    assert module_level_arguments(ast.parse(shadowed), "train_epoch") is None
    top = text + "train_epoch(ds, 1)\n"  # a module-level call is file_calls' own
    assert module_level_arguments(ast.parse(top), "train_epoch") == "ds, n=len([STEPS])"
    assert module_level_arguments(ast.parse(text.replace("ds, n=", "*ds, n=")),
                                  "train_epoch") is None
    assert module_level_arguments(ast.parse(text.replace("(ds, n=len([STEPS]))", "(nope)")),
                                  "train_epoch") is None
