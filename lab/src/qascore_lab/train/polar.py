"""Polar (yes/no) tagger examples made from declarative answer sentences.

Why: the KPQA tagger's sources (SQuAD, WikiQA) hold no yes/no question, so the
tagger never learns that for "were they heating leftovers?" the keyphrase of
"yes they were reheating leftovers." is "yes". The paper's tagger data has such
answers (MS-MARCO Q&A). This module derives them, by a fixed rule, from the same
answer sentences the tagger already trains on:

1. Question, by subject-auxiliary inversion or do-support, from a spaCy parse
   (`qascore_lab.text.perturb.SPACY_PIPELINE`):
   - the sentence must start with its subject (`nsubj`/`nsubjpass` of the root,
     whose subtree begins at the first token), end with "." (or no final mark),
     hold no negation (`neg`), no second clause with its own subject
     conjoined to the root, and have at most `MAX_TOKENS` tokens;
   - finite auxiliary between subject and root ("X was built", "X has been",
     "X can ...") or a finite copula root ("X is Y"): that word moves to the
     front: "Was X built ...?";
   - else a finite lexical root (VBD/VBZ/VBP) with no conjoined verb:
     do-support, did/does/do in front and the root in its lemma:
     "X acquired Y" -> "Did X acquire Y?";
   - anything else (no subject first, non-finite root, contraction) is skipped.
2. Answer, one of six forms chosen per source example by a salted hash, in the
   shares of `FORMS` (fixed before any result was seen):
   "yes , <sentence>", "yes", "yes , <pronoun> <aux>",
   "no , <sentence with not>", "no", "no , <pronoun> <aux> not".
   The polarity word is the keyphrase (K); in negative answers "not" is K too
   (it carries the polarity as much as "no"); every other token is O. The
   pronoun forms need a pronoun for the subject (it/they, or the subject when it
   is he/she/it/they; none for a person); without one they fall back to the bare "yes"/"no".
3. Which source examples: in salted-hash order, until polar examples make up
   `share` of all examples (the recipe tried: 12%). Each keeps the source's split group,
   so it lands on the same train/dev side as its source sentence.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

MAX_TOKENS = 40
SUBJECTS = ("nsubj", "nsubjpass")
AUX_WORDS = {"is", "are", "was", "were", "am", "has", "have", "had", "can", "could", "will", "would",
             "shall", "should", "may", "might", "must", "do", "does", "did"}
DO_SUPPORT = {"VBD": "did", "VBZ": "does", "VBP": "do"}
KEEP_CASE = {"PROPN"}
PRONOUNS = {"he", "she", "it", "they"}
# Answer forms and their shares (per mille); fixed a priori.
FORMS = (("yes_full", 350), ("yes_short", 150), ("yes_tail", 100),
         ("no_full", 250), ("no_short", 100), ("no_tail", 50))


@dataclass(frozen=True)
class Tok:
    """The parse facts the rule needs (a spaCy token, or a hand-written one in tests)."""

    text: str
    ws: str      # whitespace after the token
    tag: str     # PTB tag
    pos: str     # universal POS
    dep: str
    head: int    # index of the head token (the root points at itself)
    lemma: str
    ent: str = ""  # named-entity type ("PERSON", ...) or ""


@dataclass(frozen=True)
class Polar:
    """A declarative sentence turned polar: the question and the pieces of its answers."""

    question: str
    affirmative: str   # the sentence as an answer body (first letter lowered unless a name)
    negative: str      # the same with "not" after the auxiliary
    not_at: int        # character offset of "not" in `negative`
    tail_aux: str      # "was", "did", ... for "yes , it was"
    pronoun: str       # "it" / "they" / "he" / "she", or "" when none fits


def from_spacy(doc: Any) -> list[Tok]:
    return [Tok(t.text, t.whitespace_, t.tag_, t.pos_, t.dep_, t.head.i, t.lemma_, t.ent_type_) for t in doc]


def _subtree_span(toks: Sequence[Tok], i: int) -> tuple[int, int]:
    """[first, last] token index of the subtree of token i."""
    lo = hi = i
    changed = True
    while changed:
        changed = False
        for j, t in enumerate(toks):
            if j != i and _descends(toks, j, i) and not lo <= j <= hi:
                lo, hi, changed = min(lo, j), max(hi, j), True
    return lo, hi


def _descends(toks: Sequence[Tok], j: int, i: int) -> bool:
    seen = set()
    while j not in seen:
        seen.add(j)
        h = toks[j].head
        if h == i:
            return True
        if h == j:
            return False
        j = h
    return False


def _join(parts: Iterable[tuple[str, str]]) -> str:
    return "".join(text + ws for text, ws in parts).strip()


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def make_polar(toks: Sequence[Tok]) -> Polar | None:
    """The rule of the module docstring; None when the sentence is skipped."""
    if not toks or len(toks) > MAX_TOKENS:
        return None
    body = list(toks)
    if body[-1].pos == "PUNCT":
        if body[-1].text != ".":
            return None
        body = body[:-1]
    if any(t.dep == "neg" for t in toks):
        return None
    roots = [i for i, t in enumerate(toks) if t.dep == "ROOT"]
    if len(roots) != 1:
        return None
    root = roots[0]
    subj = next((i for i, t in enumerate(toks) if t.head == root and t.dep in SUBJECTS and i < root), None)
    if subj is None:
        return None
    s_lo, s_hi = _subtree_span(toks, subj)
    if s_lo != 0 or s_hi >= root:
        return None
    if any(t.dep in SUBJECTS and toks[t.head].dep == "conj" and toks[t.head].head == root for t in toks):
        return None   # a second clause ("X did A, and Y did B") would not be part of the question
    auxes = [i for i, t in enumerate(toks) if t.head == root and t.dep in ("aux", "auxpass")
             and s_hi < i < root and t.tag in ("MD", "VBZ", "VBD", "VBP")]
    r = toks[root]
    if auxes:
        mover, lemma_root = auxes[0], False
    elif r.lemma == "be" and r.tag in ("VBZ", "VBD", "VBP"):
        mover, lemma_root = root, False
    elif r.tag in DO_SUPPORT and r.pos == "VERB":
        if any(t.dep == "conj" and t.head == root and t.pos == "VERB" for t in toks):
            return None   # "X bypassed A and killed B": the second verb would keep its tense
        mover, lemma_root = None, True
    else:
        return None
    if mover is not None and toks[mover].text.lower() not in AUX_WORDS:
        return None   # contractions ('s, 'd) and odd auxiliaries

    def word(i: int) -> str:
        t = toks[i]
        if i == 0 and t.pos not in KEEP_CASE and t.text != "I":
            return _lower_first(t.text)
        return t.text

    n = len(body)
    if lemma_root:
        front = DO_SUPPORT[r.tag]
        q_parts = [(r.lemma if i == root else word(i), toks[i].ws) for i in range(n)]
        neg_parts = []
        for i in range(n):
            if i == root:
                neg_parts += [(front, " "), ("not", " "), (r.lemma, toks[i].ws)]
            else:
                neg_parts.append((word(i), toks[i].ws))
        tail_aux = front
    else:
        front = toks[mover].text.lower()
        q_parts = [(word(i), toks[i].ws) for i in range(n) if i != mover]
        neg_parts = []
        for i in range(n):
            neg_parts.append((word(i), toks[i].ws if i != mover else " "))
            if i == mover:
                neg_parts.append(("not", toks[i].ws))
        tail_aux = front
    question = front[:1].upper() + front[1:] + " " + _join(q_parts) + "?"
    affirmative = _join((word(i), toks[i].ws) for i in range(len(toks)))
    negative = _join(neg_parts)
    if n < len(toks):
        negative += toks[-1].text
    k = [text for text, _ in neg_parts].index("not")
    not_at = len("".join(text + ws for text, ws in neg_parts[:k]))
    return Polar(question, affirmative, negative, not_at, tail_aux, _pronoun(toks, subj, s_lo, s_hi))


def _pronoun(toks: Sequence[Tok], subj: int, lo: int, hi: int) -> str:
    head = toks[subj]
    if lo == hi and head.text.lower() in PRONOUNS:
        return head.text.lower()
    if head.pos == "PRON" or any(toks[j].ent == "PERSON" for j in range(lo, hi + 1)):
        return ""      # I / you / we / this ...: agreement would change; a person: he or she?
    if head.tag in ("NNS", "NNPS") or any(toks[j].dep == "conj" and toks[j].head == subj for j in range(lo, hi + 1)):
        return "they"
    if head.pos in ("NOUN", "PROPN") and head.tag in ("NN", "NNP"):
        # a person would be "he"/"she"; we cannot tell which, so no pronoun then
        return "" if head.pos == "PROPN" and head.text[:1].isupper() and _maybe_person(toks, lo, hi) else "it"
    return ""


def _maybe_person(toks: Sequence[Tok], lo: int, hi: int) -> bool:
    """A subject of only proper nouns may name a person (no NER in `Tok`: be safe)."""
    return all(toks[j].pos == "PROPN" for j in range(lo, hi + 1))


def salted_bucket(salt: object, key: str, buckets: int) -> int:
    """A deterministic bucket in [0, buckets) for `key`: the rule behind every seeded choice of the tagger data."""
    return int.from_bytes(hashlib.sha1(f"{salt}:{key}".encode()).digest()[:4], "big") % buckets


def pick(key: str, salt: str, table: Sequence[tuple[str, int]]) -> str:
    """Deterministic weighted choice by a salted hash of `key` (weights sum to 1000)."""
    x = salted_bucket(salt, key, 1000)
    for name, w in table:
        if x < w:
            return name
        x -= w
    return table[-1][0]


def answer(p: Polar, form: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """(answer text, K spans) of one form."""
    yes = form.startswith("yes")
    word = "yes" if yes else "no"
    kind = form.split("_")[1]
    if kind == "tail" and not p.pronoun:
        kind = "short"
    if kind == "short":
        return word, ((0, len(word)),)
    if kind == "full":
        if yes:
            return f"{word} , {p.affirmative}", ((0, len(word)),)
        off = len(word) + 3
        return f"{word} , {p.negative}", ((0, len(word)), (off + p.not_at, off + p.not_at + 3))
    if yes:
        return f"{word} , {p.pronoun} {p.tail_aux}", ((0, len(word)),)
    text = f"{word} , {p.pronoun} {p.tail_aux} not"
    return text, ((0, len(word)), (len(text) - 3, len(text)))


def hash_order(keys: Sequence[str], salt: str) -> list[int]:
    return sorted(range(len(keys)), key=lambda i: hashlib.sha1(f"{salt}:{keys[i]}".encode()).digest())


__all__ = ["Tok", "Polar", "FORMS", "from_spacy", "make_polar", "pick", "answer", "hash_order"]
