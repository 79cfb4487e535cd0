"""The lesson tour's steps, as data: one per section of the lesson, in its order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Action = Literal["run", "trace", "doctor", "curves", "none"]
Tab = Literal["run", "trace", "doctor", "flow", "graph"]  # the tab that holds the result


@dataclass(frozen=True)
class Claim:
    """A figure the lesson states, to hold the measurement against: graph over eager
    between ``low`` and ``high`` times, in the lesson's own words (``quote_zh``) and
    in English."""

    low: float
    high: float
    quote_zh: str
    says: str


@dataclass(frozen=True)
class TourStep:
    """One section: its heading in the lesson (Chinese), the sample function it opens, the
    one action that shows the point, and where to look once that action has answered."""

    heading_zh: str  # the lesson's own heading, as printed in it
    title_en: str
    text: str  # a short explanation, in English
    file: str  # a bundled sample's file name
    function: str  # its qualname
    action: Action  # run: the Run tab; trace: the Trace tab; doctor: the Doctor tab
    look: str  # what to look at in the result
    shows: Literal["flow", "graph"] = "flow"  # action "none": the analysis's tab to look at
    # The step's own call (None: the function's ready inputs): a call typed elsewhere, for
    # this function or another, never stands in for it.
    call: str | None = None
    claim: Claim | None = None  # the lesson's figure for this step's measurement
    tensorboard: bool = False  # the run also writes the graph's TensorBoard log

    @property
    def tab(self) -> Tab:
        """The tab whose result the step highlights (curves are charted in the Run tab)."""
        if self.action == "curves":
            return "run"
        return self.shows if self.action == "none" else self.action

    @property
    def target(self) -> str:
        """``file::function``, as the command line writes it."""
        return f"{self.file}::{self.function}"


STEPS: tuple[TourStep, ...] = (
    TourStep("4.1 Eager模式 vs 静态图模式（模拟1.x）", "Eager vs graph",
             "Eager TensorFlow runs each op as Python reaches it; @tf.function traces the "
             "function once into a graph and runs the graph on later calls. Both give the "
             "same result.",
             "s4_1_eager_vs_graph.py", "matmul_static", "run",
             "The Run tab: eager, graph and XLA times per call. For one small matmul the "
             "graph can be slower: each call pays a fixed cost that only pays off when a "
             "function runs many ops or loops."),
    TourStep("4.2 @tf.function 基本用法与追踪", "Tracing",
             "The first call traces: Python runs the body once to build the graph. A Python "
             "print runs only then; later calls with the same kind of input reuse the graph, "
             "and a new dtype traces again.",
             "s4_2_tracing.py", "show_trace", "trace",
             "The Trace tab: which calls traced, which reused a graph, and why."),
    TourStep("4.3 使用 input_signature 固定签名", "input_signature",
             "An input_signature fixes the shapes and dtypes a function accepts: one trace "
             "serves every batch size of shape (None, 2), and an int32 input is refused.",
             "s4_3_input_signature.py", "process_batch", "trace",
             "The Trace tab: one trace for all batch sizes; the int32 call fails with "
             "TensorFlow's own message."),
    TourStep("4.4 AutoGraph：动态控制流转换", "AutoGraph: if, for and while",
             "AutoGraph rewrites Python control flow that depends on tensors: a for over "
             "tf.range becomes a while_loop op, an if on a tensor a cond op.",
             "s4_4_autograph.py", "dynamic_loop", "none",
             "The Control flow tab: the for loop's verdict (staged as a while loop), and the "
             "AutoGraph pane: the code TensorFlow actually traced."),
    TourStep("4.5 图的内部机制：get_concrete_function", "Concrete functions",
             "get_concrete_function traces once for a given input signature and returns the "
             "graph itself: its ops can be listed one by one.",
             "s4_5_concrete_function.py", "add_func", "none",
             "The Graph tab: the concrete function's ops, each linked to its source line.",
             shows="graph"),
    TourStep("4.6 TensorBoard 图可视化", "The Keras model",
             "A Keras model's call under @tf.function traces into one graph holding every "
             "layer's ops; that graph is what TensorBoard draws.",
             "s4_6_keras_model.py", "MyModel.call", "run",
             "The Run tab's last line: where the log TensorBoard draws was written, and the "
             "command that opens it; the Graph tab (4) lists the same ops, each with its "
             "source line.", tensorboard=True),
    TourStep("4.7 常见陷阱演示", "The pitfalls",
             "Python side effects run only while tracing: a global counter stays at 1 while "
             "the function is called many times. A tf.Variable is updated on every call.",
             "s4_7_pitfalls.py", "increment", "doctor",
             "The Doctor tab: the finding at the global's line, why it happens and the fix."),
    TourStep("5.2 性能测试", "The training speed-up",
             "A training step (forward pass, GradientTape, Adam) runs many small ops: here the "
             "graph's per-call cost is repaid, and the lesson measures the speed-up.",
             "s5_training.py", "train_step_graph", "run",
             "The Run tab: graph against eager per step, held against the lesson's figure.",
             claim=Claim(1.5, 3.0, "典型输出显示图模式比Eager模式快1.5~3倍，取决于模型大小和批次规模",
                         "graph mode typically 1.5-3x faster than eager, depending on the "
                         "model's size and the batch")),
    TourStep("6.2 AutoGraph 转换问题", "The unrolled loop",
             "A while loop over a Python int is not converted: Python runs it while tracing, "
             "so the graph holds one copy of the body per iteration.",
             "s6_2_bad_loop.py", "bad_loop", "doctor",
             "The Doctor tab: the loop unrolled at trace time, why, and the fix (a tensor "
             "bound or tf.range)."),
    TourStep("7.3 进阶实操作业", "The homework",
             "The homework halves the learning rate when the loss rises: an if on two tensors "
             "inside @tf.function, the previous loss kept in a tf.Variable.",
             "s7_3_homework.py", "train_step", "curves",
             "The Run tab: the loss and the learning rate the 20 steps returned, charted; "
             "lr halves where the loss rose, because the if is staged as a cond op and "
             "decides on every call (its verdict in the Control flow tab, 1)."),
)
