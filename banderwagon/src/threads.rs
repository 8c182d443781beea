//! Table builds on scoped threads (not rayon: tables are often built inside a lazy
//! initialiser, and rayon workers blocked on that initialiser would deadlock a
//! rayon-parallel build). Without `std` everything runs on the calling thread.

use alloc::vec::Vec;

/// How many threads a table build spreads over.
pub(crate) fn available() -> usize {
    #[cfg(feature = "std")]
    {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
    #[cfg(not(feature = "std"))]
    {
        1
    }
}

/// `f` of each run of at most `chunk` consecutive items, one scoped thread per run (with
/// `std`), the results concatenated in order. A panic in a thread resumes on the caller.
pub(crate) fn map_chunks<T: Sync, R: Send>(
    items: &[T],
    chunk: usize,
    f: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<R> {
    let chunk = chunk.max(1);
    #[cfg(feature = "std")]
    {
        let f = &f;
        std::thread::scope(|scope| {
            let handles: Vec<_> = items
                .chunks(chunk)
                .map(|part| scope.spawn(move || f(part)))
                .collect();
            handles
                .into_iter()
                .flat_map(|h| match h.join() {
                    Ok(out) => out,
                    Err(panic) => std::panic::resume_unwind(panic),
                })
                .collect()
        })
    }
    #[cfg(not(feature = "std"))]
    {
        items.chunks(chunk).flat_map(f).collect()
    }
}
