#!/usr/bin/env python3
"""ctest peers_sized_iters: the peers size their timed loops by the supervisor's rule
(runtime/src/supervisor/timed_loop.h), without PyTorch or a GPU."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer_common  # noqa: E402


class SizedIters(unittest.TestCase):
    def test_fills_the_time_at_the_slowest_pace(self):
        self.assertEqual(peer_common.sized_iters(2.0, 0.5, 20, 640), 250)
        self.assertEqual(peer_common.sized_iters(3.0, 0.5, 20, 640), 167)

    def test_bounded_by_the_workloads_iters_and_the_cap(self):
        self.assertEqual(peer_common.sized_iters(0.1, 0.5, 20, 640), 640)
        self.assertEqual(peer_common.sized_iters(100.0, 0.5, 20, 640), 20)
        self.assertEqual(peer_common.sized_iters(0.1, 0.5, 20, 10), 20)

    def test_unknown_pace_or_no_time_keeps_the_iters(self):
        for pace in (0.0, -1.0, math.nan, math.inf):
            self.assertEqual(peer_common.sized_iters(pace, 0.5, 20, 640), 20)
        self.assertEqual(peer_common.sized_iters(2.0, 0.0, 20, 640), 20)


if __name__ == "__main__":
    unittest.main()
