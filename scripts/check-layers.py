#!/usr/bin/env python3
"""The layer order of Package.swift's header, checked against the real target graph.

Usage: check-layers.py [--self-test | --mermaid | --check-doc FILE] [--dump FILE]

The order is written once, in the `// layer N name: Target ...` lines of Package.swift. The
graph is SwiftPM's own (`swift package dump-package`), not read from source text. Fails on
any edge from a target to one of its own or a higher layer, and on a non-test target the
header does not place. --self-test plants an upward edge and an unplaced target into the
real graph and fails unless both are flagged. --mermaid prints the graph as drawn in
docs/architecture.md; --check-doc fails if that drawing is not current.
"""
import json, os, re, subprocess, sys, tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN, END = "<!-- layers:begin (scripts/check-layers.py --mermaid) -->", "<!-- layers:end -->"


def layers():
    """[(number, name, [targets])] from Package.swift's header."""
    with open(os.path.join(REPO, "Package.swift")) as package:
        found = re.findall(r"^// layer (\d+) ([^:\n]+): (.*)$", package.read(), re.M)
    return [(int(number), name, targets.split()) for number, name, targets in found]


def graph(dump_path):
    """{target: (type, [target dependencies])} from dump-package (its own scratch path, so
    a build in progress does not hold it up)."""
    if dump_path:
        text = open(dump_path).read()
    else:
        scratch = os.path.join(tempfile.gettempdir(), "paypulse-layers")
        text = subprocess.run(["swift", "package", "--scratch-path", scratch, "dump-package"], cwd=REPO,
                              check=True, capture_output=True, text=True).stdout
    targets = {}
    for target in json.loads(text)["targets"]:
        deps = [entry[kind][0] for entry in target.get("dependencies", []) for kind in entry if kind in ("byName", "target")]
        targets[target["name"]] = (target["type"], deps)
    return targets


def violations(targets, order):
    layer_of = {name: number for number, _, names in order for name in names}
    found = []
    for name, (kind, deps) in sorted(targets.items()):
        if kind == "test":
            continue
        if name not in layer_of:
            found.append(f"{name}: no layer in Package.swift's header")
            continue
        for dep in deps:
            if dep in targets and layer_of.get(dep, 99) >= layer_of[name]:
                found.append(f"{name} (layer {layer_of[name]}) -> {dep} (layer {layer_of.get(dep, '?')}): points up or across")
    return found


def mermaid(targets, order):
    """Layers as subgraphs, lowest at the bottom; edges after transitive reduction."""
    layer_of = {name: number for number, _, names in order for name in names}
    edges = {n: set(d for d in deps if d in layer_of) for n, (kind, deps) in targets.items() if n in layer_of}

    def reachable(start, skip):
        seen, stack = set(), [d for d in edges[start] if d != skip]
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(edges.get(node, ()))
        return seen

    lines = ["```mermaid", "flowchart TB"]
    for number, title, names in reversed(order):
        lines.append(f'  subgraph L{number}["{number} {title}"]')
        lines += [f'    {n.replace("-", "_")}["{n}"]' for n in names]
        lines.append("  end")
    for name in sorted(edges):
        for dep in sorted(edges[name]):
            if dep not in reachable(name, dep):
                lines.append(f'  {name.replace("-", "_")} --> {dep.replace("-", "_")}')
    return "\n".join(lines + ["```"])


def main(argv):
    dump = argv[argv.index("--dump") + 1] if "--dump" in argv else None
    order, targets = layers(), graph(dump)
    if "--mermaid" in argv:
        print(mermaid(targets, order))
        return 0
    if "--check-doc" in argv:
        doc = open(argv[argv.index("--check-doc") + 1]).read()
        drawn = doc.split(BEGIN, 1)[-1].split(END, 1)[0].strip() if BEGIN in doc else None
        if drawn != mermaid(targets, order):
            print("check-layers: the layer diagram in the doc is not current; paste `scripts/check-layers.py --mermaid`")
            return 1
        return 0
    if "--self-test" in argv:
        assert not violations(targets, order), "the real graph must pass before the self-test means anything"
        planted = dict(targets)
        planted["PayPulseRuntime"] = (targets["PayPulseRuntime"][0], targets["PayPulseRuntime"][1] + ["PayPulseHandlers"])
        planted["PayPulseStray"] = ("regular", [])
        flagged = violations(planted, order)
        if not (any(f.startswith("PayPulseRuntime (layer") for f in flagged) and any(f.startswith("PayPulseStray:") for f in flagged)):
            print("check-layers self-test: a planted upward edge or unplaced target went unflagged")
            return 1
        print("check-layers self-test: a planted upward edge and an unplaced target are flagged")
        return 0
    found = violations(targets, order)
    for line in found:
        print("check-layers:", line)
    if not found:
        print(f"check-layers: {sum(len(n) for _, _, n in order)} targets in {len(order)} layers, every edge points down")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
