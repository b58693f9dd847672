#!/usr/bin/env bash
# Reader runs of 2026-11-27 (an eleventh session), trained side by side on one GPU by the
# device tool (an H200 with 16 cores, this time): each run augments its batches in worker processes
# (--workers) and trains on the GPU (--device cuda) for $MINUTES by the clock. The crops
# travel packed by pack_crops.py (its docstring has the commands) in data/pack and
# data/pack2; each run writes data/runs/NAME/, its log lands in $OUT and a tarball of
# data/runs too.
#
# Run from the repository root, on a machine with a GPU and PyTorch:
#   MINUTES=6.5 OUT=/tmp/out bash models/training/device_runs.sh
# (DEVICE=cpu WORKERS=1 MINUTES=0.3 tries it on a CPU.)
set -uo pipefail
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
MINUTES=${MINUTES:-6.5} DEVICE=${DEVICE:-cuda} WORKERS=${WORKERS:-3}
S="--real data/pack/real.npz --synth data/pack2/synth4-train.npz data/pack/synth4-train-b-0.npz data/pack2/synth4-train-b-1.npz --synth-val data/pack/synth4-val.npz"
W="--small-share 0.25 --real-share 0.55 --jpeg-share 0.5 --unsure-covered"
NEW="--polarity-share 0.25 --swirl-share 0.3"
RUN="timeout $(python3 -c "print(int($MINUTES * 60 + 180))") python3 models/training/train_reader.py --device $DEVICE --bf16 --width 16 --steps 100000 --minutes $MINUTES --eval-every 1000 $S $W"

# Dice nobody here has seen: without byler-d6, from scratch, without and with the new looks.
LOO="--leave-out byler-d6 --source-weight matteop65-d6-webcam=2 --lr 0.003 --seed 41 --workers $((WORKERS + 1))"
$RUN $LOO --out data/runs/loo3/reader.onnx > $OUT/loo3.log 2>&1 &
$RUN $LOO $NEW --out data/runs/loo4/reader.onnx > $OUT/loo4.log 2>&1 &
# The shipped reader (run 21) trained on with every dataset, without and with the new looks.
ALL="--init models/reader.onnx --source-weight byler-d6=4 matteop65-d6-webcam=2 --real-colours --lr 0.001 --seed 42 --workers $WORKERS"
$RUN $ALL --out data/runs/r22/reader.onnx > $OUT/r22.log 2>&1 &
$RUN $ALL $NEW --out data/runs/r23/reader.onnx > $OUT/r23.log 2>&1 &
wait
tar czf $OUT/runs.tgz -C data runs
