"""Verifier machinery: truncation arithmetic (fast) and model round trips (slow)."""

from __future__ import annotations

import numpy as np
import pytest

from qascore.records import Record
from qascore.runtime.verifier import Part, fit_lengths, view


@pytest.mark.parametrize("lengths, keep, budget, expected", [
    ([5, 5], [False, False], 20, [5, 5]),            # fits: untouched
    ([10, 10], [False, False], 10, [5, 5]),          # even trim
    ([2, 20], [False, False], 10, [2, 8]),           # short part never cut while a longer one is longer
    ([4, 30, 30], [True, False, False], 24, [4, 10, 10]),  # kept part whole, others evenly
    ([4, 31, 30], [True, False, False], 25, [4, 11, 10]),  # leftover token to the earliest longest
    ([30, 5], [True, False], 10, [10, 0]),           # kept part alone too long: trimmed as a last resort
    ([3, 3, 3], [False, False, False], 0, [0, 0, 0]),
])
def test_fit_lengths(lengths, keep, budget, expected):
    out = fit_lengths(lengths, keep, budget)
    assert out == expected
    assert sum(out) <= max(budget, 0)


def test_view_builds_parts():
    v = view(Part("q", keep=True), ["r", "t"])
    assert v == ([Part("q", True)], [Part("r"), Part("t")])
    assert view("only") == ([Part("only")], [])


@pytest.mark.slow
def test_partial_stack_equals_full_encoder():
    """Cached lower layers + trainable top layers reproduce the base encoder's [CLS] state."""
    import torch
    from transformers import AutoModel

    from qascore.runtime import defaults
    from qascore.runtime.partial import lower_states, pad_states, pad_tokens, run_stack
    from qascore.runtime.verifier import Verifier, VerifierSpec

    spec = VerifierSpec(layout="qt", n_views=1, train_layers=2)
    ver = Verifier(spec, lambda r: [view(Part(r.question, keep=True), r.candidate)])
    recs = [Record(question="who wrote hamlet?", candidate="Hamlet is a tragedy by William Shakespeare."),
            Record(question="capital of france", candidate="Paris")]
    toks = [t[0] for t in ver.tokens(recs)]
    base = AutoModel.from_pretrained(defaults.resolve(spec.encoder), attn_implementation="eager").eval()
    ids, types, mask = pad_tokens(toks, 0)
    with torch.no_grad():
        ref = base(input_ids=ids, token_type_ids=types, attention_mask=mask).last_hidden_state[:, 0]
        h, m = pad_states(lower_states(ver.model.lower, toks, 0, store_dtype=torch.float32), torch.float32)
        out = run_stack(ver.model.top[0], h, m)[:, 0]
    assert torch.allclose(ref, out, atol=1e-5)


@pytest.mark.parametrize("arch", ["bert", "mpnet"])
def test_stacks_reproduce_encoder_forward(arch):
    """Lower stack + top stack run layer by layer equal the encoder's own forward, for an absolute-position
    encoder (BERT) and one that adds a relative-position bias in every layer (MPNet); tiny random weights."""
    import torch
    from transformers import BertConfig, BertModel, MPNetConfig, MPNetModel

    from qascore.runtime.partial import LowerStack, position_bias_of, run_stack

    torch.manual_seed(0)
    size = dict(vocab_size=50, hidden_size=16, num_hidden_layers=3, num_attention_heads=2, intermediate_size=32)
    base = (BertModel(BertConfig(**size)) if arch == "bert" else MPNetModel(MPNetConfig(**size)))
    base.eval().set_attn_implementation("eager")
    assert (position_bias_of(base) is None) == (arch == "bert")
    ids = torch.tensor([[0, 7, 8, 9, 2], [0, 5, 2, 1, 1]])
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    layers = list(base.encoder.layer)
    with torch.no_grad():
        ref = base(input_ids=ids, attention_mask=mask).last_hidden_state
        h = LowerStack(base.embeddings, layers[:1], position_bias_of(base))(ids, torch.zeros_like(ids), mask)
        out = run_stack(layers[1:], h, mask, position_bias_of(base))
    keep = mask.bool()
    assert torch.allclose(ref[keep], out[keep], atol=1e-5)


def test_verifier_model_moves_mpnet_bias_table():
    """MPNet's relative-position table lives outside the layers; the verifier model registers it, so moving the
    model (to a GPU, or here to float64) moves the table too (a GPU run once failed on a table left on the CPU)."""
    import torch
    from transformers import MPNetConfig, MPNetModel

    from qascore.runtime.verifier import VerifierModel, VerifierSpec

    size = dict(vocab_size=50, hidden_size=16, num_hidden_layers=3, num_attention_heads=2, intermediate_size=32)
    base = MPNetModel(MPNetConfig(**size))
    model = VerifierModel(VerifierSpec(layout="toy", n_views=1, train_layers=2, lora_rank=2), base).to(torch.float64)
    assert base.encoder.relative_attention_bias.weight.dtype == torch.float64
    assert not base.encoder.relative_attention_bias.weight.requires_grad
    assert not any("position_table" in n for n in model.trained_names())


def toy_task() -> tuple[list[Record], list[int], object]:
    """32 records whose label is whether the candidate says the reference's colour; a (q, r∘t) layout."""
    recs, labels = [], []
    for i in range(32):
        y = i % 2
        recs.append(Record(question=f"what color is item {i}?", candidate=("red" if y else "blue") + " it is",
                           references=["red"]))
        labels.append(y)
    return recs, labels, lambda r: [view(Part(r.question, keep=True), [r.references[0], r.candidate])]


@pytest.mark.slow
def test_train_save_load_round_trip(tmp_path):
    """A seeded fit learns a trivially separable toy task; the fp16 delta reloads to the same scores."""
    from qascore.runtime.verifier import Verifier, VerifierSpec
    from qascore_lab.train.verifier import TrainConfig, train

    recs, labels, lay = toy_task()
    spec = VerifierSpec(layout="toy", n_views=1, train_layers=1)
    ver = train(spec, lay, recs, labels, TrainConfig(epochs=4, batch_size=8, lr=1e-4, head_lr=3e-3),
                dev=(recs, labels), log=lambda s: None)
    p = ver.predict(recs)
    y = np.array(labels)
    assert p[y == 1].mean() > p[y == 0].mean()
    path = tmp_path / "toy.safetensors"
    ver.save(path)
    again = Verifier.load(path, lay, layout_name="toy")
    assert np.abs(again.predict(recs) - p).max() < 1e-3
    with pytest.raises(ValueError):
        Verifier.load(path, lay, layout_name="other")


@pytest.mark.slow
def test_calibrated_delta_round_trip(tmp_path):
    """A calibrated run stores its temperature; probabilities are sigmoid(logit / T) before and after a reload;
    rewriting the metadata alone (`update_meta`, as `train verifier --calibrate` does) leaves the tensors as they were."""
    import torch
    from safetensors.torch import load_file

    from qascore.runtime.delta import read_meta, update_meta
    from qascore.runtime.verifier import Verifier, VerifierSpec
    from qascore_lab.train.verifier import TrainConfig, train

    recs, labels, lay = toy_task()
    spec = VerifierSpec(layout="toy", n_views=1, train_layers=6, lora_rank=4)
    cfg = TrainConfig(epochs=1, batch_size=8, lr=2e-3, head_lr=3e-3, select="auroc", calibrate=True)
    ver = train(spec, lay, recs, labels, cfg, dev=(recs, labels), log=lambda s: None)
    t = ver.temperature
    assert t > 0 and ver.info["calibration"]["temperature"] == t
    z = ver.logits(recs)
    assert np.allclose(ver.predict(recs), torch.sigmoid(torch.from_numpy(z) / t).numpy(), atol=1e-7)
    path = tmp_path / "toy.safetensors"
    ver.save(path)
    again = Verifier.load(path, lay, layout_name="toy")
    assert again.temperature == pytest.approx(t) and again.threshold == pytest.approx(ver.threshold)
    before = load_file(str(path))
    update_meta(path, {"temperature": 2.0})
    after = load_file(str(path))
    assert read_meta(path)["temperature"] == 2.0 and read_meta(path)["spec"] == read_meta(path)["spec"]
    assert before.keys() == after.keys() and all(torch.equal(before[k], after[k]) for k in before)
    assert Verifier.load(path, lay, layout_name="toy").temperature == 2.0


@pytest.mark.slow
def test_lora_train_save_load_resume(tmp_path):
    """All layers with LoRA: learns the toy task, the delta holds what trained (adapters, LayerNorms, head)
    and reloads to the same scores, a resumed run ends where an uninterrupted one does."""
    from qascore.runtime.delta import read_meta
    from qascore.runtime.verifier import Verifier, VerifierSpec
    from qascore_lab.train.verifier import TrainConfig, train

    recs, labels, lay = toy_task()
    spec = VerifierSpec(layout="toy", n_views=1, train_layers=6, lora_rank=4)
    cfg = TrainConfig(epochs=2, batch_size=8, lr=2e-3, head_lr=3e-3, select="auroc", bucket=True)
    ver = train(spec, lay, recs, labels, cfg, dev=(recs, labels), log=lambda s: None)
    p = ver.predict(recs)
    y = np.array(labels)
    assert p[y == 1].mean() > p[y == 0].mean()
    names = ver.model.trained_names()
    assert names and all(n.startswith("head.") or n.endswith(("lora_a", "lora_b")) or ".LayerNorm." in n
                         for n in names)
    assert not any(".base." in n for n in names)     # the frozen weights stay out of the delta
    assert sum(n.endswith("lora_a") for n in names) == 6 * 6   # 6 linear layers in each of 6 BERT layers
    path = tmp_path / "toy.safetensors"
    ver.save(path)
    assert read_meta(path)["spec"]["lora_rank"] == 4
    again = Verifier.load(path, lay, layout_name="toy")      # merged adapters: same scores
    assert np.abs(again.predict(recs) - p).max() < 1e-3

    ckpt = tmp_path / "run.ckpt"
    one = TrainConfig(**{**cfg.__dict__, "epochs": 2})
    first = train(spec, lay, recs, labels, one, dev=(recs, labels), log=lambda s: None, checkpoint=ckpt)
    from qascore_lab.train.checkpoint import load_checkpoint, save_checkpoint

    tensors, ckpt_state = load_checkpoint(ckpt)
    assert ckpt_state["epoch"] == 2
    ckpt_state["epoch"] = 1                       # pretend the run stopped after epoch 1 ...
    ckpt_state["history"] = ckpt_state["history"][:1]
    save_checkpoint(ckpt, tensors, ckpt_state)
    resumed = train(spec, lay, recs, labels, one, dev=(recs, labels), log=lambda s: None, checkpoint=ckpt)
    assert len(resumed.info["history"]) == 2      # ... and it ran epoch 2 only
    assert first.info["history"][0] == resumed.info["history"][0]


def toy_corpus(tmp_path):
    """The toy task as a `train verifier-data` folder (the same rows in train and dev)."""
    import json

    recs, labels, _ = toy_task()
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    rows = [{"id": f"r{i}", "qid": f"q{i}", "question": r.question, "candidate": r.candidate,
             "references": r.references, "negatives": [], "source": "ae", "kind": "toy", "label": y}
            for i, (r, y) in enumerate(zip(recs, labels))]
    for split in ("train", "dev"):
        (corpus / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (corpus / "report.json").write_text("{}", encoding="utf-8")
    return corpus


@pytest.mark.slow
def test_distillation_loss_mixes_labels_and_soft_targets():
    """Soft targets equal to the labels give the labels' loss whatever the weight, so the same model as no
    teacher; other soft targets give another model; a weight without soft targets is refused."""
    from qascore.runtime.verifier import VerifierSpec
    from qascore_lab.train.verifier import TrainConfig, train

    recs, labels, lay = toy_task()
    spec = VerifierSpec(layout="toy", n_views=1, train_layers=6, lora_rank=4)
    cfg = TrainConfig(epochs=1, batch_size=8, lr=2e-3, head_lr=3e-3, select="auroc", bucket=True)
    plain = train(spec, lay, recs, labels, cfg, dev=(recs, labels), log=lambda s: None).logits(recs)
    mixed = TrainConfig(**{**cfg.__dict__, "distill": 0.7})
    same = train(spec, lay, recs, labels, mixed, dev=(recs, labels), log=lambda s: None,
                 soft=[float(y) for y in labels]).logits(recs)
    assert np.abs(same - plain).max() < 1e-5
    flat = train(spec, lay, recs, labels, mixed, dev=(recs, labels), log=lambda s: None,
                 soft=[0.5] * len(labels)).logits(recs)
    assert np.abs(flat - plain).max() > 1e-2
    with pytest.raises(ValueError, match="soft targets"):
        train(spec, lay, recs, labels, mixed, log=lambda s: None)
    with pytest.raises(ValueError, match="0..1"):
        train(spec, lay, recs, labels, TrainConfig(**{**cfg.__dict__, "distill": 1.5}), log=lambda s: None,
              soft=[0.5] * len(labels))
    with pytest.raises(ValueError, match="31 soft targets for 32"):
        train(spec, lay, recs, labels, mixed, log=lambda s: None, soft=[0.5] * 31)


@pytest.mark.slow
def test_train_verifier_cli_distils_from_a_teacher(tmp_path):
    """`--teacher DELTA` trains on the teacher's probabilities too, and the student's delta names its teacher."""
    from qascore_lab.cli import main
    from qascore.runtime.delta import file_sha256, read_meta

    corpus, out = toy_corpus(tmp_path), tmp_path / "out"
    common = ["train", "verifier", "--model", "ava", "--corpus", str(corpus), "--out", str(out),
              "--lora-rank", "4", "--lr", "2e-3", "--head-lr", "3e-3"]
    assert main(common + ["--name", "teacher"]) == 0
    teacher = out / "teacher.safetensors"
    assert main(common + ["--name", "student", "--teacher", str(teacher), "--distill", "0.5"]) == 0
    info = read_meta(out / "student.safetensors")["info"]
    assert info["teacher"] == {"path": str(teacher), "sha256": file_sha256(teacher)}
    assert info["config"]["distill"] == 0.5 and f"--teacher {teacher} --distill 0.5" in info["command"]


@pytest.mark.slow
def test_train_verifier_cli_calibrates_and_recalibrates(tmp_path):
    """`qascore-lab train verifier` writes a calibrated delta; `--calibrate` on it refits the same temperature from
    the same dev rows (the logits are raw, so the stored temperature does not feed back) and keeps the tensors."""
    import torch
    from safetensors.torch import load_file

    from qascore_lab.cli import main
    from qascore.runtime.delta import read_meta

    corpus = toy_corpus(tmp_path)
    out = tmp_path / "out"
    assert main(["train", "verifier", "--model", "ava", "--corpus", str(corpus), "--out", str(out),
                 "--lora-rank", "4", "--lr", "2e-3", "--head-lr", "3e-3"]) == 0
    delta = out / "ava.safetensors"
    meta = read_meta(delta)
    t = meta["temperature"]
    assert t > 0 and meta["info"]["calibration"]["temperature"] == t
    before = load_file(str(delta))
    assert main(["train", "verifier", "--model", "ava", "--corpus", str(corpus), "--calibrate", str(delta)]) == 0
    assert read_meta(delta)["temperature"] == pytest.approx(t, rel=1e-3)
    after = load_file(str(delta))
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert (out / "ava.check.json").is_file()
