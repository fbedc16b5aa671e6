"""The long-input rule (docs/long-inputs.md): details.truncated on every record, one line per metric per
command, KPQA's lexical metrics read the first MAX_PIECES WordPieces. Stand-in tagger: no model."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from qascore import messages
from qascore.metrics import kpqa as km
from qascore.metrics import long_inputs
from qascore.records import Record
from qascore.weights.base import TokenWeighter
from qascore.weights.kpw import MAX_PIECES


class _Pieces:
    """One WordPiece per plain word, two for words with a hyphen (as a WordPiece tokenizer splits them)."""

    def pieces(self, tokens):
        return [[1, 2] if "-" in t else [1] for t in tokens]


class StubWeighter(TokenWeighter):
    name = "stub"

    def __init__(self, tagger=None, device=None, dtype=None):
        self.tagger, self.ident = _Pieces(), "stub"

    def weigh(self, question, tokens):
        return np.array([1.0 + (len(t) % 3) for t in tokens])

    def signature(self):
        return "stub"


@pytest.fixture(autouse=True)
def stub(monkeypatch):
    monkeypatch.setattr(km, "KpwWeighter", StubWeighter)
    yield
    long_inputs._deferred = False
    long_inputs._tally.clear()


def _words(n: int, start: int = 0) -> list[str]:
    return [f"w{i % 97}" for i in range(start, start + n)]


def test_a_long_candidate_scores_as_its_first_max_pieces_words() -> None:
    words = _words(MAX_PIECES + 500)
    ref = " ".join(_words(30, 5))
    long = Record(id="long", question="q", candidate=" ".join(words), references=[ref])
    cut = Record(id="cut", question="q", candidate=" ".join(words[:MAX_PIECES]), references=[ref])
    short = Record(id="short", question="q", candidate="w1 w2 w3", references=[ref])
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        got = km.KpqaRougeL().score([long, cut, short])
    assert got.scores[0] == pytest.approx(got.scores[1], abs=1e-12)  # the part it read, and only that
    assert got.details["truncated"] == [True, False, False]


def test_pieces_count_not_words() -> None:
    # every word is two WordPieces: only MAX_PIECES / 2 words fit
    words = [f"a-{i % 50}" for i in range(MAX_PIECES)]
    rec = Record(id="x", question="q", candidate=" ".join(words), references=["a-1 a-2"])
    half = Record(id="y", question="q", candidate=" ".join(words[:MAX_PIECES // 2]), references=["a-1 a-2"])
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        got = km.KpqaBleu1().score([rec, half])
    assert got.details["truncated"] == [True, False]
    assert got.scores[0] == pytest.approx(got.scores[1], abs=1e-12)


def test_library_use_gets_one_warning_per_call_naming_ids() -> None:
    rec = Record(id="long-one", question="q", candidate=" ".join(_words(MAX_PIECES + 10)), references=["w1"])
    with pytest.warns(UserWarning, match=r"kpqa-rougeL: 1 of 2 records .*ids: long-one"):
        km.KpqaRougeL().score([rec, Record(id="ok", question="q", candidate="w1", references=["w1"])])


def test_the_command_line_tally_is_one_line_per_metric(capsys) -> None:
    messages.reset()
    long_inputs.defer()
    recs = [Record(id=f"r{i}", candidate="x") for i in range(5)]
    long_inputs.report("bertscore", recs, [True, False, True, False, False], "the first 512 tokens")
    long_inputs.report("bertscore", recs, [False, False, False, True, True], "the first 512 tokens")
    long_inputs.report("ava", recs, [False] * 5, "128 WordPieces")
    long_inputs.flush()
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["qascore: warning: bertscore: 4 of 10 records had a text longer than it reads (the first 512 "
                   "tokens); scored on that part, details.truncated marks them (ids: r0, r2, r3, ...; "
                   "docs/long-inputs.md)"]
