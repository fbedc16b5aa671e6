"""AS2 readers on hand-made fixtures (tests/fixtures/as2) and, when present, the shared corpora."""

from __future__ import annotations

from pathlib import Path

import pytest

from qascore_lab.datasets.as2 import read_answer_phrases, read_rank, read_trecqa, read_wikiqa_tsv
from qascore.records import InputError

FIX = Path(__file__).parent / "fixtures" / "as2"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"  # lab/tests -> the repository's parent


def test_wikiqa_tsv_keeps_quotes_and_groups_questions():
    qs = read_wikiqa_tsv(FIX / "wikiqa" / "WikiQA-tiny.tsv")
    assert [q.qid for q in qs] == ["Q1", "Q2", "Q3"]
    assert qs[0].candidates[1] == 'Shakespeare wrote "Hamlet" around 1600 .'  # literal quotes, no CSV quoting
    assert qs[0].labels == [1, 1, 0, 0]
    assert qs[2].positives == [0, 1, 2] and qs[2].negatives == [3]
    assert qs[1].cand_ids == ["D2-0", "D2-1"]


def test_answer_phrases_drop_empty_and_no_ans():
    ph = read_answer_phrases(FIX / "wikiqa" / "WikiQASent.pos.ans.tsv")
    assert ph == {"D1-0": ["William Shakespeare"], "D3-0": ["1993", "in 1993"]}


def test_rank_file_aligns_by_question_and_sentence_index():
    qs = read_wikiqa_tsv(FIX / "wikiqa" / "WikiQA-tiny.tsv")
    scores = read_rank(FIX / "wikiqa" / "emnlp-table" / "WikiQA.TOY.tiny.rank", qs)
    assert scores == [[0.2, 0.9, 0.5, 0.1], [0.3, 0.7], [0.1, 0.2, 0.3, 0.9]]


def test_rank_file_missing_candidate_is_an_error(tmp_path):
    qs = read_wikiqa_tsv(FIX / "wikiqa" / "WikiQA-tiny.tsv")
    p = tmp_path / "bad.rank"
    p.write_text("1 0 0 0 0.5 0\n")
    with pytest.raises(InputError, match="unscored"):
        read_rank(p, qs)
    p.write_text("9 0 0 0 0.5 0\n")
    with pytest.raises(InputError, match="not in the corpus"):
        read_rank(p, qs)


def test_trecqa_split_folder():
    qs = read_trecqa(FIX / "trecqa" / "dev")
    assert [(q.qid, q.labels) for q in qs] == [("1.1", [1, 1, 0]), ("2.1", [1, 0])]
    assert qs[1].candidates == ["y is in z .", "z ."]


@pytest.mark.slow
@pytest.mark.skipif(not (SHARED / "wikiqa").exists(), reason="../shared/data/wikiqa not present")
@pytest.mark.parametrize("split, pairs, questions", [("train", 20360, 2118), ("dev", 2733, 296), ("test", 6165, 633)])
def test_shared_wikiqa_counts_match_readme(split, pairs, questions):
    qs = read_wikiqa_tsv(SHARED / "wikiqa" / f"WikiQA-{split}.tsv")
    assert sum(len(q.candidates) for q in qs) == pairs
    assert len(qs) == questions
