"""KPQA tagger training data: sentence choice, WordPiece labels, WikiQA phrases, group split.

Small hand-made inputs; the tokenizer is the default encoder's (a vocabulary
file, no model weights), so these stay in the fast run.
"""

from __future__ import annotations

import pytest

from qascore_lab.datasets import squad
from qascore_lab.train import kpqa_data as kd
from qascore.weights.kpw_model import IGNORE


@pytest.fixture(scope="module")
def tok():
    from qascore.runtime.encoder import load_tokenizer

    try:
        return load_tokenizer()
    except FileNotFoundError as err:
        pytest.skip(f"default encoder package not installed: {err}")


@pytest.mark.parametrize("text,sentences", [
    ("One. Two.", ["One.", "Two."]),
    ('He said "Go." Then he left.', ['He said "Go."', "Then he left."]),
    ("It rose 3.5 percent. In 1990 it fell!", ["It rose 3.5 percent.", "In 1990 it fell!"]),
    ("no boundary here", ["no boundary here"]),
    ("Ends (a.) Next one?", ["Ends (a.)", "Next one?"]),
])
def test_sentence_bounds(text, sentences):
    assert [text[s:e] for s, e in kd.sentence_bounds(text)] == sentences


@pytest.mark.parametrize("start,end,expected", [
    (0, 3, "One two."),                    # inside the first sentence
    (9, 14, "Three four."),                # inside the second
    (4, 14, "One two. Three four."),       # crosses the boundary: both
])
def test_answer_sentence(start, end, expected):
    ctx = "One two. Three four. Five."
    sent, off = kd.answer_sentence(ctx, start, end)
    assert sent == expected and ctx[off:off + len(sent)] == sent


def test_from_squad_offsets_relative_to_sentence():
    ctx = "Paris is nice. Water boils at 100 degrees. It is hot."
    q = squad.SquadQuestion("q", "T", 7, ctx, "When does water boil?", (squad.Answer("100 degrees", 30),), False)
    (ex,) = kd.from_squad([q])
    assert ex.sentence == "Water boils at 100 degrees."
    assert [ex.sentence[s:e] for s, e in ex.spans] == ["100 degrees"]
    assert ex.group == "squad:7"


@pytest.mark.parametrize("question,sentence,span,use_q,k_pieces", [
    ("how hot?", "Water boils at 100 degrees.", "100 degrees", True, ["100", "degrees"]),
    ("who?", "Bernoulli wrote it.", "Bernoulli", True, ["bern", "##ou", "##lli"]),
    ("who?", "Bernoulli wrote it.", "Bernoulli", False, ["bern", "##ou", "##lli"]),
    ("where?", "In Normandy, France.", "France", True, ["france"]),
])
def test_labels_land_on_wordpieces(tok, question, sentence, span, use_q, k_pieces):
    at = sentence.index(span)
    ex = kd.Example(question, sentence, ((at, at + len(span)),), "t", "g")
    enc = kd.encode(tok, ex, use_question=use_q)
    pieces = tok.convert_ids_to_tokens(enc.input_ids)
    assert [p for p, lab in zip(pieces, enc.labels) if lab == 1] == k_pieces
    # question and special positions carry no label; segment ids 0 / 1
    n_q = len(tok(question, add_special_tokens=False)["input_ids"]) if use_q else 0
    head = 1 + (n_q + 1 if use_q else 0)
    assert enc.labels[:head] == [IGNORE] * head and enc.labels[-1] == IGNORE
    assert pieces[0] == "[CLS]" and pieces[-1] == "[SEP]"
    if use_q:
        assert enc.token_type_ids == [0] * head + [1] * (len(pieces) - head)
    else:
        assert set(enc.token_type_ids) == {0}


def test_cut_keyphrase_drops_example(tok):
    sent = "a " * 200 + "Paris."
    ex = kd.Example("where?", sent, ((400, 405),), "t", "g")
    assert kd.encode(tok, ex, max_len=32) is None
    ex2 = kd.Example("where?", "Paris " + sent, ((0, 5),), "t", "g")
    enc = kd.encode(tok, ex2, max_len=32)
    assert len(enc.input_ids) == 32


WIKIQA = (
    "QuestionID\tQuestion\tDocumentID\tDocumentTitle\tSentenceID\tSentence\tAnswerPhrase1\tAnswerPhrase2\tAnswerPhrase3\n"
    "Q1\thow tall is it\tD1\tT\tD1-0\tThe tower is 300 metres tall .\t\t300 metres tall\t300 metres\n"
    "Q2\twho wrote it\tD2\tT\tD2-0\tIt was written by Ann Lee .\tNO_ANS\tNO_ANS\t\n"
    "Q3\twhen was it\tD3\tT\tD3-0\tIt opened in 1889 .\tNO_ANS\tin 1889\tnot in sentence\n"
    "Q4\twhere\tD4\tT\tD4-0\tNothing matches .\tsomething else\t\t\n"
)


def test_read_wikiqa(tmp_path):
    p = tmp_path / "w.tsv"
    p.write_text(WIKIQA, encoding="utf-8")
    ex = kd.read_wikiqa(p)
    assert [e.id for e in ex] == ["D1-0", "D3-0"]          # all-NO_ANS and no-match rows dropped
    assert [e.sentence[s:t] for e in ex for s, t in e.spans] == ["300 metres", "in 1889"]  # shortest found
    assert ex[0].group == "wikiqa:Q1"


def test_split_by_group_is_deterministic():
    ex = [kd.Example("q", "s", ((0, 1),), "t", f"g{i // 3}", str(i)) for i in range(600)]
    tr, dv = kd.split(ex, 10, 0)
    assert {e.group for e in tr}.isdisjoint({e.group for e in dv})
    assert 5 <= len({e.group for e in dv}) <= 40      # about 10% of 200 groups
    assert kd.split(ex, 10, 0) == (tr, dv)
    assert kd.split(ex, 10, 1) != (tr, dv)
