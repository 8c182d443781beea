//! The shared database of a store-backed tree: RocksDB with the default `rocksdb` feature.
//! Without it the type is uninhabited, so a tree is in memory only and everything that
//! reaches the database is statically unreachable.

#[cfg(feature = "rocksdb")]
pub use verkle::store::{RocksError as StoreError, RocksStore as Db};

#[cfg(not(feature = "rocksdb"))]
pub use self::none::{Db, StoreError};

#[cfg(not(feature = "rocksdb"))]
mod none {
    use verkle::store::NodeBatch;

    /// A store error that cannot happen: there is no database.
    pub type StoreError = std::convert::Infallible;

    /// No database: built without the `rocksdb` feature.
    #[derive(Clone, Debug)]
    pub enum Db {}

    impl Db {
        pub fn get_meta(&self, _key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
            match *self {}
        }

        pub fn get_node(&self, _path: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
            match *self {}
        }

        pub fn get_nodes<'a>(
            &self,
            _paths: impl IntoIterator<Item = &'a [u8]>,
        ) -> Vec<Result<Option<Vec<u8>>, StoreError>> {
            match *self {}
        }

        pub fn write_batch(&self, _batch: &NodeBatch) -> Result<(), StoreError> {
            match *self {}
        }
    }
}
