//! Values read through without being kept: checked by the deserializer as fully as the
//! values that are kept, or skipped as the deserializer likes.

use core::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Any value, read through without being kept: with `validate` by the deserializer's full
/// reading of each value, else skipped as the deserializer likes.
#[derive(Clone, Copy)]
pub(super) struct Skip {
    pub(super) validate: bool,
}

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.validate {
            d.deserialize_any(self)
        } else {
            d.deserialize_ignored_any(IgnoredAny).map(|_| ())
        }
    }
}

/// Implements the visits of scalars as doing nothing.
macro_rules! accept_scalars_ {
    () => {
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
}

impl Skip {
    /// Reads the rest of an array through.
    pub(super) fn seq<'de, A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    /// Reads the rest of an object through.
    pub(super) fn map<'de, A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(SkipKey)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    accept_scalars_!();
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        self.map(map)
    }
}

/// A key read and dropped.
pub(super) struct SkipKey;

impl<'de> DeserializeSeed<'de> for SkipKey {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for SkipKey {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
}

pub(super) use accept_scalars_ as accept_scalars;
