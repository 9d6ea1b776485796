"""A small exact Sudoku solution counter (bitmasks and backtracking, numba)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _count(grid, limit):
    rows = np.zeros(9, np.int64)
    cols = np.zeros(9, np.int64)
    boxes = np.zeros(9, np.int64)
    empty = np.empty(81, np.int64)
    ne = 0
    for c in range(81):
        d = grid[c]
        r, k = c // 9, c % 9
        b = (r // 3) * 3 + k // 3
        if d > 0:
            bit = 1 << (d - 1)
            if (rows[r] & bit) or (cols[k] & bit) or (boxes[b] & bit):
                return 0
            rows[r] |= bit
            cols[k] |= bit
            boxes[b] |= bit
        else:
            empty[ne] = c
            ne += 1
    # iterative DFS, choosing the most constrained cell at each level
    order = np.empty(81, np.int64)
    tried = np.zeros(81, np.int64)
    placed = np.zeros(81, np.int64)
    depth = 0
    count = 0
    assigned = np.zeros(81, np.bool_)
    order[0] = -1
    while depth >= 0:
        if depth == ne:
            count += 1
            if count >= limit:
                return count
            depth -= 1
            if depth >= 0:
                c = order[depth]
                r, k = c // 9, c % 9
                b = (r // 3) * 3 + k // 3
                bit = placed[depth]
                rows[r] ^= bit
                cols[k] ^= bit
                boxes[b] ^= bit
                placed[depth] = 0
            continue
        if order[depth] == -1:
            best = -1
            bc = 10
            for q in range(ne):
                c = empty[q]
                if assigned[c]:
                    continue
                r, k = c // 9, c % 9
                b = (r // 3) * 3 + k // 3
                free = 511 & ~(rows[r] | cols[k] | boxes[b])
                cnt = 0
                while free:
                    free &= free - 1
                    cnt += 1
                if cnt < bc:
                    bc = cnt
                    best = c
            order[depth] = best
            assigned[best] = True
            tried[depth] = 0
        c = order[depth]
        r, k = c // 9, c % 9
        b = (r // 3) * 3 + k // 3
        if placed[depth]:
            bit = placed[depth]
            rows[r] ^= bit
            cols[k] ^= bit
            boxes[b] ^= bit
            placed[depth] = 0
        free = 511 & ~(rows[r] | cols[k] | boxes[b]) & ~tried[depth]
        if free == 0:
            assigned[c] = False
            order[depth] = -1
            depth -= 1
            if depth >= 0:
                pass
            continue
        bit = free & -free
        tried[depth] |= bit
        placed[depth] = bit
        rows[r] |= bit
        cols[k] |= bit
        boxes[b] |= bit
        depth += 1
        if depth < 81:
            order[depth] = -1
    return count


def count_solutions(puzzle, limit=2):
    """Solutions of a 81-cell puzzle (0 = blank), counting stops at ``limit``."""
    g = np.ascontiguousarray(np.asarray(puzzle, dtype=np.int64).ravel())
    if g.size != 81 or g.min() < 0 or g.max() > 9:
        raise ValueError("puzzle must hold 81 cells with values 0..9.")
    return int(_count(g, int(limit)))
