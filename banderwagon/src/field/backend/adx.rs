//! Montgomery multiplication in `Fq` with the BMI2 `mulx` and ADX `adcx`/`adox`
//! instructions (x86-64 only).
//!
//! The operands are arkworks' own Montgomery words (`R = 2²⁵⁶`, four little-endian limbs,
//! fully reduced), so the result is bit-identical to `Fq`'s portable multiplication.
//!
//! The product is computed by coarsely integrated operand scanning: four rounds, each adding
//! `a·b_i` and then `m·p` with `m = t_0·(−p⁻¹) mod 2⁶⁴`, and dropping the (now zero) low
//! limb. In each half-round the low words of the partial products ride the overflow-flag
//! chain (`adox`) and the high words the carry-flag chain (`adcx`), so the two additions do
//! not wait on each other. Because `p < 2²⁵⁵`, the running value stays below `2p` after
//! every round and needs only five limbs; one conditional subtraction ends in `[0, p)`.
//!
//! # Safety
//!
//! Executing `mulx`/`adcx`/`adox` on a processor without BMI2 and ADX is undefined
//! behaviour. [`Adx`] is the proof that both features were detected: its only constructor,
//! [`Adx::detect`], returns it after `is_x86_feature_detected!` said yes, and every `asm!`
//! block below is reached through a method taking an `Adx` by value.
#![allow(unsafe_code)]

use std::arch::asm;

use ark_ff::BigInt;

use crate::field::montgomery::{FieldMul, MODULUS, NEG_P_INV};
use crate::Fq;

/// `p` (four limbs) followed by `−p⁻¹ mod 2⁶⁴`, read by the assembly through one pointer.
static MODULUS_AND_INV: [u64; 5] = [MODULUS[0], MODULUS[1], MODULUS[2], MODULUS[3], NEG_P_INV];

/// The multiplication backend for processors with BMI2 and ADX; a value of this type exists
/// only once both features were detected at run time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Adx(());

impl Adx {
    /// `Some` when the running processor has BMI2 and ADX.
    pub(crate) fn detect() -> Option<Adx> {
        if std::is_x86_feature_detected!("bmi2") && std::is_x86_feature_detected!("adx") {
            Some(Adx(()))
        } else {
            None
        }
    }
}

/// `a·b·2⁻²⁵⁶ mod p` on raw limbs, for `a, b < p`.
#[inline(always)]
fn mont_mul(_proof: Adx, a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    // The rounds rotate the five accumulator registers; limbs 0..3 end in r4, r0, r1, r2.
    let (l0, l1, l2, l3): (u64, u64, u64, u64);
    // SAFETY: `_proof` exists only if BMI2 and ADX were detected (see `Adx::detect`), so
    // every instruction is supported. The block reads 32 bytes behind `a` and `b` (valid
    // references to four limbs) and 40 behind the static modulus, writes only the declared
    // registers, touches no stack, and clobbers the flags (the default).
    unsafe {
        asm!(
            "xor {z:e}, {z:e}",
            "mov rdx, qword ptr [{b}]",
            "mulx {r1}, {r0}, qword ptr [{a}]",
            "mulx {r2}, {lo}, qword ptr [{a} + 8]",
            "add {r1}, {lo}",
            "mulx {r3}, {lo}, qword ptr [{a} + 16]",
            "adc {r2}, {lo}",
            "mulx {r4}, {lo}, qword ptr [{a} + 24]",
            "adc {r3}, {lo}",
            "adc {r4}, {z}",
            "mov rdx, {r0}",
            "imul rdx, qword ptr [{p} + 32]",
            "xor {z:e}, {z:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "adox {r4}, {z}",
            "mov rdx, qword ptr [{b} + 8]",
            "xor {z:e}, {z:e}",
            "mulx {hi}, {lo}, qword ptr [{a} + 0]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {r0}, {lo}, qword ptr [{a} + 24]",
            "adox {r4}, {lo}",
            "adox {r0}, {z}",
            "adcx {r0}, {z}",
            "mov rdx, {r1}",
            "imul rdx, qword ptr [{p} + 32]",
            "xor {z:e}, {z:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r4}, {lo}",
            "adcx {r0}, {hi}",
            "adox {r0}, {z}",
            "mov rdx, qword ptr [{b} + 16]",
            "xor {z:e}, {z:e}",
            "mulx {hi}, {lo}, qword ptr [{a} + 0]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r4}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {r1}, {lo}, qword ptr [{a} + 24]",
            "adox {r0}, {lo}",
            "adox {r1}, {z}",
            "adcx {r1}, {z}",
            "mov rdx, {r2}",
            "imul rdx, qword ptr [{p} + 32]",
            "xor {z:e}, {z:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r2}, {lo}",
            "adcx {r3}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r4}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "adox {r1}, {z}",
            "mov rdx, qword ptr [{b} + 24]",
            "xor {z:e}, {z:e}",
            "mulx {hi}, {lo}, qword ptr [{a} + 0]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 8]",
            "adox {r4}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{a} + 16]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {r2}, {lo}, qword ptr [{a} + 24]",
            "adox {r1}, {lo}",
            "adox {r2}, {z}",
            "adcx {r2}, {z}",
            "mov rdx, {r3}",
            "imul rdx, qword ptr [{p} + 32]",
            "xor {z:e}, {z:e}",
            "mulx {hi}, {lo}, qword ptr [{p} + 0]",
            "adox {r3}, {lo}",
            "adcx {r4}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 8]",
            "adox {r4}, {lo}",
            "adcx {r0}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 16]",
            "adox {r0}, {lo}",
            "adcx {r1}, {hi}",
            "mulx {hi}, {lo}, qword ptr [{p} + 24]",
            "adox {r1}, {lo}",
            "adcx {r2}, {hi}",
            "adox {r2}, {z}",
            "mov {lo}, {r4}",
            "sub {lo}, qword ptr [{p}]",
            "mov {hi}, {r0}",
            "sbb {hi}, qword ptr [{p} + 8]",
            "mov rdx, {r1}",
            "sbb rdx, qword ptr [{p} + 16]",
            "mov {r3}, {r2}",
            "sbb {r3}, qword ptr [{p} + 24]",
            "cmovnc {r4}, {lo}",
            "cmovnc {r0}, {hi}",
            "cmovnc {r1}, rdx",
            "cmovnc {r2}, {r3}",
            a = in(reg) a.as_ptr(),
            b = in(reg) b.as_ptr(),
            p = in(reg) MODULUS_AND_INV.as_ptr(),
            r0 = out(reg) l1,
            r1 = out(reg) l2,
            r2 = out(reg) l3,
            r3 = out(reg) _,
            r4 = out(reg) l0,
            lo = out(reg) _,
            hi = out(reg) _,
            z = out(reg) _,
            out("rdx") _,
            options(pure, readonly, nostack),
        );
    }
    [l0, l1, l2, l3]
}

impl FieldMul for Adx {
    #[inline(always)]
    fn mul(self, a: &Fq, b: &Fq) -> Fq {
        Fq::new_unchecked(BigInt(mont_mul(self, &a.0 .0, &b.0 .0)))
    }

    #[inline(always)]
    fn square(self, a: &Fq) -> Fq {
        Fq::new_unchecked(BigInt(mont_mul(self, &a.0 .0, &a.0 .0)))
    }
}
