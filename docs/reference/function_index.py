#!/usr/bin/python3
"""Writes docs/functions.md, the one-page index of every public function (namespace lz and its
public sub-namespaces, not detail), from Doxygen's XML of the public headers
(docs/reference/Doxyfile). With --check, compares instead and fails when the file is stale.
Usage: function_index.py <doxygen xml dir> <docs/functions.md> [--check]"""
import collections
import os
import sys
import xml.etree.ElementTree as ET

xml_dir, out = sys.argv[1], sys.argv[2]
check = "--check" in sys.argv[3:]


def text(node):
    return " ".join("".join(node.itertext()).split()) if node is not None else ""


index = ET.parse(os.path.join(xml_dir, "index.xml")).getroot()
funcs = collections.defaultdict(lambda: {"headers": set(), "brief": ""})
for c in index.findall("compound"):
    ns = c.find("name").text
    if c.get("kind") != "namespace" or "detail" in ns.split("::"):
        continue
    tree = ET.parse(os.path.join(xml_dir, c.get("refid") + ".xml")).getroot()
    for m in tree.iter("memberdef"):
        if m.get("kind") != "function":
            continue
        f = funcs[(ns, m.find("name").text)]
        path = m.find("location").get("file")
        f["headers"].add(path[path.index("lz/"):] if "lz/" in path else path)
        if not f["brief"]:
            f["brief"] = text(m.find("briefdescription"))

lines = ["# Function index", "",
         "Every public function of lazuli, by namespace, with the headers that declare it and the "
         "first line of its comment. Generated from the API reference's XML by "
         "`docs/reference/function_index.py` (the test "
         "`api_reference_builds_without_warnings_and_the_index_is_current` fails when this file "
         "is stale; regenerate with `cmake --build build --target lazuli_function_index`). "
         "Operators and math functions are elementwise unless the line says otherwise; `*` of "
         "two matrices (or a matrix and a vector) is the matrix product.", ""]
for ns in sorted({k[0] for k in funcs}):
    lines += [f"## `{ns}`", "", "| function | header | what it does |", "|---|---|---|"]
    for (n_s, name), f in sorted(funcs.items(), key=lambda kv: (kv[0][0], kv[0][1].lower())):
        if n_s != ns:
            continue
        brief = f["brief"].replace("|", "\\|") or "–"
        headers = ", ".join(f"`{h}`" for h in sorted(f["headers"]))
        lines.append(f"| `{name.replace('|', chr(92) + '|')}` | {headers} | {brief} |")
    lines.append("")
content = "\n".join(lines)

if check:
    current = open(out).read() if os.path.exists(out) else ""
    if current != content:
        sys.exit(f"{out} is stale: regenerate it (cmake --build build --target "
                 "lazuli_function_index)")
    print(f"{out}: {len(funcs)} functions, current")
else:
    with open(out, "w") as f:
        f.write(content)
    print(f"wrote {out}: {len(funcs)} functions")
