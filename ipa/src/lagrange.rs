//! Polynomials in evaluation form over the domain `{0, 1, …, 255}`.
//!
//! `A(X) = Π_j (X − j)`, `A'(i) = Π_{j≠i} (i − j)`. Outside the domain the Lagrange basis is
//! evaluated barycentrically, `L_i(z) = A(z) / (A'(i)·(z − i))`; inside it, `L_i(k) = [i = k]`.

use crate::prelude::*;

use banderwagon::once::Once as OnceLock;

use ark_ff::{batch_inversion, Field, One, PrimeField, Zero};
use banderwagon::Fr;

/// Domain size (the Verkle width).
pub const DOMAIN_SIZE: usize = 256;

/// Precomputed barycentric weights for the 256-point domain.
#[derive(Clone, Debug)]
pub struct PrecomputedWeights {
    /// `A'(i)`.
    barycentric: Vec<Fr>,
    /// `1 / A'(i)`.
    barycentric_inv: Vec<Fr>,
    /// `1 / k` for `k = 1..255` at index `k`, and `1 / -k` at index `255 + k`.
    inverted_domain: Vec<Fr>,
}

/// `v[i] ← 1 / v[i]` (every entry non-zero) with one inversion, on the calling thread. The
/// lazy tables (these weights, the CRS's affine generators) are built inside initialisers,
/// where arkworks' rayon-parallel batch inversion could deadlock the pool (the worker
/// holding the initialiser may steal a job that waits on it).
pub(crate) fn invert_serial<F: Field>(v: &mut [F]) {
    let mut prefix = Vec::with_capacity(v.len());
    let mut acc = F::one();
    for x in v.iter() {
        prefix.push(acc);
        acc *= x;
    }
    let mut inv = acc
        .inverse()
        .expect("the callers invert non-zero values only (projective Z, domain differences)");
    for (x, before) in v.iter_mut().zip(&prefix).rev() {
        let x_inv = inv * before;
        inv *= *x;
        *x = x_inv;
    }
}

impl PrecomputedWeights {
    /// Builds the weights (a few hundred field operations).
    pub fn new() -> Self {
        let n = DOMAIN_SIZE;
        let mut barycentric = Vec::with_capacity(n);
        for i in 0..n {
            let mut acc = Fr::one();
            let fi = Fr::from(i as u64);
            for j in 0..n {
                if j != i {
                    acc *= fi - Fr::from(j as u64);
                }
            }
            barycentric.push(acc);
        }
        let mut barycentric_inv = barycentric.clone();
        invert_serial(&mut barycentric_inv);
        let mut inverted_domain = vec![Fr::zero(); 2 * n - 1];
        for k in 1..n {
            inverted_domain[k] = Fr::from(k as u64);
            inverted_domain[n - 1 + k] = -Fr::from(k as u64);
        }
        invert_serial(&mut inverted_domain[1..]);
        PrecomputedWeights {
            barycentric,
            barycentric_inv,
            inverted_domain,
        }
    }

    /// The shared instance.
    pub fn get() -> &'static PrecomputedWeights {
        static W: OnceLock<PrecomputedWeights> = OnceLock::new();
        W.get_or_init(PrecomputedWeights::new)
    }

    /// `1 / d` for a non-zero `d ∈ (−256, 256)`.
    fn inv_domain_diff(&self, d: i32) -> Fr {
        if d > 0 {
            self.inverted_domain[d as usize]
        } else {
            self.inverted_domain[DOMAIN_SIZE - 1 + (-d) as usize]
        }
    }

    /// `L_i(z)` for all `i`: the vector `b` with `<f, b> = f(z)`.
    pub fn lagrange_at(&self, z: &Fr) -> Vec<Fr> {
        if let Some(k) = in_domain(z) {
            let mut v = vec![Fr::zero(); DOMAIN_SIZE];
            v[k] = Fr::one();
            return v;
        }
        let mut a_z = Fr::one();
        let mut diffs: Vec<Fr> = (0..DOMAIN_SIZE)
            .map(|i| {
                let d = *z - Fr::from(i as u64);
                a_z *= d;
                d
            })
            .collect();
        batch_inversion(&mut diffs);
        diffs
            .iter()
            .zip(&self.barycentric_inv)
            .map(|(inv_d, w)| a_z * w * inv_d)
            .collect()
    }

    /// `f(z)` for `f` in evaluation form.
    pub fn evaluate(&self, f: &[Fr], z: &Fr) -> Fr {
        inner_product(f, &self.lagrange_at(z))
    }

    /// `q(X) = (f(X) − f(k)) / (X − k)` in evaluation form, for a domain point `k`.
    pub fn divide_on_domain(&self, k: usize, f: &[Fr]) -> Vec<Fr> {
        let mut q = vec![Fr::zero(); DOMAIN_SIZE];
        self.divide_on_domain_into(k, f, &mut q);
        q
    }

    /// Adds `(f(X) − f(k)) / (X − k)` into `out`.
    pub fn divide_on_domain_into(&self, k: usize, f: &[Fr], out: &mut [Fr]) {
        let y = f[k];
        let mut qk = Fr::zero();
        for i in 0..DOMAIN_SIZE {
            if i == k {
                continue;
            }
            let qi = (f[i] - y) * self.inv_domain_diff(i as i32 - k as i32);
            out[i] += qi;
            // Σ_i q_i / A'(i) = 0 since deg q < 255, so q_k = −A'(k)·Σ_{i≠k} q_i / A'(i).
            qk += qi * self.barycentric_inv[i];
        }
        out[k] -= qk * self.barycentric[k];
    }
}

impl Default for PrecomputedWeights {
    fn default() -> Self {
        Self::new()
    }
}

/// `Some(k)` when `z` is the domain point `k < 256`.
pub fn in_domain(z: &Fr) -> Option<usize> {
    let b = z.into_bigint();
    if b.0[1] == 0 && b.0[2] == 0 && b.0[3] == 0 && b.0[0] < DOMAIN_SIZE as u64 {
        Some(b.0[0] as usize)
    } else {
        None
    }
}

/// `Σ a_i·b_i`.
pub fn inner_product(a: &[Fr], b: &[Fr]) -> Fr {
    a.iter().zip(b).fold(Fr::zero(), |acc, (x, y)| acc + *x * y)
}

/// Exponentiation helper used by tests and provers: `base^e`.
pub fn pow(base: &Fr, e: u64) -> Fr {
    base.pow([e])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_inversion_inverts_each_entry() {
        let mut v: Vec<Fr> = (1u64..300).map(|k| Fr::from(k * k + 7)).collect();
        let orig = v.clone();
        invert_serial(&mut v);
        for (x, y) in orig.iter().zip(&v) {
            assert_eq!(*x * y, Fr::one());
        }
    }
    use ark_ff::UniformRand;

    /// f(X) = X² + 3 in evaluation form.
    fn quad() -> Vec<Fr> {
        (0..256u64).map(|i| Fr::from(i * i + 3)).collect()
    }

    #[test]
    fn barycentric_matches_polynomial() {
        let w = PrecomputedWeights::new();
        let mut rng = rand::thread_rng();
        let z = Fr::rand(&mut rng);
        assert_eq!(w.evaluate(&quad(), &z), z * z + Fr::from(3u64));
        assert_eq!(w.evaluate(&quad(), &Fr::from(13u64)), Fr::from(172u64));
    }

    #[test]
    fn division_on_domain() {
        let w = PrecomputedWeights::new();
        // (X² + 3 − (k² + 3)) / (X − k) = X + k.
        for k in [0usize, 7, 255] {
            let q = w.divide_on_domain(k, &quad());
            for (i, qi) in q.iter().enumerate() {
                assert_eq!(*qi, Fr::from((i + k) as u64), "k={k} i={i}");
            }
        }
    }
}
