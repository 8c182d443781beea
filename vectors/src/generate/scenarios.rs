//! The proof scenarios of go-verkle's `proof_test.go`, rebuilt with our tree: each state is
//! inserted into an empty tree, the keys are proven (with the scenario's writes, if any)
//! by `verkle::Tree::prove_with_new_values`, and the case records the witness with its
//! pre-state root and the root after the writes. Only the scenarios are taken from
//! go-verkle — its keys and values, which keys are proven and which written.

use serde_json::{json, Value};
use verkle::Tree;

use super::case::{gen_err, valid, Key, Value32};
use crate::at::hex0x;
use crate::error::VectorError;

/// A key from its first bytes and its last byte (the bytes between are zero).
fn k(head: &[u8], last: u8) -> Key {
    let mut key = [0u8; 32];
    key[..head.len()].copy_from_slice(head);
    key[31] = last;
    key
}

/// A key whose first 31 bytes are `b`, but for `changes` (index, byte), and last byte `last`.
fn repeated(b: u8, changes: &[(usize, u8)], last: u8) -> Key {
    let mut key = [b; 32];
    for &(i, v) in changes {
        key[i] = v;
    }
    key[31] = last;
    key
}

const ZERO: Key = [0; 32];
const ONE: Key = {
    let mut key = [0; 32];
    key[31] = 1;
    key
};
const FF: Key = [0xff; 32];
/// go-verkle's `fourtyKeyTest`: 0x40 then zeros (used as a key and as a value).
const FORTY: Key = {
    let mut key = [0; 32];
    key[0] = 0x40;
    key
};
/// go-verkle's 32-byte `testValue`.
const TEST_VALUE: Value32 = *b"0123456789abcdef0123456789abcdef";
/// A second value, for the scenario of two leaves holding different values.
const OTHER_VALUE: Value32 = [0x11; 32];

/// One scenario: the pre-state, the keys proven (with the value written, if any).
struct Scenario {
    name: &'static str,
    description: &'static str,
    state: Vec<(Key, Value32)>,
    proven: Vec<(Key, Option<Value32>)>,
}

fn read(keys: &[Key]) -> Vec<(Key, Option<Value32>)> {
    keys.iter().map(|k| (*k, None)).collect()
}

fn scenarios() -> Vec<Scenario> {
    let key2_0 = k(&[0, 2], 0);
    let key3_0 = k(&[0, 3], 0);
    let key3_1 = k(&[0, 3], 1);
    let key4_0 = k(&[0, 4], 0);
    let border = k(&[0, 1], 1);
    let depth2 = k(&[0, 0, 1], 0);
    // Stems of 0x03 bytes: the leaf holds 0x03×30 ‖ 0x00; the absent stem is 0x03×31.
    let leaf_03 = repeated(3, &[(30, 0)], 0);
    let absent_03 = repeated(3, &[], 0);
    let absent_03_b = repeated(3, &[], 1);
    let split_at_4 = repeated(3, &[(4, 4)], 0);
    let absent_03_c = repeated(3, &[(30, 2)], 0);
    let leaf_04 = repeated(3, &[(0, 4), (30, 0)], 0);
    let post = |state: &[Key], value: Value32| state.iter().map(|k| (*k, value)).collect();
    vec![
        Scenario {
            name: "go_verkle_border_case",
            description: "go-verkle TestProofOfAbsenceBorderCase: the tree holds key 0x00…01; proven are that key and the absent key 0x0001…01, whose stem shares the first byte and ends at the present leaf (no other stem)",
            state: post(&[ONE], FORTY),
            proven: read(&[ONE, border]),
        },
        Scenario {
            name: "go_verkle_border_case_reversed",
            description: "go-verkle TestProofOfAbsenceBorderCaseReversed: the tree holds 0x0001…01; proven are the absent 0x00…01, ending at that leaf, and the present key: the leaf is the witness's own present stem's, so no other stem",
            state: post(&[border], FORTY),
            proven: read(&[ONE, border]),
        },
        Scenario {
            name: "go_verkle_three_stems_one_extension_status",
            description: "go-verkle TestProofVerificationThreeStemsInSameExtensionStatus: the tree holds 0x0003…00 and 0x0003…01; proven are those and the absent 0x00…00, 0x0002…00 and 0x0004…00, three absent stems in one extension status at the same depth",
            state: post(&[key3_0, key3_1], FORTY),
            proven: read(&[ZERO, key2_0, key3_0, key3_1, key4_0]),
        },
        Scenario {
            name: "go_verkle_two_leaves_different_values",
            description: "go-verkle TestProofVerificationTwoLeavesWithDifferentValues: keys 0x00…00 and 0x0100…00 holding different values, both proven",
            state: vec![(ZERO, FORTY), (k(&[1], 0), OTHER_VALUE)],
            proven: read(&[ZERO, k(&[1], 0)]),
        },
        Scenario {
            name: "go_verkle_stateless_deserialize",
            description: "go-verkle TestStatelessDeserialize: keys 0x00…00, 0x00…01, 0x40…00 and 0xff…ff; proven are 0x00…00 and 0x40…00",
            state: post(&[ZERO, ONE, FORTY, FF], FORTY),
            proven: read(&[ZERO, FORTY]),
        },
        Scenario {
            name: "go_verkle_stateless_deserialize_missing_leaf",
            description: "go-verkle TestStatelessDeserializeMissingLeafNode: keys 0x00…00, 0x00…01 and 0xff…ff; proven are 0x00…00 and the absent 0x40…00 (an empty slot at depth 1)",
            state: post(&[ZERO, ONE, FF], FORTY),
            proven: read(&[ZERO, FORTY]),
        },
        Scenario {
            name: "go_verkle_stateless_deserialize_absent_value",
            description: "go-verkle TestStatelessDeserializeAbsentValueInExistingLeafNode: keys 0x00…00 and 0xff…ff; proven are 0x00…00 and its absent neighbour 0x00…01 (same stem)",
            state: post(&[ZERO, FF], FORTY),
            proven: read(&[ZERO, ONE]),
        },
        Scenario {
            name: "go_verkle_stateless_deserialize_depth_2",
            description: "go-verkle TestStatelessDeserializeDepth2: keys 0x00…00, 0x000001…00 and 0xff…ff; proven are the first two, whose stems part at byte 2 (leaves at depth 3)",
            state: post(&[ZERO, depth2, FF], FORTY),
            proven: read(&[ZERO, depth2]),
        },
        Scenario {
            name: "go_verkle_post_state_update_in_leaf_node",
            description: "go-verkle TestProofVerificationWithPostState/update_in_leaf_node: keys 0x00…00, 0x00…01, 0xff…ff (value 0); 0x00…00 proven and overwritten with 0x40…00",
            state: post(&[ZERO, ONE, FF], ZERO),
            proven: vec![(ZERO, Some(FORTY))],
        },
        Scenario {
            name: "go_verkle_post_state_new_key_in_internal_node",
            description: "go-verkle TestProofVerificationWithPostState/new_key_in_internal_node: the same tree; 0xff…ff read, 0x00…00 overwritten and the absent 0x40…00 written (a new leaf in an empty slot of the root)",
            state: post(&[ZERO, ONE, FF], ZERO),
            proven: vec![(FF, None), (ZERO, Some(FORTY)), (FORTY, Some(FORTY))],
        },
        Scenario {
            name: "go_verkle_post_state_absent_in_internal_node",
            description: "go-verkle TestProofVerificationWithPostState/absent_in_internal_node: the same tree; 0x00…00 overwritten and the absent 0x40…00 written",
            state: post(&[ZERO, ONE, FF], ZERO),
            proven: vec![(ZERO, Some(FORTY)), (FORTY, Some(FORTY))],
        },
        Scenario {
            name: "go_verkle_post_state_absent_in_leaf_node",
            description: "go-verkle TestProofVerificationWithPostState/absent_in_leaf_node: keys 0x00…00, 0x40…00, 0xff…ff; the absent 0x00…01 (a suffix of a present stem) read, 0x00…00 and 0x40…00 overwritten",
            state: post(&[ZERO, FORTY, FF], ZERO),
            proven: vec![(ONE, None), (ZERO, Some(ONE)), (FORTY, Some(FORTY))],
        },
        Scenario {
            name: "go_verkle_other_stems_multiple_leaves",
            description: "go-verkle TestProofOfAbsenceOtherMultipleLeaves: the tree holds one leaf, stem 0x03×30 ‖ 0x00; two keys of the absent stem 0x03×31 end at it: one other stem",
            state: vec![(leaf_03, TEST_VALUE)],
            proven: read(&[absent_03, absent_03_b]),
        },
        Scenario {
            name: "go_verkle_other_stems_multiple_leaves_insert",
            description: "go-verkle TestProofOfAbsenceOtherMultipleLeaves, its insertion: the same proof of absence, and a write to 0x03030303 04 …, another absent stem at the same leaf: the post-state splits down to depth 4 and puts the new leaf at depth 5",
            state: vec![(leaf_03, TEST_VALUE)],
            proven: vec![(absent_03, None), (absent_03_b, None), (split_at_4, Some(TEST_VALUE))],
        },
        Scenario {
            name: "go_verkle_none_multiple_stems",
            description: "go-verkle TestProofOfAbsenceNoneMultipleStems: the tree holds one leaf under 0x04; two absent stems under 0x03 share the empty slot at depth 1: two extension statuses, no other stem",
            state: vec![(leaf_04, TEST_VALUE)],
            proven: read(&[absent_03, absent_03_c]),
        },
        Scenario {
            name: "go_verkle_absence_in_empty_tree",
            description: "go-verkle TestProofOfAbsenceEdgeCase and TestProofEmptyTree: the empty tree (root = the identity); 0x03×32 and 0xff…ff proven absent",
            state: vec![],
            proven: read(&[absent_03, FF]),
        },
    ]
}

fn tree(state: &[(Key, Value32)]) -> Result<Tree, VectorError> {
    let mut t = Tree::new();
    t.apply(state.iter().map(|(k, v)| (*k, Some(*v))))
        .map_err(gen_err)?;
    Ok(t)
}

/// The scenarios as valid `witness` cases.
pub(super) fn valid_cases() -> Result<Vec<Value>, VectorError> {
    let mut out = Vec::new();
    for s in scenarios() {
        let mut pre_tree = tree(&s.state)?;
        let pre = pre_tree.root_bytes();
        let w = pre_tree.prove_with_new_values(&s.proven).map_err(gen_err)?;
        let mut after = s.state.clone();
        after.extend(s.proven.iter().filter_map(|(k, v)| v.map(|v| (*k, v))));
        let post = tree(&after)?.root_bytes();
        let verified = witness::verify(&pre, &w.to_witness().map_err(gen_err)?)
            .map_err(|e| VectorError::Generator(format!("{}: {e}", s.name)))?;
        let computed = verified.post_state_root().map_err(gen_err)?;
        if computed != post {
            return Err(VectorError::Generator(format!(
                "{}: the witness's post-state root {} is not the tree's {}",
                s.name,
                hex0x(&computed),
                hex0x(&post)
            )));
        }
        out.push(valid(
            s.name,
            s.description,
            json!({
                "pre_state_root": hex0x(&pre),
                "json": w.to_witness().map_err(gen_err)?.to_json_value(),
                "ssz": hex0x(&w.to_ssz().map_err(gen_err)?),
            }),
            json!({
                "post_state_root": hex0x(&post),
                "openings": verified.opening_count(),
                "unbound_absences": verified.unbound_absences(),
                "unbound_writes": verified.unbound_writes(),
            }),
        ));
    }
    Ok(out)
}
