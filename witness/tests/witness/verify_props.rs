//! Properties of `verify` on mutated real witnesses: it never panics; a mutation that changes
//! what the proof must show is rejected; and whatever it accepts agrees with the state the
//! unmutated witness proved (soundness against an oracle built from that state).

use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::sample::Index;
use witness::{
    owned::{OwnedExecutionWitness, OwnedSuffixStateDiff},
    verify, ExecutionWitness, NodeKind, VerifiedWitness,
};

use crate::common::read_text;
use crate::verify::chain;

/// A real witness, its pre-state root and what verifying it proved.
struct Base {
    name: String,
    root: [u8; 32],
    owned: OwnedExecutionWitness,
    proven: VerifiedWitness,
}

/// The witnesses mutated: every extension status, other stems, empty slots shared by
/// several stems, writes to absent and present stems, a witness with no commitments.
fn bases() -> &'static [Base] {
    static CELL: OnceLock<Vec<Base>> = OnceLock::new();
    CELL.get_or_init(|| {
        let root72 = "64e1a647f42e5c2e3c434531ccf529e1b3e93363a40db9fc8eec81f492123510";
        let w72 =
            ExecutionWitness::from_json_str(&read_text("witness/valid_block_72.json")).unwrap();
        let mut out = vec![(
            "valid_block_72".to_owned(),
            hex::decode(root72).unwrap().try_into().unwrap(),
            w72,
        )];
        for n in [1usize, 54, 55, 65, 120, 130] {
            let b = &chain()[n - 1];
            out.push((format!("block {n}"), b.parent_state_root, b.witness.clone()));
        }
        out.into_iter()
            .map(|(name, root, w)| {
                let proven = verify(&root, &w).unwrap_or_else(|e| panic!("{name}: {e}"));
                Base {
                    name,
                    root,
                    owned: w.to_owned_witness(),
                    proven,
                }
            })
            .collect()
    })
}

/// What the unmutated witness proved about a key.
#[derive(Debug, PartialEq, Eq)]
enum Truth {
    Known(Option<[u8; 32]>),
    Unknown,
}

fn truth(proven: &VerifiedWitness, stem: &[u8; 31], suffix: u8) -> Truth {
    let mut key = [0u8; 32];
    key[..31].copy_from_slice(stem);
    key[31] = suffix;
    if let Some(v) = proven.current_value(&key) {
        return Truth::Known(v.copied());
    }
    for depth in 1..=31 {
        let Some(node) = proven.node(&stem[..depth]) else {
            return Truth::Unknown;
        };
        match node.kind {
            NodeKind::Internal => continue,
            NodeKind::Empty => return Truth::Known(None),
            NodeKind::Leaf if node.leaf_stem != Some(*stem) => return Truth::Known(None),
            _ => return Truth::Unknown,
        }
    }
    Truth::Unknown
}

/// Whatever a mutated witness proves must be what the original proved.
fn assert_sound(base: &Base, accepted: &VerifiedWitness, what: &str) {
    for k in accepted.keys() {
        assert_eq!(
            truth(&base.proven, &k.stem, k.suffix),
            Truth::Known(k.current_value),
            "{}: {what} was accepted and claims {:02x?} = {:02x?}",
            base.name,
            k.key(),
            k.current_value
        );
    }
}

/// Mutations of the witness's fields. Indices are reduced modulo the lengths they index.
#[derive(Debug, Clone)]
enum Mutation {
    // Each of these changes what the proof must show: the result must be an error.
    FlipCurrentValue(Index, Index, u8),
    ClearCurrentValue(Index, Index),
    FlipCommitment(Index, u8),
    FlipProof(Index, u8),
    FlipExtension(Index, u8),
    SwapStems(Index, Index),
    SwapSuffixDiffs(Index, Index, Index),
    SwapCommitments(Index, Index),
    DuplicateStem(Index),
    DuplicateSuffixDiff(Index, Index),
    DuplicateCommitment(Index),
    DuplicateOtherStem(Index),
    DropCommitment(Index),
    DropOtherStem(Index),
    AddOtherStem([u8; 31]),
    // These may describe a smaller or different, still true, statement: checked for
    // soundness against the original's proven state.
    DropSuffixDiff(Index, Index),
    DropStem(Index),
    FlipStem(Index, u8),
    ChangeSuffix(Index, Index, u8),
    AddSuffixDiff(Index, u8, Option<[u8; 32]>),
}

impl Mutation {
    fn must_fail(&self) -> bool {
        !matches!(
            self,
            Mutation::DropSuffixDiff(..)
                | Mutation::DropStem(..)
                | Mutation::FlipStem(..)
                | Mutation::ChangeSuffix(..)
                | Mutation::AddSuffixDiff(..)
        )
    }
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let i = any::<Index>;
    prop_oneof![
        (i(), i(), any::<u8>()).prop_map(|(a, b, c)| Mutation::FlipCurrentValue(a, b, c)),
        (i(), i()).prop_map(|(a, b)| Mutation::ClearCurrentValue(a, b)),
        (i(), any::<u8>()).prop_map(|(a, b)| Mutation::FlipCommitment(a, b)),
        (i(), 0u8..8).prop_map(|(a, b)| Mutation::FlipProof(a, b)),
        (i(), 0u8..8).prop_map(|(a, b)| Mutation::FlipExtension(a, b)),
        (i(), i()).prop_map(|(a, b)| Mutation::SwapStems(a, b)),
        (i(), i(), i()).prop_map(|(a, b, c)| Mutation::SwapSuffixDiffs(a, b, c)),
        (i(), i()).prop_map(|(a, b)| Mutation::SwapCommitments(a, b)),
        i().prop_map(Mutation::DuplicateStem),
        (i(), i()).prop_map(|(a, b)| Mutation::DuplicateSuffixDiff(a, b)),
        i().prop_map(Mutation::DuplicateCommitment),
        i().prop_map(Mutation::DuplicateOtherStem),
        i().prop_map(Mutation::DropCommitment),
        i().prop_map(Mutation::DropOtherStem),
        proptest::array::uniform31(any::<u8>()).prop_map(Mutation::AddOtherStem),
        (i(), i()).prop_map(|(a, b)| Mutation::DropSuffixDiff(a, b)),
        i().prop_map(Mutation::DropStem),
        (i(), any::<u8>()).prop_map(|(a, b)| Mutation::FlipStem(a, b)),
        (i(), i(), any::<u8>()).prop_map(|(a, b, c)| Mutation::ChangeSuffix(a, b, c)),
        (
            i(),
            any::<u8>(),
            proptest::option::of(proptest::array::uniform32(any::<u8>()))
        )
            .prop_map(|(a, b, c)| Mutation::AddSuffixDiff(a, b, c)),
    ]
}

fn pick<T>(v: &[T], i: &Index) -> Option<usize> {
    (!v.is_empty()).then(|| i.index(v.len()))
}

fn flip(bytes: &mut [u8], bit: u8) {
    let at = usize::from(bit / 8) % bytes.len();
    bytes[at] ^= 1 << (bit % 8);
}

/// Applies `m`; `None` when it does not apply to this witness (nothing to index).
fn apply(w: &OwnedExecutionWitness, m: &Mutation) -> Option<OwnedExecutionWitness> {
    let mut w = w.clone();
    let sd = &mut w.state_diff;
    let vp = &mut w.verkle_proof;
    match m {
        Mutation::FlipCurrentValue(s, d, bit) => {
            let s = pick(sd, s)?;
            let d = pick(&sd[s].suffix_diffs, d)?;
            let v = sd[s].suffix_diffs[d].current_value.get_or_insert([0; 32]);
            flip(v, *bit);
        }
        Mutation::ClearCurrentValue(s, d) => {
            let s = pick(sd, s)?;
            let d = pick(&sd[s].suffix_diffs, d)?;
            sd[s].suffix_diffs[d].current_value.take()?;
        }
        Mutation::FlipCommitment(i, bit) => {
            let i = pick(&vp.commitments_by_path, i)?;
            flip(&mut vp.commitments_by_path[i], *bit);
        }
        Mutation::FlipProof(i, bit) => {
            let mut bytes = [0u8; 576];
            bytes[..32].copy_from_slice(&vp.d);
            for (k, p) in vp.ipa_proof.cl.iter().chain(&vp.ipa_proof.cr).enumerate() {
                bytes[32 + 32 * k..64 + 32 * k].copy_from_slice(p);
            }
            bytes[544..].copy_from_slice(&vp.ipa_proof.final_evaluation);
            bytes[i.index(576)] ^= 1 << bit;
            vp.d.copy_from_slice(&bytes[..32]);
            for k in 0..8 {
                vp.ipa_proof.cl[k].copy_from_slice(&bytes[32 + 32 * k..64 + 32 * k]);
                vp.ipa_proof.cr[k].copy_from_slice(&bytes[288 + 32 * k..320 + 32 * k]);
            }
            vp.ipa_proof.final_evaluation.copy_from_slice(&bytes[544..]);
        }
        Mutation::FlipExtension(i, bit) => {
            let i = pick(&vp.depth_extension_present, i)?;
            vp.depth_extension_present[i] ^= 1 << bit;
        }
        Mutation::SwapStems(a, b) => {
            let (a, b) = (pick(sd, a)?, pick(sd, b)?);
            if a == b {
                return None;
            }
            sd.swap(a, b);
            vp.depth_extension_present.swap(a, b);
        }
        Mutation::SwapSuffixDiffs(s, a, b) => {
            let s = pick(sd, s)?;
            let diffs = &mut sd[s].suffix_diffs;
            let (a, b) = (pick(diffs, a)?, pick(diffs, b)?);
            if a == b {
                return None;
            }
            diffs.swap(a, b);
        }
        Mutation::SwapCommitments(a, b) => {
            let c = &mut vp.commitments_by_path;
            let (a, b) = (pick(c, a)?, pick(c, b)?);
            if c[a] == c[b] {
                return None;
            }
            c.swap(a, b);
        }
        Mutation::DuplicateStem(s) => {
            let s = pick(sd, s)?;
            sd.insert(s, sd[s].clone());
            vp.depth_extension_present
                .insert(s, vp.depth_extension_present[s]);
        }
        Mutation::DuplicateSuffixDiff(s, d) => {
            let s = pick(sd, s)?;
            let diffs = &mut sd[s].suffix_diffs;
            let d = pick(diffs, d)?;
            diffs.insert(d, diffs[d].clone());
        }
        Mutation::DuplicateCommitment(i) => {
            let c = &mut vp.commitments_by_path;
            let i = pick(c, i)?;
            c.insert(i, c[i]);
        }
        Mutation::DuplicateOtherStem(i) => {
            let o = &mut vp.other_stems;
            let i = pick(o, i)?;
            o.insert(i, o[i]);
        }
        Mutation::DropCommitment(i) => {
            let i = pick(&vp.commitments_by_path, i)?;
            vp.commitments_by_path.remove(i);
        }
        Mutation::DropOtherStem(i) => {
            let i = pick(&vp.other_stems, i)?;
            vp.other_stems.remove(i);
        }
        Mutation::AddOtherStem(stem) => {
            let o = &mut vp.other_stems;
            if o.contains(stem) {
                return None;
            }
            o.push(*stem);
            o.sort();
        }
        Mutation::DropSuffixDiff(s, d) => {
            let s = pick(sd, s)?;
            let d = pick(&sd[s].suffix_diffs, d)?;
            sd[s].suffix_diffs.remove(d);
        }
        Mutation::DropStem(s) => {
            let s = pick(sd, s)?;
            sd.remove(s);
            vp.depth_extension_present.remove(s);
        }
        Mutation::FlipStem(s, bit) => {
            let s = pick(sd, s)?;
            flip(&mut sd[s].stem, *bit);
        }
        Mutation::ChangeSuffix(s, d, suffix) => {
            let s = pick(sd, s)?;
            let d = pick(&sd[s].suffix_diffs, d)?;
            sd[s].suffix_diffs[d].suffix = *suffix;
        }
        Mutation::AddSuffixDiff(s, suffix, current_value) => {
            let s = pick(sd, s)?;
            let diffs = &mut sd[s].suffix_diffs;
            if diffs.iter().any(|d| d.suffix == *suffix) {
                return None;
            }
            diffs.push(OwnedSuffixStateDiff {
                suffix: *suffix,
                current_value: *current_value,
                new_value: None,
            });
            diffs.sort_by_key(|d| d.suffix);
        }
    }
    Some(w)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    /// Mutations that change what the proof must show are rejected; the others are accepted
    /// only when what they claim is true in the original's proven state.
    #[test]
    fn mutated_real_witnesses_are_rejected_or_sound(base in any::<Index>(), m in mutation()) {
        let base = &bases()[base.index(bases().len())];
        let Some(mutated) = apply(&base.owned, &m) else { return Ok(()) };
        prop_assume!(mutated != base.owned);
        let Ok(w) = mutated.to_witness() else { return Ok(()) };
        match verify(&base.root, &w) {
            Err(_) => {}
            Ok(accepted) => {
                prop_assert!(!m.must_fail(), "{}: {m:?} was accepted", base.name);
                assert_sound(base, &accepted, &format!("{m:?}"));
            }
        }
    }

    /// Random bit flips anywhere in the SSZ bytes: decoding and verifying never panic, and
    /// an accepted witness claims only what the original proved.
    #[test]
    fn ssz_bit_flips_never_verify_unsoundly(base in any::<Index>(), at in any::<Index>(), bit in 0u8..8) {
        let base = &bases()[base.index(bases().len())];
        let mut bytes = base.owned.to_ssz().unwrap();
        let at = at.index(bytes.len());
        bytes[at] ^= 1 << bit;
        let Ok(w) = ExecutionWitness::from_ssz_slice(&bytes) else { return Ok(()) };
        if let Ok(accepted) = verify(&base.root, &w) {
            assert_sound(base, &accepted, &format!("flipping bit {bit} of SSZ byte {at}"));
        }
    }

    /// New values are not part of the proof: changing them keeps the witness valid, and the
    /// post-state root changes exactly when the resulting post-state values change.
    #[test]
    fn new_values_move_the_post_state_root(
        base in any::<Index>(),
        s in any::<Index>(),
        d in any::<Index>(),
        new_value in proptest::option::of(proptest::array::uniform32(any::<u8>())),
        copy_current in any::<bool>(),
    ) {
        let base = &bases()[base.index(bases().len())];
        let mut owned = base.owned.clone();
        let sd = &mut owned.state_diff;
        let s = s.index(sd.len());
        let d = d.index(sd[s].suffix_diffs.len());
        let diff = &mut sd[s].suffix_diffs[d];
        let old_effective = diff.new_value.or(diff.current_value);
        diff.new_value = if copy_current { diff.current_value } else { new_value };
        let new_effective = diff.new_value.or(diff.current_value);
        let accepted = verify(&base.root, &owned.to_witness().unwrap()).unwrap();
        let before = base.proven.post_state_root().unwrap();
        let after = accepted.post_state_root().unwrap();
        prop_assert_eq!(before == after, old_effective == new_effective,
            "{}: stem {} diff {}: {:?} -> {:?}", base.name, s, d, old_effective, new_effective);
    }
}
