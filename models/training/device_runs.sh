#!/usr/bin/env bash
# Reader runs trained side by side on one GPU by the device tool (an H200 with 16 cores):
# each run augments its batches in worker processes (--workers) and trains on the GPU
# (--device cuda) for $MINUTES by the clock. The crops travel packed by pack_crops.py (its
# docstring has the commands) in data/pack and data/pack2, each carried by a call of its
# own; each run writes data/runs/NAME/, its log lands in $OUT and a tarball of the runs too.
#   first: (an eleventh session) without byler-d6, from scratch, without and with the new
#          looks (loo3, loo4); reader 21 trained on with every dataset, without and with
#          them (runs 22, 23);
#   mined: (a seventeenth session) hard negatives (mine_negatives.py, in data/pack5, carried
#          with data/pack2): reader 24 (shipped) trained on without and with them (runs
#          27, 28), and without byler-d6, from scratch, without and with them (loo9, loo10);
#   wide:  (a thirty-third session) is a wider reader worth its time? Reader 31 trained on
#          as it is (x16) and widened to 24 channels (x24, `widened` in common.py), on the
#          rendered scenes of data/synth8 and data/synth9 (1,500 scenes; the packs of
#          pack_crops.py's docstring in data/pack, data/pack2, data/pack3, each carried by a
#          call of its own), and without byler-d6 from scratch at widths 16 and 24 (loo16,
#          loo24: dice nobody here has seen).
#   sheets: (a thirty-eighth session) reader 32 (shipped, trained with the duotone) widened to
#          24 channels, twice with other seeds (w24a, w24b; averaged afterwards by
#          average_readers.py), and to 32 (w32); and a leave-out run from scratch at width
#          24 with the duotone (L24t: dice nobody here has seen). Every rendered and real
#          training crop, rune55-dice's too, packed in JPEG sheets (pack_crops.py) in data/pack
#          (the real crops) and data/pack2 (the rendered ones), each carried by a call.
#   sheets-on: then, on the same machine, w24a and w32 trained on at half the learning rate,
#          seven worker processes each (w24c, w32b; their outputs straight into $OUT).
#   ablate: (planned in the thirty-ninth session, not run yet; width 16 answered on a CPU
#          in the forty-third, run L16c: three points worse on new dice) what made L24t read
#          the dice nobody here has seen best, and whether more width reads them better
#          still: from scratch without byler-d6 at widths 24 and 32, without and with the
#          duotone (L24, L32, L32t), and L24t again with another seed (L24u: how far two
#          runs of one recipe differ). The data of `sheets`, carried the same way. L24u
#          (forty-sixth session, committed as models/leave-out) and L32t (forty-seventh)
#          have since run on the CPU; a GPU run of them is a second seed of each.
#   next:  (planned in the fifty-fourth session, not run yet) on the rendered scenes of sprites
#          v6 too (data/pack2/synth12-train.npz, scripts/make-data --training): a shipping
#          reader of reader 32's recipe from scratch on every dataset at widths 24 and 32
#          (r24, r32), to be held to reader 33 on the validation sets; a reader of S32's
#          work (its first convolution stepping by two, for the whole frame's 30 ms) taught
#          by reader 33 on every dataset (s32); and, to tell whether teaching closes what
#          stepping by two loses on dice nobody here has seen, S32's leave-out run to its
#          9,013 steps taught by the committed leave-out reader L24u (S32e).
#
# Run from the repository root, on a machine with a GPU and PyTorch:
#   MINUTES=6.5 OUT=/tmp/out bash models/training/device_runs.sh first
#   MINUTES=6.5 OUT=/tmp/out bash models/training/device_runs.sh mined
#   MINUTES=8 OUT=/tmp/out bash models/training/device_runs.sh wide
#   MINUTES=7.5 OUT=/tmp/out bash models/training/device_runs.sh sheets
#   MINUTES=3.8 OUT=/tmp/out bash models/training/device_runs.sh sheets-on
#   MINUTES=7.5 OUT=/tmp/out bash models/training/device_runs.sh ablate
#   MINUTES=6.5 OUT=/tmp/out bash models/training/device_runs.sh next
# (DEVICE=cpu WORKERS=1 MINUTES=0.3 tries it on a CPU.)
set -uo pipefail
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
MINUTES=${MINUTES:-6.5} DEVICE=${DEVICE:-cuda} WORKERS=${WORKERS:-3}
REAL="data/pack/real.npz"
SYNTH="data/pack2/synth4-train.npz data/pack/synth4-train-b-0.npz data/pack2/synth4-train-b-1.npz"
S="--real $REAL --synth $SYNTH"
W="--synth-val data/pack/synth4-val.npz --small-share 0.25 --real-share 0.55 --jpeg-share 0.5 --unsure-covered"
NEW="--polarity-share 0.25 --swirl-share 0.3"
TRAIN="timeout $(python3 -c "print(int($MINUTES * 60 + 180))") python3 models/training/train_reader.py --device $DEVICE --bf16 --width 16 --steps 100000 --minutes $MINUTES --eval-every 1000 $W"

# run NAME ARGUMENTS...: one run in the background, into data/runs/NAME, its log in $OUT.
run() {
    local name=$1
    shift
    $TRAIN "$@" --out data/runs/$name/reader.onnx > $OUT/$name.log 2>&1 &
}

case ${1:-first} in
first)
    # Dice nobody here has seen: without byler-d6, from scratch, without and with the new looks.
    LOO="$S --leave-out byler-d6 --source-weight matteop65-d6-webcam=2 --lr 0.003 --seed 41 --workers $((WORKERS + 1))"
    run loo3 $LOO
    run loo4 $LOO $NEW
    # The shipped reader (run 21) trained on with every dataset, without and with the new looks.
    ALL="$S --init models/reader.onnx --source-weight byler-d6=4 matteop65-d6-webcam=2 --real-colours --lr 0.001 --seed 42 --workers $WORKERS"
    run r22 $ALL
    run r23 $ALL $NEW
    wait
    tar czf $OUT/runs.tgz -C data runs
    ;;
mined)
    # Hard negatives: the false items of the shipped finder and reader on the training
    # pictures, cut as the reader's "nothing" (mine_negatives.py; packed in data/pack5).
    NEG="--real $REAL data/pack5/real-negatives.npz --synth $SYNTH data/pack5/synth-negatives.npz"
    ALL="--init models/reader.onnx --source-weight byler-d6=4 matteop65-d6-webcam=2 --real-colours --lr 0.001 --seed 62 --workers $WORKERS $NEW"
    run r27 $S $ALL
    run r28 $NEG $ALL
    LOO="--leave-out byler-d6 --source-weight matteop65-d6-webcam=2 --lr 0.003 --seed 63 --workers $WORKERS $NEW"
    run loo9 $S $LOO
    run loo10 $NEG $LOO
    wait
    tar czf $OUT/runs-mined.tgz -C data runs/r27 runs/r28 runs/loo9 runs/loo10
    ;;
wide)
    # Reader 31's recipe (models/HISTORY.md, the twenty-seventh and twenty-ninth sessions).
    REAL="data/pack/real.npz"
    SYNTH="data/pack2/synth8-train.npz data/pack/synth8-train-b.npz data/pack2/synth9-train-0.npz data/pack3/synth9-train-1.npz"
    # $TRAIN's $W holds the shares; the rendered validation crops are synth8's now.
    R="--real $REAL --synth $SYNTH --synth-val data/pack/synth8-val.npz $NEW --upright-tilt 20 --workers $WORKERS"
    ALL="$R --init models/reader.onnx --source-weight byler-d6=4 matteop65-d6-webcam=2 --real-colours --lr 0.0007 --seed 120"
    run x16 $ALL --width 16
    run x24 $ALL --width 24
    LOO="$R --leave-out byler-d6 --source-weight matteop65-d6-webcam=2 --lr 0.003 --seed 121"
    run loo16 $LOO --width 16
    run loo24 $LOO --width 24
    wait
    tar czf $OUT/runs-wide.tgz -C data runs/x16 runs/x24 runs/loo16 runs/loo24
    ;;
sheets | sheets-on | ablate)
    # Reader 32's recipe (models/HISTORY.md, the thirty-fifth session), the duotone included.
    SYNTH="data/pack2/synth8-train.npz data/pack2/synth8-train-b.npz data/pack2/synth9-train.npz"
    R0="--real data/pack/real.npz --synth $SYNTH --synth-val data/pack2/synth8-val.npz $NEW --upright-tilt 20"
    R="$R0 --tint-share 0.25"
    KNOWN="--source-weight byler-d6=4 matteop65-d6-webcam=2 --real-colours"
    LOO="--workers $WORKERS --leave-out byler-d6 --source-weight matteop65-d6-webcam=2 --lr 0.003"
    if [[ $1 == ablate ]]; then
        run L24 $R0 $LOO --seed 392 --width 24
        run L24u $R $LOO --seed 393 --width 24
        run L32 $R0 $LOO --seed 394 --width 32
        run L32t $R $LOO --seed 395 --width 32
        wait
        tar czf $OUT/runs-ablate.tgz -C data runs/L24 runs/L24u runs/L32 runs/L32t
    elif [[ $1 == sheets ]]; then
        ALL="$R --workers $WORKERS --init models/reader.onnx $KNOWN --lr 0.0007"
        run w24a $ALL --width 24 --seed 380
        run w24b $ALL --width 24 --seed 381
        run w32 $ALL --width 32 --seed 382
        run L24t $R $LOO --seed 383 --width 24
        wait
        tar czf $OUT/runs-sheets.tgz -C data runs/w24a runs/w24b runs/w32 runs/L24t
    else
        # Two runs trained on, seven workers each (three held the first runs back).
        ON="$R --workers 7 $KNOWN --lr 0.00035"
        $TRAIN $ON --init data/runs/w24a/reader.pt --width 24 --seed 384 --out $OUT/w24c/reader.onnx > $OUT/w24c.log 2>&1 &
        $TRAIN $ON --init data/runs/w32/reader.pt --width 32 --seed 385 --out $OUT/w32b/reader.onnx > $OUT/w32b.log 2>&1 &
        wait
    fi
    ;;
next)
    # Reader 32's recipe as L24v and S32 ran it (models/HISTORY.md, the fifty-first and
    # fifty-second sessions), the scenes of sprites v6 among the rendered ones.
    SYNTH="data/pack2/synth8-train.npz data/pack2/synth8-train-b.npz data/pack2/synth12-train.npz"
    R="--real data/pack/real.npz --synth $SYNTH --synth-val data/pack2/synth8-val.npz $NEW --upright-tilt 20 --tint-share 0.25 --workers $WORKERS"
    ALL="$R --source-weight byler-d6=4 matteop65-d6-webcam=2 --real-colours --lr 0.003"
    STEP2="--stem-stride 2 --width 32"
    run r24 $ALL --width 24 --seed 540
    run r32 $ALL --width 32 --seed 541
    run s32 $ALL $STEP2 --teacher models/reader.onnx --seed 542
    run S32e $R $STEP2 --leave-out byler-d6 --source-weight matteop65-d6-webcam=2 --lr 0.003 \
        --teacher models/leave-out/reader.onnx --steps 9013 --seed 393
    wait
    tar czf $OUT/runs-next.tgz -C data runs/r24 runs/r32 runs/s32 runs/S32e
    ;;
esac
