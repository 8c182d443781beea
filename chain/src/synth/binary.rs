//! The synthetic chain on a binary tree: the same genesis document and the same account-level
//! draws as the Verkle chain of the same seed, each block's keys resolved through the binary
//! tree's embedding ([`crate::binary::embed`]) and proven with the binary state
//! ([`BinaryState::witness`]); written as a binary export ([`crate::binary::export`]).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use bintree::witness::Write;
use verkle::keys::{Layout, Value};

use super::keys::KeyName;
use super::{genesis_file, Prover, Synth, SynthConfig};
use crate::binary::embed::{key_write, AccountId, Leaf};
use crate::binary::export::block_line;
use crate::binary::genesis::init_binary_genesis;
use crate::binary::{BinaryKind, BinaryState};
use crate::hexarg::to_hex;

/// One generated binary block.
pub struct BinaryBlock {
    /// Block number (from 1).
    pub number: u64,
    /// Root before.
    pub parent_state_root: [u8; 32],
    /// Root after.
    pub state_root: [u8; 32],
    /// Its binary witness (`spec/BINARY.md`).
    pub witness: Vec<u8>,
    /// Keys written (set or deleted).
    pub writes: usize,
}

/// What [`write_binary_chain`] wrote.
#[derive(Clone, Debug)]
pub struct BinaryGenerated {
    /// The root after the last block.
    pub root: [u8; 32],
    /// Keys written, all blocks.
    pub written: u64,
    /// Seconds spent on the genesis.
    pub genesis_s: f64,
    /// Keys to prove against the final state: basic-data keys of drawn accounts, and of
    /// absent ones.
    pub sample_keys: Vec<Vec<u8>>,
}

impl Synth {
    /// The generator for a binary tree: the genesis document of `config` written to
    /// `genesis_out` (the same document as the Verkle generator's) and read into the empty
    /// `state` as a binary replay reads it.
    pub fn binary_genesis_to_file(
        config: SynthConfig,
        genesis_out: &Path,
        mut state: Box<dyn BinaryState>,
    ) -> Result<Synth> {
        if config.layout != Layout::Eip6800 {
            bail!("a binary tree's synthetic chain draws the EIP-6800 account layout (--layout eip6800)");
        }
        if config.bind_absences {
            bail!(
                "--bind-absences is a Verkle prover option: a binary witness binds every absence"
            );
        }
        let (rng, model) = genesis_file(&config, genesis_out)?;
        init_binary_genesis(state.as_mut(), genesis_out)?;
        Ok(Synth::with(config, rng, model, Prover::Binary(state)))
    }

    fn binary(&mut self) -> Result<&mut Box<dyn BinaryState>> {
        match &mut self.prover {
            Prover::Binary(state) => Ok(state),
            Prover::Verkle(_) => {
                bail!("the generator holds the Verkle tree; this needs a binary one")
            }
        }
    }

    /// The key and write of each name of a block, in the binary tree's embedding, each key
    /// once (EIP-8297 code chunks are shared by accounts with the same code: a write wins
    /// over a read).
    fn resolve_binary(
        &self,
        kind: BinaryKind,
        names: BTreeMap<KeyName, Option<Value>>,
    ) -> Result<Vec<(Vec<u8>, Write)>> {
        let mut out: BTreeMap<Vec<u8>, Write> = BTreeMap::new();
        for (name, value) in names {
            let a = &self.accounts[name.account()];
            let id = AccountId {
                address: a.address,
                code: &a.code,
            };
            let leaf = Leaf::at(&name.tree_index_be(), name.sub_index());
            if let Some((key, write)) = key_write(kind, &id, leaf, value.as_ref())? {
                let slot = out.entry(key).or_insert(Write::Unchanged);
                if write != Write::Unchanged {
                    *slot = write;
                }
            }
        }
        Ok(out.into_iter().collect())
    }

    /// Generates the next block on the binary tree.
    pub fn next_binary_block(&mut self) -> Result<BinaryBlock> {
        let (names, _) = self.draw_block()?;
        let number = self.number;
        let kind = self.binary()?.kind();
        let writes = self.resolve_binary(kind, names)?;
        let state = self.binary()?;
        let parent_state_root = state.root()?;
        let witness = state
            .witness(&writes)
            .with_context(|| format!("proving synthetic block {number}"))?;
        let changed: Vec<(Vec<u8>, Write)> = writes
            .into_iter()
            .filter(|(_, w)| *w != Write::Unchanged)
            .collect();
        state.apply(&changed)?;
        let state_root = state.root()?;
        state
            .persist(number, &[])
            .with_context(|| format!("writing synthetic block {number}"))?;
        Ok(BinaryBlock {
            number,
            parent_state_root,
            state_root,
            witness,
            writes: changed.len(),
        })
    }

    /// Keys a proof demo can ask for on the binary tree: basic-data keys of drawn accounts,
    /// and (every fourth) of an absent account.
    pub fn sample_binary_keys(&mut self, n: usize) -> Result<Vec<Vec<u8>>> {
        let kind = self.binary()?.kind();
        let mut out: Vec<Vec<u8>> = Vec::with_capacity(n);
        for j in 0..n {
            let address = if j % 4 == 3 {
                let mut a = [0u8; 20];
                a.copy_from_slice(&self.rng.bytes32()[..20]);
                a
            } else {
                self.accounts[self.rng.zipf(self.accounts.len() as u64) as usize].address
            };
            let id = AccountId { address, code: &[] };
            if let Some((key, _)) = key_write(kind, &id, Leaf::BasicData, None)? {
                if !out.contains(&key) {
                    out.push(key);
                }
            }
        }
        Ok(out)
    }
}

/// Generates the chain of `config` on a binary tree: its genesis into `genesis_out` (the
/// document the Verkle chain of the same config has), then its blocks into `out` as a binary
/// export, the generator's tree held by `state` (empty). `on_block` sees each block after it
/// is written.
pub fn write_binary_chain(
    config: SynthConfig,
    out: &Path,
    genesis_out: &Path,
    state: Box<dyn BinaryState>,
    on_block: &mut dyn FnMut(&BinaryBlock),
) -> Result<BinaryGenerated> {
    use std::io::Write as _;
    let t = std::time::Instant::now();
    let kind = state.kind();
    let mut synth = Synth::binary_genesis_to_file(config, genesis_out, state)?;
    let genesis_s = t.elapsed().as_secs_f64();
    tracing::info!(
        "{}: genesis of {} accounts on {}/{}, root {} ({genesis_s:.1} s)",
        genesis_out.display(),
        config.accounts,
        kind.tree(),
        kind.hash(),
        to_hex(&synth.root()?)
    );
    let name = out.display().to_string();
    let file = std::fs::File::create(out).with_context(|| format!("{name}: cannot create"))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut written = 0u64;
    while synth.remaining() > 0 {
        let b = synth.next_binary_block()?;
        written += b.writes as u64;
        let line = block_line(
            kind,
            b.number,
            &b.parent_state_root,
            &b.state_root,
            &b.witness,
        );
        w.write_all(line.as_bytes())
            .and_then(|()| w.write_all(b"\n"))
            .with_context(|| format!("{name}: cannot write"))?;
        on_block(&b);
    }
    w.flush().with_context(|| format!("{name}: cannot write"))?;
    Ok(BinaryGenerated {
        root: synth.root()?,
        written,
        genesis_s,
        sample_keys: synth.sample_binary_keys(64)?,
    })
}

#[cfg(test)]
mod tests;
