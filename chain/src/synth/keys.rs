//! The tree keys of a block being drawn, named by account and position and hashed all at
//! once when the block is complete: every account's address half in one batch
//! ([`AddressHasher::new_many`]), then every distinct stem in one
//! ([`AddressHasher::stems_of_many`]), instead of a Pedersen hash per key as it is drawn.
//!
//! Two names are equal exactly when their keys are (distinct accounts have distinct
//! addresses, and distinct `(address, tree index)` pairs distinct stems), so a map of names
//! holds the same entries, in another order, as the map of the keys would.

use std::collections::BTreeMap;

use ipa::{AddressHasher, Committer};
use verkle::keys::{address32, join_key, TreeKey, TreePosition};

/// A tree key by name: an account of the generator's model (its index) and a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct KeyName {
    account: usize,
    /// The tree index, little-endian (as it is hashed).
    tree_index: [u8; 32],
    sub_index: u8,
}

impl KeyName {
    /// Header leaf `sub_index` of `account`.
    pub fn header(account: usize, sub_index: u8) -> KeyName {
        KeyName {
            account,
            tree_index: [0u8; 32],
            sub_index,
        }
    }

    /// `position` of `account`.
    pub fn at(account: usize, position: &TreePosition) -> KeyName {
        KeyName {
            account,
            tree_index: position.tree_index.to_le_bytes(),
            sub_index: position.sub_index,
        }
    }

    /// The account.
    pub fn account(&self) -> usize {
        self.account
    }

    /// The tree index, 32 bytes big-endian.
    pub fn tree_index_be(&self) -> [u8; 32] {
        let mut be = self.tree_index;
        be.reverse();
        be
    }

    /// The sub-index.
    pub fn sub_index(&self) -> u8 {
        self.sub_index
    }

    /// The key, hashed alone (what [`resolve`] gives for it in a batch).
    pub fn key(&self, address: &[u8; 20]) -> TreeKey {
        let hasher = AddressHasher::new(Committer::eip6800(), &address32(address));
        join_key(&hasher.stem(&self.tree_index), self.sub_index)
    }
}

/// The keys of `names` (each account's address is `address(account)`), with their values,
/// in key order: the entries of the map of keys the names stand for.
pub fn resolve<V>(
    names: BTreeMap<KeyName, V>,
    address: impl Fn(usize) -> [u8; 20],
) -> Vec<(TreeKey, V)> {
    let keys = keys_of(names.keys(), address);
    let mut out: Vec<(TreeKey, V)> = keys.into_iter().zip(names.into_values()).collect();
    out.sort_unstable_by_key(|e| e.0);
    out
}

/// The key of each of `names`, in their order, which must be sorted (as a map's or a
/// set's keys are): each distinct account, and each distinct stem, is then one run.
pub fn keys_of<'n>(
    names: impl Iterator<Item = &'n KeyName> + Clone,
    address: impl Fn(usize) -> [u8; 20],
) -> Vec<TreeKey> {
    let committer = Committer::eip6800();
    let mut accounts: Vec<usize> = names.clone().map(|n| n.account).collect();
    accounts.dedup();
    let addresses: Vec<[u8; 32]> = accounts.iter().map(|&a| address32(&address(a))).collect();
    let hashers = AddressHasher::new_many(committer, &addresses);
    let mut requests: Vec<(&AddressHasher<'_>, [u8; 32])> = Vec::new();
    // Per name: its sub-index and the index of its stem request.
    let mut request_of: Vec<(u8, usize)> = Vec::new();
    let mut hasher_index = 0;
    let mut last: Option<(usize, [u8; 32])> = None;
    for name in names {
        if last != Some((name.account, name.tree_index)) {
            if last.is_some_and(|(a, _)| a != name.account) {
                hasher_index += 1;
            }
            if let Some(h) = hashers.get(hasher_index) {
                requests.push((h, name.tree_index));
            }
            last = Some((name.account, name.tree_index));
        }
        request_of.push((name.sub_index, requests.len().saturating_sub(1)));
    }
    let stems = AddressHasher::stems_of_many(committer, &requests);
    request_of
        .into_iter()
        .map(|(sub, r)| join_key(stems.get(r).unwrap_or(&[0u8; 31]), sub))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use verkle::keys::AccountKeys;
    use verkle::U256;

    fn address(i: usize) -> [u8; 20] {
        [i as u8 + 1; 20]
    }

    #[test]
    fn resolved_keys_are_the_keys_hashed_one_by_one_in_key_order() {
        let positions = [
            TreePosition::header(0),
            TreePosition::header(2),
            TreePosition::storage_slot(&U256::from_u64(5)),
            TreePosition::storage_slot(&U256::from_u64(64)),
            TreePosition::storage_slot(&U256::from_u64(1 << 40)),
            TreePosition::code_chunk(3),
            TreePosition::code_chunk(200),
            TreePosition::code_chunk(201),
            TreePosition::code_chunk(1000),
        ];
        let mut names = BTreeMap::new();
        let mut want = BTreeMap::new();
        for account in [4usize, 0, 9, 1] {
            let keys = AccountKeys::new(&address32(&address(account)));
            for (j, p) in positions.iter().enumerate().skip(account % 3) {
                let v = (account * 100 + j) as u64;
                names.insert(KeyName::at(account, p), v);
                want.insert(keys.key(p), v);
                assert_eq!(KeyName::at(account, p).key(&address(account)), keys.key(p));
            }
        }
        assert_eq!(
            names.get(&KeyName::header(0, 2)),
            names.get(&KeyName::at(0, &TreePosition::header(2)))
        );
        let got = resolve(names, address);
        assert_eq!(got, want.into_iter().collect::<Vec<_>>());
        assert!(resolve(BTreeMap::<KeyName, ()>::new(), address).is_empty());
    }
}
