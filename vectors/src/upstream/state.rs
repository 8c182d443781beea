//! geth's tree vectors, besu's code chunks, genesis files, go-verkle's and Kaustinen's
//! execution witnesses.

use std::path::Path;

use genesis::{alloc_leaves, genesis_leaves, parse_leaf_csv};
use serde_json::Value;
use verkle::keys::{account_leaves, address32, chunkify_code, AccountKeys, AccountState, Layout};
use verkle::{Tree, U256};
use witness::{
    canonical::check_canonical, json::find_json_witnesses, owned::OwnedSuffixStateDiff,
    ExecutionWitness,
};

use crate::at::{hex0x, Loc};
use crate::error::{expect_eq, VectorError};

use super::input::{hex32, name, read_json, read_text};

/// Tree leaves `(key, value)`.
type Leaves = Vec<([u8; 32], [u8; 32])>;

/// Kaustinen6 (devnet6) genesis root: block 1's pre-state, `valid_block_1.json`'s root.
const DEVNET6_ROOT: &str = "0x1fbf85345a3cbba9a6d44f991b721e55620a22397c2a93ee8d5011136ac300ee";
/// Block 72's pre-state root (rust-verkle `VerifyProofTest.java`).
const BLOCK_72_PRE_ROOT: &str =
    "0x64e1a647f42e5c2e3c434531ccf529e1b3e93363a40db9fc8eec81f492123510";
/// devnet-7 genesis root and the roots after blocks 1, 2, 3 (`shared/vectors/README.md`).
const DEVNET7_ROOTS: [&str; 4] = [
    "0x514a0e5715b0b6c635ac140a5f25b8665af36cf31836344d27d9645fc57eab76",
    "0x5ac6bdb5f3dc47cfa7665c981f795a1116459dfeecde174433d14d710c433cc4",
    "0x2a63a94a9cb5dc948f98bd9a18cd4db0214adbc7cef2297a5f84362b14cb6513",
    "0x4818200283aff9e7fd8a788c28bd6e54a6545a6f3af9e8d75a784c43a4b75fbe",
];

fn unhex(loc: &Loc<'_>) -> Result<Vec<u8>, VectorError> {
    loc.hex()
}

fn address20(loc: &Loc<'_>) -> Result<[u8; 32], VectorError> {
    Ok(address32(&loc.hex_n::<20>()?))
}

fn tree_of(leaves: impl IntoIterator<Item = ([u8; 32], [u8; 32])>) -> Result<Tree, VectorError> {
    let mut t = Tree::new();
    t.apply(leaves.into_iter().map(|(k, v)| (k, Some(v))))
        .map_err(|e| VectorError::field("tree", e.to_string()))?;
    Ok(t)
}

/// geth/go-verkle tree vectors `tree/001…004` (legacy layout) → `expectedRootHash`.
pub fn geth_tree(path: &Path, number: u32) -> Result<usize, VectorError> {
    let doc = read_json(path)?;
    let root = Loc::root(&doc, name(path));
    let d = root.get("testData")?;
    let want = d.get("expectedRootHash")?;
    let account = |addr_field: &str, code: &[u8]| -> Result<Leaves, VectorError> {
        let state = AccountState {
            version: 0,
            balance: U256::from_u64(d.get("balance")?.u64()?),
            nonce: d.get("nonce")?.u64()?,
            code,
            storage: &[],
        };
        account_leaves(Layout::Legacy, &address20(&d.get(addr_field)?)?, &state)
            .map_err(|e| VectorError::field(&d.at, e.to_string()))
    };
    let leaves: Vec<([u8; 32], [u8; 32])> = match number {
        1 => account("eoaAddress", &[])?,
        2 => account("scAddress", &unhex(&d.get("hexCode")?)?)?,
        3 => {
            let mut out = Vec::new();
            for m in d.get("mutations")?.items()? {
                let key = m.get("key")?.hex_n::<32>()?;
                // go-verkle accepts short values, right-padded with zeros.
                let short = unhex(&m.get("value")?)?;
                if short.len() > 32 {
                    return Err(VectorError::field(&m.at, "value longer than 32 bytes"));
                }
                let mut value = [0u8; 32];
                value[..short.len()].copy_from_slice(&short);
                out.push((key, value));
            }
            out
        }
        4 => {
            let keys = AccountKeys::new(&address20(&d.get("scAddress")?)?);
            // geth UpdateStorage(addr, slot, "elephant"): the value right-aligned.
            let mut value = [0u8; 32];
            value[24..].copy_from_slice(b"elephant");
            d.get("storageSlots")?
                .items()?
                .iter()
                .map(|s| Ok((keys.storage_slot_key(&U256::from_u64(s.u64()?)), value)))
                .collect::<Result<_, VectorError>>()?
        }
        _ => {
            return Err(VectorError::Unrecognised {
                path: path.to_path_buf(),
            })
        }
    };
    // Mutations apply in order (a later write to a key wins): insert one by one.
    let mut tree = Tree::new();
    for (k, v) in &leaves {
        tree.insert(k, *v)
            .map_err(|e| VectorError::field(&d.at, e.to_string()))?;
    }
    expect_eq(
        &want.at,
        hex0x(&tree.root_bytes()),
        want.str()?.to_lowercase(),
    )?;
    Ok(leaves.len())
}

/// besu's code vectors: `chunkifyCode.json`, `chukifyCodePush32on31stByte.json` (bytecode →
/// chunks) and `contractCode.json` (address + bytecode → chunk keys and values).
pub fn besu_code(path: &Path, with_keys: bool) -> Result<usize, VectorError> {
    let doc = read_json(path)?;
    let cases = Loc::root(&doc, name(path)).items()?;
    if cases.is_empty() {
        return Err(VectorError::field(name(path), "no cases"));
    }
    let mut checks = 0;
    for case in &cases {
        let code = unhex(&case.get("bytecode")?)?;
        let chunks = chunkify_code(&code);
        let want = case.get("chunks")?.items()?;
        expect_eq(
            &format!("{}: chunk count", case.at),
            chunks.len(),
            want.len(),
        )?;
        let keys = if with_keys {
            AccountKeys::new(&address20(&case.get("address")?)?)
                .code_chunk_keys(chunks.len() as u64)
        } else {
            Vec::new()
        };
        for (i, (got, w)) in chunks.iter().zip(&want).enumerate() {
            let (value, key) = if with_keys {
                (w.get("value")?, Some(w.get("key")?))
            } else {
                (Loc::root(w.value, w.at.clone()), None)
            };
            expect_eq(&value.at, hex0x(got), hex0x(&value.hex()?))?;
            if let (Some(k), Some(ours)) = (key, keys.get(i)) {
                expect_eq(&k.at, hex0x(ours), hex0x(&k.hex()?))?;
            }
            checks += 1;
        }
    }
    Ok(checks)
}

/// Genesis files: the devnet6 geth genesis (legacy layout) and `tree_key,value` CSVs; a
/// devnet-7 block CSV is applied on top of the genesis CSV and the earlier blocks beside it.
pub fn genesis(path: &Path, file_name: &str) -> Result<usize, VectorError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let csv = |p: &Path| -> Result<Leaves, VectorError> {
        parse_leaf_csv(&read_text(p)?, &name(p))
            .map_err(|e| VectorError::field(name(p), e.to_string()))
    };
    let (leaves, want) = match file_name {
        "devnet6_genesis.json" => {
            let leaves = genesis_leaves(&read_text(path)?, Layout::Legacy, &name(path))
                .map_err(|e| VectorError::field(name(path), e.to_string()))?;
            (leaves, DEVNET6_ROOT)
        }
        "gen-devnet-6.csv" => (csv(path)?, DEVNET6_ROOT),
        "gen-devnet-7.csv" => (csv(path)?, DEVNET7_ROOTS[0]),
        _ => {
            let block: usize = file_name
                .strip_prefix("devnet-7-block-")
                .and_then(|s| s.strip_suffix(".csv"))
                .and_then(|n| n.parse().ok())
                .filter(|n| (1..=3).contains(n))
                .ok_or_else(|| VectorError::Unrecognised {
                    path: path.to_path_buf(),
                })?;
            let mut tree = tree_of(csv(&dir.join("gen-devnet-7.csv"))?)?;
            let mut count = 0;
            for b in 1..=block {
                let leaves = csv(&dir.join(format!("devnet-7-block-{b}.csv")))?;
                count = leaves.len();
                tree.apply(leaves.into_iter().map(|(k, v)| (k, Some(v))))
                    .map_err(|e| VectorError::field(name(path), e.to_string()))?;
            }
            expect_eq(
                &name(path),
                hex0x(&tree.root_bytes()),
                DEVNET7_ROOTS[block].to_owned(),
            )?;
            return Ok(count);
        }
    };
    let count = leaves.len();
    expect_eq(
        &format!("{}: root", name(path)),
        hex0x(&tree_of(leaves)?.root_bytes()),
        want.to_owned(),
    )?;
    Ok(count)
}

fn witness_at(doc: &Value, file: &str) -> Result<ExecutionWitness, VectorError> {
    ExecutionWitness::from_json_value(doc).map_err(|e| VectorError::field(file, e.to_string()))
}

fn verify_at(
    root: &[u8; 32],
    w: &ExecutionWitness,
    at: &str,
) -> Result<witness::VerifiedWitness, VectorError> {
    witness::verify(root, w)
        .map_err(|e| VectorError::mismatch(at, format!("rejected: {e}"), "valid"))
}

/// go-verkle JSON witnesses (`witness/`): valid and invalid Kaustinen6 blocks against their
/// known roots, the beacon-API block (parsing, canonical form, SSZ round trip) and the EEST
/// fixture (its `pre` alloc gives its genesis root, the witness verifies against it and gives
/// its block's state root).
pub fn go_verkle_witness(path: &Path, file_name: &str) -> Result<usize, VectorError> {
    let doc = read_json(path)?;
    let at = name(path);
    let w = witness_at(&doc, &at)?;
    check_canonical(&w).map_err(|e| VectorError::field(&at, e.to_string()))?;
    let again = ExecutionWitness::from_ssz(w.as_ssz().clone())
        .map_err(|e| VectorError::field(&at, e.to_string()))?;
    let ssz_again = again
        .to_owned_witness()
        .to_ssz()
        .map_err(|e| VectorError::field(&at, e.to_string()))?;
    expect_eq(
        &format!("{at}: SSZ decode-encode"),
        hex0x(&ssz_again),
        hex0x(w.as_ssz()),
    )?;
    match file_name {
        "valid_block_1.json" => verify_at(&hex32(DEVNET6_ROOT)?, &w, &at).map(|_| 2),
        "valid_block_72.json" => verify_at(&hex32(BLOCK_72_PRE_ROOT)?, &w, &at).map(|_| 2),
        "invalid_block_72.json" => match witness::verify(&hex32(BLOCK_72_PRE_ROOT)?, &w) {
            Err(witness::VerifyError::ProofRejected) => Ok(2),
            other => Err(VectorError::mismatch(
                &at,
                format!("{:?}", other.map(|_| ())),
                "ProofRejected",
            )),
        },
        "beacon.block.15.test.json" => {
            let found =
                find_json_witnesses(&doc).map_err(|e| VectorError::field(&at, e.to_string()))?;
            let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
            expect_eq(
                &at,
                paths.join(","),
                "/data/message/body/execution_payload/execution_witness".to_owned(),
            )?;
            Ok(2)
        }
        "eest_verkleBlock.json" => {
            let root = Loc::root(&doc, at.clone());
            let pre = root
                .get("pre")?
                .value
                .as_object()
                .ok_or_else(|| VectorError::field(format!("{at}/pre"), "expected an object"))?;
            let leaves = alloc_leaves(pre, Layout::Eip6800, &at)
                .map_err(|e| VectorError::field(format!("{at}/pre"), e.to_string()))?;
            let genesis = root.get("genesisBlockHeader")?.get("stateRoot")?;
            let genesis_root = genesis.hex_n::<32>()?;
            expect_eq(
                &genesis.at,
                hex0x(&tree_of(leaves)?.root_bytes()),
                hex0x(&genesis_root),
            )?;
            let v = verify_at(&genesis_root, &w, &at)?;
            let blocks = root.get("blocks")?.items()?;
            let first = blocks
                .first()
                .ok_or_else(|| VectorError::field(format!("{at}/blocks"), "no blocks"))?;
            let post = first.get("blockHeader")?.get("stateRoot")?;
            let got = v
                .post_state_root()
                .map_err(|e| VectorError::field(&post.at, e.to_string()))?;
            expect_eq(&post.at, hex0x(&got), hex0x(&post.hex_n::<32>()?))?;
            Ok(4)
        }
        _ => Err(VectorError::Unrecognised {
            path: path.to_path_buf(),
        }),
    }
}

/// The Kaustinen6 chain: block N's parent root is block N-1's state root (block 1's the
/// devnet6 genesis root), every witness verifies against its parent root, and the post-state
/// root from the witness alone is the block's state root — for block 1 after the named fork
/// rule (geth created the EIP-2935 history account without listing its 4 leaves).
pub fn kaustinen_chain(path: &Path) -> Result<usize, VectorError> {
    let doc = read_json(path)?;
    let at = name(path);
    let blocks = Loc::root(&doc, at.clone()).get("blocks")?.items()?;
    let mut parent = hex32(DEVNET6_ROOT)?;
    for (i, b) in blocks.iter().enumerate() {
        let number = b.get("blockNumber")?.u64()?;
        expect_eq(&format!("{}/blockNumber", b.at), number, i as u64 + 1)?;
        let pre = b.get("parentStateRoot")?;
        expect_eq(&pre.at, hex0x(&pre.hex_n::<32>()?), hex0x(&parent))?;
        let state_root = b.get("stateRoot")?.hex_n::<32>()?;
        let wl = b.get("executionWitness")?;
        let w = witness_at(wl.value, &wl.at)?;
        let mut v = verify_at(&parent, &w, &wl.at)?;
        if number == 1 {
            v = verify_at(&parent, &with_history_account(&w, &wl.at)?, &wl.at)?;
        }
        let got = v
            .post_state_root()
            .map_err(|e| VectorError::field(&b.at, e.to_string()))?;
        expect_eq(
            &format!("{}: post-state root", b.at),
            hex0x(&got),
            hex0x(&state_root),
        )?;
        parent = state_root;
    }
    Ok(blocks.len())
}

/// Kaustinen6 fork rule at block 1: the 4 legacy header leaves of the EIP-2935 history
/// account `0xff…fe` (version 0, balance 0, nonce 0, code keccak = keccak("")), listed as
/// writes to its stem, which block 1's witness proves absent (it lists slot 64 there).
fn with_history_account(w: &ExecutionWitness, at: &str) -> Result<ExecutionWitness, VectorError> {
    let leaves = chain::forks::kaustinen6_history_account(Layout::Legacy)
        .map_err(|e| VectorError::field(at, e.to_string()))?;
    let mut owned = w.to_owned_witness();
    for (key, value) in leaves {
        let stem = owned
            .state_diff
            .iter_mut()
            .find(|s| s.stem[..] == key[..31])
            .ok_or_else(|| {
                VectorError::field(at, "block 1 does not list the history account's stem")
            })?;
        if stem.suffix_diffs.iter().any(|d| d.suffix == key[31]) {
            return Err(VectorError::field(
                at,
                format!("block 1 already lists {}", hex0x(&key)),
            ));
        }
        stem.suffix_diffs.push(OwnedSuffixStateDiff {
            suffix: key[31],
            current_value: None,
            new_value: Some(value),
        });
        stem.suffix_diffs.sort_by_key(|d| d.suffix);
    }
    owned
        .to_witness()
        .map_err(|e| VectorError::field(at, e.to_string()))
}
