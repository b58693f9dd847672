//! Levenberg-Marquardt with a forward-difference Jacobian: the one non-linear solver of the
//! crate, used for the pose of one view and for intrinsics over several views.

use nalgebra::DVector;

/// Minimises the squared norm of `residuals(x)` from `start`. `steps` are the finite
/// difference steps, one per parameter, in the parameter's own unit.
pub(crate) fn minimise(
    start: DVector<f64>,
    steps: &[f64],
    iterations: usize,
    residuals: impl Fn(&DVector<f64>) -> DVector<f64>,
) -> DVector<f64> {
    let n = start.len();
    let mut x = start;
    let mut r = residuals(&x);
    let mut damping = 1e-3;
    for _ in 0..iterations {
        let mut jacobian = nalgebra::DMatrix::zeros(r.len(), n);
        for (k, &step) in steps.iter().enumerate().take(n) {
            let mut shifted = x.clone();
            shifted[k] += step;
            jacobian.set_column(k, &((residuals(&shifted) - &r) / step));
        }
        let jt = jacobian.transpose();
        let mut normal = &jt * &jacobian;
        for k in 0..n {
            // Marquardt's scaling, with a floor for parameters the data does not see.
            normal[(k, k)] = normal[(k, k)] * (1.0 + damping) + damping * 1e-9;
        }
        let Some(delta) = normal.lu().solve(&(-(&jt * &r))) else {
            break;
        };
        let candidate = &x + &delta;
        let candidate_r = residuals(&candidate);
        if candidate_r.norm_squared() < r.norm_squared() {
            let gain = r.norm_squared() - candidate_r.norm_squared();
            x = candidate;
            r = candidate_r;
            damping = (damping / 3.0).max(1e-12);
            if gain < 1e-12 * (1.0 + r.norm_squared()) {
                break;
            }
        } else {
            damping *= 4.0;
            if damping > 1e12 {
                break;
            }
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_a_curve() {
        // y = a * exp(b * t), sampled without noise.
        let samples: Vec<(f64, f64)> = (0..20)
            .map(|i| {
                let t = f64::from(i) / 10.0;
                (t, 2.5 * (-1.3 * t).exp())
            })
            .collect();
        let x = minimise(DVector::from_vec(vec![1.0, 0.0]), &[1e-6, 1e-6], 100, |p| {
            DVector::from_iterator(
                samples.len(),
                samples.iter().map(|(t, y)| p[0] * (p[1] * t).exp() - y),
            )
        });
        assert!(
            (x[0] - 2.5).abs() < 1e-5 && (x[1] + 1.3).abs() < 1e-5,
            "{x}"
        );
    }
}
