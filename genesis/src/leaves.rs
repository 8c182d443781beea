//! Parsed accounts turned into tree leaves, hashed in parallel: the one step the whole-file
//! and the streamed genesis readers share.

use rayon::prelude::*;

use verkle::keys::{account_leaves_many, AccountState, Layout, TreeKey, Value};

use crate::account::ParsedAccount;
use crate::error::{FieldError, ImportError};

/// Accounts whose stems are hashed in one batch.
const LEAF_BATCH_ACCOUNTS: usize = 1024;

/// The leaves of parsed accounts, in their order (keys hashed in parallel).
pub(crate) fn parsed_leaves(
    accounts: &[ParsedAccount],
    layout: Layout,
    source_name: &str,
) -> Result<Vec<(TreeKey, Value)>, ImportError> {
    // Build the committer's tables here, not inside a rayon worker: initialising it from
    // several workers at once would block them all while its own rayon jobs wait.
    let _ = ipa::Committer::eip6800();
    // Groups of accounts on rayon threads; inside a group the stems are hashed in batches.
    let groups: Vec<Vec<Vec<(TreeKey, Value)>>> = accounts
        .par_chunks(LEAF_BATCH_ACCOUNTS)
        .map(|group| {
            let states: Vec<([u8; 32], AccountState<'_>)> = group
                .iter()
                .map(|a| {
                    let state = AccountState {
                        version: 0,
                        balance: a.balance,
                        nonce: a.nonce,
                        code: &a.code,
                        storage: &a.storage,
                    };
                    (a.address, state)
                })
                .collect();
            account_leaves_many(layout, &states)
                .into_iter()
                .zip(group)
                .map(|(leaves, a)| {
                    leaves.map_err(|e| ImportError::Account {
                        source_name: source_name.to_owned(),
                        account: a.name.clone(),
                        field: "account".to_owned(),
                        reason: FieldError::Layout(e),
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<_, _>>()?;
    let per_account: Vec<Vec<(TreeKey, Value)>> = groups.into_iter().flatten().collect();
    Ok(per_account.concat())
}
