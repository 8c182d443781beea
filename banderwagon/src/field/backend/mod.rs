//! The run-time choice among the field backends: the one place that detects the processor's
//! features and picks the multiplication the hot loops use.
//!
//! The backends, each bit-identical to arkworks' multiplication:
//! - `arkworks`: arkworks' portable multiplication ([`Portable`]), everywhere;
//! - `adx`: `mulx`/`adcx`/`adox` assembly (`Adx`), on x86-64 processors with BMI2 and ADX;
//! - `ifma`: eight values at once on AVX-512 IFMA (`ifma::Ifma`, with its portable model
//!   `ifma_model` for the tests), on x86-64 processors with AVX-512F and AVX-512 IFMA;
//! - `limb29`: 29-bit limbs in native 64-bit products (`Limb29`), on WebAssembly.
//!
//! The scalar choice ([`current`], read by [`with_field_mul!`]) and the 8-lane choice
//! ([`lanes`]) are each detected once and cached in an atomic; [`use_portable_field`] and
//! [`use_lanes`] override them for all threads.

use core::sync::atomic::{AtomicU8, Ordering};

#[cfg(all(target_arch = "x86_64", feature = "asm"))]
mod adx;
#[cfg(all(target_arch = "x86_64", feature = "asm"))]
pub(crate) use adx::Adx;
mod arkworks;
pub(crate) use arkworks::Portable;
#[cfg(all(target_arch = "x86_64", feature = "asm"))]
pub(crate) mod ifma;
// Compiled natively too, so that the tests compare it with arkworks on every platform.
#[cfg(test)]
mod ifma_model;
#[cfg(any(target_arch = "wasm32", test))]
mod limb29;
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) use limb29::Limb29;
#[cfg(target_arch = "wasm32")]
pub(crate) use limb29::Limb29OrPortable;

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
    if let Backend::Adx(_) = current() {
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
pub(crate) fn current() -> Backend {
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
/// [`current`]. On WebAssembly `expr` is monomorphised once, for [`Limb29OrPortable`]
/// (the portable choice is a flag in it), keeping the module small.
#[cfg(target_arch = "wasm32")]
macro_rules! with_field_mul {
    (|$m:ident| $body:expr) => {{
        let $m = $crate::field::backend::Limb29OrPortable {
            portable: matches!(
                $crate::field::backend::current(),
                $crate::field::backend::Backend::Portable(_)
            ),
        };
        $body
    }};
}
/// `with_field_mul!(|m| expr)`: evaluates `expr` with `m` bound to the backend of
/// [`current`], monomorphising `expr` once per backend.
#[cfg(not(target_arch = "wasm32"))]
macro_rules! with_field_mul {
    (|$m:ident| $body:expr) => {
        match $crate::field::backend::current() {
            #[cfg(all(target_arch = "x86_64", feature = "asm"))]
            $crate::field::backend::Backend::Adx($m) => $body,
            $crate::field::backend::Backend::Portable($m) => $body,
        }
    };
}
pub(crate) use with_field_mul;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::montgomery::FieldMul;
    use crate::field::test_values::edge_values;
    use crate::Fq;
    use ark_ff::{Field, UniformRand};
    use rand::{rngs::StdRng, SeedableRng};

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
        let _ = current();
        let saved = CHOICE.load(Ordering::Relaxed);
        let saved_lanes = LANES.load(Ordering::Relaxed);
        use_portable_field(true);
        assert!(!field_uses_adx());
        assert!(!field_uses_lanes());
        assert!(matches!(current(), Backend::Portable(_)));
        use_portable_field(false);
        assert_eq!(field_uses_adx(), detect() == ADX);
        assert_eq!(
            matches!(current(), Backend::Portable(_)),
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
