//! Replays the Kaustinen6 chain (`vectors/chain/`, blocks 1..200) in-process on the devnet6
//! genesis tree: before each block the root must equal its `parentStateRoot`, every witness
//! `currentValue` must equal the tree's value, and re-proving the block's keys from our tree
//! must give geth/go-verkle's witness byte for byte; after applying its `newValue`s the root
//! must equal its `stateRoot`.

use std::time::{Duration, Instant};

use genesis::genesis_leaves;
use verkle::keys::{account_leaves, address32, AccountState, Layout, TreeKey, Value};
use verkle::{Tree, U256};
use witness::{
    owned::{OwnedExecutionWitness, OwnedVerkleProof},
    ExecutionWitness,
};

use crate::common::{h32, hex0x, read_json, read_text, tree_of};

const CHAIN_FILE: &str = "chain/kaustinen6_witness_chain_0001-0200.json";

/// Kaustinen6 fork rule at block 1 (`vectors/README.md`, "Known quirk at block 1"): geth
/// created the EIP-2935 history account without listing its four legacy header leaves in
/// the witness (the rule `chain::forks` states for the replay): version 0, balance 0, nonce 0,
/// code keccak = keccak("") at `0xffff…fffe`.
fn kaustinen6_block_1_history_account() -> Vec<(TreeKey, Value)> {
    let mut history = [0xff; 20];
    history[19] = 0xfe;
    let account = AccountState {
        version: 0,
        balance: U256::ZERO,
        nonce: 0,
        code: &[],
        storage: &[],
    };
    let leaves = account_leaves(Layout::Legacy, &address32(&history), &account).unwrap();
    assert_eq!(leaves.len(), 4, "version, balance, nonce, code keccak");
    leaves
}

/// Names the first field where our proof differs from the chain's.
fn proof_difference(ours: &OwnedVerkleProof, theirs: &OwnedVerkleProof) -> String {
    let hexes = |v: &[[u8; 31]]| v.iter().map(|s| hex0x(s)).collect::<Vec<_>>();
    if ours.other_stems != theirs.other_stems {
        return format!(
            "other_stems: ours {:?}, theirs {:?}",
            hexes(&ours.other_stems),
            hexes(&theirs.other_stems)
        );
    }
    if ours.depth_extension_present != theirs.depth_extension_present {
        return format!(
            "depth_extension_present: ours {}, theirs {}",
            hex0x(&ours.depth_extension_present),
            hex0x(&theirs.depth_extension_present)
        );
    }
    if ours.commitments_by_path != theirs.commitments_by_path {
        let first = ours
            .commitments_by_path
            .iter()
            .zip(&theirs.commitments_by_path)
            .position(|(a, b)| a != b);
        return format!(
            "commitments_by_path: ours {} entries, theirs {}, first difference at {first:?}",
            ours.commitments_by_path.len(),
            theirs.commitments_by_path.len()
        );
    }
    if ours.d != theirs.d {
        return format!("d: ours {}, theirs {}", hex0x(&ours.d), hex0x(&theirs.d));
    }
    if ours.ipa_proof != theirs.ipa_proof {
        return "ipa_proof".to_string();
    }
    "none".to_string()
}

#[test]
fn kaustinen6_replay_reproves_every_witness_byte_for_byte() {
    let start = Instant::now();
    let genesis = genesis_leaves(
        &read_text("genesis/devnet6_genesis.json"),
        Layout::Legacy,
        "devnet6_genesis.json",
    )
    .unwrap();
    let mut tree: Tree = tree_of(&genesis);
    let doc = read_json(CHAIN_FILE);
    let blocks = doc["blocks"].as_array().expect("chain: blocks array");
    assert_eq!(blocks.len(), 200, "{CHAIN_FILE}: block count");

    let mut prove_time = Duration::ZERO;
    let mut slowest = (Duration::ZERO, 0u64, 0usize);
    let (mut keys_total, mut stems_total) = (0usize, 0usize);
    let mut unbound = Unbound::default();
    for (i, b) in blocks.iter().enumerate() {
        let number = b["blockNumber"].as_u64().expect("blockNumber");
        assert_eq!(number, i as u64 + 1, "blocks are consecutive from 1");
        let root = |k: &str| {
            h32(b[k]
                .as_str()
                .unwrap_or_else(|| panic!("block {number}: {k}")))
        };
        let theirs: OwnedExecutionWitness =
            ExecutionWitness::from_json_value(&b["executionWitness"])
                .unwrap_or_else(|e| panic!("{CHAIN_FILE} block {number}: {e}"))
                .to_owned_witness();

        assert_eq!(
            hex0x(&tree.root_bytes()),
            hex0x(&root("parentStateRoot")),
            "block {number}: tree root before the block"
        );

        // Every current value is the tree's.
        let mut keys: Vec<(TreeKey, Option<Value>)> = Vec::new();
        for s in &theirs.state_diff {
            for d in &s.suffix_diffs {
                let mut key = [0u8; 32];
                key[..31].copy_from_slice(&s.stem);
                key[31] = d.suffix;
                assert_eq!(
                    tree.get(&key).unwrap(),
                    d.current_value,
                    "block {number}: current value of {}",
                    hex0x(&key)
                );
                keys.push((key, d.new_value));
            }
        }
        keys_total += keys.len();
        stems_total += theirs.state_diff.len();

        // Our witness for the same keys is theirs, byte for byte.
        let t = Instant::now();
        let ours = tree.prove_with_new_values(&keys).unwrap();
        let took = t.elapsed();
        prove_time += took;
        if took > slowest.0 {
            slowest = (took, number, keys.len());
        }
        assert!(
            ours.verkle_proof == theirs.verkle_proof,
            "block {number}: our proof differs from the chain's in {}",
            proof_difference(&ours.verkle_proof, &theirs.verkle_proof)
        );
        assert_eq!(ours.state_diff, theirs.state_diff, "block {number}");
        assert_eq!(ours, theirs, "block {number}");

        // The same keys with every absence bound: still valid against the parent root,
        // nothing unbound, the same post-state (the added keys are reads).
        unbound.add(&mut tree, number, &keys, &ours, &root("parentStateRoot"));

        // Apply the block.
        if number == 1 {
            tree.apply(
                kaustinen6_block_1_history_account()
                    .into_iter()
                    .map(|(k, v)| (k, Some(v))),
            )
            .unwrap();
        }
        tree.apply(
            keys.iter()
                .filter_map(|(k, new)| new.map(|v| (*k, Some(v)))),
        )
        .unwrap();
        assert_eq!(
            hex0x(&tree.root_bytes()),
            hex0x(&root("stateRoot")),
            "block {number}: tree root after the block"
        );
    }
    eprintln!(
        "kaustinen6 replay: 200 blocks, {stems_total} stems, {keys_total} keys; proving {prove_time:?} \
         in all, slowest block {} ({} keys) {:?}; total {:?}",
        slowest.1,
        slowest.2,
        slowest.0,
        start.elapsed()
    );
    eprintln!("{unbound}");
}

/// Unbound absences in the chain's witnesses, and what binding them costs.
#[derive(Default)]
struct Unbound {
    blocks: usize,
    stems: usize,
    keys: usize,
    writes: usize,
    added_keys: usize,
    plain_bytes: usize,
    bound_bytes: usize,
    max_ratio: (f64, u64),
}

impl Unbound {
    fn add(
        &mut self,
        tree: &mut Tree,
        number: u64,
        keys: &[(TreeKey, Option<Value>)],
        plain: &OwnedExecutionWitness,
        parent_root: &[u8; 32],
    ) {
        let proven = witness::verify(parent_root, &plain.to_witness().unwrap()).unwrap();
        if proven.unbound_absences() > 0 {
            self.blocks += 1;
        }
        self.stems += proven.unbound_stems();
        self.keys += proven.unbound_absences();
        self.writes += proven.unbound_writes();
        let (bound, added) = tree.prove_bound(keys).unwrap();
        let bound_proven = witness::verify(parent_root, &bound.to_witness().unwrap())
            .unwrap_or_else(|e| panic!("block {number}: bound witness: {e}"));
        assert_eq!(bound_proven.unbound_absences(), 0, "block {number}");
        assert_eq!(
            added == 0,
            proven.unbound_absences() == 0,
            "block {number}: keys are added exactly when an absence is unbound"
        );
        if added == 0 {
            assert_eq!(
                &bound, plain,
                "block {number}: nothing to bind, same witness"
            );
        }
        assert_eq!(
            bound_proven.post_state_root().unwrap(),
            proven.post_state_root().unwrap(),
            "block {number}: the added reads change no post-state"
        );
        for k in proven.keys() {
            assert_eq!(
                bound_proven.current_value(&k.key()),
                Some(k.current_value.as_ref()),
                "block {number}: every key of the block is still proven, with its value"
            );
        }
        let (p, b) = (plain.to_ssz().unwrap().len(), bound.to_ssz().unwrap().len());
        self.added_keys += added;
        self.plain_bytes += p;
        self.bound_bytes += b;
        let ratio = b as f64 / p as f64;
        if ratio > self.max_ratio.0 {
            self.max_ratio = (ratio, number);
        }
    }
}

impl std::fmt::Display for Unbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "kaustinen6 unbound absences: {} of 200 blocks, {} stems, {} keys ({} written); \
             binding them: {} keys added, SSZ {} -> {} bytes (+{:.2} %), largest block ratio {:.3} (block {})",
            self.blocks,
            self.stems,
            self.keys,
            self.writes,
            self.added_keys,
            self.plain_bytes,
            self.bound_bytes,
            100.0 * (self.bound_bytes as f64 / self.plain_bytes as f64 - 1.0),
            self.max_ratio.0,
            self.max_ratio.1
        )
    }
}

#[test]
fn kaustinen6_block_1_root_needs_the_history_account() {
    // Without the fork rule the root after block 1 is not the chain's: the rule is needed.
    let genesis = genesis_leaves(
        &read_text("genesis/devnet6_genesis.json"),
        Layout::Legacy,
        "devnet6_genesis.json",
    )
    .unwrap();
    let mut tree: Tree = tree_of(&genesis);
    let doc = read_json(CHAIN_FILE);
    let b = &doc["blocks"][0];
    let w = ExecutionWitness::from_json_value(&b["executionWitness"])
        .unwrap()
        .to_owned_witness();
    let writes: Vec<(TreeKey, Option<Value>)> = w
        .state_diff
        .iter()
        .flat_map(|s| {
            s.suffix_diffs.iter().filter_map(move |d| {
                let mut key = [0u8; 32];
                key[..31].copy_from_slice(&s.stem);
                key[31] = d.suffix;
                d.new_value.map(|v| (key, Some(v)))
            })
        })
        .collect();
    tree.apply(writes).unwrap();
    let state_root = b["stateRoot"].as_str().unwrap();
    assert_ne!(hex0x(&tree.root_bytes()), state_root);
    // The witness lists the account's stem (its history storage slot) but none of the four
    // header leaves the rule inserts.
    for (k, _) in kaustinen6_block_1_history_account() {
        let listed = w
            .state_diff
            .iter()
            .any(|s| s.stem == k[..31] && s.suffix_diffs.iter().any(|d| d.suffix == k[31]));
        assert!(!listed, "block 1 witness lists {}", hex0x(&k));
    }
}
