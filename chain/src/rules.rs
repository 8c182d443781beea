//! Chain rules: named, documented deviations of a chain from "apply the witness's new values"
//! (`fverkle replay --chain`). Each rule says at which block it adds which writes; none is
//! applied silently. The state changes themselves are data in [`crate::forks`].

use verkle::keys::{Layout, LayoutError, TreeKey, Value};

use crate::forks::kaustinen6_history_account;

/// Writes as `(key, Some(value))` (or `None` to delete).
pub type Writes = Vec<(TreeKey, Option<Value>)>;

/// A chain whose history needs named rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chain {
    /// No rules: every block is exactly its witness's writes.
    None,
    /// Kaustinen6: at block 1 geth created the EIP-2935 history account (version 0,
    /// balance 0, nonce 0, code keccak = keccak("")) without listing its header leaves in
    /// the witness; they are written before block 1's own writes.
    Kaustinen6,
}

impl Chain {
    /// The name stored in a datadir's meta.
    pub fn name(&self) -> &'static str {
        match self {
            Chain::None => "none",
            Chain::Kaustinen6 => "kaustinen6",
        }
    }

    /// Writes this chain adds to block `number` before the witness's own writes (which win
    /// on a shared key), with the rule's name for the report.
    pub fn extra_writes(
        &self,
        number: u64,
        layout: Layout,
    ) -> Result<Option<(&'static str, Writes)>, LayoutError> {
        match (self, number) {
            (Chain::Kaustinen6, 1) => {
                let leaves = kaustinen6_history_account(layout)?;
                Ok(Some((
                    "kaustinen6-eip2935-history-account",
                    leaves.into_iter().map(|(k, v)| (k, Some(v))).collect(),
                )))
            }
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kaustinen6_adds_four_legacy_leaves_at_block_1_only() {
        let (name, w) = Chain::Kaustinen6
            .extra_writes(1, Layout::Legacy)
            .expect("layout fits")
            .expect("a rule at block 1");
        assert!(name.contains("eip2935"));
        assert_eq!(w.len(), 4);
        assert!(Chain::Kaustinen6
            .extra_writes(2, Layout::Legacy)
            .expect("ok")
            .is_none());
        assert!(Chain::None
            .extra_writes(1, Layout::Legacy)
            .expect("ok")
            .is_none());
    }
}
