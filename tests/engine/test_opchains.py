"""The user's lines an op is charged to, read from the stack as the op is made
(engine/opchains.py): each frame's code is told apart by the code object itself, not by
what it compares equal to."""

from agexplorer.engine.opchains import OpChains

SOURCE = "def f(hook):\n    return hook()\n"


def _defined(file: str):
    namespace: dict = {}
    exec(compile(SOURCE, file, "exec"), namespace)
    return namespace["f"]


def test_a_librarys_copy_of_a_users_function_is_not_taken_for_it():
    """Python compares code objects without their file: the same function text at the same
    line in a library file is equal to the user's. Which one made an op still decides whether
    the op is charged to the user's line, whichever was seen first."""
    library, user = _defined("/site-packages/lib/a.py"), _defined("/home/u/a.py")
    assert library.__code__ == user.__code__
    chains = OpChains("/home/u/a.py", frozenset())
    graph = object()

    def made(name: str):
        def hook():  # stands for TensorFlow's op constructor, which calls the hook
            def constructor():
                chains.on_op(graph, name)
            constructor()
        return hook

    library(made("by_library"))
    user(made("by_user"))
    library(made("by_library_again"))
    assert chains.chain(graph, "by_library") == ()
    assert chains.chain(graph, "by_user") == (("/home/u/a.py", 2),)
    assert chains.chain(graph, "by_library_again") == ()
