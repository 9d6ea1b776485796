"""Speed of the structured-output pieces, measured in one run.

Run:  python benchmarks/structured_speed.py
Prints: Viterbi on a 100-long, 30-state chain beside a plain-numpy Viterbi (ratio);
lp_map on Sudoku instances (ms per puzzle); LPMILM3N training time on 500 partially
annotated Sudokus (half the empty cells unlabelled) with the share of 100 unseen
puzzles it then solves and the decoding time per puzzle (targets: under 60 s to train,
under 50 ms per puzzle), and the same for 100 puzzles from another source; MILM3N on
10,000 chains of lengths 5-100 against the same nodes in chains of one length, 3 BCFW
passes each (ratio; target at most 1.5x).  Pin BLAS to one thread when timing:
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/structured_speed.py
"""

from weaklabel.experiments import _speed as speed

if __name__ == "__main__":
    speed.run_structured()
