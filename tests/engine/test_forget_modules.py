"""The user's modules are forgotten between loads (an edited helper is seen), reading only
what was imported since the last time, and everything where that cannot be told (no
TensorFlow: the tests run in a process of their own)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_what_was_imported_since_is_forgotten_and_the_rest_kept(tmp_path):
    (tmp_path / "helper_a.py").write_text("A = 1\n")
    (tmp_path / "helper_b.py").write_text("B = 2\n")
    code = textwrap.dedent("""
        import sys
        sys.path.insert(0, FOLDER)
        from agexplorer.engine import load

        load.forget_user_modules()                  # a first time: everything is read
        assert load._tail is not None
        import helper_a, json.tool                  # a user's module, a library's
        assert {"helper_a", "json.tool"} <= set(load._appended())
        assert load.forget_user_modules() == ["helper_a"]
        assert "helper_a" not in sys.modules and "json.tool" in sys.modules
        assert load._appended() == []               # nothing new since
        import helper_b
        del sys.modules["json.tool"]                # removed by someone else: all read
        assert load._appended() is None
        assert load.forget_user_modules() == ["helper_b"]
        import helper_a
        sys.modules["xml.dom.minidom2"] = sys.modules["json"]  # added under another name
        assert sorted(load._appended()) == ["helper_a", "xml.dom.minidom2"]
        assert load.forget_user_modules() == ["helper_a"]
        print("ok")
    """).replace("FOLDER", repr(str(tmp_path)))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]
