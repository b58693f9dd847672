#!/usr/bin/env bash
# Finder runs of 2026-11-27 (a fifteenth session), trained side by side on one GPU by the
# device tool, each cutting its batches in worker processes (--workers) and training on the
# GPU (--device cuda) for $MINUTES by the clock. The pictures travel packed by
# pack_pictures.py (its docstring has the commands) in data/pack3 and data/pack4; each run
# writes data/runs/NAME/, its log lands in $OUT and a tarball of the runs too.
#   first:  finder run 7 (shipped before) trained on with close looks at one die
#           (--close-share 0.25, 0.4, 0.15: runs 11, 12, 13), on data/pack3;
#   second: run $FROM (data/runs/$FROM/finder.pt, carried) trained on with data/pack4's
#           other pictures (run 14), and with its top-down path mixed at stride 8 (run 15);
#   third:  finder run 7 trained on with fewer close looks and smaller crops, on data/pack4
#           (a sixteenth session): close share 0.1 with crops down to 0.3x (run 17) or
#           0.45x (run 18), close share 0.05 with crops down to 0.3x (run 19);
#   fourth: run $FROM trained on as run 18 was, with data/pack3's pictures, at learning rates
#           0.001 (run 20) and 0.0005 (run 21).
#
# Run from the repository root, on a machine with a GPU and PyTorch:
#   MINUTES=6 OUT=/tmp/out bash models/training/device_finder_runs.sh first
#   MINUTES=4.5 FROM=f11 OUT=/tmp/out bash models/training/device_finder_runs.sh second
#   MINUTES=7 OUT=/tmp/out bash models/training/device_finder_runs.sh third
#   MINUTES=5 FROM=f18 OUT=/tmp/out bash models/training/device_finder_runs.sh fourth
# (DEVICE=cpu WORKERS=1 MINUTES=0.3 tries it on a CPU.)
set -uo pipefail
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
MINUTES=${MINUTES:-6} DEVICE=${DEVICE:-cuda} WORKERS=${WORKERS:-5}
RUN="timeout $(python3 -c "print(int($MINUTES * 60 + 120))") python3 models/training/train_finder.py --device $DEVICE --workers $WORKERS --bf16 --steps 100000 --minutes $MINUTES --batch 32 --jpeg 0.3"

case ${1:-first} in
first)
    P="--packed data/pack3/finder.npz --init models/finder.onnx --lr 0.002"
    $RUN $P --close-share 0.25 --seed 21 --out data/runs/f11/finder.onnx > $OUT/f11.log 2>&1 &
    $RUN $P --close-share 0.4 --seed 22 --out data/runs/f12/finder.onnx > $OUT/f12.log 2>&1 &
    $RUN $P --close-share 0.15 --seed 23 --out data/runs/f13/finder.onnx > $OUT/f13.log 2>&1 &
    wait
    tar czf $OUT/finder-runs.tgz -C data runs/f11 runs/f12 runs/f13
    ;;
second)
    P="--packed data/pack4/finder.npz --init data/runs/$FROM/finder.pt --close-share 0.25"
    $RUN $P --lr 0.001 --seed 24 --out data/runs/f14/finder.onnx > $OUT/f14.log 2>&1 &
    $RUN $P --lr 0.002 --mix-stride 8 --seed 25 --out data/runs/f15/finder.onnx > $OUT/f15.log 2>&1 &
    wait
    tar czf $OUT/finder-runs2.tgz -C data runs/f14 runs/f15
    ;;
third)
    P="--packed data/pack4/finder.npz --init models/finder.onnx --lr 0.0015"
    $RUN $P --close-share 0.1 --scales 0.3 1.6 --seed 27 --out data/runs/f17/finder.onnx > $OUT/f17.log 2>&1 &
    $RUN $P --close-share 0.1 --scales 0.45 1.6 --seed 28 --out data/runs/f18/finder.onnx > $OUT/f18.log 2>&1 &
    $RUN $P --close-share 0.05 --scales 0.3 1.6 --seed 29 --out data/runs/f19/finder.onnx > $OUT/f19.log 2>&1 &
    wait
    tar czf $OUT/finder-runs3.tgz -C data runs/f17 runs/f18 runs/f19
    ;;
fourth)
    P="--packed data/pack3/finder.npz --init data/runs/$FROM/finder.pt --close-share 0.1 --scales 0.45 1.6"
    $RUN $P --lr 0.001 --seed 30 --out data/runs/f20/finder.onnx > $OUT/f20.log 2>&1 &
    $RUN $P --lr 0.0005 --seed 31 --out data/runs/f21/finder.onnx > $OUT/f21.log 2>&1 &
    wait
    tar czf $OUT/finder-runs4.tgz -C data runs/f20 runs/f21
    ;;
esac
