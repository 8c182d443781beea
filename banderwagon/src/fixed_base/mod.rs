//! Fixed-base scalar multiplication from precomputed tables (signed windows).
//!
//! For each base `B` and window `j` the table holds `k·2^(w·j)·B` for `k = 1..=2^(w-1)`,
//! in extended-affine form `(x, y, d·x·y)`. A scalar is split into signed digits
//! `d_j ∈ [-2^(w-1), 2^(w-1)]`, so a product costs one 8-multiplication mixed addition per
//! non-zero digit and no doublings.

use crate::prelude::*;

use ark_ec::AdditiveGroup;
use ark_ed_on_bls12_381_bandersnatch::EdwardsProjective;
use ark_ff::PrimeField;

use crate::field::{with_field_mul, FieldMul};
use crate::prepared::{add_prepared, add_signed, from_signed, PreparedPoint};
use crate::{Element, Fr};

#[cfg(all(target_arch = "x86_64", feature = "asm"))]
pub(crate) mod lanes;

/// Precomputed multiples of a fixed list of bases.
#[derive(Clone)]
pub struct FixedBaseTable {
    window: u32,
    num_windows: usize,
    /// Scalars below `2^scalar_bits` are covered (253: every scalar).
    scalar_bits: u32,
    /// Flattened `[base][window][k - 1]`.
    points: Vec<PreparedPoint>,
}

impl core::fmt::Debug for FixedBaseTable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FixedBaseTable")
            .field("bases", &self.num_bases())
            .field("window", &self.window)
            .field("bytes", &self.memory_bytes())
            .finish()
    }
}

/// One signed digit from a window's `bits` and the incoming carry: above `half` (2^(w−1))
/// it becomes `bits − full` (2^w) and carries one into the next window.
#[inline]
fn recode(bits: i64, carry: &mut i64, half: i64, full: i64) -> i32 {
    let v = bits + *carry;
    if v > half {
        *carry = 1;
        (v - full) as i32
    } else {
        *carry = 0;
        v as i32
    }
}

/// Signed base-2^w digits of a scalar below 2^253, least significant first.
///
/// A scalar above `(r − 1)/2` is recoded as `−(r − scalar)`: the group has order `r`, so
/// the negated digits of the smaller magnitude give the same product. A small negative
/// delta (`new − old` of two 16-byte value halves) then has as few non-zero digits as a
/// small positive one instead of a full 253-bit expansion.
pub(crate) fn signed_digits(scalar: &Fr, window: u32, num_windows: usize, out: &mut Vec<i32>) {
    out.clear();
    let big = scalar.into_bigint();
    let negate = big > Fr::MODULUS_MINUS_ONE_DIV_TWO;
    let limbs = if negate {
        (-*scalar).into_bigint().0
    } else {
        big.0
    };
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
        out.push(recode((bits & mask) as i64, &mut carry, half, full));
    }
    if negate {
        for d in out.iter_mut() {
            *d = -*d;
        }
    }
}

/// Signed base-2^w digits of a 128-bit integer, least significant first, stopping after
/// the last non-zero digit (at most `num_windows`, which covers 253 bits).
pub(crate) fn signed_digits_u128(value: u128, window: u32, num_windows: usize, out: &mut Vec<i32>) {
    out.clear();
    let w = window as usize;
    let mask = (1u128 << w) - 1;
    let half = 1i64 << (w - 1);
    let full = 1i64 << w;
    let mut rest = value;
    let mut carry = 0i64;
    for _ in 0..num_windows {
        if rest == 0 && carry == 0 {
            break;
        }
        out.push(recode((rest & mask) as i64, &mut carry, half, full));
        rest >>= w;
    }
}

/// Table positions of some fixed-base products, resolved before any addition (see
/// [`FixedBaseTable::lookup`]); reusable across calls to avoid allocations.
#[derive(Clone, Debug, Default)]
pub struct Lookups {
    /// `(position in the table, negated)` per non-zero digit.
    entries: Vec<(u32, bool)>,
    digits: Vec<i32>,
}

// Only the sibling crates call some of these (`internal` feature).
#[cfg_attr(not(feature = "internal"), allow(dead_code))]
impl Lookups {
    /// Room for `entries` table positions without reallocating.
    pub fn with_capacity(entries: usize) -> Self {
        Lookups {
            entries: Vec::with_capacity(entries),
            digits: Vec::with_capacity(32),
        }
    }

    /// Forgets all positions (keeps the allocation).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// How many table entries (additions) are pending.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entry is pending.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl FixedBaseTable {
    /// Builds tables with window `window` bits (2..=20) for each base.
    pub fn new(bases: &[Element], window: u32) -> Self {
        Self::with_scalar_bits(bases, window, 253)
    }

    /// Builds tables covering only scalars below `2^scalar_bits` (`scalar_bits` clamped to
    /// 1..=253): `⌈(scalar_bits + 1)/window⌉` windows per base instead of `⌈254/window⌉`.
    /// With `scalar_bits < 253` only [`FixedBaseTable::lookup_u128`] may be used, and only
    /// for values below `2^scalar_bits`; the methods taking an [`Fr`] panic.
    pub fn with_scalar_bits(bases: &[Element], window: u32, scalar_bits: u32) -> Self {
        let window = window.clamp(2, 20);
        let scalar_bits = scalar_bits.clamp(1, 253);
        let num_windows = (scalar_bits as usize + window as usize) / window as usize;
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
            with_field_mul!(|m| for _ in 0..per_window {
                add_prepared(m, &mut acc, base);
                row.push(acc);
            });
            PreparedPoint::batch_from_projective(&row)
        };
        // Plain scoped threads, not rayon: tables are often built inside a lazy
        // initialiser, and rayon workers blocked on that initialiser would deadlock a
        // rayon-parallel build.
        let threads = crate::threads::available();
        let chunk = window_bases.len().div_ceil(threads.max(1)).max(1);
        let built: Vec<Vec<PreparedPoint>> = if threads <= 1 || window_bases.len() < 2 {
            window_bases.iter().map(build_row).collect()
        } else {
            crate::threads::map_chunks(&window_bases, chunk, |part| {
                part.iter().map(build_row).collect()
            })
        };
        let points = built.into_iter().flatten().collect();
        FixedBaseTable {
            window,
            num_windows,
            scalar_bits,
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

    /// The table position and sign of the non-zero signed digit `d` of window `j`, for the
    /// base whose rows start at `base_off` (`per_window` entries per window).
    #[inline]
    fn entry(base_off: usize, per_window: usize, j: usize, d: i32) -> (usize, bool) {
        (
            base_off + j * per_window + d.unsigned_abs() as usize - 1,
            d < 0,
        )
    }

    /// Bytes held by the tables.
    pub fn memory_bytes(&self) -> usize {
        self.points.len() * core::mem::size_of::<PreparedPoint>()
    }

    /// Adds `scalar·B_index` into `acc`. Panics if `index >= num_bases()`: indices come from
    /// the caller's fixed layout, never from input.
    ///
    /// The table entries are resolved and touched before the first addition, so that
    /// their cache misses overlap instead of stalling one addition each.
    pub(crate) fn accumulate(
        &self,
        acc: &mut Element,
        index: usize,
        scalar: &Fr,
        digits: &mut Vec<i32>,
    ) {
        let positions = self.touched_positions(index, scalar, digits);
        with_field_mul!(|m| for (pos, negative) in positions.clone() {
            add_signed(m, &mut acc.0, &self.points[pos], negative);
        });
    }

    /// The (table position, negative) of each non-zero signed digit of `scalar` for
    /// `B_index`, after reading each entry once (so that their cache misses overlap).
    fn touched_positions<'a>(
        &self,
        index: usize,
        scalar: &Fr,
        digits: &'a mut Vec<i32>,
    ) -> impl Iterator<Item = (usize, bool)> + Clone + 'a {
        self.assert_full_range();
        signed_digits(scalar, self.window, self.num_windows, digits);
        let per_window = self.per_window();
        let base_off = index * self.num_windows * per_window;
        let positions = digits
            .iter()
            .enumerate()
            .filter(|(_, d)| **d != 0)
            .map(move |(j, &d)| Self::entry(base_off, per_window, j, d));
        let mut fold = 0u64;
        for (pos, _) in positions.clone() {
            let p = &self.points[pos];
            fold ^= p.x.0 .0[0] ^ p.dt.0 .0[3];
        }
        core::hint::black_box(fold);
        positions
    }

    internal_fn! {
        /// Appends the table positions of `scalar·B_index` to `out`; no arithmetic yet (see
        /// [`FixedBaseTable::add_lookups`]). Panics if `index >= num_bases()`.
        fn lookup(&self, index: usize, scalar: &Fr, out: &mut Lookups) {
            self.assert_full_range();
            signed_digits(scalar, self.window, self.num_windows, &mut out.digits);
            let digits = core::mem::take(&mut out.digits);
            self.push_digits(index, &digits, out);
            out.digits = digits;
        }
    }

    internal_fn! {
        /// [`FixedBaseTable::lookup`] for a scalar below 2¹²⁸ given as an integer (a 16-byte
        /// chunk of a Pedersen hash input): no conversion to and from Montgomery form. Panics
        /// if the table covers fewer bits than `value` has.
        fn lookup_u128(&self, index: usize, value: u128, out: &mut Lookups) {
            assert!(
                self.scalar_bits >= 128 || value >> self.scalar_bits == 0,
                "value above the table's {} bits",
                self.scalar_bits
            );
            signed_digits_u128(value, self.window, self.num_windows, &mut out.digits);
            let digits = core::mem::take(&mut out.digits);
            self.push_digits(index, &digits, out);
            out.digits = digits;
        }
    }

    /// Methods taking an [`Fr`] need every window (a table layout error otherwise).
    fn assert_full_range(&self) {
        assert!(
            self.scalar_bits >= 253,
            "this table covers only scalars below 2^{}",
            self.scalar_bits
        );
    }

    fn push_digits(&self, index: usize, digits: &[i32], out: &mut Lookups) {
        let per_window = self.per_window();
        let base_off = index * self.num_windows * per_window;
        assert!(index < self.num_bases(), "base index {index} out of range");
        for (j, &d) in digits.iter().enumerate() {
            if d == 0 {
                continue;
            }
            let (pos, negative) = Self::entry(base_off, per_window, j, d);
            out.entries.push((pos as u32, negative));
        }
    }

    internal_fn! {
        /// Adds the looked-up multiples into `acc`: first one read of each entry's two cache
        /// lines (independent loads, so their misses overlap), then the additions. Panics if
        /// `lookups` came from a larger table.
        fn add_lookups(&self, acc: &mut Element, lookups: &Lookups) {
            // Touch: the first word of x and the last word of d·x·y span an entry's lines.
            let mut fold = 0u64;
            for &(pos, _) in &lookups.entries {
                let p = &self.points[pos as usize];
                fold ^= p.x.0 .0[0] ^ p.dt.0 .0[3];
            }
            core::hint::black_box(fold);
            with_field_mul!(|m| self.add_entries(m, acc, &lookups.entries));
        }
    }

    internal_fn! {
        /// [`FixedBaseTable::add_lookups`] for many accumulators: `accs[i] += Σ lookups[i]`
        /// (pairs beyond the shorter slice are left alone). On processors with AVX-512 IFMA the
        /// sums run eight side by side (`fixed_base/lanes.rs`); the group elements are the same
        /// either way, their projective coordinates may differ. Panics if a `lookups` came from
        /// a larger table.
        fn add_lookups_many(&self, accs: &mut [Element], lookups: &[Lookups]) {
            #[cfg(all(target_arch = "x86_64", feature = "asm"))]
            if let Some(ifma) = crate::field::lanes() {
                self.add_lookups_lanes(ifma, accs, lookups);
                return;
            }
            for (acc, l) in accs.iter_mut().zip(lookups) {
                self.add_lookups(acc, l);
            }
        }
    }

    /// [`FixedBaseTable::add_lookups_many`] on the 8-lane path.
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    fn add_lookups_lanes(
        &self,
        ifma: crate::field::ifma::Ifma,
        accs: &mut [Element],
        lookups: &[Lookups],
    ) {
        use crate::field::ifma::LANES;
        use lanes::{products, LaneSteps};
        let n = accs.len().min(lookups.len());
        let mut steps: [Vec<Option<(usize, bool)>>; LANES] = Default::default();
        let mut sums = [Element(EdwardsProjective::ZERO); LANES];
        for (accs, lookups) in accs[..n].chunks_mut(LANES).zip(lookups[..n].chunks(LANES)) {
            for (slot, l) in steps.iter_mut().zip(lookups) {
                slot.clear();
                slot.extend(
                    l.entries
                        .iter()
                        .map(|&(pos, neg)| Some((pos as usize, neg))),
                );
            }
            for slot in steps.iter_mut().skip(lookups.len()) {
                slot.clear();
            }
            let views: [LaneSteps<'_>; LANES] = core::array::from_fn(|i| steps[i].as_slice());
            products(ifma, &self.points, &views, &mut sums[..accs.len()]);
            for (acc, sum) in accs.iter_mut().zip(&sums) {
                *acc += *sum;
            }
        }
    }

    fn add_entries<M: FieldMul>(&self, m: M, acc: &mut Element, entries: &[(u32, bool)]) {
        for &(pos, negative) in entries {
            add_signed(m, &mut acc.0, &self.points[pos as usize], negative);
        }
    }

    /// `scalar·B_index`.
    pub fn mul(&self, index: usize, scalar: &Fr) -> Element {
        let mut digits = Vec::with_capacity(self.num_windows);
        let mut positions = self.touched_positions(index, scalar, &mut digits);
        let Some((first, negative)) = positions.next() else {
            return Element::identity();
        };
        // Starting from the first entry saves the eight multiplications of adding it to
        // the identity.
        with_field_mul!(|m| {
            let mut acc = from_signed(m, &self.points[first], negative);
            for (pos, negative) in positions.clone() {
                add_signed(m, &mut acc, &self.points[pos], negative);
            }
            Element(acc)
        })
    }

    /// `out[i] = s_i·B_{index_i}` for the `i`-th `(index_i, s_i)` of `terms`, for as many
    /// terms as both `terms` and `out` have. On processors with AVX-512 IFMA the products
    /// run eight side by side (`fixed_base/lanes.rs`); the group elements are the same as
    /// [`FixedBaseTable::mul`]'s, their projective coordinates may differ. Panics if an
    /// index is out of range.
    pub fn mul_many<'a>(
        &self,
        terms: impl IntoIterator<Item = (usize, &'a Fr)>,
        out: &mut [Element],
    ) {
        #[cfg(all(target_arch = "x86_64", feature = "asm"))]
        if let Some(ifma) = crate::field::lanes() {
            self.mul_lanes(ifma, terms, out);
            return;
        }
        self.mul_each(terms, out);
    }

    /// [`FixedBaseTable::mul_many`] one product at a time.
    fn mul_each<'a>(&self, terms: impl IntoIterator<Item = (usize, &'a Fr)>, out: &mut [Element]) {
        for (o, (index, scalar)) in out.iter_mut().zip(terms) {
            *o = self.mul(index, scalar);
        }
    }

    /// [`FixedBaseTable::mul_many`] on the 8-lane path.
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    fn mul_lanes<'a>(
        &self,
        ifma: crate::field::ifma::Ifma,
        terms: impl IntoIterator<Item = (usize, &'a Fr)>,
        out: &mut [Element],
    ) {
        use crate::field::ifma::LANES;
        use lanes::{products, LaneSteps};
        self.assert_full_range();
        let per_window = self.per_window();
        let bases = self.num_bases();
        let mut steps: [Vec<Option<(usize, bool)>>; LANES] = Default::default();
        let mut digits = Vec::with_capacity(self.num_windows);
        let mut terms = terms.into_iter();
        for chunk in out.chunks_mut(LANES) {
            let mut n = 0;
            for slot in steps.iter_mut() {
                slot.clear();
                if n == chunk.len() {
                    continue;
                }
                let Some((index, scalar)) = terms.next() else {
                    continue;
                };
                assert!(index < bases, "base index {index} out of range");
                signed_digits(scalar, self.window, self.num_windows, &mut digits);
                let base_off = index * self.num_windows * per_window;
                slot.extend(
                    digits
                        .iter()
                        .enumerate()
                        .map(|(j, &d)| (d != 0).then(|| Self::entry(base_off, per_window, j, d))),
                );
                n += 1;
            }
            if n == 0 {
                break;
            }
            let views: [LaneSteps<'_>; LANES] = core::array::from_fn(|i| steps[i].as_slice());
            if let Some(done) = chunk.get_mut(..n) {
                products(ifma, &self.points, &views, done);
            }
            if n < chunk.len() {
                break;
            }
        }
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
mod tests;
