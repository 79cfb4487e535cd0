"""The Python files under a folder: what the explorer opens and `check` analyses."""

from __future__ import annotations

from agexplorer.source.folders import python_files_under


def test_the_walk_leaves_out_hidden_folders_environments_and_build_output(tmp_path):
    for rel in ("a.py", "pkg/b.py", "pkg/notes.txt", ".hidden/c.py", "build/lib/a.py",
                "lib/site-packages/d.py", "env2/e.py", "__pycache__/f.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    (tmp_path / "env2" / "pyvenv.cfg").write_text("home = /usr\n")  # a virtual environment
    found = [p.relative_to(tmp_path).as_posix()
             for p in map(type(tmp_path), python_files_under(str(tmp_path)))]
    assert found == ["a.py", "pkg/b.py"]


def test_the_walk_stops_once_past_its_limit(tmp_path):
    for i in range(5):
        (tmp_path / f"m{i}.py").write_text("")
    assert len(python_files_under(str(tmp_path), limit=2)) == 5  # one folder: read whole
    for i in range(3):
        (tmp_path / f"sub{i}").mkdir()
        (tmp_path / f"sub{i}" / "n.py").write_text("")
    assert len(python_files_under(str(tmp_path), limit=5)) == 6  # stopped in the first sub
