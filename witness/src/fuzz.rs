//! Bodies of the fuzz targets in `fuzz/`, also run by this crate's property tests.
//!
//! Each takes arbitrary bytes and must never panic except on a broken invariant of this
//! crate (which is what the assertions below state). The targets: [`ssz`], [`json`],
//! [`verify`] (`root ‖ SSZ witness`) and [`fractional`] (`coordinator root ‖ proof`).
//! [`oracle`] holds an accepted mutant to what its honest original proves (the
//! structure-aware targets of `verkle::fuzz` and `fractional::fuzz` and the differential
//! runner use it).

pub mod openings;
pub mod oracle;

use bytes::Bytes;

use crate::fractional::{Anchor, FractionalProof};
use crate::{
    canonical::check_canonical, fractional::verify_fractional, ExecutionWitness, VerifyError,
};

/// Decodes `data` as SSZ; when it decodes, checks that it is canonical (re-encoding gives
/// the same bytes), that JSON written from it reads back to the same witness, and exercises
/// every accessor.
///
/// # Panics
/// Only if one of those invariants breaks.
pub fn ssz(data: &[u8]) {
    let Ok(w) = ExecutionWitness::from_ssz_slice(data) else {
        return;
    };
    let reencoded = w.to_owned_witness().to_ssz();
    assert_eq!(
        reencoded.as_deref().ok(),
        Some(data),
        "decode then encode must give back the input bytes"
    );
    exercise(&w);
    let json = w.to_json_value();
    let back = ExecutionWitness::from_json_value(&json);
    assert_eq!(
        back.ok().as_ref(),
        Some(&w),
        "JSON round trip changed the witness"
    );
}

/// Reads `data` as a JSON document holding one witness; when it reads, checks that the JSON
/// written from it reads back to the same witness, and that its SSZ decodes to it.
///
/// # Panics
/// Only if one of those invariants breaks.
pub fn json(data: &[u8]) {
    let Ok(text) = core::str::from_utf8(data) else {
        return;
    };
    let Ok(w) = ExecutionWitness::from_json_str(text) else {
        return;
    };
    exercise(&w);
    let back = ExecutionWitness::from_json_str(&w.to_json_string());
    assert_eq!(
        back.ok().as_ref(),
        Some(&w),
        "JSON round trip changed the witness"
    );
    let again = ExecutionWitness::from_ssz(w.as_ssz().clone());
    assert_eq!(
        again.ok().as_ref(),
        Some(&w),
        "SSZ round trip changed the witness"
    );
}

/// Splits `32-byte root ‖ rest`; `None` when `data` is shorter than the root.
fn root_and_rest(data: &[u8]) -> Option<([u8; 32], &[u8])> {
    let (root, rest) = data.split_at_checked(32)?;
    Some((root.try_into().ok()?, rest))
}

/// Reads `data` as a 32-byte pre-state root followed by an SSZ witness; when it decodes,
/// verifies it against the root, and when that succeeds, computes the post-state root.
/// `Some` when it verified.
///
/// # Panics
/// Only if an invariant of a verified witness breaks: its pre-state root is the one given,
/// it proves every key of the state diff (in order, each found by
/// [`VerifiedWitness::current_value`](crate::VerifiedWitness::current_value)), verifying
/// again gives the same result, and its post-state root can be computed.
pub fn verify(data: &[u8]) -> Option<()> {
    let (root, ssz) = root_and_rest(data)?;
    let w = ExecutionWitness::from_ssz_slice(ssz).ok()?;
    let v = match crate::verify(&root, &w) {
        Ok(v) => v,
        Err(e) => {
            // A canonical-form error from `verify` is the one `check_canonical` reports.
            if let VerifyError::NotCanonical(c) = &e {
                assert_eq!(check_canonical(&w).err().as_ref(), Some(c));
            }
            return None;
        }
    };
    assert_eq!(v.pre_state_root(), &root);
    assert_eq!(v.keys().len(), w.state_diff().suffix_diff_count());
    assert_eq!(v.stems().len(), w.state_diff().len());
    for k in v.keys() {
        assert_eq!(
            v.current_value(&k.key()),
            Some(k.current_value.as_ref()),
            "a proven key is found by its own key"
        );
    }
    let again = crate::verify(&root, &w).map(|a| (a.keys().to_vec(), a.opening_count()));
    assert_eq!(again, Ok((v.keys().to_vec(), v.opening_count())));
    let post = v.post_state_root();
    assert!(
        post.is_ok(),
        "a verified witness has a post-state root: {post:?}"
    );
    Some(())
}

/// Reads `data` as a 32-byte root followed by a fractional proof; when it decodes, checks
/// that it is canonical (rebuilt from its views, it encodes to the same bytes) and verifies
/// it with the root as a state-root anchor, then as a coordinator-root anchor. `Some` when
/// it verified under either.
///
/// # Panics
/// Only if one of those invariants breaks, or a verified proof's keys are not ascending,
/// not found by [`VerifiedFractional::current_value`](crate::fractional::VerifiedFractional::current_value),
/// has an unbound absence, or has no post-state roots.
pub fn fractional(data: &[u8]) -> Option<()> {
    let (root, rest) = root_and_rest(data)?;
    let proof = FractionalProof::from_bytes(Bytes::copy_from_slice(rest)).ok()?;
    assert_eq!(
        proof.to_owned_proof().to_bytes().ok().as_deref(),
        Some(rest),
        "decode then encode must give back the input bytes"
    );
    let mut verified = false;
    for anchor in [Anchor::StateRoot(root), Anchor::CoordinatorRoot(root)] {
        let Ok(v) = verify_fractional(&proof, &anchor) else {
            continue;
        };
        verified = true;
        assert_eq!(v.depth(), proof.depth());
        assert_eq!(v.witness().unbound_absences(), 0, "every absence is bound");
        let keys = v.keys();
        for pair in keys.windows(2) {
            assert!(pair[0].key() < pair[1].key(), "keys ascending");
        }
        for k in &keys {
            assert_eq!(v.current_value(&k.key()), Some(k.current_value.as_ref()));
        }
        let post = v.post_roots();
        assert!(
            post.is_ok(),
            "a verified proof has post-state roots: {post:?}"
        );
    }
    verified.then_some(())
}

/// Touches every view, so a bad index table would show.
fn exercise(w: &ExecutionWitness) {
    let _ = check_canonical(w);
    let mut diffs = 0usize;
    for s in w.state_diff() {
        for d in s.suffix_diffs {
            diffs += 1;
            let _ = (d.suffix, d.current_value, d.new_value);
        }
    }
    assert_eq!(diffs, w.state_diff().suffix_diff_count());
    let proof = w.verkle_proof();
    let multiproof = proof.multiproof_bytes();
    assert_eq!(multiproof.get(..32), Some(&proof.d()[..]));
    assert_eq!(
        proof.other_stems().iter().count(),
        proof.other_stems().len()
    );
    assert_eq!(
        proof.commitments_by_path().iter().count(),
        proof.commitments_by_path().len()
    );
}
