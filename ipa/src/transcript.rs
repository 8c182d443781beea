//! The Fiat–Shamir transcript: a SHA-256 state machine (`spec/WIRE.md` §15.1).
//!
//! `state := label`; a message appends `label ‖ bytes` with no length prefix; a challenge
//! appends its label, hashes the state, reduces the digest (little-endian) mod r, resets
//! the state and appends `label ‖ challenge`.

use banderwagon::{fr_from_le_bytes_mod_order, fr_to_le_bytes, Element, Fr};
use sha2::{Digest, Sha256};

/// A Fiat–Shamir transcript.
#[derive(Clone)]
pub struct Transcript {
    state: Sha256,
}

impl core::fmt::Debug for Transcript {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Transcript")
    }
}

impl Transcript {
    /// A transcript whose state starts as `label` (`"vt"` for Verkle witnesses).
    pub fn new(label: &[u8]) -> Transcript {
        let mut state = Sha256::new();
        state.update(label);
        Transcript { state }
    }

    /// Appends `label ‖ message`.
    pub fn append_message(&mut self, label: &[u8], message: &[u8]) {
        self.state.update(label);
        self.state.update(message);
    }

    /// Appends `label ‖ LE32(scalar)`.
    pub fn append_scalar(&mut self, label: &[u8], scalar: &Fr) {
        self.append_message(label, &fr_to_le_bytes(scalar));
    }

    /// Appends `label ‖ compress(point)`.
    pub fn append_point(&mut self, label: &[u8], point: &Element) {
        self.append_message(label, &point.to_bytes());
    }

    /// Appends `label ‖ bytes` where `bytes` is an already-compressed point.
    pub fn append_point_bytes(&mut self, label: &[u8], point: &[u8; 32]) {
        self.append_message(label, point);
    }

    /// Appends a domain separator.
    pub fn domain_sep(&mut self, label: &[u8]) {
        self.state.update(label);
    }

    /// Derives a challenge and folds it back into the (reset) state.
    pub fn challenge_scalar(&mut self, label: &[u8]) -> Fr {
        self.domain_sep(label);
        let digest = self.state.finalize_reset();
        let c = fr_from_le_bytes_mod_order(&digest);
        self.append_scalar(label, &c);
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::One;

    fn le(c: &Fr) -> String {
        hex::encode(fr_to_le_bytes(c))
    }

    #[test]
    fn reference_vectors() {
        let mut t = Transcript::new(b"simple_protocol");
        let c1 = t.challenge_scalar(b"simple_challenge");
        assert_eq!(
            le(&c1),
            "c2aa02607cbdf5595f00ee0dd94a2bbff0bed6a2bf8452ada9011eadb538d003"
        );
        assert_ne!(t.challenge_scalar(b"simple_challenge"), c1);

        let mut t = Transcript::new(b"simple_protocol");
        t.append_scalar(b"five", &Fr::from(5u64));
        t.append_scalar(b"five again", &Fr::from(5u64));
        assert_eq!(
            le(&t.challenge_scalar(b"simple_challenge")),
            "498732b694a8ae1622d4a9347535be589e4aee6999ffc0181d13fe9e4d037b0b"
        );

        let mut t = Transcript::new(b"simple_protocol");
        let minus_one = -Fr::one();
        t.append_scalar(b"-1", &minus_one);
        t.domain_sep(b"separate me");
        t.append_scalar(b"-1 again", &minus_one);
        t.domain_sep(b"separate me again");
        t.append_scalar(b"now 1", &Fr::one());
        assert_eq!(
            le(&t.challenge_scalar(b"simple_challenge")),
            "14f59938e9e9b1389e74311a464f45d3d88d8ac96adf1c1129ac466de088d618"
        );

        let mut t = Transcript::new(b"simple_protocol");
        t.append_point(b"generator", &Element::generator());
        assert_eq!(
            le(&t.challenge_scalar(b"simple_challenge")),
            "8c2dafe7c0aabfa9ed542bb2cbf0568399ae794fc44fdfd7dff6cc0e6144921c"
        );
    }
}
