//! A value computed on first use, on `std` and `no_std` alike.
//!
//! With `std` this is [`std::sync::OnceLock`]: one thread computes, the others wait (large
//! tables are never built twice). Without `std` it is `once_cell`'s lock-free `OnceBox`:
//! threads racing on the first use may each compute the value and one result is kept, which
//! is what single-threaded WebAssembly and zkVM guests need.

/// A cell written once, by the first [`Once::get_or_init`].
pub struct Once<T> {
    #[cfg(feature = "std")]
    inner: std::sync::OnceLock<T>,
    #[cfg(not(feature = "std"))]
    inner: once_cell::race::OnceBox<T>,
}

impl<T> Once<T> {
    /// An empty cell.
    pub const fn new() -> Self {
        Once {
            #[cfg(feature = "std")]
            inner: std::sync::OnceLock::new(),
            #[cfg(not(feature = "std"))]
            inner: once_cell::race::OnceBox::new(),
        }
    }

    /// The value, if it was computed.
    #[inline]
    pub fn get(&self) -> Option<&T> {
        self.inner.get()
    }

    /// The value, computed by `f` on the first call.
    #[inline]
    pub fn get_or_init(&self, f: impl FnOnce() -> T) -> &T {
        #[cfg(feature = "std")]
        {
            self.inner.get_or_init(f)
        }
        #[cfg(not(feature = "std"))]
        {
            self.inner.get_or_init(|| alloc::boxed::Box::new(f()))
        }
    }
}

impl<T> Default for Once<T> {
    fn default() -> Self {
        Once::new()
    }
}

impl<T: Clone> Clone for Once<T> {
    fn clone(&self) -> Self {
        let cell = Once::new();
        if let Some(v) = self.get() {
            cell.get_or_init(|| v.clone());
        }
        cell
    }
}

impl<T: core::fmt::Debug> core::fmt::Debug for Once<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Once").field(&self.get()).finish()
    }
}
