//! Where tract spends its time on an ONNX file: each node's mean time over 50 runs on
//! one input of zeros, the slowest first, for choosing layers that tract runs fast.
//! Run: `cargo run --release -p tablesight-vision --example profile_models -- models/finder.onnx 1x3x288x512`
//! The plan is the one `DiceReader` makes (`vision::tract_plan`, which turns tract's direct
//! spatial convolution off); tract's other knobs apply through the environment, e.g.
//! `TRACT_X86_KIND=amd`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use tract_onnx::prelude::*;
use tract_onnx::tract_core::plan::{SimpleState, eval};

const RUNS: usize = 50;
const WARM_UP: usize = 5;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, shape] = args.as_slice() else {
        eprintln!("usage: profile_models MODEL.onnx NxCxHxW");
        std::process::exit(2);
    };
    let shape: Vec<usize> = shape.split('x').map(|s| s.parse().unwrap()).collect();
    let shape: [usize; 4] = shape.try_into().expect("four dimensions");
    let onnx = std::fs::read(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    // The plan `DiceReader` makes, with its tract settings.
    let plan = vision::tract_plan(&onnx, file, shape).unwrap_or_else(|e| panic!("{file}: {e}"));
    let input = Tensor::zero::<f32>(&shape).unwrap();
    let mut state = SimpleState::new(&plan).unwrap();
    let mut times = vec![0f64; plan.model().nodes().len()];
    for run in 0..WARM_UP + RUNS {
        state
            .run_plan_with_eval(
                tvec![input.clone().into()],
                |context, op_state, node, inputs| {
                    let start = Instant::now();
                    let outputs = eval(context, op_state, node, inputs);
                    if run >= WARM_UP {
                        times[node.id] += start.elapsed().as_secs_f64() * 1e3 / RUNS as f64;
                    }
                    outputs
                },
            )
            .unwrap();
    }
    let total: f64 = times.iter().sum();
    let mut slowest: Vec<usize> = (0..times.len()).collect();
    slowest.sort_by(|&a, &b| times[b].total_cmp(&times[a]));
    for id in slowest
        .into_iter()
        .take_while(|&id| times[id] > 0.01 * total)
    {
        let node = plan.model().node(id);
        let shape = plan
            .model()
            .outlet_fact(OutletId::new(id, 0))
            .map(|fact| format!("{:?}", fact.shape))
            .unwrap_or_default();
        println!(
            "{:7.3} ms {:5.1} %  {} ({}) -> {shape}",
            times[id],
            100.0 * times[id] / total,
            node.name,
            node.op().name(),
        );
    }
    println!("{total:.3} ms a run in all");
}
