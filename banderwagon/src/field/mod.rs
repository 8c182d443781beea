//! Field multiplication backends for `Fq`, chosen once per hot call at run time.
//!
//! The hot loops (fixed-base sums, bucket additions, square roots) are generic over
//! [`FieldMul`]. Natively they are monomorphised once per backend: `Portable` (arkworks'
//! multiplication) and, on x86-64 processors with BMI2 and ADX, `Adx` (`mulx`/`adcx`/`adox`
//! assembly, see `backend/adx.rs`). On WebAssembly they are compiled once, for
//! `Limb29OrPortable`: 29-bit limbs in native 64-bit products (`backend/limb29.rs`), or
//! arkworks' multiplication when the portable field is forced, one predictable branch per
//! product, so the module carries one copy of each loop. Each public entry point picks one with [`with_field_mul!`],
//! which reads a cached detection result (`backend/mod.rs`); the binaries still run on any
//! x86-64. Batches of fixed-base products, bucket additions and square roots run eight at a
//! time on AVX-512 IFMA (`backend/ifma.rs`) where [`lanes`] returns the token.
//!
//! [`use_portable_field`] forces the portable path and [`use_lanes`] turns the 8-lane
//! AVX-512 IFMA products off or on; the library reads no environment variables (binaries
//! and benchmarks map their own switches onto these calls). Without the `asm` feature, or
//! on other architectures, only the portable path exists.

pub(crate) mod backend;
pub(crate) mod montgomery;
#[cfg(test)]
pub(crate) mod test_values;

pub(crate) use backend::with_field_mul;
#[cfg(all(target_arch = "x86_64", feature = "asm"))]
pub(crate) use backend::{ifma, lanes};
// The backends by name, for the tests that compare them.
#[cfg(all(test, target_arch = "x86_64", feature = "asm"))]
pub(crate) use backend::Adx;
pub use backend::{field_uses_adx, field_uses_lanes, use_lanes, use_portable_field};
#[cfg(test)]
pub(crate) use backend::{Limb29, Portable};
pub(crate) use montgomery::FieldMul;
