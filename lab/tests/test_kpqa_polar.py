"""Polar (yes/no) tagger examples: question by inversion / do-support, answer forms, K spans.

Fast tests read hand-written parses (`Tok` rows: text, ws, tag, pos, dep, head,
lemma, ent), so the rule is checked without a model; the slow table runs the
real spaCy pipeline on whole sentences.
"""

from __future__ import annotations

import pytest

from qascore_lab.train import kpqa_data as kd
from qascore_lab.train import polar
from qascore_lab.train.polar import Tok


def T(text, tag, pos, dep, head, lemma=None, ent="", ws=" "):
    return Tok(text, ws, tag, pos, dep, head, lemma or text.lower(), ent)


# "The castle was built by the Normans."  (passive: auxiliary inversion)
CASTLE = [T("The", "DT", "DET", "det", 1), T("castle", "NN", "NOUN", "nsubjpass", 3),
          T("was", "VBD", "AUX", "auxpass", 3, "be"), T("built", "VBN", "VERB", "ROOT", 3, "build"),
          T("by", "IN", "ADP", "agent", 3), T("the", "DT", "DET", "det", 6),
          T("Normans", "NNPS", "PROPN", "pobj", 4, "Normans", "NORP", ws=""), T(".", ".", "PUNCT", "punct", 3, ws="")]
# "Darwin wrote the book."  (lexical past verb: do-support; a person: no pronoun)
DARWIN = [T("Darwin", "NNP", "PROPN", "nsubj", 1, "Darwin", "PERSON"), T("wrote", "VBD", "VERB", "ROOT", 1, "write"),
          T("the", "DT", "DET", "det", 3), T("book", "NN", "NOUN", "dobj", 1, ws=""),
          T(".", ".", "PUNCT", "punct", 1, ws="")]
# "Bees make honey."  (plural present: do, they)
BEES = [T("Bees", "NNS", "NOUN", "nsubj", 1, "bee"), T("make", "VBP", "VERB", "ROOT", 1),
        T("honey", "NN", "NOUN", "dobj", 1, ws=""), T(".", ".", "PUNCT", "punct", 1, ws="")]
# "The lake is deep"  (copula root, no final mark)
LAKE = [T("The", "DT", "DET", "det", 1), T("lake", "NN", "NOUN", "nsubj", 2), T("is", "VBZ", "AUX", "ROOT", 2, "be"),
        T("deep", "JJ", "ADJ", "acomp", 2, ws="")]
# skipped: subject not first / negation / a question / non-finite root / a second clause
THEN = [T("Then", "RB", "ADV", "advmod", 2), T("it", "PRP", "PRON", "nsubj", 2), T("fell", "VBD", "VERB", "ROOT", 2, "fall", ws=""),
        T(".", ".", "PUNCT", "punct", 2, ws="")]
NEG = [T("It", "PRP", "PRON", "nsubj", 3), T("did", "VBD", "AUX", "aux", 3, "do"), T("not", "RB", "PART", "neg", 3),
       T("fall", "VB", "VERB", "ROOT", 3, ws=""), T(".", ".", "PUNCT", "punct", 3, ws="")]
WHO = [T("Who", "WP", "PRON", "nsubj", 1), T("built", "VBD", "VERB", "ROOT", 1, "build"), T("it", "PRP", "PRON", "dobj", 1, ws=""),
       T("?", ".", "PUNCT", "punct", 1, ws="")]
GOING = [T("Prices", "NNS", "NOUN", "nsubj", 1, "price"), T("rising", "VBG", "VERB", "ROOT", 1, "rise", ws=""),
         T(".", ".", "PUNCT", "punct", 1, ws="")]
TWO = [T("Ann", "NNP", "PROPN", "nsubj", 1, "Ann", "PERSON"), T("sang", "VBD", "VERB", "ROOT", 1, "sing", ws=""),
       T(",", ",", "PUNCT", "punct", 1), T("and", "CC", "CCONJ", "cc", 1), T("Bo", "NNP", "PROPN", "nsubj", 5, "Bo", "PERSON"),
       T("danced", "VBD", "VERB", "conj", 1, "dance", ws=""), T(".", ".", "PUNCT", "punct", 1, ws="")]


@pytest.mark.parametrize("toks,question,affirmative,negative,tail_aux,pronoun", [
    (CASTLE, "Was the castle built by the Normans?", "the castle was built by the Normans.",
     "the castle was not built by the Normans.", "was", "it"),
    (DARWIN, "Did Darwin write the book?", "Darwin wrote the book.", "Darwin did not write the book.", "did", ""),
    (BEES, "Do bees make honey?", "bees make honey.", "bees do not make honey.", "do", "they"),
    (LAKE, "Is the lake deep?", "the lake is deep", "the lake is not deep", "is", "it"),
])
def test_make_polar(toks, question, affirmative, negative, tail_aux, pronoun):
    p = polar.make_polar(toks)
    assert p is not None
    assert (p.question, p.affirmative, p.negative, p.tail_aux, p.pronoun) == \
           (question, affirmative, negative, tail_aux, pronoun)
    assert p.negative[p.not_at:p.not_at + 3] == "not"


@pytest.mark.parametrize("toks", [THEN, NEG, WHO, GOING, TWO], ids=["adverb-first", "negated", "question",
                                                                   "non-finite", "two-clauses"])
def test_make_polar_skips(toks):
    assert polar.make_polar(toks) is None


@pytest.mark.parametrize("toks,form,text,keyphrases", [
    (CASTLE, "yes_full", "yes , the castle was built by the Normans.", ["yes"]),
    (CASTLE, "yes_short", "yes", ["yes"]),
    (CASTLE, "yes_tail", "yes , it was", ["yes"]),
    (CASTLE, "no_full", "no , the castle was not built by the Normans.", ["no", "not"]),
    (CASTLE, "no_short", "no", ["no"]),
    (CASTLE, "no_tail", "no , it was not", ["no", "not"]),
    (BEES, "no_tail", "no , they do not", ["no", "not"]),
    (DARWIN, "no_full", "no , Darwin did not write the book.", ["no", "not"]),
    (DARWIN, "yes_tail", "yes", ["yes"]),           # no pronoun for a person: the bare form
    (DARWIN, "no_tail", "no", ["no"]),
])
def test_answer_forms_and_spans(toks, form, text, keyphrases):
    got, spans = polar.answer(polar.make_polar(toks), form)
    assert got == text
    assert [got[s:e] for s, e in spans] == keyphrases


def test_form_shares_sum_to_one():
    assert sum(w for _, w in polar.FORMS) == 1000


def _ex(i, group):
    return kd.Example(f"what {i}?", f"sentence {i}.", ((0, 8),), "squad", group, f"id{i}")


def test_add_polar_share_groups_and_determinism():
    examples = [_ex(i, f"squad:{i // 4}") for i in range(200)]

    def parse(text):
        n = int(text.split()[1].rstrip("."))
        return CASTLE if n % 3 else WHO       # a third of the sentences cannot be turned polar

    pol = kd.add_polar(examples, 0.12, parse=parse)
    assert pol == kd.add_polar(examples, 0.12, parse=parse)      # deterministic
    assert len(pol) == round(0.12 * 200 / 0.88)                  # 12% of the final total
    by_id = {e.id: e for e in examples}
    for p in pol:
        src = by_id[p.id.rsplit(":", 1)[0]]
        assert p.group == src.group and p.source == "squad-polar"
        assert int(src.id[2:]) % 3 != 0                           # skipped sentences give nothing
        assert p.question == "Was the castle built by the Normans?"
        assert {p.sentence[s:e] for s, e in p.spans} <= {"yes", "no", "not"}
    # each polar example falls on its source's side of the split
    train, dev = kd.split(examples + pol, 20)
    side = {e.group: "dev" for e in dev} | {e.group: "train" for e in train}
    assert all(side[e.group] == ("dev" if e in dev else "train") for e in examples + pol)
    assert kd.add_polar(examples, 0.0, parse=parse) == []


# ---- the real parser (slow: loads spaCy) ----------------------------------------

@pytest.fixture(scope="module")
def parse():
    from qascore_lab.text.perturb import nlp

    try:
        pipe = nlp()
    except OSError as err:
        pytest.skip(f"spaCy pipeline not installed: {err}")
    return lambda text: polar.from_spacy(pipe(text))


@pytest.mark.slow
@pytest.mark.parametrize("sentence,question", [
    ("The castle was built by the Normans.", "Was the castle built by the Normans?"),
    ("Darwin wrote On the Origin of Species in 1859.", "Did Darwin write On the Origin of Species in 1859?"),
    ("The city has been the capital since 1990.", "Has the city been the capital since 1990?"),
    ("Paris is the capital of France.", "Is Paris the capital of France?"),
    ("They were reheating leftovers.", "Were they reheating leftovers?"),
    ("In 1999, the company acquired Nokia.", None),                  # subject not first
    ("The committee does not meet on Sundays.", None),               # negated
    ("Who built the castle?", None),                                  # a question
    ("The disease bypassed some areas, and the isolated areas were spared.", None),   # two clauses
])
def test_spacy_sentences(parse, sentence, question):
    p = polar.make_polar(parse(sentence))
    assert (p.question if p else None) == question


@pytest.mark.parametrize("dev,expected", [
    ({"loss": 0.30}, 0.30),                                                       # no subsets: pooled loss
    ({"loss": 0.30, "subsets": {"non_polar": {"loss": 0.30}}}, 0.30),              # no polar examples
    ({"loss": 0.27, "subsets": {"non_polar": {"loss": 0.29}, "polar": {"loss": 0.01}}}, 0.29),
])
def test_epoch_is_chosen_by_non_polar_dev_loss(dev, expected):
    from qascore_lab.train.kpqa import selection_loss

    assert selection_loss(dev) == expected
