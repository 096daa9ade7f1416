#!/usr/bin/env python3
"""Generates crates/kubectl/src/help.data from kubectl's sources.

For each command kubectl defines with a cobra.Command literal, this script reads its
`Use`, `Short`, `Long`, `Example` and `Aliases` (string literals, or variables set
with templates.LongDesc / templates.Examples) and renders what `kubectl CMD --help`
prints before its options and after them, as kubectl's templater does:

    @<command path>
    <Long, or Short>                       (LongDesc: dedented, markdown to ASCII)
    <blank>
    Aliases:\n<name, alias, ...>\n        (when there are aliases)
    Examples:\n<Example>\n                 (Examples: each line trimmed, indented by 2)
    \x00                                    (where the options go)
    Usage:\n  kubectl <use> [options]\n

Run: python3 xtask/scripts/gen_help.py PATH/TO/kubectl/pkg/cmd > crates/kubectl/src/help.data
"""
import os
import re
import sys

ROOT = sys.argv[1]

# Folders whose commands are top-level commands of their own.
TOP_LEVEL = {"apiresources", "drain", "portforward"}
# Folders named otherwise than their command.
FOLDER_COMMAND = {"certificates": "certificate", "clusterinfo": "cluster-info"}
# Printed formats `kubectl get` lists in its usage line (PrintFlags.AllowedFormats).
GET_FORMATS = ("json|yaml|name|go-template|go-template-file|template|templatefile|"
               "jsonpath|jsonpath-as-json|jsonpath-file|custom-columns|custom-columns-file|wide")
# cmdutil.SuggestAPIResources("kubectl").
SUGGEST = 'Use "kubectl api-resources" for a complete list of supported resources.'

# Files whose commands sit one level deeper than their folder says.
NESTED = {
    "create/create_secret.go": "create secret",
    "create/create_service.go": "create service",
    "create/create_secret_tls.go": "create secret",
    "create/create_secret_docker.go": "create secret",
}


def go_string(src, i):
    """The Go string literal starting at src[i] (raw or interpreted), and its end."""
    if src[i] == "`":
        j = src.index("`", i + 1)
        return src[i + 1:j], j + 1
    if src[i] == '"':
        j = i + 1
        out = []
        while src[j] != '"':
            if src[j] == "\\":
                nxt = src[j + 1]
                out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(nxt, nxt))
                j += 2
            else:
                out.append(src[j])
                j += 1
        return "".join(out), j + 1
    return None, i


# Plain string variables of the file being read (`exposeResources = i18n.T(`...`)`),
# for literals joined to them with `+`.
RAW = {}


def concat(src, i):
    """A literal, or literals (and plain string variables) joined with `+`, starting
    at src[i]."""
    parts = []
    while True:
        while src[i] in " \t\n":
            i += 1
        s, i = go_string(src, i)
        if s is None:
            m = re.match(r"(i18n\.T\()?([A-Za-z_][A-Za-z0-9_]*)\)?", src[i:])
            if not parts or not m or m.group(2) not in RAW:
                return None if not parts else "".join(parts)
            s, i = RAW[m.group(2)], i + m.end()
        parts.append(s)
        k = i
        # `i18n.T(`...`) + more`: the translation call closes before the join.
        while k < len(src) and src[k] in " \t)":
            k += 1
        if k < len(src) and src[k] == "+":
            i = k + 1
            continue
        return "".join(parts)


def value(src, expr_start, variables):
    """The text of a field's expression: a literal, i18n.T(literal), a wrapper of
    either, or a variable holding one."""
    m = re.match(r"\s*(templates\.(LongDesc|Examples)\()?\s*(i18n\.T\()?\s*", src[expr_start:])
    i = expr_start + m.end()
    if src[i] in "`\"":
        text = concat(src, i)
        kind = m.group(2)
        return normalize(text, kind) if kind else text
    name = re.match(r"[A-Za-z_][A-Za-z0-9_]*", src[i:])
    if name:
        return variables.get(name.group(0))
    return None


def variables_of(src):
    """Variables and constants holding a literal, i18n.T of one, or a LongDesc or
    Examples of one."""
    out = {}
    pattern = r"\n\s*(?:var\s+|const\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(templates\.(LongDesc|Examples)\()?\s*(i18n\.T\()?\s*"
    for m in re.finditer(pattern, src):
        i = m.end()
        if i < len(src) and src[i] in "`\"":
            text = concat(src, i)
            if text is not None:
                out[m.group(1)] = normalize(text, m.group(3)) if m.group(3) else text
    return out


def dedent(s):
    """heredoc.Doc: drop the first line if empty, remove the common indentation."""
    lines = s.split("\n")
    if lines and lines[0].strip() == "":
        lines = lines[1:]
    indents = [len(l) - len(l.lstrip(" \t")) for l in lines if l.strip()]
    cut = min(indents) if indents else 0
    return "\n".join(l[cut:] for l in lines)


def markdown(s):
    """The ASCII renderer kubectl's LongDesc uses, for paragraphs, lists and code
    blocks: a paragraph's lines each start with a space and join into one line."""
    out = []
    blocks = re.split(r"\n\s*\n", s)
    for b in blocks:
        lines = b.split("\n")
        if all(l.startswith("    ") or not l.strip() for l in lines) and any(l.strip() for l in lines):
            out.append("\n" + "\n".join("        " + l.strip(" \t") for l in lines) + "\n")
            continue
        if re.match(r"\s*([*-]|\d+\.)\s", lines[0]):
            items = []
            for l in lines:
                m = re.match(r"\s*([*-]|(\d+)\.)\s+(.*)", l)
                if m:
                    items.append([m.group(2), m.group(3).strip()])
                elif items:
                    items[-1][1] += " " + l.strip()
            text = "\n"
            for n, (num, t) in enumerate(items, 1):
                bullet = f"{n}. " if num else "* "
                text += "  " + bullet + " " + t + "\n"
            out.append(text)
            continue
        text = "".join(" " + l.strip(" \t") for l in lines if l.strip(" \t"))
        out.append("\n" + text + "\n")
    return "".join(out)


def normalize(text, kind):
    if kind == "LongDesc":
        return markdown(dedent(text)).strip()
    if kind == "Examples":
        return "\n".join("  " + l.strip() for l in text.strip().split("\n"))
    return text


def commands(path, rel):
    src = open(path).read()
    RAW.clear()
    for m in re.finditer(r"\n\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(i18n\.T\()?\s*(`[^`]*`|\"(?:[^\"\\\\]|\\\\.)*\")\)?\s*\n", src):
        text, _ = go_string(m.group(3), 0)
        RAW[m.group(1)] = text
    variables = variables_of(src)
    folder = os.path.dirname(rel)
    for m in re.finditer(r"&cobra\.Command\{", src):
        # The literal's fields, up to its closing brace at depth 0.
        depth, i = 1, m.end()
        while depth and i < len(src):
            if src[i] in "`\"":
                _, i = go_string(src, i)
                continue
            depth += {"{": 1, "}": -1}.get(src[i], 0)
            i += 1
        body = src[m.end():i]
        start = m.end()
        fields = {}
        for f in ("Use", "Short", "Long", "Example"):
            fm = re.search(r"\n\s*" + f + r":\s*", body)
            if fm:
                fields[f] = value(src, start + fm.end(), variables)
        am = re.search(r"\n\s*Aliases:\s*\[\]string\{([^}]*)\}", body)
        aliases = re.findall(r'"([^"]+)"', am.group(1)) if am else []
        flags_off = re.search(r"DisableFlagsInUseLine:\s*true", body) is not None
        use = fields.get("Use")
        if use is None and rel == "get/get.go":
            use = ("get [(-o|--output=)" + GET_FORMATS + "] (TYPE[.VERSION][.GROUP] [NAME | -l label]"
                   " | TYPE[.VERSION][.GROUP]/NAME ...) [flags]")
        if not use:
            continue
        if re.search(r"Long:\s*\w+\s*\+\s*\"\\n\\n\"\s*\+\s*cmdutil\.SuggestAPIResources", body) and fields.get("Long"):
            fields["Long"] = fields["Long"] + "\n\n" + SUGGEST
        name = use.split()[0]
        parent = NESTED.get(rel)
        if parent is None:
            top = folder.split("/")[0] if folder else ""
            top = FOLDER_COMMAND.get(top, top)
            if folder.split("/")[0] in TOP_LEVEL and name != top:
                top = ""
            parent = "" if name == top or not top else top
        if parent and parent.split()[-1] == name:
            parent = " ".join(parent.split()[:-1])
        yield (f"{parent} {name}".strip(), use, fields, aliases, flags_off)


def render(path, use, fields, aliases):
    text = (fields.get("Long") or fields.get("Short") or "").strip()
    out = text + "\n\n"
    if aliases:
        out += "Aliases:\n" + ", ".join([use.split()[0]] + aliases) + "\n\n"
    if fields.get("Example"):
        out += "Examples:\n" + fields["Example"].rstrip() + "\n\n"
    out += "\x00"
    parent = " ".join(path.split()[:-1])
    line = "kubectl " + (parent + " " if parent else "") + use
    if "[options]" not in line:
        line += " [options]"
    out += "Usage:\n  " + line + "\n\n"
    return out


def main():
    found = {}
    for dirpath, _, files in os.walk(ROOT):
        for f in sorted(files):
            if not f.endswith(".go") or f.endswith("_test.go"):
                continue
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, ROOT)
            for path, use, fields, aliases, _ in commands(full, rel):
                if path in found or path in ("kubectl", "alpha"):
                    continue
                found[path] = render(path, use, fields, aliases)
    for path in sorted(found):
        sys.stdout.write("@" + path + "\n" + found[path].replace("\x00", "\x01"))


main()
