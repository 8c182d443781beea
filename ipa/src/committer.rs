//! Pedersen vector commitments from precomputed tables.
//!
//! `commit(v) = Σ v_i·G_i` over the 256 CRS generators. Three tables back it:
//! G0..G4 with 13-bit signed windows (leaf headers and the hash's constant term touch
//! only these five),
//! all 256 generators plus `Q` with 8-bit signed windows (sparse commitments and deltas:
//! one table lookup per window of each scalar), and the CRS's window shifts for dense
//! vectors (the bucket method of [`FixedBaseMsm`], about half the work per term once the
//! bucket pass is shared by more than [`DENSE_TERMS`] terms).
//!
//! Pedersen hashes of 64 bytes add four 128-bit chunks times G1..G4. A fourth table, built
//! on first use (so a verifier never pays for it), holds G1..G4 with 16-bit signed windows
//! over 128 bits only: 8 or 9 additions per chunk instead of 10 at 13 bits (108 MiB, built
//! in well under a second).

use crate::prelude::*;

use banderwagon::once::Once as OnceLock;
use core::time::Duration;

use ark_ff::Zero;
use banderwagon::{Element, FixedBaseMsm, FixedBaseTable, Fr, Lookups};

use crate::crs::Crs;

/// Generators with the wide-window fast path.
pub(crate) const FAST_BASES: usize = 5;
const FAST_WINDOW: u32 = 13;
const ALL_WINDOW: u32 = 8;
/// The generators `G_1..=G_CHUNK_BASES` of the 128-bit chunk table.
const CHUNK_BASES: usize = 4;
const CHUNK_WINDOW: u32 = 16;
/// From this many non-zero values on, [`Committer::commit`] uses the bucket method.
pub(crate) const DENSE_TERMS: usize = 48;

/// The committer of [`Committer::eip6800`].
static EIP6800: OnceLock<Committer> = OnceLock::new();

/// Commits vectors of up to 256 scalars; holds the precomputed tables.
#[derive(Debug)]
pub struct Committer {
    fast: FixedBaseTable,
    /// `G_0..G_255` then `Q` at index 256.
    all: FixedBaseTable,
    /// Window shifts of `G_0..G_255, Q` for dense vectors.
    dense: FixedBaseMsm,
    /// `G_1..G_4` for values below 2¹²⁸ (Pedersen hash chunks), built on first use.
    chunks: OnceLock<FixedBaseTable>,
    /// `G_1..G_4`, kept to build `chunks`.
    chunk_bases: Vec<Element>,
    width: usize,
    build_time: Duration,
}

impl Committer {
    /// Builds the tables for `crs` (about a second on two cores; see `BENCHMARKS.md`).
    pub fn new(crs: &Crs) -> Committer {
        #[cfg(feature = "std")]
        let start = std::time::Instant::now();
        let mut bases = crs.g.clone();
        bases.push(crs.q);
        let fast_bases = &crs.g[..FAST_BASES.min(crs.g.len())];
        // Each table build spreads over all cores itself (scoped threads, not rayon, so
        // building inside a lazy initialiser cannot deadlock the rayon pool).
        let fast = FixedBaseTable::new(fast_bases, FAST_WINDOW);
        let all = FixedBaseTable::new(&bases, ALL_WINDOW);
        let dense = crs.msm_table().clone();
        let chunk_bases = crs.g.iter().skip(1).take(CHUNK_BASES).copied().collect();
        Committer {
            fast,
            all,
            dense,
            chunks: OnceLock::new(),
            chunk_bases,
            width: crs.g.len(),
            #[cfg(feature = "std")]
            build_time: start.elapsed(),
            #[cfg(not(feature = "std"))]
            build_time: Duration::ZERO,
        }
    }

    /// The committer for the EIP-6800 CRS, built on first use.
    pub fn eip6800() -> &'static Committer {
        EIP6800.get_or_init(|| Committer::new(Crs::eip6800()))
    }

    /// [`Committer::eip6800`] if something already built it, without building it: lets a
    /// verifier (which needs no prover tables) check that it never did.
    pub fn eip6800_if_built() -> Option<&'static Committer> {
        EIP6800.get()
    }

    /// Bytes held by the precomputed tables (with the chunk table once it is built).
    pub fn memory_bytes(&self) -> usize {
        self.fast.memory_bytes()
            + self.all.memory_bytes()
            + self.dense.memory_bytes()
            + self.chunks.get().map_or(0, FixedBaseTable::memory_bytes)
    }

    /// How long building the tables took (not counting the chunk table, built on first use);
    /// zero without the `std` feature (no clock).
    pub fn build_time(&self) -> Duration {
        self.build_time
    }

    /// The 128-bit chunk table of `G_1..G_4`, built on first use.
    fn chunk_table(&self) -> &FixedBaseTable {
        self.chunks
            .get_or_init(|| FixedBaseTable::with_scalar_bits(&self.chunk_bases, CHUNK_WINDOW, 128))
    }

    /// Builds the Pedersen-hash chunk table now (otherwise the first tree key does), and
    /// returns its size in bytes.
    pub fn prepare_chunk_table(&self) -> usize {
        self.chunk_table().memory_bytes()
    }

    /// The number of generators (256).
    pub fn width(&self) -> usize {
        self.width
    }

    /// `value·G_index`; `index` must be below the width (a fixed layout position, never input).
    pub fn scalar_mul(&self, index: usize, value: &Fr) -> Element {
        if index < FAST_BASES {
            self.fast.mul(index, value)
        } else {
            self.all.mul(index, value)
        }
    }

    /// `out[i] = value_i·G_{index_i}` for the `i`-th `(index_i, value_i)` of `terms`, for
    /// as many terms as both `terms` and `out` have: [`Committer::scalar_mul`] in batches,
    /// eight side by side on processors with AVX-512 IFMA. Indices must be below the width.
    pub fn scalar_mul_many<'a>(
        &self,
        terms: impl IntoIterator<Item = (usize, &'a Fr)>,
        out: &mut [Element],
    ) {
        // Runs of consecutive terms on the same table (the generators of the wide-window
        // table first in generator order).
        let mut terms = terms.into_iter().peekable();
        let mut done = 0;
        while done < out.len() {
            let Some(&(first, _)) = terms.peek() else {
                break;
            };
            let fast = first < FAST_BASES;
            // `mul_many` takes a term only when it has an output left for it.
            let mut taken = 0;
            let run = core::iter::from_fn(|| terms.next_if(|(i, _)| (*i < FAST_BASES) == fast))
                .inspect(|_| taken += 1);
            let rest = &mut out[done..];
            if fast {
                self.fast.mul_many(run, rest);
            } else {
                self.all.mul_many(run, rest);
            }
            done += taken;
        }
    }

    /// `value·Q`.
    pub fn scalar_mul_q(&self, value: &Fr) -> Element {
        self.all.mul(self.width, value)
    }

    /// The change of a commitment when slot `index` goes from `old` to `new`:
    /// `(new − old)·G_index`.
    pub fn commit_delta(&self, index: usize, old: &Fr, new: &Fr) -> Element {
        self.scalar_mul(index, &(*new - old))
    }

    /// `Σ values[i]·G_i` for up to 256 values (extra values are ignored).
    pub fn commit(&self, values: &[Fr]) -> Element {
        let values = &values[..values.len().min(self.width)];
        let nonzero = values.iter().filter(|v| !v.is_zero()).count();
        if nonzero >= DENSE_TERMS {
            // The bucket pass splits itself between two rayon tasks.
            return self.dense.msm(values);
        }
        self.commit_range(values, 0, values.len())
    }

    fn commit_range(&self, values: &[Fr], from: usize, to: usize) -> Element {
        let mut split = SplitLookups::default();
        for i in from..to {
            let v = &values[i];
            if !v.is_zero() {
                split.push(self, i, v);
            }
        }
        split.sum(self, Element::identity())
    }

    /// `Σ value·G_index` over sparse `(index, value)` pairs (indices below the width).
    ///
    /// All table entries are resolved and touched before the first addition, so their
    /// cache misses overlap.
    pub fn commit_sparse(&self, terms: &[(usize, Fr)]) -> Element {
        SplitLookups::of(self, terms).sum(self, Element::identity())
    }

    /// [`Committer::commit_sparse`] for many sums: `out[i] = Σ value·G_index` over the `i`-th
    /// slice of `sums` (for as many as both have; indices below the width), eight sums side
    /// by side on processors with AVX-512 IFMA. The group elements are those of
    /// `commit_sparse`; their projective coordinates may differ.
    pub fn commit_sparse_many<'a>(
        &self,
        sums: impl IntoIterator<Item = &'a [(usize, Fr)]>,
        out: &mut [Element],
    ) {
        let mut fast = Vec::with_capacity(out.len());
        let mut all = Vec::with_capacity(out.len());
        for terms in sums.into_iter().take(out.len()) {
            let split = SplitLookups::of(self, terms);
            fast.push(split.fast);
            all.push(split.all);
        }
        let out = &mut out[..all.len()];
        out.fill(Element::identity());
        if fast.iter().any(|l| !l.is_empty()) {
            self.fast.add_lookups_many(out, &fast);
        }
        self.all.add_lookups_many(out, &all);
    }

    /// `start + Σ value·G_index` for values below 2¹²⁸ given as integers (the 16-byte
    /// chunks of a Pedersen hash input; indices below the width).
    pub fn add_u128_terms(&self, start: Element, terms: &[(usize, u128)]) -> Element {
        let mut split = SplitLookups::default();
        let mut chunks = Lookups::with_capacity(9 * terms.len());
        for (i, v) in terms {
            match i.checked_sub(1) {
                Some(c) if c < self.chunk_bases.len() => {
                    self.chunk_table().lookup_u128(c, *v, &mut chunks)
                }
                _ if *i < FAST_BASES => self.fast.lookup_u128(*i, *v, &mut split.fast),
                _ => self.all.lookup_u128(*i, *v, &mut split.all),
            }
        }
        let mut acc = split.sum(self, start);
        if !chunks.is_empty() {
            self.chunk_table().add_lookups(&mut acc, &chunks);
        }
        acc
    }

    /// [`Committer::add_u128_terms`] for many items: `accs[i] += Σ value·G_index` over
    /// `terms[i]` (pairs beyond the shorter slice are left alone). When every index is one of
    /// the hash-chunk generators (`G_1..G_4`, the Pedersen hash's), the sums run on the
    /// chunk table eight side by side where the processor has AVX-512 IFMA.
    pub fn add_u128_terms_many<const K: usize>(
        &self,
        accs: &mut [Element],
        terms: &[[(usize, u128); K]],
    ) {
        let chunk_index = |i: usize| i.checked_sub(1).filter(|c| *c < self.chunk_bases.len());
        if !terms
            .iter()
            .flatten()
            .all(|(i, _)| chunk_index(*i).is_some())
        {
            for (acc, t) in accs.iter_mut().zip(terms) {
                *acc = self.add_u128_terms(*acc, t);
            }
            return;
        }
        let table = self.chunk_table();
        let lookups: Vec<Lookups> = terms
            .iter()
            .map(|t| {
                let mut l = Lookups::with_capacity(9 * K);
                for (i, v) in t {
                    if let Some(c) = chunk_index(*i) {
                        table.lookup_u128(c, *v, &mut l);
                    }
                }
                l
            })
            .collect();
        table.add_lookups_many(accs, &lookups);
    }

    /// `Σ scalars[i]·B_i` over the 257 bases `G_0..G_255, Q` (used by the IPA prover).
    pub(crate) fn commit_with_q(&self, scalars: &[Fr]) -> Element {
        self.dense.msm(scalars)
    }

    /// Commits many vectors, in parallel.
    pub fn batch_commit(&self, vectors: &[Vec<Fr>]) -> Vec<Element> {
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            vectors
                .par_iter()
                .map(|v| {
                    let v = &v[..v.len().min(self.width)];
                    if v.iter().filter(|x| !x.is_zero()).count() >= DENSE_TERMS {
                        self.dense.msm(v)
                    } else {
                        self.commit_range(v, 0, v.len())
                    }
                })
                .collect()
        }
        #[cfg(not(feature = "parallel"))]
        vectors.iter().map(|v| self.commit(v)).collect()
    }
}

/// Table positions of a sum's terms, per table.
#[derive(Default)]
struct SplitLookups {
    fast: Lookups,
    all: Lookups,
}

impl SplitLookups {
    /// The table positions of `Σ value·G_index` over `terms`.
    fn of(committer: &Committer, terms: &[(usize, Fr)]) -> SplitLookups {
        let mut split = SplitLookups::default();
        for (i, v) in terms {
            split.push(committer, *i, v);
        }
        split
    }

    fn push(&mut self, committer: &Committer, index: usize, value: &Fr) {
        if index < FAST_BASES {
            committer.fast.lookup(index, value, &mut self.fast);
        } else {
            committer.all.lookup(index, value, &mut self.all);
        }
    }

    fn sum(&self, committer: &Committer, start: Element) -> Element {
        let mut acc = start;
        committer.fast.add_lookups(&mut acc, &self.fast);
        committer.all.add_lookups(&mut acc, &self.all);
        acc
    }
}
