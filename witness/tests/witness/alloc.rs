//! Decoding allocates a constant number of times, whatever the witness's size.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use bytes::Bytes;
use witness::ExecutionWitness;

use crate::common::{real_witnesses, synthetic};

/// Counts allocations (and reallocations) made by threads that opted in, so tests running in
/// parallel on other threads do not disturb the count.
struct Counting;

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn record() {
    let _ = ENABLED.try_with(|on| {
        if on.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    });
}

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the counting touches only const-initialised thread-locals, which
// never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record();
        // SAFETY: the caller meets `GlobalAlloc::alloc`'s contract, forwarded as is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record();
        // SAFETY: `ptr` was allocated by `System` through this allocator with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` through this allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns its result with the number of allocations it made on this thread.
pub(crate) fn allocations<R>(f: impl FnOnce() -> R) -> (R, usize) {
    COUNT.with(|c| c.set(0));
    ENABLED.with(|on| on.set(true));
    let r = f();
    ENABLED.with(|on| on.set(false));
    (r, COUNT.with(Cell::get))
}

/// Allocations made by `ExecutionWitness::from_ssz` and by walking every view.
fn decode_allocations(bytes: Bytes) -> (usize, usize) {
    let (w, decode) = allocations(|| ExecutionWitness::from_ssz(bytes));
    let w = w.unwrap();
    let ((), walk) = allocations(|| {
        let mut sum = 0u64;
        for s in w.state_diff() {
            sum += u64::from(s.stem[30]);
            for d in s.suffix_diffs {
                sum += u64::from(d.suffix);
                sum += d.current_value.map_or(0, |v| u64::from(v[0]));
                sum += d.new_value.map_or(0, |v| u64::from(v[0]));
            }
        }
        let vp = w.verkle_proof();
        for s in vp.other_stems() {
            sum += u64::from(s[0]);
        }
        for c in vp.commitments_by_path() {
            sum += u64::from(c[0]);
        }
        sum += u64::from(vp.ipa_proof().cl[3][0]) + u64::from(vp.multiproof_bytes()[575]);
        std::hint::black_box(sum);
    });
    drop(w);
    (decode, walk)
}

#[test]
fn the_counter_counts() {
    let (v, n) = allocations(|| vec![1u8; 10]);
    assert_eq!(n, 1);
    let (s, n) = allocations(|| (0..3).map(|i| i.to_string()).collect::<Vec<_>>());
    assert_eq!(n, 4);
    drop((v, s));
}

#[test]
fn decoding_allocates_the_same_for_1_100_and_10000_stems() {
    let counts: Vec<(usize, usize, usize)> = [1usize, 100, 10_000]
        .into_iter()
        .map(|n| {
            let bytes = Bytes::from(synthetic(n).to_ssz().unwrap());
            let (decode, walk) = decode_allocations(bytes);
            (n, decode, walk)
        })
        .collect();
    let (_, first, _) = counts[0];
    for &(n, decode, walk) in &counts {
        assert_eq!(
            decode, first,
            "{n} stems: {decode} allocations, 1 stem: {first}"
        );
        assert!(
            decode <= 2,
            "{n} stems: {decode} allocations, expected the two index tables"
        );
        assert_eq!(
            walk, 0,
            "{n} stems: walking the views allocated {walk} times"
        );
    }
}

#[test]
fn decoding_real_witnesses_allocates_at_most_twice() {
    for (name, w) in real_witnesses() {
        let (decode, walk) = decode_allocations(w.as_ssz().clone());
        assert!(decode <= 2, "{name}: {decode} allocations");
        assert_eq!(walk, 0, "{name}");
    }
}
