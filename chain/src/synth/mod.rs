//! A synthetic, mainnet-like chain, deterministic in its seed: a genesis of many accounts
//! (a few of them contracts with code and storage), then blocks of balance/nonce updates,
//! new accounts, storage writes concentrated on hot contracts, and contract deployments with
//! chunked code. Accounts and contracts are drawn Zipf-like (log-uniform ranks: the k-th
//! hottest is drawn with probability ∝ 1/k). Witnesses come from our prover
//! ([`verkle::Tree::prove_with_new_values`]) against the state before each block.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use serde_json::{json, Map, Value as Json};
use verkle::keys::{chunkify_code, keccak256, AccountState, Layout, TreeKey, TreePosition, Value};
use verkle::U256;

use std::path::Path;

use crate::binary::BinaryState;
use crate::export::block_json;
use crate::genesis::{init_genesis, GenesisSpec};
use crate::hexarg::to_hex;
use crate::import::diffs::trace::{AccountSnap, TxLog};
use crate::rules::Chain;
#[cfg(test)]
use crate::state::MemoryState;
use crate::state::{Mode, State};
use witness::ExecutionWitness;

pub mod binary;
mod keys;

use keys::KeyName;

/// What to generate.
#[derive(Clone, Copy, Debug)]
pub struct SynthConfig {
    /// Accounts in the genesis.
    pub accounts: u64,
    /// Blocks after the genesis.
    pub blocks: u64,
    /// Keys written per block (at least; a transaction's writes are not split).
    pub updates: usize,
    /// The seed: the same seed gives the same chain, byte for byte.
    pub seed: u64,
    /// Account layout.
    pub layout: Layout,
    /// Prove every block with every absence bound ([`witness::prove_bound`]): the witnesses
    /// carry a few more reads; without it they are what geth's prover writes.
    pub bind_absences: bool,
}

/// SplitMix64 over its state: small, fast, and enough for test data; the same seed gives
/// the same draws on every machine (the synthetic chains, the examples and the tests use it).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)` (`n > 0`; the modulo's bias is immaterial for test data).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)` (`hi > lo`).
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo).max(1)
    }

    /// Zipf-like rank in `[0, n)`: `P(rank = k) ≈ ln(1 + 1/(k+1)) / ln(n + 1)`.
    fn zipf(&mut self, n: u64) -> u64 {
        let r = ((n as f64 + 1.0).powf(self.unit()) - 1.0) as u64;
        r.min(n.saturating_sub(1))
    }

    /// 32 bytes: four draws, little-endian.
    pub fn bytes32(&mut self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for c in out.chunks_mut(8) {
            c.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        out
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(n + 8);
        while v.len() < n {
            v.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        v.truncate(n);
        v
    }
}

/// One account of the generator's model.
struct Account {
    address: [u8; 20],
    balance: u64,
    nonce: u64,
    code: Vec<u8>,
}

/// The generator: its model of the accounts and the tree it proves from.
pub struct Synth {
    config: SynthConfig,
    rng: Rng,
    accounts: Vec<Account>,
    /// Indices of the contracts in the genesis (the hot ones, hottest first).
    contracts: Vec<usize>,
    /// The state blocks are proven against (in memory or a datadir).
    prover: Prover,
    number: u64,
    /// Whether blocks carry their transactions' account-level diffs.
    record: bool,
}

/// A block's keys by name (`None`: read only) with their EIP-6800 leaf values.
type DrawnKeys = BTreeMap<KeyName, Option<Value>>;

/// The tree the generator proves its blocks with: the account-level draws are the same for
/// every tree, resolved through the tree's embedding.
enum Prover {
    /// A Verkle state (EIP-6800 keys).
    Verkle(Box<dyn State>),
    /// A binary state (EIP-7864 or EIP-8297 keys, [`crate::binary::embed`]).
    Binary(Box<dyn BinaryState>),
}

/// One generated block.
pub struct SynthBlock {
    /// Block number (from 1).
    pub number: u64,
    /// Root before.
    pub parent_state_root: [u8; 32],
    /// Root after.
    pub state_root: [u8; 32],
    /// Its witness.
    pub witness: ExecutionWitness,
    /// Keys written.
    pub writes: usize,
    /// Its transactions' account-level diffs (`prestateTracer` in diff mode), when
    /// [`Synth::record_diffs`] asked for them; empty otherwise.
    pub traces: Vec<Json>,
}

fn address_of(seed: u64, i: u64) -> [u8; 20] {
    let mut pre = [0u8; 24];
    pre[..8].copy_from_slice(&seed.to_le_bytes());
    pre[8..16].copy_from_slice(b"account:");
    pre[16..].copy_from_slice(&i.to_le_bytes());
    let h = keccak256(&pre);
    let mut a = [0u8; 20];
    a.copy_from_slice(&h[12..]);
    a
}

/// The genesis accounts drawn from a seed: the model, and the storage of the contracts.
struct GenesisModel {
    accounts: Vec<Account>,
    contracts: Vec<usize>,
    /// Per contract (same order as `contracts`): its storage, as the genesis writes it.
    storage: Vec<Map<String, Json>>,
}

fn draw_genesis(config: &SynthConfig, rng: &mut Rng) -> GenesisModel {
    let n = config.accounts.max(2);
    // About one contract per thousand accounts (at least 4), spread over the indices.
    let contract_count = (n / 1000).clamp(4, 4096).min(n);
    let stride = n / contract_count;
    let mut accounts = Vec::with_capacity(n as usize);
    let mut contracts = Vec::new();
    let mut storage = Vec::new();
    for i in 0..n {
        let address = address_of(config.seed, i);
        let balance = rng.range(1_000_000_000_000, 1_000_000_000_000_000_000);
        let nonce = rng.range(0, 100);
        let is_contract = i % stride == stride / 2 && contracts.len() < contract_count as usize;
        let code = if is_contract {
            let len = rng.range(1000, 6000) as usize;
            let code = rng.bytes(len);
            let mut slots = Map::new();
            for s in 0..rng.range(4, 32) {
                let v = rng.bytes32();
                slots.insert(format!("0x{s:x}"), json!(format!("0x{}", hex::encode(v))));
            }
            storage.push(slots);
            contracts.push(i as usize);
            code
        } else {
            Vec::new()
        };
        accounts.push(Account {
            address,
            balance,
            nonce,
            code,
        });
    }
    GenesisModel {
        accounts,
        contracts,
        storage,
    }
}

/// Writes the genesis document of `model` (a geth genesis with `alloc`, compact JSON with
/// keys in order, as serde_json writes a whole document) one account at a time.
fn write_genesis(
    config: &SynthConfig,
    model: &GenesisModel,
    w: &mut impl std::io::Write,
) -> Result<()> {
    let mut order: Vec<usize> = (0..model.accounts.len()).collect();
    // Lowercase hex of equal length sorts as the bytes do.
    order.sort_unstable_by_key(|&i| model.accounts[i].address);
    w.write_all(b"{\"alloc\":{")?;
    for (pos, &i) in order.iter().enumerate() {
        let a = &model.accounts[i];
        let mut entry = Map::new();
        entry.insert("balance".into(), json!(format!("0x{:x}", a.balance)));
        entry.insert("nonce".into(), json!(format!("0x{:x}", a.nonce)));
        if let Ok(c) = model.contracts.binary_search(&i) {
            entry.insert("code".into(), json!(format!("0x{}", hex::encode(&a.code))));
            if let Some(slots) = model.storage.get(c) {
                entry.insert("storage".into(), Json::Object(slots.clone()));
            }
        }
        if pos > 0 {
            w.write_all(b",")?;
        }
        serde_json::to_writer(&mut *w, &format!("0x{}", hex::encode(a.address)))?;
        w.write_all(b":")?;
        serde_json::to_writer(&mut *w, &Json::Object(entry))?;
    }
    w.write_all(b"},\"config\":")?;
    let config_json = json!({"chainId": 1_337_000, "fverkleSynthetic": {
        "accounts": config.accounts.max(2), "seed": config.seed,
        "layout": match config.layout { Layout::Legacy => "legacy", Layout::Eip6800 => "eip6800" },
    }});
    serde_json::to_writer(&mut *w, &config_json)?;
    w.write_all(b"}")?;
    Ok(())
}

/// Draws the genesis of `config` and writes its document to `genesis_out`: the generator's
/// random state after the draw, and the model.
fn genesis_file(config: &SynthConfig, genesis_out: &Path) -> Result<(Rng, GenesisModel)> {
    let mut rng = Rng(config.seed ^ 0x5eed_f00d);
    let model = draw_genesis(config, &mut rng);
    let name = genesis_out.display().to_string();
    let file =
        std::fs::File::create(genesis_out).with_context(|| format!("{name}: cannot create"))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    write_genesis(config, &model, &mut w).with_context(|| format!("{name}: cannot write"))?;
    std::io::Write::flush(&mut w).with_context(|| format!("{name}: cannot write"))?;
    Ok((rng, model))
}

impl Synth {
    /// The genesis document (a geth genesis with `alloc`) and the generator positioned after
    /// it, its tree in memory. The generator's tree is built from the document's own leaves,
    /// as a replay builds it. (Tests; [`write_chain`] uses [`Synth::genesis_to_file`].)
    #[cfg(test)]
    pub fn genesis(config: SynthConfig) -> Result<(Synth, String)> {
        let mut rng = Rng(config.seed ^ 0x5eed_f00d);
        let model = draw_genesis(&config, &mut rng);
        let mut bytes = Vec::new();
        write_genesis(&config, &model, &mut bytes)?;
        let text = String::from_utf8(bytes).context("the synthetic genesis is not UTF-8")?;
        let mut state: Box<dyn State> = Box::new(MemoryState::new());
        let mut apply = |leaves: Vec<(TreeKey, Value)>| -> Result<()> {
            let writes: Vec<_> = leaves.into_iter().map(|(k, v)| (k, Some(v))).collect();
            state.apply(&writes)
        };
        genesis::stream_genesis_leaves(
            text.as_bytes(),
            config.layout,
            "synthetic genesis",
            genesis::STREAM_BATCH_ACCOUNTS,
            &mut apply,
        )?;
        state.persist(0, &[])?;
        Ok((Synth::with(config, rng, model, Prover::Verkle(state)), text))
    }

    /// `Synth::genesis` (tests) writing the document to `genesis_out` as it is drawn (never held
    /// whole) and importing it into `state` as a replay does (in steps, written out when
    /// `state` is a datadir, whose node cache then bounds the tree's memory). What stays in
    /// memory is the model: ≈ 60 bytes per account, plus the contracts' code.
    pub fn genesis_to_file(
        config: SynthConfig,
        genesis_out: &Path,
        mut state: Box<dyn State>,
    ) -> Result<Synth> {
        let (rng, model) = genesis_file(&config, genesis_out)?;
        let spec = GenesisSpec {
            path: genesis_out.to_path_buf(),
            layout: config.layout,
            chain: Chain::None,
            mode: Mode::Single,
        };
        init_genesis(state.as_mut(), &spec, "the generator's state")?;
        Ok(Synth::with(config, rng, model, Prover::Verkle(state)))
    }

    fn with(config: SynthConfig, rng: Rng, model: GenesisModel, prover: Prover) -> Synth {
        Synth {
            config,
            rng,
            accounts: model.accounts,
            contracts: model.contracts,
            prover,
            number: 0,
            record: false,
        }
    }

    /// The current state root of the generator's tree.
    pub fn root(&mut self) -> Result<[u8; 32]> {
        match &mut self.prover {
            Prover::Verkle(tree) => Ok(tree.root()),
            Prover::Binary(state) => state.root(),
        }
    }

    /// The Verkle state blocks are proven against; an error for a binary generator.
    fn verkle(&mut self) -> Result<&mut Box<dyn State>> {
        match &mut self.prover {
            Prover::Verkle(tree) => Ok(tree),
            Prover::Binary(_) => {
                anyhow::bail!("the generator holds a binary tree; this needs the Verkle tree")
            }
        }
    }

    /// The header suffixes a balance/nonce change rewrites.
    fn changed_header_suffixes(&self) -> &'static [u8] {
        match self.config.layout {
            Layout::Eip6800 => &[verkle::keys::BASIC_DATA_LEAF_KEY],
            Layout::Legacy => &[
                verkle::keys::legacy::BALANCE_LEAF_KEY,
                verkle::keys::legacy::NONCE_LEAF_KEY,
            ],
        }
    }

    fn code_hash_suffix(&self) -> u8 {
        match self.config.layout {
            Layout::Eip6800 => verkle::keys::CODE_HASH_LEAF_KEY,
            Layout::Legacy => verkle::keys::legacy::CODE_KECCAK_LEAF_KEY,
        }
    }

    /// Writes account `i`'s header leaves that a balance/nonce change rewrites.
    fn write_header(&self, i: usize, out: &mut BTreeMap<KeyName, Option<Value>>) -> Result<()> {
        let a = &self.accounts[i];
        let state = AccountState {
            version: 0,
            balance: U256::from_u64(a.balance),
            nonce: a.nonce,
            code: &a.code,
            storage: &[],
        };
        let leaves = self.config.layout.header_leaves(&state)?;
        let changed = self.changed_header_suffixes();
        for (suffix, v) in leaves {
            if changed.contains(&suffix) {
                out.insert(KeyName::header(i, suffix), Some(v));
            }
        }
        out.entry(KeyName::header(i, self.code_hash_suffix()))
            .or_insert(None);
        Ok(())
    }

    fn new_account(
        &mut self,
        code: Vec<u8>,
        out: &mut BTreeMap<KeyName, Option<Value>>,
        tx: &mut Option<TxLog>,
    ) -> Result<()> {
        let i = self.accounts.len();
        let address = address_of(self.config.seed, i as u64);
        let balance = self.rng.range(1, 1_000_000_000_000_000);
        let state = AccountState {
            version: 0,
            balance: U256::from_u64(balance),
            nonce: 0,
            code: &code,
            storage: &[],
        };
        // `account_leaves`: header leaves, then code chunks (no storage).
        for (sub, v) in self.config.layout.header_leaves(&state)? {
            out.insert(KeyName::header(i, sub), Some(v));
        }
        for (c, chunk) in chunkify_code(&code).into_iter().enumerate() {
            out.insert(
                KeyName::at(i, &TreePosition::code_chunk(c as u64)),
                Some(chunk),
            );
        }
        self.accounts.push(Account {
            address,
            balance,
            nonce: 0,
            code,
        });
        if let Some(tx) = tx {
            tx.created(address, self.accounts.len() - 1);
        }
        Ok(())
    }

    /// From now on, blocks carry their transactions' account-level diffs
    /// ([`SynthBlock::traces`]); the chain itself is the same.
    pub fn record_diffs(&mut self) {
        self.record = true;
    }

    fn snap(&self, i: usize) -> AccountSnap {
        let a = &self.accounts[i];
        AccountSnap {
            balance: a.balance,
            nonce: a.nonce,
            code: a.code.clone(),
        }
    }

    /// Records account `i` in `tx` as it is before the transaction changes it.
    fn touch(&self, tx: &mut Option<TxLog>, i: usize) {
        if let Some(tx) = tx {
            tx.touch(self.accounts[i].address, i, || self.snap(i));
        }
    }

    /// Records in `tx` the write of `value` to `slot` of contract `c` (key `key`).
    fn record_slot(
        &mut self,
        tx: &mut Option<TxLog>,
        c: usize,
        slot: &U256,
        key: &KeyName,
        value: Value,
        block: &BTreeMap<KeyName, Option<Value>>,
    ) -> Result<()> {
        let Some(log) = tx.as_mut() else {
            return Ok(());
        };
        let before = match block.get(key) {
            Some(Some(v)) => *v,
            _ => {
                let k = key.key(&self.accounts[c].address);
                self.verkle()?.get(&k)?.unwrap_or([0u8; 32])
            }
        };
        let a = &self.accounts[c];
        log.touch(a.address, c, || AccountSnap {
            balance: a.balance,
            nonce: a.nonce,
            code: a.code.clone(),
        });
        log.slot(a.address, slot.to_be_bytes(), before, value);
        Ok(())
    }

    /// A sender pays a fee (and `value`), bumping its nonce.
    fn debit(&mut self, i: usize, value: u64) {
        let a = &mut self.accounts[i];
        a.nonce += 1;
        a.balance = a.balance.saturating_sub(value + 21_000);
    }

    /// Draws the next block at the account level: its keys by name (`None`: read only) with
    /// their EIP-6800 leaf values, and its transactions' diffs when recorded. The draws are
    /// the same whatever tree the block is then proven with.
    fn draw_block(&mut self) -> Result<(DrawnKeys, Vec<Json>)> {
        self.number += 1;
        let genesis_accounts = self.config.accounts.max(2);
        // The block's keys by name, hashed together once the block is drawn.
        let mut keys: BTreeMap<KeyName, Option<Value>> = BTreeMap::new();
        let written =
            |k: &BTreeMap<KeyName, Option<Value>>| k.values().filter(|v| v.is_some()).count();
        let mut traces = Vec::new();
        while written(&keys) < self.config.updates.max(1) {
            let mut tx = self.record.then(TxLog::default);
            let op = self.rng.unit();
            let from = self.rng.zipf(genesis_accounts) as usize;
            self.touch(&mut tx, from);
            if op < 0.5 {
                // A transfer between two existing accounts.
                let to = self.rng.zipf(self.accounts.len() as u64) as usize;
                self.touch(&mut tx, to);
                let value = self.rng.range(1, 1_000_000_000);
                self.debit(from, value);
                self.accounts[to].balance = self.accounts[to].balance.saturating_add(value);
                self.write_header(from, &mut keys)?;
                self.write_header(to, &mut keys)?;
            } else if op < 0.8 {
                // A call to a hot contract: code read, storage read and written.
                self.debit(from, 0);
                self.write_header(from, &mut keys)?;
                let c = self.contracts[self.rng.zipf(self.contracts.len() as u64) as usize];
                let chunks = (self.accounts[c].code.len() as u64).div_ceil(31).max(1);
                for _ in 0..3 {
                    let idx = self.rng.range(0, chunks);
                    keys.entry(KeyName::at(c, &TreePosition::code_chunk(idx)))
                        .or_insert(None);
                }
                for w in 0..self.rng.range(1, 4) {
                    let slot = if self.rng.unit() < 0.4 {
                        U256::from_u64(self.rng.zipf(64))
                    } else {
                        // A mapping entry: a hashed slot, popular entries hotter.
                        let mut pre = [0u8; 16];
                        pre[..8].copy_from_slice(&(c as u64).to_le_bytes());
                        pre[8..].copy_from_slice(&self.rng.zipf(100_000).to_le_bytes());
                        U256::from_be_bytes(&keccak256(&pre))
                    };
                    let key = KeyName::at(c, &TreePosition::storage_slot(&slot));
                    if w == 0 && self.rng.unit() < 0.3 {
                        keys.entry(key).or_insert(None);
                    } else {
                        let value = self.rng.bytes32();
                        self.record_slot(&mut tx, c, &slot, &key, value, &keys)?;
                        keys.insert(key, Some(value));
                    }
                }
            } else if op < 0.99 {
                // A transfer to a new account.
                self.debit(from, 1_000_000);
                self.write_header(from, &mut keys)?;
                self.new_account(Vec::new(), &mut keys, &mut tx)?;
            } else {
                // A contract deployment: header leaves and every code chunk.
                self.debit(from, 0);
                self.write_header(from, &mut keys)?;
                let len = self.rng.range(100, 3000) as usize;
                let code = self.rng.bytes(len);
                self.new_account(code, &mut keys, &mut tx)?;
            }
            if let Some(log) = tx {
                let mut pre = Vec::with_capacity(24);
                pre.extend_from_slice(&self.config.seed.to_le_bytes());
                pre.extend_from_slice(&self.number.to_le_bytes());
                pre.extend_from_slice(&(traces.len() as u64).to_le_bytes());
                traces.push(log.to_json(&keccak256(&pre), |i| self.snap(i)));
            }
        }
        Ok((keys, traces))
    }

    /// Generates the next block.
    pub fn next_block(&mut self) -> Result<SynthBlock> {
        let (keys, traces) = self.draw_block()?;
        let entries: Vec<(TreeKey, Option<Value>)> =
            keys::resolve(keys, |i| self.accounts[i].address);
        let number = self.number;
        let bind_absences = self.config.bind_absences;
        let tree = self.verkle()?;
        let parent_state_root = tree.root();
        let owned = if bind_absences {
            witness::prove_bound(&parent_state_root, &entries, |k| tree.prove(k))
                .map_err(|e| anyhow::anyhow!("{e:#}"))
                .with_context(|| format!("proving synthetic block {number} with bound absences"))?
                .0
        } else {
            tree.prove(&entries)
                .with_context(|| format!("proving synthetic block {number}"))?
        };
        let witness = owned
            .to_witness()
            .with_context(|| format!("encoding synthetic block {number}"))?;
        let writes: Vec<(TreeKey, Option<Value>)> =
            entries.into_iter().filter(|(_, v)| v.is_some()).collect();
        let count = writes.len();
        tree.apply(&writes)?;
        let state_root = tree.root();
        // Written out (a datadir then trims its node cache); in memory this only commits.
        tree.persist(number, &[])
            .with_context(|| format!("writing synthetic block {number}"))?;
        Ok(SynthBlock {
            number: self.number,
            parent_state_root,
            state_root,
            witness,
            writes: count,
            traces,
        })
    }

    /// Keys a proof demo can ask for: some present (hot accounts' headers, a contract's
    /// code), some absent.
    pub fn sample_keys(&mut self, n: usize) -> Vec<TreeKey> {
        // Drawn in order (an account, or a random key for every fourth), the accounts'
        // header keys hashed together.
        let draws: Vec<Result<usize, TreeKey>> = (0..n)
            .map(|j| {
                if j % 4 == 3 {
                    Err(self.rng.bytes32())
                } else {
                    Ok(self.rng.zipf(self.accounts.len() as u64) as usize)
                }
            })
            .collect();
        let names: std::collections::BTreeSet<KeyName> = draws
            .iter()
            .filter_map(|d| d.ok().map(|i| KeyName::header(i, 0)))
            .collect();
        let hashed = keys::keys_of(names.iter(), |i| self.accounts[i].address);
        let header: BTreeMap<usize, TreeKey> =
            names.iter().map(|n| n.account()).zip(hashed).collect();
        draws
            .into_iter()
            .map(|d| match d {
                Ok(i) => header.get(&i).copied().unwrap_or_default(),
                Err(k) => k,
            })
            .collect()
    }

    /// Blocks left to generate.
    pub fn remaining(&self) -> u64 {
        self.config.blocks.saturating_sub(self.number)
    }
}

/// What [`write_chain`] writes to its output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Blocks with their execution witnesses (JSON Lines), as
    /// [`crate::export::ExportReader`] reads them.
    Export,
    /// `{"number", "traces"}` per block: `debug_traceBlockByNumber` with the
    /// `prestateTracer` in diff mode (JSON Lines), as [`crate::import::diffs`] reads them.
    PrestateDiff,
}

/// What [`write_chain`] wrote.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The root after the last block.
    pub root: [u8; 32],
    /// Keys written, all blocks.
    pub written: u64,
    /// Seconds spent on the genesis.
    pub genesis_s: f64,
    /// Keys to prove against the final state (present and absent ones).
    pub sample_keys: Vec<TreeKey>,
}

/// Generates the chain of `config`: its genesis into `genesis_out`, then its blocks into
/// `out` in `format`, one per line, the generator's tree held by `state` (an empty state:
/// in memory, or a datadir whose node cache bounds the tree's memory). `on_block` sees each
/// block after it is written.
pub fn write_chain(
    config: SynthConfig,
    out: &Path,
    genesis_out: &Path,
    state: Box<dyn State>,
    format: Format,
    on_block: &mut dyn FnMut(&SynthBlock),
) -> Result<Generated> {
    use std::io::Write;
    let t = std::time::Instant::now();
    let mut synth = Synth::genesis_to_file(config, genesis_out, state)?;
    if format == Format::PrestateDiff {
        synth.record_diffs();
    }
    let genesis_s = t.elapsed().as_secs_f64();
    tracing::info!(
        "{}: genesis of {} accounts, root {} ({genesis_s:.1} s)",
        genesis_out.display(),
        config.accounts,
        to_hex(&synth.root()?)
    );
    let name = out.display().to_string();
    let file = std::fs::File::create(out).with_context(|| format!("{name}: cannot create"))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let mut written = 0u64;
    while synth.remaining() > 0 {
        let b = synth.next_block()?;
        written += b.writes as u64;
        let line = match format {
            Format::Export => block_json(b.number, &b.parent_state_root, &b.state_root, &b.witness),
            Format::PrestateDiff => json!({"number": b.number, "traces": b.traces}),
        };
        serde_json::to_writer(&mut w, &line).with_context(|| format!("{name}: cannot write"))?;
        w.write_all(b"\n")
            .with_context(|| format!("{name}: cannot write"))?;
        on_block(&b);
    }
    w.flush().with_context(|| format!("{name}: cannot write"))?;
    Ok(Generated {
        root: synth.root()?,
        written,
        genesis_s,
        sample_keys: synth.sample_keys(64),
    })
}

#[cfg(test)]
mod tests;
