"""Candidate labelings of a captioned image (the paper's Figure 2)."""

from __future__ import annotations

import numpy as np

__all__ = ["caption_labelings"]


def caption_labelings(n_faces, names, null_label):
    """Every labeling of ``n_faces`` detected faces allowed by a caption's ``names``.

    Figure 2's rules: a face takes one name of the caption or ``null_label``; a name goes
    to at most one face; not every face is ``null_label`` (that labeling would make
    "everyone is NULL" a zero-loss solution).

    Parameters
    ----------
    n_faces : int
        Faces detected in the image (>= 1).
    names : sequence
        Names found in the caption: distinct, at least one (with none, every face would
        be NULL, which is excluded).
    null_label : label
        The label of a face that is none of the names.

    Returns
    -------
    labelings : ndarray of shape (n_labelings, n_faces)
        ``sum_{k=1}^{min(F, N)} C(F, k) N! / (N - k)!`` rows, in a fixed order.

    Examples
    --------
    >>> caption_labelings(2, ["obama", "michelle"], "NULL").tolist()
    [['obama', 'michelle'], ['obama', 'NULL'], ['michelle', 'obama'], ['michelle', 'NULL'], ['NULL', 'obama'], ['NULL', 'michelle']]
    """
    if isinstance(n_faces, bool) or not isinstance(n_faces, (int, np.integer)) or n_faces < 1:
        raise ValueError(f"n_faces must be an int >= 1; got {n_faces!r}.")
    names = list(names)
    if len(set(names)) != len(names):
        raise ValueError(f"names must be distinct; got {names}.")
    if null_label in names:
        raise ValueError(f"null_label {null_label!r} must not be one of the names.")
    if not names:
        raise ValueError("names is empty: the only labeling would give every face the null label, which is "
                         "excluded; drop the image or give it a name.")
    n_faces = int(n_faces)
    if n_faces > 12 or len(names) > 12:
        raise ValueError(f"{n_faces} faces and {len(names)} names give too many labelings to list; keep both <= 12.")
    out = []
    row = [None] * n_faces
    used = [False] * len(names)

    def place(f, named):
        if f == n_faces:
            if named:
                out.append(tuple(row))
            return
        for k, name in enumerate(names):
            if not used[k]:
                used[k] = True
                row[f] = name
                place(f + 1, True)
                used[k] = False
        row[f] = null_label
        place(f + 1, named)

    place(0, False)
    kinds = {type(v) for r in out for v in r}
    if len(kinds) > 1 and not all(issubclass(k, (int, np.integer)) for k in kinds):
        return np.asarray(out, dtype=object)
    return np.asarray(out)
