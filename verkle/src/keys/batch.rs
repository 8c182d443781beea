//! The leaves of many accounts at once, their stems hashed in batches: every account's
//! address half first ([`AddressHasher::new_many`]), then every stem of every account in one
//! [`AddressHasher::stems_of_many`] call (one field inversion per few hundred stems, the
//! point sums eight side by side where the processor has AVX-512 IFMA).

use ipa::{AddressHasher, Committer};

use super::{
    chunkify_code, join_key, AccountState, Layout, LayoutError, TreeKey, TreePosition, Value,
};
use witness::keys::U256;

/// Every leaf of one account: header leaves, then code chunks, then storage slots.
///
/// This is how geth turned a genesis `alloc` into leaves (vectors/README "genesis").
pub fn account_leaves(
    layout: Layout,
    address: &[u8; 32],
    account: &AccountState<'_>,
) -> Result<Vec<(TreeKey, Value)>, LayoutError> {
    account_leaves_many(layout, &[(*address, *account)])
        .pop()
        .expect("one result per account")
}

/// One account's leaves before their stems are known: `(request, suffix, value)`, where
/// `request` indexes the batch's stem requests.
struct Pending {
    header: Result<Vec<(u8, Value)>, LayoutError>,
    header_request: usize,
    body: Vec<(usize, u8, Value)>,
}

/// [`account_leaves`] of every account, in order, bit-identical to
/// calling it on each: header leaves, then code chunks, then storage slots. Each account's
/// result stands alone, so a caller can name the account a layout error belongs to.
pub fn account_leaves_many(
    layout: Layout,
    accounts: &[([u8; 32], AccountState<'_>)],
) -> Vec<Result<Vec<(TreeKey, Value)>, LayoutError>> {
    let committer = Committer::eip6800();
    let addresses: Vec<[u8; 32]> = accounts.iter().map(|(a, _)| *a).collect();
    let hashers = AddressHasher::new_many(committer, &addresses);
    let mut requests: Vec<(&AddressHasher<'_>, [u8; 32])> = Vec::with_capacity(accounts.len());
    let pending: Vec<Pending> = accounts
        .iter()
        .zip(&hashers)
        .map(|((_, account), hasher)| {
            let header_request = requests.len();
            requests.push((hasher, [0u8; 32]));
            // Consecutive positions share a stem request while their tree index repeats;
            // index 0 is always the header's.
            let mut last = (U256::ZERO, header_request);
            let mut request_of = |index: U256| {
                if index.is_zero() {
                    header_request
                } else if index == last.0 && last.1 != header_request {
                    last.1
                } else {
                    requests.push((hasher, index.to_le_bytes()));
                    last = (index, requests.len() - 1);
                    last.1
                }
            };
            let chunks = chunkify_code(account.code);
            let mut body = Vec::with_capacity(chunks.len() + account.storage.len());
            for (i, chunk) in chunks.into_iter().enumerate() {
                let p = TreePosition::code_chunk(i as u64);
                body.push((request_of(p.tree_index), p.sub_index, chunk));
            }
            for (slot, value) in account.storage {
                let p = TreePosition::storage_slot(slot);
                body.push((request_of(p.tree_index), p.sub_index, *value));
            }
            Pending {
                header: layout.header_leaves(account),
                header_request,
                body,
            }
        })
        .collect();
    let stems = AddressHasher::stems_of_many(committer, &requests);
    pending
        .into_iter()
        .map(|p| {
            let header = p.header?;
            let header_stem = &stems[p.header_request];
            let mut out = Vec::with_capacity(header.len() + p.body.len());
            out.extend(
                header
                    .into_iter()
                    .map(|(sub, v)| (join_key(header_stem, sub), v)),
            );
            out.extend(
                p.body
                    .into_iter()
                    .map(|(r, sub, v)| (join_key(&stems[r], sub), v)),
            );
            Ok(out)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use witness::keys::tree_key_from_crs;

    /// Every leaf's key equals `get_tree_key` at its position, computed over the CRS alone,
    /// for accounts with code across several stems, header and main storage, repeated and
    /// alternating tree indices, an empty account, and a layout error in the middle of the
    /// batch.
    #[test]
    fn keys_match_get_tree_key_at_every_position() {
        let code: Vec<u8> = (0..31 * 300).map(|i| (i * 7 % 251) as u8).collect();
        let slot = |v: u64| U256::from_u64(v);
        let storage = [
            (slot(0), [1u8; 32]),
            (slot(63), [2u8; 32]),
            (slot(64), [3u8; 32]),
            (slot(300), [4u8; 32]),
            (slot(5), [5u8; 32]),
            (slot(301), [6u8; 32]),
            (slot(1 << 40), [7u8; 32]),
        ];
        let plain = AccountState {
            version: 0,
            balance: slot(10),
            nonce: 1,
            code: &[],
            storage: &[],
        };
        let rich = AccountState {
            code: &code,
            storage: &storage,
            ..plain
        };
        let too_big = AccountState {
            nonce: u64::MAX,
            balance: U256::MAX,
            ..plain
        };
        let accounts: Vec<([u8; 32], AccountState<'_>)> = [rich, plain, too_big, rich]
            .into_iter()
            .enumerate()
            .map(|(i, a)| ([i as u8 + 1; 32], a))
            .collect();
        for layout in [Layout::Legacy, Layout::Eip6800] {
            let got = account_leaves_many(layout, &accounts);
            assert_eq!(got.len(), accounts.len());
            // BASIC_DATA holds 128 bits of balance; the legacy layout a whole word.
            let errors = got.iter().filter(|r| r.is_err()).count();
            assert_eq!(errors, usize::from(matches!(layout, Layout::Eip6800)));
            for ((address, account), leaves) in accounts.iter().zip(&got) {
                let Ok(leaves) = leaves else {
                    assert!(layout.header_leaves(account).is_err());
                    continue;
                };
                let header = layout.header_leaves(account).expect("header");
                let chunks = chunkify_code(account.code);
                let mut want = Vec::new();
                for (sub, v) in header {
                    want.push((tree_key_from_crs(address, &TreePosition::header(sub)), v));
                }
                for (i, c) in chunks.into_iter().enumerate() {
                    want.push((
                        tree_key_from_crs(address, &TreePosition::code_chunk(i as u64)),
                        c,
                    ));
                }
                for (s, v) in account.storage {
                    want.push((
                        tree_key_from_crs(address, &TreePosition::storage_slot(s)),
                        *v,
                    ));
                }
                assert_eq!(*leaves, want, "{layout:?}");
            }
        }
    }
}
