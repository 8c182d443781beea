//! Fixed-base scalar multiplication from precomputed tables (signed windows).
//!
//! For each base `B` and window `j` the table holds `k·2^(w·j)·B` for `k = 1..=2^(w-1)`,
//! in extended-affine form `(x, y, d·x·y)`. A scalar is split into signed digits
//! `d_j ∈ [-2^(w-1), 2^(w-1)]`, so a product costs one 8-multiplication mixed addition per
//! non-zero digit and no doublings.

use ark_ec::AdditiveGroup;
use ark_ed_on_bls12_381_bandersnatch::EdwardsProjective;
use ark_ff::PrimeField;

use crate::prepared::{add_prepared, add_signed, PreparedPoint};
use crate::{Element, Fr};

/// Precomputed multiples of a fixed list of bases.
#[derive(Clone)]
pub struct FixedBaseTable {
    window: u32,
    num_windows: usize,
    /// Flattened `[base][window][k - 1]`.
    points: Vec<PreparedPoint>,
}

impl std::fmt::Debug for FixedBaseTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FixedBaseTable")
            .field("bases", &self.num_bases())
            .field("window", &self.window)
            .field("bytes", &self.memory_bytes())
            .finish()
    }
}

/// Signed base-2^w digits of a scalar below 2^253, least significant first.
pub(crate) fn signed_digits(scalar: &Fr, window: u32, num_windows: usize, out: &mut Vec<i32>) {
    out.clear();
    let limbs = scalar.into_bigint().0;
    let w = window as usize;
    let mask = (1u64 << w) - 1;
    let half = 1i64 << (w - 1);
    let full = 1i64 << w;
    let mut carry = 0i64;
    for j in 0..num_windows {
        let start = j * w;
        let (limb, shift) = (start / 64, start % 64);
        let mut bits = match limbs.get(limb) {
            Some(l) => l >> shift,
            None => 0,
        };
        if shift + w > 64 {
            if let Some(next) = limbs.get(limb + 1) {
                bits |= next << (64 - shift);
            }
        }
        let mut v = (bits & mask) as i64 + carry;
        if v > half {
            v -= full;
            carry = 1;
        } else {
            carry = 0;
        }
        out.push(v as i32);
    }
}

impl FixedBaseTable {
    /// Builds tables with window `window` bits (2..=20) for each base.
    pub fn new(bases: &[Element], window: u32) -> Self {
        let window = window.clamp(2, 20);
        let num_windows = (253 + window as usize) / window as usize;
        let per_window = 1usize << (window - 1);
        // The window bases 2^(w·j)·B: one doubling chain per base (cheap, sequential).
        let mut window_bases = Vec::with_capacity(bases.len() * num_windows);
        for b in bases {
            let mut base = b.0;
            for _ in 0..num_windows {
                window_bases.push(base);
                for _ in 0..window {
                    base.double_in_place();
                }
            }
        }
        let window_bases = PreparedPoint::batch_from_projective(&window_bases);
        // Rows k·base for k = 1..=2^(w-1): independent, built in parallel, each normalised
        // with one inversion.
        let build_row = |base: &PreparedPoint| -> Vec<PreparedPoint> {
            let mut row = Vec::with_capacity(per_window);
            let mut acc = EdwardsProjective::ZERO;
            for _ in 0..per_window {
                add_prepared(&mut acc, base);
                row.push(acc);
            }
            PreparedPoint::batch_from_projective(&row)
        };
        // Plain scoped threads, not rayon: tables are often built inside a lazy
        // initialiser, and rayon workers blocked on that initialiser would deadlock a
        // rayon-parallel build.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let chunk = window_bases.len().div_ceil(threads.max(1)).max(1);
        let built: Vec<Vec<PreparedPoint>> = if threads <= 1 || window_bases.len() < 2 {
            window_bases.iter().map(build_row).collect()
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = window_bases
                    .chunks(chunk)
                    .map(|part| scope.spawn(move || part.iter().map(build_row).collect::<Vec<_>>()))
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| match h.join() {
                        Ok(rows) => rows,
                        Err(panic) => std::panic::resume_unwind(panic),
                    })
                    .collect()
            })
        };
        let points = built.into_iter().flatten().collect();
        FixedBaseTable {
            window,
            num_windows,
            points,
        }
    }

    /// How many bases the table covers.
    pub fn num_bases(&self) -> usize {
        self.points.len() / (self.num_windows * self.per_window())
    }

    /// The window width in bits.
    pub fn window(&self) -> u32 {
        self.window
    }

    fn per_window(&self) -> usize {
        1usize << (self.window - 1)
    }

    /// Bytes held by the tables.
    pub fn memory_bytes(&self) -> usize {
        self.points.len() * std::mem::size_of::<PreparedPoint>()
    }

    /// Adds `scalar·B_index` into `acc`. Panics if `index >= num_bases()`: indices come from
    /// the caller's fixed layout, never from input.
    pub fn accumulate(&self, acc: &mut Element, index: usize, scalar: &Fr, digits: &mut Vec<i32>) {
        signed_digits(scalar, self.window, self.num_windows, digits);
        let per_window = self.per_window();
        let base_off = index * self.num_windows * per_window;
        for (j, &d) in digits.iter().enumerate() {
            if d == 0 {
                continue;
            }
            let k = d.unsigned_abs() as usize - 1;
            add_signed(
                &mut acc.0,
                &self.points[base_off + j * per_window + k],
                d < 0,
            );
        }
    }

    /// `scalar·B_index`.
    pub fn mul(&self, index: usize, scalar: &Fr) -> Element {
        let mut acc = Element::identity();
        let mut digits = Vec::with_capacity(self.num_windows);
        self.accumulate(&mut acc, index, scalar, &mut digits);
        acc
    }

    /// `Σ scalars[i]·B_i` for `i < min(scalars.len(), num_bases())`; zero scalars cost nothing.
    pub fn msm(&self, scalars: &[Fr]) -> Element {
        let mut acc = Element(EdwardsProjective::ZERO);
        let mut digits = Vec::with_capacity(self.num_windows);
        for (i, s) in scalars.iter().take(self.num_bases()).enumerate() {
            self.accumulate(&mut acc, i, s, &mut digits);
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::{One, UniformRand, Zero};

    #[test]
    fn digits_recompose() {
        let mut rng = rand::thread_rng();
        for w in [2u32, 5, 8, 12, 16] {
            let nw = (253 + w as usize) / w as usize;
            let mut d = Vec::new();
            for s in [Fr::zero(), Fr::one(), -Fr::one(), Fr::rand(&mut rng)] {
                signed_digits(&s, w, nw, &mut d);
                let mut acc = Fr::zero();
                let radix = Fr::from(1u64 << w);
                for &x in d.iter().rev() {
                    acc = acc * radix
                        + if x < 0 {
                            -Fr::from((-x) as u64)
                        } else {
                            Fr::from(x as u64)
                        };
                }
                assert_eq!(acc, s, "w={w}");
            }
        }
    }

    #[test]
    fn table_matches_scalar_mul() {
        let mut rng = rand::thread_rng();
        let bases: Vec<Element> = (0..3)
            .map(|_| Element::generator() * Fr::rand(&mut rng))
            .collect();
        for w in [4u32, 8] {
            let t = FixedBaseTable::new(&bases, w);
            assert_eq!(t.num_bases(), 3);
            let sc: Vec<Fr> = (0..3).map(|_| Fr::rand(&mut rng)).collect();
            let expect: Element = bases.iter().zip(&sc).map(|(b, s)| *b * *s).sum();
            assert_eq!(t.msm(&sc), expect);
            assert_eq!(t.mul(1, &-Fr::one()), -bases[1]);
        }
    }
}
