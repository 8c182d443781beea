//! State changes a chain made outside its witnesses, as data: the one place the replay's
//! chain rules ([`crate::rules`]) and the vectors' chain checks take them from.

use verkle::keys::{account_leaves, address32, AccountState, Layout, LayoutError, TreeKey, Value};
use verkle::U256;

/// The EIP-2935 block-hash history account `0xffff…fffe`.
pub const HISTORY_ACCOUNT: [u8; 20] = {
    let mut a = [0xff; 20];
    a[19] = 0xfe;
    a
};

/// Kaustinen6, block 1: geth created the EIP-2935 history account (version 0, balance 0,
/// nonce 0, code keccak = keccak("")) without listing its header leaves in the block's
/// witness. These are those leaves, in `layout` (4 header leaves in the legacy layout).
pub fn kaustinen6_history_account(layout: Layout) -> Result<Vec<(TreeKey, Value)>, LayoutError> {
    let account = AccountState {
        version: 0,
        balance: U256::ZERO,
        nonce: 0,
        code: &[],
        storage: &[],
    };
    account_leaves(layout, &address32(&HISTORY_ACCOUNT), &account)
}
