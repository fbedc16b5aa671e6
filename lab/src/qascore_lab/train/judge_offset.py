"""`qascore-lab train judge-offset`: one more rule feature for the shipped judge card, as an offset fitted alone.

The card's trees, Platt scaling, threshold and other offsets stay as they are; the new yes/no feature is appended
to the card's features (no tree reads it) with the log-odds offset that maximises the likelihood of the labels of
the rows where it fires, given the card's own log-odds there. A rule that fires on few rows (a list answer with too
few items) is fitted where it fires, on rows neither the trees nor the verifier read, without refitting the rest.
A routed card's offset goes on its short-gold card, fitted on the rows that card reads (`judge.routes`); the
sentence card does not read the feature. Deterministic: no seed. The fit is written into the card (`offset_fits`)
beside the command.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize_scalar

from qascore.metrics import judge
from qascore.records import Record

BOUNDS = (-20.0, 0.0)  # a rule only lowers the score (the card's monotone rule); -20 is certain rejection


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--feature", required=True, help=f"a yes/no rule feature of qascore.metrics.judge not on the card "
                                                    f"(one of {', '.join(judge.SIGNALS)})")
    p.add_argument("--rows", action="append", required=True, metavar="JSONL",
                   help="labelled rows (question, candidate, references, label) to fit on; repeatable")
    p.add_argument("--card", default=str(judge.DEFAULT_MODEL),
                   help="the card to extend, in place (default: the shipped one; a routed card's short-gold card, on "
                        "the rows it reads); its trees file stays beside it")


def fit_offset(log_odds: np.ndarray, labels: np.ndarray) -> float:
    """The offset o maximising sum log sigmoid(+-(log_odds + o)) over rows labelled 1 / 0."""
    def loss(o: float) -> float:
        z = log_odds + o
        return float(np.sum(labels * np.logaddexp(0, -z) + (1 - labels) * np.logaddexp(0, z)))
    return float(minimize_scalar(loss, bounds=BOUNDS, method="bounded", options={"xatol": 1e-6}).x)


def run(args: argparse.Namespace) -> int:
    card_path = Path(args.card)
    card: dict[str, Any] = json.loads(card_path.read_text(encoding="utf-8"))  # as stored: the trees by file name
    if args.feature not in judge.SIGNALS or args.feature in card["features"]:
        raise SystemExit(f"train judge-offset: {args.feature} must be a rule feature of the judge not yet on the card")
    rows = [json.loads(line) for path in args.rows for line in open(path, encoding="utf-8") if line.strip()]
    recs = [Record(id=str(k), question=r["question"], candidate=r["candidate"], references=list(r["references"]))
            for k, r in enumerate(rows)]
    loaded = judge.read_card(str(card_path))
    own = next((idx for c, idx in judge.routes(loaded, recs) if c is loaded), [])  # the rows it reads itself
    fires = (judge.features(recs, (args.feature,))[:, 0] > 0) & np.isin(np.arange(len(recs)), own)
    picked = [rec for rec, f in zip(recs, fires) if f]
    labels = np.array([int(r["label"]) for r, f in zip(rows, fires) if f], dtype=float)
    if len(picked) == 0:
        raise SystemExit(f"train judge-offset: {args.feature} fires on none of the {len(rows)} rows")
    x = judge.features(picked, card["features"], verifier=judge.card_verifier(loaded),  # the card's own verifier
                       tagger_int8=judge.reads_tagger_in_int8(loaded))
    p = np.clip(judge.predict(loaded, x), 1e-9, 1 - 1e-9)
    offset = fit_offset(np.log(p / (1 - p)), labels)
    card["features"] = [*card["features"], args.feature]
    card["offsets"] = {**card.get("offsets", {}), args.feature: offset}
    card.setdefault("offset_fits", {})[args.feature] = {
        "rows": len(rows), "fired": len(picked), "fired_correct": int(labels.sum()), "offset": offset,
        "command": "qascore-lab train judge-offset " + " ".join(sys.argv[sys.argv.index("judge-offset") + 1:])
        if "judge-offset" in sys.argv else None}
    card_path.write_text(json.dumps(card, separators=(",", ":")) + "\n", encoding="utf-8")  # as `write_card` does
    print(f"{args.feature}: fires on {len(picked)} of {len(rows)} rows ({int(labels.sum())} correct); offset "
          f"{offset:.4f}; wrote {card_path}")
    return 0
