"""Hostile trial, third round (issue 64), the gaps its first fixes left: a cap that changes scores is in the
signature; bertscore, kpqa-* and the answerability reader read a word over 100 characters in pieces; the
server bounds the time a request body may take. Each test failed on the code before the fix."""

from __future__ import annotations

import time

import pytest

DNA = "ACGT" * 30  # 120 characters: one [UNK] to BERT's WordPiece (max_input_chars_per_word=100)
OTHER = "TTTT" * 30


# -- a cap that changes scores is in the signature ---------------------------------------------------------
def test_qrelscore_names_the_passage_tokens_it_reads_in_its_signature() -> None:
    """qrelscore reads the first 1,024 tokens of a passage: a longer passage scores otherwise than it did, so
    the cap is `max_context`, in the signature, and a run that reads more says so there."""
    from qascore.metrics.options import OptionError
    from qascore.metrics.registry import load

    plain, wide = load("qrelscore"), load("ref-qrelscore", max_context=2048)
    assert "|max_context:1024|" in plain.signature and "|max_context:2048|" in wide.signature
    assert plain.engine.max_context == 1024 and wide.engine.max_context == 2048
    ids = tuple(range(1500))
    wide.engine.cut = []
    assert wide.engine._context(ids, "w " * 1500) == ids and wide.engine.cut == [False]  # read whole
    plain.engine.cut = []
    assert plain.engine._context(ids, "w " * 1500) == ids[:1024] and plain.engine.cut == [True]
    with pytest.raises(OptionError, match="max_context"):
        load("qrelscore", max_context=100_000)  # the bound on one record's work stays a bound
