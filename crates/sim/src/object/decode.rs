//! Typed decoding of JSON values, naming where an error is: the one decoder every
//! k8s-openapi type and every snapshot goes through.
//!
//! [`from_value`] decodes as `serde_json::from_value` does, and on an error also
//! gives the path to it in `serde_path_to_error`'s form (`spec.containers[0].name`,
//! `.` for the top): the first error's path, segments for map keys, sequence
//! indices and enum variants, none for `Some` and newtypes. Scalars are handed to
//! serde_json's own `Value` deserializer, so the errors are its errors word for word;
//! maps, sequences and enums are walked here, the way serde_json walks them, with
//! the path kept on the stack.
//!
//! Why not `serde_path_to_error` itself: it wraps every visitor, seed and access in
//! its own types, so each type decoded through it compiles a second layer of
//! generic code — a large part of the browser build. Walking the value directly
//! compiles one layer, and one deserializer type for everything keeps a single copy
//! of each k8s-openapi visitor.

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Unexpected, Visitor};
use serde_json::{Error, Map, Value};
use std::cell::{Cell, RefCell};
use std::fmt::Write as _;

/// Decodes `value` as a `T`; on an error, the path to it (`.` for the top) and the
/// error itself.
pub(crate) fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, (String, Error)> {
    let track = Track::default();
    T::deserialize(De {
        value,
        chain: Chain::Root,
        track: &track,
    })
    .map_err(|e| (track.path(), e))
}

/// Where in the value the decoder is: a linked list up the stack to the root.
#[derive(Clone, Copy)]
pub(super) enum Chain<'a> {
    Root,
    Seq {
        parent: &'a Chain<'a>,
        index: usize,
    },
    Map {
        parent: &'a Chain<'a>,
        key: &'a str,
    },
    Enum {
        parent: &'a Chain<'a>,
        variant: &'a str,
    },
}

/// The path of the first error, once there is one.
#[derive(Default)]
pub(super) struct Track {
    path: RefCell<Option<String>>,
}

impl Track {
    /// Notes `chain` as the error's place unless an error was placed already (the
    /// innermost place wins: errors are noted on their way out).
    #[inline(never)]
    pub(super) fn trigger(&self, chain: &Chain) {
        let mut path = self.path.borrow_mut();
        if path.is_some() {
            return;
        }
        let mut segments = Vec::new();
        let mut at = chain;
        loop {
            match at {
                Chain::Root => break,
                Chain::Seq { parent, index } => {
                    segments.push(Err(*index));
                    at = parent;
                }
                Chain::Map { parent, key: name }
                | Chain::Enum {
                    parent,
                    variant: name,
                } => {
                    segments.push(Ok(*name));
                    at = parent;
                }
            }
        }
        if segments.is_empty() {
            *path = Some(".".to_string());
            return;
        }
        let mut text = String::new();
        for (i, segment) in segments.iter().rev().enumerate() {
            match segment {
                Err(index) => {
                    let _ = write!(text, "[{index}]");
                }
                Ok(name) => {
                    if i > 0 {
                        text.push('.');
                    }
                    text.push_str(name);
                }
            }
        }
        *path = Some(text);
    }

    pub(super) fn path(&self) -> String {
        self.path.take().unwrap_or_else(|| ".".to_string())
    }
}

/// The deserializer: one value, where it is, and the tracker.
pub(super) struct De<'a> {
    pub(super) value: Value,
    pub(super) chain: Chain<'a>,
    pub(super) track: &'a Track,
}

/// What serde_json's `Value::unexpected` says of a value, for its error messages.
pub(super) fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (None, Some(i), _) => Unexpected::Signed(i),
            (None, None, f) => Unexpected::Float(f.unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// serde_json's `visit_array`: the visitor takes the elements, and must take all.
fn visit_array<'de, 'a, V: Visitor<'de>>(
    array: Vec<Value>,
    chain: &Chain<'a>,
    track: &'a Track,
    visitor: V,
) -> Result<V::Value, Error> {
    let len = array.len();
    let mut seq = SeqAccess {
        iter: array.into_iter(),
        index: 0,
        chain,
        track,
    };
    let out = visitor.visit_seq(&mut seq)?;
    if seq.iter.len() == 0 {
        Ok(out)
    } else {
        Err(de::Error::invalid_length(len, &"fewer elements in array"))
    }
}

/// serde_json's `visit_object`: the visitor takes the entries, and must take all.
fn visit_object<'de, 'a, V: Visitor<'de>>(
    object: Map<String, Value>,
    chain: &Chain<'a>,
    track: &'a Track,
    visitor: V,
) -> Result<V::Value, Error> {
    let len = object.len();
    let mut map = MapAccess {
        iter: object.into_iter(),
        key: String::new(),
        shown: Cell::new(Shown::Hidden),
        number: String::new(),
        value: None,
        chain,
        track,
    };
    let out = visitor.visit_map(&mut map)?;
    if map.iter.len() == 0 {
        Ok(out)
    } else {
        Err(de::Error::invalid_length(len, &"fewer elements in map"))
    }
}

/// Methods serde_json answers without reading into an array or an object: for those
/// it only says that they are not what was asked.
macro_rules! scalar {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            let (chain, track) = (self.chain, self.track);
            self.value.$method(visitor).inspect_err(|_| track.trigger(&chain))
        }
    )*};
}

impl De<'_> {
    /// An array (if `arrays`) or an object (if `objects`) walked here; any other
    /// value refused as serde_json refuses it.
    fn walk<'de, V: Visitor<'de>>(
        self,
        visitor: V,
        arrays: bool,
        objects: bool,
    ) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        let result = match self.value {
            Value::Array(a) if arrays => visit_array(a, &chain, track, visitor),
            Value::Object(o) if objects => visit_object(o, &chain, track, visitor),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        };
        result.inspect_err(|_| track.trigger(&chain))
    }
}

impl<'de, 'a> de::Deserializer<'de> for De<'a> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        let result = match self.value {
            Value::Array(a) => visit_array(a, &chain, track, visitor),
            Value::Object(o) => visit_object(o, &chain, track, visitor),
            other => other.deserialize_any(visitor),
        };
        result.inspect_err(|_| track.trigger(&chain))
    }

    scalar!(deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_identifier deserialize_unit);

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_byte_buf(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if let Value::Array(_) = self.value {
            return self.deserialize_seq(visitor);
        }
        let (chain, track) = (self.chain, self.track);
        self.value
            .deserialize_byte_buf(visitor)
            .inspect_err(|_| track.trigger(&chain))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
        .inspect_err(|_| track.trigger(&chain))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        let result = if name == RAW_VALUE_TOKEN {
            // `RawValue` (etcd's saved objects): serde_json writes the value out.
            self.value.deserialize_newtype_struct(name, visitor)
        } else {
            visitor.visit_newtype_struct(self)
        };
        result.inspect_err(|_| track.trigger(&chain))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.walk(visitor, true, false)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.walk(visitor, false, true)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.walk(visitor, true, true)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        let result = match self.value {
            Value::Object(o) => {
                let mut entries = o.into_iter();
                match (entries.next(), entries.next()) {
                    (Some((variant, value)), None) => visitor.visit_enum(EnumAccess {
                        variant,
                        value: Some(value),
                        chain: &chain,
                        track,
                    }),
                    _ => Err(de::Error::invalid_value(
                        Unexpected::Map,
                        &"map with a single key",
                    )),
                }
            }
            Value::String(variant) => visitor.visit_enum(EnumAccess {
                variant,
                value: None,
                chain: &chain,
                track,
            }),
            other => Err(de::Error::invalid_type(
                unexpected(&other),
                &"string or map",
            )),
        };
        result.inspect_err(|_| track.trigger(&chain))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let (chain, track) = (self.chain, self.track);
        drop(self.value);
        visitor.visit_unit().inspect_err(|_| track.trigger(&chain))
    }
}

/// serde_json's name for `RawValue`'s newtype.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// An array's elements, each at its index.
struct SeqAccess<'c, 'a> {
    iter: std::vec::IntoIter<Value>,
    index: usize,
    chain: &'c Chain<'a>,
    track: &'a Track,
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'_, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some(value) = self.iter.next() else {
            return Ok(None);
        };
        let chain = Chain::Seq {
            parent: self.chain,
            index: self.index,
        };
        self.index += 1;
        let track = self.track;
        seed.deserialize(De {
            value,
            chain,
            track,
        })
        .map(Some)
        .inspect_err(|_| track.trigger(&chain))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// An object's entries, each value under its key.
struct MapAccess<'c, 'a> {
    iter: serde_json::map::IntoIter,
    /// The key of the entry being read.
    key: String,
    /// How the key's reader took it, which decides how the path shows it.
    shown: Cell<Shown>,
    /// A number key as the path shows it.
    number: String,
    value: Option<Value>,
    chain: &'c Chain<'a>,
    track: &'a Track,
}

/// How a key appears in the path, as `serde_path_to_error` captures it: the string
/// when the key's visitor was given it, the integer when one was parsed from it, and
/// `?` otherwise (a float, an enum, a key that failed before its visitor saw it).
#[derive(Clone, Copy)]
enum Shown {
    Hidden,
    Key,
    Unsigned(u64),
    Signed(i64),
}

impl MapAccess<'_, '_> {
    /// The current key's path segment.
    fn segment(&mut self) -> &str {
        match self.shown.get() {
            Shown::Hidden => "?",
            Shown::Key => &self.key,
            Shown::Unsigned(n) => {
                self.number = n.to_string();
                &self.number
            }
            Shown::Signed(n) => {
                self.number = n.to_string();
                &self.number
            }
        }
    }
}

impl<'de> de::MapAccess<'de> for MapAccess<'_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.iter.next() else {
            return Ok(None);
        };
        self.key = key;
        self.value = Some(value);
        self.shown.set(Shown::Hidden);
        let read = seed.deserialize(KeyDe {
            key: &self.key,
            shown: &self.shown,
        });
        match read {
            Ok(k) => Ok(Some(k)),
            Err(e) => {
                let (track, parent) = (self.track, self.chain);
                track.trigger(&Chain::Map {
                    parent,
                    key: self.segment(),
                });
                Err(e)
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let (track, parent) = (self.track, self.chain);
        let Some(value) = self.value.take() else {
            track.trigger(parent);
            return Err(de::Error::custom("value is missing"));
        };
        let chain = Chain::Map {
            parent,
            key: self.segment(),
        };
        // An error the value's own code makes after reading is placed at the value.
        seed.deserialize(De {
            value,
            chain,
            track,
        })
        .inspect_err(|_| track.trigger(&chain))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// An externally tagged enum: `"Variant"` or `{"Variant": value}`.
struct EnumAccess<'c, 'a> {
    variant: String,
    value: Option<Value>,
    chain: &'c Chain<'a>,
    track: &'a Track,
}

impl<'de, 'c, 'a> de::EnumAccess<'de> for EnumAccess<'c, 'a> {
    type Error = Error;
    type Variant = VariantAccess<'c, 'a>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), Error> {
        let tag = seed.deserialize(self.variant.as_str().into_deserializer())?;
        Ok((
            tag,
            VariantAccess {
                variant: self.variant,
                value: self.value,
                chain: self.chain,
                track: self.track,
            },
        ))
    }
}

/// A variant's content, under the variant's name in the path.
struct VariantAccess<'c, 'a> {
    variant: String,
    value: Option<Value>,
    chain: &'c Chain<'a>,
    track: &'a Track,
}

impl<'de> de::VariantAccess<'de> for VariantAccess<'_, '_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        let chain = Chain::Enum {
            parent: self.chain,
            variant: &self.variant,
        };
        match self.value {
            Some(value) => <() as de::Deserialize>::deserialize(value)
                .inspect_err(|_| self.track.trigger(&chain)),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        let chain = Chain::Enum {
            parent: self.chain,
            variant: &self.variant,
        };
        let track = self.track;
        match self.value {
            Some(value) => seed.deserialize(De {
                value,
                chain,
                track,
            }),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"newtype variant",
            )),
        }
        .inspect_err(|_| track.trigger(&chain))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        let chain = Chain::Enum {
            parent: self.chain,
            variant: &self.variant,
        };
        let track = self.track;
        match self.value {
            Some(Value::Array(v)) if v.is_empty() => visitor.visit_unit(),
            Some(Value::Array(v)) => visit_array(v, &chain, track, visitor),
            Some(other) => Err(de::Error::invalid_type(
                unexpected(&other),
                &"tuple variant",
            )),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"tuple variant",
            )),
        }
        .inspect_err(|_| track.trigger(&chain))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let chain = Chain::Enum {
            parent: self.chain,
            variant: &self.variant,
        };
        let track = self.track;
        match self.value {
            Some(Value::Object(o)) => visit_object(o, &chain, track, visitor),
            Some(other) => Err(de::Error::invalid_type(
                unexpected(&other),
                &"struct variant",
            )),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"struct variant",
            )),
        }
        .inspect_err(|_| track.trigger(&chain))
    }
}

/// An object's key, read as serde_json reads keys: as a string, or parsed when a
/// number or a bool is asked for. It notes how its visitor was given the key.
struct KeyDe<'k> {
    key: &'k str,
    shown: &'k Cell<Shown>,
}

macro_rules! numeric_key {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            // serde_json parses the key as a number; snapshots write maps with
            // other keys than strings as lists of pairs, so this is seldom asked.
            let starts_as_number = matches!(self.key.as_bytes().first(), Some(b'0'..=b'9' | b'-'));
            // `from_slice`, as everywhere in the browser build: `from_str` compiles a
            // second copy of serde_json's reader; both read text the same way.
            match serde_json::from_slice::<Value>(self.key.as_bytes()) {
                Ok(Value::Number(n)) if starts_as_number => {
                    self.shown.set(match (n.as_u64(), n.as_i64()) {
                        (Some(u), _) => Shown::Unsigned(u),
                        (None, Some(i)) => Shown::Signed(i),
                        (None, None) => Shown::Hidden,
                    });
                    // serde_json reads the key as text and places the visitor's
                    // error after it.
                    n.deserialize_any(visitor).map_err(|e| {
                        de::Error::custom(format_args!(
                            "{e} at line 1 column {}",
                            self.key.len()
                        ))
                    })
                }
                _ => Err(de::Error::custom(
                    "invalid value: expected key to be a number in quotes",
                )),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for KeyDe<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.shown.set(Shown::Key);
        visitor.visit_str(self.key)
    }

    numeric_key!(deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64);

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.key {
            "true" | "false" => {
                self.shown.set(Shown::Key);
                visitor.visit_bool(self.key == "true")
            }
            other => Err(de::Error::invalid_type(Unexpected::Str(other), &visitor)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // Map keys cannot be null.
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::IntoDeserializer::<Error>::into_deserializer(self.key)
            .deserialize_enum(name, variants, visitor)
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct
        map struct identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    //! The decoder against `serde_path_to_error` over serde_json's own `Value`
    //! deserializer, which it replaces: the same values, the same errors, the same
    //! paths, for every place in a pod and in a whole cluster's snapshot made wrong
    //! in each way a JSON value can be wrong.

    use super::*;
    use crate::{Cluster, SimDuration, Topology};
    use k8s_openapi::api::core::v1::Pod;
    use serde::Deserialize;

    /// Both decoders' answers for `value`: the decoded value or `path: error`.
    fn both<T: DeserializeOwned>(value: &Value) -> (Result<T, String>, Result<T, String>) {
        let ours = from_value::<T>(value.clone()).map_err(|(p, e)| format!("{p}: {e}"));
        let theirs = serde_path_to_error::deserialize::<_, T>(value.clone())
            .map_err(|e| format!("{}: {}", e.path(), e.inner()));
        (ours, theirs)
    }

    /// Every value in `v` with a pointer to it, the root first.
    fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
        out.push(at.clone());
        match v {
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    pointers(x, format!("{at}/{i}"), out);
                }
            }
            Value::Object(o) => {
                for (k, x) in o {
                    let k = k.replace('~', "~0").replace('/', "~1");
                    pointers(x, format!("{at}/{k}"), out);
                }
            }
            _ => {}
        }
    }

    /// What a value can wrongly be.
    fn wrong_values() -> Vec<Value> {
        serde_json::from_str(
            r#"[null, true, 7, -3, 1.5, "x", "", [], [1, "a"], {}, {"a": 1}, {"x": "y", "z": 2}]"#,
        )
        .unwrap()
    }

    /// Each place of `good` replaced by each wrong value, and each object missing
    /// each of its keys: `T` decoded by both decoders, compared.
    fn compare_everywhere<T: DeserializeOwned>(good: &Value, every: usize) -> usize {
        let mut places = Vec::new();
        pointers(good, String::new(), &mut places);
        let mut compared = 0;
        for (n, place) in places.iter().enumerate() {
            if n % every != 0 {
                continue;
            }
            for wrong in wrong_values() {
                let mut v = good.clone();
                *v.pointer_mut(place).unwrap() = wrong;
                let (ours, theirs) = both::<T>(&v);
                assert_eq!(ours.err(), theirs.err(), "{place}");
                compared += 1;
            }
            if let Some(Value::Object(o)) = good.pointer(place) {
                for key in o.keys() {
                    let mut v = good.clone();
                    if let Some(Value::Object(o)) = v.pointer_mut(place) {
                        o.remove(key);
                    }
                    let (ours, theirs) = both::<T>(&v);
                    assert_eq!(ours.err(), theirs.err(), "{place}/{key} removed");
                    compared += 1;
                }
            }
        }
        compared
    }

    const POD: &str = r#"{
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web"},
            "creationTimestamp": "2026-01-01T00:00:00Z",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                "uid": "u-1", "controller": true}]},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27",
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "env": [{"name": "A", "value": "1"},
                    {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}],
                "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
                "readinessProbe": {"httpGet": {"path": "/", "port": 80}, "periodSeconds": 5}}],
            "nodeName": "zone-a", "tolerations": [{"key": "k", "operator": "Exists"}],
            "volumes": [{"name": "v", "emptyDir": {}}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
            "containerStatuses": [{"name": "nginx", "ready": true, "restartCount": 0,
                "image": "nginx:1.27", "imageID": "",
                "state": {"running": {"startedAt": "2026-01-01T00:00:01Z"}}}]}
    }"#;

    #[test]
    fn a_pod_decodes_and_fails_as_with_serde_path_to_error() {
        let good: Value = serde_json::from_str(POD).unwrap();
        let (ours, theirs) = both::<Pod>(&good);
        assert!(ours.is_ok());
        assert_eq!(ours, theirs);
        assert!(compare_everywhere::<Pod>(&good, 1) > 500);
    }

    #[test]
    fn a_snapshot_decodes_and_fails_as_with_serde_path_to_error() {
        let mut c = Cluster::new(7, Topology::default());
        for obj in crate::object::manifest::decode_manifests(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: nginx, image: nginx}]}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n",
        )
        .unwrap()
        {
            c.create(obj).unwrap();
        }
        c.advance(SimDuration::secs(20));
        c.etcd_snapshot_save("backup").unwrap();
        let snapshot = c.snapshot();
        let body = &snapshot[snapshot.iter().position(|b| *b == b'\n').unwrap() + 1..];
        let good: Value = serde_json::from_slice(body).unwrap();

        let ours = from_value::<Cluster>(good.clone()).map_err(|(_, e)| e.to_string());
        assert_eq!(ours.unwrap().snapshot(), snapshot);
        let theirs = serde_path_to_error::deserialize::<_, Cluster>(good.clone());
        assert_eq!(theirs.ok().unwrap().snapshot(), snapshot);
        // A sample of the places (the whole cluster is decoded for each).
        assert!(compare_everywhere::<Cluster>(&good, 601) > 50);
    }

    #[derive(Debug, PartialEq, Deserialize)]
    enum Shape {
        Unit,
        Newtype(u8),
        Tuple(u8, String),
        Struct { a: u8, b: Vec<bool> },
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Shapes {
        shapes: Vec<Shape>,
        keyed: std::collections::BTreeMap<u8, Option<Shape>>,
        flags: std::collections::BTreeMap<bool, ()>,
    }

    #[test]
    fn enums_and_keys_decode_and_fail_as_with_serde_path_to_error() {
        let good = serde_json::json!({
            "shapes": ["Unit", {"Unit": null}, {"Newtype": 3}, {"Tuple": [1, "x"]},
                {"Struct": {"a": 1, "b": [true, false]}}],
            "keyed": {"1": "Unit", "2": null, "30": {"Newtype": 4}},
            "flags": {"true": null, "false": null},
        });
        let (ours, theirs) = both::<Shapes>(&good);
        assert!(ours.is_ok());
        assert_eq!(ours, theirs);
        compare_everywhere::<Shapes>(&good, 1);
        for bad_key in [
            r#"{"x": null}"#,
            r#"{"-1": null}"#,
            r#"{"300": null}"#,
            r#"{"": null}"#,
        ] {
            let keyed: Value = serde_json::from_str(bad_key).unwrap();
            let mut v = good.clone();
            v["keyed"] = keyed;
            let (ours, theirs) = both::<Shapes>(&v);
            assert_eq!(ours, theirs, "{bad_key}");
        }
        let mut v = good.clone();
        v["flags"] = serde_json::json!({"yes": null});
        let (ours, theirs) = both::<Shapes>(&v);
        assert_eq!(ours, theirs);
        for shape in [
            r#"{"Nope": 1}"#,
            r#"{"Unit": 1, "Newtype": 2}"#,
            r#"{}"#,
            r#""Newtype""#,
        ] {
            let mut v = good.clone();
            v["shapes"][0] = serde_json::from_str(shape).unwrap();
            let (ours, theirs) = both::<Shapes>(&v);
            assert_eq!(ours, theirs, "{shape}");
        }
    }
}
