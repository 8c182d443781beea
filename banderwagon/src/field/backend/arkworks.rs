//! arkworks' own multiplication in `Fq`: the portable backend, on every target.

use ark_ff::Field;

use crate::field::montgomery::FieldMul;
use crate::Fq;

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
