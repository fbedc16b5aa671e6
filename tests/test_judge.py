"""The judge's card arithmetic (logistic and tree models) and its feature rules, against hand computation."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from qascore.metrics.judge import lexical_features, predict, tree_values
from qascore.text.answer_match import best_references


def test_logistic_card_by_hand():
    card = {"features": ["verifier", "kpqa_rougeL"], "platt": [2.0, -0.5],
            "model": {"kind": "logistic", "mean": [1.0, 0.0], "scale": [2.0, 1.0], "coef": [0.5, -1.0],
                      "intercept": 0.25}}
    x = np.array([[3.0, 1.0], [1.0, 0.0]])
    # z = [[1, 1], [0, 0]]; raw = [0.5 - 1 + 0.25, 0.25] = [-0.25, 0.25]; Platt: [-1.0, 0.0]
    assert np.allclose(predict(card, x), [1 / (1 + math.exp(1.0)), 0.5])


# one stump on feature 1 (x1 <= 0.5: -1, else +2) and one depth-2 tree on features 0 then 1
STUMP = {"feature": [1, -2, -2], "threshold": [0.5, -2.0, -2.0], "left": [1, -1, -1], "right": [2, -1, -1],
         "value": [0.0, -1.0, 2.0]}
DEEP = {"feature": [0, -2, 1, -2, -2], "threshold": [0.0, -2.0, 3.0, -2.0, -2.0], "left": [1, -1, 3, -1, -1],
        "right": [2, -1, 4, -1, -1], "value": [0.0, 10.0, 0.0, 20.0, 30.0]}


@pytest.mark.parametrize("tree, row, leaf", [
    (STUMP, [9.0, 0.5], -1.0), (STUMP, [9.0, 0.6], 2.0),
    (DEEP, [-1.0, 99.0], 10.0), (DEEP, [1.0, 3.0], 20.0), (DEEP, [1.0, 4.0], 30.0),
])
def test_tree_leaves(tree, row, leaf):
    assert tree_values(tree, np.array([row]))[0] == leaf


def test_tree_card_by_hand():
    card = {"features": ["a", "b"], "platt": [1.0, 0.0],
            "model": {"kind": "trees", "init": 0.5, "learning_rate": 0.1, "trees": [STUMP, DEEP]}}
    x = np.array([[-1.0, 0.0], [1.0, 4.0]])
    raw = [0.5 + 0.1 * (-1.0 + 10.0), 0.5 + 0.1 * (2.0 + 30.0)]
    assert np.allclose(predict(card, x), [1 / (1 + math.exp(-r)) for r in raw])


def test_offsets_add_a_fixed_log_odds_term_after_the_platt_scaling():
    card = {"features": ["verifier", "bare_list"], "platt": [2.0, -0.5], "offsets": {"bare_list": -3.0},
            "model": {"kind": "logistic", "mean": [0.0, 0.0], "scale": [1.0, 1.0], "coef": [1.0, 0.0],
                      "intercept": 0.0}}
    x = np.array([[1.0, 0.0], [1.0, 1.0], [-1.0, 1.0]])
    # raw = verifier; z = 2 * raw - 0.5 - 3 * bare_list = [1.5, -1.5, -5.5]
    assert np.allclose(predict(card, x), 1 / (1 + np.exp(-np.array([1.5, -1.5, -5.5]))))


def test_a_card_with_an_offset_for_a_feature_it_lacks_is_refused(tmp_path):
    from qascore.metrics.judge import read_card

    card = {"features": ["verifier"], "platt": [1.0, 0.0], "threshold": 0.5, "offsets": {"bare_list": -1.0},
            "model": {"kind": "logistic", "mean": [0.0], "scale": [1.0], "coef": [1.0], "intercept": 0.0}}
    (tmp_path / "c.json").write_text(json.dumps(card))
    with pytest.raises(ValueError, match="offsets for \\['bare_list'\\]"):
        read_card(str(tmp_path / "c.json"))


def test_unknown_model_kind_is_an_error():
    with pytest.raises(ValueError, match="unknown model kind"):
        predict({"model": {"kind": "forest"}, "platt": [1, 0]}, np.zeros((1, 1)))


def test_lexical_features_by_hand():
    f = lexical_features("How many moons does Mars have?", "I'm sorry, I do not know.", ["two", "2 moons"])
    assert f["contains"] == 0.0 and f["recall"] == 0.0 and f["num_gap"] == 1.0
    assert f["number_miss"] == 0.0                               # it states no number
    assert lexical_features("When?", "In 1968.", ["1969"])["number_miss"] == 1.0
    assert f["log_len"] == pytest.approx(math.log(1 + 6))
    assert f["len_ratio"] == pytest.approx(math.log(7 / 2))       # shortest reference: one word
    assert f["n_refs"] == pytest.approx(math.log(2))
    assert lexical_features("Who?", "Ada", ["Ada Lovelace"])["n_refs"] == 0.0


def test_best_references_keep_the_best_matching_ones_in_order():
    refs = ["alpha", "beta gamma", "delta", "beta", "epsilon", "gamma"]
    assert best_references("beta gamma delta", refs, k=3) == ["beta gamma", "delta", "beta"]
    assert best_references("x", refs[:2], k=3) == refs[:2]


@pytest.mark.parametrize("key", ["ava_model", "kpqa_model", "model_inputs"])
def test_a_card_fitted_with_another_model_is_refused(tmp_path, key):
    """A card's trees read the outputs of the verifier and tagger it was fitted with: with another one
    installed (or none recorded) it must refuse before any model is loaded."""
    import json

    from qascore import Record, load
    from qascore.metrics.judge import MODEL_INPUTS, installed_tagger, installed_verifier

    card = {"features": ["verifier", "kpqa_rougeL"], "platt": [1.0, 0.0], "threshold": 0.5,
            "model": {"kind": "logistic", "mean": [0, 0], "scale": [1, 1], "coef": [1, 1], "intercept": 0},
            "ava_model": installed_verifier(), "kpqa_model": installed_tagger(), "model_inputs": MODEL_INPUTS}
    good = tmp_path / "good.json"
    good.write_text(json.dumps(card))
    assert load(f"judge:model={good}").signature_fields()["kpqa"] == installed_tagger()
    for value in ("other@000000000000", None):
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps({**card, key: value} if value else {k: v for k, v in card.items() if k != key}))
        with pytest.raises(ValueError, match="was fitted with"):  # before any model loads: no weights needed
            load(f"judge:model={bad}").score([Record(id="1", question="q?", candidate="a", references=["a"])])


def test_the_shipped_card_never_moves_against_its_declared_directions():
    """More verifier confidence or overlap never lowers the shipped judge; a hedge or a missing number or
    name never raises it (the card's `monotone` field), checked on random rows over each feature's range."""
    from qascore.metrics.judge import DEFAULT_MODEL, SENTENCES, read_card

    shipped = read_card(str(DEFAULT_MODEL))
    for card in (shipped, *([shipped[SENTENCES]["loaded"]] if SENTENCES in shipped else [])):
        _never_moves_against_its_directions(card)


def _never_moves_against_its_directions(card: dict) -> None:
    names, signs = card["features"], card["model"]["monotone"]
    thresholds: dict[int, list[float]] = {}
    for tree in card["model"]["trees"]:
        for f, t in zip(tree["feature"], tree["threshold"]):
            if f >= 0:
                thresholds.setdefault(f, []).append(t)
    rng = np.random.default_rng(0)
    lo = np.array([min(thresholds.get(k, [0.0])) - 1 for k in range(len(names))])
    hi = np.array([max(thresholds.get(k, [1.0])) + 1 for k in range(len(names))])
    x = lo + rng.random((2000, len(names))) * (hi - lo)
    base = predict(card, x)
    assert any(signs.values())
    for k, name in enumerate(names):
        if not signs.get(name):
            continue
        for step in (0.01, 0.1, 1.0):
            moved = x.copy()
            moved[:, k] += step
            change = (predict(card, moved) - base) * signs[name]
            assert change.min() >= -1e-12, (name, step)


def test_a_tree_card_round_trips_through_its_safetensors_file(tmp_path):
    """write_card puts the trees beside the card; read_card gives back the same probabilities, and refuses
    trees that are not the ones the card recorded."""
    from qascore.metrics.judge import read_card, write_card

    trees = [{"feature": [0, -2, -2], "threshold": [0.25, -2.0, -2.0], "left": [1, -1, -1], "right": [2, -1, -1],
              "value": [0.0, -1.5, 2.0]},
             {"feature": [1, -2, -2], "threshold": [0.5, -2.0, -2.0], "left": [1, -1, -1], "right": [2, -1, -1],
              "value": [0.0, 0.1, 0.3]}]
    card = {"features": ["f1", "recall"], "platt": [1.0, 0.0], "threshold": 0.5,
            "model": {"kind": "trees", "init": 0.0, "learning_rate": 1.0, "trees": trees}}
    write_card(card, tmp_path / "c.json")
    assert (tmp_path / "c.safetensors").is_file()
    x = np.array([[0.2, 0.4], [0.3, 0.9], [0.25, 0.5]])
    # hand-computed: raw = tree 1 (x0 <= 0.25: -1.5, else 2.0) + tree 2 (x1 <= 0.5: 0.1, else 0.3)
    expected = 1 / (1 + np.exp(-np.array([-1.4, 2.3, -1.4])))
    assert np.allclose(predict(read_card(str(tmp_path / "c.json")), x), expected, atol=1e-12)
    (tmp_path / "d.json").write_text((tmp_path / "c.json").read_text())
    (tmp_path / "c.safetensors").write_bytes((tmp_path / "c.safetensors").read_bytes()[:-8] + b"\0" * 8)
    with pytest.raises(ValueError, match="not the trees its card was written with"):
        read_card(str(tmp_path / "d.json"))


def stub_models(monkeypatch, field: str) -> dict[str, list[str]]:
    """The registry's models replaced by stubs that score 0.5 and record `field` of each record they are handed,
    per metric name."""
    from types import SimpleNamespace

    from qascore.metrics import registry

    seen: dict[str, list[str]] = {}

    class Stub:
        def __init__(self, name: str) -> None:
            self.name = name

        def score(self, records):
            seen[self.name] = [getattr(r, field) for r in records]
            return SimpleNamespace(scores=[0.5] * len(records), details={})

    monkeypatch.setattr(registry, "load", lambda name, **_: Stub(name))
    return seen


def test_doubt_is_containment_times_the_verifiers_doubt_by_hand():
    """`doubt` = contains x (1 - P), P the verifier's probability from its logit: logit 0 -> 0.5, log 3 -> 0.75."""
    from qascore.metrics.judge import doubt

    got = doubt(np.array([0.0, math.log(3), -math.log(3), 5.0, 900.0]), np.array([1.0, 1.0, 1.0, 0.0, 1.0]))
    assert got == pytest.approx([0.5, 0.25, 0.75, 0.0, 0.0])


def test_features_compute_doubt_from_the_verifier_even_when_it_is_not_named(monkeypatch):
    """Asked for `doubt` alone, `features` still runs the verifier (the stub's P = 0.5) and reads `contains`."""
    from qascore import Record
    from qascore.metrics import judge

    seen = stub_models(monkeypatch, "candidate")
    recs = [Record(id="1", question="Capital of Australia?", candidate="Sydney is the capital; Canberra is the "
                   "largest city.", references=["Canberra"]),
            Record(id="2", question="Capital of Australia?", candidate="Sydney", references=["Canberra"])]
    assert judge.features(recs, ["doubt"])[:, 0].tolist() == pytest.approx([0.5, 0.0])
    assert list(seen) == ["ava"]


def test_the_models_read_a_query_style_question_with_its_question_mark(monkeypatch):
    """`features` hands the verifier and the tagger `as_question`'s form of the question and the lexical
    features the question as given (their question-type rules are case- and punctuation-blind)."""
    from qascore import Record
    from qascore.metrics import judge

    seen = stub_models(monkeypatch, "question")
    recs = [Record(id="1", question="who wrote hamlet", candidate="William Shakespeare", references=["William Shakespeare"]),
            Record(id="2", question="Who wrote Hamlet", candidate="a play by nobody", references=["William Shakespeare"])]
    x = judge.features(recs, ["verifier", "kpqa_rougeL", "num_gap"])
    assert seen == {"ava": ["who wrote hamlet?", "Who wrote Hamlet"], "kpqa-rougeL": ["who wrote hamlet?", "Who wrote Hamlet"]}
    assert x[:, 2].tolist() == [0.0, 0.0]  # not a number question


def test_every_feature_reads_the_candidate_without_markdown(monkeypatch):
    """`features` hands the models and the lexical features the candidate without its markdown dress."""
    from qascore import Record
    from qascore.metrics import judge

    seen = stub_models(monkeypatch, "candidate")
    recs = [Record(id="1", question="Capital of France?", candidate="**Answer:** Paris", references=["Paris"])]
    x = judge.features(recs, ["verifier", "kpqa_rougeL", "contains", "log_len"])
    assert seen == {"ava": ["Paris"], "kpqa-rougeL": ["Paris"]}
    assert x[0, 2:].tolist() == [1.0, pytest.approx(math.log(2))]  # contained; one word


def test_a_verdict_list_is_read_as_its_committed_item(monkeypatch):
    """The models and the overlap features read the item a verdict list marks right; `disowned` reads the
    whole answer, where the gold is marked wrong."""
    from qascore import Record
    from qascore.metrics import judge

    seen = stub_models(monkeypatch, "candidate")
    recs = [Record(id="1", question="Capital of Australia?", candidate="1. Sydney (correct)\n2. Canberra (incorrect)",
                   references=["Canberra"]),
            Record(id="2", question="Capital of Australia?", candidate="| Answer | Verdict |\n|---|---|\n| Sydney | wrong |\n"
                   "| Canberra | right |", references=["Canberra"])]
    x = judge.features(recs, ["verifier", "kpqa_rougeL", "contains", "disowned"])
    assert seen == {"ava": ["Sydney", "Canberra"], "kpqa-rougeL": ["Sydney", "Canberra"]}
    assert x[:, 2:].tolist() == [[0.0, 1.0], [1.0, 0.0]]  # (contains, disowned): the gold marked wrong, then right


@pytest.mark.slow
def test_the_shipped_judge_scores_markdown_dress_as_the_plain_answer():
    """Through the real models: "**Answer:** Paris", a bold answer and a numbered list score exactly as their
    plain text does, and an answer the verifier cannot read (emoji) falls below the threshold."""
    import qascore

    q, refs = "What is the capital of France?", ["Paris"]
    cands = ["Paris", "**Answer:** Paris", "Answer: **Paris**", "The capital is Paris.", "The capital is **Paris**.",
             "Suranne Jones\nLesley Sharp", "1. Suranne Jones\n2. Lesley Sharp", "\U0001F600" * 50]
    res = qascore.load("judge").score([{"question": q, "candidate": c, "references": refs} for c in cands])
    s = res.scores
    assert s[1] == pytest.approx(s[0], abs=1e-6) and s[2] == pytest.approx(s[0], abs=1e-6)
    assert s[4] == pytest.approx(s[3], abs=1e-6) and s[6] == pytest.approx(s[5], abs=1e-6)
    assert res.details["correct"][:5] == [True] * 5 and not res.details["correct"][7]


@pytest.mark.slow
def test_the_shipped_judge_reads_a_verdict_list_as_the_item_it_marks_right():
    """Through the real models: a list that marks the gold right scores as the gold alone does; one that
    marks it wrong is refused, in each of three forms (labels after the items, marks, a verdict table)."""
    import qascore

    q, gold, other = "What is the capital of Australia?", "Canberra", "Sydney"
    forms = ["1. {0} (correct)\n2. {1} (incorrect)", "\u2705 {0}\n\u274c {1}",
             "| Answer | Verdict |\n|---|---|\n| {1} | wrong |\n| {0} | right |"]
    cands = [gold] + [f.format(gold, other) for f in forms] + [f.format(other, gold) for f in forms]
    res = qascore.load("judge").score([{"question": q, "candidate": c, "references": [gold]} for c in cands])
    # every feature but `disowned` and the asserted reading (which reads the whole answer) reads the gold alone
    assert res.scores[1:4] == pytest.approx([res.scores[0]] * 3, abs=0.02)
    assert res.details["correct"] == [True] * 4 + [False] * 3


@pytest.mark.slow
def test_the_shipped_judge_reads_what_a_self_correction_settles_on():
    """Through the real models: an answer that takes a wrong number back and settles on the gold scores as
    the gold alone does, in four forms; one that takes the gold back is refused, and one that says "no" to
    stress the gold is not."""
    import qascore

    q, refs = "How many legs does a spider have?", ["8", "eight"]
    cands = ["eight.", "Six. Wait, no: eight.", "Six? Actually, no. eight.", "Six. Correction: eight.",
             "Six. Sorry, I meant eight.", "Eight. Wait, no: six.", "Eight. Correction: six.", "Eight. Sorry, I meant six.",
             "It's eight - just kidding, it's six.", "Eight. No, not six."]
    res = qascore.load("judge").score([{"question": q, "candidate": c, "references": refs} for c in cands])
    assert res.scores[1:5] == pytest.approx([res.scores[0]] * 4, abs=0.02)  # the asserted reading reads it all
    assert res.details["correct"] == [True] * 5 + [False] * 4 + [True]  # the last "no" stresses eight


@pytest.mark.slow
def test_the_shipped_judge_calls_a_bare_list_of_the_gold_and_another_answer_incorrect():
    """Through the real models: a list that hedges between the gold and another answer is refused in each
    form `bare_list` reads, whatever the verifier makes of it; the gold alone, and a list of two gold
    aliases, are accepted (the card's offset on `bare_list` is negative)."""
    import qascore

    q = "What is the capital of Australia?"
    cands = ["Canberra or Sydney.", "Sydney or Canberra?", "Canberra / Sydney", "Canberra (or Sydney)", "Canberra."]
    res = qascore.load("judge").score([{"question": q, "candidate": c, "references": ["Canberra"]} for c in cands])
    assert res.details["correct"] == [False, False, False, False, True]
    assert all("bare_list" in sig for sig in res.details["signals"][:4])
    alias = qascore.load("judge").score([{"question": "Which country was called Burma?", "candidate": "Myanmar (or Burma)",
                                          "references": ["Myanmar", "Burma"]}])
    assert alias.details["correct"] == [True] and "bare_list" not in alias.details["signals"][0]


@pytest.mark.slow
def test_the_shipped_judge_refuses_a_wrong_answer_stated_as_the_gold_would_be():
    """Through the real models: "The answer is Sydney." and "That would be Sydney." for Australia's capital are
    refused and "The answer is Canberra." accepted (the words a committed answer comes in do not vouch for it:
    the `plain` probe family); a labelled list's pick and a lean are read as what they choose."""
    import qascore

    q, refs = "What is the capital of Australia?", ["Canberra"]
    cands = ["The answer is Sydney.", "That would be Sydney.", "The answer is Canberra.",
             "Option 1: Sydney. Option 2: Canberra. I'd go with option 2.",
             "Option 1: Canberra. Option 2: Sydney. I'd go with option 2.",
             "Possibly Sydney, but more likely Canberra.", "Possibly Canberra, but more likely Sydney."]
    res = qascore.load("judge").score([{"question": q, "candidate": c, "references": refs} for c in cands])
    assert res.details["correct"] == [False, False, True, True, False, True, False]


RULE_CASES = {  # rule -> two wrong answers it refuses, then two right ones it leaves alone
    # another name sharing a word with the gold (the `names` probe family)
    "name_clash": [("Who was the first man to walk on the Moon?", "It is Louis Armstrong.", ["Neil Armstrong"]),
                   ("Who was the first president of the United States?", "George Bush", ["George Washington"]),
                   ("Who was the first man to walk on the Moon?", "Armstrong.", ["Neil Armstrong"]),
                   ("Who was the first president of the United States?", "It was George Washington.",
                    ["George Washington"])],
    # the gold as a comparison's standard or a relation's possessor (`roles.lesser_role`)
    "lesser_role": [("Which is the largest ocean?", "The Atlantic is larger than the Pacific.", ["Pacific Ocean", "Pacific"]),
                    ("Which is the largest ocean?", "The Pacific's neighbour, the Atlantic.", ["Pacific Ocean", "Pacific"]),
                    ("Which is the largest ocean?", "The Pacific, larger than the Atlantic.", ["Pacific Ocean", "Pacific"]),
                    ("Which is the largest ocean?", "The Pacific Ocean.", ["Pacific Ocean", "Pacific"])],
    # less precise than the gold: a year for the date asked, a bound that only brackets the number
    "imprecise": [("On what date did the Berlin Wall fall?", "1989.", ["9 November 1989", "November 9, 1989"]),
                  ("How long was the RMS Titanic?", "Over 250 metres.", ["269 m", "882 feet"]),
                  ("On what date did the Berlin Wall fall?", "It fell on 9 November 1989.",
                   ["9 November 1989", "November 9, 1989"]),
                  ("How long was the RMS Titanic?", "About 269 metres.", ["269 m", "882 feet"])],
    # an opening name the tables know as another thing than the gold (`aliases.known_other`); the tables' other
    # name of the gold ("Koch's bacillus", a redirect) is the gold
    "known_other": [("Which bacterium causes tuberculosis?", "Bacillus anthracis.", ["Mycobacterium tuberculosis"]),
                    ("What is the capital of Australia?", "Sydney, the largest city.", ["Canberra"]),
                    ("Which bacterium causes tuberculosis?", "It's Koch's bacillus.", ["Mycobacterium tuberculosis"]),
                    ("What is the capital of Australia?", "Canberra.", ["Canberra"])],
    # a yes/no gold only quoted or said of something else (`answer_match.polarity_aside`)
    "polarity_aside": [("Was Albania a founding member of the Warsaw Pact?", "The answer is yes for Bulgaria and "
                        "Romania, but Albania only joined in 1956.", ["Yes"]),
                       ("Do scorpions lay eggs?", "The textbook line is 'no, they give live birth', but most wild "
                        "species lay eggs in the soil.", ["No"]),
                       ("Was Albania a founding member of the Warsaw Pact?", "Yes, Albania signed in Warsaw in May 1955.",
                        ["Yes"]),
                       ("Do scorpions lay eggs?", "No. People sometimes say 'yes', but scorpions give birth to live "
                        "young.", ["No"])],
    # a gold item set aside after the list the answer states (`list_count.list_aside`)
    "list_aside": [("Name the three primary colours of light.", "Red, green and yellow. Blue is often listed, but it is "
                    "really a mix.", ["red, green and blue"]),
                   ("What are the two moons of Mars?", "Phobos and Europa. Deimos is only a captured asteroid, not a "
                    "true moon.", ["Phobos and Deimos"]),
                   ("Name the three primary colours of light.", "Red, green and blue. Yellow is a primary of paint, "
                    "not of light.", ["red, green and blue"]),
                   ("What are the two moons of Mars?", "Phobos and Deimos, both probably captured asteroids.",
                    ["Phobos and Deimos"])],
}


@pytest.mark.slow
@pytest.mark.parametrize("rule", sorted(RULE_CASES))
def test_the_shipped_judge_refuses_what_a_rule_with_an_offset_reads(rule):
    """Through the real models: the two wrong answers are refused with the rule among the signals, whatever the
    verifier makes of them (the card's offset on the rule is negative); the two right ones are accepted."""
    import qascore

    rows = RULE_CASES[rule]
    res = qascore.load("judge").score([{"question": q, "candidate": c, "references": r} for q, c, r in rows])
    assert res.details["correct"] == [False, False, True, True]
    assert [rule in sig for sig in res.details["signals"]] == [True, True, False, False]


def test_why_names_the_verifier_probability_and_the_deciding_reference_and_window(monkeypatch):
    """`features(why=...)` maps the verifier's deciding reference back to the record's own `references`: with
    five references only the best MODEL_REFS reach the verifier, so an index into that short list is not one
    into the record's (hand-worked below)."""
    from types import SimpleNamespace

    from qascore import Record
    from qascore.metrics import judge, registry

    handed: list[list[str]] = []

    class Ava:
        def score(self, records):
            handed.extend(list(r.references) for r in records)
            return SimpleNamespace(scores=[0.8], details={"reference": [3], "window": [2]})

    monkeypatch.setattr(registry, "load", lambda name, **_: Ava())
    refs = ["zzz", "Paris France", "yyy", "www", "Paris"]
    rec = Record(id="1", question="Capital of France?", candidate="It is Paris, France.", references=refs)
    why: dict = {}
    judge.features([rec], ["verifier"], why=why)
    # token recall in the candidate: 0, 1, 0, 0, 1; the best four (ties in file order) are "Paris France", "Paris",
    # "zzz", "yyy", handed over in file order; "www" is left out, so short index 3 ("Paris") is the record's 4
    assert handed == [["zzz", "Paris France", "yyy", "Paris"]]
    assert why == {"verifier": [0.8], "reference": [4], "window": [2], "aliases": [[]], "read": [None]}


def test_threshold_option_decides_correct_and_is_checked(monkeypatch):
    """`threshold` replaces the card's in `details.correct` (and the signature); out of 0..1 it is refused."""
    import qascore
    from qascore.metrics import judge
    from qascore.metrics.options import OptionError

    with pytest.raises(OptionError, match="threshold"):
        qascore.load("judge", threshold=1.5)
    card = {"features": ["contains"], "model": {"kind": "logistic", "mean": [0.0], "scale": [1.0], "coef": [0.0],
                                                 "intercept": 0.0}, "platt": [1.0, 0.0], "threshold": 0.4}
    monkeypatch.setattr(judge.Judge, "_card", lambda self: card)
    rec = {"question": "q?", "candidate": "a", "references": ["a"]}
    assert qascore.load("judge").score([rec]).details["correct"] == [True]        # P = 0.5 >= the card's 0.4
    assert qascore.load("judge", threshold=0.6).score([rec]).details["correct"] == [False]


def test_signals_name_the_rule_features_that_fired(monkeypatch):
    """`details.signals`: the card's yes/no rule features that are above 0 for the record, in card order;
    a model feature (`verifier`) or one the card lacks is never named."""
    import qascore
    from qascore.metrics import judge

    names = ["verifier", "contains", "disowned", "imprecise", "number_miss"]
    card = {"features": names, "model": {"kind": "logistic", "mean": [0.0] * 5, "scale": [1.0] * 5,
                                         "coef": [0.0] * 5, "intercept": 0.0}, "platt": [1.0, 0.0], "threshold": 0.5}
    x = np.array([[2.0, 1.0, 1.0, 0.0, 0.0], [-3.0, 0.0, 0.0, 0.0, 0.5], [1.0, 1.0, 0.0, 1.0, 0.0]])
    monkeypatch.setattr(judge.Judge, "_card", lambda self: card)
    monkeypatch.setattr(judge, "features", lambda records, names, **kw: x[:len(records)])
    recs = [{"question": "q?", "candidate": c, "references": ["a"]} for c in ("b", "c", "d")]
    assert qascore.load("judge").score(recs).details["signals"] == [["contains", "disowned"], ["number_miss"],
                                                                     ["contains", "imprecise"]]


def _logistic(coef, a=2.0, b=-0.5):
    n = len(coef)
    return {"features": [f"f{i}" for i in range(n)], "platt": [a, b], "threshold": 0.5,
            "model": {"kind": "logistic", "mean": [0.0] * n, "scale": [1.0] * n, "coef": list(coef), "intercept": 0.3}}


def test_contributions_of_a_logistic_card_by_hand():
    """z = a (x . coef + intercept) + b: setting feature j to 0 lowers z by a coef_j x_j."""
    from qascore.metrics.judge import contributions

    card = _logistic([1.5, -2.0, 0.0])
    x = np.array([[1.0, 0.5, 3.0], [0.0, 1.0, 0.0]])
    parts = contributions(card, x)
    assert parts[0] == {"f0": pytest.approx(3.0), "f1": pytest.approx(-2.0)}   # 2 x 1.5 x 1, 2 x -2 x 0.5; f2 adds 0
    assert list(parts[0]) == ["f0", "f1"]                                        # largest first
    assert parts[1] == {"f1": pytest.approx(-4.0)}


def test_explain_names_the_decision_and_the_largest_parts():
    from qascore.metrics.judge import explain

    p = 1 / (1 + math.exp(-1.0))
    line = explain(p, 0.44, {"verifier": -1.234, "contains": 0.5, "f1": 0.2, "recall": 0.1})
    assert line == "accepted (0.73 >= 0.44): verifier -1.23, contains +0.50, f1 +0.20"
    assert explain(0.1, 0.44, {}) == "rejected (0.10 < 0.44)"


def test_details_carry_contributions_and_why(monkeypatch):
    """Through `score`: a logistic card over two features, its parts and line per record."""
    import qascore
    from qascore.metrics import judge

    card = {**_logistic([1.0, -1.0], a=1.0, b=0.0), "features": ["verifier", "contains"]}
    card["model"]["intercept"] = 0.0
    monkeypatch.setattr(judge.Judge, "_card", lambda self: card)
    monkeypatch.setattr(judge, "features", lambda records, names, **kw: np.array([[2.0, 1.0]]))
    res = qascore.load("judge").score([{"question": "q?", "candidate": "b", "references": ["a"]}])
    # z = 2 - 1 = 1: P 0.731; verifier set to 0: z -1, part +2; contains set to 0: z 2, part -1
    assert res.details["contributions"] == [{"verifier": 2.0, "contains": -1.0}]
    assert res.details["why"] == ["accepted (0.73 >= 0.50): verifier +2.00, contains -1.00"]


@pytest.mark.slow
def test_the_shipped_judge_reads_a_short_answer_in_other_names_of_the_gold():
    """WordNet's {Germany, Deutschland}, {Italy, Italia}, {Japan, Nippon}: accepted, and the best reference named
    is the user's (index 0), not the rewritten one; without the table the same answer scores 0.07."""
    import qascore

    rec = {"question": "What were the three main Axis powers in World War II?",
           "candidate": "Deutschland, Italia and Nippon.", "references": ["Germany, Italy, Japan"]}
    res = qascore.load("judge").score([rec, {**rec, "candidate": "Deutschland, Austria and Nippon."}])
    assert res.details["correct"] == [True, False] and res.details["reference"][0] == 0
    assert res.details["aliases"] == [["Deutschland, Italia, Nippon"], ["Deutschland, Italy, Nippon"]]
    assert "the gold as the answer names it: 'Deutschland, Italia, Nippon'" in res.details["why"][0]


@pytest.mark.slow
def test_the_shipped_judge_rejects_a_list_shorter_or_longer_than_asked_and_reads_a_redirect():
    """`short_list`: one moon where the question asks for two is rejected by its offset, both moons are not, nor
    (`long_list`) three moons; the
    redirect table: "Stibium" (antimony's Latin name, a Wikipedia redirect) is read as the gold."""
    import qascore

    moons = {"question": "What are the two moons of Mars?", "references": ["Phobos and Deimos"]}
    res = qascore.load("judge").score([{**moons, "candidate": "Phobos."}, {**moons, "candidate": "Phobos and Deimos."},
                                       {"question": "Which element has the symbol Sb?", "candidate": "Stibium.",
                                        "references": ["Antimony"]},
                                       {**moons, "candidate": "Phobos, Deimos and Titan."}])
    assert res.details["correct"] == [False, True, True, False]
    assert res.details["signals"][3] == ["long_list"]
    assert "short_list" in res.details["signals"][0] and "short_list" not in res.details["signals"][1]
    assert res.details["contributions"][0]["short_list"] < 0 and res.details["aliases"][2] == ["stibium"]


def test_the_signature_names_the_code_that_reads_the_rules(tmp_path, monkeypatch):
    """A rule's change moves scores that the card's hash does not: the signature's `rules@` hash reads the rule code."""
    from qascore import load
    from qascore.metrics import judge

    before = judge.rules_hash()
    assert load("judge").signature_fields()["rules"] == f"rules@{before}" and len(before) == 12
    edited = tmp_path / "roles.py"
    edited.write_text(open(judge.roles.__file__).read() + "\n# edited\n")
    monkeypatch.setattr(judge.roles, "__file__", str(edited))
    judge.rules_hash.cache_clear()
    try:
        assert judge.rules_hash() != before
    finally:
        monkeypatch.undo()
        judge.rules_hash.cache_clear()


def test_the_card_and_the_installed_models_are_read_once_per_process():
    """Each is cached: a helper inserted under another's decorator would take its cache (and leave the card,
    or a 5 MB model's hash, read on every call)."""
    from qascore.metrics import judge

    for f in (judge.read_card, judge.installed_verifier, judge.installed_tagger, judge.installed_asserted,
              judge.rules_hash):
        assert hasattr(f, "cache_info"), f.__name__


def _constant_card(intercept: float, threshold: float) -> dict:
    """A card whose probability is sigmoid(intercept) whatever the record (no model feature: nothing loads)."""
    return {"features": ["f1"], "platt": [1.0, 0.0], "threshold": threshold,
            "model": {"kind": "logistic", "mean": [0.0], "scale": [1.0], "coef": [0.0], "intercept": intercept}}


def test_a_routed_card_sends_sentence_golds_to_its_sentence_card(tmp_path):
    """Records whose every reference has at least `min_words` words are scored by the sentence card, with its
    threshold; the others by the card itself; a sentence card changed after routing is refused."""
    from qascore import Record, load
    from qascore.runtime.delta import file_sha256

    nested = tmp_path / "judge-sentences.json"
    nested.write_text(json.dumps(_constant_card(-1.0, 0.2)))
    card = {**_constant_card(1.0, 0.9),
            "sentences": {"card": nested.name, "sha256": file_sha256(nested), "min_words": 5}}
    (tmp_path / "judge.json").write_text(json.dumps(card))
    recs = [Record(id="short", question="Capital of France?", candidate="Paris", references=["Paris"]),
            Record(id="sentence", question="Capital of France?", candidate="Paris",
                   references=["The capital of France is Paris."]),
            Record(id="mixed", question="Capital of France?", candidate="Paris",
                   references=["The capital of France is Paris.", "Paris"])]
    judge = load(f"judge:model={tmp_path / 'judge.json'}")
    res = judge.score(recs)
    expect = 1 / (1 + math.exp(-1.0)), 1 / (1 + math.exp(1.0)), 1 / (1 + math.exp(-1.0))
    assert res.scores == pytest.approx(expect)
    assert res.details["correct"] == [False, True, False]   # 0.73 < 0.9; 0.27 >= 0.2
    assert judge.signature_fields()["sentences"] == f"judge-sentences@{file_sha256(nested)}:min_words=5:threshold=0.2000"
    nested.write_text(json.dumps(_constant_card(-2.0, 0.2)))
    from qascore.metrics.judge import read_card
    read_card.cache_clear()
    with pytest.raises(ValueError, match="is not the sentence card"):
        load(f"judge:model={tmp_path / 'judge.json'}").score(recs)


def test_a_card_reads_the_verifier_it_names_beside_it(tmp_path):
    """A card may carry its own verifier (`write_card(..., verifier=)`: copied beside it, named in the card):
    it is the file the card's features read and the one its `ava_model` is checked against; a card without one
    reads the judge's `VERIFIER`; a missing or other file is refused before any model loads."""
    from qascore import Record, load
    from qascore.metrics import judge
    from qascore.runtime.delta import file_sha256

    weights = tmp_path / "trained.safetensors"
    weights.write_bytes(b"not a model: only its hash is read here")
    card = {"features": ["verifier"], "platt": [1.0, 0.0], "threshold": 0.5, "model_inputs": judge.MODEL_INPUTS,
            "model": {"kind": "logistic", "mean": [0], "scale": [1], "coef": [1], "intercept": 0},
            "ava_model": f"ava@{file_sha256(weights)}"}
    path = tmp_path / "card" / "judge.json"
    path.parent.mkdir()
    judge.write_card(card, path, verifier=weights)
    own = path.parent / "judge-verifier.safetensors"
    assert json.loads(path.read_text())["verifier"] == own.name and own.read_bytes() == weights.read_bytes()
    loaded = judge.read_card(str(path))
    assert judge.card_verifier(loaded) == own
    assert judge.card_verifier(_constant_card(0.0, 0.5)) == judge.VERIFIER
    assert load(f"judge:model={path}").signature_fields()["verifier"] == f"ava-judge@{file_sha256(weights)}"
    judge.write_card(loaded, tmp_path / "again.json")  # the resolved path is not written back
    assert "verifier_path" not in json.loads((tmp_path / "again.json").read_text())
    rec = [Record(id="1", question="q?", candidate="a", references=["a"])]
    own.write_bytes(b"another file")
    judge.installed_verifier.cache_clear()
    with pytest.raises(ValueError, match="was fitted with"):
        load(f"judge:model={path}").score(rec)
    own.unlink()
    judge.read_card.cache_clear()
    with pytest.raises(FileNotFoundError, match="judge-verifier.safetensors"):
        load(f"judge:model={path}").score(rec)


@pytest.mark.slow
def test_the_shipped_judge_reads_an_answer_from_where_it_reopens_itself():
    """The issue's own example: "1,440. Wait, ..." is read from the clause the revisions reader reads its claim in
    (`asserted.revised_at`), where the gold is no longer named, and rejected; the same answer revised to the gold is
    accepted; `details.read` says what was read (None: the whole answer)."""
    import qascore

    q = {"question": "How many minutes are there in a day?", "references": ["1,440"]}
    res = qascore.load("judge").score([
        {**q, "candidate": "1,440. Let me redo that: 24 times 60 is actually 1,240. So 1,240."},
        {**q, "candidate": "1,240. Let me redo that: 24 times 60 is actually 1,440. So 1,440."},
        {**q, "candidate": "1,440 minutes."}])
    assert res.details["correct"] == [False, True, True]
    assert res.details["read"][0] == "So 1,240." and res.details["read"][2] is None



def test_number_rules_are_silent_where_the_asserted_reading_holds_the_gold():
    """`silence_number_rules`: a row whose asserted mass on gold answers reaches ASSERTED_SURE loses its
    `number_miss` and `imprecise`; a row below it, and every other column, keep theirs."""
    from qascore.metrics.judge import ASSERTED_SURE, silence_number_rules

    cols = {"asserted": np.array([ASSERTED_SURE, ASSERTED_SURE - 0.01, 1.0]), "number_miss": np.array([1.0, 1.0, 0.0]),
            "imprecise": np.array([1.0, 1.0, 1.0]), "name_clash": np.array([1.0, 1.0, 1.0])}
    silence_number_rules(cols)
    assert cols["number_miss"].tolist() == [0.0, 1.0, 0.0]
    assert cols["imprecise"].tolist() == [0.0, 1.0, 0.0]
    assert cols["name_clash"].tolist() == [1.0, 1.0, 1.0]
    without = {"number_miss": np.array([1.0])}  # a card without the asserted reading: nothing to silence
    silence_number_rules(without)
    assert without["number_miss"].tolist() == [1.0]
