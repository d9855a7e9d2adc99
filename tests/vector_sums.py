"""Column sums as the vector unit adds them, for tests of TCOLSUM / pl.col_sum: every addition in the
tile's own dtype (numpy's float16 and ml_dtypes' bfloat16 additions are correctly rounded)."""
import numpy as np


def column_sum(a: np.ndarray, binary: bool) -> np.ndarray:
    """Sequential: row 0, then each next row added.  Binary (the scratch-tile form): adjacent rows added
    pairwise, an odd last row into the first pair sum, level by level."""
    rows = [r.copy() for r in a]
    if not binary:
        acc = rows[0]
        for r in rows[1:]:
            acc = (acc + r).astype(a.dtype)
        return acc
    cnt = len(rows)
    while cnt > 1:
        for i in range(cnt // 2):
            rows[i] = (rows[2 * i] + rows[2 * i + 1]).astype(a.dtype)
        if cnt % 2:
            rows[0] = (rows[0] + rows[cnt - 1]).astype(a.dtype)
        cnt //= 2
    return rows[0]
