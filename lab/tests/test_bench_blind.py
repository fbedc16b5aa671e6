"""`bench blind`: the per-kind table and the pair figure, by hand."""

from __future__ import annotations

import pytest

from qascore_lab.bench.blind import pairs_right_higher, table

ROWS = [{"question": "q1", "label": 1, "kind": "right_plain"}, {"question": "q1", "label": 0, "kind": "wrong_plain"},
        {"question": "q1", "label": 0, "kind": "wrong_siderole"}, {"question": "q2", "label": 1, "kind": "right_plain"},
        {"question": "q2", "label": 0, "kind": "wrong_siderole"}]


def test_pairs_right_higher_counts_pairs_within_a_question_ties_half():
    # q1: right 0.9 against 0.2 (win) and 0.9 (tie); q2: right 0.3 against 0.6 (loss) -> (1 + 0.5 + 0) / 3
    assert pairs_right_higher(ROWS, [0.9, 0.2, 0.9, 0.3, 0.6]) == pytest.approx(0.5)


def test_table_accepted_by_kind_and_accuracy():
    out = table(ROWS, [0.9, 0.2, 0.9, 0.3, 0.6], [True, False, True, False, True])
    assert out["accepted_by_kind"] == {"right_plain": {"rows": 2, "accepted": 0.5},
                                       "wrong_plain": {"rows": 1, "accepted": 0.0},
                                       "wrong_siderole": {"rows": 2, "accepted": 1.0}}
    assert out["accuracy"] == 0.4          # right: row 1 accepted, row 2 rejected; 3 wrong rows, 2 accepted
    # AUROC: positives 0.9, 0.3 against negatives 0.2, 0.9, 0.6: (1 + 0.5 + 1) + (1 + 0 + 0) = 3.5 of 6
    assert out["auroc"] == pytest.approx(3.5 / 6, abs=1e-4)


def test_table_counts_what_each_answer_asserts_per_kind():
    rows = [dict(r, references=["Canberra"]) for r in ROWS]
    spans = ["Canberra", "Sydney", None, "the city of Canberra", "Canberra"]
    kinds = table(rows, [0.9, 0.2, 0.9, 0.3, 0.6], [True, False, True, False, True], spans)["accepted_by_kind"]
    assert kinds["right_plain"] == {"rows": 2, "accepted": 0.5, "asserts_gold": 1.0, "asserts_none": 0.0}
    assert kinds["wrong_plain"] == {"rows": 1, "accepted": 0.0, "asserts_gold": 0.0, "asserts_none": 0.0}
    assert kinds["wrong_siderole"] == {"rows": 2, "accepted": 1.0, "asserts_gold": 0.5, "asserts_none": 0.5}
