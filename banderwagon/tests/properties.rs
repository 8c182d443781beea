//! Property tests of the group encoding.

#![allow(clippy::unwrap_used)]

use ark_ed_on_bls12_381_bandersnatch::{EdwardsAffine, EdwardsProjective};
use banderwagon::{DecodeError, Element, Fq, Fr};
use proptest::prelude::*;

fn element(seed: u64) -> Element {
    Element::generator() * Fr::from(seed)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn encode_decode_round_trip(s in any::<u64>(), t in any::<u64>()) {
        let p = element(s) * Fr::from(t);
        let bytes = p.to_bytes();
        let q = Element::from_bytes(&bytes).unwrap();
        prop_assert_eq!(q, p);
        prop_assert_eq!(q.to_bytes(), bytes);
        prop_assert_eq!(q.map_to_scalar_field(), p.map_to_scalar_field());
    }

    #[test]
    fn p_and_p_plus_two_torsion_are_one_element(s in any::<u64>()) {
        use banderwagon::arith::{One, Zero};
        let p = element(s);
        let t2: EdwardsProjective = EdwardsAffine::new_unchecked(Fq::zero(), -Fq::one()).into();
        let shifted = Element::from_projective_unchecked(*p.as_projective() + t2);
        prop_assert_eq!(shifted, p);
        prop_assert_eq!(shifted.to_bytes(), p.to_bytes());
        prop_assert_eq!(shifted.map_to_scalar_field(), p.map_to_scalar_field());
    }

    #[test]
    fn no_byte_string_panics_the_decoder(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        match Element::from_bytes(&bytes) {
            Ok(p) => {
                prop_assert_eq!(bytes.len(), 32);
                // Whatever decodes re-encodes to the same canonical bytes.
                prop_assert_eq!(p.to_bytes().to_vec(), bytes);
            }
            Err(DecodeError::WrongLength { got }) => prop_assert_eq!(got, bytes.len()),
            Err(_) => prop_assert_eq!(bytes.len(), 32),
        }
    }

    #[test]
    fn scalar_decoder_is_total(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        if let Ok(s) = banderwagon::fr_from_le_bytes_canonical(&bytes) {
            prop_assert_eq!(banderwagon::fr_to_le_bytes(&s).to_vec(), bytes);
        }
    }
}
