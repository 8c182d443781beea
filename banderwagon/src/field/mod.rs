//! Field multiplication backends for `Fq`, chosen once per hot call at run time.
//!
//! The hot loops (fixed-base sums, bucket additions, square roots) are generic over
//! [`FieldMul`] and monomorphised twice: with [`Portable`] (arkworks' multiplication) and,
//! on x86-64 processors with BMI2 and ADX, with `Adx` (`mulx`/`adcx`/`adox` assembly, see
//! `adx.rs`), or on WebAssembly with `Limb29` (29-bit limbs in native 64-bit products, see
//! `limb29.rs`). Each public entry point picks one with [`with_field_mul!`], which reads a
//! cached detection result; the binaries still run on any x86-64.
//!
//! [`use_portable_field`] forces the portable path and [`use_lanes`] turns the 8-lane
//! AVX-512 IFMA products off or on; the library reads no environment variables (binaries
//! and benchmarks map their own switches onto these calls). Without the `asm` feature, or
//! on other architectures, only the portable path exists.

use core::sync::atomic::{AtomicU8, Ordering};

use ark_ff::Field;

use crate::Fq;

#[cfg(all(target_arch = "x86_64", feature = "asm"))]
mod adx;
#[cfg(all(target_arch = "x86_64", feature = "asm"))]
pub(crate) use adx::Adx;
#[cfg(all(target_arch = "x86_64", feature = "asm"))]
pub(crate) mod ifma;
// Compiled natively too, so that the tests compare it with arkworks on every platform.
#[cfg(test)]
mod ifma_model;
#[cfg(any(target_arch = "wasm32", test))]
mod limb29;
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) use limb29::Limb29;

/// Montgomery multiplication and squaring in `Fq`, bit-identical to arkworks'.
pub(crate) trait FieldMul: Copy {
    /// `a·b`.
    fn mul(self, a: &Fq, b: &Fq) -> Fq;
    /// `a²`.
    fn square(self, a: &Fq) -> Fq;
}

/// arkworks' portable multiplication.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Portable;

impl FieldMul for Portable {
    #[inline(always)]
    fn mul(self, a: &Fq, b: &Fq) -> Fq {
        *a * b
    }

    #[inline(always)]
    fn square(self, a: &Fq) -> Fq {
        a.square()
    }
}

/// The backend chosen for this process.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Backend {
    Portable(Portable),
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    Adx(Adx),
    #[cfg(target_arch = "wasm32")]
    Limb29(Limb29),
}

const UNDECIDED: u8 = 0;
const PORTABLE: u8 = 1;
#[cfg_attr(not(all(target_arch = "x86_64", feature = "asm")), allow(dead_code))]
const ADX: u8 = 2;
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
const LIMB29: u8 = 3;

static CHOICE: AtomicU8 = AtomicU8::new(UNDECIDED);

/// Forces arkworks' portable field multiplication (`true`) or returns to the fastest one
/// the processor supports (`false`), for all threads. Results are identical either way;
/// this exists for tests and A/B measurements.
pub fn use_portable_field(force: bool) {
    CHOICE.store(if force { PORTABLE } else { detect() }, Ordering::Relaxed);
    LANES.store(if force { OFF } else { detect_lanes() }, Ordering::Relaxed);
}

/// Allows (`true`, the default) or turns off (`false`) the 8-lane AVX-512 IFMA products, for
/// all threads, when the processor has them and the portable path is not forced. Results
/// are identical either way; this exists for A/B measurements.
pub fn use_lanes(allow: bool) {
    let portable = CHOICE.load(Ordering::Relaxed) == PORTABLE;
    LANES.store(
        if allow && !portable {
            detect_lanes()
        } else {
            OFF
        },
        Ordering::Relaxed,
    );
}

/// Whether batches of fixed-base products currently run eight at a time (AVX-512 IFMA).
pub fn field_uses_lanes() -> bool {
    lanes().is_some()
}

const OFF: u8 = 1;
#[cfg_attr(not(all(target_arch = "x86_64", feature = "asm")), allow(dead_code))]
const ON: u8 = 2;

/// Whether the 8-lane path is used: [`UNDECIDED`], [`OFF`] or [`ON`].
static LANES: AtomicU8 = AtomicU8::new(UNDECIDED);

fn detect_lanes() -> u8 {
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    if ifma::Ifma::detect().is_some() {
        return ON;
    }
    OFF
}

/// The 8-lane backend, unless the processor lacks AVX-512 IFMA or the portable path is
/// forced ([`use_portable_field`]) or the lanes are turned off ([`use_lanes`]).
#[cfg(all(target_arch = "x86_64", feature = "asm"))]
#[inline]
pub(crate) fn lanes() -> Option<ifma::Ifma> {
    let mut choice = LANES.load(Ordering::Relaxed);
    if choice == UNDECIDED {
        choice = detect_lanes();
        LANES.store(choice, Ordering::Relaxed);
    }
    if choice == ON {
        ifma::Ifma::detect()
    } else {
        None
    }
}

/// No 8-lane backend off x86-64 or without the `asm` feature.
#[cfg(not(all(target_arch = "x86_64", feature = "asm")))]
#[inline]
pub(crate) fn lanes() -> Option<core::convert::Infallible> {
    None
}

/// Whether hot loops currently use the assembly (BMI2/ADX) multiplication.
pub fn field_uses_adx() -> bool {
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    if let Backend::Adx(_) = backend() {
        return true;
    }
    false
}

fn detect() -> u8 {
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    if Adx::detect().is_some() {
        return ADX;
    }
    if cfg!(target_arch = "wasm32") {
        LIMB29
    } else {
        PORTABLE
    }
}

fn decide() -> u8 {
    let choice = detect();
    CHOICE.store(choice, Ordering::Relaxed);
    choice
}

/// The backend for this call (one relaxed load after the first call).
#[inline]
pub(crate) fn backend() -> Backend {
    let mut choice = CHOICE.load(Ordering::Relaxed);
    if choice == UNDECIDED {
        choice = decide();
    }
    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    if choice == ADX {
        if let Some(adx) = Adx::detect() {
            return Backend::Adx(adx);
        }
    }
    #[cfg(target_arch = "wasm32")]
    if choice == LIMB29 {
        return Backend::Limb29(Limb29);
    }
    let _ = choice;
    Backend::Portable(Portable)
}

/// `with_field_mul!(|m| expr)`: evaluates `expr` with `m` bound to the backend of
/// [`backend`], monomorphising `expr` once per backend.
macro_rules! with_field_mul {
    (|$m:ident| $body:expr) => {
        match $crate::field::backend() {
            #[cfg(all(target_arch = "x86_64", feature = "asm"))]
            $crate::field::Backend::Adx($m) => $body,
            #[cfg(target_arch = "wasm32")]
            $crate::field::Backend::Limb29($m) => $body,
            $crate::field::Backend::Portable($m) => $body,
        }
    };
}
pub(crate) use with_field_mul;

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use ark_ff::{One, PrimeField, UniformRand, Zero};
    use rand::{rngs::StdRng, SeedableRng};

    /// Values at the edges of the Montgomery representation.
    pub(crate) fn edge_values() -> Vec<Fq> {
        let mut v = vec![
            Fq::zero(),
            Fq::one(),
            -Fq::one(),
            -Fq::from(2u64),
            Fq::from(2u64),
            // R mod p as a value: the Montgomery word of R² mod p.
            Fq::from_bigint(Fq::R).unwrap_or_default(),
            Fq::from_bigint(Fq::R2).unwrap_or_default(),
            Fq::from_bigint(Fq::MODULUS_MINUS_ONE_DIV_TWO).unwrap_or_default(),
        ];
        // Raw words with all-ones limbs, top limbs near 2²⁵⁵ (kept below p), single bits.
        let p = Fq::MODULUS.0;
        for raw in [
            [u64::MAX, u64::MAX, u64::MAX, 0],
            [u64::MAX, u64::MAX, u64::MAX, p[3] - 1],
            [0, 0, 0, p[3] - 1],
            [p[0] - 1, p[1], p[2], p[3]],
            [p[0] - 2, p[1], p[2], p[3]],
            [1, 0, 0, 0],
            [0, 1, 0, 0],
            [0, 0, 1, 0],
            [0, 0, 0, 1],
            [0, 0, 0, 1 << 62],
            [u64::MAX, 0, u64::MAX, 0],
        ] {
            v.push(Fq::new_unchecked(ark_ff::BigInt(raw)));
        }
        for k in [63u64, 64, 128, 254] {
            let x = Fq::from(2u64).pow([k]);
            v.push(x);
            v.push(-x);
        }
        let squares: Vec<Fq> = v.iter().map(|x| x.square()).collect();
        v.extend(squares);
        v
    }

    fn check_backend<M: FieldMul>(m: M) {
        let edges = edge_values();
        for a in &edges {
            assert_eq!(m.square(a), a.square(), "{a}");
            for b in &edges {
                assert_eq!(m.mul(a, b), *a * b, "{a} * {b}");
            }
        }
        let mut rng = StdRng::seed_from_u64(0xadc);
        let n = if cfg!(debug_assertions) {
            20_000
        } else {
            1_000_000
        };
        // Also a dependent chain: outputs fed back as inputs.
        let mut x = Fq::rand(&mut rng);
        let mut y = x;
        for _ in 0..n {
            let a = Fq::rand(&mut rng);
            let b = Fq::rand(&mut rng);
            assert_eq!(m.mul(&a, &b), a * b, "{a} * {b}");
            assert_eq!(m.square(&a), a.square(), "{a}");
            x = m.mul(&m.square(&x), &a);
            y = y.square() * a;
        }
        assert_eq!(x, y);
    }

    #[test]
    fn portable_matches_arkworks() {
        check_backend(Portable);
    }

    #[cfg(all(target_arch = "x86_64", feature = "asm"))]
    #[test]
    fn adx_matches_arkworks() {
        match Adx::detect() {
            Some(adx) => check_backend(adx),
            None => eprintln!("no BMI2/ADX on this processor: assembly path not tested"),
        }
    }

    #[test]
    fn limb29_matches_arkworks() {
        check_backend(Limb29);
    }

    #[test]
    fn forcing_the_portable_path() {
        let _ = backend();
        let saved = CHOICE.load(Ordering::Relaxed);
        let saved_lanes = LANES.load(Ordering::Relaxed);
        use_portable_field(true);
        assert!(!field_uses_adx());
        assert!(!field_uses_lanes());
        assert!(matches!(backend(), Backend::Portable(_)));
        use_portable_field(false);
        assert_eq!(field_uses_adx(), detect() == ADX);
        assert_eq!(
            matches!(backend(), Backend::Portable(_)),
            detect() == PORTABLE
        );
        assert_eq!(field_uses_lanes(), detect_lanes() == ON);
        use_lanes(false);
        assert!(!field_uses_lanes());
        assert_eq!(field_uses_adx(), detect() == ADX);
        use_lanes(true);
        assert_eq!(field_uses_lanes(), detect_lanes() == ON);
        use_portable_field(true);
        use_lanes(true);
        assert!(
            !field_uses_lanes(),
            "lanes stay off while the portable path is forced"
        );
        CHOICE.store(saved, Ordering::Relaxed);
        LANES.store(saved_lanes, Ordering::Relaxed);
    }
}
