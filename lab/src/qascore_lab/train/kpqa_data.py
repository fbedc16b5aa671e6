"""Training data for the KPQA keyphrase tagger: (question, answer sentence, keyphrase spans).

Sources (paper 3.1: answer-sentences from extractive QA data, the answer span = keyphrase):
- SQuAD 2.0 dev, answerable questions: the sentence of the passage that holds the
  first gold answer (sentences merged when the span crosses a boundary); K = that span.
- WikiQA `WikiQASent.pos.ans.tsv`: answer sentences with up to three annotators'
  answer phrases. NO_ANS (annotator rejects the sentence) and empty cells are
  skipped; of the phrases found in the sentence the shortest is K (the core that
  all longer markings tend to contain); a sentence with none is dropped.

Polar (yes/no) examples (`qascore_lab.train.polar`): derived from the answer
sentences above by a fixed rule (auxiliary inversion / do-support; answers
"yes , <sentence>", "yes", "no , <negated sentence>", ...; K = the polarity
word and "not"), `polar_share` of all examples (the recipe tried: 12%; default 0 = none). Each
keeps the group of its source sentence, so it is on the same side of the split.

Answer-equivalence pairs (`qascore_lab.train.kpqa_ae`): a candidate sentence that
holds its reference (normalised whole-token match) gives (question, candidate,
reference span); both correct and incorrect pairs; evaluation-set questions out.

SQuAD 1.1 train (`squad11`, `squad.load_v11`, CC BY-SA 4.0): the same builder as SQuAD 2.0
dev (`from_squad`: the first answer's span inside its answer sentence), source "squad11",
group = its paragraph ("squad11:<passage index>"). Dropped before sampling: the questions of
QGEval's 2 SQuAD passages (a paragraph counts as a QGEval passage when it holds half or more of
the QGEval passage's word 8-grams, `same_passage`: the two differ by revision, so exact equality
finds neither), evaluation-set
questions (`verifier_corpus.held_out`), questions of the verification corpus's dev split
(`kpqa_ae.VERIFIER_DEV_SEED`, as for AE: SQuAD 1.1 questions are most of AE's), and questions
(normalised text) of any example of the other sources. Of the rest, `squad11_questions`
(default 10,000) are kept: the first in the order of the SHA-1 of "squad11:<question id>"
(fixed salt, independent of the training seed; a larger N keeps every question of a smaller one),
then put back in file order. They feed neither the polar examples nor the AE deduplication, and
they always go to TRAIN (`TRAIN_ONLY`), so adding them leaves the dev split exactly as it was.

Splits are by group (SQuAD passage, WikiQA question, AE question or the SQuAD
passage of the same question), so no question and no
passage is in both train and dev: dev = groups whose salted hash falls in the
first `dev_percent` of 100 buckets (sources in `TRAIN_ONLY` excepted: always train).
Deterministic for a given `split_seed`.
"""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from qascore_lab.datasets import benchmark_dir, squad
from qascore.progress import progress
from qascore.records import InputError
from qascore_lab.train import kpqa_ae, polar
from qascore_lab.train.kpqa_example import Example
from qascore.weights.kpw_model import IGNORE, answer_room, layout

WIKIQA_FILE = "WikiQASent.pos.ans.tsv"
NO_ANS = "NO_ANS"

# A sentence ends at . ! ? (optionally closed by quotes/brackets) followed by
# whitespace and an upper-case letter, digit or opening quote/bracket.
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'(\[])")


@dataclass
class Encoded:
    """An Example as tagger input: ids, segment ids, and per-position labels."""

    input_ids: list[int]
    token_type_ids: list[int]
    labels: list[int]
    id: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence, covering the text without the separating spaces."""
    bounds, start = [], 0
    for m in _BOUNDARY.finditer(text):
        # closing quotes/brackets stay with the sentence they close
        end = m.start() + len(m.group(0)) - len(m.group(0).lstrip("\"')]"))
        bounds.append((start, end))
        start = m.end()
    bounds.append((start, len(text)))
    return [(s, e) for s, e in bounds if e > s]


def answer_sentence(context: str, start: int, end: int) -> tuple[str, int] | None:
    """The sentence(s) of `context` holding [start, end): (text, its offset in context)."""
    bounds = sentence_bounds(context)
    first = next((i for i, (s, e) in enumerate(bounds) if s <= start < e), None)
    last = next((i for i, (s, e) in enumerate(bounds) if s < end <= e), None)
    if first is None or last is None or last < first:
        return None
    s, e = bounds[first][0], bounds[last][1]
    return context[s:e], s


def from_squad(questions: Iterable[squad.SquadQuestion], source: str = "squad") -> list[Example]:
    """One example per answerable question: its first answer inside its answer sentence; group = passage."""
    out = []
    for q in questions:
        if not q.answers:
            continue
        a = q.answers[0]
        found = answer_sentence(q.context, a.start, a.end)
        if found is None:
            continue
        sent, off = found
        out.append(Example(q.question, sent, ((a.start - off, a.end - off),), source,
                           f"{source}:{q.passage_index}", q.id))
    return out


def read_wikiqa(path: str | os.PathLike[str]) -> list[Example]:
    """WikiQASent.pos.ans.tsv -> examples (see module doc for NO_ANS and phrase choice)."""
    src = str(path)
    if not Path(path).is_file():
        raise InputError("no such file", source=src)
    out = []
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    header = rows[0]
    need = ["QuestionID", "Question", "SentenceID", "Sentence"]
    for col in need:
        if col not in header:
            raise InputError(f"column '{col}' missing", source=src, line=1)
    phrase_cols = [i for i, h in enumerate(header) if h.startswith("AnswerPhrase")]
    idx = {c: header.index(c) for c in need}
    for n, row in enumerate(rows[1:], start=2):
        row = row + [""] * (len(header) - len(row))
        sent = row[idx["Sentence"]]
        spans = []
        for i in phrase_cols:
            phrase = row[i].strip()
            if not phrase or phrase == NO_ANS:
                continue
            at = sent.find(phrase)
            if at < 0:
                at = sent.lower().find(phrase.lower())
            if at >= 0:
                spans.append((at, at + len(phrase)))
        if not spans:
            continue
        best = min(spans, key=lambda s: (s[1] - s[0], s[0]))
        out.append(Example(row[idx["Question"]], sent, (best,), "wikiqa",
                           f"wikiqa:{row[idx['QuestionID']]}", row[idx["SentenceID"]]))
    return out


# Off by default: the shipped taggers were trained without them (lab/results/kpqa.md: with them,
# SemEval gains, MS-MARCO loses); `qascore-lab train kpqa --polar-share 0.12` is the tried recipe.
POLAR_SHARE = 0.0
POLAR_RECIPE = 0.12
POLAR_SALT = "polar"


SOURCES = ("squad", "wikiqa", "ae", "squad11")
TRAIN_ONLY = frozenset({"squad11"})   # never in dev: the dev split stays the one earlier taggers were chosen on
SQUAD11_QUESTIONS = 10000
SQUAD11_SALT = "squad11"


def load_examples(root: str | os.PathLike[str] | None = None, *, sources: Sequence[str] = ("squad", "wikiqa"),
                  polar_share: float = POLAR_SHARE, report: dict[str, Any] | None = None,
                  squad11_questions: int = SQUAD11_QUESTIONS) -> list[Example]:
    """Examples of `sources` (any of SOURCES), in a fixed order: SQuAD, WikiQA, AE, SQuAD 1.1, then polar ones.

    Polar examples are derived from the SQuAD and WikiQA examples only (as when they were made).
    `report`, when given, receives the AE counts (`kpqa_ae.AEReport`) under "ae" and the SQuAD 1.1
    counts (`squad11_select`) under "squad11".
    """
    unknown = [s for s in sources if s not in SOURCES]
    if unknown:
        raise ValueError(f"unknown source(s) {unknown}; known: {', '.join(SOURCES)}")
    out: list[Example] = []
    squad_ex: list[Example] = []
    if "squad" in sources or "ae" in sources:
        squad_ex = from_squad(squad.load(root=root, answerable_only=True))
    if "squad" in sources:
        out += squad_ex
    if "wikiqa" in sources:
        out += read_wikiqa(benchmark_dir("wikiqa", root) / WIKIQA_FILE)
    polar_ex = add_polar(out, polar_share) if polar_share > 0 else []
    held = None
    if "ae" in sources or "squad11" in sources:
        from qascore_lab.datasets import data_root, qgeval
        from qascore_lab.train.verifier_corpus import held_out

        held = held_out(data_root(root))
    if "ae" in sources:
        out += load_ae(root, squad_ex, out, report, held=held)
    if "squad11" in sources:
        assert held is not None
        rep11: dict[str, int] = {}
        qg_passages = sorted({r.context for r in qgeval.load(data_root(root), with_metrics=False)})
        out += squad11_select(squad.load_v11(root), squad11_questions, held_questions=held[0],
                              held_passages=qg_passages, other=out, report=rep11)
        if report is not None:
            report["squad11"] = rep11
    return out + polar_ex


_WORDS = re.compile(r"[^\W_]+")


def word_grams(text: str, n: int = 8) -> set[tuple[str, ...]]:
    """Case-folded word n-grams of `text` (one, the whole text, when it is shorter than n words)."""
    w = _WORDS.findall(text.casefold())
    return {tuple(w[i:i + n]) for i in range(max(1, len(w) - n + 1))}


def same_passage(passages: Iterable[str], share: float = 0.5, n: int = 8) -> Callable[[str], bool]:
    """A test: does a text hold at least `share` of the word n-grams of one of `passages`?

    QGEval's SQuAD passages are other revisions of SQuAD 1.1 paragraphs (a clause moved, a phrase
    added), so equality misses them; the two true matches hold 86% and 93% of their QGEval passage's
    8-grams, the next paragraph (shared boilerplate: "According to the United States Census Bureau,
    the city has a total area of") 6%.
    """
    grams = [word_grams(p, n) for p in passages]
    index: dict[tuple[str, ...], set[int]] = {}
    for i, g in enumerate(grams):
        for x in g:
            index.setdefault(x, set()).add(i)

    def test(text: str) -> bool:
        hits: dict[int, int] = {}
        for x in word_grams(text, n):
            for i in index.get(x, ()):
                hits[i] = hits.get(i, 0) + 1
        return any(k / len(grams[i]) >= share for i, k in hits.items())
    return test


def squad11_select(questions: Sequence[squad.SquadQuestion], n: int = SQUAD11_QUESTIONS, *,
                   held_questions: Iterable[str] = (), held_passages: Iterable[str] = (),
                   other: Sequence[Example] = (), report: dict[str, int] | None = None,
                   verifier_dev_seed: int | None = kpqa_ae.VERIFIER_DEV_SEED, salt: str = SQUAD11_SALT
                   ) -> list[Example]:
    """SQuAD 1.1 examples (module doc): drops, then the first `n` by salted hash of the question id.

    `held_questions`: question keys (`question_key`) of evaluation sets; `held_passages`: passages
    (text) whose paragraphs are dropped (`same_passage`);
    `other`: examples of the other sources, whose questions are dropped here; `verifier_dev_seed`:
    questions of that verification-corpus dev split are dropped (None: kept).
    `report`, when given, receives the counts of each drop and of what is kept.
    """
    from qascore_lab.train.ava_data import question_key
    from qascore_lab.train.verifier_corpus import in_dev

    held_q, other_q = set(held_questions), {question_key(e.question) for e in other}
    is_held_passage = same_passage(held_passages)
    rep = {"questions": len(questions), "qgeval_passages": 0, "qgeval_passage_questions": 0, "eval_question": 0,
           "verifier_dev_question": 0, "other_source_question": 0, "no_sentence": 0, "candidates": 0, "kept": 0,
           "kept_passages": 0}
    passage_held: dict[int, bool] = {}
    keep: list[squad.SquadQuestion] = []
    for q in questions:
        if q.passage_index not in passage_held:
            passage_held[q.passage_index] = is_held_passage(q.context)
            rep["qgeval_passages"] += passage_held[q.passage_index]
        qk = question_key(q.question)
        if passage_held[q.passage_index]:
            rep["qgeval_passage_questions"] += 1
        elif qk in held_q:
            rep["eval_question"] += 1
        elif verifier_dev_seed is not None and in_dev(qk, verifier_dev_seed):
            rep["verifier_dev_question"] += 1
        elif qk in other_q:
            rep["other_source_question"] += 1
        else:
            keep.append(q)
    ex = from_squad(keep, source="squad11")
    rep["no_sentence"] = len(keep) - len(ex)
    rep["candidates"] = len(ex)
    chosen = sorted(polar.hash_order([e.id for e in ex], salt)[:max(0, n)])
    out = [ex[i] for i in chosen]
    rep["kept"], rep["kept_passages"] = len(out), len({e.group for e in out})
    if report is not None:
        report.update(rep)
    return out


def load_ae(root: str | os.PathLike[str] | None, squad_ex: Sequence[Example], others: Sequence[Example],
            report: dict[str, Any] | None = None,
            held: tuple[set[str], set[str], dict[str, int]] | None = None) -> list[Example]:
    """AE examples (`train.kpqa_ae`): evaluation-set questions out, SQuAD groups shared, repeats dropped.

    The SQuAD grouping is used whether or not SQuAD itself trains, so the split never moves
    when sources are switched.
    """
    from dataclasses import asdict

    from qascore_lab.datasets import answer_equivalence, data_root
    from qascore_lab.train import kpqa_ae
    from qascore_lab.train.ava_data import question_key
    from qascore_lab.train.verifier_corpus import held_out

    held_q = (held if held is not None else held_out(data_root(root)))[0]
    groups: dict[str, str] = {}
    for e in squad_ex:
        groups.setdefault(question_key(e.question), e.group)
    ex, rep = kpqa_ae.from_pairs(answer_equivalence.load(root), held_out=held_q, squad_groups=groups,
                                 seen=kpqa_ae.seen_keys(others))
    if report is not None:
        report["ae"] = asdict(rep)
    return ex


def add_polar(examples: Sequence[Example], share: float = POLAR_RECIPE, *, salt: str = POLAR_SALT,
              parse: Callable[[str], list[polar.Tok]] | None = None) -> list[Example]:
    """Polar examples, `share` of the final total, from the sentences of `examples`.

    Sources are tried in salted-hash order of their ids; a sentence the rule
    skips is passed over. Each polar example keeps its source's group.
    """
    if share <= 0:
        return []
    if parse is None:
        from qascore_lab.text.perturb import nlp

        pipe = nlp()
        parse = lambda text: polar.from_spacy(pipe(text))  # noqa: E731
    want = round(share * len(examples) / (1 - share))
    keys = [f"{ex.source}:{ex.group}:{ex.id}:{ex.sentence}" for ex in examples]
    out: list[Example] = []
    for i in progress(polar.hash_order(keys, salt), desc="polar examples"):
        if len(out) >= want:
            break
        ex = examples[i]
        p = polar.make_polar(parse(ex.sentence))
        if p is None:
            continue
        form = polar.pick(keys[i], salt + ":form", polar.FORMS)
        text, spans = polar.answer(p, form)
        out.append(Example(p.question, text, spans, f"{ex.source}-polar", ex.group, f"{ex.id}:{form}"))
    return out


def split(examples: Sequence[Example], dev_percent: int = 10, split_seed: int = 0
          ) -> tuple[list[Example], list[Example]]:
    """(train, dev) by group: all examples of a passage/question land on the same side.

    Examples of a `TRAIN_ONLY` source (and the polar ones derived from it) always train; each
    other example's side depends on its group alone, so adding such a source moves nothing.
    """
    train, dev = [], []
    for ex in examples:
        always = ex.source.removesuffix("-polar") in TRAIN_ONLY
        (dev if not always and polar.salted_bucket(split_seed, ex.group, 100) < dev_percent else train).append(ex)
    return train, dev


def encode(tokenizer: Any, ex: Example, *, max_len: int = 128, use_question: bool = True) -> Encoded | None:
    """Label every answer WordPiece that overlaps a span K (1), the others O (0).

    Answers longer than the room left by the question are cut at the end; an
    example whose keyphrase is cut away entirely is dropped (None).
    """
    q_ids = tokenizer(ex.question, add_special_tokens=False)["input_ids"] if use_question else []
    enc = tokenizer(ex.sentence, add_special_tokens=False, return_offsets_mapping=True)
    a_ids, offsets = enc["input_ids"], enc["offset_mapping"]
    room = answer_room(max_len, len(q_ids), use_question)
    a_ids, offsets = a_ids[:room], offsets[:room]
    tags = [int(any(s < e2 and e > s2 for s2, e2 in ex.spans)) for s, e in offsets]
    if not any(tags):
        return None
    lay = layout(tokenizer.cls_token_id, tokenizer.sep_token_id, q_ids, a_ids, use_question)
    labels = [IGNORE] * len(lay.input_ids)
    labels[lay.answer_start:lay.answer_start + lay.answer_len] = tags
    return Encoded(lay.input_ids, lay.token_type_ids, labels, ex.id, {"source": ex.source})


def encode_all(tokenizer: Any, examples: Sequence[Example], **kw: Any) -> list[Encoded]:
    out = [encode(tokenizer, ex, **kw) for ex in examples]
    return [e for e in out if e is not None]


__all__ = ["Example", "Encoded", "SOURCES", "TRAIN_ONLY", "SQUAD11_QUESTIONS", "sentence_bounds", "answer_sentence",
           "from_squad", "read_wikiqa", "load_examples", "load_ae", "squad11_select", "add_polar", "split", "encode", "encode_all"]
