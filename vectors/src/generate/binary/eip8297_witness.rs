//! EIP-8297 binary witnesses (`spec/BINARY.md` §7, §8) on a state of four accounts' header
//! and storage keys: valid ones with their claims and post-state root, and mutations of them
//! that break one rule of §9 each, every rule the EIP-8297 layout and walk can break.

use bintree::fuzz::eip8297::Parts;
use bintree::witness::Write;
use bintree::{eip8297, Blake3, TreeHash};
use serde_json::{json, Value};

use super::super::case::{gen_err, invalid, valid};
use super::super::rng::Rng;
use crate::at::hex0x;
use crate::error::VectorError;
use crate::schema::binary_witness_value;

/// A witness's keys and what the block does to each.
type KeyWrites = Vec<(Vec<u8>, Write)>;

/// One proven scenario: its name, the witness bytes and the pre-state root.
struct Proven {
    name: &'static str,
    bytes: Vec<u8>,
    pre: [u8; 32],
}

fn witness_input(bytes: &[u8], pre: &[u8; 32]) -> Value {
    json!({"tree": "eip8297", "hash": "blake3", "witness": hex0x(bytes), "pre_state_root": hex0x(pre)})
}

/// The valid EIP-8297 witness cases and the negative cases made from them: reads, absences
/// at a leaf and at a branch, updates, inserts that split a compressed prefix or a leaf's
/// position, deletes that collapse a branch into a surviving leaf or branch.
pub(super) fn eip8297_witness_cases() -> Result<(Vec<Value>, Vec<Value>), VectorError> {
    let mut rng = Rng::new(0xb1_8297);
    let addresses: Vec<[u8; 32]> = (0..4).map(|_| rng.bytes()).collect();
    let slot = |n: u64| {
        let mut s = [0u8; 32];
        s[24..].copy_from_slice(&n.to_be_bytes());
        s
    };
    let header =
        |a: usize, sub: u8| eip8297::keys::header_key::<Blake3>(&addresses[a], sub).to_vec();
    let storage = |a: usize, n: u64| {
        eip8297::keys::storage_slot_key::<Blake3>(&addresses[a], &slot(n))
            .as_bytes()
            .to_vec()
    };
    let mut tree = eip8297::Tree::<Blake3>::new();
    for a in 0..3 {
        for sub in [0u8, 1] {
            tree.insert(&header(a, sub), &rng.bytes())
                .map_err(gen_err)?;
        }
        for n in [0u64, 1, 700] {
            tree.insert(&storage(a, n), &rng.bytes()).map_err(gen_err)?;
        }
    }
    let v: [u8; 32] = rng.bytes();
    let w: [u8; 32] = rng.bytes();
    let scenarios: Vec<(&'static str, &str, KeyWrites)> = vec![
        ("eip8297_read_present_values", "reads of a header key and a storage key", vec![
            (header(0, 0), Write::Unchanged),
            (storage(1, 700), Write::Unchanged),
        ]),
        ("eip8297_absent_keys", "reads of absent keys: a header slot of a present account, a storage slot, an account never written", vec![
            (header(0, 2), Write::Unchanged),
            (storage(2, 5), Write::Unchanged),
            (header(3, 0), Write::Unchanged),
        ]),
        ("eip8297_updates_and_inserts", "a changed value, new keys beside present ones and a new account", vec![
            (header(1, 0), Write::Set(v)),
            (storage(1, 2), Write::Set(w)),
            (header(3, 0), Write::Set(v)),
        ]),
        ("eip8297_delete_collapses_to_a_leaf", "a delete whose branch keeps one leaf, which rises", vec![
            (storage(0, 0), Write::Delete),
        ]),
        ("eip8297_deletes_collapse_a_subtree", "every key of one account deleted: its branches collapse into their surviving siblings", vec![
            (header(2, 0), Write::Delete),
            (header(2, 1), Write::Delete),
            (storage(2, 0), Write::Delete),
            (storage(2, 1), Write::Delete),
            (storage(2, 700), Write::Delete),
        ]),
        ("eip8297_mixed_block", "reads, sets, inserts and deletes across the four accounts", vec![
            (header(0, 1), Write::Set(w)),
            (storage(0, 1), Write::Delete),
            (storage(1, 0), Write::Unchanged),
            (storage(3, 9), Write::Set(v)),
            (header(2, 2), Write::Unchanged),
        ]),
        ("eip8297_insert_beside_a_leaf", "a new storage key (slot 701) whose path ends at the leaf of slot 700, with which it shares 527 bits: the leaf is sent as an other record (kind AT_LEAF) and the insert puts both below a new branch", vec![
            (storage(0, 701), Write::Set(w)),
        ]),
    ];
    let pre = tree.root();
    let (mut valid_cases, mut proven) = (Vec::new(), Vec::new());
    for (name, description, writes) in scenarios {
        let bytes = tree.witness(&writes).map_err(gen_err)?;
        let value = binary_witness_value::<Blake3>("eip8297", &bytes, &pre)
            .map_err(|r| VectorError::Generator(format!("{name}: our witness rejected ({r})")))?;
        valid_cases.push(valid(name, description, witness_input(&bytes, &pre), value));
        proven.push(Proven { name, bytes, pre });
    }
    let mut invalid_cases = Vec::new();
    for (name, from, description, rule, edit) in mutations() {
        let p = proven
            .iter()
            .find(|p| p.name == from)
            .ok_or_else(|| VectorError::Generator(format!("no scenario {from}")))?;
        let (mut bytes, mut pre) = (p.bytes.clone(), p.pre);
        match edit {
            Edit::Parts(f) => {
                let mut parts = Parts::parse(&p.bytes).ok_or_else(|| {
                    VectorError::Generator(format!(
                        "scenario {from}: its witness's sections do not read"
                    ))
                })?;
                f(&mut parts);
                bytes = parts.encode();
            }
            Edit::Bytes(f) => f(&mut bytes),
            Edit::Root(f) => f(&mut pre),
        }
        invalid_cases.push(invalid(
            name,
            description,
            witness_input(&bytes, &pre),
            rule,
        ));
    }
    Ok((valid_cases, invalid_cases))
}

/// The key of the first other record, a leaf: `record[2..2 + length]`.
fn other_leaf_key(p: &mut Parts) -> &mut [u8] {
    let record = &mut p.others[0];
    let n = usize::from(record[1]);
    &mut record[2..2 + n]
}

/// The first other record replaced by a leaf of `key` with the same value.
fn set_other_leaf_key(p: &mut Parts, key: &[u8]) {
    let record = &p.others[0];
    let value = record[record.len() - 32..].to_vec();
    let mut new = vec![eip8297::witness::OTHER_LEAF, key.len() as u8];
    new.extend_from_slice(key);
    new.extend_from_slice(&value);
    p.others[0] = new;
}

/// How a negative case is made from a valid witness.
enum Edit {
    /// A structural edit of the sections, re-encoded.
    Parts(fn(&mut Parts)),
    /// An edit of the encoded bytes.
    Bytes(fn(&mut Vec<u8>)),
    /// The witness unchanged, checked against another root.
    Root(fn(&mut [u8; 32])),
}

/// A u32le header count at `at` replaced.
fn set_count(b: &mut [u8], at: usize, n: u32) {
    b[at..at + 4].copy_from_slice(&n.to_le_bytes());
}

/// (case name, scenario it starts from, description, rule, edit), in the order of §7's
/// decode checks, then the walk's (§8).
fn mutations() -> Vec<(&'static str, &'static str, &'static str, &'static str, Edit)> {
    use Edit::{Bytes, Parts as P, Root};
    vec![
        ("eip8297_truncated", "eip8297_mixed_block", "the last byte cut", "bw.length.truncated", Bytes(|b| {
            b.pop();
        })),
        ("eip8297_truncated_branch_count", "eip8297_read_present_values", "only the first 21 header bytes: the branch count runs past the end", "bw.length.truncated", Bytes(|b| b.truncate(21))),
        ("eip8297_other_record_cut", "eip8297_absent_keys", "no hashes, and the last other record one byte short", "bw.length.truncated", P(|p| {
            p.hashes.clear();
            if let Some(r) = p.others.last_mut() {
                r.pop();
            }
        })),
        ("eip8297_trailing_byte", "eip8297_read_present_values", "one byte after the hashes", "bw.length.trailing", Bytes(|b| b.push(0))),
        ("eip8297_key_count_over_limit", "eip8297_read_present_values", "key_count 2^18 + 1: rejected before any section is read", "bw.limit", Bytes(|b| set_count(b, 3, (1 << 18) + 1))),
        ("eip8297_branch_count_over_limit", "eip8297_read_present_values", "branch_count 2^26 + 1", "bw.limit", Bytes(|b| set_count(b, 19, (1 << 26) + 1))),
        ("eip8297_hash_count_below_sibling_count", "eip8297_read_present_values", "hash_count one below sibling_count (EIP-8297 has no bitmap: every sibling is a hash)", "bw.count.hashes", Bytes(|b| {
            let sc = u32::from_le_bytes([b[11], b[12], b[13], b[14]]);
            set_count(b, 15, sc - 1);
        })),
        ("eip8297_version_1", "eip8297_read_present_values", "version byte 1", "bw.version", P(|p| p.head[0] = 1)),
        ("eip8297_version_2", "eip8297_read_present_values", "version byte 2 (the EIP-8297 layout of version 2 is that of version 3; the byte is not)", "bw.version", P(|p| p.head[0] = 2)),
        ("eip8297_tree_eip7864", "eip8297_read_present_values", "an EIP-7864 tree byte given to the EIP-8297 verifier", "bw.tree", P(|p| p.head[1] = 1)),
        ("eip8297_hash_sha256", "eip8297_read_present_values", "a SHA-256 hash byte given to the BLAKE3 verifier", "bw.hash", P(|p| p.head[2] = 1)),
        ("eip8297_key_length_zero", "eip8297_absent_keys", "the first key empty (key length 0)", "bw.keys.length", P(|p| p.keys[0].clear())),
        ("eip8297_key_length_67", "eip8297_read_present_values", "the 66-byte storage key given one more byte (key length 67, above the limit)", "bw.keys.length", P(|p| p.keys[1].push(0))),
        ("eip8297_keys_unsorted", "eip8297_read_present_values", "the two keys (34 and 66 bytes) swapped", "bw.keys.order", P(|p| p.keys.swap(0, 1))),
        ("eip8297_key_repeated", "eip8297_absent_keys", "the second key equal to the first", "bw.keys.order", P(|p| p.keys[1] = p.keys[0].clone())),
        ("eip8297_key_prefix_of_the_next", "eip8297_absent_keys", "the first key replaced by the second key's first 33 bytes, a proper prefix of it", "bw.keys.prefix", P(|p| p.keys[0] = p.keys[1][..33].to_vec())),
        ("eip8297_flag_unknown_bit", "eip8297_read_present_values", "flags bit 0x08", "bw.keys.flags", P(|p| p.flags[0] |= 0x08)),
        ("eip8297_delete_without_pre_value", "eip8297_absent_keys", "a delete of a key that claims no pre-value (flags 0x04)", "bw.keys.flags", P(|p| p.flags[0] = 0x04)),
        ("eip8297_delete_with_set", "eip8297_delete_collapses_to_a_leaf", "a delete that also sets the key (flags 0x07)", "bw.keys.flags", P(|p| p.flags[0] = 0x07)),
        ("eip8297_set_to_the_pre_value", "eip8297_updates_and_inserts", "a set whose new value is the pre-value", "bw.keys.noop", P(|p| p.values[1] = p.values[0])),
        ("eip8297_end_depth_529", "eip8297_read_present_values", "an end record of depth 529, above the 528 branches a 66-byte key can pass", "bw.end.depth", P(|p| p.ends[0][..2].copy_from_slice(&529u16.to_be_bytes()))),
        ("eip8297_end_kind_4", "eip8297_read_present_values", "an end record of kind 4", "bw.end.kind", P(|p| p.ends[0][2] = 4)),
        ("eip8297_branches_entry_529", "eip8297_read_present_values", "a branches entry (prefix length) of 529", "bw.branch.prefix", P(|p| p.branches[0] = 529u16.to_be_bytes())),
        ("eip8297_other_record_tag_2", "eip8297_absent_keys", "an other record with tag 2 (neither leaf nor branch)", "bw.end.kind", P(|p| p.others[0][0] = 2)),
        ("eip8297_other_leaf_key_length_zero", "eip8297_insert_beside_a_leaf", "the other leaf record's key length 0", "bw.keys.length", P(|p| p.others[0][1] = 0)),
        ("eip8297_other_leaf_key_length_67", "eip8297_insert_beside_a_leaf", "the other leaf record's key length 67", "bw.keys.length", P(|p| p.others[0][1] = 67)),
        ("eip8297_other_branch_prefix_529", "eip8297_absent_keys", "the other branch record's prefix length 529", "bw.branch.prefix", P(|p| p.others[0][1..3].copy_from_slice(&529u16.to_be_bytes()))),
        ("eip8297_other_branch_padding", "eip8297_absent_keys", "a padding bit of the other branch record's 5-bit prefix set", "bw.branch.prefix", P(|p| p.others[0][3] |= 0x01)),
        ("eip8297_other_branch_zero_child", "eip8297_absent_keys", "the other branch record's right child ZERO (a branch has two non-empty children)", "bw.hash.zero", P(|p| {
            let n = p.others[0].len();
            p.others[0][n - 32..].fill(0);
        })),
        ("eip8297_zero_hash_sent", "eip8297_read_present_values", "a sent sibling hash of 32 zero bytes", "bw.hash.zero", P(|p| p.hashes[0] = [0; 32])),
        ("eip8297_end_below_the_leaf", "eip8297_read_present_values", "the last key's path said to pass one more branch than it does: the walk runs out of branches entries", "bw.end.depth", P(|p| p.ends[1][1] += 1)),
        ("eip8297_extra_branches_entry", "eip8297_read_present_values", "a branches entry no touched path passes", "bw.end.depth", P(|p| p.branches.push([0, 1]))),
        ("eip8297_empty_end_below_the_root", "eip8297_read_present_values", "a present key's path said to end EMPTY at depth 2 (only the empty root is an empty end)", "bw.end.group", P(|p| p.ends[1][2] = 0)),
        ("eip8297_end_at_a_branch_said_at_a_leaf", "eip8297_absent_keys", "a key that ends at a branch the other keys pass, said to end at another leaf", "bw.end.group", P(|p| p.ends[2][2] = 2)),
        ("eip8297_leaf_end_meets_a_branch_record", "eip8297_absent_keys", "a path said to end at another key's leaf, where the next other record is a branch", "bw.end.group", P(|p| p.ends[0][2] = 2)),
        ("eip8297_value_under_an_end_at_a_branch", "eip8297_absent_keys", "a key whose path ends at a branch it leaves claims a pre-value", "bw.end.absent_value", P(|p| {
            p.flags[0] = 0x01;
            p.values.insert(0, [0x11; 32]);
        })),
        ("eip8297_value_under_an_end_at_a_leaf", "eip8297_insert_beside_a_leaf", "a key whose path ends at another key's leaf claims a pre-value", "bw.end.absent_value", P(|p| {
            p.flags[0] |= 0x01;
            p.values.insert(0, [0x11; 32]);
        })),
        ("eip8297_present_key_claims_absence", "eip8297_read_present_values", "a key whose path ends at its own leaf (PRESENT) sent without its pre-value", "bw.end.present_absent", P(|p| {
            p.flags[0] = 0x00;
            p.values.remove(0);
        })),
        ("eip8297_other_leaf_off_the_path", "eip8297_insert_beside_a_leaf", "the other leaf's key disagrees with the touched key in bit 0", "bw.other.prefix", P(|p| other_leaf_key(p)[0] ^= 0x80)),
        ("eip8297_other_leaf_is_the_key", "eip8297_insert_beside_a_leaf", "the other leaf record names the touched key itself", "bw.other.touched", P(|p| {
            let key = p.keys[0].clone();
            set_other_leaf_key(p, &key);
        })),
        ("eip8297_new_key_extends_the_other_leaf", "eip8297_insert_beside_a_leaf", "the other leaf's key is the inserted key's first 65 bytes: the post-state tree would hold a key and its proper prefix", "bw.keys.prefix", P(|p| {
            let key = p.keys[0][..65].to_vec();
            set_other_leaf_key(p, &key);
        })),
        ("eip8297_branch_prefix_one_bit_long", "eip8297_read_present_values", "the root's prefix length 1 instead of 0: the two keys, which part at bit 0, would share it", "bw.branch.prefix", P(|p| p.branches[0] = 1u16.to_be_bytes())),
        ("eip8297_survivor_missing", "eip8297_delete_collapses_to_a_leaf", "the delete empties one side of a branch and the surviving leaf's record is not sent", "bw.collapse", P(|p| p.others.clear())),
        ("eip8297_survivor_sent_as_a_hash", "eip8297_delete_collapses_to_a_leaf", "the surviving leaf sent as a sibling hash (its leaf hash) instead of its record: the post-state root could not place it", "bw.collapse", P(|p| {
            let record = p.others.remove(0);
            let n = usize::from(record[1]);
            p.hashes.push(Blake3::hash(&[&record[..1], &record[2..2 + n], &record[2 + n..]]));
        })),
        ("eip8297_survivor_off_the_path", "eip8297_delete_collapses_to_a_leaf", "the surviving leaf's key disagrees with the deleted key in bit 0", "bw.collapse", P(|p| other_leaf_key(p)[0] ^= 0x80)),
        ("eip8297_survivor_is_the_deleted_key", "eip8297_delete_collapses_to_a_leaf", "the survivor record names the deleted key, on the deleted side of the branch", "bw.collapse", P(|p| {
            let key = p.keys[0].clone();
            set_other_leaf_key(p, &key);
        })),
        ("eip8297_extra_hash", "eip8297_read_present_values", "one more sibling hash than the walk uses", "bw.count.siblings", P(|p| {
            let h = p.hashes[0];
            p.hashes.push(h);
        })),
        ("eip8297_missing_hash", "eip8297_read_present_values", "the last sibling hash left out", "bw.count.siblings", P(|p| {
            p.hashes.pop();
        })),
        ("eip8297_extra_other_record", "eip8297_absent_keys", "a third other record the walk never uses", "bw.count.others", P(|p| {
            let o = p.others[0].clone();
            p.others.push(o);
        })),
        ("eip8297_other_leaf_missing", "eip8297_insert_beside_a_leaf", "the leaf that ends the key's path is not sent", "bw.count.others", P(|p| p.others.clear())),
        ("eip8297_pre_value_changed", "eip8297_read_present_values", "a pre-value changed", "bw.root", P(|p| p.values[0][31] ^= 1)),
        ("eip8297_value_claimed_for_the_sibling_key", "eip8297_read_present_values", "header slot 0's value and proof claimed for header slot 1, its sibling leaf (the last bit of the key flipped)", "bw.root", P(|p| p.keys[0][33] ^= 1)),
        ("eip8297_other_leaf_value_changed", "eip8297_insert_beside_a_leaf", "the value of the leaf that ends the key's path changed", "bw.root", P(|p| {
            if let Some(b) = p.others[0].last_mut() {
                *b ^= 1;
            }
        })),
        ("eip8297_survivor_value_changed", "eip8297_delete_collapses_to_a_leaf", "the surviving leaf's value changed", "bw.root", P(|p| {
            if let Some(b) = p.others[0].last_mut() {
                *b ^= 1;
            }
        })),
        ("eip8297_other_root", "eip8297_read_present_values", "checked against another pre-state root", "bw.root", Root(|r| r[0] ^= 1)),
    ]
}
