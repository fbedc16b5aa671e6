"""The shared model cache: one object per key, and factories may nest."""

from qascore.runtime.cache import shared


def test_created_once():
    calls = []
    make = lambda: calls.append(1) or object()  # noqa: E731
    assert shared(("t", "once"), make) is shared(("t", "once"), make)
    assert len(calls) == 1


def test_nested_factories_do_not_deadlock():
    inner = shared(("t", "outer"), lambda: ("outer", shared(("t", "inner"), lambda: "inner")))
    assert inner == ("outer", "inner")
