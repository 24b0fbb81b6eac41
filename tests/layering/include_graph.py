#!/usr/bin/python3
"""Layers point one way (docs/architecture.md, "Layers"): checks lazuli's include graph.

  1. every header under include/, fusion/include/, kernels/include/ begins with `#pragma once`;
  2. the headers' include graph has no cycle;
  3. no file under kernels/ reaches an engine header (lz/evaluate.hpp, lz/explain.hpp,
     lz/fusion/..., or a header that includes them: lz/tensor.hpp, lz/lz.hpp), directly or
     through other headers;
  4. no header under include/lz/{expr,layout,ops} reaches the engine or an lz/kernels/ header.

Usage: include_graph.py <source root>. Prints each violation with the include chain; exit 1.
"""
import os
import re
import sys

INCLUDE = re.compile(r"^\s*#\s*include\s*<(lz/[^>]+)>", re.M)
ROOTS = ["include", "fusion/include", "kernels/include"]
ENGINE = re.compile(r"^lz/(evaluate\.hpp|explain\.hpp|fusion/)")


def main(root):
    headers = {}  # "lz/x.hpp" -> path
    for r in ROOTS:
        base = os.path.join(root, r)
        for d, _, files in os.walk(base):
            for f in files:
                if f.endswith(".hpp"):
                    p = os.path.join(d, f)
                    headers[os.path.relpath(p, base)] = p
    sources = {}  # repo-relative path -> path, for the .cpp files of the library
    for r in ["kernels", "fusion/src", "src"]:
        for d, _, files in os.walk(os.path.join(root, r)):
            for f in files:
                if f.endswith((".cpp", ".hpp", ".cu")) and "/include/" not in d + "/":
                    p = os.path.join(d, f)
                    sources[os.path.relpath(p, root)] = p

    def includes(path):
        with open(path, encoding="utf-8") as fh:
            return [i for i in INCLUDE.findall(fh.read()) if i in headers]

    graph = {h: includes(p) for h, p in headers.items()}
    errors = []

    for h, p in sorted(headers.items()):
        with open(p, encoding="utf-8") as fh:
            code = [l for l in fh.read().splitlines() if l.strip() and not l.lstrip().startswith("//")]
        if not code or code[0].strip() != "#pragma once":
            errors.append(f"{h}: does not begin with its guard (#pragma once)")

    # cycles: depth-first search with colours
    state = {}

    def visit(h, stack):
        state[h] = 1
        for i in graph[h]:
            if state.get(i) == 1:
                cyc = stack[stack.index(i):] + [i]
                errors.append("include cycle: " + " -> ".join(cyc))
            elif i not in state:
                visit(i, stack + [i])
        state[h] = 2

    for h in sorted(graph):
        if h not in state:
            visit(h, [h])

    def reach(start_includes, bad):
        """First chain from start_includes to a header matching bad, or None."""
        seen = set()
        todo = [[i] for i in start_includes]
        while todo:
            chain = todo.pop(0)
            h = chain[-1]
            if h in seen:
                continue
            seen.add(h)
            if bad(h):
                return chain
            todo.extend(chain + [i] for i in graph[h])
        return None

    def engine(h):
        return bool(ENGINE.match(h)) or h in ("lz/tensor.hpp", "lz/lz.hpp")

    kernel_files = {f"kernels/include/{h}": p for h, p in headers.items() if h.startswith("lz/kernels/")}
    kernel_files.update({s: p for s, p in sources.items() if s.startswith("kernels/")})
    for name, p in sorted(kernel_files.items()):
        chain = reach(includes(p), engine)
        if chain:
            errors.append(f"{name} reaches the engine: " + " -> ".join(chain))

    for h in sorted(headers):
        if re.match(r"^lz/(expr|layout|ops)/", h):
            chain = reach(graph[h], lambda x: engine(x) or x.startswith("lz/kernels/"))
            if chain:
                errors.append(f"include/{h} reaches the engine or a kernel header: " + " -> ".join(chain))

    for e in errors:
        print(e)
    print(f"{len(headers)} headers, {len(kernel_files)} kernel files checked: {len(errors)} violations")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
