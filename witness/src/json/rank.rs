//! The order in which the reader's rules are checked, so that the error reported does not
//! depend on the order of the document's keys.
//!
//! The rules are checked in one fixed order: the witness's type, then `stateDiff` (its name,
//! then its value: the array, then each stem in turn: its type, `stem`, `suffixDiffs`, …),
//! then `verkleProof` the same way. A streaming reader meets fields in document order, so
//! each error is given its place in the fixed order — a [`Rank`] — and the lowest is kept.

/// How many steps a rank holds: the witness's deepest value, a suffix diff's field, is
/// 8 steps down (`stateDiff`, its array, a stem, `suffixDiffs`, its array, a diff, a field,
/// its value).
const STEPS: usize = 8;

/// The place of a check in the fixed order: a sequence of steps compared
/// lexicographically (missing steps count as 0, which sorts a container's own checks before
/// its contents').
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) struct Rank {
    steps: [u32; STEPS],
    len: usize,
}

impl Rank {
    /// The rank of the witness object itself.
    pub(super) const WITNESS: Rank = Rank {
        steps: [0; STEPS],
        len: 0,
    };

    /// The `step`-th check inside this one. Ranks deeper than the witness goes do not occur;
    /// were one asked for, it would share its parent's place.
    pub(super) fn then(self, step: usize) -> Rank {
        let mut next = self;
        if let Some(slot) = next.steps.get_mut(self.len) {
            *slot = u32::try_from(step).unwrap_or(u32::MAX);
            next.len += 1;
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_container_ranks_before_its_contents_and_earlier_fields_first() {
        let sd = Rank::WITNESS.then(1);
        let array = sd.then(1).then(0);
        let stem0 = sd.then(1).then(1);
        let stem1 = sd.then(1).then(2);
        let proof = Rank::WITNESS.then(2);
        assert!(Rank::WITNESS.then(0) < sd.then(0));
        assert!(sd.then(0) < array);
        assert!(array < stem0.then(0));
        assert!(stem0.then(2).then(1).then(9).then(3).then(1) < stem1.then(0));
        assert!(stem1.then(7) < proof.then(0));
        let deepest = stem0.then(2).then(1).then(1).then(3).then(1);
        assert_eq!(deepest.len, STEPS);
    }
}
