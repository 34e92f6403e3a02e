"""Include cycles for tests/lint-server.sh and tests/lint-tree.sh.

edges maps each module to {module it includes: (file, line) of the first
#include that does}; a module that is only ever included (no key of its own)
is a leaf. include_cycles(edges) returns one cycle per strongly connected
component of two or more modules (Tarjan's algorithm), each a list of
modules that starts and ends with the same one, found by breadth-first
search from the component's first module in sorted order, so the shortest
cycle through it is reported and the output is the same from run to run.
"""
import sys


def include_cycles(edges):
    """The cycles of edges, one per strongly connected component (above)."""
    index, low, stack, onstack, sccs = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        onstack.add(v)
        for w in edges.get(v, {}):
            if w not in edges:
                continue
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in onstack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                onstack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            strong(v)
    return [cycle_in(edges, comp) for comp in sccs]


def cycle_in(edges, comp):
    """One cycle through comp[0], as a list of modules, found by BFS."""
    start, members = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v]):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp
