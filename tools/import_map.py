"""The import map of dppca/: every import between its modules, and the circles in it.

``python tools/import_map.py`` prints each import circle (a strongly connected component of
the module graph, with one shortest cycle through it) and exits 1 if there is any; with
``--edges`` it also prints every import, one ``importer -> imported`` per line.

The graph comes from grimp (installed with import-linter), which reads every ``import`` and
``from ... import`` statement of each module with ``ast`` at any depth: imports inside
functions and ``if TYPE_CHECKING:`` blocks count like top-level ones, since a circle
hidden in a function is still two modules that need each other. Relative imports are
resolved; ``from package import name`` is an import of ``package.name`` when that is a
module, else of ``package``.
"""
from __future__ import annotations

import argparse
import sys

import grimp


def import_graph(package: str = "dppca") -> dict[str, set[str]]:
    """``{module: the modules of the package it imports}`` (a package is its ``__init__``)."""
    graph = grimp.build_graph(package, cache_dir=None)
    return {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: the strongly connected components with more than one module (or a
    module importing itself), each sorted, in sorted order (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root), on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child), on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    found.append(sorted(component))
    return sorted(found)


def shortest_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """A shortest cycle through the component's first module, as ``[a, b, ..., a]`` (BFS)."""
    start, members = component[0], set(component)
    parent, queue = {start: None}, [start]
    for node in queue:
        for child in sorted(graph[node] & members):
            if child == start:
                path = [node]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                return [start] + path[::-1][1:] + [start] if len(path) > 1 else [start, start]
            if child not in parent:
                parent[child] = node
                queue.append(child)
    return component


def main(argv=None) -> int:
    """Print the circles (and with ``--edges`` every import); 1 if there is a circle, else 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="dppca")
    parser.add_argument("--edges", action="store_true", help="print every import as well")
    args = parser.parse_args(argv)
    graph = import_graph(args.package)
    if args.edges:
        for module in sorted(graph):
            for imported in sorted(graph[module]):
                print(f"{module} -> {imported}")
    found = circles(graph)
    edges = sum(map(len, graph.values()))
    print(f"{len(graph)} modules, {edges} imports, {len(found)} import circle(s)")
    for component in found:
        print(f"circle of {len(component)} modules ({', '.join(component)}), e.g. "
              + " -> ".join(shortest_cycle(graph, component)))
        for module in component:
            for imported in sorted(graph[module] & set(component)):
                print(f"    {module} -> {imported}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
