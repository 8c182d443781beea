//! Variable-base multi-scalar multiplication.
//!
//! Up to a few dozen terms, Straus' method (one doubling chain shared by all terms); above
//! that, the signed-digit bucket method (Pippenger), its windows split across rayon threads
//! when the `parallel` feature is on: on processors with AVX-512 IFMA eight windows per
//! pass on the lanes (`msm/lanes.rs`) over points normalised once to extended-affine form;
//! elsewhere, from a few hundred terms, with the bucket additions batched in affine
//! coordinates on the Montgomery model, one inversion per batch (`msm/affine.rs`). [`vartime_multi_scalar_mul_affine`] keeps arkworks' `VariableBaseMSM`
//! for bases already in plain affine form.

use crate::prelude::*;

use ark_ec::VariableBaseMSM;
use ark_ed_on_bls12_381_bandersnatch::{EdwardsAffine, EdwardsProjective};
use ark_ff::{BigInteger, PrimeField, Zero};

use crate::field::{with_field_mul, FieldMul};
use crate::fixed_base::signed_digits;
use crate::prepared::{
    add_projective, add_signed, double_projective, double_projective_xyz, is_zero_x, PreparedPoint,
};
use crate::{Element, Fr};

mod affine;
#[cfg(all(target_arch = "x86_64", feature = "asm"))]
mod lanes;

/// Below this many terms a product-by-product sum beats the bucket method's set-up.
const NAIVE_THRESHOLD: usize = 16;
/// Up to this many terms Straus' shared doubling chain beats the bucket method.
const STRAUS_THRESHOLD: usize = 48;
/// wNAF width for Straus: odd multiples up to 15·P, 8 table points per base.
const STRAUS_WNAF: usize = 5;
/// From this many terms (without the IFMA lanes) the bucket method batches its bucket
/// additions in affine coordinates (`affine.rs`): below, the map to the Montgomery model
/// and back costs what the cheaper additions save.
const AFFINE_THRESHOLD: usize = 4096;

/// `Σ scalars[i]·points[i]`, variable time (inputs are public in every use here).
///
/// Extra points or scalars beyond the shorter slice are ignored.
pub fn vartime_multi_scalar_mul(points: &[Element], scalars: &[Fr]) -> Element {
    let n = points.len().min(scalars.len());
    if n <= STRAUS_THRESHOLD {
        return vartime_straus(&points[..n], &scalars[..n]);
    }
    // The IFMA lanes keep their projective buckets: eight windows per pass beat the
    // batched affine additions there.
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    let lanes_on = crate::field::lanes().is_some();
    #[cfg(not(all(target_arch = "x86_64", feature = "asm")))]
    let lanes_on = false;
    if n >= AFFINE_THRESHOLD && !lanes_on {
        if let Some(sum) = pippenger_affine(&points[..n], &scalars[..n]) {
            return sum;
        }
    }
    let proj: Vec<EdwardsProjective> = points[..n].iter().map(|p| p.0).collect();
    vartime_pippenger(
        &PreparedPoint::batch_from_projective_par(&proj),
        &scalars[..n],
    )
}

/// The bucket method (Pippenger) with signed digits over prepared points: per window one
/// 8-multiplication addition per term into its digit's bucket, then a running sum over the
/// buckets; windows in parallel (rayon) when the `parallel` feature is on, eight to a pass
/// on the AVX-512 IFMA lanes where the processor has them (same group element).
fn vartime_pippenger(points: &[PreparedPoint], scalars: &[Fr]) -> Element {
    let n = points.len().min(scalars.len());
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    if let Some(ifma) = crate::field::lanes() {
        return pippenger_lanes(ifma, &points[..n], &scalars[..n]);
    }
    pippenger_scalar(&points[..n], &scalars[..n])
}

/// The bucket method with its bucket additions batched in affine coordinates on the
/// Montgomery model (`affine.rs`), one window per rayon job. Terms with the identity or a
/// zero scalar are dropped first. `None` if some point is outside the group (no
/// `Element` is; the caller then takes the projective method).
fn pippenger_affine(points: &[Element], scalars: &[Fr]) -> Option<Element> {
    let (proj, kept): (Vec<EdwardsProjective>, Vec<Fr>) = points
        .iter()
        .zip(scalars)
        .filter(|(p, s)| !p.0.x.is_zero() && !s.is_zero())
        .map(|(p, s)| (p.0, *s))
        .unzip();
    let n = proj.len();
    let md = affine::model();
    let mut mont = vec![affine::MontPoint::default(); n];
    const CHUNK: usize = 2048;
    let convert = |(chunk, out): (&[EdwardsProjective], &mut [affine::MontPoint])| -> bool {
        with_field_mul!(|m| affine::to_model(m, md, chunk, out))
    };
    #[cfg(feature = "parallel")]
    let ok = {
        use rayon::prelude::*;
        proj.par_chunks(CHUNK)
            .zip(mont.par_chunks_mut(CHUNK))
            .all(convert)
    };
    #[cfg(not(feature = "parallel"))]
    let ok = proj.chunks(CHUNK).zip(mont.chunks_mut(CHUNK)).all(convert);
    if !ok {
        return None;
    }
    let c = affine_window(n);
    let nw = windows(c);
    let digits = recode(&kept, c, nw);
    let window_sum = |j: usize| -> EdwardsProjective {
        with_field_mul!(|m| {
            bucket_sums(m, &affine::window_buckets(m, md, &mont, &digits, c, nw, j)).0
        })
    };
    #[cfg(feature = "parallel")]
    let sums: Vec<EdwardsProjective> = {
        use rayon::prelude::*;
        (0..nw)
            .into_par_iter()
            .with_max_len(1)
            .map(window_sum)
            .collect()
    };
    #[cfg(not(feature = "parallel"))]
    let sums: Vec<EdwardsProjective> = (0..nw).map(window_sum).collect();
    Some(combine_windows(&sums, c))
}

/// The window minimising the field multiplications of [`pippenger_affine`], counted in
/// tenths: per term and window six for the batched affine addition, one for the
/// bookkeeping and the batch's share of its inversion (about seventy); per bucket and
/// window a map back to Edwards and two full additions (25). `4 ≤ c ≤ 16`.
fn affine_window(n: usize) -> u32 {
    let cost = |c: u32| -> u64 {
        let windows = (253 + c as u64) / c as u64;
        let buckets = 1u64 << (c - 1);
        let per_term = 70 + 700 / affine::batch_len(buckets as usize) as u64;
        windows * (per_term * n as u64 + 250 * buckets)
    };
    (4..=16u32).min_by_key(|c| cost(*c)).unwrap_or(8)
}

/// [`vartime_pippenger`] one window per rayon job on the scalar field backend.
fn pippenger_scalar(points: &[PreparedPoint], scalars: &[Fr]) -> Element {
    let n = points.len().min(scalars.len());
    let c = pippenger_window(n);
    let nw = windows(c);
    let digits = recode(&scalars[..n], c, nw);
    let window_sum = |j: usize| -> EdwardsProjective {
        with_field_mul!(|m| window_sum(m, &points[..n], &digits, c, nw, j))
    };
    #[cfg(feature = "parallel")]
    let sums: Vec<EdwardsProjective> = {
        use rayon::prelude::*;
        // One window per job: windows cost the same, and runs of several windows handed
        // to one thread would leave the other idle at the end.
        (0..nw)
            .into_par_iter()
            .with_max_len(1)
            .map(window_sum)
            .collect()
    };
    #[cfg(not(feature = "parallel"))]
    let sums: Vec<EdwardsProjective> = (0..nw).map(window_sum).collect();
    combine_windows(&sums, c)
}

/// Windows of `c` bits covering a scalar's signed digits.
fn windows(c: u32) -> usize {
    (253 + c as usize) / c as usize
}

/// Each scalar's `nw` signed digits of `c` bits, scalar after scalar (zeros for a zero
/// scalar); recoded on all threads when the `parallel` feature is on.
fn recode(scalars: &[Fr], c: u32, nw: usize) -> Vec<i32> {
    let mut digits = vec![0i32; scalars.len() * nw];
    let recode = |scratch: &mut Vec<i32>, (s, out): (&Fr, &mut [i32])| {
        if !s.is_zero() {
            signed_digits(s, c, nw, scratch);
            out.copy_from_slice(scratch);
        }
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        scalars
            .par_iter()
            .zip(digits.par_chunks_exact_mut(nw))
            .with_min_len(256)
            .for_each_init(|| Vec::with_capacity(nw), recode);
    }
    #[cfg(not(feature = "parallel"))]
    {
        let mut scratch = Vec::with_capacity(nw);
        for item in scalars.iter().zip(digits.chunks_exact_mut(nw)) {
            recode(&mut scratch, item);
        }
    }
    digits
}

/// `Σ_j 2^(c·j)·sums[j]`: `c` doublings between windows, from the top one down.
fn combine_windows(sums: &[EdwardsProjective], c: u32) -> Element {
    let mut acc = EdwardsProjective::zero();
    with_field_mul!(|m| for w in sums.iter().rev() {
        for _ in 1..c {
            double_projective_xyz(m, &mut acc);
        }
        double_projective(m, &mut acc);
        add_projective(m, &mut acc, w);
    });
    Element(acc)
}

/// The bucket method with eight windows per pass on AVX-512 IFMA lanes (`lanes.rs`).
/// The passes (and, when the threads do not divide them evenly, slices of the points) run
/// as rayon jobs; the slices' window sums are added.
#[cfg(all(target_arch = "x86_64", feature = "asm"))]
fn pippenger_lanes(
    ifma: crate::field::ifma::Ifma,
    points: &[PreparedPoint],
    scalars: &[Fr],
) -> Element {
    use crate::field::ifma::LANES;
    #[cfg(feature = "parallel")]
    let threads = rayon::current_num_threads().max(1);
    #[cfg(not(feature = "parallel"))]
    let threads = 1usize;
    let n = points.len().min(scalars.len());
    let (c, slices) = lanes_window(n, threads);
    let nw = windows(c);
    let groups = nw.div_ceil(LANES);
    let digits = recode(&scalars[..n], c, nw);
    let per_slice = n.div_ceil(slices).max(1);
    let job = |(g, s): (usize, usize)| {
        let start = (s * per_slice).min(n);
        let end = (start + per_slice).min(n);
        let sums = lanes::window_sums(
            ifma,
            &points[start..end],
            &digits[start * nw..end * nw],
            c,
            nw,
            g,
        );
        (g, sums)
    };
    let jobs = (0..groups).flat_map(|g| (0..slices).map(move |s| (g, s)));
    #[cfg(feature = "parallel")]
    let results: Vec<(usize, [EdwardsProjective; LANES])> = {
        use rayon::prelude::*;
        jobs.collect::<Vec<_>>()
            .into_par_iter()
            .with_max_len(1)
            .map(job)
            .collect()
    };
    #[cfg(not(feature = "parallel"))]
    let results: Vec<(usize, [EdwardsProjective; LANES])> = jobs.map(job).collect();
    let mut sums = vec![EdwardsProjective::zero(); nw];
    for (g, lanes) in results {
        for (sum, lane) in sums.iter_mut().skip(g * LANES).zip(lanes) {
            *sum += lane;
        }
    }
    combine_windows(&sums, c)
}

/// The lanes' window width and the number of point slices: the passes are
/// `⌈windows/8⌉`; when the threads do not divide them evenly the points are cut into one
/// slice per thread (each slice pays its own running sums). Minimises the eight-lane
/// additions, a running-sum step counted as 2.4 (two full additions of 11 products
/// against a mixed one of 9), over `6 ≤ c ≤ 13` (a pass's buckets stay within ~2.6 MB).
#[cfg(all(target_arch = "x86_64", feature = "asm"))]
fn lanes_window(n: usize, threads: usize) -> (u32, usize) {
    let plan = |c: u32| -> (u64, usize) {
        let groups = windows(c).div_ceil(crate::field::ifma::LANES);
        let even = groups.is_multiple_of(threads);
        let slices = if even || n < 2048 { 1 } else { threads };
        let cost = groups as u64 * (n as u64 + slices as u64 * 12 * (1u64 << (c - 1)) / 5);
        (cost, slices)
    };
    (6..=13u32)
        .map(|c| (plan(c), c))
        .min_by_key(|((cost, _), _)| *cost)
        .map_or((8, 1), |((_, slices), c)| (c, slices))
}

/// Window `j` of the bucket method: each point into the bucket of its digit, then
/// `Σ_k k·bucket_k` by a running sum.
fn window_sum<M: FieldMul>(
    m: M,
    points: &[PreparedPoint],
    digits: &[i32],
    c: u32,
    nw: usize,
    j: usize,
) -> EdwardsProjective {
    let mut buckets = vec![EdwardsProjective::zero(); 1 << (c - 1)];
    for (i, p) in points.iter().enumerate() {
        let d = digits[i * nw + j];
        if d != 0 {
            add_signed(m, &mut buckets[d.unsigned_abs() as usize - 1], p, d < 0);
        }
    }
    bucket_sums(m, &buckets).0
}

/// `(Σ_k k·B_k, Σ_k B_k)` over `buckets[k − 1] = B_k`, by a running sum from the top bucket
/// (two additions per bucket; empty buckets skip one).
pub(crate) fn bucket_sums<M: FieldMul>(
    m: M,
    buckets: &[EdwardsProjective],
) -> (EdwardsProjective, EdwardsProjective) {
    let mut running = EdwardsProjective::zero();
    let mut acc = EdwardsProjective::zero();
    for b in buckets.iter().rev() {
        if !is_zero_x(b) {
            add_projective(m, &mut running, b);
        }
        add_projective(m, &mut acc, &running);
    }
    (acc, running)
}

/// The window minimising `windows·(8·n + 20·2^(c−1))` field multiplications (one
/// prepared addition per term and window, two full additions per bucket), `4 ≤ c ≤ 16`.
fn pippenger_window(n: usize) -> u32 {
    let cost = |c: u32| -> u64 {
        let windows = (253 + c as u64) / c as u64;
        windows * (8 * n as u64 + 20 * (1u64 << (c - 1)))
    };
    (4..=16u32).min_by_key(|c| cost(*c)).unwrap_or(8)
}

/// `Σ scalars[i]·bases[i]` over bases already in affine form (for example a CRS).
///
/// The bucket method (arkworks' signed-window Pippenger), split across rayon threads by
/// window when the `parallel` feature is on.
pub fn vartime_multi_scalar_mul_affine(bases: &[EdwardsAffine], scalars: &[Fr]) -> Element {
    let n = bases.len().min(scalars.len());
    if n < NAIVE_THRESHOLD {
        return bases[..n]
            .iter()
            .zip(&scalars[..n])
            .map(|(b, s)| Element(EdwardsProjective::from(*b) * s))
            .sum();
    }
    Element(EdwardsProjective::msm_unchecked(&bases[..n], &scalars[..n]))
}

/// `Σ scalars[i]·points[i]` by Straus' method: width-5 wNAF digits, one table of odd
/// multiples per point (normalised together with one inversion), one shared doubling chain.
/// Each term uses the shorter of `s·P` and `(−s)·(−P)`, so a small negative scalar (a
/// value delta, say) costs as little as a small positive one. Variable time; the fastest
/// choice for a few dozen terms. Extra points or scalars beyond the shorter slice are
/// ignored.
pub fn vartime_straus(points: &[Element], scalars: &[Fr]) -> Element {
    let n = points.len().min(scalars.len());
    let half = 1usize << (STRAUS_WNAF - 2);
    let mut nafs: Vec<Vec<i64>> = Vec::with_capacity(n);
    let mut bases: Vec<EdwardsProjective> = Vec::with_capacity(n);
    for (p, s) in points[..n].iter().zip(&scalars[..n]) {
        if s.is_zero() || p.0.x.is_zero() {
            continue;
        }
        let (s, neg) = (s.into_bigint(), (-*s).into_bigint());
        let (k, base) = if neg < s { (neg, -p.0) } else { (s, p.0) };
        let naf = k.find_wnaf(STRAUS_WNAF).expect("wNAF width 5 is in range");
        nafs.push(naf);
        bases.push(base);
    }
    let mut odd: Vec<EdwardsProjective> = Vec::with_capacity(bases.len() * half);
    with_field_mul!(|m| odd_multiples(m, &bases, half, &mut odd));
    let table = PreparedPoint::batch_from_projective(&odd);
    Element(with_field_mul!(|m| straus_sum(m, &nafs, &table, half)))
}

/// Appends `P, 3P, …, (2·half − 1)·P` for each base `P` to `out` (the same coordinates as
/// arkworks' doubling and addition give).
fn odd_multiples<M: FieldMul>(
    m: M,
    bases: &[EdwardsProjective],
    half: usize,
    out: &mut Vec<EdwardsProjective>,
) {
    for base in bases {
        let mut double = *base;
        double_projective(m, &mut double);
        let mut p = *base;
        out.push(p);
        for _ in 1..half {
            add_projective(m, &mut p, &double);
            out.push(p);
        }
    }
}

/// The shared doubling chain of Straus' method over wNAF digits and prepared odd multiples.
fn straus_sum<M: FieldMul>(
    m: M,
    nafs: &[Vec<i64>],
    table: &[PreparedPoint],
    half: usize,
) -> EdwardsProjective {
    let len = nafs.iter().map(Vec::len).max().unwrap_or(0);
    let mut acc = EdwardsProjective::zero();
    for bit in (0..len).rev() {
        // `t` only for an addition at this bit or the result; the next doubling ignores it.
        if bit == 0 || nafs.iter().any(|naf| naf.get(bit).is_some_and(|&d| d != 0)) {
            double_projective(m, &mut acc);
        } else {
            double_projective_xyz(m, &mut acc);
        }
        for (k, naf) in nafs.iter().enumerate() {
            let d = naf.get(bit).copied().unwrap_or(0);
            if d != 0 {
                let idx = k * half + (d.unsigned_abs() as usize >> 1);
                add_signed(m, &mut acc, &table[idx], d < 0);
            }
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::UniformRand;
    use rand::SeedableRng;

    #[test]
    fn window_choice() {
        assert_eq!(pippenger_window(49), 4);
        assert!((5..=7).contains(&pippenger_window(250)));
        assert!((8..=11).contains(&pippenger_window(4000)));
    }

    /// The assembly and portable backends give identical window sums and Straus chains.
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    #[test]
    #[cfg_attr(
        not(build_host_has_adx),
        ignore = "the build machine has no BMI2/ADX: the assembly path is not tested"
    )]
    fn backends_agree() {
        use crate::field::{Adx, Portable};
        let Some(adx) = Adx::detect() else {
            return;
        };
        let mut rng = rand::thread_rng();
        let n = 200;
        let pts: Vec<EdwardsProjective> = (0..n)
            .map(|_| (Element::generator() * Fr::rand(&mut rng)).0)
            .collect();
        let prepared = PreparedPoint::batch_from_projective(&pts);
        let (c, nw) = (6u32, 43usize);
        let mut digits = Vec::new();
        let mut scratch = Vec::new();
        for _ in 0..n {
            signed_digits(&Fr::rand(&mut rng), c, nw, &mut scratch);
            digits.extend_from_slice(&scratch);
        }
        for j in [0, 7, 42] {
            let a = window_sum(adx, &prepared, &digits, c, nw, j);
            let b = window_sum(Portable, &prepared, &digits, c, nw, j);
            assert_eq!((a.x, a.y, a.t, a.z), (b.x, b.y, b.t, b.z));
        }
        let nafs: Vec<Vec<i64>> = (0..4)
            .map(|_| {
                Fr::rand(&mut rng)
                    .into_bigint()
                    .find_wnaf(5)
                    .unwrap_or_default()
            })
            .collect();
        let table = &prepared[..32];
        let a = straus_sum(adx, &nafs, table, 8);
        let b = straus_sum(Portable, &nafs, table, 8);
        assert_eq!((a.x, a.y, a.t, a.z), (b.x, b.y, b.t, b.z));
    }

    /// The eight-lane passes give the scalar path's window sums, group by group (the last
    /// group partly filled), for several widths, with zero and negative digits; and the
    /// whole lane MSM (sliced or not) matches the scalar one.
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    #[test]
    #[cfg_attr(
        not(build_host_has_ifma),
        ignore = "the build machine has no AVX-512 IFMA: the 8-lane path is not tested"
    )]
    fn lanes_match_scalar_pippenger() {
        use crate::field::Portable;
        let Some(ifma) = crate::field::ifma::Ifma::detect() else {
            eprintln!("no AVX-512 IFMA on this processor: the 8-lane path is not tested");
            return;
        };
        let mut rng = rand::thread_rng();
        let n = 300;
        let mut pts: Vec<EdwardsProjective> = (0..n)
            .map(|_| (Element::generator() * Fr::rand(&mut rng)).0)
            .collect();
        // The identity and a repeated point among the bases.
        pts[3] = EdwardsProjective::zero();
        pts[5] = pts[4];
        let prepared = PreparedPoint::batch_from_projective(&pts);
        let mut scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        scalars[0] = Fr::zero();
        scalars[1] = -Fr::from(1u64);
        scalars[2] = Fr::from(7u64);
        for c in [4u32, 6, 8, 11, 13] {
            let nw = windows(c);
            let digits = recode(&scalars, c, nw);
            for g in 0..nw.div_ceil(crate::field::ifma::LANES) {
                let lanes = lanes::window_sums(ifma, &prepared, &digits, c, nw, g);
                for (l, got) in lanes.iter().enumerate() {
                    let j = g * crate::field::ifma::LANES + l;
                    let want = if j < nw {
                        window_sum(Portable, &prepared, &digits, c, nw, j)
                    } else {
                        EdwardsProjective::zero()
                    };
                    assert_eq!(*got, want, "c = {c}, window {j}");
                }
            }
        }
        for n in [49usize, 300, 2100, 5000] {
            let pts: Vec<EdwardsProjective> = (0..n)
                .map(|_| (Element::generator() * Fr::rand(&mut rng)).0)
                .collect();
            let prepared = PreparedPoint::batch_from_projective(&pts);
            let sc: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
            let want = pippenger_scalar(&prepared, &sc);
            assert_eq!(pippenger_lanes(ifma, &prepared, &sc), want, "n = {n}");
        }
    }

    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    #[test]
    fn lanes_window_choice() {
        // Three passes of eight windows at c = 11: two threads take slices, four do too.
        assert_eq!(lanes_window(16_500, 2), (11, 2));
        assert_eq!(lanes_window(16_500, 3), (11, 1));
        // Small inputs: narrow windows, no slices.
        let (c, slices) = lanes_window(100, 2);
        assert!(c <= 8 && slices == 1, "{c} {slices}");
    }

    /// Inputs that stress the bucket additions' special cases, each with its name: random;
    /// identity points (both representatives); one point repeated; `P` and `−P` with equal
    /// and with opposite scalars (cancelling and doubling in one bucket); zero scalars; all
    /// scalars equal (every point in one bucket per window), with distinct and with equal
    /// points; small scalars of both signs; points of the `(0, −1)` coset.
    fn adversarial_inputs(n: usize, seed: u64) -> Vec<(&'static str, Vec<Element>, Vec<Fr>)> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let random_points = |rng: &mut rand::rngs::StdRng| -> Vec<Element> {
            (0..n)
                .map(|_| Element::generator() * Fr::rand(rng))
                .collect()
        };
        let random_scalars =
            |rng: &mut rand::rngs::StdRng| -> Vec<Fr> { (0..n).map(|_| Fr::rand(rng)).collect() };
        let two_torsion = EdwardsProjective::new_unchecked(
            crate::Fq::zero(),
            -crate::Fq::from(1u64),
            crate::Fq::zero(),
            crate::Fq::from(1u64),
        );
        let mut cases = Vec::new();
        cases.push(("random", random_points(&mut rng), random_scalars(&mut rng)));
        let mut pts = random_points(&mut rng);
        for (i, p) in pts.iter_mut().enumerate() {
            match i % 5 {
                0 => *p = Element::identity(),
                1 => *p = Element(two_torsion),
                _ => {}
            }
        }
        cases.push(("identity points", pts, random_scalars(&mut rng)));
        let p = Element::generator() * Fr::rand(&mut rng);
        cases.push(("one point repeated", vec![p; n], random_scalars(&mut rng)));
        let base = random_points(&mut rng);
        let s = random_scalars(&mut rng);
        let pm: Vec<Element> = (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    base[i / 2]
                } else {
                    -base[i / 2]
                }
            })
            .collect();
        let same: Vec<Fr> = (0..n).map(|i| s[i / 2]).collect();
        let opposite: Vec<Fr> = (0..n)
            .map(|i| if i % 2 == 0 { s[i / 2] } else { -s[i / 2] })
            .collect();
        cases.push(("P and -P, equal scalars", pm.clone(), same));
        cases.push(("P and -P, opposite scalars", pm, opposite));
        let mut zeros = random_scalars(&mut rng);
        for z in zeros.iter_mut().step_by(3) {
            *z = Fr::zero();
        }
        cases.push(("some zero scalars", random_points(&mut rng), zeros));
        cases.push((
            "all zero scalars",
            random_points(&mut rng),
            vec![Fr::zero(); n],
        ));
        let e = Fr::rand(&mut rng);
        cases.push(("all scalars equal", random_points(&mut rng), vec![e; n]));
        cases.push(("all points and scalars equal", vec![p; n], vec![e; n]));
        let small: Vec<Fr> = (0..n)
            .map(|i| match i % 4 {
                0 => Fr::from(1u64),
                1 => -Fr::from(1u64),
                2 => Fr::from(2u64),
                _ => -Fr::from(3u64),
            })
            .collect();
        cases.push(("small scalars", random_points(&mut rng), small));
        let coset: Vec<Element> = random_points(&mut rng)
            .into_iter()
            .map(|p| Element(p.0 + two_torsion))
            .collect();
        cases.push(("(0, -1) coset points", coset, random_scalars(&mut rng)));
        cases
    }

    /// Every bucket method (batched affine, projective, IFMA lanes where present) and the
    /// entry point give the sum of the definition on the adversarial inputs.
    #[test]
    fn bucket_methods_match_naive_on_adversarial_inputs() {
        for (n, seed) in [(600, 1u64), (1500, 2), (AFFINE_THRESHOLD + 1, 3)] {
            for (name, pts, sc) in adversarial_inputs(n, seed) {
                let naive: Element = if n <= 1500 {
                    pts.iter().zip(&sc).map(|(p, s)| *p * *s).sum()
                } else {
                    let proj: Vec<EdwardsProjective> = pts.iter().map(|p| p.0).collect();
                    pippenger_scalar(&PreparedPoint::batch_from_projective(&proj), &sc)
                };
                assert_eq!(pippenger_affine(&pts, &sc), Some(naive), "{name}, n = {n}");
                assert_eq!(
                    vartime_multi_scalar_mul(&pts, &sc),
                    naive,
                    "{name}, n = {n}"
                );
                let proj: Vec<EdwardsProjective> = pts.iter().map(|p| p.0).collect();
                let prepared = PreparedPoint::batch_from_projective(&proj);
                assert_eq!(pippenger_scalar(&prepared, &sc), naive, "{name}, n = {n}");
                #[cfg(all(target_arch = "x86_64", feature = "asm"))]
                if let Some(ifma) = crate::field::ifma::Ifma::detect() {
                    assert_eq!(
                        pippenger_lanes(ifma, &prepared, &sc),
                        naive,
                        "{name}, n = {n}"
                    );
                }
            }
        }
    }

    /// The batched affine window sums equal the projective ones window by window, on each
    /// field backend, for several widths (a narrow window puts many points in each bucket).
    #[test]
    fn affine_window_sums_match_projective() {
        use crate::field::Portable;
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        let n = 2000;
        let mut pts: Vec<EdwardsProjective> = (0..n)
            .map(|_| (Element::generator() * Fr::rand(&mut rng)).0)
            .collect();
        pts[7] = pts[3];
        pts[9] = -pts[3];
        let prepared = PreparedPoint::batch_from_projective(&pts);
        let md = affine::model();
        let mut mont = vec![affine::MontPoint::default(); n];
        assert!(affine::to_model(Portable, md, &pts, &mut mont));
        let scalars: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        for c in [3u32, 6, 11] {
            let nw = windows(c);
            let digits = recode(&scalars, c, nw);
            for j in [0, nw / 2, nw - 1] {
                let want = window_sum(Portable, &prepared, &digits, c, nw, j);
                let buckets = affine::window_buckets(Portable, md, &mont, &digits, c, nw, j);
                let got = bucket_sums(Portable, &buckets).0;
                assert_eq!(got, want, "c = {c}, window {j}");
                #[cfg(all(target_arch = "x86_64", feature = "asm"))]
                if let Some(adx) = crate::field::Adx::detect() {
                    let buckets = affine::window_buckets(adx, md, &mont, &digits, c, nw, j);
                    let got = bucket_sums(adx, &buckets).0;
                    assert_eq!(got, want, "c = {c}, window {j}, ADX");
                }
            }
        }
    }

    #[test]
    fn msm_matches_naive() {
        let mut rng = rand::thread_rng();
        for n in [0usize, 1, 3, 17, 40, 60, 300, 2100] {
            let pts: Vec<Element> = (0..n)
                .map(|_| Element::generator() * Fr::rand(&mut rng))
                .collect();
            let sc: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
            let naive: Element = pts.iter().zip(&sc).map(|(p, s)| *p * *s).sum();
            assert_eq!(vartime_multi_scalar_mul(&pts, &sc), naive, "n = {n}");
            assert_eq!(vartime_straus(&pts, &sc), naive, "n = {n}");
        }
    }

    /// Small negative scalars take the `(−s)·(−P)` form; mixed signs, ±1, 0 and the
    /// half-order boundary give the same sum as the definition.
    #[test]
    fn straus_with_small_negative_scalars() {
        let mut rng = rand::thread_rng();
        let half_order = Fr::from_bigint(Fr::MODULUS_MINUS_ONE_DIV_TWO).unwrap();
        let scalars: Vec<Fr> = vec![
            -Fr::from(1u64),
            Fr::from(1u64),
            Fr::zero(),
            -Fr::from(123_456u64),
            half_order,
            half_order + Fr::from(1u64),
            -Fr::rand(&mut rng),
            Fr::rand(&mut rng),
        ];
        let pts: Vec<Element> = (0..scalars.len())
            .map(|_| Element::generator() * Fr::rand(&mut rng))
            .collect();
        for n in 0..=scalars.len() {
            let naive: Element = pts[..n]
                .iter()
                .zip(&scalars[..n])
                .map(|(p, s)| *p * *s)
                .sum();
            assert_eq!(vartime_straus(&pts[..n], &scalars[..n]), naive, "n = {n}");
        }
    }
}
