//! The binary chain: replayed block by block for each tree, the same draws as the Verkle
//! chain, deterministic, and every hostile edit of an export rejected with its rule.

use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::*;
use crate::binary::memory::in_memory;
use crate::binary::replay::{
    BinaryBlockReport, BinaryReplayer, RULE_PARENT_ROOT, RULE_PRE_VALUE, RULE_WITNESS_POST_ROOT,
};
use crate::replayer::Ended;
use crate::state::MemoryState;
use crate::synth::{write_chain, Format};

const KINDS: [BinaryKind; 3] = [
    BinaryKind::Eip7864Sha256,
    BinaryKind::Eip7864Blake3,
    BinaryKind::Eip8297,
];

fn config(seed: u64) -> SynthConfig {
    SynthConfig {
        accounts: 400,
        blocks: 3,
        updates: 80,
        seed,
        layout: Layout::Eip6800,
        bind_absences: false,
    }
}

/// Generates a chain on `kind` into `dir`: the export, the genesis, the blocks' roots and
/// write counts.
fn gen(
    dir: &Path,
    name: &str,
    kind: BinaryKind,
    seed: u64,
) -> (PathBuf, PathBuf, Vec<([u8; 32], usize)>) {
    let out = dir.join(format!("{name}.jsonl"));
    let genesis = dir.join(format!("{name}.genesis.json"));
    let mut blocks = Vec::new();
    write_binary_chain(config(seed), &out, &genesis, in_memory(kind), &mut |b| {
        blocks.push((b.state_root, b.writes))
    })
    .unwrap();
    (out, genesis, blocks)
}

/// Replays `export` on `kind` from `genesis`: how it ended and the reports.
fn replay(
    kind: BinaryKind,
    genesis: &Path,
    export: &Path,
    state: Option<Box<dyn BinaryState>>,
) -> anyhow::Result<(Ended, Vec<BinaryBlockReport>)> {
    let mut state = state.unwrap_or_else(|| in_memory(kind));
    init_binary_genesis(state.as_mut(), genesis)?;
    let mut replayer = BinaryReplayer::new(state.as_mut());
    let mut reports = Vec::new();
    let ended = replayer.replay_export(&[export.to_path_buf()], &mut |r| {
        reports.push(r.clone());
        Ok(())
    })?;
    Ok((ended, reports))
}

#[test]
fn every_tree_replays_its_chain_block_by_block() {
    let dir = tempfile::tempdir().unwrap();
    for kind in KINDS {
        let (export, genesis, blocks) = gen(dir.path(), kind.tree(), kind, 11);
        let (ended, reports) = replay(kind, &genesis, &export, None).unwrap();
        assert_eq!(ended, Ended::Matched, "{kind:?}");
        assert_eq!(reports.len(), 3);
        for (r, (root, writes)) in reports.iter().zip(&blocks) {
            assert!(r.ok, "{kind:?}: {r:?}");
            assert_eq!(r.post_root, Some(*root));
            assert_eq!(
                r.witness_post_root,
                Some(*root),
                "the witness gives the tree's root"
            );
            assert_eq!(r.keys_written, *writes);
            assert!(r.keys_read > r.keys_written);
            assert!(r.proof_bytes > 0 && r.proof_bytes < r.witness_bytes);
            assert!(r.verify_hashes > 0 && r.apply_hashes > 0);
            // The least hash counts: the tree's rehash is exactly the changed paths on
            // EIP-7864, at most one more a new key on EIP-8297 (a shortened prefix); the
            // verifier hashes at least the touched and the changed paths.
            let (Some(apply_min), Some(verify_min)) = (r.apply_min_hashes, r.verify_min_hashes)
            else {
                panic!("{kind:?}: a state in memory reports the least hash counts: {r:?}");
            };
            if kind == BinaryKind::Eip8297 {
                assert!(apply_min <= r.apply_hashes, "{kind:?}: {r:?}");
                assert!(r.apply_hashes <= apply_min + r.keys_written as u64, "{r:?}");
            } else {
                assert_eq!(r.apply_hashes, apply_min, "{kind:?}: {r:?}");
            }
            assert!(
                verify_min > apply_min && r.verify_hashes >= verify_min,
                "{kind:?}: {r:?}"
            );
        }
        assert_ne!(reports[0].pre_root, reports[2].post_root);
    }
}

#[test]
fn the_same_seed_draws_the_same_blocks_for_every_tree_and_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // The Verkle chain of the same config: its genesis document and write counts.
    let (vout, vgen) = (
        dir.path().join("v.jsonl"),
        dir.path().join("v.genesis.json"),
    );
    let mut verkle_writes = Vec::new();
    write_chain(
        config(5),
        &vout,
        &vgen,
        Box::new(MemoryState::new()),
        Format::Export,
        &mut |b| verkle_writes.push(b.writes),
    )
    .unwrap();
    for kind in KINDS {
        let (a, ga, blocks) = gen(dir.path(), "a", kind, 5);
        let a_bytes = std::fs::read(&a).unwrap();
        let (b, gb, _) = gen(dir.path(), "b", kind, 5);
        assert_eq!(
            a_bytes,
            std::fs::read(&b).unwrap(),
            "{kind:?}: byte-identical"
        );
        assert_eq!(std::fs::read(&ga).unwrap(), std::fs::read(&gb).unwrap());
        assert_eq!(
            std::fs::read(&ga).unwrap(),
            std::fs::read(&vgen).unwrap(),
            "one genesis document for every tree"
        );
        let writes: Vec<usize> = blocks.iter().map(|b| b.1).collect();
        assert_eq!(writes, verkle_writes, "{kind:?}: the same draws");
        let (c, _, _) = gen(dir.path(), "c", kind, 6);
        assert_ne!(a_bytes, std::fs::read(&c).unwrap());
    }
}

/// The export's lines, with line `n` (from 1) edited by `edit`, written to `dir/name`.
fn edited(dir: &Path, export: &Path, n: usize, edit: impl Fn(&mut Json)) -> PathBuf {
    let text = std::fs::read_to_string(export).unwrap();
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i + 1 != n {
                return l.to_string();
            }
            let mut v: Json = serde_json::from_str(l).unwrap();
            edit(&mut v);
            v.to_string()
        })
        .collect();
    let p = dir.join(format!("edited-{n}.jsonl"));
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

fn set_root(v: &mut Json, field: &str) {
    let mut r = crate::hexarg::parse_root(v[field].as_str().unwrap()).unwrap();
    r[5] ^= 1;
    v[field] = Json::String(to_hex(&r));
}

/// Replays an edited export: the last report is block 2, failed with `rule` (or a `bw.`
/// rule); nothing after it was replayed.
fn rejected_at_block_2(kind: BinaryKind, genesis: &Path, export: &Path) -> BinaryBlockReport {
    let (ended, reports) = replay(kind, genesis, export, None).unwrap();
    assert_eq!(ended, Ended::Mismatch);
    assert_eq!(reports.len(), 2, "the replay stops at the bad block");
    assert!(reports[0].ok);
    let r = reports[1].clone();
    assert!(!r.ok);
    assert_eq!(r.number, 2);
    r
}

#[test]
fn hostile_exports_are_rejected_with_their_rule() {
    let dir = tempfile::tempdir().unwrap();
    for kind in [BinaryKind::Eip7864Sha256, BinaryKind::Eip8297] {
        let (export, genesis, _) = gen(dir.path(), kind.tree(), kind, 3);
        // A witness byte flipped (in the hashes, the keys or the header).
        for at in [0.5, 0.05, 0.999] {
            let p = edited(dir.path(), &export, 2, |v| {
                let mut w = hex::decode(&v["binaryWitness"].as_str().unwrap()[2..]).unwrap();
                let i = ((w.len() as f64) * at) as usize;
                w[i] ^= 0x10;
                v["binaryWitness"] = Json::String(to_hex(&w));
            });
            let r = rejected_at_block_2(kind, &genesis, &p);
            let rule = r.rule.unwrap();
            assert!(
                rule.starts_with("bw.") || rule == RULE_WITNESS_POST_ROOT,
                "{kind:?} at {at}: {rule}: {:?}",
                r.error
            );
        }
        let p = edited(dir.path(), &export, 2, |v| set_root(v, "stateRoot"));
        let r = rejected_at_block_2(kind, &genesis, &p);
        assert_eq!(r.rule, Some(RULE_WITNESS_POST_ROOT));
        assert!(r.error.unwrap().contains("line 2"));
        let p = edited(dir.path(), &export, 2, |v| set_root(v, "parentStateRoot"));
        let r = rejected_at_block_2(kind, &genesis, &p);
        assert_eq!(r.rule, Some(RULE_PARENT_ROOT));
        // A malformed line: a typed error naming file and line, after block 1.
        let text = std::fs::read_to_string(&export).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines[1] = "{\"blockNumber\":2,";
        let p = dir.path().join("malformed.jsonl");
        std::fs::write(&p, lines.join("\n")).unwrap();
        let e = replay(kind, &genesis, &p, None).unwrap_err();
        let e = e.downcast::<crate::binary::export::ExportError>().unwrap();
        assert!(
            matches!(
                e,
                crate::binary::export::ExportError::NotJson { line: 2, .. }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("malformed.jsonl: line 2"), "{e}");
    }
}

/// A state whose value of one key is not what its root commits to.
struct Lying {
    inner: Box<dyn BinaryState>,
    key: Vec<u8>,
}

impl BinaryState for Lying {
    fn kind(&self) -> BinaryKind {
        self.inner.kind()
    }
    fn get(&mut self, key: &[u8]) -> Result<Option<[u8; 32]>> {
        if key == self.key.as_slice() {
            return Ok(Some([0xee; 32]));
        }
        self.inner.get(key)
    }
    fn apply(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<()> {
        self.inner.apply(writes)
    }
    fn root(&mut self) -> Result<[u8; 32]> {
        self.inner.root()
    }
    fn hash_count(&self) -> u64 {
        self.inner.hash_count()
    }
    fn witness(&mut self, writes: &[(Vec<u8>, Write)]) -> Result<Vec<u8>> {
        self.inner.witness(writes)
    }
    fn persist(&mut self, height: u64, meta: &[(&[u8], &[u8])]) -> Result<()> {
        self.inner.persist(height, meta)
    }
    fn height(&self) -> Option<u64> {
        self.inner.height()
    }
    fn meta(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.inner.meta(key)
    }
}

#[test]
fn a_pre_value_the_state_contradicts_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    for kind in KINDS {
        let (export, genesis, _) = gen(dir.path(), kind.tree(), kind, 4);
        // The first key of block 2's witness, whatever it claims.
        let line = std::fs::read_to_string(&export).unwrap();
        let v: Json = serde_json::from_str(line.lines().nth(1).unwrap()).unwrap();
        let w = hex::decode(&v["binaryWitness"].as_str().unwrap()[2..]).unwrap();
        let key = match kind {
            BinaryKind::Eip8297 => {
                let (view, _) = bintree::eip8297::witness::verify::<bintree::Blake3>(
                    &w,
                    &crate::hexarg::parse_root(v["parentStateRoot"].as_str().unwrap()).unwrap(),
                )
                .unwrap();
                let key = view.claims().next().unwrap().key.to_vec();
                key
            }
            _ => {
                let view = bintree::eip7864::witness::Witness::decode::<bintree::Sha256>(&w)
                    .or_else(|_| bintree::eip7864::witness::Witness::decode::<bintree::Blake3>(&w))
                    .unwrap();
                let key = view.claims().next().unwrap().key.to_vec();
                key
            }
        };
        let lying = Box::new(Lying {
            inner: in_memory(kind),
            key,
        });
        let (ended, reports) = replay(kind, &genesis, &export, Some(lying)).unwrap();
        assert_eq!(ended, Ended::Mismatch);
        let r = reports.last().unwrap();
        assert!(!r.ok);
        assert_eq!(r.rule, Some(RULE_PRE_VALUE), "{kind:?}: {:?}", r.error);
        assert!(r
            .error
            .as_deref()
            .unwrap()
            .contains("the state holds 0xeeee"));
    }
}
