#!/usr/bin/env bash
# A GPU round (lab/results/judge.md, round 2026-11-26d): verifiers trained with the composed LLM-style rows of
# `train probe-styles`, their soup with `ava` v4, and the judge's model columns of each, in one command of
# at most ~8 minutes. Every step is a `qascore-lab` command (or the soup script) that also runs on the CPU.
#
# Expects, packed here (`lab/scripts/gpu_pack.py .gpu/e/data --mix all --probes 10000 --probes WSPEC
# --styles runs/probe-styles=style-assert:8000+style-hedge:4000+style-guess:2000`; lab/results/judge.md):
#   $STASH (earlier calls) and $CARRY  the MiniLM pack's parts (lab/scripts/gpu_carry.py, pack `minilm`)
#   $PACK/data/vd3m, vd3x             corpus v3: every training row; the V3_MIX draw (with dev/test from vd3m)
#   $PACK/data/probes, probes2        uniform 10,000 / per-family WSPEC probe rows, each + 14,000 style rows;
#                                     the probe dev sample and test split
#   $PACK/ava-v3.safetensors, ava-v4.safetensors   starting deltas; $PACK/kp/*.npy the tagger's judge columns
#   $PACK/gate/*.jsonl.gz             phrasing rows whose verifier column each variant computes
# Variants: d (from v3: every corpus row + WSPEC + styles), ds (the soup of v4 and d), e (from the shipped
# `ava` v5: the V3_MIX draw + uniform probes + styles, rank 96, lr 1e-4).
# Writes to $OUT: ava-{d,ds,e}.safetensors, judge.tgz (model columns), logs.tgz.
set -u
cd "$(dirname "$0")/../.."
PACK=${PACK:-.gpu/e}
. lab/scripts/gpu_lib.sh  # the shared settings (PY, STASH, CARRY, OUT, DEVICE, SMALL, WSPEC, SITE, W); log,
                          # pack_logs, stash_or_join, unpack_corpus
STYLES=style-assert:all+style-hedge:all+style-guess:all
mkdir -p "$OUT" "$SITE" "$W/logs" "$STASH"
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=true
stash_or_join
export PYTHONPATH=$SITE:$PWD/lab/src
R=$W/runs  # outside the checkout, which a rehearsal must not touch
mkdir -p $R/gate
unpack_corpus "$R"
for f in "$PACK"/gate/*.jsonl.gz; do gunzip -c "$f" > "$R/gate/$(basename "$f" .gz)"; done
$PY -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no GPU')"
if [ -n "$SMALL" ]; then
  ROWS="--train-rows 48 --dev-rows 48"
  for f in $R/gate/*.jsonl; do head -n 8 "$f" > "$f.tmp" && mv "$f.tmp" "$f"; done
else
  ROWS=""
fi

train() {  # train NAME CORPUS PROBES INIT RANK LR [MIX]: one verifier
  local name=$1 corpus=$2 probes=$3 init=$4 rank=$5 lr=$6 mixarg=${7:+--mix $7}
  PYTHONPATH=$PYTHONPATH:$PWD/src timeout 300 $PY -m qascore_lab.cli train verifier --model ava --corpus "$corpus" \
    $mixarg --with-probes "$probes" $ROWS --init "$init" --lora-rank "$rank" --epochs 1 --lr "$lr" --seed 13 \
    --threads 4 --device "$DEVICE" --out "$W/logs/ava-$name" --name ava > "$W/logs/ava-$name.log" 2>&1
  log "ava-$name: exit $?"
  [ -f "$W/logs/ava-$name/ava.safetensors" ] && mv "$W/logs/ava-$name/ava.safetensors" "$OUT/ava-$name.safetensors"
}

gate_column() {  # gate_column FEATURE SRC DIR: FEATURE's column of every gate file, with the models under SRC,
  # into DIR/gate-<file>.FEATURE.npy
  mkdir -p "$3"
  PYTHONPATH=$PYTHONPATH:$2 timeout 240 $PY - "$R/gate" "$3" "$1" <<'EOF'
import json, sys
from pathlib import Path
import numpy as np
from qascore.metrics.judge import features
from qascore_lab.train.verifier_rows import to_records
for path in sorted(Path(sys.argv[1]).glob("*.jsonl")):
    recs, _ = to_records([json.loads(line) for line in path.open(encoding="utf-8")])
    np.save(Path(sys.argv[2]) / f"gate-{path.stem}.{sys.argv[3]}.npy", features(recs, [sys.argv[3]])[:, 0])
    print(path.stem, len(recs), flush=True)
EOF
}

columns() {  # columns NAME: the judge's model columns with $OUT/ava-NAME, and its verifier column of the gate rows
  local name=$1 src=/root/src-$1
  [ -f "$OUT/ava-$name.safetensors" ] || return
  rm -rf "$src" && cp -r src "$src" && cp "$OUT/ava-$name.safetensors" "$src/qascore/resources/ava/ava.safetensors"
  mkdir -p "/root/judge-$name" && cp "$PACK"/kp/*.npy "/root/judge-$name/" 2>/dev/null
  gate_column verifier "$src" "/root/judge-$name" > "$W/logs/gate-$name.log" 2>&1
  log "gate-$name: exit $?"
  [ -n "$SMALL" ] && return
  PYTHONPATH=$PYTHONPATH:$src timeout 240 $PY -m qascore_lab.cli train judge --corpus $R/vd3f --probes $R/probes \
    --out "/root/judge-$name" --threads 4 --features-only > "$W/logs/judge-$name.log" 2>&1
  log "judge-$name: exit $?"
}

kp_gate() {  # the tagger's column of the gate rows (the same for every variant)
  gate_column kpqa_rougeL "$PWD/src" /root/judge-kp > "$W/logs/gate-kp.log" 2>&1
  log "gate-kp: exit $?"
}

d_line() {
  train d $R/vd3f "$R/probesW=$WSPEC+$STYLES" "$PACK/ava-v3.safetensors" 64 2e-4
  [ -f "$OUT/ava-d.safetensors" ] || return
  $PY lab/scripts/verifier_soup.py "$PACK/ava-v4.safetensors" "$OUT/ava-d.safetensors" "$OUT/ava-ds.safetensors" \
    --rank 96 > "$W/logs/soup.log" 2>&1
  log "soup: exit $?"
  columns ds &
  columns d
  wait
}
e_line() {
  train e $R/vd3x "$R/probes=1000000" src/qascore/resources/ava/ava.safetensors 96 1e-4  # every packed row
  columns e
}
kp_gate &
d_line &
e_line &
while [ -n "$(jobs -r)" ]; do sleep 20; pack_logs; done
pack_logs
tar czf "$OUT/judge.tgz" -C /root $(cd /root && ls -d judge-* 2>/dev/null)
log "done"
