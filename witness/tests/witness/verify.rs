//! Stateless verification and post-state roots against the real witnesses of
//! `shared/vectors`: geth/go-verkle wrote them, so agreeing with them is the evidence.

use std::sync::OnceLock;
use std::time::Instant;

use banderwagon::DecodeError;
use witness::{
    owned::OwnedExecutionWitness, verify, verify_batch, ExecutionWitness, ExtensionStatus,
    NodeKind, PostStateError, VerifiedWitness, VerifyError,
};

use crate::common::{read_json, read_text, CHAIN_FILE};

fn hex32(s: &str) -> [u8; 32] {
    hex::decode(s.trim_start_matches("0x"))
        .unwrap()
        .try_into()
        .unwrap()
}

fn from_file(rel: &str) -> ExecutionWitness {
    ExecutionWitness::from_json_str(&read_text(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Kaustinen6 genesis root (devnet6), the pre-state of block 1.
const DEVNET6_GENESIS_ROOT: &str =
    "0x1fbf85345a3cbba9a6d44f991b721e55620a22397c2a93ee8d5011136ac300ee";
/// The pre-state root of block 72 (rust-verkle `VerifyProofTest.java`).
const BLOCK_72_PRE_ROOT: &str =
    "0x64e1a647f42e5c2e3c434531ccf529e1b3e93363a40db9fc8eec81f492123510";
/// The EEST fixture's genesis root.
const EEST_GENESIS_ROOT: &str =
    "0x3901899f4bfd31a5d77611f70c4eb98cffdbbe5280fba656631f04336afe6f5a";

/// Blocks of the Kaustinen6 chain whose witness does not list every write of the block, so
/// that the post-state root from the witness alone cannot equal the block's `stateRoot`.
///
/// Block 1: geth created the EIP-2935 history account
/// `0xfffffffffffffffffffffffffffffffffffffffe` (version, balance, nonce, code keccak) without
/// listing those four leaves in the witness (`shared/vectors/README.md`).
const WITNESS_OMITS_WRITES: [u64; 1] = [1];

/// One block of the chain file.
pub struct ChainBlock {
    pub number: u64,
    pub parent_state_root: [u8; 32],
    pub state_root: [u8; 32],
    pub witness: ExecutionWitness,
}

/// The 200 blocks of the chain file, read once per test binary.
pub fn chain() -> &'static [ChainBlock] {
    static CELL: OnceLock<Vec<ChainBlock>> = OnceLock::new();
    CELL.get_or_init(|| {
        let doc = read_json(CHAIN_FILE);
        let blocks = doc["blocks"].as_array().expect("chain: blocks array");
        assert_eq!(blocks.len(), 200, "{CHAIN_FILE}: block count");
        blocks
            .iter()
            .map(|b| {
                let number = b["blockNumber"].as_u64().expect("blockNumber");
                let root = |k: &str| hex32(b[k].as_str().unwrap_or_else(|| panic!("{k}")));
                ChainBlock {
                    number,
                    parent_state_root: root("parentStateRoot"),
                    state_root: root("stateRoot"),
                    witness: ExecutionWitness::from_json_value(&b["executionWitness"])
                        .unwrap_or_else(|e| panic!("{CHAIN_FILE} block {number}: {e}")),
                }
            })
            .collect()
    })
}

/// Verifies every block on `threads` threads (the chain tests are the slow ones).
fn verify_all<T: Send>(
    blocks: &'static [ChainBlock],
    f: impl Fn(&'static ChainBlock) -> T + Sync,
) -> Vec<T> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = blocks.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = blocks
            .chunks(chunk)
            .map(|part| s.spawn(|| part.iter().map(&f).collect::<Vec<T>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("verifier thread panicked"))
            .collect()
    })
}

#[test]
fn valid_block_1_verifies_against_the_devnet6_genesis_root() {
    let w = from_file("witness/valid_block_1.json");
    let root = hex32(DEVNET6_GENESIS_ROOT);
    let v = verify(&root, &w).unwrap();
    assert_eq!(v.pre_state_root(), &root);
    // One absent-other stem at depth 1; its leaf belongs to the one other stem.
    let other = *w.verkle_proof().other_stems().get(0).unwrap();
    let [s] = v.stems() else {
        panic!("one stem expected")
    };
    assert_eq!(s.status, ExtensionStatus::AbsentOther);
    assert_eq!(s.depth, 1);
    assert_eq!(s.leaf_stem, Some(other));
    // The root opened at stem[0]; the other stem's leaf opened at z = 0 and 1.
    assert_eq!(v.opening_count(), 3);
    let leaf = v.node(&s.stem[..1]).unwrap();
    assert_eq!(leaf.kind, NodeKind::Leaf);
    assert_eq!(leaf.leaf_stem, Some(other));
    assert_eq!(v.nodes().len(), 2);
    let mut key = [0u8; 32];
    key[..31].copy_from_slice(&s.stem);
    key[31] = 64;
    assert_eq!(v.current_value(&key), Some(None));
    key[31] = 65;
    assert_eq!(v.current_value(&key), None);
}

#[test]
fn valid_block_72_verifies_and_invalid_block_72_is_rejected() {
    let root = hex32(BLOCK_72_PRE_ROOT);
    let valid = from_file("witness/valid_block_72.json");
    let v = verify(&root, &valid).unwrap();
    // 5 stems: the root, internal nodes, leaves and suffix trees, deduplicated by (path, z).
    assert_eq!(v.stems().len(), 5);
    assert_eq!(v.opening_count(), 65);
    // Every present key's value is the proven one.
    for k in v.keys() {
        assert_eq!(v.current_value(&k.key()), Some(k.current_value.as_ref()));
    }
    let invalid = from_file("witness/invalid_block_72.json");
    let err = verify(&root, &invalid).unwrap_err();
    assert_eq!(err, VerifyError::ProofRejected, "{err}");
    // And valid_block_72 against the devnet6 genesis root is rejected too.
    assert_eq!(
        verify(&hex32(DEVNET6_GENESIS_ROOT), &valid).unwrap_err(),
        VerifyError::ProofRejected
    );
}

#[test]
fn eest_witness_verifies_against_its_genesis_and_gives_its_post_root() {
    let doc = read_json("witness/eest_verkleBlock.json");
    let w = ExecutionWitness::from_json_value(&doc).unwrap();
    let genesis = hex32(EEST_GENESIS_ROOT);
    assert_eq!(
        doc["genesisBlockHeader"]["stateRoot"].as_str(),
        Some(EEST_GENESIS_ROOT)
    );
    let v = verify(&genesis, &w).unwrap();
    let statuses: Vec<_> = v.stems().iter().map(|s| s.status).collect();
    assert_eq!(
        statuses,
        [
            ExtensionStatus::Present,
            ExtensionStatus::Present,
            ExtensionStatus::AbsentEmpty,
            ExtensionStatus::AbsentEmpty
        ]
    );
    // The witness lists every write of the block (sender, EIP-2935 slot, fee recipient), so
    // the root from the witness alone is the block's state root.
    let post = hex32(
        doc["blocks"][0]["blockHeader"]["stateRoot"]
            .as_str()
            .expect("blocks[0].blockHeader.stateRoot"),
    );
    assert_eq!(
        hex::encode(v.post_state_root().unwrap()),
        hex::encode(post),
        "EEST post-state root"
    );
    v.check_post_state_root(&post).unwrap();
    assert!(matches!(
        v.check_post_state_root(&genesis),
        Err(PostStateError::RootMismatch { .. })
    ));
}

#[test]
fn kaustinen6_every_block_verifies_against_its_parent_root() {
    let blocks = chain();
    let start = Instant::now();
    let results = verify_all(blocks, |b| {
        (b.number, verify(&b.parent_state_root, &b.witness))
    });
    let elapsed = start.elapsed();
    let mut openings = 0;
    for (number, r) in results {
        let v = r.unwrap_or_else(|e| panic!("block {number}: {e}"));
        openings += v.opening_count();
    }
    eprintln!("verified 200 Kaustinen6 blocks ({openings} openings) in {elapsed:.2?}");
    // Consecutive blocks chain: each block's parent root is the previous block's root.
    for pair in blocks.windows(2) {
        assert_eq!(pair[0].state_root, pair[1].parent_state_root);
    }
    assert_eq!(blocks[0].parent_state_root, hex32(DEVNET6_GENESIS_ROOT));
}

#[test]
fn kaustinen6_every_block_is_rejected_against_its_neighbours_roots() {
    let blocks = chain();
    let results = verify_all(blocks, |b| {
        let i = usize::try_from(b.number - 1).unwrap();
        let mut neighbours = Vec::new();
        if let Some(prev) = i.checked_sub(1).and_then(|j| blocks.get(j)) {
            neighbours.push(prev.parent_state_root);
        }
        if let Some(next) = blocks.get(i + 1) {
            neighbours.push(next.parent_state_root);
        }
        neighbours.retain(|r| r != &b.parent_state_root);
        assert!(
            !neighbours.is_empty(),
            "block {}: no distinct neighbour root",
            b.number
        );
        neighbours
            .iter()
            .map(|r| (b.number, verify(r, &b.witness).map(|_| ())))
            .collect::<Vec<_>>()
    });
    let mut checked = 0;
    for (number, r) in results.into_iter().flatten() {
        assert_eq!(r, Err(VerifyError::ProofRejected), "block {number}");
        checked += 1;
    }
    assert!(checked >= 200, "{checked} rejections checked");
}

#[test]
fn kaustinen6_post_state_roots_from_the_witness_alone() {
    let blocks = chain();
    let results = verify_all(blocks, |b| {
        let v = verify(&b.parent_state_root, &b.witness)
            .unwrap_or_else(|e| panic!("block {}: {e}", b.number));
        (b, v.post_state_root())
    });
    for (b, post) in results {
        let post = post.unwrap_or_else(|e| panic!("block {}: {e}", b.number));
        if WITNESS_OMITS_WRITES.contains(&b.number) {
            assert_ne!(
                post, b.state_root,
                "block {}: the witness omits writes, so its root should differ",
                b.number
            );
        } else {
            assert_eq!(
                hex::encode(post),
                hex::encode(b.state_root),
                "block {}: post-state root from the witness",
                b.number
            );
        }
    }
}

/// Block 1's mismatch is exactly the four leaves geth wrote without listing them: adding
/// them to the witness (as writes to an absent stem) gives the block's root.
#[test]
fn kaustinen6_block_1_matches_once_the_eip2935_account_leaves_are_listed() {
    let b = &chain()[0];
    assert_eq!(b.number, 1);
    let mut owned = b.witness.to_owned_witness();
    let [stem] = owned.state_diff.as_mut_slice() else {
        panic!("block 1 has one stem")
    };
    // The history account's header stem is the stem of its storage slot 0 (suffix 64).
    assert_eq!(stem.suffix_diffs.len(), 1);
    assert_eq!(stem.suffix_diffs[0].suffix, 64);
    let empty_code_keccak =
        hex32("0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
    // Old layout: 0 version, 1 balance, 2 nonce, 3 code keccak; all zero but the keccak.
    for (suffix, value) in [
        (0, [0; 32]),
        (1, [0; 32]),
        (2, [0; 32]),
        (3, empty_code_keccak),
    ] {
        stem.suffix_diffs
            .push(witness::owned::OwnedSuffixStateDiff {
                suffix,
                current_value: None,
                new_value: Some(value),
            });
    }
    stem.suffix_diffs.sort_by_key(|d| d.suffix);
    // Only new values changed: the proof still verifies, and now the root matches.
    let w = owned.to_witness().unwrap();
    let v = verify(&b.parent_state_root, &w).unwrap();
    assert_eq!(
        hex::encode(v.post_state_root().unwrap()),
        hex::encode(b.state_root)
    );
}

#[test]
fn a_witness_without_writes_keeps_the_pre_state_root() {
    let b = &chain()[1];
    let mut owned = b.witness.to_owned_witness();
    for s in &mut owned.state_diff {
        for d in &mut s.suffix_diffs {
            d.new_value = None;
        }
    }
    let v = verify(&b.parent_state_root, &owned.to_witness().unwrap()).unwrap();
    assert_eq!(v.post_state_root().unwrap(), b.parent_state_root);
}

#[test]
fn a_root_that_is_not_a_point_is_bad_root() {
    let w = from_file("witness/valid_block_1.json");
    // x = p (not canonical).
    let p = hex32("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
    assert!(matches!(verify(&p, &w), Err(VerifyError::BadRoot(_))));
}

fn verified_block(number: usize) -> (&'static ChainBlock, VerifiedWitness) {
    let b = &chain()[number - 1];
    (b, verify(&b.parent_state_root, &b.witness).unwrap())
}

#[test]
fn verified_witness_exposes_the_proven_tree() {
    // Block 55 mixes all three statuses.
    let (b, v) = verified_block(55);
    let proof = b.witness.verkle_proof();
    let committed: Vec<_> = v
        .nodes()
        .iter()
        .filter(|n| !n.path.is_empty() && n.kind != NodeKind::Empty)
        .map(|n| n.commitment.to_bytes())
        .collect();
    let listed: Vec<[u8; 32]> = proof.commitments_by_path().iter().copied().collect();
    assert_eq!(
        committed, listed,
        "nodes in path order carry commitments_by_path"
    );
    assert_eq!(v.nodes()[0].commitment.to_bytes(), b.parent_state_root);
    let mut statuses = [0usize; 3];
    for s in v.stems() {
        let node = v.node(s.path().as_bytes()).unwrap();
        match s.status {
            ExtensionStatus::AbsentEmpty => {
                statuses[0] += 1;
                assert_eq!(node.kind, NodeKind::Empty);
                assert_eq!(s.leaf_stem, None);
            }
            ExtensionStatus::AbsentOther => {
                statuses[1] += 1;
                assert_eq!(node.kind, NodeKind::Leaf);
                let other = s.leaf_stem.unwrap();
                assert_ne!(other, s.stem);
                assert_eq!(
                    other[..usize::from(s.depth)],
                    s.stem[..usize::from(s.depth)]
                );
                assert_eq!(node.leaf_stem, Some(other));
            }
            ExtensionStatus::Present => {
                statuses[2] += 1;
                assert_eq!(node.kind, NodeKind::Leaf);
                assert_eq!(s.leaf_stem, Some(s.stem));
            }
        }
        for d in 0..usize::from(s.depth) {
            assert_eq!(v.node(&s.stem[..d]).unwrap().kind, NodeKind::Internal);
        }
    }
    assert!(statuses.iter().all(|&n| n > 0), "{statuses:?}");
    for n in v.nodes() {
        assert_eq!(n.field, n.commitment.map_to_scalar_field());
    }
}

/// Verifies `owned` against `root` after encoding it.
fn verify_owned(
    root: &[u8; 32],
    owned: &OwnedExecutionWitness,
) -> Result<VerifiedWitness, VerifyError> {
    verify(root, &owned.to_witness().unwrap())
}

#[test]
fn dropped_and_duplicated_commitments_are_counted() {
    let (b, v) = verified_block(55);
    let owned = b.witness.to_owned_witness();
    let n = owned.verkle_proof.commitments_by_path.len();
    let mut fewer = owned.clone();
    fewer.verkle_proof.commitments_by_path.pop();
    assert_eq!(
        verify_owned(&b.parent_state_root, &fewer).unwrap_err(),
        VerifyError::CommitmentCount {
            expected: n,
            got: n - 1
        }
    );
    let mut more = owned.clone();
    more.verkle_proof
        .commitments_by_path
        .insert(3, owned.verkle_proof.commitments_by_path[3]);
    assert_eq!(
        verify_owned(&b.parent_state_root, &more).unwrap_err(),
        VerifyError::CommitmentCount {
            expected: n,
            got: n + 1
        }
    );
    assert!(v.nodes().len() > n);
}

#[test]
fn other_stems_are_counted_placed_and_not_in_the_state_diff() {
    let b = &chain()[0];
    let owned = b.witness.to_owned_witness();
    let stem = owned.state_diff[0].stem;
    let other = owned.verkle_proof.other_stems[0];
    // None: the absent-other leaf has no stem.
    let mut none = owned.clone();
    none.verkle_proof.other_stems.clear();
    assert_eq!(
        verify_owned(&b.parent_state_root, &none).unwrap_err(),
        VerifyError::OtherStemCount {
            expected: 1,
            got: 0
        }
    );
    // Two on the same path (canonical form accepts both: each is on the path).
    let mut two = owned.clone();
    let mut extra = other;
    extra[30] ^= 1;
    two.verkle_proof.other_stems.push(extra);
    two.verkle_proof.other_stems.sort();
    assert_eq!(
        verify_owned(&b.parent_state_root, &two).unwrap_err(),
        VerifyError::OtherStemCount {
            expected: 1,
            got: 2
        }
    );
    // The absent stem itself as its own other stem.
    let mut itself = owned.clone();
    itself.verkle_proof.other_stems = vec![stem];
    assert_eq!(
        verify_owned(&b.parent_state_root, &itself).unwrap_err(),
        VerifyError::OtherStemInStateDiff {
            index: 0,
            stem_index: 0
        }
    );
    // A different stem on the same path: the leaf's stem opening fails.
    let mut wrong = owned.clone();
    wrong.verkle_proof.other_stems = vec![extra];
    assert_eq!(
        verify_owned(&b.parent_state_root, &wrong).unwrap_err(),
        VerifyError::ProofRejected
    );
}

#[test]
fn other_stems_are_assigned_to_leaves_in_path_order() {
    // Block 55 has many absent-other leaves; give the first leaf's other stem to the second.
    let (b, v) = verified_block(55);
    let mut owned = b.witness.to_owned_witness();
    let others = &mut owned.verkle_proof.other_stems;
    assert!(others.len() > 2);
    let first_leaf_other = others[0];
    let mut moved = others[1];
    moved[30] ^= 0x80;
    others.retain(|o| o != &first_leaf_other);
    others.push(moved);
    others.sort();
    let err = verify_owned(&b.parent_state_root, &owned).unwrap_err();
    assert!(
        matches!(err, VerifyError::OtherStemOffPath { index: 0, .. }),
        "{err}"
    );
    assert!(v
        .stems()
        .iter()
        .any(|s| s.leaf_stem == Some(first_leaf_other)));
}

#[test]
fn depths_that_do_not_describe_one_tree_are_path_conflicts() {
    let (b, v) = verified_block(55);
    let stems = v.stems();
    // An absent stem i whose terminal we move onto a node that stem j passes through.
    let common = |a: &[u8; 31], b: &[u8; 31]| a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (i, depth) = (0..stems.len())
        .flat_map(|i| (0..stems.len()).map(move |j| (i, j)))
        .find_map(|(i, j)| {
            let l = common(&stems[i].stem, &stems[j].stem);
            (i != j
                && stems[i].status != ExtensionStatus::Present
                && l >= 1
                && l < usize::from(stems[j].depth))
            .then_some((i, l))
        })
        .expect("two stems sharing an internal node");
    let mut owned = b.witness.to_owned_witness();
    owned.verkle_proof.depth_extension_present[i] = u8::try_from(depth << 3).unwrap();
    let err = verify_owned(&b.parent_state_root, &owned).unwrap_err();
    assert!(
        matches!(err, VerifyError::PathConflict { depth: d, .. } if d == depth),
        "{err}"
    );
}

#[test]
fn two_present_stems_cannot_share_a_leaf() {
    // Find, in the chain, an absent-other stem whose leaf is a present stem of the diff, and
    // claim it present too.
    let found = chain().iter().find_map(|b| {
        let v = verify(&b.parent_state_root, &b.witness).unwrap();
        let stems = v.stems();
        stems.iter().enumerate().find_map(|(i, s)| {
            let holder = stems.iter().position(|t| {
                t.status == ExtensionStatus::Present && Some(t.stem) == s.leaf_stem
            })?;
            (s.status == ExtensionStatus::AbsentOther).then_some((b, i, holder))
        })
    });
    let (b, i, holder) = found.expect("an absent-other stem beside a present stem in the chain");
    let mut owned = b.witness.to_owned_witness();
    owned.verkle_proof.depth_extension_present[i] |= 0b010;
    owned.verkle_proof.depth_extension_present[i] &= !0b001;
    let err = verify_owned(&b.parent_state_root, &owned).unwrap_err();
    let (stem_index, other_index) = (i.max(holder), i.min(holder));
    assert_eq!(
        err,
        VerifyError::SharedLeaf {
            stem_index,
            other_index
        },
        "block {}",
        b.number
    );
}

#[test]
fn empty_witnesses_and_stems_without_keys_are_rejected() {
    let b = &chain()[1];
    let mut owned = b.witness.to_owned_witness();
    owned.state_diff[0].suffix_diffs.clear();
    assert_eq!(
        verify_owned(&b.parent_state_root, &owned).unwrap_err(),
        VerifyError::EmptyStem { stem_index: 0 }
    );
    owned.state_diff.clear();
    owned.verkle_proof.depth_extension_present.clear();
    owned.verkle_proof.commitments_by_path.clear();
    assert_eq!(
        verify_owned(&b.parent_state_root, &owned).unwrap_err(),
        VerifyError::NoKeys
    );
}

#[test]
fn points_and_scalars_that_do_not_decode_are_named() {
    let b = &chain()[1];
    let owned = b.witness.to_owned_witness();
    let not_canonical = [0xff; 32];
    let mut c = owned.clone();
    c.verkle_proof.commitments_by_path[1] = not_canonical;
    assert_eq!(
        verify_owned(&b.parent_state_root, &c).unwrap_err(),
        VerifyError::BadPoint {
            index: 1,
            source: DecodeError::NotCanonical
        }
    );
    let mut d = owned.clone();
    d.verkle_proof.d = not_canonical;
    assert!(matches!(
        verify_owned(&b.parent_state_root, &d).unwrap_err(),
        VerifyError::BadProofPoint {
            field: "d",
            index: 0,
            ..
        }
    ));
    let mut cl = owned.clone();
    cl.verkle_proof.ipa_proof.cl[3] = not_canonical;
    assert!(matches!(
        verify_owned(&b.parent_state_root, &cl).unwrap_err(),
        VerifyError::BadProofPoint {
            field: "cl",
            index: 3,
            ..
        }
    ));
    let mut cr = owned.clone();
    cr.verkle_proof.ipa_proof.cr[7] = not_canonical;
    assert!(matches!(
        verify_owned(&b.parent_state_root, &cr).unwrap_err(),
        VerifyError::BadProofPoint {
            field: "cr",
            index: 7,
            ..
        }
    ));
    let mut a = owned.clone();
    a.verkle_proof.ipa_proof.final_evaluation = [0xff; 32];
    assert_eq!(
        verify_owned(&b.parent_state_root, &a).unwrap_err(),
        VerifyError::BadScalar
    );
}

#[test]
fn absence_proofs_cover_every_key_below_the_proven_slot() {
    // An absent stem with several keys still verifies with fewer: the proof is about the
    // slot, not the keys. And a stem changed below its slot's depth is just as absent.
    let (b, v) = verified_block(55);
    let (i, s) = v
        .stems()
        .iter()
        .enumerate()
        .find(|(i, s)| {
            s.status == ExtensionStatus::AbsentEmpty
                && b.witness.state_diff().get(*i).unwrap().suffix_diffs.len() > 1
        })
        .expect("an absent-empty stem with several keys");
    let mut fewer = b.witness.to_owned_witness();
    fewer.state_diff[i].suffix_diffs.pop();
    let accepted = verify_owned(&b.parent_state_root, &fewer).unwrap();
    assert_eq!(accepted.opening_count(), v.opening_count());

    let mut moved = b.witness.to_owned_witness();
    moved.state_diff[i].stem[30] ^= 1;
    let still_sorted = moved.state_diff.windows(2).all(|w| w[0].stem < w[1].stem);
    assert!(still_sorted && usize::from(s.depth) < 31);
    let accepted = verify_owned(&b.parent_state_root, &moved).unwrap();
    assert_eq!(accepted.stems()[i].stem, moved.state_diff[i].stem);
    // Moving it above its slot's depth is not.
    let mut above = b.witness.to_owned_witness();
    above.state_diff[i].stem[usize::from(s.depth) - 1] ^= 1;
    if above.state_diff.windows(2).all(|w| w[0].stem < w[1].stem) {
        assert!(verify_owned(&b.parent_state_root, &above).is_err());
    }
}

#[test]
fn an_empty_suffix_tree_is_listed_as_the_identity_and_opened_at_zero() {
    // Block 129 proves a key of a present stem's empty half: geth lists that suffix tree's
    // commitment anyway, as the identity (32 zero bytes), and opens the leaf there at 0.
    let (b, v) = verified_block(129);
    let listed: Vec<[u8; 32]> = b
        .witness
        .verkle_proof()
        .commitments_by_path()
        .iter()
        .copied()
        .collect();
    assert_eq!(listed.iter().position(|c| c == &[0; 32]), Some(8));
    let committed: Vec<_> = v
        .nodes()
        .iter()
        .filter(|n| !n.path.is_empty() && n.kind != NodeKind::Empty)
        .collect();
    let empty_half = committed[8];
    assert_eq!(empty_half.kind, NodeKind::SuffixTree);
    assert!(empty_half.commitment.is_identity());
    assert_eq!(empty_half.field, banderwagon::Fr::from(0u64));
    // Every key under it is proven absent.
    let leaf_path = &empty_half.path.as_bytes()[..empty_half.path.len() - 1];
    let leaf_stem = v.node(leaf_path).unwrap().leaf_stem.unwrap();
    let upper = empty_half.path.as_bytes().last() == Some(&3);
    let under: Vec<_> = v
        .keys()
        .iter()
        .filter(|k| k.stem == leaf_stem && (k.suffix >= 128) == upper)
        .collect();
    assert!(!under.is_empty());
    assert!(under.iter().all(|k| k.current_value.is_none()));
}

#[test]
fn deep_paths_without_commitments_stop_at_the_first_stem() {
    // 20,000 absent stems each claiming depth 31 would need ~600,000 internal nodes; with no
    // commitments the rebuild stops after the first stem instead of building them.
    let stems = 20_000usize;
    let owned = OwnedExecutionWitness {
        state_diff: (0..stems)
            .map(|i| witness::owned::OwnedStemStateDiff {
                stem: {
                    let mut s = [0u8; 31];
                    s[..8].copy_from_slice(&(i as u64).to_be_bytes());
                    s
                },
                suffix_diffs: vec![witness::owned::OwnedSuffixStateDiff::default()],
            })
            .collect(),
        verkle_proof: witness::owned::OwnedVerkleProof {
            depth_extension_present: vec![31 << 3; stems],
            ..Default::default()
        },
    };
    let start = Instant::now();
    let err = verify_owned(&hex32(DEVNET6_GENESIS_ROOT), &owned).unwrap_err();
    assert_eq!(
        err,
        VerifyError::CommitmentCount {
            expected: 30,
            got: 0
        }
    );
    assert!(start.elapsed().as_secs() < 2, "{:?}", start.elapsed());
}

#[test]
fn decode_errors_keep_sequential_priority_across_parallel_chunks() {
    // The largest block's points are decoded in several parallel chunks; the error reported
    // is still the one a sequential decoder meets first: proof points, the final scalar, the
    // root, then the lowest bad commitment.
    let blocks = chain();
    let b = blocks
        .iter()
        .max_by_key(|b| b.witness.verkle_proof().commitments_by_path().len())
        .unwrap();
    let owned = b.witness.to_owned_witness();
    let n = owned.verkle_proof.commitments_by_path.len();
    assert!(n >= 64, "{n} commitments");
    let not_canonical = [0xff; 32];
    let off_curve = {
        // The smallest x with no point on the curve.
        let mut x = [0u8; 32];
        (1u8..=255)
            .find_map(|v| {
                x[31] = v;
                (banderwagon::Element::from_bytes(&x) == Err(DecodeError::NotOnCurve)).then_some(x)
            })
            .unwrap()
    };
    let mut late_then_early = owned.clone();
    late_then_early.verkle_proof.commitments_by_path[n - 1] = not_canonical;
    late_then_early.verkle_proof.commitments_by_path[n / 2] = off_curve;
    late_then_early.verkle_proof.commitments_by_path[n / 2 + 1] = not_canonical;
    assert_eq!(
        verify_owned(&b.parent_state_root, &late_then_early).unwrap_err(),
        VerifyError::BadPoint {
            index: n / 2,
            source: DecodeError::NotOnCurve
        }
    );
    let bad_root = verify_owned(&not_canonical, &late_then_early).unwrap_err();
    assert_eq!(bad_root, VerifyError::BadRoot(DecodeError::NotCanonical));

    let mut scalar = late_then_early.clone();
    scalar.verkle_proof.ipa_proof.final_evaluation = [0xff; 32];
    assert_eq!(
        verify_owned(&not_canonical, &scalar).unwrap_err(),
        VerifyError::BadScalar
    );
    let mut proof = scalar.clone();
    proof.verkle_proof.ipa_proof.cr[2] = off_curve;
    proof.verkle_proof.ipa_proof.cr[5] = not_canonical;
    assert_eq!(
        verify_owned(&not_canonical, &proof).unwrap_err(),
        VerifyError::BadProofPoint {
            field: "cr",
            index: 2,
            source: DecodeError::NotOnCurve
        }
    );
}

/// The whole chain verified as one batch gives what one-by-one verification gives; a batch
/// with wrong roots, a tampered proof and a witness that does not decode in its midst
/// rejects exactly those, naming each by its position, and accepts the rest.
#[test]
fn kaustinen6_batch_verification_matches_one_by_one() {
    let blocks = chain();
    let items: Vec<(&[u8; 32], &ExecutionWitness)> = blocks
        .iter()
        .map(|b| (&b.parent_state_root, &b.witness))
        .collect();
    let batch = verify_batch(&items);
    assert_eq!(batch.len(), blocks.len());
    for (b, r) in blocks.iter().zip(&batch) {
        let one = verify(&b.parent_state_root, &b.witness).unwrap();
        let got = r
            .as_ref()
            .unwrap_or_else(|e| panic!("block {}: {e}", b.number));
        assert_eq!(got.keys(), one.keys(), "block {}", b.number);
        assert_eq!(got.nodes(), one.nodes(), "block {}", b.number);
    }

    // Block 10 against block 11's root; block 20's final scalar changed; block 30's
    // proof points shuffled so it fails to decode; the others as they are.
    let wrong_root = blocks[10].parent_state_root;
    let mut owned = blocks[19].witness.to_owned_witness();
    owned.verkle_proof.ipa_proof.final_evaluation[0] ^= 1;
    let tampered = owned.to_witness().unwrap();
    let mut owned = blocks[29].witness.to_owned_witness();
    owned.verkle_proof.d = [0xff; 32];
    let undecodable = owned.to_witness().unwrap();
    let mut items = items;
    items[9].0 = &wrong_root;
    items[19].1 = &tampered;
    items[29].1 = &undecodable;
    let batch = verify_batch(&items);
    for (i, r) in batch.iter().enumerate() {
        match i {
            9 | 19 => assert_eq!(
                r.as_ref().err(),
                Some(&VerifyError::ProofRejected),
                "item {i}"
            ),
            29 => assert!(
                matches!(r, Err(e) if *e != VerifyError::ProofRejected),
                "item {i}: {r:?}"
            ),
            _ => assert!(r.is_ok(), "item {i}: {r:?}"),
        }
    }
    assert!(verify_batch(&[]).is_empty());
}
