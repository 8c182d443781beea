//! Reading a genesis file as a stream: accounts in batches, memory bounded by the batch.

use serde_json::Value as Json;

use verkle::keys::{Layout, TreeKey, Value};

use crate::leaves::parsed_leaves;
use crate::{account::*, error::*};

/// Accounts per batch of [`stream_genesis_leaves`] that callers without a better figure use
/// (≈ 2–4 leaves each: a batch of leaves is a few tens of MB).
pub const STREAM_BATCH_ACCOUNTS: usize = 100_000;

/// What [`stream_genesis_leaves`] read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamCounts {
    /// Accounts read.
    pub accounts: u64,
    /// Leaves handed to the sink.
    pub leaves: u64,
    /// Calls of the sink.
    pub batches: u64,
}

/// The leaves of a genesis file read as a stream: the same document and the same leaves as
/// [`genesis_leaves`](crate::genesis_leaves), but the file is never held whole. Accounts are parsed in file order,
/// in batches of at most `batch_accounts` accounts (fewer when they carry many storage slots
/// or code chunks); each batch's leaves are computed in parallel and handed to `sink` before
/// the next batch is read, so memory is bounded by one batch and one account.
///
/// Leaves come per account in [`genesis_leaves`](crate::genesis_leaves)' order, accounts in file order (not in key
/// order, and not address-sorted as [`genesis_leaves`](crate::genesis_leaves) has them; the tree built from either
/// is the same). The first error stops the stream: an [`ImportError`] naming the source, the
/// account and the field (a JSON syntax error carries serde's line and column), or the
/// sink's own error. Batches handed out before it are not taken back: a caller writing them
/// somewhere must treat that state as incomplete.
///
/// A top-level object with an `alloc` key is a geth genesis (its other keys are skipped);
/// without one it is a bare alloc. Address-shaped keys at the top level beside an `alloc`,
/// or two `alloc` keys, are refused ([`ImportError::Shape`]) rather than silently resolved.
/// An address written twice gives both accounts' leaves, the later ones winning where they
/// meet (the one-shot parser keeps only the last account).
pub fn stream_genesis_leaves<R, E, F>(
    reader: R,
    layout: Layout,
    source_name: &str,
    batch_accounts: usize,
    sink: F,
) -> Result<StreamCounts, E>
where
    R: std::io::Read,
    E: From<ImportError>,
    F: FnMut(Vec<(TreeKey, Value)>) -> Result<(), E>,
{
    let mut batches = Batches {
        layout,
        source_name,
        batch_accounts: batch_accounts.max(1),
        pending: Vec::new(),
        pending_leaves: 0,
        sink,
        counts: StreamCounts::default(),
    };
    stream_genesis_accounts(reader, source_name, |name, body| batches.push(name, body))?;
    batches.flush()?;
    Ok(batches.counts)
}

/// The `alloc` entries of a genesis file read as a stream, each handed to `on_account` as
/// its name (the address as written) and its JSON body, in file order, before the next one
/// is read: memory is bounded by one account. Returns the number of accounts handed out.
///
/// The document's shape is checked as [`stream_genesis_leaves`] checks it (a geth genesis
/// with an `alloc`, or a bare alloc; two `alloc` keys, accounts beside an `alloc`, a bare
/// alloc's key that is not a 20-byte address and a top level or `alloc` that is not an object
/// are [`ImportError`]s naming `source_name`; a JSON syntax error carries serde's line and
/// column). The body is not checked: that is the caller's, with the field readers of this
/// crate ([`hex_bytes`](crate::hex_bytes), [`hex_word`](crate::hex_word),
/// [`number`](crate::number)). The first error, the document's or `on_account`'s, stops
/// the stream and is returned.
pub fn stream_genesis_accounts<R, E, F>(
    reader: R,
    source_name: &str,
    on_account: F,
) -> Result<u64, E>
where
    R: std::io::Read,
    E: From<ImportError>,
    F: FnMut(&str, &Json) -> Result<(), E>,
{
    let mut streamer = Streamer {
        source_name,
        on_account,
        accounts: 0,
        stop: None,
    };
    let buffered = std::io::BufReader::with_capacity(1 << 20, reader);
    let mut de = serde_json::Deserializer::from_reader(buffered);
    let read = serde::Deserializer::deserialize_any(&mut de, TopVisitor(&mut streamer))
        .and_then(|()| de.end());
    if let Err(e) = read {
        return Err(match streamer.stop.take() {
            Some(stop) => stop,
            None => E::from(ImportError::Json {
                source_name: source_name.to_owned(),
                message: e.to_string(),
            }),
        });
    }
    Ok(streamer.accounts)
}

/// Accounts parsed and gathered into batches of leaves for [`stream_genesis_leaves`].
struct Batches<'a, F> {
    layout: Layout,
    source_name: &'a str,
    batch_accounts: usize,
    pending: Vec<ParsedAccount>,
    /// Leaves the pending accounts will give, roughly.
    pending_leaves: usize,
    sink: F,
    counts: StreamCounts,
}

impl<F> Batches<'_, F> {
    fn push<E>(&mut self, name: &str, body: &Json) -> Result<(), E>
    where
        E: From<ImportError>,
        F: FnMut(Vec<(TreeKey, Value)>) -> Result<(), E>,
    {
        let a = parse_account(name, body).map_err(|(field, reason)| {
            E::from(ImportError::Account {
                source_name: self.source_name.to_owned(),
                account: name.to_owned(),
                field,
                reason,
            })
        })?;
        self.pending_leaves += 4 + a.code.len() / 31 + 1 + a.storage.len();
        self.pending.push(a);
        self.counts.accounts += 1;
        if self.pending.len() >= self.batch_accounts
            || self.pending_leaves >= self.batch_accounts.saturating_mul(4)
        {
            self.flush()?;
        }
        Ok(())
    }

    fn flush<E>(&mut self) -> Result<(), E>
    where
        E: From<ImportError>,
        F: FnMut(Vec<(TreeKey, Value)>) -> Result<(), E>,
    {
        if self.pending.is_empty() {
            return Ok(());
        }
        let accounts = std::mem::take(&mut self.pending);
        self.pending_leaves = 0;
        let leaves = parsed_leaves(&accounts, self.layout, self.source_name).map_err(E::from)?;
        drop(accounts);
        self.counts.leaves += leaves.len() as u64;
        self.counts.batches += 1;
        (self.sink)(leaves)
    }
}

/// The state of [`stream_genesis_accounts`] while serde drives it.
pub(super) struct Streamer<'a, E, F> {
    source_name: &'a str,
    on_account: F,
    accounts: u64,
    /// Why the stream stopped (serde only sees a placeholder error).
    stop: Option<E>,
}

impl<E, F> Streamer<'_, E, F>
where
    E: From<ImportError>,
    F: FnMut(&str, &Json) -> Result<(), E>,
{
    fn fail(&mut self, e: E) -> Result<(), ()> {
        self.stop = Some(e);
        Err(())
    }

    fn shape(&mut self, what: &'static str) -> Result<(), ()> {
        let e = ImportError::Shape {
            source_name: self.source_name.to_owned(),
            what,
        };
        self.fail(E::from(e))
    }

    fn push(&mut self, name: &str, body: &Json) -> Result<(), ()> {
        match (self.on_account)(name, body) {
            Ok(()) => {
                self.accounts += 1;
                Ok(())
            }
            Err(e) => self.fail(e),
        }
    }
}

/// The placeholder serde carries out when [`Streamer::stop`] holds the real error.
pub(super) fn stopped<X: serde::de::Error>(_: ()) -> X {
    X::custom("import stopped")
}

/// Visit methods refusing every JSON value but an object, as a [`ImportError::Shape`].
macro_rules! refuse_non_objects {
    ($what:expr) => {
        fn visit_bool<X: serde::de::Error>(self, _: bool) -> Result<(), X> {
            self.0.shape($what).map_err(stopped)
        }
        fn visit_i64<X: serde::de::Error>(self, _: i64) -> Result<(), X> {
            self.0.shape($what).map_err(stopped)
        }
        fn visit_u64<X: serde::de::Error>(self, _: u64) -> Result<(), X> {
            self.0.shape($what).map_err(stopped)
        }
        fn visit_f64<X: serde::de::Error>(self, _: f64) -> Result<(), X> {
            self.0.shape($what).map_err(stopped)
        }
        fn visit_str<X: serde::de::Error>(self, _: &str) -> Result<(), X> {
            self.0.shape($what).map_err(stopped)
        }
        fn visit_unit<X: serde::de::Error>(self) -> Result<(), X> {
            self.0.shape($what).map_err(stopped)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, _: A) -> Result<(), A::Error> {
            self.0.shape($what).map_err(stopped)
        }
    };
}

/// The top-level object: a geth genesis or a bare alloc.
pub(super) struct TopVisitor<'s, 'a, E, F>(&'s mut Streamer<'a, E, F>);

impl<'de, E, F> serde::de::Visitor<'de> for TopVisitor<'_, '_, E, F>
where
    E: From<ImportError>,
    F: FnMut(&str, &Json) -> Result<(), E>,
{
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a genesis object")
    }

    refuse_non_objects!("top level is not an object");

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut alloc_seen = false;
        let mut top_accounts = false;
        // A bare alloc's first key that is not an address (an error only without `alloc`).
        let mut bad_key: Option<(String, FieldError)> = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "alloc" {
                if alloc_seen {
                    return self.0.shape("two `alloc` keys").map_err(stopped);
                }
                if top_accounts {
                    return self
                        .0
                        .shape("accounts at the top level beside an `alloc`")
                        .map_err(stopped);
                }
                alloc_seen = true;
                map.next_value_seed(AllocSeed(&mut *self.0))?;
            } else if alloc_seen {
                map.next_value::<serde::de::IgnoredAny>()?;
            } else {
                match hex_fixed::<20>(&key) {
                    Ok(_) => {
                        let body: Json = map.next_value()?;
                        top_accounts = true;
                        self.0.push(&key, &body).map_err(stopped)?;
                    }
                    Err(e) => {
                        if bad_key.is_none() {
                            bad_key = Some((key, e));
                        }
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
            }
        }
        match bad_key {
            Some((account, reason)) if !alloc_seen => {
                let e = ImportError::Account {
                    source_name: self.0.source_name.to_owned(),
                    account,
                    field: "address".to_owned(),
                    reason,
                };
                self.0.fail(E::from(e)).map_err(stopped)
            }
            _ => Ok(()),
        }
    }
}

/// The value of `alloc`.
pub(super) struct AllocSeed<'s, 'a, E, F>(&'s mut Streamer<'a, E, F>);

impl<'de, E, F> serde::de::DeserializeSeed<'de> for AllocSeed<'_, '_, E, F>
where
    E: From<ImportError>,
    F: FnMut(&str, &Json) -> Result<(), E>,
{
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(AllocVisitor(self.0))
    }
}

pub(super) struct AllocVisitor<'s, 'a, E, F>(&'s mut Streamer<'a, E, F>);

impl<'de, E, F> serde::de::Visitor<'de> for AllocVisitor<'_, '_, E, F>
where
    E: From<ImportError>,
    F: FnMut(&str, &Json) -> Result<(), E>,
{
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an alloc object")
    }

    refuse_non_objects!("`alloc` is not an object");

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(name) = map.next_key::<String>()? {
            let body: Json = map.next_value()?;
            self.0.push(&name, &body).map_err(stopped)?;
        }
        Ok(())
    }
}
