#!/usr/bin/env bash
# A GPU round that compares verifier training mixes side by side (lab/results/judge.md, round 2026-11-26c) and
# retrains the answerability reader with the QGEval passages held out (2 and 3 epochs), in one command of at
# most ~8 minutes.
# Every run is a `qascore-lab` command that also runs on the CPU (hours there); the GPU only makes them fit.
#
# Expects, packed here (lab/results/judge.md gives the commands):
#   $STASH (earlier calls) and $CARRY    the MiniLM pack's parts (lab/scripts/gpu_carry.py, pack `minilm`)
#   $PACK/data/vd3m                      corpus v3 (every training row: `gpu_pack.py --mix all`)
#   $PACK/data/vd3x/train.jsonl.gz       corpus v3's --mix draw (V3_MIX) for variant c
#   $PACK/data/probes, probes2           the uniform 20,000-row probe draw and the per-family draw $WSPEC;
#                                        probe dev sample and test split
#   $PACK/data/train-v1.1.jsonl.gz, dev-v2.0.json.gz, original_data.csv   SQuAD 1.1 train, SQuAD 2.0 dev,
#                                        QGEval's passages (only so that `train reader` drops them)
#   $PACK/ava-v3.safetensors             the starting delta; $PACK/kp/*.npy the tagger's judge columns
# Writes to $OUT: ava-{a,b,c}.safetensors, reader-{e2,e3}.safetensors (2 and 3 epochs), judge.tgz (the three
# variants' judge columns), logs.tgz.
set -u
cd "$(dirname "$0")/../.."
PACK=${PACK:-.gpu/d}
. lab/scripts/gpu_lib.sh  # the shared settings (PY, STASH, CARRY, OUT, DEVICE, SMALL, WSPEC, SITE, W); log,
                          # pack_logs, stash_or_join, unpack_corpus
V3_MIX=evouna=all,selqa=all,trecqa-all=3000,squad11=3500,squad=1500,squad-sentref=1500,ae=2000,wikiqa=all
DATA=${DATA:-/root/data}
mkdir -p "$OUT" "$SITE" "$W/logs" "$STASH"
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=true
stash_or_join
export PYTHONPATH=$SITE:$PWD/lab/src QASCORE_DATA=$DATA
R=$W/runs  # the corpus and probe folders the commands read (outside the checkout, which a rehearsal must not touch)
mkdir -p "$DATA/squad_v1_train" "$DATA/squad_v2_dev" "$DATA/qgeval_squad"
cp "$PACK/data/train-v1.1.jsonl.gz" "$DATA/squad_v1_train/"
gunzip -c "$PACK/data/dev-v2.0.json.gz" > "$DATA/squad_v2_dev/dev-v2.0.json"
cp "$PACK/data/original_data.csv" "$DATA/qgeval_squad/"
unpack_corpus "$R"
$PY -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no GPU')"

if [ -n "$SMALL" ]; then ROWS="--train-rows 48 --dev-rows 48"; QS="--max-questions 48 --check-questions 16 --qg-questions 16"; else ROWS=""; QS=""; fi
reader() {  # reader NAME EPOCHS: the answerability reader on SQuAD 1.1 train, QGEval's passages dropped
  PYTHONPATH=$PYTHONPATH:$PWD/src timeout 420 $PY -m qascore_lab.cli train reader --out "$W/logs/reader-$1" --seed 13 \
    --device "$DEVICE" --data-root "$DATA" --epochs "$2" $QS > "$W/logs/reader-$1.log" 2>&1
  log "reader-$1: exit $?"
  [ -f "$W/logs/reader-$1/reader.safetensors" ] && mv "$W/logs/reader-$1/reader.safetensors" "$OUT/reader-$1.safetensors"
}
reader e2 2 &
reader e3 3 &

variant() {  # variant NAME CORPUS PROBES [MIX]: train a verifier, then the judge's model columns with it
  local name=$1 corpus=$2 probes=$3 mixarg=${4:+--mix $4}
  local src=/root/src-$name
  rm -rf "$src" && cp -r src "$src"
  PYTHONPATH=$PYTHONPATH:$src timeout 300 $PY -m qascore_lab.cli train verifier --model ava --corpus "$corpus" $mixarg \
    --with-probes "$probes" $ROWS --init "$PACK/ava-v3.safetensors" --lora-rank 64 --epochs 1 --lr 2e-4 --seed 13 \
    --threads 4 --device "$DEVICE" --out "$W/logs/ava-$name" --name ava > "$W/logs/ava-$name.log" 2>&1
  log "ava-$name: exit $?"
  [ -f "$W/logs/ava-$name/ava.safetensors" ] || return
  mv "$W/logs/ava-$name/ava.safetensors" "$OUT/ava-$name.safetensors"
  cp "$OUT/ava-$name.safetensors" "$src/qascore/resources/ava/ava.safetensors"
  mkdir -p "/root/judge-$name" && cp "$PACK"/kp/*.npy "/root/judge-$name/" 2>/dev/null
  [ -n "$SMALL" ] && return
  PYTHONPATH=$PYTHONPATH:$src timeout 200 $PY -m qascore_lab.cli train judge --corpus $R/vd3f --probes $R/probes \
    --out "/root/judge-$name" --threads 4 --features-only > "$W/logs/judge-$name.log" 2>&1
  log "judge-$name: exit $?"
}
variant a $R/vd3f $R/probes=20000 &
variant b $R/vd3f "$R/probesW=$WSPEC" &
variant c $R/vd3x "$R/probesW=$WSPEC" "$V3_MIX" &
while [ -n "$(jobs -r)" ]; do sleep 20; pack_logs; done
pack_logs
[ -n "$SMALL" ] || tar czf "$OUT/judge.tgz" -C /root judge-a judge-b judge-c
log "done"
