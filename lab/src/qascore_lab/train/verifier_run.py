"""`qascore-lab train verifier`: the shipped `ava` and `square` verifiers, trained on the verification corpus.

Every encoder layer trains (LoRA adapters on all linear layers, a full head),
over the corpus of `qascore-lab train verifier-data`; the epoch is chosen by
AUROC on the corpus dev split, which also sets the decision threshold (best
F1). `--sources` keeps only some sources of the training split (the ablation
lever); the dev split is always whole, so runs compare on the same rows.
`--checkpoint` makes a run resumable after each epoch.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from qascore.records import Record
from qascore.runtime import defaults

from qascore_lab.train.verifier_rows import by_source, source_groups, to_records  # noqa: F401  (re-exported)

MODELS = {"ava": "r,q+t", "square": "square"}   # verifier -> layout (AVA's A1 (r, q∘t); SQuArE's prompt)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", choices=sorted(MODELS), required=True, help="which verifier")
    p.add_argument("--corpus", default="runs/verifier-data", help="folder written by `qascore-lab train verifier-data`")
    p.add_argument("--out", default="runs/verifier", help="folder for the delta and its report")
    p.add_argument("--name", default=None, help="file name of the delta (default: the model name)")
    p.add_argument("--sources", default="", help="train only on rows of these sources (comma-separated; default all)")
    p.add_argument("--mix", default="", metavar="SRC=N,...",
                   help="per-source seeded samples of the training split (e.g. 'evouna=all,squad11=4000,ae=2000'); "
                        "sources not named are dropped")
    p.add_argument("--with-probes", default=None, metavar="DIR=N",
                   help="add a seeded sample of N rows of the probe suite's train split (`train probes --out DIR`), "
                        "after --mix: contrastive rows that differ in what the answer asserts; DIR=FAMILY:N+FAMILY:all+... "
                        "draws each named family on its own (the others are left out)")
    p.add_argument("--init", default=None, metavar="DELTA",
                   help="start from this verifier delta (same layout and LoRA rank), e.g. the shipped one")
    p.add_argument("--train-rows", type=int, default=None, metavar="N",
                   help="train on a seeded sample of N rows (cheap lever runs, e.g. a larger encoder)")
    p.add_argument("--dev-rows", type=int, default=None, metavar="N", help="select on a seeded sample of N dev rows")
    p.add_argument("--epochs", type=int, default=1,
                   help="1 fits a CPU hour (26-87 min on 1 thread); the shipped ava/square: 6/4 epochs on a GPU")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=5e-4, help="LoRA learning rate (or the top layers' with --lora-rank 0)")
    p.add_argument("--head-lr", type=float, default=1e-3)
    p.add_argument("--lora-rank", type=int, default=16, help="0: train the top layers in full instead")
    p.add_argument("--train-layers", type=int, default=6, help="how many top layers train (6 = all of MiniLM-L6)")
    p.add_argument("--max-len", type=int, default=128)
    p.add_argument("--encoder", default=defaults.ENCODER)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (report them with any speed figure)")
    p.add_argument("--device", default="cpu", help="torch device: cpu, cuda (the shipped models were trained on one)")
    p.add_argument("--checkpoint", default=None, help="resumable state file (written after each epoch)")
    p.add_argument("--teacher", default=None, metavar="DELTA",
                   help="distil from this trained verifier (e.g. a larger encoder's): its calibrated probabilities on "
                        "the training rows become soft targets")
    p.add_argument("--distill", type=float, default=0.5,
                   help="with --teacher: weight of the soft targets in the loss (the labels get 1 - this)")
    p.add_argument("--evaluate", nargs="?", const="all", choices=("all", "triples"), default=None,
                   help="also report the evaluation sets: all (WikiQA test, TREC-QA clean-dev, KPQA human sets) "
                        "or triples (the first two)")
    p.add_argument("--data", default=None, help="data root for --evaluate (default: $QASCORE_DATA or ../shared/data)")
    p.add_argument("--ship", action="store_true", help="copy the delta into the package as the default `ava` (the "
                   "shipped `square` is a pooled head: `train square-head`; a single-input delta is read with "
                   "`-m square:model=FILE`)")
    p.add_argument("--calibrate", default=None, metavar="DELTA",
                   help="no training: fit the temperature of an existing --model delta on the corpus dev split and "
                        "write it (with the moved threshold) into that delta's metadata, and its .check.json beside it")


def layout_for(model: str) -> Any:
    from qascore.runtime import ava_layouts
    from qascore.runtime.square_layouts import layout_func

    return ava_layouts.make_layout(MODELS[model]) if model == "ava" else layout_func(MODELS[model])


def sample(rows: list[dict[str, Any]], n: int | None, seed: int) -> list[dict[str, Any]]:
    """A seeded sample of `n` rows in corpus order (all rows when n is None or too big)."""
    import random

    if n is None or n >= len(rows):
        return rows
    return [rows[i] for i in sorted(random.Random(seed).sample(range(len(rows)), n))]


def mix(rows: list[dict[str, Any]], spec: str, seed: int, key: str = "source", sep: str = ",",
        eq: str = "=") -> list[dict[str, Any]]:
    """Rows whose `key` is named in `spec` ("src=N" or "src=all", comma-separated), each a seeded sample,
    in corpus order."""
    want: dict[str, int | None] = {}
    for part in spec.split(sep):
        name, _, n = part.strip().partition(eq)
        want[name] = None if n in ("", "all") else int(n)
    keep: list[int] = []
    for name, n in want.items():
        idx = [i for i, r in enumerate(rows) if r.get(key) == name]
        if not idx:
            raise SystemExit(f"no training rows of {key} '{name}'")
        keep.extend(idx if n is None or n >= len(idx) else
                    random.Random(f"{seed}:{name}").sample(idx, n))
    return [rows[i] for i in sorted(keep)]


def probe_sample(rows: list[dict[str, Any]], spec: str, seed: int) -> list[dict[str, Any]]:
    """`--with-probes`'s draw: N rows at random, or each family of "FAMILY:N+FAMILY:all" on its own."""
    if spec.isdigit():
        return sample(rows, int(spec), seed)
    if ":" not in spec:
        raise SystemExit(f"--with-probes: expected DIR=N or DIR=FAMILY:N+..., got {spec!r}")
    return mix(rows, spec, seed, key="family", sep="+", eq=":")


def row_key(question: str, reference: str, candidate: str) -> str:
    """A short digest naming an answer-equivalence row without copying its text."""
    import hashlib

    return hashlib.sha1(f"{question}\x1f{reference}\x1f{candidate}".encode()).hexdigest()[:16]


def write_check(predict: Any, dev_rows: Sequence[dict[str, Any]], path: Path, n: int = 24) -> None:
    """Probabilities of the first `n` answer-equivalence dev rows, keyed by digest, so a test can check
    that the shipped delta, loaded afresh, gives what it gave when it was evaluated."""
    rows = [r for r in dev_rows if r["source"] == "ae"][:n]
    probs = predict(to_records(rows)[0])
    path.write_text(json.dumps({"rows": [{"key": row_key(r["question"], r["references"][0], r["candidate"]),
                                          "prob": float(p)} for r, p in zip(rows, probs)]}, indent=1) + "\n",
                    encoding="utf-8")


def teacher_probabilities(path: str | Path, records: Sequence[Record], device: str) -> np.ndarray:
    """A saved verifier's calibrated P(correct) for `records`: the soft targets of distillation."""
    from qascore.runtime.delta import read_meta
    from qascore.runtime.verifier import Verifier

    if not Path(path).is_file():
        raise FileNotFoundError(f"--teacher {path}: no such verifier delta (train one with `qascore-lab train verifier`)")
    layout = read_meta(path)["spec"]["layout"]
    model = next((m for m, name in MODELS.items() if name == layout), None)
    if model is None:
        raise ValueError(f"teacher {path} has layout '{layout}'; a teacher must be an {' or '.join(MODELS)} verifier")
    teacher = Verifier.load(path, layout_for(model), layout_name=layout)
    teacher.model.to(device)
    t0 = time.time()
    probs = teacher.predict(records, batch_size=64)
    teacher.model.to("cpu")
    print(f"teacher {path}: {len(records)} soft targets in {time.time() - t0:.1f}s", flush=True)
    return probs


def recalibrate(args: argparse.Namespace) -> int:
    """Temperature-scale a delta trained before calibration existed (its tensors stay as they are)."""
    from qascore.runtime.delta import update_meta
    from qascore.runtime.verifier import Verifier
    from qascore_lab.train import verifier_corpus
    from qascore_lab.train.verifier import calibrate

    path = Path(args.calibrate)
    dev_rows = sample(verifier_corpus.read_split(args.corpus, "dev"), args.dev_rows, args.seed)
    recs, labels = to_records(dev_rows)
    ver = Verifier.load(path, layout_for(args.model), layout_name=MODELS[args.model])
    logits = ver.logits(recs, batch_size=64)
    calibrate(ver, logits, labels)
    update_meta(path, {"temperature": ver.temperature, "threshold": ver.threshold, "info": ver.info})
    write_check(lambda rs: ver.predict(rs, batch_size=64), dev_rows, path.with_name(f"{path.stem}.check.json"))
    print("dev: " + json.dumps(by_source(ver.probabilities(logits), labels, dev_rows, ver.threshold)), flush=True)
    return 0


def run(args: argparse.Namespace) -> int:
    import torch

    torch.set_num_threads(args.threads)
    if args.ship and args.model == "square":
        raise SystemExit("train verifier: --ship is for ava; the shipped square is a pooled head over ava "
                         "(`qascore-lab train square-head --ship`); read this delta with -m square:model=FILE")
    if args.calibrate:
        return recalibrate(args)

    from qascore.runtime.delta import file_sha256
    from qascore.runtime.verifier import VerifierSpec
    from qascore_lab.train import verifier_corpus
    from qascore_lab.train.verifier import TrainConfig, train

    t0 = time.time()
    train_rows = verifier_corpus.read_split(args.corpus, "train")
    dev_rows = verifier_corpus.read_split(args.corpus, "dev")
    corpus_report = json.loads((Path(args.corpus) / "report.json").read_text(encoding="utf-8"))
    keep = [s.strip() for s in args.sources.split(",") if s.strip()]
    if keep:
        train_rows = [r for r in train_rows if r["source"] in keep]
    if args.mix:
        train_rows = mix(train_rows, args.mix, args.seed)
    if args.with_probes:
        from qascore_lab.train import probes

        folder, _, n = args.with_probes.rpartition("=")
        if not folder or not n:
            raise SystemExit(f"--with-probes: expected DIR=N or DIR=FAMILY:N+..., got {args.with_probes!r}")
        train_rows = train_rows + probe_sample(probes.read(folder, "train"), n, args.seed)
    train_rows, dev_rows = sample(train_rows, args.train_rows, args.seed), sample(dev_rows, args.dev_rows, args.seed)
    layout = MODELS[args.model]
    spec = VerifierSpec(layout=layout, n_views=1, encoder=args.encoder, max_len=args.max_len,
                        train_layers=args.train_layers, lora_rank=args.lora_rank)
    cfg = TrainConfig(epochs=args.epochs, batch_size=args.batch_size, lr=args.lr, head_lr=args.head_lr,
                      seed=args.seed, threads=args.threads, select="auroc", bucket=True, device=args.device,
                      log_every=100, calibrate=True, distill=args.distill if args.teacher else 0.0, init=args.init)
    recs, labels = to_records(train_rows)
    dev_recs, dev_labels = to_records(dev_rows)
    print(f"training {args.model} on {len(recs)} rows ({', '.join(keep) or 'all sources'}), dev {len(dev_recs)}; "
          f"{args.threads} thread(s), device {args.device}", flush=True)
    soft = teacher_probabilities(args.teacher, recs, args.device) if args.teacher else None
    ver = train(spec, layout_for(args.model), recs, labels, cfg, dev=(dev_recs, dev_labels),
                log=lambda s: print(s, flush=True), checkpoint=args.checkpoint, soft=soft)
    name = args.name or args.model
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.safetensors"
    command = "qascore-lab train verifier " + " ".join(
        f"--{k.replace('_', '-')} {v}" for k, v in sorted(vars(args).items())
        if k in ("model", "sources", "train_rows", "dev_rows", "epochs", "batch_size", "lr", "head_lr", "lora_rank",
                 "train_layers", "max_len", "seed", "threads", "mix", "with_probes", "init") and v not in ("", None)) + (
        f" --encoder {args.encoder}" if args.encoder != defaults.ENCODER else "") + (
        f" --device {args.device}" if args.device != "cpu" else "") + (
        f" --teacher {args.teacher} --distill {args.distill}" if args.teacher else "")
    ver.info.update(command=command, corpus={"command": corpus_report.get("command"),
                                             "train": corpus_report.get("train", {}).get("rows"),
                                             "dev": corpus_report.get("dev", {}).get("rows")},
                    sources=keep or "all", device=args.device,
                    **({"teacher": {"path": args.teacher, "sha256": file_sha256(args.teacher)}} if args.teacher else {}),
                    training_data_license="answer_equivalence: none stated (research-only); SQuAD 2.0 and 1.1: CC BY-SA 4.0; "
                                          "EVOUNA-TQ: Apache-2.0; SelQA: Apache-2.0; "
                                          "WikiQA: Microsoft Research Data License (non-commercial research); "
                                          "TREC-QA: none stated, research-only")
    ver.save(path, {"name": name})
    report: dict[str, Any] = {"name": name, "command": command, "train_rows": len(recs),
                              "threshold": ver.threshold, "history": ver.info["history"],
                              "train_seconds": ver.info["seconds"], "model_bytes": path.stat().st_size}
    ver.model.to(args.device)
    probs = ver.predict(dev_recs, batch_size=64)
    write_check(lambda rs: ver.predict(rs, batch_size=64), dev_rows, out / f"{name}.check.json")
    report["dev"] = by_source(probs, dev_labels, dev_rows, ver.threshold)
    print("dev: " + json.dumps(report["dev"]), flush=True)
    if args.evaluate:
        from qascore_lab.bench.verifier_eval import evaluate_sets, scorer

        report["eval"] = evaluate_sets(scorer(args.model, model=str(path), batch_size=64), args.data,
                                       kpqa_sets=args.evaluate == "all")
        print("eval: " + json.dumps(report["eval"]), flush=True)
    ver.model.to("cpu")
    report["total_seconds"] = round(time.time() - t0, 1)
    (out / f"{name}.report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB) in {report['total_seconds']}s", flush=True)
    if args.ship:
        import shutil

        dest = defaults.RESOURCES / args.model / f"{args.model}.safetensors"
        shutil.copyfile(path, dest)
        print(f"shipped as {dest}")
    return 0
