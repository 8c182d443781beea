//! WebAssembly bindings of the stateless witness verifier (`fverkle-witness` on npm's
//! layout, built by `scripts/wasm.sh`).
//!
//! - `verify(witness, preStateRoot)`: a go-verkle JSON document (any wrapper
//!   `fverkle verify` accepts) or SSZ bytes, checked against the parent state root. Every
//!   problem with the witness is a `{ valid: false, error }` result, never an exception;
//!   only a malformed `preStateRoot` throws a `TypeError`.
//! - `verifyBinary(witness, preStateRoot, tree, hash?)`: a binary-tree witness
//!   (`spec/BINARY.md`; `tree` is `"eip7864"` or `"eip8297"`, `hash` `"sha256"` or `"blake3"`,
//!   by default SHA-256 for EIP-7864 and BLAKE3 for EIP-8297) checked against the pre-state
//!   root: every key's pre-value or absence, its write and the post-state root, or the rule the
//!   witness breaks. Only a malformed `preStateRoot`, `tree` or `hash` throws.
//! - `treeKey(address, treeIndex, subIndex)`: EIP-6800 `get_tree_key` without the prover's
//!   tables.
//! - `version()`.
//!
//! With the `measure` feature (tests and benchmarks, never in the published package, built
//! by `FVERKLE_WASM_FEATURES=measure scripts/wasm.sh`): `usePortableField(force)`, arkworks'
//! field multiplication instead of the 29-bit-limb one (same results), and
//! `verifyPreState(witness, preStateRoot)`, the verdict alone without the post-state root
//! (the work `verkle-cryptography-wasm`'s `verifyExecutionWitnessPreState` does).
//!
//! The verifier runs single-threaded (`witness` without its `std`, `parallel` and `asm`
//! features); its field multiplications use 29-bit limbs with native 32×32→64-bit
//! products (`banderwagon`'s WebAssembly backend). The logic lives in plain Rust functions
//! ([`verify_bytes`], [`verify_json`], [`tree_key`]) that native tests call too; the
//! `#[wasm_bindgen]` wrappers only convert JavaScript values. ([`verify_binary`] too.)
#![forbid(unsafe_code)]

use wasm_bindgen::prelude::*;
use witness::ExecutionWitness;

/// What `verify` returns (a plain object in JavaScript).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The witness decoded and its proof holds against the pre-state root.
    pub valid: bool,
    /// Why not (or, when valid, why the post-state root is missing).
    pub error: Option<String>,
    /// Stems in the state diff (0 when the witness did not decode).
    pub stems: usize,
    /// Suffix diffs (keys) in the state diff.
    pub keys: usize,
    /// Keys proven absent through an unbound absence.
    pub unbound_absences: usize,
    /// The post-state root from the witness's new values, `0x`-hex.
    pub post_state_root: Option<String>,
}

fn to_hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 + 2 * bytes.len());
    s.push_str("0x");
    s.push_str(&hex::encode(bytes));
    s
}

/// Parses a 32-byte `0x`-hex root (the prefix is optional).
pub fn parse_root(text: &str) -> Result<[u8; 32], String> {
    let digits = text.strip_prefix("0x").unwrap_or(text);
    let mut out = [0u8; 32];
    if digits.len() != 64 {
        return Err(format!(
            "preStateRoot must be 32 bytes of hex (64 digits), got {} digits",
            digits.len()
        ));
    }
    hex::decode_to_slice(digits, &mut out).map_err(|e| format!("preStateRoot is not hex: {e}"))?;
    Ok(out)
}

fn check(pre_state_root: &[u8; 32], w: &ExecutionWitness) -> Outcome {
    let diff = w.state_diff();
    let mut out = Outcome {
        stems: diff.len(),
        keys: diff.suffix_diff_count(),
        ..Outcome::default()
    };
    match witness::verify(pre_state_root, w) {
        Err(e) => out.error = Some(e.to_string()),
        Ok(proven) => {
            out.valid = true;
            out.unbound_absences = proven.unbound_absences();
            match proven.post_state_root() {
                Ok(root) => out.post_state_root = Some(to_hex(&root)),
                Err(e) => out.error = Some(format!("post-state root not computed: {e}")),
            }
        }
    }
    out
}

fn rejected(error: String) -> Outcome {
    Outcome {
        error: Some(error),
        ..Outcome::default()
    }
}

/// Verifies an SSZ-encoded witness.
pub fn verify_bytes(ssz: &[u8], pre_state_root: &[u8; 32]) -> Outcome {
    match ExecutionWitness::from_ssz_slice(ssz) {
        Ok(w) => check(pre_state_root, &w),
        Err(e) => rejected(format!("not an SSZ execution witness: {e}")),
    }
}

/// Verifies the one witness of a go-verkle JSON document.
pub fn verify_json(text: &str, pre_state_root: &[u8; 32]) -> Outcome {
    match ExecutionWitness::from_json_str(text) {
        Ok(w) => check(pre_state_root, &w),
        Err(e) => rejected(format!("no usable execution witness: {e}")),
    }
}

/// What a binary witness's block does to one key (`write` of [`BinaryClaim`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BinaryWrite {
    /// Read only.
    Unchanged,
    /// Set to this value, `0x`-hex.
    Set(String),
    /// Removed (EIP-8297).
    Delete,
}

/// One key of a verified binary witness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinaryClaim {
    /// The key, `0x`-hex (32 bytes for EIP-7864; 34 or 66 for EIP-8297's zones).
    pub key: String,
    /// The value before the block, `0x`-hex; `None` when the key is proven absent.
    pub pre_value: Option<String>,
    /// What the block writes.
    pub write: BinaryWrite,
}

/// What `verifyBinary` returns (a plain object in JavaScript).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BinaryOutcome {
    /// The witness decoded and its multiproof gives the pre-state root.
    pub valid: bool,
    /// Why not.
    pub error: Option<String>,
    /// The rule of `spec/BINARY.md` the witness breaks (`bw.…`), when it is invalid.
    pub rule: Option<&'static str>,
    /// Every key with its pre-value and write, in the witness's order (empty when invalid).
    pub claims: Vec<BinaryClaim>,
    /// The post-state root from the witness alone, `0x`-hex.
    pub post_state_root: Option<String>,
}

/// The binary trees a witness can be checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryTree {
    /// EIP-7864: 31-byte stems, 256-leaf stem subtrees.
    Eip7864,
    /// EIP-8297: prefix-compressed branches, no stem nodes.
    Eip8297,
}

impl BinaryTree {
    /// Reads `"eip7864"` or `"eip8297"`.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "eip7864" => Ok(Self::Eip7864),
            "eip8297" => Ok(Self::Eip8297),
            other => Err(format!(
                "tree must be \"eip7864\" or \"eip8297\", got {other:?}"
            )),
        }
    }
}

fn binary_outcome<H: bintree::TreeHash>(
    tree: BinaryTree,
    bytes: &[u8],
    pre_state_root: &[u8; 32],
) -> BinaryOutcome {
    use bintree::witness::{Claim, WriteRef};
    let claim = |c: Claim<'_>| BinaryClaim {
        key: to_hex(c.key),
        pre_value: c.pre.map(|v| to_hex(v)),
        write: match c.write {
            WriteRef::Unchanged => BinaryWrite::Unchanged,
            WriteRef::Set(v) => BinaryWrite::Set(to_hex(v)),
            WriteRef::Delete => BinaryWrite::Delete,
        },
    };
    let verified = match tree {
        BinaryTree::Eip7864 => bintree::eip7864::witness::verify::<H>(bytes, pre_state_root)
            .map(|(w, v)| (w.claims().map(claim).collect(), v)),
        BinaryTree::Eip8297 => bintree::eip8297::witness::verify::<H>(bytes, pre_state_root)
            .map(|(w, v)| (w.claims().map(claim).collect(), v)),
    };
    match verified {
        Ok((claims, v)) => BinaryOutcome {
            valid: true,
            claims,
            post_state_root: Some(to_hex(&v.post_root)),
            ..BinaryOutcome::default()
        },
        Err(e) => BinaryOutcome {
            error: Some(e.to_string()),
            rule: Some(e.name()),
            ..BinaryOutcome::default()
        },
    }
}

/// Verifies a binary-tree witness (`spec/BINARY.md`) against the pre-state root of `tree`,
/// hashed with `hash` (`"sha256"` or `"blake3"`; `None`: SHA-256 for EIP-7864 as go-ethereum
/// hashes it, BLAKE3 for EIP-8297). `Err` only for a hash name that is neither.
pub fn verify_binary(
    bytes: &[u8],
    pre_state_root: &[u8; 32],
    tree: BinaryTree,
    hash: Option<&str>,
) -> Result<BinaryOutcome, String> {
    let hash = hash.unwrap_or(match tree {
        BinaryTree::Eip7864 => "sha256",
        BinaryTree::Eip8297 => "blake3",
    });
    match hash {
        "sha256" => Ok(binary_outcome::<bintree::Sha256>(
            tree,
            bytes,
            pre_state_root,
        )),
        "blake3" => Ok(binary_outcome::<bintree::Blake3>(
            tree,
            bytes,
            pre_state_root,
        )),
        other => Err(format!(
            "hash must be \"sha256\" or \"blake3\", got {other:?}"
        )),
    }
}

/// Parses a 20- or 32-byte `0x`-hex address into the 32-byte form (20 bytes are padded with
/// twelve zero bytes in front).
pub fn parse_address(text: &str) -> Result<[u8; 32], String> {
    let digits = text.strip_prefix("0x").unwrap_or(text);
    let mut out = [0u8; 32];
    match digits.len() {
        40 => hex::decode_to_slice(digits, &mut out[12..]),
        64 => hex::decode_to_slice(digits, &mut out),
        n => {
            return Err(format!(
                "address must be 20 or 32 bytes of hex (40 or 64 digits), got {n} digits"
            ))
        }
    }
    .map_err(|e| format!("address is not hex: {e}"))?;
    Ok(out)
}

/// Reads a non-negative integer below 2²⁵⁶ from its hexadecimal digits (no prefix) as
/// 32 little-endian bytes.
pub fn parse_tree_index_hex(digits: &str) -> Result<[u8; 32], String> {
    let digits = digits.trim_start_matches('0');
    if digits.len() > 64 {
        return Err("treeIndex must be below 2^256".into());
    }
    let mut be = [0u8; 32];
    let padded = format!("{digits:0>64}");
    hex::decode_to_slice(&padded, &mut be).map_err(|e| format!("treeIndex: {e}"))?;
    be.reverse();
    Ok(be)
}

/// EIP-6800 `get_tree_key` from the CRS's first five generators (no prover tables).
pub fn tree_key(address: &[u8; 32], tree_index_le: &[u8; 32], sub_index: u8) -> [u8; 32] {
    ipa::get_tree_key_from_crs(ipa::Crs::eip6800(), address, tree_index_le, sub_index)
}

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** The verdict on one witness. */
export interface VerifyResult {
  /** The witness decoded and its proof holds against `preStateRoot`. */
  valid: boolean;
  /** Why the witness is invalid (or, when valid, why `postStateRoot` is null). */
  error: string | null;
  /** Stems in the state diff (0 when the witness did not decode). */
  stems: number;
  /** Keys (suffix diffs) in the state diff. */
  keys: number;
  /** Keys proven absent in a way a hostile prover could fake (spec/WIRE.md §6.6). */
  unboundAbsences: number;
  /** The post-state root computed from the witness's new values, 0x-hex. */
  postStateRoot: string | null;
}

/** One key of a verified binary witness. */
export interface BinaryClaim {
  /** The key, 0x-hex (32 bytes for EIP-7864; 34 or 66 bytes for EIP-8297). */
  key: string;
  /** The value before the block, 0x-hex, or null when the key is proven absent. */
  preValue: string | null;
  /** null: read only; a 0x-hex value: set; "delete": removed (EIP-8297). */
  write: string | null;
}

/** The verdict on one binary-tree witness. */
export interface VerifyBinaryResult {
  /** The witness decoded and its multiproof gives `preStateRoot`. */
  valid: boolean;
  /** Why the witness is invalid. */
  error: string | null;
  /** The rule of spec/BINARY.md the witness breaks ("bw.…"), when invalid. */
  rule: string | null;
  /** Every key with its pre-value and write (empty when invalid). */
  keys: BinaryClaim[];
  /** The post-state root from the witness alone, 0x-hex. */
  postStateRoot: string | null;
}
"#;

fn outcome_to_js(o: &Outcome) -> JsValue {
    let obj = js_sys::Object::new();
    let set = |k: &str, v: JsValue| {
        // Setting a property on a fresh plain object cannot fail.
        let _ = js_sys::Reflect::set(&obj, &JsValue::from_str(k), &v);
    };
    let opt = |s: &Option<String>| s.as_deref().map_or(JsValue::NULL, JsValue::from_str);
    set("valid", JsValue::from_bool(o.valid));
    set("error", opt(&o.error));
    set("stems", JsValue::from_f64(o.stems as f64));
    set("keys", JsValue::from_f64(o.keys as f64));
    set(
        "unboundAbsences",
        JsValue::from_f64(o.unbound_absences as f64),
    );
    set("postStateRoot", opt(&o.post_state_root));
    obj.into()
}

fn type_error(msg: &str) -> JsValue {
    js_sys::TypeError::new(msg).into()
}

/// Verifies an execution witness against the parent block's state root.
///
/// `witness` is go-verkle JSON text (bare, or inside a block, engine payload, header or
/// beacon-API block) or SSZ bytes. Never throws for a bad witness; throws a `TypeError`
/// when `preStateRoot` is not 32 bytes of `0x`-hex.
#[wasm_bindgen(js_name = verify, unchecked_return_type = "VerifyResult")]
pub fn verify_js(
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] witness: JsValue,
    #[wasm_bindgen(js_name = preStateRoot)] pre_state_root: JsValue,
) -> Result<JsValue, JsValue> {
    let root = pre_state_root
        .as_string()
        .ok_or_else(|| type_error("preStateRoot must be a string"))?;
    let root = parse_root(&root).map_err(|e| type_error(&e))?;
    let outcome = if let Some(text) = witness.as_string() {
        verify_json(&text, &root)
    } else if let Some(bytes) = witness.dyn_ref::<js_sys::Uint8Array>() {
        verify_bytes(&bytes.to_vec(), &root)
    } else {
        rejected("witness must be a JSON string or a Uint8Array of SSZ bytes".into())
    };
    Ok(outcome_to_js(&outcome))
}

fn binary_outcome_to_js(o: &BinaryOutcome) -> JsValue {
    let set = |obj: &js_sys::Object, k: &str, v: JsValue| {
        // Setting a property on a fresh plain object cannot fail.
        let _ = js_sys::Reflect::set(obj, &JsValue::from_str(k), &v);
    };
    let opt = |s: Option<&str>| s.map_or(JsValue::NULL, JsValue::from_str);
    let keys = js_sys::Array::new();
    for c in &o.claims {
        let claim = js_sys::Object::new();
        set(&claim, "key", JsValue::from_str(&c.key));
        set(&claim, "preValue", opt(c.pre_value.as_deref()));
        let write = match &c.write {
            BinaryWrite::Unchanged => JsValue::NULL,
            BinaryWrite::Set(v) => JsValue::from_str(v),
            BinaryWrite::Delete => JsValue::from_str("delete"),
        };
        set(&claim, "write", write);
        keys.push(&claim);
    }
    let obj = js_sys::Object::new();
    set(&obj, "valid", JsValue::from_bool(o.valid));
    set(&obj, "error", opt(o.error.as_deref()));
    set(&obj, "rule", opt(o.rule));
    set(&obj, "keys", keys.into());
    set(&obj, "postStateRoot", opt(o.post_state_root.as_deref()));
    obj.into()
}

/// Verifies a binary-tree witness (SSZ-free bytes of `spec/BINARY.md`) against the parent
/// block's state root: `tree` is `"eip7864"` or `"eip8297"`, `hash` `"sha256"` or `"blake3"`
/// (default: SHA-256 for EIP-7864, BLAKE3 for EIP-8297). Never throws for a bad witness;
/// throws a `TypeError` when `witness` is not a `Uint8Array` or `preStateRoot`, `tree` or
/// `hash` is malformed.
#[wasm_bindgen(js_name = verifyBinary, unchecked_return_type = "VerifyBinaryResult")]
pub fn verify_binary_js(
    #[wasm_bindgen(unchecked_param_type = "Uint8Array")] witness: JsValue,
    #[wasm_bindgen(js_name = preStateRoot)] pre_state_root: JsValue,
    #[wasm_bindgen(unchecked_param_type = "\"eip7864\" | \"eip8297\"")] tree: JsValue,
    #[wasm_bindgen(unchecked_param_type = "\"sha256\" | \"blake3\" | undefined")] hash: JsValue,
) -> Result<JsValue, JsValue> {
    let root = pre_state_root
        .as_string()
        .ok_or_else(|| type_error("preStateRoot must be a string"))?;
    let root = parse_root(&root).map_err(|e| type_error(&e))?;
    let tree = tree
        .as_string()
        .ok_or_else(|| type_error("tree must be a string"))?;
    let tree = BinaryTree::parse(&tree).map_err(|e| type_error(&e))?;
    let hash = if hash.is_undefined() || hash.is_null() {
        None
    } else {
        Some(
            hash.as_string()
                .ok_or_else(|| type_error("hash must be a string"))?,
        )
    };
    let witness = witness
        .dyn_ref::<js_sys::Uint8Array>()
        .ok_or_else(|| type_error("witness must be a Uint8Array"))?
        .to_vec();
    let outcome =
        verify_binary(&witness, &root, tree, hash.as_deref()).map_err(|e| type_error(&e))?;
    Ok(binary_outcome_to_js(&outcome))
}

/// EIP-6800 `get_tree_key(address, treeIndex, subIndex)` as `0x`-hex: `address` is 20 or 32
/// bytes of `0x`-hex, `treeIndex` a bigint in `[0, 2^256)`, `subIndex` an integer in
/// `[0, 255]`. Throws a `TypeError` on anything else.
#[wasm_bindgen(js_name = treeKey)]
pub fn tree_key_js(
    address: &str,
    #[wasm_bindgen(js_name = treeIndex, unchecked_param_type = "bigint")] tree_index: JsValue,
    #[wasm_bindgen(js_name = subIndex)] sub_index: JsValue,
) -> Result<String, JsValue> {
    let address = parse_address(address).map_err(|e| type_error(&e))?;
    let index = tree_index
        .dyn_ref::<js_sys::BigInt>()
        .ok_or_else(|| type_error("treeIndex must be a bigint"))?;
    if index < &js_sys::BigInt::from(0u32) {
        return Err(type_error("treeIndex must not be negative"));
    }
    let digits = index
        .to_string(16)
        .map_err(|_| type_error("treeIndex: not convertible"))?;
    let index = parse_tree_index_hex(&String::from(digits)).map_err(|e| type_error(&e))?;
    let sub = sub_index
        .as_f64()
        .filter(|s| s.fract() == 0.0 && (0.0..=255.0).contains(s))
        .ok_or_else(|| type_error("subIndex must be an integer in [0, 255]"))?;
    Ok(to_hex(&tree_key(&address, &index, sub as u8)))
}

/// Forces arkworks' portable field multiplication (`true`) or returns to the default, the
/// 29-bit-limb one (`false`). Results are identical either way; for tests and A/B timings
/// (feature `measure`).
#[cfg(feature = "measure")]
#[wasm_bindgen(js_name = usePortableField)]
pub fn use_portable_field_js(force: bool) {
    banderwagon::use_portable_field(force);
}

/// Whether the witness (JSON text or SSZ bytes) verifies against `preStateRoot`, without
/// computing the post-state root; `false` for anything that does not decode (feature
/// `measure`).
#[cfg(feature = "measure")]
#[wasm_bindgen(js_name = verifyPreState)]
pub fn verify_pre_state_js(
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] witness: JsValue,
    #[wasm_bindgen(js_name = preStateRoot)] pre_state_root: JsValue,
) -> Result<bool, JsValue> {
    let root = pre_state_root
        .as_string()
        .ok_or_else(|| type_error("preStateRoot must be a string"))?;
    let root = parse_root(&root).map_err(|e| type_error(&e))?;
    let decoded = if let Some(text) = witness.as_string() {
        ExecutionWitness::from_json_str(&text).ok()
    } else {
        witness
            .dyn_ref::<js_sys::Uint8Array>()
            .and_then(|b| ExecutionWitness::from_ssz_slice(&b.to_vec()).ok())
    };
    Ok(decoded.is_some_and(|w| witness::verify(&root, &w).is_ok()))
}

/// The package version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_and_addresses() {
        assert!(parse_root(&format!("0x{}", "ab".repeat(32))).is_ok());
        assert!(parse_root("0x12").is_err());
        assert!(parse_root(&format!("0x{}", "zz".repeat(32))).is_err());
        assert_eq!(
            parse_address(&format!("0x{}", "11".repeat(20))).unwrap()[..12],
            [0; 12]
        );
        assert!(parse_address("0x1234").is_err());
        assert_eq!(parse_tree_index_hex("0").unwrap(), [0u8; 32]);
        let mut one_two = [0u8; 32];
        one_two[0] = 0x02;
        one_two[1] = 0x01;
        assert_eq!(parse_tree_index_hex("102").unwrap(), one_two);
        assert!(parse_tree_index_hex(&"f".repeat(64)).is_ok());
        assert!(parse_tree_index_hex(&format!("1{}", "0".repeat(64))).is_err());
    }

    #[test]
    fn garbage_is_a_verdict() {
        let root = [0u8; 32];
        for input in ["", "{", "[]", "null", "{\"executionWitness\": 5}"] {
            let o = verify_json(input, &root);
            assert!(!o.valid && o.error.is_some(), "{input}");
        }
        let o = verify_bytes(&[0xff; 7], &root);
        assert!(!o.valid && o.error.is_some());
    }

    #[test]
    fn binary_witnesses_verify_and_forgeries_name_their_rule() {
        let key = |b: u8| {
            let mut k = [b; 32];
            k[31] = 7;
            k
        };
        for tree in [BinaryTree::Eip7864, BinaryTree::Eip8297] {
            let (bytes, root) = match tree {
                BinaryTree::Eip7864 => {
                    let mut t = bintree::eip7864::Tree::<bintree::Sha256>::new();
                    t.insert(&key(1), &[5; 32]).unwrap();
                    t.insert(&key(2), &[6; 32]).unwrap();
                    let writes = [
                        (key(1), bintree::witness::Write::Set([9; 32])),
                        (key(3), bintree::witness::Write::Unchanged),
                    ];
                    (t.witness(&writes).unwrap(), t.root())
                }
                BinaryTree::Eip8297 => {
                    let k = |b: u8| [b; 34].to_vec();
                    let mut t = bintree::eip8297::Tree::<bintree::Blake3>::new();
                    t.insert(&k(1), &[5; 32]).unwrap();
                    t.insert(&k(2), &[6; 32]).unwrap();
                    let writes = [
                        (k(1), bintree::witness::Write::Delete),
                        (k(3), bintree::witness::Write::Unchanged),
                    ];
                    (t.witness(&writes).unwrap(), t.root())
                }
            };
            let o = verify_binary(&bytes, &root, tree, None).unwrap();
            assert!(o.valid, "{tree:?}: {:?}", o.error);
            assert_eq!(o.claims.len(), 2);
            assert_eq!(o.claims[0].pre_value, Some(to_hex(&[5; 32])));
            assert_eq!(o.claims[1].pre_value, None);
            assert!(o.post_state_root.is_some() && o.post_state_root != Some(to_hex(&root)));
            // Another root, the other tree, the other hash, a cut witness: rejected by rule.
            let other = verify_binary(&bytes, &[1; 32], tree, None).unwrap();
            assert_eq!((other.valid, other.rule), (false, Some("bw.root")));
            let flipped = match tree {
                BinaryTree::Eip7864 => BinaryTree::Eip8297,
                BinaryTree::Eip8297 => BinaryTree::Eip7864,
            };
            assert_eq!(
                verify_binary(&bytes, &root, flipped, None).unwrap().rule,
                Some("bw.tree")
            );
            let hash = match tree {
                BinaryTree::Eip7864 => "blake3",
                BinaryTree::Eip8297 => "sha256",
            };
            assert_eq!(
                verify_binary(&bytes, &root, tree, Some(hash)).unwrap().rule,
                Some("bw.hash")
            );
            let cut = verify_binary(&bytes[..bytes.len() - 1], &root, tree, None).unwrap();
            assert!(!cut.valid && cut.claims.is_empty() && cut.error.is_some());
        }
        assert!(BinaryTree::parse("verkle").is_err());
        assert!(verify_binary(&[], &[0; 32], BinaryTree::Eip7864, Some("md5")).is_err());
    }
}
