//! Fixed-base multi-scalar multiplication: the bucket method over precomputed window shifts.
//!
//! For bases `B_i` and a window of `c` bits the table holds `2^(c·j)·B_i` for every window
//! `j` (a few hundred KiB for 257 bases). With signed digits `d_ij` of the scalars,
//! `Σ s_i·B_i = Σ_k k·(Σ_{|d_ij| = k} sign(d_ij)·2^(c·j)·B_i)`: one pass that adds each table
//! point into the bucket of its digit (one 8-multiplication mixed addition per non-zero digit,
//! no doublings), then the buckets' running sum. With the `parallel` feature the bucket
//! range is split between two rayon tasks.

use crate::prelude::*;

use ark_ec::AdditiveGroup;
use ark_ed_on_bls12_381_bandersnatch::EdwardsProjective;
use ark_ff::Zero;

use crate::field::{with_field_mul, FieldMul};
use crate::fixed_base::signed_digits;
use crate::msm::bucket_sums;
use crate::prepared::{add_signed, PreparedPoint};
use crate::{Element, Fr};

/// Below this many digits the whole computation stays on one thread.
#[cfg(feature = "parallel")]
const PARALLEL_DIGITS: usize = 1024;

/// Precomputed window shifts `2^(c·j)·B_i` of a fixed list of bases, for dense
/// multi-scalar multiplications.
#[derive(Clone)]
pub struct FixedBaseMsm {
    window: u32,
    num_windows: usize,
    /// Flattened `[base][window]`.
    points: Vec<PreparedPoint>,
}

impl core::fmt::Debug for FixedBaseMsm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FixedBaseMsm")
            .field("bases", &self.num_bases())
            .field("window", &self.window)
            .field("bytes", &self.memory_bytes())
            .finish()
    }
}

impl FixedBaseMsm {
    /// The window width that minimises the work for about 256 bases.
    pub const DEFAULT_WINDOW: u32 = 10;

    /// Builds the shifts of `bases` for windows of `window` bits (clamped to 2..=16).
    ///
    /// Costs `253 + window` doublings per base, spread over scoped threads (not rayon, so
    /// that building inside a lazy initialiser run from a rayon task cannot deadlock).
    pub fn new(bases: &[Element], window: u32) -> Self {
        let window = window.clamp(2, 16);
        let num_windows = (253 + window as usize) / window as usize;
        let shifts_of = |b: &Element| -> Vec<EdwardsProjective> {
            let mut out = Vec::with_capacity(num_windows);
            let mut p = b.0;
            for _ in 0..num_windows {
                out.push(p);
                for _ in 0..window {
                    p.double_in_place();
                }
            }
            out
        };
        let threads = crate::threads::available();
        let shifted: Vec<EdwardsProjective> = if threads <= 1 || bases.len() < 8 {
            bases.iter().flat_map(shifts_of).collect()
        } else {
            let chunk = bases.len().div_ceil(threads);
            crate::threads::map_chunks(bases, chunk, |part| {
                part.iter().flat_map(shifts_of).collect()
            })
        };
        FixedBaseMsm {
            window,
            num_windows,
            points: PreparedPoint::batch_from_projective(&shifted),
        }
    }

    /// How many bases the table covers.
    pub fn num_bases(&self) -> usize {
        self.points.len() / self.num_windows
    }

    /// The window width in bits.
    pub fn window(&self) -> u32 {
        self.window
    }

    /// Bytes held by the table.
    pub fn memory_bytes(&self) -> usize {
        self.points.len() * core::mem::size_of::<PreparedPoint>()
    }

    /// `Σ scalars[i]·B_i` for `i < min(scalars.len(), num_bases())`, variable time.
    pub fn msm(&self, scalars: &[Fr]) -> Element {
        let n = scalars.len().min(self.num_bases());
        let nw = self.num_windows;
        let mut digits = vec![0i32; n * nw];
        let mut scratch = Vec::with_capacity(nw);
        for (s, out) in scalars[..n].iter().zip(digits.chunks_exact_mut(nw)) {
            if s.is_zero() {
                continue;
            }
            signed_digits(s, self.window, nw, &mut scratch);
            out.copy_from_slice(&scratch);
        }
        let top = 1u32 << (self.window - 1);
        #[cfg(feature = "parallel")]
        if digits.len() >= PARALLEL_DIGITS {
            // Digit magnitudes are close to uniform, so halving the range halves the work.
            let mid = top / 2;
            let (a, b) = rayon::join(
                || self.bucket_range(&digits, 1, mid),
                || self.bucket_range(&digits, mid + 1, top),
            );
            return Element(a + b);
        }
        Element(self.bucket_range(&digits, 1, top))
    }

    /// `Σ_{lo ≤ |d| ≤ hi} d·P(d)` over the digits whose magnitude lies in `lo..=hi`.
    fn bucket_range(&self, digits: &[i32], lo: u32, hi: u32) -> EdwardsProjective {
        with_field_mul!(|m| self.bucket_range_with(m, digits, lo, hi))
    }

    fn bucket_range_with<M: FieldMul>(
        &self,
        m: M,
        digits: &[i32],
        lo: u32,
        hi: u32,
    ) -> EdwardsProjective {
        let mut buckets = vec![EdwardsProjective::zero(); (hi - lo + 1) as usize];
        for (d, p) in digits.iter().zip(&self.points) {
            let mag = d.unsigned_abs();
            if mag < lo || mag > hi {
                continue;
            }
            add_signed(m, &mut buckets[(mag - lo) as usize], p, *d < 0);
        }
        // Σ_k k·B_k = Σ_k (k − lo + 1)·B_k + (lo − 1)·Σ_k B_k, the first by a running sum.
        let (mut acc, running) = bucket_sums(m, &buckets);
        if lo > 1 {
            acc += running * Fr::from(u64::from(lo - 1));
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::{One, UniformRand};
    use rand::SeedableRng;

    /// The assembly and portable backends give identical bucket sums.
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    #[test]
    #[cfg_attr(
        not(build_host_has_adx),
        ignore = "the build machine has no BMI2/ADX: the assembly path is not tested"
    )]
    fn backends_agree() {
        let Some(adx) = crate::field::Adx::detect() else {
            return;
        };
        let mut rng = rand::rngs::StdRng::seed_from_u64(12);
        let bases: Vec<Element> = (0..30)
            .map(|_| Element::generator() * Fr::rand(&mut rng))
            .collect();
        let t = FixedBaseMsm::new(&bases, 5);
        let mut digits = Vec::new();
        let mut scratch = Vec::new();
        for _ in 0..30 {
            signed_digits(&Fr::rand(&mut rng), 5, t.num_windows, &mut scratch);
            digits.extend_from_slice(&scratch);
        }
        for (lo, hi) in [(1, 16), (1, 8), (9, 16)] {
            let a = t.bucket_range_with(adx, &digits, lo, hi);
            let b = t.bucket_range_with(crate::field::Portable, &digits, lo, hi);
            assert_eq!((a.x, a.y, a.t, a.z), (b.x, b.y, b.t, b.z));
        }
    }

    #[test]
    fn bucket_msm_matches_naive() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let bases: Vec<Element> = (0..40)
            .map(|_| Element::generator() * Fr::rand(&mut rng))
            .collect();
        for w in [3u32, 8, 10] {
            let t = FixedBaseMsm::new(&bases, w);
            assert_eq!(t.num_bases(), 40);
            for n in [0usize, 1, 5, 40, 50] {
                let mut sc: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
                if n > 3 {
                    sc[1] = Fr::zero();
                    sc[2] = -Fr::one();
                    sc[3] = Fr::from(1u64 << (w - 1));
                }
                let expect: Element = bases.iter().zip(&sc).map(|(b, s)| *b * *s).sum();
                assert_eq!(t.msm(&sc), expect, "w = {w}, n = {n}");
            }
        }
    }
}
