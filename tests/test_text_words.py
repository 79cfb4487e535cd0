"""The small words every view shares (agexplorer/model/text.py): one spelling each."""

from agexplorer.model.text import file_line, plural, seconds_text, shape_text, shortened, times


def test_counts_and_times():
    assert [plural(n, "op") for n in (0, 1, 2)] == ["0 ops", "1 op", "2 ops"]
    assert plural(2, "branch", "branches") == "2 branches"
    assert [times(n) for n in (None, 1, 3)] == ["-", "once", "3 times"]


def test_shapes_in_both_spellings():
    assert shape_text([None, 4]) == "[None, 4]" and shape_text(None) == "[unknown rank]"
    assert shape_text([None, 4], compact=True) == "[?,4]"
    assert shape_text(None, compact=True) == "[*]" and shape_text(()) == "[]"


def test_durations_places_and_cut_text():
    assert [seconds_text(x) for x in (None, 2.0, 0.00456, 7.8e-6)] == \
        ["-", "2.00 s", "4.56 ms", "7.8 µs"]
    assert file_line("train.py", 12) == "train.py:12" and file_line("train.py", None) == "train.py"
    assert shortened("abcdef", 6) == "abcdef" and shortened("abcdefg", 6) == "abcde…"
    assert len(shortened("x" * 100, 40)) == 40
