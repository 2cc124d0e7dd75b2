"""present.verdict_table: a verdict's claim lines read as rows (group, claim, measured, outcome, paper, reason)."""

from lostmid_jax.present.verdict_table import Claim, claim_rows

VERDICT = """Step-0 claims, judged on their own intervals
toy:
  middle dip: 0.42 [0.40, 0.44]: REPRODUCED (CI below 0.5; paper 0.41; rule: whole CI)
  shape: misfit 3.1 [2.0, 4.0]: inconclusive (CI spans 2.5; rule: CI vs 2.5)
  a line of another shape
small:
  ratio: 1.9 [1.7, 2.1]: REFUTED (CI above 1.5; paper 1.2)
Details
  hidden: 1 [0, 2]: REPRODUCED (after Details: explains, is no claim)
"""


def test_claim_lines_become_rows_under_their_group_and_details_end_them():
    assert claim_rows(VERDICT) == [
        Claim("toy", "middle dip", "0.42 [0.40, 0.44]", "REPRODUCED", "0.41", "CI below 0.5"),
        Claim("toy", "shape", "misfit 3.1 [2.0, 4.0]", "inconclusive", "", "CI spans 2.5"),
        Claim("small", "ratio", "1.9 [1.7, 2.1]", "REFUTED", "1.2", "CI above 1.5"),
    ]


def test_no_verdict_or_no_claim_line_gives_no_row():
    assert claim_rows(None) == [] and claim_rows("") == []
    assert claim_rows("depth 4: the dip deepens\n  nothing judged here: 3 (a note)\n") == []
