"""`judge`: one calibrated answer-correctness probability, for short spans, sentences and LLM paragraphs.

A small model over signals that carry from one kind of answer to another (their names are the card's
`features`):
- `verifier`: logit of the judge's own `ava` delta's probability (`VERIFIER`: the `ava` layout trained on the
  hand-written chatbot answers as well, or the file a card names as its `verifier`, beside it), the best reference
  and the best window (a long candidate is read in overlapping windows, `runtime.windows`);
- `kpqa_rougeL`: keyphrase-weighted ROUGE-L with the shipped tagger, best reference;
- `f1`, `recall`: token F1, and the share of a reference's tokens found in the candidate, best reference;
- `near_recall`: `recall` where a word spelled one edit away, or as a plural, counts ("Keven" for "Kevin");
- `contains`: a reference, accent-, quote- and possessive-folded, occurs inside the candidate;
- `doubt`: `contains` times the verifier's doubt, 1 - its probability: high where a reference occurs in an
  answer the verifier reads as wrong ("Sydney is the capital; Canberra is the largest city."), so that a
  mention alone need not outvote it;
- `log_len`, `len_ratio`: log(1 + candidate words), log((1 + candidate words) / (1 + shortest reference words));
- `n_refs`: log(number of references): with one or two gold answers a correct answer often shares no words
  with them, so overlap says less than with a full alias list;
- `disowned`: the candidate names a reference but never asserts it (negated, attributed to others or taken back:
  "It is B, not A", "Many people think it is A, but ...", "A? No, B."; `answer_match.disowned`);
- `bare_list`: the candidate is only a list, "A or B" / "A / B" / "A (or B)", where one item is a reference
  and another names none (`answer_match.bare_list`);
- `name_clash`: the candidate names something that shares a word with a reference but puts another word in
  its place ("Louis Armstrong" for "Neil Armstrong", "George Bush" for "George Washington"; `names.name_clash`);
- `lesser_role`: every mention of a reference is a comparison's standard or a relation's possessor ("Saturn is
  larger than Jupiter.", "Jupiter's moon Ganymede."; `roles.lesser_role`);
- `num_gap`: the question asks for a number or a date and the candidate holds none;
- `number_miss`: the candidate states a number no reference holds, and lacks the gold one, in any form
  (`answer_match.number_miss`: "landed in 1968" against "1969"; "238,900 miles" for "384,400 km" is no miss),
  or only the year or month of the date the question asks for ("1914" for "On what date ...?");
- `imprecise`: the candidate is less precise than the gold: a year for the date asked, a range or a bound that
  only brackets a gold number ("Over 250 metres" for 269 m; `answer_match.imprecise`);
  both silent where the asserted reader puts ASSERTED_SURE of its mass on a gold answer: the other numbers of such
  an answer are said in passing ("... in **1991**. Published in 1990, ...");
- `polarity_aside`: a "Yes" or "No" reference occurs only quoted or said of something else ("The textbook line
  is 'no, it's the men', but ...", "The answer is yes for Bulgaria, ..."; `answer_match.polarity_aside`);
- `known_other`: the answer's opening clause is a name the name tables know, linked to no reference they know
  ("Nimrud (ancient Kalhu)." for Nineveh, "Corundum." for Topaz; `aliases.known_other`);
- `short_list`: the question asks for N things and a list answer names fewer ("Phobos." for "What are the two
  moons of Mars?"; `list_count.short_list`); `long_list`: the question writes its number N and a list answer
  names more ("Phobos, Deimos and Titan."; `list_count.long_list`); `list_aside`: the list a list answer states
  names a thing no gold item is and leaves out a gold item it names after it ("Rice, wheat and barley. Maize is
  the biggest by tonnage, but ..."; `list_count.list_aside`);
- `asserted`, `no_answer`: the asserted-answer reader's probability mass on spans that state a reference
  (`asserted.match_mass`), and its P(no answer): what the whole answer asserts, not only what it names.
Two cards (`routes`): records with a short gold answer are read by a card over all of these; records whose every
reference is a sentence (`min_words` or more words, answer-sentence selection) by a card without the asserted
reading, since what a sentence asserts is seldom the short gold its trees would look for.
The model-based features read at most `MODEL_REFS` references per record, those with the largest
token recall, and the question as `answer_match.as_question` writes it (a search-query-style question
gets its question mark). Every feature reads the candidate without its markdown marks and leading
"Answer:" label (`answer_match.undressed`), and all but `disowned` read what it settles on
(`answer_match.settled`: of a list that gives each item a verdict, the item marked right; of a labelled
list, the item it picks; of a self-correction or a choice among alternatives, its last answer:
"Canberra. Correction: Sydney." and "Possibly Canberra, but more likely Sydney." are read as "Sydney."; of an
answer that reopens what it said, where a reference is named on one side of the reopening only, what follows it:
"Mont Blanc. Thinking about it more, Monte Rosa is higher." is read from "Thinking", `reopens.reopening`; with the
asserted features, of an answer that revises its claim, the clause the second asserted reader reads it in:
"Katakana. Sorry, swapped them: ... katakana is for grammatical endings. Hiragana." is read as "Hiragana.",
`asserted.revised_at`).
Where no reference occurs whole, the references also come rewritten in the other names the candidate gives them
(`aliases.in_candidate_form`: "Nippon" for Japan, "a dozen" for 12, WordNet's synonym sets; "Stibium" for Antimony,
"Samuel Clemens" for Mark Twain, Wikipedia's redirects; "AR" for Argentina, "Avañe'ẽ" for Guarani, Unicode CLDR's
names and codes of countries, languages and currencies; "Londres" for London, GeoNames' names of cities; "Т. С. Элиот"
for T. S. Eliot, a short answer in another script transliterated; "Caernarvon" for Caernarfon, a gold spelled
otherwise (`spellings`, learned from the redirects); "'89" or "MCCXV" for a gold number,
`quantities.restated`; "That's right" for a "Yes" that opens the answer);
`n_refs` counts the user's.
`details.truncated` is true where a model feature did not read all of a text. The card (JSON, written by
`qascore-lab train judge`) holds the model: a logistic regression or a small ensemble of regression trees
over these features, then a Platt scaling (with, where the card names them, fixed log-odds `offsets` for
rules such as `bare_list`);
`details.correct` compares the probability with the card's dev-tuned threshold; `details.contributions` gives
each feature's signed part of the log-odds (`contributions`) and `details.why` says it in one line (`explain`).
No scikit-learn is needed here: the card is plain numbers.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
import sys
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, Sequence

import numpy as np

from qascore.metrics import aliases, asserted, long_inputs, reopens, spellings
from qascore.metrics.base import Metric
from qascore.metrics.device_options import device_option
from qascore.metrics.options import Option
from qascore.metrics.verifiers import dtype_field, dtype_option
from qascore.records import Record
from qascore.runtime import defaults
from qascore.runtime.delta import file_sha256
from qascore.runtime.int8 import READING as INT8_READING
from qascore.runtime.int8 import reading as int8_reading
from qascore.text import answer_match as am
from qascore.text import list_count, names, quantities, roles, squad
from qascore.text.list_count import list_aside, long_list, short_list
from qascore.text.names import name_clash
from qascore.text.roles import lesser_role

DEFAULT_MODEL = defaults.RESOURCES / "judge" / "judge.json"
# the judge's own `ava` delta: the verifier taught the hand-written answers as well (lab/NOTES.md); the `ava`
# metric keeps the paper's verifier
VERIFIER = defaults.RESOURCES / "judge" / "verifier.safetensors"
FEATURES = ("verifier", "kpqa_rougeL", "f1", "recall", "near_recall", "contains", "log_len", "len_ratio", "n_refs",
            "num_gap", "number_miss", "disowned", "bare_list", "name_clash",
            "lesser_role", "doubt", "known_other", "short_list", "long_list", "list_aside", "imprecise", "polarity_aside",
            "asserted", "no_answer")
MODEL_REFS = 4
SENTENCES = "sentences"  # a card's route to its card for answer-sentence golds (`routes`)
ASSERTED_SURE = 0.9  # `asserted` mass this large on a gold answer silences `number_miss` and `imprecise`
# the yes/no rule features, named in `details.signals` where they fire, so that a user can see which rule moved a score
SIGNALS = ("contains", "num_gap", "number_miss", "disowned", "bare_list", "name_clash", "lesser_role",
           "known_other", "short_list", "long_list", "list_aside", "imprecise", "polarity_aside")
# the features a model computes, by the model pass that computes them (one pass may give several)
MODEL_PASSES = {"verifier": ("verifier",), "kpqa_rougeL": ("kpqa_rougeL",), "asserted": ("asserted", "no_answer")}
MODEL_FEATURES = frozenset(f for cols in MODEL_PASSES.values() for f in cols)
# how `features` forms the models' inputs; lab caches key on it
MODEL_INPUTS = (f"best-{MODEL_REFS}-references,as-question,plain-text,settled-answer,gold-taken-back-settled,number-words,"
                "picks-and-choices")


def doubt(verifier: np.ndarray, contains: np.ndarray) -> np.ndarray:
    """The `doubt` feature from the `verifier` (logit) and `contains` columns."""
    return np.asarray(contains / (1.0 + np.exp(np.clip(verifier, -50, 50))))


def lexical_features(question: str, candidate: str, references: Sequence[str],
                     names: Sequence[str] = FEATURES, whole: str | None = None, given: int | None = None
                     ) -> dict[str, float]:
    """The features that need no model, for one record (the clause-reading ones only when named: they cost
    more than the others together). `whole` is the full answer where `candidate` is what it settles on
    (`answer_match.settled`): `disowned` reads it, since an answer that marks the gold wrong disowns it.
    `given`: how many of `references` the user gave (the rest are `aliases`' rewritings), read by `n_refs`.
    Every rule reads one `Reading` of the record (of `whole`, a second one)."""
    r = am.Reading(question, candidate, references)
    words = len(candidate.split())
    shortest = min((len(ref.split()) for ref in references), default=0)
    out = {"recall": am.token_recall(r), "near_recall": am.near_recall(r), "contains": r.contains,
           "log_len": math.log1p(words), "len_ratio": math.log((1 + words) / (1 + shortest)),
           "n_refs": math.log(max(1, len(references) if given is None else given)),
           "num_gap": am.wants_number(question) * (1.0 - am.has_number(candidate)),
           "number_miss": am.number_miss(r),
           "bare_list": am.bare_list(r), "name_clash": name_clash(r),
           "lesser_role": lesser_role(r),
           "known_other": 0.0 if r.contains else aliases.known_other(candidate, references),
           "short_list": short_list(question, candidate, references), "long_list": long_list(question, candidate),
           "list_aside": list_aside(question, candidate, references),
           "imprecise": am.imprecise(r), "polarity_aside": am.polarity_aside(r)}
    if "disowned" in names:
        out["disowned"] = am.disowned(r if whole is None else am.Reading(question, whole, references))
    return out


def features(records: Sequence[Record], names: Sequence[str] = FEATURES, *, batch_size: int = defaults.VERIFIER_BATCH,
             dtype: str | None = None, device: str | None = None,
             truncated: list[bool] | None = None, why: dict[str, list[Any]] | None = None,
             read: list[asserted.Reading] | None = None, verifier: Path | None = None,
             tagger_int8: bool = False) -> np.ndarray:
    """The (n, len(names)) feature matrix; model features are computed only when named, the `verifier` ones by
    `verifier` (default `VERIFIER`; a card's own: `card_verifier`), `kpqa_rougeL` by the tagger at the asserted
    readers' precision where `tagger_int8` (a card's `reads_tagger_in_int8`), else at `dtype`. `truncated`,
    when given, gets one flag per record: a model feature did not read all of its text. `why`, when given,
    gets the verifier's probability and the reference (index into the record's `references`) and window
    that decided it, the references `aliases` added and the part of the answer the features `read` (what it settles
    on; None where they read it whole), per record. `read`, when given, gets the asserted
    readings where the asserted features were computed (`details.asserted` reuses them)."""
    from qascore.metrics.registry import load  # the registry, not the package API above the metrics

    cols: dict[str, np.ndarray] = {}
    cut = np.zeros(len(records), dtype=bool)
    whole = [am.undressed(r.candidate) for r in records]
    spans = [reopens.unit_probabilities(w) for w in whole]
    reads: list[asserted.Reading] = []
    revised: list[int | None] = [None] * len(records)
    reopened = [reopens.reopened_at(s) for s in spans]
    if "asserted" in names or "no_answer" in names:
        reads, revised, reopened = asserted.judge_readings(records, batch_size=batch_size, device=device, dtype=dtype,
                                                           spans=spans)
    records = [replace(r, candidate=am.settled(w, r.references, back, at))
               for r, w, back, at in zip(records, whole, reopened, revised)]
    added = [aliases.in_candidate_form(r.question, r.candidate, r.references) for r in records]
    if why is not None:
        why["aliases"] = [[t for _, t in a] for a in added]
        why["read"] = [r.candidate if r.candidate != w else None for r, w in zip(records, whole)]
    source = [[*range(len(r.references)), *(i for i, _ in a)] for r, a in zip(records, added)]  # added -> its reference
    given = [len(r.references) for r in records]
    records = [replace(r, references=[*r.references, *(t for _, t in a)]) for r, a in zip(records, added)]
    short = [Record(id=r.id, question=am.as_question(r.question), candidate=r.candidate,
                    references=am.best_references(r.candidate, r.references, MODEL_REFS)) for r in records]
    if "verifier" in names or "doubt" in names:
        res = load("ava", model=str(verifier or VERIFIER), aggregate="max", batch_size=batch_size, dtype=dtype,
                   device=device).score(short)
        p = np.clip(np.asarray(res.scores), 1e-6, 1 - 1e-6)
        cols["verifier"] = np.log(p / (1 - p))
        if why is not None:
            picked = [int(k) for k in res.details.get("reference", [-1] * len(records))]
            why["verifier"] = [round(float(v), 4) for v in res.scores]
            why["reference"] = [src[r.references.index(s.references[k])] if k >= 0 else -1
                                for r, s, k, src in zip(records, short, picked, source)]
            why["window"] = list(res.details.get("window", [-1] * len(records)))
        cut |= np.asarray(res.details.get(long_inputs.TRUNCATED, [False] * len(records)), dtype=bool)
    if "kpqa_rougeL" in names:
        tagger = asserted.judge_dtype(device, dtype) if tagger_int8 else dtype
        res = load("kpqa-rougeL", device=device, dtype=tagger).score(short)
        cols["kpqa_rougeL"] = np.asarray(res.scores)
        cut |= np.asarray(res.details.get(long_inputs.TRUNCATED, [False] * len(records)), dtype=bool)
    if "asserted" in names or "no_answer" in names:
        if read is not None:
            read.extend(reads)
        cols["asserted"] = np.array([asserted.match_mass(rd, r.references) for rd, r in zip(reads, records)])
        cols["no_answer"] = np.array([rd.p_null for rd in reads])
        cut |= np.array([rd.truncated for rd in reads], dtype=bool)
    if "f1" in names:
        cols["f1"] = np.asarray(load("f1").score(records).scores)
    lex = [lexical_features(r.question, r.candidate, r.references, names, whole=w, given=g)
           for r, w, g in zip(records, whole, given)]
    if "doubt" in names:
        cols["doubt"] = doubt(cols["verifier"], np.array([row["contains"] for row in lex], dtype=float))
    for name in names:
        if name not in cols:
            if name not in FEATURES:
                raise ValueError(f"judge: unknown feature '{name}'")
            cols[name] = np.array([row[name] for row in lex], dtype=float)
    silence_number_rules(cols)
    if truncated is not None:
        truncated.extend(bool(c) for c in cut)
    return np.column_stack([cols[n] for n in names]) if records else np.zeros((0, len(names)))


def silence_number_rules(cols: dict[str, np.ndarray]) -> None:
    """`number_miss` and `imprecise` set to 0 in place where `asserted` is ASSERTED_SURE or more: the reader reads a
    gold answer as what the answer asserts, so its other numbers are said in passing ("... in 1991. Published in
    1990, ...")."""
    if "asserted" in cols:
        sure = cols["asserted"] >= ASSERTED_SURE
        for rule in ("number_miss", "imprecise"):
            if rule in cols:
                cols[rule] = np.where(sure, 0.0, cols[rule])


def raw_scores(card: dict[str, Any], x: np.ndarray) -> np.ndarray:
    """The card's model output before calibration (log-odds scale), from its feature matrix."""
    model = card["model"]
    if model["kind"] == "logistic":
        z = (x - np.asarray(model["mean"])) / np.asarray(model["scale"])
        return np.asarray(z @ np.asarray(model["coef"]) + model["intercept"])
    if model["kind"] == "trees":
        raw = np.full(len(x), float(model["init"]))
        for tree in model["trees"]:
            raw += model["learning_rate"] * tree_values(tree, x)
        return raw
    raise ValueError(f"judge card: unknown model kind {model['kind']!r}")


def predict(card: dict[str, Any], x: np.ndarray) -> np.ndarray:
    """Calibrated P(correct) from the card's feature matrix (columns in `card["features"]` order)."""
    return calibrate(card, raw_scores(card, x), x)


def calibrate(card: dict[str, Any], raw: np.ndarray, x: np.ndarray) -> np.ndarray:
    """P(correct) from the model's output: its Platt scaling, plus the card's `offsets`, a fixed log-odds term
    for each named yes/no rule feature (fitted beside the Platt scaling), so that a rule such as `bare_list`
    lowers every answer it fires on by the same odds, whatever the trees make of the rest."""
    a, b = card["platt"]
    z = a * raw + b
    for name, weight in card.get("offsets", {}).items():
        z = z + float(weight) * x[:, card["features"].index(name)]
    return np.asarray(1.0 / (1.0 + np.exp(-z)))


def contributions(card: dict[str, Any], x: np.ndarray, smallest: float = 0.01) -> list[dict[str, float]]:
    """Per record, each feature's signed contribution to the log-odds: the log-odds minus what they become with
    that feature alone set to 0 (a rule that did not fire, no overlap, a verifier logit of 0: undecided).
    Trees are not additive, so the parts need not sum to the total; they say which signals moved the score and
    which way. Parts smaller than `smallest` are left out."""
    def log_odds(m: np.ndarray) -> np.ndarray:
        p = np.clip(predict(card, m), 1e-9, 1 - 1e-9)
        return np.asarray(np.log(p / (1 - p)))

    z = log_odds(x)
    parts = np.zeros_like(x, dtype=float)
    for j in range(x.shape[1]):
        if not x[:, j].any():
            continue
        x0 = x.copy()
        x0[:, j] = 0.0
        parts[:, j] = z - log_odds(x0)
    order = np.argsort(-np.abs(parts), axis=1)
    return [{card["features"][j]: round(float(row[j]), 2) for j in idx if abs(row[j]) >= smallest}
            for row, idx in zip(parts, order)]


def explain(p: float, threshold: float, parts: dict[str, float], top: int = 3, said: str | None = None) -> str:
    """One line: the decision, what the answer asserts where it was read (`said`, `asserted.claim`), and the `top`
    largest contributions ("accepted (0.91 >= 0.44): asserts 'Canberra', a gold answer; verifier +2.10, ...")."""
    verdict = f"accepted ({p:.2f} >= {threshold:.2f})" if p >= threshold else f"rejected ({p:.2f} < {threshold:.2f})"
    signs = ", ".join(f"{k} {v:+.2f}" for k, v in list(parts.items())[:top])
    if said:
        return f"{verdict}: {said}" + (f"; {signs}" if signs else "")
    return f"{verdict}: {signs}" if signs else verdict


def tree_values(tree: dict[str, Any], x: np.ndarray) -> np.ndarray:
    """Leaf values of one regression tree (arrays: feature, threshold, left, right, value; leaf: left == -1)."""
    feature, threshold = np.asarray(tree["feature"]), np.asarray(tree["threshold"])
    left, right, value = np.asarray(tree["left"]), np.asarray(tree["right"]), np.asarray(tree["value"])
    node = np.zeros(len(x), dtype=int)
    rows = np.arange(len(x))
    while True:
        inner = left[node] != -1
        if not inner.any():
            return value[node]
        go_left = x[rows, np.where(inner, feature[node], 0)] <= threshold[node]
        node = np.where(inner, np.where(go_left, left[node], right[node]), node)


@lru_cache(maxsize=1)
def rules_hash() -> str:
    """A hash of the code that reads a record into the features (this module, the alias lookup, the reopening reader,
    which asserted reader reads what, and the text rules): the signature names it, since a rule's change moves
    scores that the card's hash does not."""
    h = hashlib.sha256()
    for module in (sys.modules[__name__], aliases, asserted, reopens, spellings, am, list_count, names, quantities, roles, squad):
        h.update(Path(str(module.__file__)).read_bytes())
    return h.hexdigest()[:12]


@lru_cache(maxsize=4)
def installed_verifier(path: Path | None = None) -> str:
    """A judge verifier (default `VERIFIER`) as a card's `ava_model` records it (each file hashed once per process)."""
    return f"ava@{file_sha256(path or VERIFIER)}"


def card_verifier(card: dict[str, Any]) -> Path:
    """The verifier a card reads: the file it names as its `verifier` (beside it), else the judge's `VERIFIER`."""
    return Path(card["verifier_path"]) if "verifier_path" in card else VERIFIER


@lru_cache(maxsize=2)
def installed_tagger(int8: bool = False) -> str:
    """The shipped keyphrase tagger's name@hash, as a card's `kpqa_model` records it (hashed once); `int8`: read
    on the CPU in int8 over its calibrated ranges (`INT8_READING`, their hash named)."""
    path = defaults.RESOURCES / "kpqa" / "kpqa.safetensors"
    return f"kpqa@{file_sha256(path)}" + (f":{_reading(path)}" if int8 else "")


def reads_tagger_in_int8(card: dict[str, Any]) -> bool:
    """Whether a card was fitted on the tagger read in int8 over its ranges on the CPU (its `kpqa_model` says so)."""
    return f":{INT8_READING}@" in str(card.get("kpqa_model", ""))


@lru_cache(maxsize=1)
def installed_asserted() -> str:
    """The installed asserted-answer readers' names, hashes and readings on the CPU (`_reading`), as a card records
    the ones it reads (the second reads only answers that doubt themselves, `asserted.judge_readings`: it keeps one
    window per batch, as the card was fitted on, at little cost)."""
    return f"{_asserted_readers()}:{_reading(asserted.DELTA)}+{_reading(asserted.REVISIONS)}"


def _reading(model: Path) -> str:
    """How the judge reads a model in int8 on the CPU: over the ranges beside it (`INT8_READING` and their hash),
    else one window per batch ("per-window")."""
    return int8_reading(model) or "per-window"


def _asserted_readers() -> str:
    """The two asserted readers by name and hash, as the signature names them."""
    return f"asserted@{file_sha256(asserted.DELTA)}+revisions@{file_sha256(asserted.REVISIONS)}"


@lru_cache(maxsize=8)
def read_card(path: str) -> dict[str, Any]:
    """A judge card; a tree ensemble's arrays are read from the safetensors file the card names."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"judge: model file {p} not found (fit one with `qascore-lab train judge`)")
    try:
        card = json.loads(p.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"judge: model file {p} is not a judge card (JSON): {exc}") from None
    if not isinstance(card, dict) or not {"features", "model", "platt", "threshold"} <= set(card):
        raise ValueError(f"judge: model file {p} is not a judge card (needs features, model, platt, threshold)")
    unknown = set(card.get("offsets", {})) - set(card["features"])
    if unknown:
        raise ValueError(f"judge: model file {p} has offsets for {sorted(unknown)}, which are not among its features")
    trees = card["model"].get("trees")
    if isinstance(trees, str):
        card["model"]["trees"] = read_trees(p.parent / trees, card["model"].get("trees_sha256"))
    if "verifier" in card:  # its own verifier, beside it; `_check` compares its hash with `ava_model`
        own = p.parent / card["verifier"]
        if not own.is_file():
            raise FileNotFoundError(f"judge: the verifier {own} that the card {p} names is missing")
        card["verifier_path"] = str(own)
    route = card.get(SENTENCES)
    if route is not None:
        if not isinstance(route, dict) or not {"card", "sha256", "min_words"} <= set(route):
            raise ValueError(f"judge: model file {p}: '{SENTENCES}' needs card, sha256 and min_words")
        nested = p.parent / route["card"]
        if not nested.is_file() or file_sha256(nested) != route["sha256"]:
            raise ValueError(f"judge: {nested} is not the sentence card {p} was written with (sha256 {route['sha256']})")
        card[SENTENCES] = {**route, "loaded": read_card(str(nested))}
    return card


def shortest_reference(references: Sequence[str]) -> int:
    """Words in the shortest reference: what `routes` compares with a card's `min_words`."""
    return min((len(t.split()) for t in references), default=0)


def routes(card: dict[str, Any], records: Sequence[Record]) -> list[tuple[dict[str, Any], list[int]]]:
    """Which card scores which records: a card with a `sentences` route sends the records whose every reference
    has at least `min_words` words (answer sentences, as in answer-sentence selection) to its sentence card, the
    others (short gold answers) to itself; a card without one scores them all."""
    route = card.get(SENTENCES)
    if route is None:
        return [(card, list(range(len(records))))]
    long = [shortest_reference(r.references) >= int(route["min_words"]) for r in records]
    parts = [(c, idx) for c, idx in ((card, [i for i, g in enumerate(long) if not g]),
                                     (route["loaded"], [i for i, g in enumerate(long) if g])) if idx]
    return parts or [(card, [])]


TREE_ARRAYS = {"feature": np.int16, "threshold": np.float64, "left": np.int16, "right": np.int16,
               "value": np.float64}


def read_trees(path: Path, sha256: str | None) -> list[dict[str, np.ndarray]]:
    """A tree ensemble stored as in `write_card`: each of TREE_ARRAYS concatenated over the trees, and
    `offsets` where each tree starts. The card records the file's hash, so the card's own hash (the one in
    the signature) stands for the trees too."""
    from safetensors.numpy import load_file

    if not path.is_file():
        raise FileNotFoundError(f"judge: the card's trees {path} are missing")
    if sha256 is not None and file_sha256(path) != sha256:
        raise ValueError(f"judge: {path} is not the trees its card was written with (sha256 {sha256})")
    arrays = load_file(str(path))
    cuts = arrays["offsets"]
    return [{k: arrays[k][a:b] for k in TREE_ARRAYS} for a, b in zip(cuts[:-1], cuts[1:])]


def write_card(card: dict[str, Any], path: Path, verifier: Path | None = None) -> None:
    """Write a card as JSON at `path`; a tree ensemble's arrays go beside it as `<stem>.safetensors`
    (weights, not text), named in the card with their hash; `verifier`, the card's own verifier (its hash is the
    card's `ava_model`), is copied beside it as `<stem>-verifier.safetensors` and named as its `verifier`."""
    from safetensors.numpy import save_file

    card = {k: v for k, v in card.items() if k != "verifier_path"}  # `read_card` resolves it
    card["model"] = dict(card["model"])
    if verifier is not None:
        own = path.with_name(f"{path.stem}-verifier.safetensors")
        if Path(verifier).resolve() != own.resolve():
            shutil.copyfile(verifier, own)
        card["verifier"] = own.name
    trees = card["model"].get("trees")
    if isinstance(trees, list):
        weights = path.with_suffix(".safetensors")
        arrays = {k: np.concatenate([np.asarray(t[k], dtype=dt) for t in trees]) for k, dt in TREE_ARRAYS.items()}
        arrays["offsets"] = np.cumsum([0] + [len(t["feature"]) for t in trees]).astype(np.int64)
        save_file(arrays, str(weights))
        card["model"].update(trees=weights.name, trees_sha256=file_sha256(weights))
    path.write_text(json.dumps(card, separators=(",", ":")) + "\n", encoding="utf-8")


class Judge(Metric):
    name: ClassVar[str] = "judge"
    requires: ClassVar[tuple[str, ...]] = ("question", "candidate", "references")
    description: ClassVar[str] = ("calibrated P(answer correct): a small model over the AVA verifier (long answers "
                                  "in windows), KPQA ROUGE-L, token F1 and recall, alias containment, length, "
                                  "the number of gold answers, and whether the answer asserts or only names a "
                                  "gold answer")
    needs_reference_text: ClassVar[bool] = True

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {"model": Option("str", None, "judge card written by `qascore-lab train judge`", none="shipped"),
                "batch_size": Option("int", defaults.VERIFIER_BATCH, "pairs per verifier batch", min=1, signed=False),
                "threshold": Option("float", None, "P(correct) at which `correct` is true", min=0.0, max=1.0,
                                    none="stored"),
                "asserted": Option("bool", False, "also show which span the answer asserts as its answer "
                                   "(`details.asserted`, in `details.why`; the short-gold card reads it anyway, "
                                   "records with sentence golds take one more model pass)"),
                "device": device_option(), "dtype": dtype_option()}

    def _model(self) -> Path:
        return Path(self.options["model"]) if self.options["model"] else DEFAULT_MODEL

    def _card(self) -> dict[str, Any]:
        """The card, refused when a model it was fitted with is not the installed one: its trees read that
        model's outputs, and another model's would be judged on thresholds learned for the first."""
        card = read_card(str(self._model()))
        for one in (card, *([card[SENTENCES]["loaded"]] if SENTENCES in card else [])):
            self._check(one)
        return card

    def _check(self, card: dict[str, Any]) -> None:
        for feature, key, installed in (("verifier", "ava_model", installed_verifier(card_verifier(card))),
                                        ("kpqa_rougeL", "kpqa_model", installed_tagger(reads_tagger_in_int8(card))),
                                        ("asserted", "asserted_model", installed_asserted())):
            if feature in card["features"] and card.get(key) != installed:
                raise ValueError(f"judge: the card {self._model()} was fitted with {card.get(key)}, but the "
                                 f"installed model is {installed}; refit it with `qascore-lab train judge`")
        if MODEL_FEATURES.intersection(card["features"]) and card.get("model_inputs") != MODEL_INPUTS:
            formed = card.get("model_inputs", "an older form (not recorded)")
            raise ValueError(f"judge: the card {self._model()} was fitted with model inputs {formed!r}, but this "
                             f"qascore forms them as {MODEL_INPUTS!r}; refit it with `qascore-lab train judge`")

    def _score(self, records: Sequence[Record]) -> tuple[list[float], dict[str, list[Any]]]:
        parts = routes(self._card(), records)
        if len(parts) == 1:  # one card reads every record
            return self._score_with(parts[0][0], records)
        probs: list[float] = [0.0] * len(records)
        details: dict[str, list[Any]] = {}
        for card, idx in parts:
            p, d = self._score_with(card, [records[i] for i in idx])
            for k, i in enumerate(idx):
                probs[i] = p[k]
            for key, values in d.items():
                column = details.setdefault(key, [None] * len(records))
                for k, i in enumerate(idx):
                    column[i] = values[k]
        return probs, details

    def _score_with(self, card: dict[str, Any], records: Sequence[Record]) -> tuple[list[float], dict[str, list[Any]]]:
        cut: list[bool] = []
        why: dict[str, list[Any]] = {}
        read: list[asserted.Reading] = []
        x = features(records, card["features"], batch_size=int(self.options["batch_size"]),
                     device=self.options["device"], dtype=self.options["dtype"], truncated=cut, why=why, read=read,
                     verifier=card_verifier(card), tagger_int8=reads_tagger_in_int8(card))
        probs = predict(card, x)
        thr = self._threshold(card)
        named = [(k, f) for k, f in enumerate(card["features"]) if f in SIGNALS]
        signals = [[f for k, f in named if row[k] > 0] for row in x]
        parts = contributions(card, x)
        said: list[str | None] = [None] * len(records)
        renamed = why.get("aliases", [[] for _ in records])  # the references as the answer names them
        if self.options["asserted"]:
            reads = read or asserted.judge_readings(records, batch_size=int(self.options["batch_size"]),
                                                    device=self.options["device"], dtype=self.options["dtype"])[0]
            why["asserted"] = [asserted.asserted_span(rd) for rd in reads]
            said = [asserted.claim(span, [*r.references, *named])  # the gold as the answer names it counts too
                    for span, r, named in zip(why["asserted"], records, renamed)]
            cut = [c or rd.truncated for c, rd in zip(cut, reads)]
        said = [s or (f"the gold as the answer names it: '{named[0]}'" if named else None)
                for s, named in zip(said, renamed)]
        return [float(p) for p in probs], {
            "correct": [bool(p >= thr) for p in probs], **why, "signals": signals, "contributions": parts,
            "why": [explain(float(p), thr, part, said=s) for p, part, s in zip(probs, parts, said)],
            long_inputs.TRUNCATED: long_inputs.flags_detail(cut)}

    def _threshold(self, card: dict[str, Any]) -> float:
        return float(card["threshold"] if self.options["threshold"] is None else self.options["threshold"])

    def signature_fields(self) -> dict[str, Any]:
        path = self._model()
        card = self._card()
        return {"model": f"{path.stem}@{file_sha256(path)}", "features": "+".join(card["features"]),
                "kind": card["model"]["kind"],
                "verifier": f"ava-judge@{card['ava_model'].split('@')[1]}" if "ava_model" in card else "none",
                "kpqa": installed_tagger(reads_tagger_in_int8(card)), "aliases": f"aliases@{file_sha256(aliases.DEFAULT_TABLE)}",
                "redirects": f"redirects@{file_sha256(aliases.DEFAULT_REDIRECTS)}",
                "cldr": f"cldr@{file_sha256(aliases.DEFAULT_CLDR)}",
                "places": f"places@{file_sha256(aliases.DEFAULT_PLACES)}",
                "spellings": f"spellings@{file_sha256(spellings.DEFAULT)}",
                "polarity": f"polarity@{file_sha256(aliases.DEFAULT_POLARITY)}",
                "reopens": f"reopens@{file_sha256(reopens.DEFAULT)}", "rules": f"rules@{rules_hash()}",
                "threshold": f"{self._threshold(card):.4f}",
                **({"sentences": f"{Path(card[SENTENCES]['card']).stem}@{card[SENTENCES]['sha256']}"
                                 f":min_words={card[SENTENCES]['min_words']}"
                                 f":threshold={self._threshold(card[SENTENCES]['loaded']):.4f}"} if SENTENCES in card else {}),
                **({"asserted": _asserted_readers()} if self.options["asserted"] else {}),
                **dtype_field(self.options["dtype"])}
