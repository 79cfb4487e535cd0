"""The rings: the engine side never imports textual or rich; importing the package imports no
TensorFlow; the TUI process imports neither TensorFlow nor the packages that drive it."""

import subprocess
import sys

from conftest import ROOT

# The packages that run in the worker, beside TensorFlow, those below them, and the state
# folder that the command line and the explorer share.
ENGINE_SIDE = ("model", "source", "engine", "lab", "retrace", "doctor", "state")


def loaded_after(statement: str) -> set[str]:
    """Every module name in ``sys.modules`` after running ``statement`` in a fresh interpreter."""
    code = f"import sys\n{statement}\nprint(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=120).stdout
    return set(out.split())


def modules_after(statement: str) -> set[str]:
    return {name.split(".")[0] for name in loaded_after(statement)}


EVERY_ENGINE_SIDE_MODULE = (
    "import importlib, pkgutil\n"
    f"for package in {ENGINE_SIDE!r}:\n"
    "    root = importlib.import_module('agexplorer.' + package)\n"
    "    for m in pkgutil.iter_modules(root.__path__):\n"
    "        importlib.import_module(f'agexplorer.{package}.{m.name}')")


def test_the_engine_side_imports_neither_textual_nor_rich():
    loaded = modules_after(EVERY_ENGINE_SIDE_MODULE)
    assert "textual" not in loaded and "rich" not in loaded
    assert "tensorflow" not in loaded  # TensorFlow is imported lazily, where it is used


def test_package_and_cli_import_no_tensorflow():
    loaded = modules_after("import agexplorer, agexplorer.cli, agexplorer.engine.pipeline")
    assert "tensorflow" not in loaded


def test_the_tui_imports_no_tensorflow():
    # The widgets mounted after the first frame, and the results the UI unpickles.
    loaded = loaded_after("import agexplorer.tui.app, agexplorer.worker.client, "
                          "agexplorer.worker.protocol, "
                          "agexplorer.tui.workspace, agexplorer.model.report, "
                          "agexplorer.model.lab, agexplorer.model.retrace, "
                          "agexplorer.model.doctor, agexplorer.render.terminal, "
                          "agexplorer.render.retrace, agexplorer.render.doctor")
    tops = {name.split(".")[0] for name in loaded}
    assert "tensorflow" not in tops and "textual" in tops
    driving = {("agexplorer", p) for p in ("engine", "lab", "retrace", "doctor")}
    drivers = sorted(name for name in loaded if tuple(name.split(".")[:2]) in driving)
    assert not drivers, f"the TUI imported {drivers}"


def test_the_explorers_first_frame_imports_only_what_it_draws():
    """`agexplorer DIR` up to its first frame (the function list as lines, the status line,
    the footer), headless, from the command line's own start (cli/explorer.py): the list's
    Tree (the FunctionPicker, ~15-20 ms of Textual's work) comes just after it; the worker's
    client and protocol load after it (EngineBridge.worker, made in on_ready; ~40 ms of the
    first paint), and so do the workspace's widgets and the report model they show (a
    resize's compact controls and a highlight in the function list brought in the gutter,
    the report model and the op tree: ~17 ms; the op detail's types, the op groups and the
    inventory model, ~3 ms), and the app's parts with their messages and state (wiring.py;
    ~30 dataclasses, ~8 ms), the tour, the recovery copies and the command table's records."""
    loaded = loaded_after(
        "import os\n"
        "from textual.app import App\n"
        "from agexplorer.cli import explorer\n"
        "from agexplorer.cli.common import samples_dir\n"
        "from agexplorer.tui.app import AgxApp\n"
        # what was loaded when the first frame was drawn (an exit makes the parts it uses)
        "AgxApp.on_ready = lambda self: (os.write(1, ' '.join(sorted(sys.modules)).encode()),"
        " os._exit(0))\n"
        "AgxApp.run = lambda self: App.run(self, headless=True, size=(160, 45))\n"
        "explorer._open_tui([samples_dir()], None)")
    assert "agexplorer.tui.functions.listing" in loaded  # it did draw the function list
    # ... as lines: its Tree (FunctionPicker) takes their place after the first frame
    early = sorted(name for name in loaded if name in (
        "agexplorer.worker.client", "agexplorer.worker.protocol", "agexplorer.worker.process",
        "agexplorer.tui.workspace", "agexplorer.tui.code.gutter", "agexplorer.tui.graph.op_tree",
        "agexplorer.tui.graph.op_groups", "agexplorer.model.report", "agexplorer.model.inventory",
        "agexplorer.tui.messages", "agexplorer.tui.state", "agexplorer.tui.desk",
        "agexplorer.tui.bridge", "agexplorer.tui.results", "agexplorer.tui.requests",
        "agexplorer.tui.code.made", "agexplorer.tui.tour.tour", "agexplorer.tui.tour.steps",
        "agexplorer.state.recovery", "agexplorer.runlog.log", "agexplorer.tui.functions.picker",
        # argparse reads the options only where there is one (~2 ms); JSON is read and
        # written by the headless commands and a background worker's hand-off (~1.4 ms)
        "argparse", "json",
        # the probe of another interpreter, where one is chosen (--python, a venv's)
        "agexplorer.worker.interpreter",
        # rich's markup parser brings its emoji table (~2.5 ms): the first frame's labels
        # are styled Text
        "rich._emoji_codes",
        # Textual's tabs and tree-sitter came with a probe of every patched name at once
        # (~8 ms); OpenSSL's hashes with the recovery copies' names (~2 ms)
        "textual.widgets._tabbed_content", "tree_sitter", "hashlib"))
    assert not early, early
