#!/usr/bin/env python3
"""Generates crates/sim/src/object/schema_data.rs from k8s-openapi's generated sources.

The simulation keeps some kinds as JSON (`Object::Other`): the ones it only stores, and
the ones whose controllers read their JSON. Strict field
validation checks them against their k8s-openapi types; compiling each type's typed
decoder and encoder only for that costs the browser build some 230 KB. Instead this
script writes, for every type reachable from those kinds, the JSON field names and
each field's Rust type as a table that `object/schema.rs` walks: the same errors, in
the same order, as the typed decoder (`object/decode.rs`). A type the served typed
kinds decode anyway (ObjectMeta, PodTemplateSpec, ...), a scalar and a type without
k8s-openapi's usual struct decoder are decoded by their own typed decoder.

Run: python3 xtask/scripts/gen_schema.py ~/.cargo/registry/src/*/k8s-openapi-0.29.0/src/v1_37
"""
import os
import re
import sys

ROOT = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
OBJECT = os.path.join(HERE, "..", "..", "crates", "sim", "src", "object")


def served_kinds():
    """(k8s-openapi path, kept as JSON) of every kind and version in `object/mod.rs`'s
    discovery table `INFO`. A kind is kept as JSON when `Object::from_json_at` has no
    typed arm for it (`Kind::X => Object::X(de(value)?)`)."""
    text = open(os.path.join(OBJECT, "mod.rs")).read()
    typed = set(re.findall(r"Kind::(\w+) => Object::\1\(de\(value\)\?\)", text))
    rows = re.findall(r'KindInfo::new\("(\w+)", "[^"]*", "[^"]*", &\[[^\]]*\], "([^"]*)", &\[([^\]]*)\]\)(.*)', text)
    kinds = []
    for kind, group, versions, rest in rows:
        module = group.split(".")[0] or "core"
        for version in re.findall(r'"(\w+)"', versions):
            kinds.append(("api::%s::%s::%s" % (module, version, kind), kind not in typed))
    return kinds


# The kinds `Object` holds typed, and the JSON-kept ones this table is for.
TYPED_KINDS = [p for p, json in served_kinds() if not json]
STORED = [p for p, json in served_kinds() if json]
SCALARS = {
    "std::string::String": "String",
    "i32": "i32",
    "i64": "i64",
    "f64": "f64",
    "bool": "bool",
}


def file_of(path):
    parts = path.split("::")
    name = parts[-1]
    d = os.path.join(ROOT, *parts[:-1])
    for f in sorted(os.listdir(d)):
        if f.endswith(".rs"):
            text = open(os.path.join(d, f)).read()
            if re.search(r"pub struct %s\b" % name, text):
                return text
    return None


def parse(path):
    """(expecting, type meta or None, [(json name, field type)]) of a struct decoded by
    k8s-openapi's usual `visit_map`, or None for any other type."""
    text = file_of(path)
    name = path.split("::")[-1]
    if text is None or "fn visit_map" not in text:
        return None
    de = text[text.index("crate::serde::Deserialize<'de> for %s " % name):]
    de = de[:de.index("\nimpl ")] if "\nimpl " in de else de
    # A decoder that checks more than the fields' own types keeps its typed decoder.
    if "missing_field" in de or "serde::de::Error::" in de.replace(
        "crate::serde::de::Error::invalid_value(crate::serde::de::Unexpected::Str(&value_api_version)", ""
    ).replace(
        "crate::serde::de::Error::invalid_value(crate::serde::de::Unexpected::Str(&value_kind)", ""
    ):
        return None
    m = re.search(r'type Value = %s;\s*fn expecting[^{]*\{\s*f\.write_str\(([^)]+)\)' % name, de)
    if not m:
        return None
    expecting = m.group(1)
    if expecting == "<Self::Value as crate::Resource>::KIND":
        expecting = '"%s"' % re.search(r'const KIND: &\'static str = "([^"]+)";', text).group(1)
    expecting = expecting.strip('"')
    keys = dict((rust, js) for js, rust in re.findall(r'"([^"]+)" => Field::Key_(\w+),', de))
    fields = []
    for rust, ty in re.findall(r"let mut value_(\w+): Option<(.+)> = None;", de):
        fields.append((keys[rust], ty))
    meta = None
    if "let value_api_version: std::string::String =" in de:
        v = re.search(r'const API_VERSION: &\'static str = "([^"]+)";', text).group(1)
        k = re.search(r'const KIND: &\'static str = "([^"]+)";', text).group(1)
        meta = (v, k)
    return expecting, meta, fields


def refs(ty):
    """The k8s-openapi types a field type names."""
    return re.findall(r"crate::([\w:]+)", ty)


def reachable(roots):
    seen, queue = set(), list(roots)
    while queue:
        p = queue.pop()
        if p in seen:
            continue
        seen.add(p)
        parsed = parse(p)
        if parsed:
            for _, ty in parsed[2]:
                queue.extend(refs(ty))
    return seen


TYPED = reachable(TYPED_KINDS)


def static_name(path):
    parts = path.split("::")
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", parts[-1]).upper()
    return "_".join(p.upper() for p in parts[1:-1]) + "_" + snake


structs = {}


def shape(ty):
    ty = ty.strip()
    if ty.startswith("std::vec::Vec<"):
        return "Shape::Vec(&%s)" % shape(ty[len("std::vec::Vec<"):-1])
    prefix = "std::collections::BTreeMap<std::string::String, "
    if ty.startswith(prefix):
        return "Shape::Map(&%s)" % shape(ty[len(prefix):-1])
    if ty in SCALARS:
        return "Shape::Typed(typed::<%s>)" % SCALARS[ty]
    assert ty.startswith("crate::"), ty
    path = ty[len("crate::"):]
    if path not in TYPED and parse(path):
        queue.append(path)
        return "Shape::Struct(&%s)" % static_name(path)
    return "Shape::Typed(typed::<k8s_openapi::%s>)" % path


queue = list(STORED)
order = []
while queue:
    p = queue.pop(0)
    if p in structs:
        continue
    expecting, meta, fields = parse(p)
    structs[p] = None
    rows = [(js, shape(ty)) for js, ty in fields]
    structs[p] = (expecting, meta, rows)
    order.append(p)

out = [
    "//! Generated by `xtask/scripts/gen_schema.py` from k8s-openapi 0.29 (v1_37): the",
    "//! types of the kinds the simulation only stores, for `object/schema.rs`. Do not edit.",
    "",
    "use super::schema::{typed, Shape, Struct};",
    "",
    "/// The stored-only kinds' types, by `apiVersion` and kind.",
    "pub(super) static ROOTS: [(&str, &str, &Struct); %d] = [" % len(STORED),
]
for p in STORED:
    meta = structs[p][1]
    out.append('    ("%s", "%s", &%s),' % (meta[0], meta[1], static_name(p)))
out.append("];")
# One struct a line: the table is data, read by `schema.rs`.
out.append("")
for p in order:
    expecting, meta, rows = structs[p]
    out.append('static %s: Struct = Struct { name: "%s", type_meta: %s, fields: &[%s] };' % (
        static_name(p),
        expecting,
        'Some(("%s", "%s"))' % meta if meta else "None",
        ", ".join('("%s", %s)' % row for row in rows),
    ))
dest = os.path.join(OBJECT, "schema_data.rs")
open(dest, "w").write("\n".join(out) + "\n")
print(len(order), "structs,", sum(len(s[2]) for s in structs.values()), "fields", file=sys.stderr)
