//! A second walk of a document down to a value the search found, given its position in each
//! container from the root down; everything beside the way is skipped unread.

use core::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Hands the value at `positions` to `seed`; `None` if the document has no such value.
pub(super) struct Locate<'a, S> {
    pub(super) positions: &'a [usize],
    pub(super) seed: S,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Locate<'_, S> {
    type Value = Option<S::Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        match self.positions.split_first() {
            None => self.seed.deserialize(d).map(Some),
            Some(_) => d.deserialize_any(self),
        }
    }
}

impl<'de, S: DeserializeSeed<'de>> Visitor<'de> for Locate<'_, S> {
    type Value = Option<S::Value>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object or array")
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let Some((&at, rest)) = self.positions.split_first() else {
            return Ok(None);
        };
        let mut found = None;
        let mut inner = Some(Locate {
            positions: rest,
            seed: self.seed,
        });
        let mut i = 0;
        loop {
            let more = match inner.take_if(|_| i == at) {
                Some(locate) => seq.next_element_seed(locate)?.map(|v| found = v),
                None => seq.next_element::<IgnoredAny>()?.map(|_| ()),
            };
            if more.is_none() {
                break;
            }
            i += 1;
        }
        Ok(found)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let Some((&at, rest)) = self.positions.split_first() else {
            return Ok(None);
        };
        let mut found = None;
        let mut inner = Some(Locate {
            positions: rest,
            seed: self.seed,
        });
        let mut i = 0;
        while map.next_key::<IgnoredAny>()?.is_some() {
            match inner.take_if(|_| i == at) {
                Some(locate) => found = map.next_value_seed(locate)?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            i += 1;
        }
        Ok(found)
    }
}
