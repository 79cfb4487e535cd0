"""Walk a traced function's graphs into its op inventory, nested bodies included; read an op's attributes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agexplorer.engine import tf_internals
from agexplorer.engine.opchains import OpChains
from agexplorer.model.inventory import BodyInfo, Inventory, OpInfo
from agexplorer.model.text import shape_text, shortened

# Ops whose function-valued attributes are control flow (the rest, e.g. a
# PartitionedCall, are nested functions).
CONTROL_FLOW_OPS = frozenset({
    "While", "StatelessWhile", "If", "StatelessIf", "Case", "StatelessCase",
    "ReduceDataset", "For", "SymbolicGradient", "RemoteCall",
})
_ROLES = {"body": "body", "cond": "cond", "then_branch": "then", "else_branch": "else",
          "f": "function", "branches": "branch"}


@dataclass
class LiveInventory(Inventory):
    """The inventory where the trace was made: the plain record plus the graphs it came from.

    It pickles as a plain :class:`Inventory` (what the UI receives): the graphs never leave
    the process that traced them.
    """

    # body name -> its FuncGraph: an op's attributes are read from it on demand; reading
    # every op's NodeDef while walking would cost more than the walk itself.
    graphs: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # How many ops were made under each chain of user frames ((file, line), outermost
    # first): a statement made every op whose chain passes through its lines, its callees'
    # included. Ops share few chains (an unrolled loop repeats the same ones).
    chains: dict[tuple[tuple[str, int], ...], int] = field(default_factory=dict, repr=False,
                                                           compare=False)
    # (body name, op name) of each control-flow op -> the bodies it runs (its branches, its
    # loop's cond and body): which statement an op belongs to, where two share a line.
    cf_bodies: dict[tuple[str, str], list[str]] = field(default_factory=dict, repr=False,
                                                        compare=False)
    _lines_in: dict[str, set[tuple[str | None, int | None]]] = field(
        default_factory=dict, repr=False, compare=False)  # body name -> its ops' lines

    def __reduce__(self) -> tuple[Any, ...]:
        return Inventory, (self.ops, self.bodies, self.graph_names)

    def body_lines(self, function: str, op_name: str) -> set[tuple[str | None, int | None]]:
        """The (file, line) of every op directly in the bodies of control-flow op
        ``op_name`` of body ``function`` (empty for an op that runs none)."""
        if not self._lines_in:  # once, after the walk: one pass over the ops
            for op in self.ops:
                self._lines_in.setdefault(op.function, set()).add((op.file, op.line))
        found: set[tuple[str | None, int | None]] = set()
        for body in self.cf_bodies.get((function, op_name), ()):
            found |= self._lines_in.get(body, set())
        return found


    def op_attributes(self, function: str, name: str) -> list[tuple[str, str]]:
        """The attributes of op ``name`` in body ``function``, as (name, short text) pairs;
        LookupError for an op it does not hold."""
        graph = self.graphs.get(function)
        if graph is None:
            raise LookupError(f"the graph of {function} is not here")
        try:
            op = graph.get_operation_by_name(name)
        except (KeyError, ValueError) as exc:
            raise LookupError(f"no op {name} in {function}") from exc
        pairs = []
        for key in sorted(op.node_def.attr):
            try:
                text = _format_attr(op.get_attr(key))
            except Exception:  # noqa: BLE001 - an attribute TensorFlow cannot decode
                text = "?"
            pairs.append((key, text))
        return pairs


_ATTR_TEXT = 100  # characters of an attribute's value shown


def _format_attr(value: Any) -> str:
    """An attribute value as a user reads it: dtype names, shapes, a constant's values."""
    if isinstance(value, (list, tuple)):
        text = "[" + ", ".join(_format_attr(v) for v in value) + "]"
    elif isinstance(value, bytes):
        text = value.decode("utf-8", "replace")
    elif hasattr(value, "as_datatype_enum"):  # a DType
        text = value.name
    elif type(value).__name__ == "TensorProto":
        import numpy as np
        import tensorflow as tf

        array = tf.make_ndarray(value)
        text = (f"{array.dtype.name}{list(array.shape)} "
                + np.array2string(array, threshold=8, edgeitems=3).replace("\n", ""))
    elif type(value).__name__ == "NameAttrList":  # a function
        text = value.name
    elif type(value).__name__ == "TensorShapeProto":
        text = shape_text(None if value.unknown_rank
                           else [None if d.size < 0 else d.size for d in value.dim], compact=True)
    elif type(value).__name__ == "TensorShape":
        text = shape_text(None if value.rank is None else value.as_list(), compact=True)
    else:
        text = str(value)
    return shortened(text, _ATTR_TEXT)


def _format_output(tensor: Any) -> str:
    try:
        dims = tensor.shape.as_list()
    except ValueError:
        dims = None
    return f"{tensor.dtype.name}{shape_text(dims, compact=True)}"


class _Walker:
    def __init__(self, root_file: str, root_span: tuple[int, int], user_code: Any,
                 noted: OpChains | None = None, functions: bool = True,
                 outer: frozenset[tuple[str, int]] = frozenset()) -> None:
        self.functions = functions  # walk into called functions' graphs, not only bodies
        self.outputs = True  # read each op's output dtypes and shapes
        self.root_file = root_file
        self.root_span = root_span
        self.noted = noted
        self.user_code = user_code  # supports ``filename in user_code``
        self.inventory = LiveInventory()
        self._func_attrs: dict[str, list[tuple[str, bool]]] = {}
        self._seen: set[int] = set()
        self._user: dict[str, bool] = {root_file: True}
        self.outer = outer  # the caller's frames (opchains.caller_frames)
        self.apart: frozenset[str] = frozenset()  # bodies counted elsewhere (build_inventory)

    def func_attrs(self, op: Any) -> list[tuple[str, bool]]:
        cached = self._func_attrs.get(op.type)
        if cached is None:
            try:
                cached = [(a.name, a.type == "list(func)") for a in op.op_def.attr
                          if a.type in ("func", "list(func)")]
            except Exception:  # noqa: BLE001 - ops without a registered OpDef
                cached = []
            self._func_attrs[op.type] = cached
        return cached

    def where(self, op: Any, graph: Any) -> tuple[str | None, int | None]:
        """The innermost frame of the user's code that made ``op`` (file, line); the chain
        of its user frames is counted in ``inventory.chains``."""
        noted = self.noted.chain(graph, op.name) if self.noted is not None else None
        chain = list(noted) if noted is not None else self._read(op)
        if not chain:
            return None, None
        # Frames outside the traced function (the caller's, tf.function's own argument
        # handling) made nothing of the function: its chain starts at the function.
        low, high = self.root_span
        root_file = self.root_file
        start = next((i for i, (f, n) in enumerate(chain)
                      if f == root_file and low <= n <= high), None)
        if start is None:
            if chain[-1][0] == root_file:
                return chain[-1]  # the function's own file, outside it (a default value)
            return None, None
        key = tuple(chain[start:])
        chains = self.inventory.chains
        chains[key] = chains.get(key, 0) + 1
        return chain[-1]

    def _read(self, op: Any) -> list[tuple[str, int]]:
        """The user frames of ``op``'s stored stack trace (the slow way: see opchains)."""
        try:
            frames = op.traceback.get_user_frames()
        except Exception:  # noqa: BLE001 - ops imported without a traceback
            return []
        user = self._user
        chain = []
        for frame in frames:
            filename = frame.filename
            mine = user.get(filename)
            if mine is None:
                mine = user[filename] = filename in self.user_code
            if mine and (filename, frame.lineno) not in self.outer:
                chain.append((filename, frame.lineno))
        return chain

    def walk(self, graph: Any, name: str, parent_op: str | None, role: str,
             root: Any) -> None:
        if id(graph) in self._seen:
            return
        self._seen.add(id(graph))
        self.inventory.graph_names[id(graph)] = name
        self.inventory.graphs[name] = graph
        body = BodyInfo(name=name, parent_op=parent_op, role=role)
        self.inventory.bodies.append(body)
        nested: list[tuple[Any, str, str, str]] = []
        for op in graph.get_operations():
            body.op_count += 1
            file, line = self.where(op, graph)
            self.inventory.ops.append(OpInfo(
                name=op.name, type=op.type, line=line, function=name,
                device=op.device,
                outputs=[_format_output(t) for t in op.outputs] if self.outputs else [],
                parent=parent_op, file=file))
            for attr, is_list in self.func_attrs(op):
                try:
                    value = op.get_attr(attr)
                except Exception:  # noqa: BLE001 - an attribute that cannot be read is skipped
                    continue
                values = list(value) if is_list else [value]
                for i, func in enumerate(values):
                    fname = getattr(func, "name", None)
                    if isinstance(fname, bytes):
                        fname = fname.decode()
                    if not fname:
                        continue
                    sub = _find_graph(fname, graph, root) \
                        if (self.functions or op.type in CONTROL_FLOW_OPS) \
                        and fname not in self.apart else None
                    label = _ROLES.get(attr, attr) + (f" {i}" if is_list else "")
                    if op.type in CONTROL_FLOW_OPS:
                        self.inventory.cf_bodies.setdefault((name, op.name), []).append(fname)
                    if sub is not None:
                        nested.append((sub, fname, op.name, label))
                    else:
                        self.inventory.bodies.append(BodyInfo(fname, op.name, label))
        for sub, fname, op_name, label in nested:
            self.walk(sub, fname, op_name, label, root)


def _find_graph(name: str, graph: Any, root: Any) -> Any:
    for g in (graph, root):
        fn = tf_internals.function_library(g).get(name)
        if fn is not None:
            sub = tf_internals.function_graph(fn)
            if sub is not None:
                return sub
    return None


def trace_graphs(concrete: Any) -> set[int]:
    """The ids of ``concrete``'s graph and of every graph its functions hold (loop bodies,
    branches, the functions it calls), found without reading their ops; valid while
    ``concrete`` lives."""
    found: set[int] = set()
    todo = [concrete.graph]
    while todo:
        graph = todo.pop()
        if id(graph) in found:
            continue
        found.add(id(graph))
        for function in tf_internals.function_library(graph).values():
            sub = tf_internals.function_graph(function)
            if sub is not None:
                todo.append(sub)
    return found


def build_inventory(concrete: Any, root_file: str, root_span: tuple[int, int],
                    user_code: Any, noted: OpChains | None = None,
                    functions: bool = True, outputs: bool = True,
                    outer: frozenset[tuple[str, int]] = frozenset(),
                    apart: frozenset[str] = frozenset()) -> LiveInventory:
    """Walk ``concrete``'s graph and every body it calls; each op is charged to the innermost
    frame of the user's code (``root_file``, or a file ``in user_code``) under the traced
    function (its lines ``root_span`` of ``root_file``). ``functions`` False: the graphs of
    the functions it calls (a tf.function called inside it, traced on its own) are left
    out, only its control flow's bodies are walked (their ops are made in this trace).
    ``outputs`` False: the ops' output dtypes and shapes are not read (a record counts).
    ``outer``: the caller's frames, which made nothing of the function (see
    opchains.caller_frames). ``apart``: the names of bodies counted elsewhere, left out
    (a record's: the body of a `for x in ds:` that tf.data traced as a function of its
    own, which has its own record)."""
    walker = _Walker(root_file, root_span, user_code, noted, functions, outer)
    walker.outputs = outputs
    walker.apart = apart
    graph = concrete.graph
    walker.walk(graph, concrete.name.decode() if isinstance(concrete.name, bytes)
                else str(concrete.name), None, "outer", graph)
    return walker.inventory
