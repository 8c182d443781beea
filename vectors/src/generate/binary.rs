//! The binary-tree files: roots of both trees after every operation (`binary_tree_root`), and
//! binary witnesses (`spec/BINARY.md`; EIP-7864 here, EIP-8297 in [`eip8297_witness`])
//! against their pre-state roots, valid with their claims and post-state root, or invalid
//! with the `bw.` rule they break.

mod eip8297_witness;

use bintree::fuzz::eip7864::Parts;
use bintree::witness::Write;
use bintree::{eip7864, eip8297, Blake3, Sha256, TreeHash};
use serde_json::{json, Value};

use super::case::{gen_err, invalid, suite_file, valid, SuiteFile};
use super::rng::Rng;
use crate::at::hex0x;
use crate::error::VectorError;
use crate::schema::{binary_witness_value, Kind};

/// The three binary-tree files.
pub(super) fn binary_files() -> Result<Vec<SuiteFile>, VectorError> {
    let (valid_cases, invalid_cases) = eip7864_witness_cases()?;
    Ok(vec![
        suite_file(
            "binary_tree_root.json",
            Kind::BinaryTreeRoot,
            "Roots of the binary state trees (spec/BINARY.md §1): EIP-8297 (BLAKE3) after \
             inserts and deletes, EIP-7864 (SHA-256 and BLAKE3) after inserts; the root after \
             every operation.",
            tree_root_cases()?,
        )?,
        suite_file(
            "binary_witness_valid.json",
            Kind::BinaryWitness,
            "Binary witnesses (spec/BINARY.md) that verify against their pre-state root: \
             EIP-7864 (§3-§5) and EIP-8297 (§7-§8, deletes collapsing branches); every key's \
             pre-value or absence, its write, and the post-state root from the witness alone.",
            valid_cases,
        )?,
        suite_file(
            "binary_witness_invalid.json",
            Kind::BinaryWitness,
            "EIP-7864 and EIP-8297 binary witnesses that break one rule of spec/BINARY.md each \
             (§9 names).",
            invalid_cases,
        )?,
    ])
}

// ---- binary_tree_root --------------------------------------------------------------------------

fn op_json(key: &[u8], value: Option<&[u8; 32]>) -> Value {
    match value {
        Some(v) => json!({"op": "insert", "key": hex0x(key), "value": hex0x(v)}),
        None => json!({"op": "delete", "key": hex0x(key)}),
    }
}

fn tree_root_cases() -> Result<Vec<Value>, VectorError> {
    let mut cases = Vec::new();
    let mut rng = Rng::new(0x8297);
    // EIP-8297: header keys (34 bytes) of a few addresses, storage keys (66 bytes) sharing
    // long prefixes, then deletes that collapse branches, down to the empty tree.
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for a in 0..4u8 {
        let address = rng.bytes::<32>();
        for sub in [0u8, 1, 2] {
            keys.push(eip8297::keys::header_key::<Blake3>(&address, sub).to_vec());
        }
        for slot in [0u64, 1, 300 + u64::from(a)] {
            let mut s = [0u8; 32];
            s[24..].copy_from_slice(&slot.to_be_bytes());
            keys.push(
                eip8297::keys::storage_slot_key::<Blake3>(&address, &s)
                    .as_bytes()
                    .to_vec(),
            );
        }
    }
    let mut ops: Vec<(Vec<u8>, Option<[u8; 32]>)> = Vec::new();
    for k in &keys {
        ops.push((k.clone(), Some(rng.bytes())));
    }
    // Overwrites, an all-zero value (present, not deleted), then every key deleted in a
    // shuffled order.
    ops.push((keys[3].clone(), Some(rng.bytes())));
    ops.push((keys[7].clone(), Some([0; 32])));
    let mut order: Vec<usize> = (0..keys.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    for i in order {
        ops.push((keys[i].clone(), None));
    }
    cases.push(eip8297_case(
        "eip8297_inserts_overwrites_deletes",
        "24 header and storage keys of 4 accounts inserted, two overwritten (one with 32 \
         zero bytes, which stays present), then all deleted in a shuffled order: every \
         delete collapses its branch into the surviving child, the last one empties the tree",
        &ops,
    )?);
    // Keys of any legal length sharing a long run: a 1-byte key, a 40-byte key whose bits
    // differ only in the last one from another, and keys splitting a compressed prefix.
    let mut long_a = vec![0x5a; 40];
    let mut long_b = long_a.clone();
    long_b[39] ^= 1;
    long_a[0] = 0x5a;
    let mut mid = long_a.clone();
    mid[20] ^= 0x80;
    let split_ops = vec![
        (vec![0x01], Some(rng.bytes())),
        (long_a.clone(), Some(rng.bytes())),
        (long_b.clone(), Some(rng.bytes())),
        (mid.clone(), Some(rng.bytes())),
        (long_b, None),
        (vec![0x01], None),
        (mid, None),
    ];
    cases.push(eip8297_case(
        "eip8297_prefix_split_and_merge",
        "a 1-byte key and 40-byte keys that agree on 319 bits: an insert splits the \
         compressed prefix at bit 160, the deletes merge the prefixes back",
        &split_ops,
    )?);
    for (hash, name) in [(0u8, "sha256"), (1, "blake3")] {
        let mut rng = Rng::new(0x7864 + u64::from(hash));
        let base: [u8; 31] = rng.bytes();
        let mut ops = Vec::new();
        for i in 0..12u8 {
            let mut stem = base;
            // Stems that share 0..30 bytes with the first one, and some random ones.
            if i % 3 == 2 {
                stem = rng.bytes();
            } else {
                stem[usize::from(i) % 31] ^= 1 << (i % 8);
            }
            for sub in [0u8, 1, 0x80, 0xff] {
                if rng.below(2) == 0 || sub == 0 {
                    let mut key = [0u8; 32];
                    key[..31].copy_from_slice(&stem);
                    key[31] = sub;
                    ops.push((key.to_vec(), Some(rng.bytes())));
                }
            }
        }
        ops.push((ops[0].0.clone(), Some([0; 32])));
        let case = if hash == 0 {
            eip7864_case::<Sha256>(&ops)?
        } else {
            eip7864_case::<Blake3>(&ops)?
        };
        cases.push(valid(
            &format!("eip7864_{name}_stems_with_shared_prefixes"),
            "32-byte keys on stems that share up to 247 bits, at sub-indices 0, 1, 0x80, \
             0xff; the last write stores 32 zero bytes (a present leaf H(0^32))",
            json!({"tree": "eip7864", "hash": name, "operations": case.0}),
            json!({"roots": case.1}),
        ));
    }
    Ok(cases)
}

fn eip8297_case(
    name: &str,
    description: &str,
    ops: &[(Vec<u8>, Option<[u8; 32]>)],
) -> Result<Value, VectorError> {
    let mut tree = eip8297::Tree::<Blake3>::new();
    let mut roots = Vec::new();
    let mut json_ops = Vec::new();
    for (key, value) in ops {
        match value {
            Some(v) => tree.insert(key, v).map_err(gen_err)?,
            None => {
                if !tree.remove(key).map_err(gen_err)? {
                    return Err(VectorError::Generator(format!(
                        "{name}: delete of an absent key"
                    )));
                }
            }
        }
        roots.push(hex0x(&tree.root()));
        json_ops.push(op_json(key, value.as_ref()));
    }
    Ok(valid(
        name,
        description,
        json!({"tree": "eip8297", "hash": "blake3", "operations": json_ops}),
        json!({"roots": roots}),
    ))
}

type RootOps = (Vec<Value>, Vec<String>);

fn eip7864_case<H: TreeHash>(ops: &[(Vec<u8>, Option<[u8; 32]>)]) -> Result<RootOps, VectorError> {
    let mut tree = eip7864::Tree::<H>::new();
    let (mut json_ops, mut roots) = (Vec::new(), Vec::new());
    for (key, value) in ops {
        let v = value.ok_or_else(|| VectorError::Generator("EIP-7864 has no delete".into()))?;
        tree.insert(key, &v).map_err(gen_err)?;
        roots.push(hex0x(&tree.root()));
        json_ops.push(op_json(key, Some(&v)));
    }
    Ok((json_ops, roots))
}

// ---- binary_witness ----------------------------------------------------------------------------

fn key(stem: &[u8; 31], sub: u8) -> [u8; 32] {
    let mut k = [0u8; 32];
    k[..31].copy_from_slice(stem);
    k[31] = sub;
    k
}

/// `stem` with bit `i` (MSB first) flipped.
fn flip(stem: &[u8; 31], i: usize) -> [u8; 31] {
    let mut s = *stem;
    s[i / 8] ^= 0x80 >> (i % 8);
    s
}

/// A stem whose first byte is `first` and whose other bytes are `fill`.
fn stem_of(first: u8, fill: u8) -> [u8; 31] {
    let mut s = [fill; 31];
    s[0] = first;
    s
}

/// Bit `i` (MSB first) of `bytes`.
fn bit_at(bytes: &[u8], i: usize) -> bool {
    bytes[i / 8] & (0x80 >> (i % 8)) != 0
}

/// One proven scenario: the witness bytes and the pre-state root it verifies against.
struct Proven {
    name: &'static str,
    description: &'static str,
    hash: &'static str,
    bytes: Vec<u8>,
    pre: [u8; 32],
    /// The pre-state's keys and values.
    state: Vec<Entry>,
}

fn prove<H: TreeHash>(
    name: &'static str,
    description: &'static str,
    state: &[([u8; 32], [u8; 32])],
    writes: &[([u8; 32], Write)],
) -> Result<Proven, VectorError> {
    let mut tree = eip7864::Tree::<H>::new();
    tree.apply(state.iter().copied()).map_err(gen_err)?;
    let pre = tree.root();
    let bytes = tree.witness(writes).map_err(gen_err)?;
    Ok(Proven {
        name,
        description,
        hash: H::NAME,
        bytes,
        pre,
        state: state.to_vec(),
    })
}

fn scenarios() -> Result<Vec<Proven>, VectorError> {
    let mut rng = Rng::new(0xb1_7864);
    let a: [u8; 31] = rng.bytes();
    let b = flip(&a, 3);
    let c = flip(&a, 200); // shares 200 bits with a
    let d: [u8; 31] = rng.bytes();
    let mut state: Vec<([u8; 32], [u8; 32])> = Vec::new();
    for (stem, subs) in [(&a, &[0u8, 1, 64][..]), (&b, &[0, 0x80]), (&d, &[5])] {
        for &sub in subs {
            state.push((key(stem, sub), rng.bytes()));
        }
    }
    let v: [u8; 32] = rng.bytes();
    let w: [u8; 32] = rng.bytes();
    let mut out = vec![
        prove::<Sha256>(
            "read_present_values",
            "reads of three present keys on two stems",
            &state,
            &[
                (key(&a, 0), Write::Unchanged),
                (key(&a, 64), Write::Unchanged),
                (key(&b, 0x80), Write::Unchanged),
            ],
        )?,
        prove::<Sha256>(
            "absent_in_a_present_stem",
            "a read of an absent sub-index (0x02) of a present stem: its leaf is ZERO",
            &state,
            &[(key(&a, 2), Write::Unchanged)],
        )?,
        prove::<Sha256>(
            "absent_by_a_divergent_stem",
            "a read of a key whose stem shares 200 bits with a present stem: the path ends at \
             that stem node (kind PRESENT for it, DIVERGENT for the absent one)",
            &state,
            &[
                (key(&a, 1), Write::Unchanged),
                (key(&c, 1), Write::Unchanged),
            ],
        )?,
        prove::<Sha256>(
            "absent_by_an_other_stem",
            "a read of a key whose path ends at another stem's node, sent as an other record",
            &state,
            &[(key(&c, 9), Write::Unchanged)],
        )?,
        prove::<Sha256>(
            "absent_by_an_empty_subtree",
            "a read of a key whose path ends in the empty left child of the root (every stem's \
             bit 0 is 1): the untouched right child is anchored by its first stem (depth 2, \
             first present leaf 0x05), its leftmost descent going left with one right-side \
             sibling slot",
            &state,
            &[(key(&flip(&d, 0), 0), Write::Unchanged)],
        )?,
        prove::<Sha256>(
            "writes_update_and_insert",
            "a present value changed, an absent sub-index of a present stem set, a set to the \
             value a key already holds (written as unchanged)",
            &state,
            &[
                (key(&a, 0), Write::Set(v)),
                (key(&a, 2), Write::Set(w)),
                (key(&b, 0), Write::Set(state[3].1)),
            ],
        )?,
        prove::<Sha256>(
            "new_stem_splits_below_an_existing_stem",
            "a new stem that shares 200 bits with an existing one: the post-state root puts \
             both below 200 new internal nodes",
            &state,
            &[(key(&c, 7), Write::Set(v))],
        )?,
        prove::<Sha256>(
            "new_stems_in_an_empty_subtree",
            "two new stems that share 100 bits, in the empty left child of the root: one EMPTY \
             end for both, the right child anchored; the post-state root puts them below 100 new \
             internal nodes",
            &state,
            &[
                (key(&flip(&d, 0), 0), Write::Set(v)),
                (key(&flip(&flip(&d, 0), 100), 3), Write::Set(w)),
            ],
        )?,
        prove::<Sha256>(
            "empty_tree_insert",
            "two inserts into the empty tree (pre-state root ZERO)",
            &[],
            &[(key(&a, 0), Write::Set(v)), (key(&d, 0), Write::Set(w))],
        )?,
        prove::<Sha256>(
            "no_keys",
            "a witness of no keys: one sibling slot holding the root",
            &state,
            &[],
        )?,
        prove::<Sha256>(
            "absent_by_an_other_stem_opening_sub_index_5",
            "a read and a write of keys whose paths end at the node of a stem whose first present \
             leaf is 0x05: the other record opens it with ZERO left sides and five right-side \
             sibling slots",
            &state,
            &[
                (key(&flip(&d, 100), 0), Write::Unchanged),
                (key(&flip(&d, 60), 7), Write::Set(w)),
            ],
        )?,
        prove::<Sha256>(
            "absent_beside_the_zero_stem",
            "a tree holding the all-zero stem (values at 0x03 and 0xc8): a read and a write of keys \
             whose paths end at its node, sent as other records with stem 0^31",
            &[
                (key(&[0; 31], 3), [0x33; 32]),
                (key(&[0; 31], 200), [0xc8; 32]),
                (key(&a, 0), [0xaa; 32]),
            ],
            &[
                (key(&flip(&[0; 31], 247), 3), Write::Unchanged),
                (key(&flip(&[0; 31], 200), 0), Write::Set(v)),
            ],
        )?,
        prove::<Sha256>(
            "anchor_descent_turns_right",
            "a set of an absent key (stem 80 33…) whose path ends EMPTY at depth 2 in the tree of \
             stems e0 11… (values at 0x00 and 0x01) and e1 22…: the untouched sibling at depth 2 \
             is anchored by e0 11…'s stem node at depth 8, its leftmost descent turning right \
             below the empty left child at depth 2, then left with five right-side sibling slots \
             (e1 22…'s stem node the deepest)",
            &[
                (key(&stem_of(0xe0, 0x11), 0), [0xa0; 32]),
                (key(&stem_of(0xe0, 0x11), 1), [0xa1; 32]),
                (key(&stem_of(0xe1, 0x22), 0), [0xb0; 32]),
            ],
            &[(key(&stem_of(0x80, 0x33), 0), Write::Set(v))],
        )?,
        prove::<Sha256>(
            "anchor_of_the_zero_stem",
            "a tree holding the all-zero stem (values at 0x03 and 0xc8) and stem 01 00… (they \
             part at bit 7), and a set of a key whose path ends EMPTY in the root's right child: \
             the root's left child is anchored by the zero stem's node at depth 8 (its first \
             present leaf 0x03), the descent going left with seven right-side sibling slots; the \
             anchor is read before the walk descends right",
            &[
                (key(&[0; 31], 3), [0x33; 32]),
                (key(&[0; 31], 200), [0xc8; 32]),
                (key(&stem_of(0x01, 0x00), 0), [0x01; 32]),
            ],
            &[(key(&stem_of(0x80, 0x44), 7), Write::Set(v))],
        )?,
        prove::<Sha256>(
            "read_of_a_stem_at_depth_1",
            "a read of key e0 11…‖0x00 in the tree of stems 00 11… and e0 11… (one value each, at \
             sub-index 0): its stem node is the root's right child, the node the forgeries \
             absence_of_a_present_key_by_its_stem_node_* read as an internal node \
             (spec/BINARY.md §4.1)",
            &[
                (key(&stem_of(0x00, 0x11), 0), [0xaa; 32]),
                (key(&stem_of(0xe0, 0x11), 0), [0xbb; 32]),
            ],
            &[(key(&stem_of(0xe0, 0x11), 0), Write::Unchanged)],
        )?,
    ];
    // A larger random block on both hashes.
    let mut big: Vec<([u8; 32], [u8; 32])> = Vec::new();
    let mut stems: Vec<[u8; 31]> = Vec::new();
    for i in 0..48 {
        let s = if i % 4 == 3 && !stems.is_empty() {
            flip(
                &stems[rng.below(stems.len() as u64) as usize],
                8 + rng.below(200) as usize,
            )
        } else {
            rng.bytes()
        };
        stems.push(s);
        for _ in 0..1 + rng.below(3) {
            big.push((key(&s, rng.next_u64() as u8), rng.bytes()));
        }
    }
    let mut writes: Vec<([u8; 32], Write)> = Vec::new();
    for i in 0..24 {
        let k = match i % 4 {
            0 => big[rng.below(big.len() as u64) as usize].0,
            1 => key(
                &stems[rng.below(stems.len() as u64) as usize],
                rng.next_u64() as u8,
            ),
            2 => key(
                &flip(
                    &stems[rng.below(stems.len() as u64) as usize],
                    30 + rng.below(200) as usize,
                ),
                0,
            ),
            _ => rng.bytes(),
        };
        if writes.iter().any(|(x, _)| *x == k) {
            continue;
        }
        let write = if rng.below(2) == 0 {
            Write::Unchanged
        } else {
            Write::Set(rng.bytes())
        };
        writes.push((k, write));
    }
    out.push(prove::<Sha256>(
        "random_block_sha256",
        "48 stems (some sharing long prefixes), 24 reads and writes of present keys, absent \
         sub-indices, new stems near existing ones and random keys",
        &big,
        &writes,
    )?);
    out.push(prove::<Blake3>(
        "random_block_blake3",
        "the same block on the BLAKE3 tree",
        &big,
        &writes,
    )?);
    Ok(out)
}

fn witness_input(p: &Proven, bytes: &[u8], pre: &[u8; 32]) -> Value {
    json!({"tree": "eip7864", "hash": p.hash, "witness": hex0x(bytes), "pre_state_root": hex0x(pre)})
}

fn verify_any(hash: &str, bytes: &[u8], pre: &[u8; 32]) -> Result<Value, &'static str> {
    match hash {
        "sha256" => binary_witness_value::<Sha256>("eip7864", bytes, pre),
        _ => binary_witness_value::<Blake3>("eip7864", bytes, pre),
    }
}

/// How a negative case is made from a valid witness.
enum Edit {
    /// A structural edit of the sections, re-encoded.
    Parts(fn(&mut Parts)),
    /// An edit of the encoded bytes.
    Bytes(fn(&mut Vec<u8>)),
    /// The witness unchanged, checked against another root.
    Root(fn(&mut [u8; 32])),
    /// A structural edit of the sections with the pre-state's keys and values at hand.
    State(fn(&mut Parts, &[Entry])),
}

/// A key of the pre-state and its value.
type Entry = ([u8; 32], [u8; 32]);

/// The sibling slots of `p`, in order (an empty slot is ZERO).
fn slots_of(p: &Parts) -> Vec<[u8; 32]> {
    let mut hashes = p.hashes.iter();
    (0..p.slots)
        .map(|s| match p.bit(s) {
            true => hashes.next().copied().unwrap_or([0; 32]),
            false => [0; 32],
        })
        .collect()
}

/// Sets the sibling slots of `p` to `slots`.
fn set_slots(p: &mut Parts, slots: &[[u8; 32]]) {
    p.slots = slots.len();
    p.bitmap = vec![0; slots.len().div_ceil(8)];
    p.hashes.clear();
    for (s, h) in slots.iter().enumerate() {
        if *h != [0; 32] {
            p.bitmap[s / 8] |= 0x80 >> (s % 8);
            p.hashes.push(*h);
        }
    }
}

/// The first other record of a one-key witness made to open its stem's second present leaf
/// (sub-index 1 beside a present 0): its true value, and the first leaf's opening slots
/// without the deepest (leaf 1's hash); the levels above are the same siblings. The left
/// side of leaf 1 is taken as ZERO, so the subtree root differs.
fn open_second_leaf(p: &mut Parts, state: &[Entry]) {
    let mut k = [0u8; 32];
    k[..31].copy_from_slice(&p.others[0][..31]);
    k[31] = 1;
    let Some((_, value)) = state.iter().find(|(x, _)| *x == k) else {
        return;
    };
    // The path's left siblings (where the key's bit is 1) come before the opening's slots.
    let depth = usize::from(p.ends[0][0]);
    let before = (0..depth)
        .filter(|&b| p.keys[0][b / 8] & (0x80 >> (b % 8)) != 0)
        .count();
    let mut slots = slots_of(p);
    slots.remove(before);
    set_slots(p, &slots);
    p.others[0][31] = 1;
    p.others[0][32..].copy_from_slice(value);
}

/// The last anchor of a one-key witness whose sibling slots end the witness (the anchor of
/// a right side, read after its EMPTY end): its first slot, the number of slots its opening
/// reads (one per 0 bit of its sub-index), and the depth `e` of the side it anchors (one
/// below the bit where its stem leaves the key's). Its descent reads one slot per 0 bit of
/// its stem at levels `e..k`.
fn last_anchor_slots(p: &Parts) -> Option<(usize, usize, usize)> {
    let anchor = p.anchors.last()?;
    let key = p.keys.first()?;
    let stem = &anchor[1..32];
    let e = (0..248).find(|&i| bit_at(stem, i) != bit_at(&key[..31], i))? + 1;
    let opening = anchor[32].count_zeros() as usize;
    let descent = (e..usize::from(anchor[0]))
        .filter(|&level| !bit_at(stem, level))
        .count();
    Some((p.slots.checked_sub(opening + descent)?, opening, e))
}

/// The last anchor and its slots dropped.
fn drop_anchor(p: &mut Parts) {
    if let Some((first, _, _)) = last_anchor_slots(p) {
        let slots = slots_of(p);
        set_slots(p, &slots[..first]);
        p.anchors.pop();
    }
}

/// The last anchor's depth set to the depth of the side it anchors.
fn anchor_at_its_side(p: &mut Parts) {
    if let Some((_, _, e)) = last_anchor_slots(p) {
        if let Some(anchor) = p.anchors.last_mut() {
            anchor[0] = e as u8;
        }
    }
}

/// Bit `e - 1` of the last anchor's stem flipped: the stem takes the touched side.
fn anchor_on_the_touched_side(p: &mut Parts) {
    if let Some((_, _, e)) = last_anchor_slots(p) {
        if let Some(anchor) = p.anchors.last_mut() {
            anchor[1 + (e - 1) / 8] ^= 0x80 >> ((e - 1) % 8);
        }
    }
}

/// The last anchor made to open its stem's second present leaf (sub-index 1 beside a present
/// 0): its true value, and the opening's slots without the deepest (leaf 1's hash).
fn anchor_opens_second_leaf(p: &mut Parts, state: &[Entry]) {
    let Some((first, _, _)) = last_anchor_slots(p) else {
        return;
    };
    let Some(anchor) = p.anchors.last_mut() else {
        return;
    };
    let mut k = [0u8; 32];
    k[..31].copy_from_slice(&anchor[1..32]);
    k[31] = 1;
    let Some((_, value)) = state.iter().find(|(x, _)| *x == k) else {
        return;
    };
    anchor[32] = 1;
    anchor[33..].copy_from_slice(value);
    let mut slots = slots_of(p);
    slots.remove(first);
    set_slots(p, &slots);
}

/// The last anchor's depth one deeper (`deeper`) or shallower, the descent's slots made to
/// agree: the level added or removed at the bottom of the descent reads a right-side slot
/// where the stem goes left there (an empty one added, or the one it read removed).
fn anchor_depth_moved(p: &mut Parts, deeper: bool) {
    let Some((first, opening, _)) = last_anchor_slots(p) else {
        return;
    };
    let Some(anchor) = p.anchors.last_mut() else {
        return;
    };
    let k = usize::from(anchor[0]);
    let Some(level) = (if deeper { Some(k) } else { k.checked_sub(1) }) else {
        return;
    };
    let reads_a_slot = !bit_at(&anchor[1..32], level);
    anchor[0] = if deeper { anchor[0] + 1 } else { anchor[0] - 1 };
    if reads_a_slot {
        let mut slots = slots_of(p);
        if deeper {
            slots.insert(first + opening, [0; 32]);
        } else {
            slots.remove(first + opening);
        }
        set_slots(p, &slots);
    }
}

/// The anchors section cut 30 bytes into its last anchor.
fn cut_in_the_anchors(b: &mut Vec<u8>) {
    let Some(p) = Parts::parse(b) else {
        return;
    };
    let after = p.bitmap.len() + 32 * p.hashes.len() + 65;
    if let Some(cut) = (b.len() + 30).checked_sub(after) {
        b.truncate(cut);
    }
}

/// The forgery of `spec/BINARY.md` §4.1 on `read_of_a_stem_at_depth_1`: key `S ‖ 0x00`
/// (present) claimed absent by reading `S`'s stem node at depth 1 as an internal node whose
/// left child is `S ‖ 0x00` and right child `S`'s subtree root `hash(N2 ‖ ZERO)`; the path
/// goes right at depths 1 and 2 and ends EMPTY at depth 3. The witness's claims and ends are
/// set; the slots returned: `A`'s stem node (the honest witness's first slot), `S ‖ 0x00`,
/// `N2`, and the leaf value.
fn stem_node_read_as_internal(p: &mut Parts) -> Option<([[u8; 32]; 3], [u8; 32])> {
    let a_node = *slots_of(p).first()?;
    let value = *p.values.first()?;
    let mut head = [0u8; 32];
    head[..31].copy_from_slice(&p.keys.first()?[..31]);
    let mut n2 = Sha256::hash(&[&value]);
    for _ in 0..7 {
        n2 = Sha256::hash(&[&n2, &[0u8; 32]]);
    }
    p.flags = vec![0];
    p.values.clear();
    p.ends = vec![[3, 0]];
    p.others.clear();
    p.anchors.clear();
    Some(([a_node, head, n2], value))
}

/// The forgery with no anchor: the slots `A`'s node, `S ‖ 0x00`, `N2`.
fn forged_absence(p: &mut Parts) {
    if let Some((slots, _)) = stem_node_read_as_internal(p) {
        set_slots(p, &slots);
    }
}

/// The forgery with an anchor for the untouched side at depth 3 (position `110`, `N2`'s
/// place): stem c0 11… at depth 4 opening `S`'s real leaf (sub-index 0, its value), the
/// opening's 8 slots and the descent's one slot (bit 3 is 0) empty.
fn forged_absence_with_anchor(p: &mut Parts) {
    if let Some(([a_node, head, _], value)) = stem_node_read_as_internal(p) {
        let mut anchor = [0u8; 65];
        anchor[0] = 4;
        anchor[1..32].copy_from_slice(&stem_of(0xc0, 0x11));
        anchor[33..].copy_from_slice(&value);
        p.anchors = vec![anchor];
        set_slots(p, &[vec![a_node, head], vec![[0; 32]; 9]].concat());
    }
}

/// (case name, scenario it starts from, description, rule, edit).
fn mutations() -> Vec<(&'static str, &'static str, &'static str, &'static str, Edit)> {
    use Edit::{Bytes, Parts as P, Root, State};
    vec![
        ("truncated", "random_block_sha256", "the last byte cut", "bw.length.truncated", Bytes(|b| {
            b.pop();
        })),
        ("truncated_header", "read_present_values", "only the first 10 header bytes", "bw.length.truncated", Bytes(|b| b.truncate(10))),
        ("trailing_byte", "read_present_values", "one byte after the hashes", "bw.length.trailing", Bytes(|b| b.push(0))),
        ("key_count_over_limit", "read_present_values", "key_count 2^18 + 1: rejected before any section is read", "bw.limit", Bytes(|b| {
            b[3..7].copy_from_slice(&((1u32 << 18) + 1).to_le_bytes());
        })),
        ("sibling_count_over_limit", "read_present_values", "sibling_count 2^26 + 1", "bw.limit", Bytes(|b| {
            b[11..15].copy_from_slice(&((1u32 << 26) + 1).to_le_bytes());
        })),
        ("hash_count_above_sibling_count", "read_present_values", "hash_count one above sibling_count", "bw.count.hashes", Bytes(|b| {
            let sc = u32::from_le_bytes([b[11], b[12], b[13], b[14]]);
            b[15..19].copy_from_slice(&(sc + 1).to_le_bytes());
        })),
        ("version_1", "read_present_values", "version byte 1 (other records of stem and subtree root)", "bw.version", P(|p| p.head[0] = 1)),
        ("version_2", "anchor_descent_turns_right", "version byte 2 (no anchors) on a witness that carries one", "bw.version", P(|p| p.head[0] = 2)),
        ("tree_eip8297", "read_present_values", "an EIP-8297 tree byte given to the EIP-7864 verifier", "bw.tree", P(|p| p.head[1] = 2)),
        ("hash_blake3", "read_present_values", "a BLAKE3 hash byte given to the SHA-256 verifier", "bw.hash", P(|p| p.head[2] = 2)),
        ("keys_unsorted", "read_present_values", "the first two keys swapped", "bw.keys.order", P(|p| p.keys.swap(0, 1))),
        ("key_repeated", "read_present_values", "the second key equal to the first", "bw.keys.order", P(|p| p.keys[1] = p.keys[0])),
        ("flag_unknown_bit", "read_present_values", "flags bit 0x08", "bw.keys.flags", P(|p| p.flags[0] |= 0x08)),
        ("flag_delete", "writes_update_and_insert", "a delete flag: EIP-7864 defines insertion only", "bw.keys.flags", P(|p| p.flags[0] = 0x05)),
        ("set_to_the_pre_value", "writes_update_and_insert", "a set whose new value is the pre-value", "bw.keys.noop", P(|p| {
            // The first key with a pre-value and a set: its new value follows its pre-value.
            let mut at = 0;
            for f in &p.flags {
                if f & 3 == 3 {
                    p.values[at + 1] = p.values[at];
                    return;
                }
                at += usize::from(f & 1) + usize::from(f >> 1 & 1);
            }
        })),
        ("end_kind_3", "read_present_values", "an end record of kind 3", "bw.end.kind", P(|p| p.ends[0][1] = 3)),
        ("end_depth_249", "read_present_values", "an end record of depth 249", "bw.end.depth", P(|p| p.ends[0][0] = 249)),
        ("end_depth_above_a_split", "read_present_values", "the first stem's path said to end one level above its stem node, where the second touched stem's path goes on", "bw.end.depth", P(|p| p.ends[0][0] -= 1)),
        ("group_present_and_empty", "absent_by_a_divergent_stem", "two paths end at one node, one PRESENT and one said EMPTY", "bw.end.group", P(|p| p.ends[1][1] = 0)),
        ("value_under_an_empty_end", "read_present_values", "a present stem's end said EMPTY while its keys carry pre-values", "bw.end.absent_value", P(|p| p.ends[0][1] = 0)),
        ("other_stem_off_the_path", "absent_by_an_other_stem", "the other stem disagrees with the key in bit 0", "bw.other.prefix", P(|p| p.others[0][0] ^= 0x80)),
        ("other_stem_is_the_key_s", "absent_by_an_other_stem", "the other record names the touched stem itself", "bw.other.touched", P(|p| {
            let stem = p.keys[0];
            p.others[0][..31].copy_from_slice(&stem[..31]);
        })),
        ("present_stem_with_empty_subtree", "empty_tree_insert", "the first insert alone, its end said PRESENT at the root with 8 empty subtree sibling slots: a stem node whose subtree root is ZERO", "bw.other.empty", P(|p| {
            p.keys.truncate(1);
            p.flags.truncate(1);
            p.ends.truncate(1);
            p.values.truncate(1);
            p.ends[0][1] = 1;
            p.slots = 8;
            p.bitmap = vec![0];
        })),
        ("key_with_the_zero_stem", "read_present_values", "the first key's stem set to 0^31 (its stem node would hash as an internal node with an empty left child)", "bw.keys.zero_stem", P(|p| p.keys[0][..31].fill(0))),
        ("other_stem_opens_a_non_first_leaf", "absent_by_an_other_stem", "the other record opens its stem's second present leaf (0x01, true value, true right-side siblings) instead of the first (0x00)", "bw.root", State(open_second_leaf)),
        ("other_stem_value_changed", "absent_by_an_other_stem", "the other record's leaf value changed", "bw.root", P(|p| p.others[0][63] ^= 1)),
        ("other_stem_sub_index_changed", "absent_by_an_other_stem_opening_sub_index_5", "the other record's sub-index 0x05 said 0x04 (one more sibling slot read than sent)", "bw.count.siblings", P(|p| p.others[0][31] = 4)),
        ("empty_internal_node", "empty_tree_insert", "the empty tree's two keys made to part at bit 0, both paths said to end EMPTY at depth 1: both children of the root touched (no anchor), an internal node hashing to ZERO", "bw.path.empty_internal", P(|p| {
            p.keys[0][0] &= 0x7f;
            p.keys[1][0] |= 0x80;
            p.ends = vec![[1, 0], [1, 0]];
        })),
        ("zero_hash_sent", "read_present_values", "a sent sibling hash of 32 zero bytes", "bw.hash.zero", P(|p| p.hashes[0] = [0; 32])),
        ("bitmap_padding", "read_present_values", "a bitmap bit past the last slot", "bw.bitmap.padding", P(|p| {
            if p.slots % 8 == 0 {
                // One more (empty) slot opens a byte; a bit after it is padding.
                p.slots += 1;
                p.bitmap.push(0x40);
            } else if let Some(last) = p.bitmap.last_mut() {
                *last |= 1;
            }
        })),
        ("bitmap_misses_a_hash", "read_present_values", "the bitmap bit of a sent hash cleared", "bw.count.hashes", P(|p| {
            if let Some(byte) = p.bitmap.iter_mut().find(|b| **b != 0) {
                *byte &= *byte - 1;
            }
        })),
        ("extra_sibling_slot", "absent_by_an_empty_subtree", "one more empty sibling slot than the walk uses", "bw.count.siblings", P(|p| {
            if p.slots % 8 == 0 {
                p.bitmap.push(0);
            }
            p.slots += 1;
        })),
        ("extra_other_record", "absent_by_an_other_stem", "a second other record the walk never uses", "bw.count.others", P(|p| {
            let o = p.others[0];
            p.others.push(o);
        })),
        ("pre_value_changed", "read_present_values", "a pre-value changed", "bw.root", P(|p| p.values[0][31] ^= 1)),
        ("value_moved_to_the_reversed_sub_index", "read_present_values", "the value at sub-index 0x80 claimed at 0x01 (the sub-index bits read in the opposite order)", "bw.root", P(|p| {
            if let Some(k) = p.keys.iter_mut().find(|k| k[31] == 0x80) {
                k[31] = 0x01;
            }
        })),
        ("proof_relabelled_to_another_stem", "read_present_values", "every key moved to another stem (same sub-indices, same proof)", "bw.root", P(|p| {
            for k in &mut p.keys {
                k[30] ^= 0x01;
            }
        })),
        ("absence_claimed_for_a_present_key", "absent_in_a_present_stem", "a present key (a‖0x01) claimed absent with the proof of a‖0x02's absence", "bw.root", P(|p| p.keys[0][31] = 0x01)),
        ("other_root", "read_present_values", "checked against another pre-state root", "bw.root", Root(|r| r[0] ^= 1)),
        ("anchor_count_over_limit", "anchor_descent_turns_right", "anchor_count 2^18 + 1 (the limit of other_count)", "bw.limit", Bytes(|b| {
            b[19..23].copy_from_slice(&((1u32 << 18) + 1).to_le_bytes());
        })),
        ("anchor_truncated", "anchor_descent_turns_right", "the witness cut 30 bytes into its anchor", "bw.length.truncated", Bytes(cut_in_the_anchors)),
        ("anchor_depth_249", "anchor_descent_turns_right", "the anchor's depth 249: rejected as it is decoded", "bw.anchor.depth", P(|p| p.anchors[0][0] = 249)),
        ("anchor_missing", "anchor_descent_turns_right", "the anchor and its slots dropped: the EMPTY end at depth 2 has an untouched sibling and no anchor", "bw.count.anchors", P(drop_anchor)),
        ("anchor_extra", "anchor_descent_turns_right", "the anchor sent twice: the walk uses one", "bw.count.anchors", P(|p| {
            let anchor = p.anchors[0];
            p.anchors.push(anchor);
        })),
        ("anchor_depth_at_its_side", "anchor_descent_turns_right", "the anchor's depth 8 said 2, the depth of the side it anchors (a stem node there is no anchor below it)", "bw.anchor.depth", P(anchor_at_its_side)),
        ("anchor_stem_off_the_path", "anchor_descent_turns_right", "the anchor's stem disagrees with the path above the anchored side in bit 0", "bw.anchor.prefix", P(|p| p.anchors[0][1] ^= 0x80)),
        ("anchor_stem_on_the_touched_side", "anchor_descent_turns_right", "the anchor's stem has the key's bit 1, the touched (EMPTY) side's", "bw.anchor.prefix", P(anchor_on_the_touched_side)),
        ("anchor_opens_a_non_first_leaf", "anchor_descent_turns_right", "the anchor opens its stem's second present leaf (0x01, true value, true right-side siblings) instead of the first (0x00)", "bw.root", State(anchor_opens_second_leaf)),
        ("anchor_value_changed", "anchor_descent_turns_right", "the anchor's leaf value changed", "bw.root", P(|p| p.anchors[0][64] ^= 1)),
        ("anchor_deeper", "anchor_descent_turns_right", "the anchor's depth 8 said 9, with the empty right-side slot the added descent level reads (the slots agree)", "bw.root", P(|p| anchor_depth_moved(p, true))),
        ("anchor_shallower", "anchor_descent_turns_right", "the anchor's depth 8 said 7, without the right-side slot the removed descent level read (the slots agree)", "bw.root", P(|p| anchor_depth_moved(p, false))),
        ("absence_of_a_present_key_by_its_stem_node_read_as_internal", "read_of_a_stem_at_depth_1", "the forgery of spec/BINARY.md §4.1: key e0 11…‖0x00 (present) claimed absent, its end (3, EMPTY), slots [00 11…'s stem node, e0 11…‖0x00, N2]: the stem node at depth 1 read as an internal node, its subtree root as the right child; the untouched side at depth 3 has no anchor", "bw.count.anchors", P(forged_absence)),
        ("absence_of_a_present_key_by_its_stem_node_with_a_forged_anchor", "read_of_a_stem_at_depth_1", "the same forgery with an anchor for the side at depth 3: stem c0 11… at depth 4 opening the real leaf value, its nine slots empty (no stem node lies inside a stem's subtree)", "bw.root", P(forged_absence_with_anchor)),
    ]
}

fn eip7864_witness_cases() -> Result<(Vec<Value>, Vec<Value>), VectorError> {
    let proven = scenarios()?;
    let mut valid_cases = Vec::new();
    for p in &proven {
        let value = verify_any(p.hash, &p.bytes, &p.pre).map_err(|r| {
            VectorError::Generator(format!("{}: our witness rejected ({r})", p.name))
        })?;
        valid_cases.push(valid(
            p.name,
            p.description,
            witness_input(p, &p.bytes, &p.pre),
            value,
        ));
    }
    let (eip8297_valid, eip8297_invalid) = eip8297_witness::eip8297_witness_cases()?;
    valid_cases.extend(eip8297_valid);
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
            Edit::State(f) => {
                let mut parts = Parts::parse(&p.bytes).ok_or_else(|| {
                    VectorError::Generator(format!(
                        "scenario {from}: its witness's sections do not read"
                    ))
                })?;
                f(&mut parts, &p.state);
                bytes = parts.encode();
            }
            Edit::Bytes(f) => f(&mut bytes),
            Edit::Root(f) => f(&mut pre),
        }
        invalid_cases.push(invalid(
            name,
            description,
            witness_input(p, &bytes, &pre),
            rule,
        ));
    }
    invalid_cases.extend(eip8297_invalid);
    Ok((valid_cases, invalid_cases))
}
