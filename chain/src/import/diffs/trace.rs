//! Writing account-level diffs as geth's `prestateTracer` in diff mode writes them: what a
//! transaction changed, recorded as it runs, then laid out as `{"pre", "post"}` (`pre`: each
//! changed account as it was, with the slots that changed and were not zero; `post`: only
//! the fields that changed, slots set to zero left out; an account that changed nothing in
//! neither). The synthetic chain of `fverkle gen --format prestate-diff` uses it.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value as Json};

/// An account's fields at one point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountSnap {
    /// Balance in wei.
    pub balance: u64,
    /// Nonce.
    pub nonce: u64,
    /// Code.
    pub code: Vec<u8>,
}

/// One account's slots written by a transaction: slot → (value before, value after).
type SlotWrites = BTreeMap<[u8; 32], ([u8; 32], [u8; 32])>;

/// What one transaction changed, as it runs.
#[derive(Debug, Default)]
pub struct TxLog {
    /// Each account touched: the caller's id for it, and the account as it was before
    /// (`None`: created by the transaction).
    pre: BTreeMap<[u8; 20], (usize, Option<AccountSnap>)>,
    /// Slots written: slot → (value before, value after).
    storage: BTreeMap<[u8; 20], SlotWrites>,
}

fn hex0x(b: &[u8]) -> String {
    format!("0x{}", hex::encode(b))
}

fn account_json(a: &AccountSnap) -> Map<String, Json> {
    let mut m = Map::new();
    m.insert("balance".into(), json!(format!("0x{:x}", a.balance)));
    if a.nonce != 0 {
        m.insert("nonce".into(), json!(a.nonce));
    }
    if !a.code.is_empty() {
        m.insert("code".into(), json!(hex0x(&a.code)));
    }
    m
}

impl TxLog {
    /// Records `address` (the caller's account `id`) as `before()` unless the transaction
    /// already touched it.
    pub fn touch(&mut self, address: [u8; 20], id: usize, before: impl FnOnce() -> AccountSnap) {
        self.pre
            .entry(address)
            .or_insert_with(|| (id, Some(before())));
    }

    /// Records `address` (the caller's account `id`) as created by the transaction.
    pub fn created(&mut self, address: [u8; 20], id: usize) {
        self.pre.entry(address).or_insert((id, None));
    }

    /// Records a write of `slot`: `before` is its value before the write.
    pub fn slot(&mut self, address: [u8; 20], slot: [u8; 32], before: [u8; 32], after: [u8; 32]) {
        self.storage
            .entry(address)
            .or_default()
            .entry(slot)
            .and_modify(|e| e.1 = after)
            .or_insert((before, after));
    }

    /// The trace: `{"txHash", "result": {"pre", "post"}}`, with each account's state after
    /// the transaction from `after` (given the account's id).
    pub fn to_json(&self, tx_hash: &[u8; 32], after: impl Fn(usize) -> AccountSnap) -> Json {
        let mut pre = Map::new();
        let mut post = Map::new();
        for (address, (id, before)) in &self.pre {
            let old = before.clone().unwrap_or(AccountSnap {
                balance: 0,
                nonce: 0,
                code: Vec::new(),
            });
            let new = after(*id);
            let mut p = account_json(&old);
            let mut q = Map::new();
            if new.balance != old.balance {
                q.insert("balance".into(), json!(format!("0x{:x}", new.balance)));
            }
            if new.nonce != old.nonce {
                q.insert("nonce".into(), json!(new.nonce));
            }
            if new.code != old.code {
                q.insert("code".into(), json!(hex0x(&new.code)));
            }
            let mut ps = Map::new();
            let mut qs = Map::new();
            for (slot, (b, a)) in self.storage.get(address).into_iter().flatten() {
                if b == a {
                    continue;
                }
                if *b != [0u8; 32] {
                    ps.insert(hex0x(slot), json!(hex0x(b)));
                }
                if *a != [0u8; 32] {
                    qs.insert(hex0x(slot), json!(hex0x(a)));
                }
            }
            let slots_changed = !ps.is_empty() || !qs.is_empty();
            if q.is_empty() && !slots_changed {
                continue;
            }
            if !ps.is_empty() {
                p.insert("storage".into(), Json::Object(ps));
            }
            if !qs.is_empty() {
                q.insert("storage".into(), Json::Object(qs));
            }
            pre.insert(hex0x(address), Json::Object(p));
            post.insert(hex0x(address), Json::Object(q));
        }
        json!({"txHash": hex0x(tx_hash), "result": {"pre": pre, "post": post}})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unchanged_accounts_and_zero_slots_are_left_out_as_geth_does() {
        let mut log = TxLog::default();
        let a = [1u8; 20];
        let b = [2u8; 20];
        let c = [3u8; 20];
        let snap = |balance| AccountSnap {
            balance,
            nonce: 0,
            code: Vec::new(),
        };
        log.touch(a, 1, || snap(10));
        log.touch(a, 1, || snap(99)); // the first state counts
        log.touch(b, 2, || snap(5)); // unchanged: in neither map
        log.created(c, 3);
        log.touch(c, 3, || snap(7)); // created wins
        log.slot(a, [9u8; 32], [0u8; 32], [4u8; 32]);
        log.slot(a, [8u8; 32], [6u8; 32], [0u8; 32]);
        let j = log.to_json(&[0u8; 32], |id| match id {
            1 => AccountSnap {
                balance: 8,
                nonce: 1,
                code: Vec::new(),
            },
            2 => snap(5),
            _ => AccountSnap {
                balance: 0,
                nonce: 0,
                code: vec![0x60, 0x00],
            },
        });
        let pre = &j["result"]["pre"];
        let post = &j["result"]["post"];
        let ka = hex0x(&a);
        let kb = hex0x(&b);
        let kc = hex0x(&c);
        assert_eq!(pre[&ka]["balance"], "0xa");
        assert!(pre[&ka].get("nonce").is_none());
        assert_eq!(post[&ka]["balance"], "0x8");
        assert_eq!(post[&ka]["nonce"], 1);
        let s8 = hex0x(&[8u8; 32]);
        let s9 = hex0x(&[9u8; 32]);
        assert_eq!(pre[&ka]["storage"][&s8], hex0x(&[6u8; 32]));
        assert!(
            pre[&ka]["storage"].get(&s9).is_none(),
            "zero before: left out"
        );
        assert_eq!(post[&ka]["storage"][&s9], hex0x(&[4u8; 32]));
        assert!(
            post[&ka]["storage"].get(&s8).is_none(),
            "zero after: left out"
        );
        assert!(pre.get(&kb).is_none() && post.get(&kb).is_none());
        assert_eq!(pre[&kc], json!({"balance": "0x0"}));
        assert_eq!(post[&kc], json!({"code": "0x6000"}));
    }
}
