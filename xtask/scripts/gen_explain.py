#!/usr/bin/env python3
"""Generates crates/kubectl/src/explain.data from k8s-openapi's generated sources.

The k8s-openapi crate carries every OpenAPI definition's description as doc comments
and the JSON field names in its serde code. This script reads the types reachable
from the kinds `kubectl explain` serves and writes one compact text file:

    @<Rust path>|<description>
    <jsonName>|<type>|<required 0/1>|<ref Rust path or empty>|<description>

Run: python3 xtask/scripts/gen_explain.py ~/.cargo/registry/src/*/k8s-openapi-0.29.0/src/v1_37
"""
import os
import re
import sys

ROOT = sys.argv[1]
ROOTS = [
    "api::core::v1::Pod", "api::core::v1::Node", "api::core::v1::Namespace",
    "api::core::v1::Service", "api::core::v1::Endpoints", "api::core::v1::ConfigMap",
    "api::core::v1::Secret", "api::core::v1::ServiceAccount", "api::core::v1::LimitRange",
    "api::core::v1::ResourceQuota", "api::core::v1::Event", "api::core::v1::PersistentVolumeClaim",
    "api::core::v1::PersistentVolume", "api::core::v1::ReplicationController",
    "api::apps::v1::Deployment", "api::apps::v1::ReplicaSet", "api::apps::v1::DaemonSet",
    "api::apps::v1::StatefulSet", "api::batch::v1::Job", "api::batch::v1::CronJob",
    "api::discovery::v1::EndpointSlice", "api::networking::v1::Ingress",
    "api::networking::v1::IngressClass", "api::networking::v1::NetworkPolicy",
    "api::rbac::v1::Role", "api::rbac::v1::RoleBinding", "api::rbac::v1::ClusterRole",
    "api::rbac::v1::ClusterRoleBinding", "api::policy::v1::PodDisruptionBudget",
    "api::storage::v1::StorageClass", "api::scheduling::v1::PriorityClass",
    "api::coordination::v1::Lease", "api::autoscaling::v2::HorizontalPodAutoscaler",
]

def file_of(path):
    parts = path.split("::")
    name = parts[-1]
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
    # k8s-openapi's file names: acronyms stay together (PodIP -> pod_ip)
    d = os.path.join(ROOT, *parts[:-1])
    cand = os.path.join(d, snake + ".rs")
    if os.path.exists(cand):
        return cand
    for f in os.listdir(d):
        if not f.endswith(".rs"):
            continue
        text = open(os.path.join(d, f)).read()
        if re.search(r"pub struct %s\b" % name, text):
            return os.path.join(d, f)
    return None

def doc_of(lines):
    return " ".join(l.strip()[3:].strip() if l.strip().startswith("/// ") else l.strip()[3:] for l in lines).strip()

def parse(path):
    fn = file_of(path)
    if fn is None:
        return None
    text = open(fn).read()
    name = path.split("::")[-1]
    m = re.search(r"((?:^///[^\n]*\n)*)(?:#\[[^\n]*\]\n)*pub struct %s \{\n(.*?)\n\}" % name, text, re.S | re.M)
    if not m:
        return None
    desc_lines = [l for l in m.group(1).splitlines() if l.startswith("///")]
    desc = "\n".join(l[4:] if l.startswith("/// ") else l[3:] for l in desc_lines).strip()
    body = m.group(2)
    fields = []
    doc = []
    for line in body.splitlines():
        s = line.strip()
        if s.startswith("///"):
            doc.append(s[4:] if s.startswith("/// ") else s[3:])
            continue
        fm = re.match(r"pub (r#)?(\w+): (.+),$", s)
        if fm:
            fields.append((fm.group(2), fm.group(3), "\n".join(doc).strip()))
        doc = []
    keys = dict((rust, js) for js, rust in re.findall(r'"([^"]+)" => Field::Key_(\w+),', text))
    return desc, fields, keys

def type_of(t):
    """(type text, ref path or None, required)"""
    required = True
    if t.startswith("Option<") and t.endswith(">"):
        t = t[7:-1]
        required = False
    def inner(t):
        t = t.strip()
        if t.startswith("std::vec::Vec<"):
            s, r = inner(t[len("std::vec::Vec<"):-1])
            return "[]" + s, r
        if t.startswith("std::collections::BTreeMap<std::string::String, "):
            s, r = inner(t[len("std::collections::BTreeMap<std::string::String, "):-1])
            return "map[string]" + s, r
        if t == "std::string::String":
            return "string", None
        if t in ("i32", "i64"):
            return "integer", None
        if t == "f64":
            return "number", None
        if t == "bool":
            return "boolean", None
        if t.endswith("Time") and "meta::v1" in t:
            return "string", None
        if t.endswith("ByteString"):
            return "string", None
        if t.endswith("resource::Quantity"):
            return "Quantity", None
        if t.endswith("intstr::IntOrString"):
            return "IntOrString", None
        if t.startswith("crate::"):
            path = t[len("crate::"):]
            if path.endswith("RawExtension") or path.endswith("JSON"):
                return "Object", None
            return path.split("::")[-1], path
        return "Object", None
    s, r = inner(t)
    return s, r, required

out = []
seen = set()
queue = list(ROOTS)
while queue:
    p = queue.pop(0)
    if p in seen:
        continue
    seen.add(p)
    parsed = parse(p)
    if parsed is None:
        print("skip", p, file=sys.stderr)
        continue
    desc, fields, keys = parsed
    out.append("@%s|%s" % (p, desc.replace("\n", "\\n")))
    rows = []
    for rust, t, doc in fields:
        js = keys.get(rust) or keys.get(rust.lstrip("_")) or rust
        ty, ref, req = type_of(t)
        if js == "metadata":
            req = False  # k8s-openapi holds it by value; the schema does not require it
        if ref:
            queue.append(ref)
        rows.append("%s|%s|%d|%s|%s" % (js, ty, 1 if req else 0, ref or "", doc.replace("\n", "\\n")))
    out.extend(sorted(rows))
dest = os.path.join(os.path.dirname(__file__), "..", "..", "crates", "kubectl", "src", "explain.data")
open(dest, "w").write("\n".join(out) + "\n")
print(len(seen), "types,", os.path.getsize(dest), "bytes", file=sys.stderr)
